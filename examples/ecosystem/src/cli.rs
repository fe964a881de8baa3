//! The command line: options, and the checks that refuse a run which could not do what was asked
//! before any time is spent simulating.

use std::path::{Path, PathBuf};

use clap::Parser;

/// Where the chart goes when `--chart` is not given (relative to the working directory, which is
/// the workspace root under `cargo run`).
pub const DEFAULT_CHART: &str = "target/ecosystem.svg";

/// rota's ecosystem demo: predators, prey and grass on a wrapping grid, deterministic on any
/// number of threads.
#[derive(Parser, Debug)]
#[command(version, long_about = None)]
pub struct Args {
    /// Ticks to simulate (at least 1).
    #[arg(long, default_value_t = 300, value_parser = parse_ticks)]
    pub ticks: u64,
    /// Seed of the world's PRNG (initial placement and every random draw).
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Worker threads (the calling thread included); default: all available cores.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    /// Initial number of animals (one in ten is a predator).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(10..=10_000_000))]
    pub size: u64,
    /// Run again on 1 thread and fail if its checksum differs from the run on --threads N.
    #[arg(long)]
    pub verify: bool,
    /// Print the population table every this many ticks (tick 0, the initial world, and the
    /// last tick are always printed).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    pub report_every: u64,
    /// Where to write the population chart; the format follows the extension (only `.svg`).
    /// The directory must exist. [default: target/ecosystem.svg, skipped if ./target is missing]
    #[arg(long, value_parser = parse_chart_path)]
    pub chart: Option<PathBuf>,
    /// Print the time per batch and per system, settling and commands: the mean over the ticks
    /// after the first tenth (the warm-up), then the last tick alone (measured in
    /// rota-schedule; never used for any decision, so results stay deterministic).
    #[arg(long)]
    pub profile: bool,
    /// Halfway through the run, save every animal to this scene file (RON), load it into a
    /// fresh world and fail unless the component counts and value checksum are equal.
    #[arg(long)]
    pub save_scene: Option<PathBuf>,
    /// Write a Chrome trace (`.json`) of every tick: one span per tick, batch, system run,
    /// command application and settle, on the thread that ran it. Open it in
    /// ui.perfetto.dev or chrome://tracing. With --verify, both runs are in the file.
    #[arg(long, value_parser = parse_trace_path)]
    pub trace: Option<PathBuf>,
}

/// What to do, once the options are checked.
#[derive(Debug)]
pub struct Plan {
    /// Threads of the main run.
    pub threads: usize,
    /// Threads of the comparison run of `--verify` (always 1), if asked.
    pub verify_against: Option<usize>,
    /// Where to write the chart, if anywhere.
    pub chart: Option<PathBuf>,
    /// Said to the user before the run (e.g. why the chart is skipped).
    pub notes: Vec<String>,
}

/// `--ticks`: a run of zero ticks has no table and no chart to show, so it is refused.
fn parse_ticks(s: &str) -> Result<u64, String> {
    let ticks: u64 = s
        .parse()
        .map_err(|e| format!("`{s}` is not a number of ticks: {e}"))?;
    if ticks == 0 {
        return Err("the demo needs at least 1 tick (0 would simulate nothing)".into());
    }
    Ok(ticks)
}

/// `--chart`: the format comes from the extension, and SVG is the one the demo can write.
fn parse_chart_path(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match path.extension().and_then(|e| e.to_str()) {
        Some(ext) if ext.eq_ignore_ascii_case("svg") => Ok(path),
        Some(ext) => Err(format!(
            "cannot write a `.{ext}` chart: the demo writes SVG only; use a path ending in `.svg`"
        )),
        None => Err("the chart path has no extension; use a path ending in `.svg`".into()),
    }
}

/// `--trace`: the file is a Chrome trace (JSON), so the path must say so.
fn parse_trace_path(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match path.extension().and_then(|e| e.to_str()) {
        Some(ext) if ext.eq_ignore_ascii_case("json") => Ok(path),
        _ => Err("a trace is a Chrome trace (JSON); use a path ending in `.json`".into()),
    }
}

impl Args {
    /// Checks the options against each other and the file system; `Err` is the message to print.
    pub fn plan(&self, available_cores: usize) -> Result<Plan, String> {
        let mut notes = Vec::new();
        let threads = match (self.threads, self.verify) {
            (Some(1), true) => {
                return Err(
                    "--verify compares the run on --threads N with a run on 1 thread; \
                     with --threads 1 it would compare 1 thread with itself. \
                     Pass --threads 2 or more, or leave --threads out to use every core"
                        .into(),
                );
            }
            (Some(n), _) => usize::from(n),
            // With one core, --verify still needs a second thread count to compare against.
            (None, true) if available_cores < 2 => {
                notes.push(
                    "one core available: --verify runs on 2 threads and compares with 1".into(),
                );
                2
            }
            (None, _) => available_cores.max(1),
        };
        let chart = match &self.chart {
            Some(path) => {
                in_existing_dir(path, "chart")?;
                Some(path.clone())
            }
            None => {
                let path = PathBuf::from(DEFAULT_CHART);
                if parent_dir(&path).is_dir() {
                    Some(path)
                } else {
                    notes.push(format!(
                        "no chart: ./{} does not exist here; pass --chart PATH.svg to write one",
                        parent_dir(&path).display()
                    ));
                    None
                }
            }
        };
        if let Some(path) = &self.trace {
            in_existing_dir(path, "trace")?;
        }
        Ok(Plan {
            threads,
            verify_against: self.verify.then_some(1),
            chart,
            notes,
        })
    }
}

/// `Err` unless the directory `path` writes into exists. An explicit path into a directory that
/// does not exist is a typo more often than a wish to create it: refuse rather than mkdir.
fn in_existing_dir(path: &Path, what: &str) -> Result<(), String> {
    let dir = parent_dir(path);
    if dir.is_dir() {
        Ok(())
    } else {
        Err(format!(
            "cannot write the {what} to {}: directory {} does not exist",
            path.display(),
            dir.display()
        ))
    }
}

/// The directory a file path writes into (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}
