//! rota's project automation (matklad's xtask pattern): `cargo xtask <command>`.
//!
//! * `cargo xtask ci` — runs `.ci/run`, the exact CI script, so the two can never drift apart.

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ci") => run_ci(),
        Some("help") | Some("--help") | Some("-h") | None => {
            print_help();
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("xtask: unknown command `{other}`\n");
            print_help();
            ExitCode::from(2)
        }
    }
}

fn print_help() {
    println!(
        "usage: cargo xtask <command>\n\ncommands:\n  ci    run .ci/run (fmt, clippy, tests, doc tests, examples)"
    );
}

fn run_ci() -> ExitCode {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf();
    match Command::new("bash")
        .arg(root.join(".ci/run"))
        .current_dir(&root)
        .status()
    {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("xtask ci: .ci/run failed ({status})");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("xtask ci: could not start bash: {e}");
            ExitCode::FAILURE
        }
    }
}
