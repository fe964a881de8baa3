use std::cell::Cell;

use rota::Component;

#[derive(Component)]
struct Counter {
    hits: Cell<u32>,
}

fn main() {}
