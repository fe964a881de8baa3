//! Quickstart: spawn entities, query them in ascending slot order, despawn through commands,
//! and run a declared system.
//!
//! Run: `cargo run --release --example quickstart`

use rota::{Component, Entity, Query, World, system};

#[derive(Component, Debug, Clone, Copy)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Debug, Clone, Copy)]
struct Velocity {
    dx: f32,
    dy: f32,
}

#[derive(Component, Clone, Debug)]
struct Name(&'static str);

// The compiler holds this system to its declaration: touching anything else does not compile.
#[system(reads(Velocity), writes(Position))]
fn movement(mut q: Query<(&mut Position, &Velocity)>) {
    for (p, v) in &mut q {
        p.x += v.dx;
        p.y += v.dy;
    }
}

fn main() {
    let mut world = World::new();
    for (i, name) in ["ada", "bob", "cy", "dee", "eve"].into_iter().enumerate() {
        let e = world.spawn_with((
            Name(name),
            Position {
                x: i as f32,
                y: 0.0,
            },
        ));
        if i % 2 == 0 {
            world
                .insert(e, Velocity { dx: 1.0, dy: 0.5 })
                .expect("just spawned");
        }
    }

    // Despawn while iterating goes through a command buffer, applied afterwards.
    let mut commands = world.commands();
    for (e, name) in world.query::<(Entity, &Name)>() {
        if name.0 == "cy" {
            commands.despawn(e);
        }
    }
    let report = world.apply(commands.finish());
    println!("applied {} command(s)", report.applied);

    // The freed slot is reused with a new generation; the old handle stays dead.
    let fin = world.spawn_with((Name("fin"), Position { x: 9.0, y: 9.0 }));
    println!("spawned {fin} into the freed slot");

    let _ = world.run(movement);

    // Ascending slot order, whatever the history.
    for (e, name, p) in world.query::<(Entity, &Name, &Position)>() {
        println!("{e:>4}  {:<4} ({:>4.1}, {:>4.1})", name.0, p.x, p.y);
    }
}
