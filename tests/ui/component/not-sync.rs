use std::cell::Cell;

use rota::Component;

#[derive(Component, Clone)]
struct Counter {
    hits: Cell<u32>,
}

fn main() {}
