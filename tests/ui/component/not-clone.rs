use std::sync::Mutex;

use rota::Component;

// Snapshots copy every store, so a component must be `Clone` (or opt out with no_snapshot).
#[derive(Component)]
struct Handle {
    device: Mutex<u32>,
}

fn main() {}
