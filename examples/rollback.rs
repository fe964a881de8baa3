//! Rollback, proven by a rollback networking library: a two-player game on rota runs under
//! GGRS's `SyncTestSession`, which saves every frame (`World::snapshot`, checksum
//! `World::full_checksum`), rolls back `--check-distance` frames on every frame
//! (`World::restore`), re-simulates, and reports any frame whose checksum changed. The run
//! repeats on each thread count given. Exits non-zero on any mismatch.
//!
//! Run: `cargo run --release --example rollback -- [--frames N] [--threads 1,4]
//! [--check-distance D] [--drones N] [--seed S]` (defaults: 600 frames, threads 1 and every
//! core, distance 7, 2000 drones). `--plant-nondeterminism` adds a system that reads a counter
//! outside the world, to watch GGRS catch it (exit code 1). The game and the harness live in `tests/it/rollback/game.rs`,
//! shared with the test that plants a nondeterminism and checks GGRS catches it.

#[path = "../tests/it/rollback/game.rs"]
mod game;

use std::process::ExitCode;
use std::time::Instant;

use game::{RunConfig, run_sync_test};

fn usage() -> &'static str {
    "usage: rollback [--frames N] [--threads A,B,..] [--check-distance D] [--drones N] [--seed S] \
     [--plant-nondeterminism]"
}

fn parse() -> Result<(RunConfig, Vec<usize>), String> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut config = RunConfig {
        frames: 600,
        threads: 1,
        check_distance: 7,
        seed: 0x0123_4567_89ab_cdef,
        drones: 2000,
        plant_nondeterminism: false,
    };
    let mut threads = vec![1, cores.max(2)];
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            return Err(usage().to_string());
        }
        if flag == "--plant-nondeterminism" {
            // Adds a system that reads a counter outside the world: GGRS must report it.
            config.plant_nondeterminism = true;
            continue;
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))?;
        let bad = |e: &dyn std::fmt::Display| format!("{flag} {value}: {e}\n{}", usage());
        match flag.as_str() {
            "--frames" => config.frames = value.parse().map_err(|e| bad(&e))?,
            "--check-distance" => config.check_distance = value.parse().map_err(|e| bad(&e))?,
            "--drones" => config.drones = value.parse().map_err(|e| bad(&e))?,
            "--seed" => config.seed = value.parse().map_err(|e| bad(&e))?,
            "--threads" => {
                threads = value
                    .split(',')
                    .map(|t| t.trim().parse::<usize>())
                    .collect::<Result<_, _>>()
                    .map_err(|e| bad(&e))?;
                if threads.contains(&0) {
                    return Err(bad(&"thread counts start at 1"));
                }
            }
            _ => return Err(format!("unknown option {flag}\n{}", usage())),
        }
    }
    Ok((config, threads))
}

fn main() -> ExitCode {
    let (config, threads) = match parse() {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    println!(
        "GGRS SyncTestSession: {} frames, check distance {}, 2 players, {} drones at start, seed {:#x}",
        config.frames, config.check_distance, config.drones, config.seed
    );
    let mut checksums = Vec::new();
    for &n in &threads {
        let started = Instant::now();
        match run_sync_test(&RunConfig {
            threads: n,
            ..config.clone()
        }) {
            Ok(outcome) => {
                println!(
                    "{n:>2} thread(s): 0 mismatches over {} frames ({} saves, {} loads, {} frames \
                     simulated incl. re-simulation) in {:.2?}; final world: {} entities, score \
                     {:?}, checksum {:#018x}",
                    outcome.frames,
                    outcome.saves,
                    outcome.loads,
                    outcome.advances,
                    started.elapsed(),
                    outcome.entities,
                    outcome.score,
                    outcome.checksum
                );
                checksums.push(outcome.checksum);
            }
            Err(e) => {
                eprintln!("{n:>2} thread(s): FAILED: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if checksums.windows(2).any(|w| w[0] != w[1]) {
        eprintln!("FAILED: final checksums differ between thread counts: {checksums:x?}");
        return ExitCode::FAILURE;
    }
    println!("OK: every re-simulated frame matched, and every thread count ended in one state");
    ExitCode::SUCCESS
}
