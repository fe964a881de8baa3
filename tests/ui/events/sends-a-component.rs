// Only events can be declared in `sends(..)`/`receives(..)`.
use rota::{Component, system};

#[derive(Component, Clone)]
struct Position(f32);

#[system(sends(Position))]
fn nothing() {}

fn main() {
    let _ = nothing;
}
