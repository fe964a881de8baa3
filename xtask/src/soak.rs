//! `cargo xtask soak --minutes N [--seed S]`: runs the soak test (`tests/model/soak.rs`) for N
//! minutes (fractions allowed: `--minutes 0.5` is 30 s) with a fresh seed, or with seed S to
//! replay a failure. The test prints the seed first, and on a failure the round seed and the
//! shrunk op sequence.

use std::process::{Command, ExitCode};

/// Parses the arguments and runs the soak test with `ROTA_SOAK_SECONDS`/`ROTA_SOAK_SEED` set.
pub fn soak(args: &[String]) -> ExitCode {
    let mut minutes: Option<f64> = None;
    let mut seed: Option<u64> = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let value = args.next();
        match (arg.as_str(), value) {
            ("--minutes", Some(v)) => match v.parse::<f64>() {
                Ok(m) if m > 0.0 && m.is_finite() => minutes = Some(m),
                _ => return usage(&format!("`--minutes {v}` is not a positive number")),
            },
            ("--seed", Some(v)) => match v.parse::<u64>() {
                Ok(s) => seed = Some(s),
                Err(_) => return usage(&format!("`--seed {v}` is not a u64")),
            },
            (other, _) => return usage(&format!("unexpected argument `{other}`")),
        }
    }
    let Some(minutes) = minutes else {
        return usage("`--minutes N` is required");
    };
    let seconds = (minutes * 60.0).round().max(1.0) as u64;
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args([
        "test",
        "--test",
        "model",
        "--",
        "soak::soak_against_oracle",
        "--exact",
        "--nocapture",
    ])
    .env("ROTA_SOAK_SECONDS", seconds.to_string())
    .current_dir(crate::workspace_root());
    if let Some(seed) = seed {
        cmd.env("ROTA_SOAK_SEED", seed.to_string());
    }
    match cmd.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("xtask soak: the soak failed ({status}); its output above has the seed");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("xtask soak: could not start cargo: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("xtask soak: {problem}\nusage: cargo xtask soak --minutes N [--seed S]");
    ExitCode::from(2)
}
