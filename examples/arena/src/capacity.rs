//! `--capacity`: the largest arena world whose worst-case rollback fits in one 60 Hz frame.
//!
//! A rollback of 8 frames (GGRS's prediction window in the match) costs a restore, then 8
//! times: a schedule run, a snapshot and a `full_checksum` (GGRS saves every re-simulated
//! frame with its checksum). The world doubles in asteroids until that no longer fits in
//! 16.7 ms, then halves the gap a few times. The figure is the median of 9 rollbacks after a
//! warm-up; no network, no sleeping.

use std::time::{Duration, Instant};

use rota::{Snapshot, World};

use crate::game::{self, Inputs, MAX_PLAYERS};

/// Frames re-simulated by one rollback.
const DEPTH: usize = 8;
/// Rollbacks timed per world; the median is reported (a shared machine has outliers).
const REPEATS: usize = 9;
/// One 60 Hz frame.
const BUDGET: Duration = Duration::from_nanos(1_000_000_000 / 60);

fn set_inputs(world: &mut World, seed: u64, frame: u32) {
    let mut inputs = [0u8; MAX_PLAYERS];
    for (player, slot) in inputs.iter_mut().enumerate().take(2) {
        *slot = game::bot_input(seed, player, frame).buttons;
    }
    world.insert_resource(Inputs(inputs));
}

/// One rollback's time, in total and by part.
#[derive(Clone, Copy, Debug, Default)]
struct Rollback {
    total: Duration,
    restore: Duration,
    runs: Duration,
    snapshots: Duration,
    checksums: Duration,
}

/// The median 8-frame rollback (by total), and the world's entity count.
fn measure(asteroids: usize, threads: usize, seed: u64) -> (Rollback, usize) {
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
    let mut rollbacks = Vec::new();
    for _ in 0..REPEATS {
        let mut r = Rollback::default();
        let start = Instant::now();
        world.restore(&saved[from]);
        r.restore = start.elapsed();
        for frame in from..from + DEPTH {
            let t = Instant::now();
            set_inputs(&mut world, seed, frame as u32);
            schedule.run(&mut world);
            let ran = Instant::now();
            let snapshot = world.snapshot().expect("arena state is snapshottable");
            let snapped = Instant::now();
            let checksum = world.full_checksum().expect("arena state is hashable");
            let hashed = Instant::now();
            std::hint::black_box((snapshot, checksum));
            r.runs += ran - t;
            r.snapshots += snapped - ran;
            r.checksums += hashed - snapped;
        }
        r.total = start.elapsed();
        rollbacks.push(r);
    }
    rollbacks.sort_by_key(|r| r.total);
    (rollbacks[rollbacks.len() / 2], world.len())
}

/// Prints the table for each thread count.
pub fn run(threads: &[usize], seed: u64) {
    println!(
        "8-frame rollback (restore + 8 x (schedule run, snapshot, full_checksum)) against one \
         60 Hz frame ({:.1} ms); median of {REPEATS}",
        BUDGET.as_secs_f64() * 1e3
    );
    println!(
        "{:>7}  {:>9}  {:>8}  {:>5}  {:>8}  {:>8}  {:>9}  {:>9}",
        "threads", "entities", "total ms", "fits", "restore", "8 runs", "8 snaps", "8 hashes"
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for &n in threads {
        let row = |asteroids: usize| {
            let (r, entities) = measure(asteroids, n, seed);
            let fits = r.total <= BUDGET;
            println!(
                "{n:>7}  {entities:>9}  {:>8.2}  {:>5}  {:>8.2}  {:>8.2}  {:>9.2}  {:>9.2}",
                ms(r.total),
                if fits { "yes" } else { "no" },
                ms(r.restore),
                ms(r.runs),
                ms(r.snapshots),
                ms(r.checksums),
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
