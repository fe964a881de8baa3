//! `defers(T)`: a system's `Commands` may insert, remove and spawn `T` without declaring a write,
//! so it does not conflict with readers and writers of `T` in its batch.
use rota::{Commands, Component, Entity, Query, Schedule, World, system};

#[derive(Component, Clone)]
struct Health(u32);
#[derive(Component, Clone)]
struct Dead;

#[system(reads(Health), defers(Dead, Health))]
fn reaper(q: Query<(Entity, &Health)>, mut commands: Commands) {
    for (e, h) in q.iter() {
        if h.0 == 0 {
            commands.insert(e, Dead);
            commands.remove::<Health>(e);
        }
    }
    commands.spawn((Health(9),));
}

#[system(writes(Health))]
fn hurt(mut q: Query<&mut Health>) {
    for h in &mut q {
        h.0 = h.0.saturating_sub(1);
    }
}

pub fn main() {
    let mut world = World::new();
    world.spawn_with((Health(0),));
    world.spawn_with((Health(5),));
    let mut schedule = Schedule::builder().add(reaper).add(hurt).build().unwrap();
    schedule.run(&mut world);
    assert_eq!(world.query::<&Dead>().count(), 1);
    assert_eq!(world.query::<&Health>().count(), 2);
}
