//! Peer benchmarks: rota vs hecs 0.11, bevy_ecs 0.20, shipyard 0.11 and sparsey 0.13, in one
//! process, interleaved. Usage: `rota-peers [--quick] [--out DIR]` (or `cargo xtask bench`).
//!
//! 1. Work check: every (library, workload) runs a few iterations and must reproduce the digest
//!    of a plain-Rust reference; a mismatch aborts naming both.
//! 2. Timing: rounds visit every case in a seeded-shuffled order; each visit takes samples of
//!    a calibrated batch of iterations; per-iteration medians, ratio to the row's fastest, and
//!    IQR/median as noise.
//! 3. Determinism probe: one churn script, two differently ordered histories, per library.
//! 4. Writes `report.md` and `chart.svg` into the output directory.

#[macro_use]
mod common;
mod chart;
mod lib_bevy;
mod lib_hecs;
mod lib_plain;
mod lib_rota;
mod lib_shipyard;
mod lib_sparsey;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use common::{Bench, History, SplitMix64, Workload};

pub const LIBS: [&str; 5] = ["rota", "hecs", "bevy_ecs", "shipyard", "sparsey"];

/// The plain-Rust lower bound (`lib_plain.rs`): timed with the libraries, never one of them (it
/// is not in the "fastest" ratio), reported as its own column and as rota ÷ plain.
const PLAIN: &str = "plain";

/// Other loop styles (`lib_rota::variants`, `lib_hecs::variants`, `lib_plain::variants`):
/// timed with the rest, reported as their own columns, never in the "fastest" ratio.
const VARIANTS: [&str; 5] = [
    "rota for_each",
    "rota runs",
    "rota column",
    "hecs for",
    "plain for_each",
];

/// Libraries whose `schedule` case is a plain sequential loop (no scheduler of their own).
const SEQUENTIAL_SCHEDULE: [(&str, &str); 2] = [
    (
        "hecs",
        "hecs has no scheduler: the three systems run as a sequential loop of `query_mut`s",
    ),
    (
        "sparsey",
        "sparsey 0.13 has no scheduler: the three systems run as a sequential loop of `for_each`s",
    ),
];

fn make(lib: &str, wl: Workload) -> Box<dyn Bench> {
    match lib {
        "rota" => lib_rota::make(wl),
        "hecs" => lib_hecs::make(wl),
        "bevy_ecs" => lib_bevy::make(wl),
        "shipyard" => lib_shipyard::make(wl),
        "sparsey" => lib_sparsey::make(wl),
        _ => unreachable!("unknown library {lib}"),
    }
}

fn probe(lib: &str, h: &History) -> Vec<(u64, u32)> {
    match lib {
        "rota" => lib_rota::probe(h),
        "hecs" => lib_hecs::probe(h),
        "bevy_ecs" => lib_bevy::probe(h),
        "shipyard" => lib_shipyard::probe(h),
        "sparsey" => lib_sparsey::probe(h),
        _ => unreachable!("unknown library {lib}"),
    }
}

struct Config {
    quick: bool,
    out: PathBuf,
    rounds: usize,
    samples_per_visit: usize,
    target_sample_ns: f64,
}

fn parse_args() -> Config {
    let mut quick = false;
    let mut out = PathBuf::from("target/bench-report");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--out" => out = PathBuf::from(args.next().expect("--out needs a directory")),
            "-h" | "--help" => {
                println!("usage: rota-peers [--quick] [--out DIR | DIR]");
                std::process::exit(0);
            }
            other if !other.starts_with('-') => out = PathBuf::from(other),
            other => {
                eprintln!("rota-peers: unknown argument `{other}`");
                std::process::exit(2);
            }
        }
    }
    let (rounds, samples_per_visit, target_sample_ns) = if quick {
        (3, 3, 300_000.0)
    } else {
        (60, 5, 2_000_000.0)
    };
    Config {
        quick,
        out,
        rounds,
        samples_per_visit,
        target_sample_ns,
    }
}

/// Every (library, workload) must reproduce the plain-Rust digest after `ITERS` iterations.
fn work_check() {
    const ITERS: usize = 3;
    for wl in Workload::ALL {
        let expected = common::reference(wl, ITERS);
        let cases = LIBS
            .iter()
            .map(|&lib| (lib, make(lib, wl)))
            .chain(lib_plain::make(wl).map(|b| (PLAIN, b)))
            .chain(lib_rota::variants(wl))
            .chain(lib_hecs::variants(wl))
            .chain(lib_plain::variants(wl));
        for (lib, mut b) in cases {
            for _ in 0..ITERS {
                b.prepare();
                b.run();
            }
            let got = b.digest();
            let tol = 1e-9 * expected.abs().max(1.0);
            if (got - expected).abs() > tol {
                eprintln!(
                    "work check FAILED: library `{lib}`, workload `{}`: digest {got} != reference {expected}",
                    wl.name()
                );
                std::process::exit(1);
            }
        }
        println!("work check ok: {:<16} (digest {expected})", wl.name());
    }
}

struct Slot {
    lib: &'static str,
    wl: Workload,
    bench: Box<dyn Bench>,
    batch: u32,
    /// Nanoseconds per iteration, one per sample.
    samples: Vec<f64>,
}

fn time_batch(b: &mut dyn Bench, batch: u32) -> f64 {
    if b.has_prepare() {
        // Each iteration needs fresh state: prepare untimed, time the run alone.
        let mut total = 0.0;
        for _ in 0..batch {
            b.prepare();
            let start = Instant::now();
            b.run();
            total += start.elapsed().as_nanos() as f64;
        }
        return total / batch as f64;
    }
    let start = Instant::now();
    for _ in 0..batch {
        b.run();
    }
    start.elapsed().as_nanos() as f64 / batch as f64
}

struct Stats {
    median: f64,
    noise: f64,
}

fn stats(samples: &[f64]) -> Stats {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let q = |p: f64| {
        let x = p * (s.len() - 1) as f64;
        let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
        s[lo] + (s[hi] - s[lo]) * (x - lo as f64)
    };
    let median = q(0.5);
    Stats {
        median,
        noise: (q(0.75) - q(0.25)) / median,
    }
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn main() {
    let cfg = parse_args();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "rota-peers: {} mode, {} hardware threads, output {}",
        if cfg.quick { "quick" } else { "full" },
        threads,
        cfg.out.display()
    );

    work_check();

    // Build every case, warm it up and calibrate its batch size.
    let mut slots: Vec<Slot> = Vec::new();
    for wl in Workload::ALL {
        let cases = LIBS
            .iter()
            .map(|&lib| (lib, make(lib, wl)))
            .chain(lib_plain::make(wl).map(|b| (PLAIN, b)))
            .chain(lib_rota::variants(wl))
            .chain(lib_hecs::variants(wl))
            .chain(lib_plain::variants(wl));
        for (lib, mut bench) in cases {
            let mut one = f64::MAX;
            for _ in 0..3 {
                one = one.min(time_batch(bench.as_mut(), 1));
            }
            let batch = (cfg.target_sample_ns / one.max(1.0)).clamp(1.0, 100_000.0) as u32;
            slots.push(Slot {
                lib,
                wl,
                bench,
                batch,
                samples: Vec::new(),
            });
        }
    }

    let started = Instant::now();
    let mut rng = SplitMix64(0x5EED_F00D_B07A);
    let mut order: Vec<usize> = (0..slots.len()).collect();
    for round in 0..cfg.rounds {
        rng.shuffle(&mut order);
        for &i in &order {
            let s = &mut slots[i];
            // Let the previous case's worker threads (rayon, bevy's task pool, rota's) stop
            // spinning, then one untimed iteration to bring this case's data back into cache.
            std::thread::sleep(std::time::Duration::from_millis(1));
            s.bench.prepare();
            s.bench.run();
            for _ in 0..cfg.samples_per_visit {
                let t = time_batch(s.bench.as_mut(), s.batch);
                s.samples.push(t);
            }
        }
        if !cfg.quick && (round + 1) % 10 == 0 {
            println!(
                "round {}/{} ({:.0} s)",
                round + 1,
                cfg.rounds,
                started.elapsed().as_secs_f64()
            );
        }
    }

    let timing_secs = started.elapsed().as_secs_f64();

    // Determinism probe.
    let h1 = History::new(1);
    let h2 = History::new(2);
    let h3 = History::with_churn_of(1, 3);
    struct ProbeRow {
        lib: &'static str,
        asc1: bool,
        asc2: bool,
        same_ids: bool,
        same_order: bool,
        churn_same_ids: bool,
        churn_same_order: bool,
    }
    let ascending = |v: &[(u64, u32)]| v.windows(2).all(|w| w[0].0 < w[1].0);
    let probes: Vec<ProbeRow> = LIBS
        .iter()
        .map(|&lib| {
            let a = probe(lib, &h1);
            let b = probe(lib, &h2);
            let c = probe(lib, &h3);
            let mut sc = c.clone();
            sc.sort();
            assert_eq!(
                a.len(),
                (2 * common::PROBE_FIRST / 3 + common::PROBE_MORE) as usize,
                "{lib}: probe history 1 left the wrong number of live entities"
            );
            assert_eq!(a.len(), b.len(), "{lib}: probe histories differ in size");
            let mut sa = a.clone();
            let mut sb = b.clone();
            sa.sort();
            sb.sort();
            ProbeRow {
                lib,
                asc1: ascending(&a),
                asc2: ascending(&b),
                same_ids: sa == sb,
                same_order: a.iter().map(|x| x.1).eq(b.iter().map(|x| x.1)),
                churn_same_ids: sa == sc,
                churn_same_order: a == c,
            }
        })
        .collect();

    // Report.
    let mut md = String::new();
    let _ = writeln!(md, "# Peer benchmarks (rota-peers)\n");
    let _ = writeln!(
        md,
        "Mode: **{}** — {} rounds × {} samples per case, cases visited in a seeded-shuffled order \
         each round; each visit sleeps 1 ms (idle worker threads of the previous case stop \
         spinning) and runs one untimed iteration, then each sample times a calibrated batch \
         (~{:.1} ms) divided by the batch size. {} hardware threads. rota (path dependency), hecs 0.11, bevy_ecs 0.20 (`multi_threaded`), \
         shipyard 0.11, sparsey 0.13 (`parallel`). Timing took {:.1} s.\n",
        if cfg.quick { "quick" } else { "full" },
        cfg.rounds,
        cfg.samples_per_visit,
        cfg.target_sample_ns / 1e6,
        threads,
        timing_secs
    );
    let _ = writeln!(
        md,
        "Every case passed the work check (digest after 3 iterations equals a plain-Rust \
         reference) before timing.\n"
    );
    let _ = writeln!(
        md,
        "## Median time per iteration (ratio to the row's fastest; noise = IQR/median)\n"
    );
    let _ = writeln!(
        md,
        "| workload | {} | plain Rust (lower bound) | rota ÷ plain | {} |",
        LIBS.join(" | "),
        VARIANTS.map(|v| format!("{v} (÷ plain)")).join(" | ")
    );
    let _ = writeln!(
        md,
        "|---|{}",
        "---|".repeat(LIBS.len() + 2 + VARIANTS.len())
    );
    let mut ratios: Vec<(Workload, Vec<f64>)> = Vec::new();
    for wl in Workload::ALL {
        let row: Vec<Stats> = LIBS
            .iter()
            .map(|&lib| {
                let s = slots
                    .iter()
                    .find(|s| s.lib == lib && s.wl == wl)
                    .expect("slot exists");
                stats(&s.samples)
            })
            .collect();
        let best = row.iter().map(|s| s.median).fold(f64::MAX, f64::min);
        let cells: Vec<String> = row
            .iter()
            .map(|s| {
                let r = s.median / best;
                let cell = format!("{} ({:.2}×, ±{:.0}%)", fmt_ns(s.median), r, s.noise * 100.0);
                if r == 1.0 {
                    format!("**{cell}**")
                } else {
                    cell
                }
            })
            .collect();
        let plain = slots
            .iter()
            .find(|s| s.lib == PLAIN && s.wl == wl)
            .map(|s| stats(&s.samples));
        let (plain_cell, rota_over_plain) = match &plain {
            Some(p) => (
                format!("{} (±{:.0}%)", fmt_ns(p.median), p.noise * 100.0),
                format!("{:.2}×", row[0].median / p.median),
            ),
            None => ("—".to_string(), "—".to_string()),
        };
        let variant_cells: Vec<String> = VARIANTS
            .iter()
            .map(|v| match slots.iter().find(|s| s.lib == *v && s.wl == wl) {
                Some(s) => {
                    let st = stats(&s.samples);
                    match &plain {
                        Some(p) => format!("{} ({:.2}×)", fmt_ns(st.median), st.median / p.median),
                        None => fmt_ns(st.median),
                    }
                }
                None => "—".to_string(),
            })
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {plain_cell} | {rota_over_plain} | {} |",
            wl.name(),
            cells.join(" | "),
            variant_cells.join(" | ")
        );
        ratios.push((wl, row.iter().map(|s| s.median / best).collect()));
    }
    let _ = writeln!(md, "\nHow each library runs each workload:\n");
    let _ = writeln!(
        md,
        "* simple_insert: a fresh world per iteration, 10k entities by the library's batch spawn \
         (`spawn_batch` / `bulk_add_entity` / `extend`); the previous world is dropped inside \
         the timed iteration.\n\
         * schedule: rota `Schedule` (#[system]s), bevy_ecs `Schedule` (multi-threaded executor), \
         shipyard `Workload`; **sequential**: {}.\n\
         * heavy_compute: rota `ParallelQuery::par_for_each` inside a system run by \
         `World::run`; bevy_ecs `QueryState::par_iter_mut` (ComputeTaskPool); shipyard \
         `par_iter` (rayon); sparsey `par_for_each` (rayon); hecs `iter_batched(64)` batches \
         over rayon `par_bridge` (hecs has no parallel iterator of its own).\n\
         * add_remove: 10k inserts of a component, then 10k removals that drop it: rota \
         `insert` / `delete`, hecs `insert_one` / `remove_one` (returns the value), bevy_ecs \
         `entity_mut(e).insert/remove`, shipyard `World::add_component` / \
         `World::delete_component`, sparsey `insert` / `delete`.\n\
         * despawn: 10k entities with the four simple_insert components, spawned untimed before \
         each iteration into the same world, then despawned one call at a time in one fixed \
         shuffled order (rota `despawn`, hecs `despawn`, bevy_ecs `despawn`, shipyard \
         `delete_entity`, sparsey `destroy`); only the despawns are timed.\n\
         * simple_iter, fragmented_iter: rota's measured column is a `for` loop over `query_mut`; \
         `rota for_each` and `rota runs` (`for_each_run`, slices per run) are the other two ways \
         to write it. hecs's measured column is `for_each` (its fastest); `hecs for` is the same \
         loop as a `for` loop over `query_mut`, rota's loop style.\n\
         * add_remove: `rota column` is the same inserts and deletes through one \
         `World::column_mut::<AddB>()` handle held for the round (no store lookup per call).\n\
         * plain Rust: the same values through plain `Vec`s, no ECS \
         (`benches/peers/src/lib_plain.rs`), for every workload (rayon for heavy_compute); \
         its simple_iter is a `for` loop over the two columns' zip, and `plain for_each` the same \
         zip and body in `for_each` (whose closure parameters let LLVM pair the loads).\n",
        SEQUENTIAL_SCHEDULE
            .iter()
            .map(|(_, why)| *why)
            .collect::<Vec<_>>()
            .join("; ")
    );
    let _ = writeln!(md, "## Determinism probe\n");
    let _ = writeln!(
        md,
        "Script (same for every library): spawn 1,000 entities with `Label`; despawn every \
         third in a seeded order; spawn 300 more; remove `Label` from every fifth live entity \
         and re-add it, each in a seeded order; record the order a `Label` query visits \
         (entity index as the library exposes it: rota `Entity::slot`, hecs `Entity::id`, \
         bevy `Entity::index_u32`, shipyard `EntityId::index`, sparsey `Entity::index`). \
         History 2 runs the same script with different seeds (so a different despawn, remove \
         and re-add order) and ends with the same live labels and components. History 3 repeats history 1's despawns \
         exactly (so every library hands out the same ids) but removes and re-adds `Label` in \
         other seeded orders: it isolates the effect of component churn order.\n"
    );
    let _ = writeln!(
        md,
        "| library | ascending by index (h1) | ascending (h2) | h1 vs h2: same index↔label set | h1 vs h2: same visit order (labels) | h1 vs h3: same ids | h1 vs h3: same visit order |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    let yn = |b: bool| if b { "yes" } else { "no" };
    for p in &probes {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            p.lib,
            yn(p.asc1),
            yn(p.asc2),
            yn(p.same_ids),
            yn(p.same_order),
            yn(p.churn_same_ids),
            yn(p.churn_same_order)
        );
    }

    if let Err(e) = std::fs::create_dir_all(&cfg.out) {
        eprintln!("rota-peers: cannot create {}: {e}", cfg.out.display());
        std::process::exit(1);
    }
    let report = cfg.out.join("report.md");
    let svg = cfg.out.join("chart.svg");
    let _ = writeln!(
        md,
        "\nChart: `chart.svg` (ratio to the fastest, per workload)."
    );
    std::fs::write(&report, &md).expect("write report.md");
    if let Err(e) = chart::draw(&svg, &ratios) {
        eprintln!("rota-peers: chart failed: {e}");
        std::process::exit(1);
    }
    println!("{md}");
    println!("wrote {} and {}", report.display(), svg.display());
}
