//! Quickstart: spawn entities, give them components, iterate in ascending slot order, despawn.
//!
//! Run: `cargo run --release --example quickstart`

use rota::{Entities, Store, join};

#[derive(Debug, Clone, Copy)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Debug, Clone, Copy)]
struct Velocity {
    dx: f32,
    dy: f32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut entities = Entities::new();
    let mut positions = Store::new();
    let mut velocities = Store::new();

    // Five entities; only the even ones move.
    for i in 0..5 {
        let e = entities.spawn()?;
        positions.insert(
            e,
            Position {
                x: i as f32,
                y: 0.0,
            },
        );
        if i % 2 == 0 {
            velocities.insert(e, Velocity { dx: 1.0, dy: 0.5 });
        }
    }

    // Despawn slot 2 and spawn again: the slot is reused with a new generation (2v1).
    let victim = entities.iter().nth(2).expect("five entities were spawned");
    entities.despawn(victim)?;
    positions.remove(victim);
    velocities.remove(victim);
    let reborn = entities.spawn()?;
    positions.insert(reborn, Position { x: 100.0, y: 100.0 });
    velocities.insert(reborn, Velocity { dx: -1.0, dy: 0.0 });
    println!("despawned {victim}, spawned {reborn} in the same slot");
    println!("stale handle {victim} alive? {}", entities.is_alive(victim));

    // One movement step: the join visits entities in ascending slot order.
    let moves: Vec<_> = join(&positions, &velocities)
        .map(|(e, p, v)| {
            (
                e,
                Position {
                    x: p.x + v.dx,
                    y: p.y + v.dy,
                },
            )
        })
        .collect();
    for (e, p) in moves {
        positions.insert(e, p);
    }

    for (e, p) in positions.iter() {
        println!("{e:>4}: ({:>6.1}, {:>6.1})", p.x, p.y);
    }
    Ok(())
}
