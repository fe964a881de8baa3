//! One player's process: a GGRS `P2PSession` over a [`LossySocket`], a fixed 60 Hz frame loop,
//! and the world GGRS saves (`World::snapshot` + `World::full_checksum`), loads
//! (`World::restore`) and advances (`Schedule::run`).
//!
//! A peer runs until its confirmed frame reaches `--frames N`, takes the checksum it saved for
//! frame N (re-saved by every rollback that re-simulated it, and final once N is confirmed),
//! then keeps the session going for a short while so the other peers receive the inputs and
//! acknowledgements they need to finish too. It prints one `summary` line on stdout (the
//! launcher reads it), and exits 1 on a GGRS desync report.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use ggrs::{
    DesyncDetection, GgrsError, GgrsEvent, GgrsRequest, P2PSession, PlayerType, SessionBuilder,
    SessionState,
};
use rota::{Schedule, Snapshot, World};

use crate::game::{self, BotInput, Inputs, MAX_PLAYERS};
use crate::net::{LinkConditions, LinkCounters, LinkModel, LossySocket};

/// GGRS's compile-time configuration: one byte of input per player, world snapshots as state.
pub struct ArenaConfig;

impl ggrs::Config for ArenaConfig {
    type Input = BotInput;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = rota::Snapshot;
    type Address = SocketAddr;
}

/// One frame at 60 Hz.
const FRAME: Duration = Duration::from_nanos(1_000_000_000 / 60);

/// What one peer process runs.
#[derive(Clone, Debug)]
pub struct PeerConfig {
    /// This peer's player handle.
    pub player: usize,
    /// Players in the match.
    pub players: usize,
    /// The loopback port to bind.
    pub local_port: u16,
    /// The other players' addresses, in player order (this player left out).
    pub remotes: Vec<SocketAddr>,
    /// The frame whose confirmed checksum ends the match.
    pub frames: u32,
    /// Seeds the world, the bots and (with the player) the link.
    pub seed: u64,
    /// The schedule's threads.
    pub threads: usize,
    /// Asteroids in the world.
    pub asteroids: usize,
    /// The link this peer's outgoing packets travel.
    pub link: LinkConditions,
    /// Adds the nondeterministic system.
    pub plant: bool,
    /// How long to keep the session going after frame N is confirmed.
    pub linger: Duration,
}

/// A desync GGRS reported: this peer's and a remote's checksums of one confirmed frame, and
/// this peer's per-store checksums (`World::checksum_parts`) of the frames it still holds, for
/// the launcher to compare between peers and name the part of the world that differs (GGRS
/// exchanges one checksum per frame).
#[derive(Clone, Debug)]
pub struct DesyncReport {
    /// The frame whose checksums differ.
    pub frame: i32,
    /// This peer's checksum of it.
    pub local: u128,
    /// The remote's.
    pub remote: u128,
    /// Which remote.
    pub addr: SocketAddr,
    /// `(frame, [(part, checksum)])` for each frame saved recently, oldest first.
    pub parts: Vec<(i32, Vec<(String, u64)>)>,
}

impl DesyncReport {
    /// The line the launcher quotes.
    pub fn line(&self, player: usize) -> String {
        format!(
            "desync player={player} frame={} local={:#x} remote={:#x} remote_addr={}",
            self.frame, self.local, self.remote, self.addr
        )
    }

    /// One `parts` line per frame held: `parts frame=F name=hex|name=hex|...` (part names hold
    /// spaces, never `=` or `|`).
    pub fn parts_lines(&self) -> Vec<String> {
        self.parts
            .iter()
            .map(|(frame, parts)| {
                let parts: Vec<String> = parts
                    .iter()
                    .map(|(name, sum)| format!("{name}={sum:x}"))
                    .collect();
                format!("parts frame={frame} {}", parts.join("|"))
            })
            .collect()
    }
}

/// What a peer did.
#[derive(Clone, Debug, Default)]
pub struct PeerStats {
    /// Frames advanced for the first time.
    pub frames: u64,
    /// `LoadGameState` requests fulfilled.
    pub rollbacks: u64,
    /// Frames simulated again after a load.
    pub resimulated: u64,
    /// The most frames a simulated frame ran ahead of the confirmed one.
    pub max_prediction: i32,
    /// The most frames one rollback re-simulated.
    pub max_rollback: u64,
    /// The last round-trip time GGRS measured to each remote, in ms.
    pub rtt_ms: Vec<u128>,
    /// `full_checksum` of frame N once confirmed.
    pub checksum: Option<u64>,
    /// Frames skipped because GGRS's prediction window was full.
    pub stalls: u64,
    /// Packets this peer's link dropped.
    pub dropped: u64,
    /// Packets this peer's link sent.
    pub sent: u64,
}

impl PeerStats {
    /// The `summary` line the launcher parses (`key=value`, space separated).
    pub fn line(&self, config: &PeerConfig) -> String {
        let rtt: Vec<String> = self.rtt_ms.iter().map(u128::to_string).collect();
        let checksum = self
            .checksum
            .map_or_else(|| "none".to_string(), |c| format!("{c:#018x}"));
        format!(
            "summary player={} threads={} frames={} rollbacks={} resimulated={} \
             max_rollback={} max_prediction={} rtt_ms={} stalls={} packets_sent={} packets_dropped={} \
             checksum={checksum}",
            config.player,
            config.threads,
            self.frames,
            self.rollbacks,
            self.resimulated,
            self.max_rollback,
            self.max_prediction,
            if rtt.is_empty() {
                "-".to_string()
            } else {
                rtt.join(",")
            },
            self.stalls,
            self.sent,
            self.dropped,
        )
    }
}

/// Why a peer stopped early.
#[derive(Debug)]
pub enum PeerError {
    /// GGRS compared checksums with a remote and they differ.
    Desync(DesyncReport),
    /// The session or the socket could not start, or GGRS refused a request.
    Setup(String),
    /// Frame N was not confirmed in time (a peer gone, a link too bad).
    TimedOut {
        /// The confirmed frame reached.
        confirmed: i32,
    },
}

/// The world, its schedule and the counters GGRS's requests update.
struct Game {
    world: World,
    schedule: Schedule,
    /// The frame whose checksum ends the match.
    target: i32,
    /// `full_checksum` of the last save of `target` (a rollback that re-simulates it re-saves
    /// it; once `target` is confirmed, the value is final).
    target_checksum: Option<u64>,
    /// The latest save of each of the last `KEPT_SAVES` frames (shared copy-on-write with
    /// GGRS's cells): what a desync report hashes part by part.
    saved: VecDeque<(i32, Snapshot)>,
    stats: PeerStats,
}

/// How many frames a peer keeps for a desync report: GGRS compares a frame's checksums a
/// few frames after it is confirmed.
const KEPT_SAVES: usize = 64;

impl Game {
    /// Per-store checksums of every frame kept, oldest first.
    fn parts(&self) -> Vec<(i32, Vec<(String, u64)>)> {
        self.saved
            .iter()
            .filter_map(|(frame, snapshot)| Some((*frame, snapshot.world().checksum_parts().ok()?)))
            .collect()
    }
}

impl Game {
    fn fulfil(&mut self, requests: Vec<GgrsRequest<ArenaConfig>>) -> Result<(), String> {
        let mut after_load: Option<u64> = None;
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => {
                    if u64::try_from(frame).ok() != Some(self.world.tick()) {
                        return Err(format!(
                            "GGRS saved frame {frame} with the world at tick {}",
                            self.world.tick()
                        ));
                    }
                    let checksum = self.world.full_checksum().map_err(|e| e.to_string())?;
                    let snapshot = self.world.snapshot().map_err(|e| e.to_string())?;
                    // A re-simulation saves its frames again: drop what it replaces.
                    while self.saved.back().is_some_and(|(f, _)| *f >= frame) {
                        self.saved.pop_back();
                    }
                    if self.saved.len() == KEPT_SAVES {
                        self.saved.pop_front();
                    }
                    self.saved.push_back((frame, snapshot.clone()));
                    cell.save(frame, Some(snapshot), Some(u128::from(checksum)));
                    if frame == self.target {
                        self.target_checksum = Some(checksum);
                    }
                }
                GgrsRequest::LoadGameState { cell, frame } => {
                    let snapshot = cell
                        .data()
                        .ok_or_else(|| format!("GGRS loaded frame {frame}, never saved"))?;
                    self.world.restore(&snapshot);
                    self.stats.rollbacks += 1;
                    after_load = Some(0);
                }
                GgrsRequest::AdvanceFrame { inputs } => {
                    let mut frame_inputs = [0u8; MAX_PLAYERS];
                    for (slot, (input, _status)) in frame_inputs.iter_mut().zip(&inputs) {
                        *slot = input.buttons;
                    }
                    self.world.insert_resource(Inputs(frame_inputs));
                    self.schedule.run(&mut self.world);
                    match after_load.as_mut() {
                        Some(count) => *count += 1,
                        None => self.stats.frames += 1,
                    }
                }
            }
        }
        // After a load, GGRS re-simulates up to the frame it was at, then advances the new one.
        if let Some(count) = after_load {
            self.stats.resimulated += count.saturating_sub(1);
            self.stats.max_rollback = self.stats.max_rollback.max(count.saturating_sub(1));
            self.stats.frames += u64::from(count > 0);
        }
        Ok(())
    }
}

fn start_session(
    config: &PeerConfig,
) -> Result<(P2PSession<ArenaConfig>, Rc<LinkCounters>), PeerError> {
    let setup = |e: &dyn std::fmt::Display| PeerError::Setup(e.to_string());
    let link_seed = config.seed ^ (0xA5A5_0000 + config.player as u64);
    let socket = LossySocket::bind(config.local_port, LinkModel::new(config.link, link_seed))
        .map_err(|e| setup(&format!("binding 127.0.0.1:{}: {e}", config.local_port)))?;
    let counters = socket.counters();
    let mut builder = SessionBuilder::<ArenaConfig>::new()
        .with_num_players(config.players)
        .map_err(|e| setup(&e))?
        .with_desync_detection_mode(DesyncDetection::On { interval: 1 })
        .with_max_prediction_window(8)
        .with_fps(60)
        .map_err(|e| setup(&e))?;
    let mut remotes = config.remotes.iter();
    for handle in 0..config.players {
        let kind = if handle == config.player {
            PlayerType::Local
        } else {
            let addr = remotes
                .next()
                .ok_or_else(|| setup(&"fewer --remote addresses than other players"))?;
            PlayerType::Remote(*addr)
        };
        builder = builder.add_player(kind, handle).map_err(|e| setup(&e))?;
    }
    let session = builder.start_p2p_session(socket).map_err(|e| setup(&e))?;
    Ok((session, counters))
}

/// Runs one peer to the end of the match.
///
/// # Errors
///
/// [`PeerError::Desync`] when GGRS reports differing checksums (the stats so far come with
/// it); [`PeerError::Setup`] or [`PeerError::TimedOut`] otherwise.
pub fn run(config: &PeerConfig) -> (PeerStats, Result<(), PeerError>) {
    let schedule = match game::schedule(config.threads, config.plant) {
        Ok(schedule) => schedule,
        Err(e) => return (PeerStats::default(), Err(PeerError::Setup(e.to_string()))),
    };
    let mut game = Game {
        world: game::new_world(config.players, config.asteroids, config.seed),
        schedule,
        target: i32::try_from(config.frames).unwrap_or(i32::MAX),
        target_checksum: None,
        saved: VecDeque::new(),
        stats: PeerStats::default(),
    };
    let outcome = match start_session(config) {
        Ok((mut session, counters)) => {
            let outcome = play(config, &mut session, &mut game);
            game.stats.sent = counters.sent.get();
            game.stats.dropped = counters.dropped.get();
            outcome
        }
        Err(e) => Err(e),
    };
    (game.stats, outcome)
}

fn play(
    config: &PeerConfig,
    session: &mut P2PSession<ArenaConfig>,
    game: &mut Game,
) -> Result<(), PeerError> {
    // Generous: synchronising, N frames at 60 Hz slowed by up to a tenth, and a margin.
    let deadline = Instant::now() + FRAME * config.frames * 2 + Duration::from_secs(15);
    let mut finished_at: Option<Instant> = None;
    let mut last = Instant::now();
    let mut accumulated = Duration::ZERO;
    let mut last_rtt = Vec::new();
    // The counters when frame N was confirmed (or a desync reported): the lingering frames
    // after it are not part of the match.
    let mut frozen: Option<PeerStats> = None;
    let mut desync: Option<DesyncReport> = None;
    loop {
        session.poll_remote_clients();
        for event in session.events() {
            match event {
                // Keep the session going a little, so the other peers get the checksums they
                // need to see the desync too, then report the first one.
                GgrsEvent::DesyncDetected {
                    frame,
                    local_checksum,
                    remote_checksum,
                    addr,
                } if desync.is_none() => {
                    desync = Some(DesyncReport {
                        frame,
                        local: local_checksum,
                        remote: remote_checksum,
                        addr,
                        // Taken now, while the frames around the desync are still kept: the
                        // session goes on a while for the other peers.
                        parts: game.parts(),
                    });
                    finished_at.get_or_insert_with(Instant::now);
                    frozen.get_or_insert_with(|| game.stats.clone());
                }
                GgrsEvent::Disconnected { addr } => {
                    eprintln!("player {}: {addr} disconnected", config.player);
                }
                _ => {}
            }
        }
        let now = Instant::now();
        if let Some(at) = finished_at
            && now >= at + config.linger
        {
            if let Some(frozen) = frozen {
                game.stats = PeerStats {
                    rtt_ms: last_rtt,
                    checksum: game.stats.checksum,
                    ..frozen
                };
            }
            return match desync {
                Some(report) => Err(PeerError::Desync(report)),
                None => Ok(()),
            };
        }
        if now >= deadline {
            return Err(PeerError::TimedOut {
                confirmed: session.confirmed_frame(),
            });
        }
        if session.current_state() != SessionState::Running {
            last = now;
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        // The GGRS examples' pacing: a peer ahead of the others runs its frames a tenth slower.
        accumulated = (accumulated + (now - last)).min(FRAME * 4);
        last = now;
        let frame_time = if session.frames_ahead() > 0 {
            FRAME * 11 / 10
        } else {
            FRAME
        };
        while accumulated >= frame_time {
            accumulated -= frame_time;
            let frame = u32::try_from(session.current_frame()).unwrap_or(0);
            let input = game::bot_input(config.seed, config.player, frame);
            session
                .add_local_input(config.player, input)
                .map_err(|e| PeerError::Setup(e.to_string()))?;
            match session.advance_frame() {
                Ok(requests) => game.fulfil(requests).map_err(PeerError::Setup)?,
                Err(GgrsError::PredictionThreshold) => {
                    game.stats.stalls += 1;
                    continue;
                }
                Err(e) => return Err(PeerError::Setup(e.to_string())),
            }
            let confirmed = session.confirmed_frame();
            // The frame just simulated is `current_frame() - 1`; its inputs after `confirmed`
            // were predicted (at most the prediction window, 8).
            game.stats.max_prediction = game
                .stats
                .max_prediction
                .max(session.current_frame() - 1 - confirmed);
            if finished_at.is_none() && confirmed >= game.target {
                game.stats.checksum = game.target_checksum;
                finished_at = Some(Instant::now());
                frozen = Some(game.stats.clone());
            }
        }
        let rtt: Vec<u128> = session
            .remote_player_handles()
            .into_iter()
            .filter_map(|h| session.network_stats(h).ok().map(|s| s.ping))
            .collect();
        if !rtt.is_empty() {
            last_rtt = rtt;
        }
        game.stats.rtt_ms.clone_from(&last_rtt);
        std::thread::sleep(Duration::from_millis(1));
    }
}
