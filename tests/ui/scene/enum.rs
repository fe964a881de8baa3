use rota::{Component, Scene};

#[derive(Component, Scene)]
#[scene(key = "ui.Team")]
enum Team {
    Red,
    Blue,
}

fn main() {}
