use rota::{Component, Scene};

// Field 2 (`z`) was removed in version 2. Version 3 must not give its id to a new field:
// version-1 files would load `z`'s values into it.
#[derive(Component, Clone, Scene)]
#[scene(key = "ui.Position", retired(2))]
struct Position {
    #[scene(id = 1)]
    x: f32,
    #[scene(id = 2)]
    height: f32,
}

fn main() {}
