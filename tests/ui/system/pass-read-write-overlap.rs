use rota::{Component, Query, system};

#[derive(Component, Clone)]
struct Position(f32);

// A type in both lists is a write; writes imply reads, so `&Position` elsewhere is fine too.
#[system(reads(Position), writes(Position))]
fn both(mut q: Query<&mut Position>) {
    for p in &mut q {
        p.0 += 1.0;
    }
}

#[system(writes(Position))]
fn read_through_write(q: Query<&Position>) {
    let _ = q.iter().count();
}

pub fn main() {
    let mut world = rota::World::new();
    world.spawn_with((Position(0.0),));
    let _ = world.run(both);
    let _ = world.run(read_through_write);
    let d = rota::System::descriptor(&both());
    assert!(d.reads.is_empty());
    assert_eq!(d.writes.len(), 1);
}
