//! The launcher: a whole local match from one command. It picks free loopback ports, starts
//! one peer process per player (this same executable, with peer flags), waits for them, and
//! judges the match from their exit codes and `summary`/`desync` lines.

use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use crate::net::LinkConditions;

/// A local match.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// Players, one process each.
    pub players: usize,
    /// The frame whose checksum the peers compare.
    pub frames: u32,
    /// Seeds the world, the bots and the links.
    pub seed: u64,
    /// Asteroids in the world.
    pub asteroids: usize,
    /// Every peer's outgoing link.
    pub link: LinkConditions,
    /// How long a peer keeps its session going after frame N.
    pub linger: Duration,
    /// Threads per peer, in player order (missing ones: 1).
    pub peer_threads: Vec<usize>,
    /// The player made nondeterministic.
    pub plant: Option<usize>,
}

/// Free loopback ports: bound to port 0, read back, released for the peers to bind.
fn free_ports(n: usize) -> std::io::Result<Vec<u16>> {
    let sockets = (0..n)
        .map(|_| UdpSocket::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()?;
    sockets
        .iter()
        .map(|s| s.local_addr().map(|a| a.port()))
        .collect()
}

/// One peer's report.
struct Report {
    player: usize,
    exit: Option<i32>,
    summary: Option<String>,
    desync: Option<String>,
    /// The per-store checksums a peer that saw a desync printed (`parts` lines), by frame.
    parts: BTreeMap<i32, BTreeMap<String, String>>,
}

/// Reads `parts frame=F name=hex|name=hex|...` lines.
fn parse_parts(stdout: &str) -> BTreeMap<i32, BTreeMap<String, String>> {
    let mut frames = BTreeMap::new();
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("parts frame=") else {
            continue;
        };
        let Some((frame, parts)) = rest.split_once(' ') else {
            continue;
        };
        let Ok(frame) = frame.parse::<i32>() else {
            continue;
        };
        let parts = parts
            .split('|')
            .filter_map(|p| p.rsplit_once('='))
            .map(|(name, sum)| (name.to_string(), sum.to_string()))
            .collect();
        frames.insert(frame, parts);
    }
    frames
}

/// The first frame two peers both hold whose per-store checksums differ, and the parts that
/// differ (a part one peer lacks counts as differing).
fn first_difference(reports: &[Report]) -> Option<(i32, Vec<String>)> {
    let mut found: Option<(i32, Vec<String>)> = None;
    for (i, a) in reports.iter().enumerate() {
        for b in &reports[i + 1..] {
            for (frame, ours) in &a.parts {
                let Some(theirs) = b.parts.get(frame) else {
                    continue;
                };
                if ours == theirs {
                    continue;
                }
                let names: std::collections::BTreeSet<&String> =
                    ours.keys().chain(theirs.keys()).collect();
                let differing: Vec<String> = names
                    .into_iter()
                    .filter(|n| ours.get(*n) != theirs.get(*n))
                    .cloned()
                    .collect();
                if found.as_ref().is_none_or(|(f, _)| frame < f) {
                    found = Some((*frame, differing));
                }
                break;
            }
        }
    }
    found
}

impl Report {
    fn field(&self, key: &str) -> Option<&str> {
        let prefix = format!("{key}=");
        self.summary
            .as_deref()?
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(prefix.as_str()))
    }
}

/// Plays the match; the exit code is the verdict.
pub fn run(config: &LaunchConfig) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("arena: cannot find this executable to start the peers: {e}");
            return ExitCode::from(3);
        }
    };
    let ports = match free_ports(config.players) {
        Ok(ports) => ports,
        Err(e) => {
            eprintln!("arena: no free loopback port: {e}");
            return ExitCode::from(3);
        }
    };
    let addrs: Vec<SocketAddr> = ports
        .iter()
        .map(|&p| SocketAddr::from(([127, 0, 0, 1], p)))
        .collect();
    println!(
        "arena: {} players, {} frames, seed {}, {} asteroids; link: {} ms + up to {} ms jitter, \
         {:.0}% loss{}",
        config.players,
        config.frames,
        config.seed,
        config.asteroids,
        config.link.latency.as_millis(),
        config.link.jitter.as_millis(),
        config.link.loss * 100.0,
        config.plant.map_or_else(String::new, |p| format!(
            "; nondeterminism planted in player {p}"
        )),
    );
    let started = Instant::now();
    let mut children = Vec::new();
    for (player, port) in ports.iter().enumerate() {
        let remotes: Vec<String> = addrs
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != player)
            .map(|(_, a)| a.to_string())
            .collect();
        let threads = config.peer_threads.get(player).copied().unwrap_or(1);
        let mut command = Command::new(&exe);
        command
            .args(["--player", &player.to_string()])
            .args(["--players", &config.players.to_string()])
            .args(["--local-port", &port.to_string()])
            .args(["--remote", &remotes.join(",")])
            .args(["--frames", &config.frames.to_string()])
            .args(["--seed", &config.seed.to_string()])
            .args(["--asteroids", &config.asteroids.to_string()])
            .args(["--threads", &threads.to_string()])
            .args(["--latency-ms", &config.link.latency.as_millis().to_string()])
            .args(["--jitter-ms", &config.link.jitter.as_millis().to_string()])
            .args(["--loss", &config.link.loss.to_string()])
            .args(["--linger-ms", &config.linger.as_millis().to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if config.plant == Some(player) {
            command.arg("--plant");
        }
        match command.spawn() {
            Ok(child) => children.push((player, child)),
            Err(e) => {
                eprintln!("arena: cannot start player {player}: {e}");
                return ExitCode::from(3);
            }
        }
    }
    let mut reports = Vec::new();
    for (player, child) in children {
        let (exit, stdout) = match child.wait_with_output() {
            Ok(output) => (
                output.status.code(),
                String::from_utf8_lossy(&output.stdout).into_owned(),
            ),
            Err(e) => {
                eprintln!("arena: waiting for player {player}: {e}");
                (None, String::new())
            }
        };
        let line = |prefix: &str| {
            stdout
                .lines()
                .find(|l| l.starts_with(prefix))
                .map(str::to_string)
        };
        reports.push(Report {
            player,
            exit,
            summary: line("summary "),
            desync: line("desync "),
            parts: parse_parts(&stdout),
        });
    }
    for report in &reports {
        println!(
            "player {}: {}",
            report.player,
            report.summary.as_deref().unwrap_or("(no summary)")
        );
    }
    println!("match over in {:.1?}", started.elapsed());
    verdict(config, &reports)
}

fn verdict(config: &LaunchConfig, reports: &[Report]) -> ExitCode {
    let desyncs: Vec<&str> = reports.iter().filter_map(|r| r.desync.as_deref()).collect();
    if !desyncs.is_empty() {
        println!("FAILED: GGRS detected a desync (the peers' worlds differ):");
        for line in desyncs {
            println!("  {line}");
        }
        // Which part of the world differs: the peers' per-store checksums of the frames they
        // both still hold, compared here (the launcher is the peers' side channel).
        match first_difference(reports) {
            Some((frame, parts)) => println!(
                "  the worlds first differ at frame {frame}, in: {}",
                parts.join(", ")
            ),
            None => println!("  (no frame held by two peers to compare part by part)"),
        }
        return ExitCode::from(1);
    }
    let failed: Vec<String> = reports
        .iter()
        .filter(|r| r.exit != Some(0))
        .map(|r| format!("player {} exited with {:?}", r.player, r.exit))
        .collect();
    if !failed.is_empty() {
        println!("FAILED: {}", failed.join("; "));
        return ExitCode::from(1);
    }
    let checksums: Vec<Option<&str>> = reports.iter().map(|r| r.field("checksum")).collect();
    match checksums.first() {
        Some(Some(first)) if *first != "none" && checksums.iter().all(|c| *c == Some(*first)) => {
            println!(
                "OK: {} peers agree on frame {}: checksum {first}",
                reports.len(),
                config.frames
            );
            ExitCode::SUCCESS
        }
        _ => {
            println!(
                "FAILED: the checksums of frame {} differ: {checksums:?}",
                config.frames
            );
            ExitCode::from(1)
        }
    }
}
