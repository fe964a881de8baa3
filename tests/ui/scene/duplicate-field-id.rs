use rota::{Component, Scene};

#[derive(Component, Clone, Scene)]
#[scene(key = "ui.Position")]
struct Position {
    #[scene(id = 1)]
    x: f32,
    #[scene(id = 1)]
    y: f32,
}

fn main() {}
