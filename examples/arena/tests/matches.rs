//! The launcher end to end: real processes, real sockets, a seeded bad link.
//!
//! * `a_lossy_match_on_one_and_two_threads_ends_in_one_state` — 2 players for 300 frames over
//!   40 ± 20 ms and 5 % loss, on 1 and 2 threads: exit 0, equal checksums of frame 300, no
//!   desync, and at least one rollback of two frames or more (the link really made
//!   predictions fail).
//! * `a_planted_nondeterminism_is_reported_as_a_desync` — one peer reads a counter outside the
//!   world: GGRS's desync detection catches it, the launcher fails, and the peers' per-store
//!   checksums (`World::checksum_parts`) name the one resource the planted system writes.
//!
//! No timing assertions: the machine may be busy.

use std::process::{Command, Output};

fn launch(args: &[&str]) -> (Output, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .output()
        .expect("the arena binary starts");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output, stdout)
}

/// `key`'s value in every peer's summary line, in player order.
fn field<'a>(stdout: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("{key}=");
    stdout
        .lines()
        .filter(|l| l.contains(": summary "))
        .map(|l| {
            l.split_whitespace()
                .find_map(|kv| kv.strip_prefix(prefix.as_str()))
                .unwrap_or_else(|| panic!("no {key} in {l}"))
        })
        .collect()
}

const BAD_LINK: [&str; 6] = ["--latency-ms", "40", "--jitter-ms", "20", "--loss", "0.05"];

#[test]
fn a_lossy_match_on_one_and_two_threads_ends_in_one_state() {
    let mut args = vec!["--frames", "300", "--peer-threads", "1,2"];
    args.extend(BAD_LINK);
    let (output, stdout) = launch(&args);
    assert!(output.status.success(), "the match failed:\n{stdout}");
    let checksums = field(&stdout, "checksum");
    assert_eq!(checksums.len(), 2, "{stdout}");
    assert_ne!(checksums[0], "none", "{stdout}");
    assert_eq!(checksums[0], checksums[1], "{stdout}");
    assert!(!stdout.contains("desync"), "{stdout}");
    let rollbacks: u64 = field(&stdout, "rollbacks")
        .iter()
        .map(|r| r.parse::<u64>().expect("a count"))
        .sum();
    assert!(rollbacks >= 1, "no rollback over a lossy link:\n{stdout}");
    // 40 ms one way is more than two 60 Hz frames: a late input is found out frames later.
    let deepest = field(&stdout, "max_rollback")
        .iter()
        .map(|r| r.parse::<u64>().expect("a count"))
        .max();
    assert!(
        deepest >= Some(2),
        "no rollback of several frames:\n{stdout}"
    );
}

#[test]
fn a_planted_nondeterminism_is_reported_as_a_desync() {
    let mut args = vec!["--frames", "120", "--plant-on", "1"];
    args.extend(BAD_LINK);
    let (output, stdout) = launch(&args);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("GGRS detected a desync"), "{stdout}");
    assert!(stdout.contains("desync player="), "{stdout}");
    // The peers' per-store checksums of the frames they both hold name the planted state, and
    // only it: every peer runs the same schedule, so nothing else may differ.
    assert!(
        stdout.contains("the worlds first differ at frame ")
            && stdout.lines().any(|l| l.ends_with(", in: resource Score")),
        "{stdout}"
    );
}
