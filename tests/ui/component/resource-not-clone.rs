use std::sync::Mutex;

use rota::Resource;

// Snapshots copy every resource, so a resource must be `Clone` (or opt out with no_snapshot).
#[derive(Resource)]
struct Device(Mutex<u32>);

fn main() {}
