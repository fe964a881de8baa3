use rota::{Component, Scene};

// No key, a field without an id, a duplicate id and a reused retired id: all four reported.
#[derive(Component, Clone, Scene)]
#[scene(retired(5))]
struct Body {
    #[scene(id = 1)]
    x: f32,
    y: f32,
    #[scene(id = 1)]
    z: f32,
    #[scene(id = 5)]
    w: f32,
}

fn main() {}
