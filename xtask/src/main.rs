//! rota's project automation (matklad's xtask pattern): `cargo xtask <command>`.
//!
//! * `cargo xtask ci` — runs `.ci/run`, the exact CI script, so the two can never drift apart.
//! * `cargo xtask compile-cost` — measures `cargo check` of a crate of 200 `#[system]`s against
//!   one of 200 plain functions doing the same work (the figure in `rota-macros`' docs).
//! * `cargo xtask bench [--quick]` — builds and runs the peer benchmarks (`benches/peers`, its
//!   own workspace) and writes `target/bench-report/{report.md,chart.svg}`.
//! * `cargo xtask doc-check` — fails on a relative link to a missing file in the markdown docs,
//!   on docs or comments that read like a work journal (issue numbers, clock times of work,
//!   numbered work periods), on `cargo doc` warnings and on any unresolved intra-doc link
//!   rendered on the `rota` facade's pages (`doc_check.rs`).
//! * `cargo xtask layers` — fails on any import in rota-core from a lower layer to a higher
//!   one (`layers.rs`; the layers are drawn in ARCHITECTURE.md).
//! * `cargo xtask soak --minutes N [--seed S]` — the random-ops soak against the oracle
//!   (`soak.rs`, `tests/model/soak.rs`).
//! * `cargo xtask mutants [--jobs N | --in-place] [--with-unit-tests] [-- <cargo-mutants args>]`
//!   — mutation testing of the core files against the fast test subset (`mutants.rs`; slow,
//!   not in CI).

mod doc_check;
mod layers;
mod mutants;
mod soak;

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ci") => run_ci(),
        Some("compile-cost") => compile_cost(),
        Some("bench") => bench(&args[1..]),
        Some("doc-check") => doc_check::run(&workspace_root()),
        Some("layers") => layers::run(&workspace_root()),
        Some("soak") => soak::soak(&args[1..]),
        Some("mutants") => mutants::mutants(&args[1..]),
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
        "usage: cargo xtask <command>\n\ncommands:\n  ci                 run .ci/run (fmt, clippy, tests, doc tests, examples, the arena match)\n  compile-cost       cargo check cost of 200 #[system]s vs 200 plain functions\n  bench [--quick]    peer benchmarks (benches/peers) -> target/bench-report/\n  doc-check          relative links, no work journal, cargo doc -D warnings, rota's links\n  layers             rota-core's imports run one way, from lower layers to higher ones\n  soak --minutes N [--seed S]  random ops vs the oracle, with schedule ticks\n  mutants [--jobs N | --in-place] [--with-unit-tests] [-- ARGS]  cargo-mutants on the core files (slow; see docs/testing.md)"
    );
}

fn run_ci() -> ExitCode {
    let root = workspace_root();
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

/// `cargo xtask bench [--quick]`: runs the peer-benchmark package (not a workspace member, so
/// bevy_ecs & co. only build here) and writes its report into `target/bench-report`.
fn bench(args: &[String]) -> ExitCode {
    let mut quick = false;
    for a in args {
        match a.as_str() {
            "--quick" => quick = true,
            other => {
                eprintln!("xtask bench: unknown argument `{other}` (expected `--quick`)");
                return ExitCode::from(2);
            }
        }
    }
    let root = workspace_root();
    let out = root.join("target/bench-report");
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["run", "--release", "--manifest-path"])
        .arg(root.join("benches/peers/Cargo.toml"))
        .arg("--");
    if quick {
        cmd.arg("--quick");
    }
    cmd.arg("--out").arg(&out).current_dir(&root);
    match cmd.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("xtask bench: benches/peers failed ({status})");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("xtask bench: could not start cargo: {e}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// Writes a crate with 200 systems (or 200 plain functions) over 20 components.
fn write_crate(dir: &std::path::Path, systems: bool) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("bench");
    let root = workspace_root();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nrota = {{ path = {:?} }}\n\n[workspace]\n",
            root.display().to_string()
        ),
    )?;
    let mut src = String::from(
        "#![allow(dead_code, unused_imports)]\nuse rota::{system, Component, Query, Res, Resource};\n",
    );
    for i in 0..20 {
        src += &format!("#[derive(Component, Clone)] pub struct C{i}(pub f32);\n");
    }
    src += "#[derive(Resource, Clone)] pub struct R0(pub f32);\n";
    for i in 0..200 {
        let a = i % 20;
        let mut b = (i * 7 + 3) % 20;
        if b == a {
            b = (b + 1) % 20;
        }
        if systems {
            src += &format!(
                "#[system(reads(C{b}, R0), writes(C{a}))]\npub fn s{i}(mut q: Query<(&mut C{a}, &C{b})>, r: Res<R0>) {{ for (x, y) in &mut q {{ x.0 += y.0 * r.0; }} }}\n"
            );
        } else {
            src += &format!(
                "pub fn s{i}(world: &mut rota::World, r: f32) {{ for (x, y) in world.query_mut::<(&mut C{a}, &C{b})>() {{ x.0 += y.0 * r; }} }}\n"
            );
        }
    }
    std::fs::write(dir.join("src/lib.rs"), src)
}

fn compile_cost() -> ExitCode {
    let base = workspace_root().join("target/xtask-compile-cost");
    let target = base.join("target");
    for (name, systems) in [("with_systems", true), ("plain_functions", false)] {
        let dir = base.join(name);
        if let Err(e) = write_crate(&dir, systems) {
            eprintln!("xtask compile-cost: {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
        let check = || {
            Command::new(env!("CARGO"))
                .args(["check", "--quiet"])
                .env("CARGO_TARGET_DIR", &target)
                .current_dir(&dir)
                .status()
        };
        if !matches!(check(), Ok(s) if s.success()) {
            eprintln!(
                "xtask compile-cost: cargo check failed in {}",
                dir.display()
            );
            return ExitCode::FAILURE;
        }
        let mut times = Vec::new();
        for _ in 0..5 {
            let _ = std::fs::write(
                dir.join("src/lib.rs"),
                std::fs::read(dir.join("src/lib.rs")).unwrap_or_default(),
            );
            let start = std::time::Instant::now();
            if !matches!(check(), Ok(s) if s.success()) {
                return ExitCode::FAILURE;
            }
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        println!("{name:<16} cargo check, median of 5: {:.2} s", times[2]);
    }
    ExitCode::SUCCESS
}
