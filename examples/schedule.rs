//! A schedule: `after`, `every_ticks`, conflicts, batches — and `describe()` explaining the plan.
//!
//! Run: `cargo run --example schedule`

use rota::{Component, Query, Schedule, World, system};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Velocity(f32);
#[derive(Component, Clone)]
struct Age(u32);

#[system(reads(Velocity), writes(Position))]
fn movement(mut q: Query<(&mut Position, &Velocity)>) {
    for (p, v) in &mut q {
        p.0 += v.0;
    }
}

#[system(writes(Velocity), after(movement), every_ticks = 2)]
fn friction(mut q: Query<&mut Velocity>) {
    for v in &mut q {
        v.0 *= 0.5;
    }
}

#[system(writes(Age), every_ticks = 3)]
fn aging(mut q: Query<&mut Age>) {
    for a in &mut q {
        a.0 += 3;
    }
}

#[system(reads(Position))]
fn report(q: Query<&Position>) {
    let sum: f32 = q.iter().map(|p| p.0).sum();
    println!("  positions sum to {sum}");
}

fn main() -> Result<(), rota::ScheduleError> {
    let mut schedule = Schedule::builder()
        .add(movement)
        .add(friction)
        .add(aging)
        .add(report)
        .threads(2)
        .build()?;
    print!("{}", schedule.describe());
    let mut world = World::new();
    world.spawn_batch((0..4).map(|i| (Position(0.0), Velocity(i as f32), Age(0))));
    for _ in 0..4 {
        let run = schedule.run(&mut world);
        println!("tick {} ran {:?}", run.tick, run.ran);
    }
    Ok(())
}
