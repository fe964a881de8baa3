use rota::{Component, Scene};

#[derive(Component, Clone, Scene)]
#[scene(key = "ui.Inventory")]
struct Inventory {
    #[scene(id = 1)]
    items: Vec<u32>,
}

fn main() {}
