//! Commands: structural changes recorded while iterating, applied afterwards in order, with a
//! report of anything skipped.
//!
//! Run: `cargo run --example commands`

use rota::{Component, Entity, World};

#[derive(Component, Clone, Debug)]
struct Hp(i32);
#[derive(Component, Clone, Debug)]
struct Corpse;

fn main() {
    let mut world = World::new();
    let ids = world.spawn_batch((0..6).map(|i| (Hp(i - 2),)));

    // Despawning under a live cursor would skip entities (swap-remove moves the last element
    // behind the cursor), so queries make no structural change: record, then apply.
    let mut commands = world.commands();
    for (e, hp) in world.query::<(Entity, &Hp)>() {
        if hp.0 <= 0 {
            commands.despawn(e);
            let corpse = commands.spawn((Corpse,));
            println!("{e} dies, leaving {corpse} (reserved now, alive once applied)");
        }
    }
    // A command against an entity that will be dead by then is reported, not applied.
    commands.insert(ids[0], Hp(100));
    let report = world.apply(commands.finish());
    println!(
        "applied {}, skipped {}:",
        report.applied,
        report.errors.len()
    );
    for err in &report.errors {
        println!("  {err}");
    }
    println!(
        "{} living, {} corpses",
        world.query::<&Hp>().count(),
        world.query::<&Corpse>().count()
    );
}
