//! `cargo xtask mutants [-- <cargo-mutants args>]`: mutation testing of the code whose bugs
//! matter most (rota-core's stores, allocator, commands and checksum; rota-schedule's planner
//! and executor) against the fast test subset, then a score.
//!
//! Needs `cargo install cargo-mutants`. Runs `--in-place` so the warm `target/` is reused (a
//! copied tree starts from a cold build): do not edit or build the tree while it runs.
//! cargo-mutants restores every file after each mutant. Output goes to `target/mutants/`.
//! Slow — see `docs/testing.md` for how long a run takes; split it with `-- --shard k/n`.

use std::path::Path;
use std::process::{Command, ExitCode};

/// The files mutated: where a silent bug would break determinism or memory of entities.
pub const FILES: &[&str] = &[
    "crates/rota-core/src/store/mod.rs",
    "crates/rota-core/src/store/sparse.rs",
    "crates/rota-core/src/entity.rs",
    "crates/rota-core/src/commands.rs",
    "crates/rota-core/src/checksum.rs",
    "crates/rota-schedule/src/plan.rs",
    "crates/rota-schedule/src/execute.rs",
];

/// Per-mutant test timeout. The unmutated subset takes ~25 s on the shared 2-core machine;
/// a mutant that loops forever is cut off here (and counted as caught: a hang is noticed).
const TEST_TIMEOUT_SECONDS: &str = "300";

/// Per-mutant build timeout (an incremental rebuild of the `it` test binary is ~2.5 min under
/// load on the shared machine).
const BUILD_TIMEOUT_SECONDS: &str = "900";

/// Runs cargo-mutants over [`FILES`] with the fast test subset, then prints the score.
pub fn mutants(extra: &[String]) -> ExitCode {
    let root = crate::workspace_root();
    let out = root.join("target/mutants");
    let mut cmd = Command::new(env!("CARGO"));
    // `--in-place` tests one mutant at a time (cargo-mutants refuses `--jobs` with it), which
    // also keeps the CPU free for others on a shared machine.
    cmd.args(["mutants", "--in-place", "--no-shuffle"])
        .args(["--package", "rota-core", "--package", "rota-schedule"])
        .args(["--test-package", "rota"])
        .args(["--timeout", TEST_TIMEOUT_SECONDS])
        .args(["--build-timeout", BUILD_TIMEOUT_SECONDS])
        .arg("--output")
        .arg(&out);
    for file in FILES {
        cmd.args(["--file", file]);
    }
    // The fast subset: the `it` binary (trybuild lives in the rota-ui package), with few
    // proptest cases; a mutant the models miss at 16 cases is worth a look anyway.
    cmd.args(extra)
        .args(["--", "--test", "it"])
        .env("PROPTEST_CASES", "16")
        // In place, proptest would write each mutant's failures into the source tree.
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
