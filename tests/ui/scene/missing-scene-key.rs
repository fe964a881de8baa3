use rota::{Component, Scene};

#[derive(Component, Clone, Scene)]
struct Position {
    #[scene(id = 1)]
    x: f32,
}

fn main() {}
