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
use rota::rota_schedule::ProfileSum;

use crate::cli::Args;
use crate::sim::{Row, Stats};

/// One simulation in progress: its world, its schedule and the time its ticks took.
struct Run {
    world: World,
    schedule: rota::Schedule,
    /// Time spent in `Schedule::run`, summed over the ticks (nothing else: not the population
    /// table, the progress bar or a scene save).
    seconds: f64,
    last_report: Option<rota::RunReport>,
    /// Ticks run so far.
    ran: u64,
    /// Ticks left out of `profile` at the start (the warm-up: first-touch page faults, lists
    /// growing to their size).
    warm_up: u64,
    /// The profiles of the ticks after the warm-up, for `--profile`'s mean.
    profile: ProfileSum,
}

impl Run {
    fn new(args: &Args, threads: usize) -> Result<Run, String> {
        Ok(Run {
            world: sim::build_world(args.size as usize, args.seed),
            schedule: sim::build_schedule(threads).map_err(|e| e.to_string())?,
            seconds: 0.0,
            last_report: None,
            ran: 0,
            warm_up: args.ticks / 10,
            profile: ProfileSum::default(),
        })
    }

    /// Runs one tick, timed.
    fn tick(&mut self) {
        let start = Instant::now();
        let report = self.schedule.run(&mut self.world);
        self.seconds += start.elapsed().as_secs_f64();
        self.ran += 1;
        if self.ran > self.warm_up {
            self.profile.add(&report.profile);
        }
        self.last_report = Some(report);
    }

    fn ticks_per_second(&self, ticks: u64) -> f64 {
        ticks as f64 / self.seconds.max(1e-9)
    }
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

/// Runs `run` for `args.ticks` ticks; `show`: with the population table, a progress bar and the
/// scene save (`--verify`'s comparison run shows nothing).
///
/// The two runs of `--verify` go one after the other. Taking turns tick by tick was tried, so
/// that both rates would see the same machine load: on the 2-core VM it was measured on, the
/// N-thread run then lost a quarter of its speed (1.14–1.38× against 1.34–1.62× one after the
/// other), because its worker thread slept through every tick of the other run and waking a
/// CPU idle that long is slow there.
fn simulate(args: &Args, run: &mut Run, show: bool) -> Result<(), String> {
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
        if let Some(row) = last_row(&run.world) {
            print_row(bar.as_ref(), &row); // tick 0: the world before the first tick
        }
    }
    for tick in 1..=args.ticks {
        run.tick();
        if show
            && tick == args.ticks.div_ceil(2)
            && let Some(path) = &args.save_scene
        {
            let report = sim::scene::save_and_reload(&run.world, path)?;
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
            && let Some(row) = last_row(&run.world)
        {
            print_row(bar.as_ref(), &row);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(())
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
    let main_run = match Run::new(&args, plan.threads)
        .and_then(|mut run| simulate(&args, &mut run, true).map(|()| run))
    {
        Ok(run) => run,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.profile {
        if let Some(mean) = main_run.profile.mean() {
            let first = main_run.warm_up + 1;
            println!(
                "profile, mean of ticks {first}–{} ({} ticks, the first {} left out as \
                 warm-up; {} thread(s)):\n{mean}",
                main_run.ran,
                main_run.profile.runs(),
                main_run.warm_up,
                plan.threads
            );
        }
        if let Some(report) = &main_run.last_report {
            println!(
                "profile of the last tick ({} thread(s)):\n{}",
                plan.threads, report.profile
            );
        }
    }
    let checksum = sim::checksum(&main_run.world);
    println!(
        "checksum {checksum:016x} after {} ticks, {:.1} ticks/s ({} live entities)",
        args.ticks,
        main_run.ticks_per_second(args.ticks),
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
        let check = match Run::new(&args, other)
            .and_then(|mut run| simulate(&args, &mut run, false).map(|()| run))
        {
            Ok(run) => run,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let n = plan.threads;
        let check_sum = sim::checksum(&check.world);
        let (rate, check_rate) = (
            main_run.ticks_per_second(args.ticks),
            check.ticks_per_second(args.ticks),
        );
        println!("verify: {n:>3} thread(s) checksum {checksum:016x}, {rate:.1} ticks/s");
        println!(
            "verify: {other:>3} thread(s) checksum {check_sum:016x}, {check_rate:.1} ticks/s ({n} thread(s): {:.2}x)",
            rate / check_rate.max(1e-9)
        );
        if check_sum == checksum {
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
