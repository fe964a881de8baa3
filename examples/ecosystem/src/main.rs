//! rota's main demo: predators, prey and grass on a wrapping grid — a population table, the
//! world checksum, a chart, and `--verify` to show the same checksum on 1 thread and on N.
//!
//! Run: `cargo run --release -p ecosystem -- --help`

mod chart;
mod cli;
mod sim;
mod trace;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use rota::World;

use crate::cli::Args;
use crate::sim::{Row, Stats};

/// What one run left behind.
struct Outcome {
    checksum: u64,
    seconds: f64,
    world: World,
}

fn print_row(bar: Option<&ProgressBar>, r: &Row) {
    let line = format!(
        "{:>6} {:>9} {:>9} {:>10.0} {:>7} {:>7} {:>7} {:>7}",
        r.tick, r.prey, r.predators, r.grass, r.births, r.kills, r.hunters, r.aged
    );
    match bar {
        Some(bar) if !bar.is_hidden() => bar.println(line),
        _ => println!("{line}"),
    }
}

/// A progress bar for long runs; its rate is whole ticks per second (indicatif's `{per_sec}`
/// prints four decimals).
fn progress_bar(ticks: u64) -> Result<ProgressBar, String> {
    let style = ProgressStyle::with_template("{bar:40} {pos}/{len} ticks  {rate}  eta {eta}")
        .map_err(|e| e.to_string())?
        .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.0} ticks/s", s.per_sec());
        });
    Ok(ProgressBar::new(ticks).with_style(style))
}

fn simulate(args: &Args, threads: usize, show: bool) -> Result<Outcome, String> {
    let mut world = sim::build_world(args.size as usize, args.seed);
    let mut schedule = sim::build_schedule(threads).map_err(|e| e.to_string())?;
    let bar = if show && args.ticks >= 100 {
        Some(progress_bar(args.ticks)?)
    } else {
        None
    };
    let last_row = |world: &World| {
        world
            .resource::<Stats>()
            .ok()
            .and_then(|s| s.rows.last().copied())
    };
    if show {
        println!(
            "{:>6} {:>9} {:>9} {:>10} {:>7} {:>7} {:>7} {:>7}",
            "tick", "prey", "predators", "grass", "births", "kills", "hunters", "aged"
        );
        if let Some(row) = last_row(&world) {
            print_row(bar.as_ref(), &row); // tick 0: the world before the first tick
        }
    }
    let start = Instant::now();
    let mut last_report = None;
    for tick in 1..=args.ticks {
        last_report = Some(schedule.run(&mut world));
        if show
            && tick == args.ticks.div_ceil(2)
            && let Some(path) = &args.save_scene
        {
            let report = sim::scene::save_and_reload(&world, path)?;
            let line = format!(
                "scene: OK — {} bytes written to {}, saved in {:.3} s, loaded in {:.3} s",
                report.bytes,
                path.display(),
                report.save_seconds,
                report.load_seconds
            );
            match &bar {
                Some(bar) if !bar.is_hidden() => bar.println(line),
                _ => println!("{line}"),
            }
        }
        if let Some(bar) = &bar {
            bar.inc(1);
        }
        if show
            && (tick % args.report_every == 0 || tick == args.ticks)
            && let Some(row) = last_row(&world)
        {
            print_row(bar.as_ref(), &row);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let seconds = start.elapsed().as_secs_f64();
    if show
        && args.profile
        && let Some(report) = &last_report
    {
        println!(
            "profile of tick {} ({threads} thread(s)):\n{}",
            report.tick, report.profile
        );
    }
    Ok(Outcome {
        checksum: sim::checksum(&world),
        seconds,
        world,
    })
}

fn main() -> ExitCode {
    let args = Args::parse();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let plan = match args.plan(cores) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2); // clap's exit code for a usage error
        }
    };
    for note in &plan.notes {
        println!("note: {note}");
    }
    // Held to the end of `main`: dropping it writes the rest of the trace file.
    let _trace = match args.trace.as_deref().map(trace::install).transpose() {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "ecosystem: {} animals, {} ticks, seed {}, {} thread(s)",
        args.size, args.ticks, args.seed, plan.threads
    );
    let main_run = match simulate(&args, plan.threads, true) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "checksum {:016x} after {} ticks, {:.1} ticks/s ({} live entities)",
        main_run.checksum,
        args.ticks,
        args.ticks as f64 / main_run.seconds.max(1e-9),
        main_run.world.len()
    );
    if let Some(path) = &plan.chart {
        let written = main_run
            .world
            .resource::<Stats>()
            .map_err(|e| e.to_string())
            .and_then(|stats| chart::write_svg(path, &stats.rows));
        match written {
            Ok(()) => println!("population chart written to {}", path.display()),
            Err(e) => {
                eprintln!("error: could not write the chart: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(other) = plan.verify_against {
        let check = match simulate(&args, other, false) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let n = plan.threads;
        let rate = |o: &Outcome| args.ticks as f64 / o.seconds.max(1e-9);
        println!(
            "verify: {n:>3} thread(s) checksum {:016x}, {:.1} ticks/s",
            main_run.checksum,
            rate(&main_run)
        );
        println!(
            "verify: {other:>3} thread(s) checksum {:016x}, {:.1} ticks/s ({n} thread(s): {:.2}x)",
            check.checksum,
            rate(&check),
            rate(&main_run) / rate(&check).max(1e-9)
        );
        if check.checksum == main_run.checksum {
            println!("verify: OK — identical checksums on {other} and {n} threads");
        } else {
            eprintln!(
                "verify: FAILED — checksums differ between {other} and {n} threads: the determinism promise is broken"
            );
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
