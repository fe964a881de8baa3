use rota::{Component, Scene};

#[derive(Component, Clone, Scene)]
#[scene(key = "ui.Position", retired(2, 2))]
struct Position {
    #[scene(id = 1)]
    x: f32,
}

fn main() {}
