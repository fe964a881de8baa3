use rota::{Component, Scene};

#[derive(Component, Clone, Scene)]
#[scene(key = "ui.Team")]
enum Team {
    Red,
    Blue,
}

fn main() {}
