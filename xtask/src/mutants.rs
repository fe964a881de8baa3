//! `cargo xtask mutants [--jobs N | --in-place] [--with-unit-tests] [-- <cargo-mutants args>]`:
//! mutation testing of the code whose bugs matter most (rota-core's stores, allocator, commands
//! and checksum; rota-schedule's planner and executor) against the fast test subset (the `it`
//! binary; with `--with-unit-tests`, also rota-core's and rota-schedule's unit tests), then a
//! score.
//!
//! Needs `cargo install cargo-mutants`. By default it tests two mutants at a time, each in its
//! own copy of the tree (`--jobs 2`): a mutant's incremental rebuild is almost all
//! single-threaded rustc time, so on two cores two copies roughly halve the wall time, at the
//! price of one cold build per copy at the start and a few GB of disk per copy (in the system
//! temp directory). `--in-place` instead mutates this tree one mutant at a time, reusing the
//! warm `target/`: do not edit or build the tree while it runs (cargo-mutants restores every
//! file after each mutant). Output goes to `target/mutants/`. Slow — see `docs/testing.md` for
//! how long a run takes; narrow it with `-- --file <path>`, `-- --re <regex>` or
//! `-- --shard k/n`.

use std::path::Path;
use std::process::{Command, ExitCode};

/// The files mutated: where a silent bug would break determinism or memory of entities.
pub const FILES: &[&str] = &[
    "crates/rota-core/src/store/mod.rs",
    "crates/rota-core/src/store/cow.rs",
    "crates/rota-core/src/store/ticks.rs",
    "crates/rota-core/src/store/mutation.rs",
    "crates/rota-core/src/store/index_columns.rs",
    "crates/rota-core/src/store/iter.rs",
    "crates/rota-core/src/store/sparse.rs",
    "crates/rota-core/src/store/index.rs",
    "crates/rota-core/src/store/settle.rs",
    "crates/rota-core/src/store/append.rs",
    "crates/rota-core/src/store/dead.rs",
    "crates/rota-core/src/entity.rs",
    "crates/rota-core/src/world/registry.rs",
    "crates/rota-core/src/world/column.rs",
    "crates/rota-core/src/world/membership.rs",
    "crates/rota-core/src/world/mod.rs",
    "crates/rota-core/src/world/spawn.rs",
    "crates/rota-core/src/world/despawn.rs",
    "crates/rota-core/src/world/runs.rs",
    "crates/rota-core/src/world/log.rs",
    "crates/rota-core/src/world/erased.rs",
    "crates/rota-core/src/query/join.rs",
    "crates/rota-core/src/tick.rs",
    "crates/rota-core/src/hierarchy.rs",
    "crates/rota-core/src/event.rs",
    "crates/rota-core/src/commands.rs",
    "crates/rota-core/src/commands/apply.rs",
    "crates/rota-core/src/stable_hash.rs",
    "crates/rota-core/src/world/checksum.rs",
    "crates/rota-schedule/src/plan.rs",
    "crates/rota-schedule/src/execute.rs",
];

/// Per-mutant test timeout. The unmutated subset takes ~2.5 s on a quiet machine
/// (`PROPTEST_CASES=16`) and ~10 s with both jobs and another build sharing the two cores; a
/// mutant that loops forever is cut off here (and counted as caught: a hang is noticed).
const TEST_TIMEOUT_SECONDS: &str = "60";

/// Per-mutant build timeout. An incremental rebuild of the `it` test binary is ~10 s, but with
/// `--baseline=skip` the first mutant of each copy pays the cold build of the whole dependency
/// graph, both copies at once on two shared cores.
const BUILD_TIMEOUT_SECONDS: &str = "1800";

/// Address-space cap for cargo-mutants and everything it starts (builds, test binaries), when
/// `prlimit` (util-linux) is there. Some mutants make the tests allocate without bound (one
/// reached 16 GB resident in a minute on the 24 GB machine, with no swap): capped, the
/// allocation fails, the test binary aborts and the mutant counts as caught, instead of the
/// kernel's OOM killer picking a victim among everyone's processes. The unmutated `it` binary
/// peaks at ~160 MB resident and passes under the cap; rustc and the linker stay well below it.
const ADDRESS_SPACE_CAP_BYTES: &str = "6442450944"; // 6 GiB

/// Copies tested at once when not `--in-place`: one per core on the 2-core machines here.
const DEFAULT_JOBS: &str = "2";

/// Runs cargo-mutants over [`FILES`] with the fast test subset, then prints the score.
///
/// `args` are this command's own options (`--jobs N`, `--in-place`, `--with-unit-tests`), then,
/// after `--`, the arguments passed through to cargo-mutants.
pub fn mutants(args: &[String]) -> ExitCode {
    let (own, extra) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut jobs = DEFAULT_JOBS.to_string();
    let mut in_place = false;
    let mut unit_tests = false;
    let mut own = own.iter();
    while let Some(arg) = own.next() {
        match arg.as_str() {
            "--in-place" => in_place = true,
            "--with-unit-tests" => unit_tests = true,
            "--jobs" => match own.next() {
                Some(n) if n.parse::<u32>().is_ok_and(|n| n > 0) => jobs = n.clone(),
                _ => {
                    eprintln!("xtask mutants: --jobs needs a positive number");
                    return ExitCode::FAILURE;
                }
            },
            other => {
                eprintln!(
                    "xtask mutants: unknown option `{other}` (cargo-mutants arguments go after `--`)"
                );
                return ExitCode::FAILURE;
            }
        }
    }
    let root = crate::workspace_root();
    // `-- --output DIR` keeps one run's results apart from the next (cargo-mutants replaces the
    // `mutants.out` it writes to).
    let out = extra
        .iter()
        .position(|a| a == "--output" || a == "-o")
        .and_then(|i| extra.get(i + 1))
        .map_or_else(|| root.join("target/mutants"), |dir| root.join(dir));
    // cargo-mutants creates `mutants.out` but not the directories above it.
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("xtask mutants: could not create {} ({e})", out.display());
        return ExitCode::FAILURE;
    }
    let mut cmd = address_space_capped(env!("CARGO"));
    cmd.arg("mutants");
    // Source order by default, so a run's log reads file by file; `-- --shuffle` instead makes
    // any prefix of the run a uniform sample of every file (for a run that may be cut short).
    if !extra.iter().any(|a| a == "--shuffle") {
        cmd.arg("--no-shuffle");
    }
    if in_place {
        // One mutant at a time (cargo-mutants refuses `--jobs` with `--in-place`).
        cmd.arg("--in-place");
    } else {
        cmd.args(["--jobs", &jobs]);
    }
    cmd.args(["--package", "rota-core", "--package", "rota-schedule"])
        .args(["--test-package", "rota"]);
    if unit_tests {
        // The mutated crates' own unit tests (`store/tests.rs`, `entity/tests.rs`,
        // `plan/tests.rs`...): each mutant then also rebuilds rota-core's or rota-schedule's
        // test harness.
        cmd.args([
            "--test-package",
            "rota-core",
            "--test-package",
            "rota-schedule",
        ]);
    }
    // cargo-mutants 27.1.0 builds its unmutated baseline for the mutated packages only
    // (`--package rota-core --package rota-schedule --test=it`), ignoring `--test-package`, so
    // the baseline cannot build: skipped unless asked for. Run the test subset yourself first.
    if !extra.iter().any(|a| a.starts_with("--baseline")) {
        cmd.arg("--baseline=skip");
    }
    cmd.args(["--timeout", TEST_TIMEOUT_SECONDS])
        .args(["--build-timeout", BUILD_TIMEOUT_SECONDS]);
    if !extra.iter().any(|a| a == "--output" || a == "-o") {
        cmd.arg("--output").arg(&out);
    }
    for file in FILES {
        cmd.args(["--file", file]);
    }
    // The fast subset: the `it` and `model` binaries (trybuild lives in the rota-ui package), with few
    // proptest cases; a mutant the models miss at 16 cases is worth a look anyway. Given as
    // `--cargo-arg`, not after `--`: cargo-mutants passes trailing arguments to `cargo test`
    // only, so its build phase (`cargo test --no-run --package rota`) built every example and
    // the facade's own test harness for each mutant too.
    cmd.args(["--cargo-arg", "--test=it", "--cargo-arg", "--test=model"]);
    if unit_tests {
        cmd.args(["--cargo-arg", "--lib"]);
    }
    cmd.args(extra)
        .env("PROPTEST_CASES", "16")
        // A mutant is caught by the first failing case: shrinking it only costs time (up to
        // 90 s a mutant; `tests/it/main.rs`'s `shrink_iters` passes this to the models).
        .env("PROPTEST_MAX_SHRINK_ITERS", "0")
        // Proptest would write each mutant's failures into the (in-place) source tree.
        .env("PROPTEST_DISABLE_FAILURE_PERSISTENCE", "1")
        .current_dir(&root);
    let status = match cmd.status() {
        Ok(status) => status,
        Err(e) => {
            eprintln!(
                "xtask mutants: could not start `cargo mutants` ({e}); install it with `cargo install cargo-mutants`"
            );
            return ExitCode::FAILURE;
        }
    };
    summarize(&out.join("mutants.out"));
    // cargo-mutants exits 2 when mutants were missed: a result, not a failure to run.
    match status.code() {
        Some(0) | Some(2) | Some(3) => ExitCode::SUCCESS,
        _ => {
            eprintln!("xtask mutants: cargo mutants failed ({status})");
            ExitCode::FAILURE
        }
    }
}

/// `program` under `prlimit --as` ([`ADDRESS_SPACE_CAP_BYTES`]) if `prlimit` runs, else as is.
fn address_space_capped(program: &str) -> Command {
    let has_prlimit = Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !has_prlimit {
        eprintln!("xtask mutants: no `prlimit`: running without a memory cap");
        return Command::new(program);
    }
    let mut cmd = Command::new("prlimit");
    cmd.arg(format!(
        "--as={ADDRESS_SPACE_CAP_BYTES}:{ADDRESS_SPACE_CAP_BYTES}"
    ))
    .arg("--")
    .arg(program);
    cmd
}

/// Prints the counts from cargo-mutants' `*.txt` lists and the score over viable mutants.
fn summarize(dir: &Path) {
    let lines = |name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.join(name))
            .map(|s| s.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let (caught, missed, timeout, unviable) = (
        lines("caught.txt"),
        lines("missed.txt"),
        lines("timeout.txt"),
        lines("unviable.txt"),
    );
    let viable = caught.len() + missed.len() + timeout.len();
    println!(
        "mutants: {} caught, {} timed out, {} missed, {} unviable",
        caught.len(),
        timeout.len(),
        missed.len(),
        unviable.len()
    );
    if viable > 0 {
        let score = 100.0 * (caught.len() + timeout.len()) as f64 / viable as f64;
        println!(
            "score: {score:.1} % of {viable} viable mutants caught (timeouts count as caught)"
        );
    }
    for m in &missed {
        println!("missed: {m}");
    }
}
