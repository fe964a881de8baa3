//! rota over the network: a 2-4 player arena where each player is its own process, kept in
//! step by a GGRS `P2PSession` over UDP on loopback, with seeded latency, jitter and loss on
//! every link so that predictions fail and rollbacks of several frames really happen.
//!
//! Run: `cargo run --release -p arena` plays a local 2-player match (the launcher starts one
//! peer process per player and compares their checksums of the last frame). `-- --help` lists
//! the options, including the flags that run a single peer against given addresses.

mod capacity;
mod game;
mod launcher;
mod net;
mod peer;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use crate::launcher::LaunchConfig;
use crate::net::LinkConditions;
use crate::peer::{PeerConfig, PeerError};

const USAGE: &str = "\
usage:
  arena [OPTIONS]                      a local match: one peer process per player
  arena --player I --local-port P --remote ADDR,.. [OPTIONS]   one peer
  arena --capacity [--threads A,B]     the largest world whose 8-frame rollback fits in a 60 Hz
                                       frame, on each thread count (default 1,2)

match options (the launcher passes them on to every peer):
  --players N          players, 2 to 4 (default 2)
  --frames N           the match ends when frame N is confirmed (default 300)
  --seed S             seeds the world, the bots and the links (default 1)
  --asteroids N        drifting asteroids in the world (default 200)
  --latency-ms MS      one-way delay added to every packet (default 0)
  --jitter-ms MS       up to this much more per packet, uniformly (default 0)
  --loss P             probability a packet is dropped, 0 to 1 (default 0)
  --linger-ms MS       how long a peer keeps the session going after frame N (default 1500)

launcher only:
  --peer-threads A,B   the schedule's threads for each peer in player order (default 1 each)
  --plant-on I         make player I nondeterministic: GGRS must report a desync

one peer only:
  --player I           this peer's player handle
  --local-port P       the loopback port to bind
  --remote ADDR,..     the other players' addresses, in player order, this player left out
  --threads N          the schedule's threads (default 1)
  --plant              add a system that reads a counter outside the world

Each peer prints one `summary` line: frames simulated, rollbacks (GGRS load requests),
frames re-simulated (in all, and the most by one rollback), the largest prediction depth
(frames a simulated frame ran ahead of the confirmed one), the
round-trip time to each remote (ms), and the world checksum of frame N; the counters stop at
frame N, the packet counts cover the whole run. The launcher exits 1 if a peer reports a
desync, fails, or the checksums differ.";

/// Everything the command line said.
struct Args {
    launch: LaunchConfig,
    peer: Option<PeerConfig>,
    capacity: bool,
    /// `--threads`: a peer's thread count, or the thread counts `--capacity` measures.
    capacity_threads: Option<Vec<usize>>,
}

fn parse() -> Result<Args, String> {
    let mut launch = LaunchConfig {
        players: 2,
        frames: 300,
        seed: 1,
        asteroids: 200,
        link: LinkConditions::PERFECT,
        linger: Duration::from_millis(1500),
        peer_threads: Vec::new(),
        plant: None,
    };
    let mut player = None;
    let mut local_port = None;
    let mut remotes: Vec<SocketAddr> = Vec::new();
    let mut threads: Option<Vec<usize>> = None;
    let mut plant_here = false;
    let mut capacity = false;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--help" | "-h" => return Err(USAGE.to_string()),
            "--plant" => {
                plant_here = true;
                continue;
            }
            "--capacity" => {
                capacity = true;
                continue;
            }
            _ => {}
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n\n{USAGE}"))?;
        let bad = |e: &dyn std::fmt::Display| format!("{flag} {value}: {e}\n\n{USAGE}");
        let millis = |v: &str| v.parse::<u64>().map(Duration::from_millis);
        match flag.as_str() {
            "--players" => launch.players = value.parse().map_err(|e| bad(&e))?,
            "--frames" => launch.frames = value.parse().map_err(|e| bad(&e))?,
            "--seed" => launch.seed = value.parse().map_err(|e| bad(&e))?,
            "--asteroids" => launch.asteroids = value.parse().map_err(|e| bad(&e))?,
            "--latency-ms" => launch.link.latency = millis(&value).map_err(|e| bad(&e))?,
            "--jitter-ms" => launch.link.jitter = millis(&value).map_err(|e| bad(&e))?,
            "--loss" => {
                launch.link.loss = value.parse().map_err(|e| bad(&e))?;
                if !(0.0..=1.0).contains(&launch.link.loss) {
                    return Err(bad(&"a probability is between 0 and 1"));
                }
            }
            "--linger-ms" => launch.linger = millis(&value).map_err(|e| bad(&e))?,
            "--peer-threads" => launch.peer_threads = list(&value).map_err(|e| bad(&e))?,
            "--plant-on" => launch.plant = Some(value.parse().map_err(|e| bad(&e))?),
            "--player" => player = Some(value.parse().map_err(|e| bad(&e))?),
            "--local-port" => local_port = Some(value.parse().map_err(|e| bad(&e))?),
            "--remote" => remotes = list(&value).map_err(|e| bad(&e))?,
            "--threads" => threads = Some(list(&value).map_err(|e| bad(&e))?),
            _ => return Err(format!("unknown option {flag}\n\n{USAGE}")),
        }
    }
    if !(2..=game::MAX_PLAYERS).contains(&launch.players) {
        return Err(format!("--players {}: 2 to 4\n\n{USAGE}", launch.players));
    }
    if threads
        .iter()
        .flatten()
        .chain(&launch.peer_threads)
        .any(|&n| n == 0)
    {
        return Err("thread counts start at 1".to_string());
    }
    let peer = match (player, local_port) {
        (Some(player), Some(local_port)) => {
            if player >= launch.players || remotes.len() + 1 != launch.players {
                return Err(format!(
                    "--player {player} with {} remotes does not fit --players {}",
                    remotes.len(),
                    launch.players
                ));
            }
            Some(PeerConfig {
                player,
                players: launch.players,
                local_port,
                remotes,
                frames: launch.frames,
                seed: launch.seed,
                threads: threads
                    .as_ref()
                    .and_then(|t| t.first())
                    .copied()
                    .unwrap_or(1),
                asteroids: launch.asteroids,
                link: launch.link,
                plant: plant_here,
                linger: launch.linger,
            })
        }
        (None, None) => None,
        _ => {
            return Err(format!(
                "a peer needs both --player and --local-port\n\n{USAGE}"
            ));
        }
    };
    Ok(Args {
        launch,
        peer,
        capacity,
        capacity_threads: threads,
    })
}

/// A comma-separated list.
fn list<T: std::str::FromStr>(value: &str) -> Result<Vec<T>, T::Err> {
    value.split(',').map(|v| v.trim().parse()).collect()
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(message) if message == USAGE => {
            println!("{message}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    if args.capacity {
        let threads = args.capacity_threads.unwrap_or_else(|| vec![1, 2]);
        capacity::run(&threads, args.launch.seed);
        return ExitCode::SUCCESS;
    }
    let Some(peer) = args.peer else {
        return launcher::run(&args.launch);
    };
    let (stats, outcome) = peer::run(&peer);
    let code = match &outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(PeerError::Desync(report)) => {
            println!("{}", report.line(peer.player));
            for line in report.parts_lines() {
                println!("{line}");
            }
            ExitCode::from(1)
        }
        Err(PeerError::Setup(message)) => {
            eprintln!("player {}: {message}", peer.player);
            ExitCode::from(3)
        }
        Err(PeerError::TimedOut { confirmed }) => {
            eprintln!(
                "player {}: frame {} not confirmed in time (confirmed {confirmed})",
                peer.player, peer.frames
            );
            ExitCode::from(3)
        }
    };
    println!("{}", stats.line(&peer));
    code
}
