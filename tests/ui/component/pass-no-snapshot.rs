//! `no_snapshot` accepts a type that is not `Clone`, and `World::snapshot` then refuses, naming
//! it, only while the world holds one.

use std::sync::Mutex;

use rota::{Component, Resource, SnapshotError, World};

#[derive(Component)]
#[component(no_snapshot)]
struct Handle(Mutex<u32>);

#[derive(Resource)]
#[resource(no_snapshot)]
struct Device(Mutex<u32>);

pub fn main() {
    let mut world = World::new();
    let e = world.spawn_with((Handle(Mutex::new(1)),));
    assert_eq!(
        world.snapshot().unwrap_err(),
        SnapshotError::ComponentExcluded {
            component: "Handle",
            held: 1
        }
    );
    world.despawn(e).unwrap();
    world.insert_resource(Device(Mutex::new(2)));
    assert_eq!(
        world.snapshot().unwrap_err(),
        SnapshotError::ResourceExcluded { resource: "Device" }
    );
    world.remove_resource::<Device>();
    assert!(world.snapshot().is_ok());
}
