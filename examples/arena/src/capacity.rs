//! `--capacity`: the largest arena world whose worst-case rollback fits in one 60 Hz frame.
//!
//! A rollback of 8 frames (GGRS's prediction window in the match) costs a restore, then 8
//! times: a schedule run, a snapshot and a `full_checksum` (GGRS saves every re-simulated
//! frame with its checksum). The world doubles in asteroids until that no longer fits in
//! 16.7 ms, then halves the gap a few times. The figure is the median of 5 rollbacks after a
//! warm-up; no network, no sleeping.

use std::time::{Duration, Instant};

use rota::{Snapshot, World};

use crate::game::{self, Inputs, MAX_PLAYERS};

/// Frames re-simulated by one rollback.
const DEPTH: usize = 8;
/// One 60 Hz frame.
const BUDGET: Duration = Duration::from_nanos(1_000_000_000 / 60);

fn set_inputs(world: &mut World, seed: u64, frame: u32) {
    let mut inputs = [0u8; MAX_PLAYERS];
    for (player, slot) in inputs.iter_mut().enumerate().take(2) {
        *slot = game::bot_input(seed, player, frame).buttons;
    }
    world.insert_resource(Inputs(inputs));
}

/// The median time of an 8-frame rollback, and the world's entity count.
fn measure(asteroids: usize, threads: usize, seed: u64) -> (Duration, usize) {
    let mut schedule = game::schedule(threads, false).expect("the arena schedule builds");
    let mut world = game::new_world(2, asteroids, seed);
    let mut saved: Vec<Snapshot> = Vec::new();
    // Warm-up: 30 frames played and saved as in a match.
    for frame in 0..30 {
        saved.push(world.snapshot().expect("arena state is snapshottable"));
        set_inputs(&mut world, seed, frame);
        schedule.run(&mut world);
    }
    let from = saved.len() - DEPTH;
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        world.restore(&saved[from]);
        for frame in from..from + DEPTH {
            set_inputs(&mut world, seed, frame as u32);
            schedule.run(&mut world);
            let snapshot = world.snapshot().expect("arena state is snapshottable");
            let checksum = world.full_checksum().expect("arena state is hashable");
            std::hint::black_box((snapshot, checksum));
        }
        times.push(start.elapsed());
    }
    times.sort();
    (times[times.len() / 2], world.len())
}

/// Prints the table for each thread count.
pub fn run(threads: &[usize], seed: u64) {
    println!(
        "8-frame rollback (restore + 8 x (schedule run, snapshot, full_checksum)) against one \
         60 Hz frame ({:.1} ms); median of 5",
        BUDGET.as_secs_f64() * 1e3
    );
    println!(
        "{:>7}  {:>10}  {:>10}  {:>5}",
        "threads", "entities", "ms", "fits"
    );
    for &n in threads {
        let row = |asteroids: usize| {
            let (time, entities) = measure(asteroids, n, seed);
            let fits = time <= BUDGET;
            println!(
                "{n:>7}  {entities:>10}  {:>10.2}  {:>5}",
                time.as_secs_f64() * 1e3,
                if fits { "yes" } else { "no" }
            );
            (fits, entities)
        };
        let mut fitting = (0, 0);
        let mut asteroids = 1000;
        let failing = loop {
            let (fits, entities) = row(asteroids);
            if !fits {
                break asteroids;
            }
            fitting = (asteroids, entities);
            asteroids *= 2;
        };
        // Halve the gap between the last fit and the first miss three times.
        let (mut low, mut high) = (fitting.0, failing);
        for _ in 0..3 {
            let mid = (low + high) / 2;
            let (fits, entities) = row(mid);
            if fits {
                low = mid;
                fitting = (mid, entities);
            } else {
                high = mid;
            }
        }
        println!(
            "{n:>7}  largest world that fits: {} entities ({} asteroids)",
            fitting.1, fitting.0
        );
    }
}
