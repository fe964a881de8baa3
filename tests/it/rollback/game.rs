//! A small two-player game on rota, and the harness that runs it under GGRS's
//! `SyncTestSession`: GGRS asks the game to save its state (`World::snapshot`, with
//! `World::full_checksum` as the checksum), to load an earlier state (`World::restore`) and to
//! advance a frame (`Schedule::run` with the frame's inputs), rolls back `check_distance` frames
//! on every frame, re-simulates, and reports any frame whose checksum differs between runs.
//!
//! Shared by `examples/rollback.rs` (the proof: many frames, 1 and N threads, zero mismatches)
//! and `tests/it/rollback/mod.rs` (the same harness, plus a planted nondeterminism it must
//! catch — so the proof can fail).
//!
//! The game: each player steers a ship (inputs: 4 direction bits and a fire bit) and fires
//! projectiles; drones spawn at random edges (an RNG kept as a resource) and chase the nearest
//! ship; projectiles kill drones (score), drones wear ships down, a ship at zero health
//! respawns. Positions are fixed-point integers. Entities are spawned and despawned every few
//! frames through command buffers, so slot reuse, generations and the free list are exercised
//! by every rollback.

#![allow(dead_code)] // the example and the test use different parts

use std::sync::atomic::{AtomicU64, Ordering};

use ggrs::{GgrsError, GgrsRequest, PlayerType, SessionBuilder};
use rota::{
    ChecksumError, Commands, Component, Entity, ParallelQuery, Query, Res, ResMut, Resource,
    Schedule, ScheduleError, SnapshotError, StableHash, With, World, system,
};

/// Fixed-point scale: 256 units per cell.
const ONE: i32 = 256;
/// The arena spans `-HALF..=HALF` on both axes.
const HALF: i32 = 64 * ONE;

pub const UP: u8 = 1;
pub const DOWN: u8 = 2;
pub const LEFT: u8 = 4;
pub const RIGHT: u8 = 8;
pub const FIRE: u8 = 16;

// ---------------------------------------------------------------------------------------------
// Components and resources: every one `Clone` (snapshots) and `StableHash` (full_checksum).

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Ship {
    pub player: u8,
    pub cooldown: u8,
}

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Position {
    pub x: i32,
    pub y: i32,
}

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Velocity {
    pub x: i32,
    pub y: i32,
}

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Health(pub i32);

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Projectile {
    pub owner: u8,
}

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Lifetime(pub u32);

/// A drone and the ship it last chased (a handle: restored with its generation).
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Drone {
    pub target: Option<Entity>,
}

/// This frame's inputs, one byte per player (set from GGRS's inputs before each frame).
#[derive(Resource, StableHash, Clone, Debug, Default, PartialEq)]
pub struct Inputs(pub [u8; 2]);

/// The game's random numbers (SplitMix64): state that must roll back with the world.
#[derive(Resource, StableHash, Clone, Debug, PartialEq)]
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Resource, StableHash, Clone, Debug, Default, PartialEq)]
pub struct Score(pub [u32; 2]);

// ---------------------------------------------------------------------------------------------
// Systems

#[system(reads(Inputs), writes(Ship, Velocity))]
fn steer(mut ships: Query<(&mut Ship, &mut Velocity)>, inputs: Res<Inputs>) {
    for (ship, v) in &mut ships {
        let input = inputs.0[usize::from(ship.player) % 2];
        let axis = |neg: u8, pos: u8| {
            i32::from(input & pos != 0) * (ONE / 2) - i32::from(input & neg != 0) * (ONE / 2)
        };
        v.x = axis(LEFT, RIGHT);
        v.y = axis(DOWN, UP);
        ship.cooldown = ship.cooldown.saturating_sub(1);
    }
}

#[system(
    reads(Inputs, Position, Velocity),
    writes(Ship),
    defers(Projectile, Position, Velocity, Lifetime),
    after(steer)
)]
fn fire(
    mut ships: Query<(&mut Ship, &Position, &Velocity)>,
    inputs: Res<Inputs>,
    mut commands: Commands,
) {
    for (ship, p, v) in &mut ships {
        let input = inputs.0[usize::from(ship.player) % 2];
        if input & FIRE == 0 || ship.cooldown > 0 {
            continue;
        }
        ship.cooldown = 4;
        // Fire along the ship's motion (or up when still), three times its speed.
        let (dx, dy) = if v.x == 0 && v.y == 0 {
            (0, ONE / 2)
        } else {
            (v.x, v.y)
        };
        commands.spawn((
            Projectile { owner: ship.player },
            *p,
            Velocity {
                x: dx * 3,
                y: dy * 3,
            },
            Lifetime(40),
        ));
    }
}

#[system(
    writes(Rng),
    defers(Drone, Position, Velocity, Health),
    every_ticks = 3
)]
fn spawn_drones(mut rng: ResMut<Rng>, mut commands: Commands) {
    for _ in 0..2 {
        let along = rng.below(2 * HALF as u64) as i32 - HALF;
        let position = match rng.below(4) {
            0 => Position { x: along, y: HALF },
            1 => Position { x: along, y: -HALF },
            2 => Position { x: HALF, y: along },
            _ => Position { x: -HALF, y: along },
        };
        let hp = 1 + rng.below(3) as i32;
        commands.spawn((
            Drone { target: None },
            position,
            Velocity { x: 0, y: 0 },
            Health(hp),
        ));
    }
}

#[system(reads(Ship, Position), writes(Drone, Velocity), after(steer))]
fn chase(
    ships: Query<(Entity, &Position), With<Ship>>,
    mut drones: Query<(&mut Drone, &Position, &mut Velocity)>,
) {
    let targets: Vec<(Entity, Position)> = ships.iter().map(|(e, p)| (e, *p)).collect();
    for (drone, p, v) in &mut drones {
        let nearest = targets
            .iter()
            .min_by_key(|(_, t)| i64::from((t.x - p.x).abs()) + i64::from((t.y - p.y).abs()));
        let Some(&(target, t)) = nearest else {
            drone.target = None;
            continue;
        };
        drone.target = Some(target);
        v.x = (t.x - p.x).signum() * (ONE / 5);
        v.y = (t.y - p.y).signum() * (ONE / 5);
    }
}

/// Moves everything, in parallel chunks on the schedule's threads.
#[system(reads(Velocity), writes(Position), after(chase, fire))]
fn movement(mut bodies: Query<(&mut Position, &Velocity)>) {
    bodies.par_for_each(|(p, v)| {
        p.x = (p.x + v.x).clamp(-HALF, HALF);
        p.y = (p.y + v.y).clamp(-HALF, HALF);
    });
}

#[system(writes(Lifetime), after(movement))]
fn expire(mut projectiles: Query<(Entity, &mut Lifetime)>, mut commands: Commands) {
    for (e, life) in &mut projectiles {
        life.0 = life.0.saturating_sub(1);
        if life.0 == 0 {
            commands.despawn(e);
        }
    }
}

#[system(
    reads(Projectile, Position, Ship),
    writes(Health, Score),
    after(movement)
)]
fn collide(
    projectiles: Query<(Entity, &Projectile, &Position)>,
    mut bodies: Query<(Entity, &Position, &mut Health, Option<&Ship>)>,
    mut score: ResMut<Score>,
    mut commands: Commands,
) {
    let shots: Vec<(Entity, u8, Position)> = projectiles
        .iter()
        .map(|(e, s, p)| (e, s.owner, *p))
        .collect();
    let mut spent = vec![false; shots.len()];
    let mut drones_left = Vec::new();
    // Drones (bodies without a ship) take hits; each shot hits at most one drone.
    for (e, p, hp, ship) in &mut bodies {
        if ship.is_some() {
            continue;
        }
        for (i, (_, owner, s)) in shots.iter().enumerate() {
            if !spent[i] && (s.x - p.x).abs() < ONE && (s.y - p.y).abs() < ONE {
                spent[i] = true;
                hp.0 -= 1;
                if hp.0 <= 0 {
                    score.0[usize::from(*owner) % 2] += 1;
                    commands.despawn(e);
                    break;
                }
            }
        }
        if hp.0 > 0 {
            drones_left.push(*p);
        }
    }
    for (i, (e, _, _)) in shots.iter().enumerate() {
        if spent[i] {
            commands.despawn(*e);
        }
    }
    // Ships lose one point per drone touching them.
    for (_, p, hp, ship) in &mut bodies {
        if ship.is_none() {
            continue;
        }
        let touching = drones_left
            .iter()
            .filter(|d| (d.x - p.x).abs() < 2 * ONE && (d.y - p.y).abs() < 2 * ONE)
            .count();
        hp.0 -= touching as i32;
    }
}

#[system(reads(Ship), writes(Health, Position), after(collide))]
fn respawn(mut ships: Query<(&mut Health, &mut Position), With<Ship>>) {
    for (hp, p) in &mut ships {
        if hp.0 <= 0 {
            hp.0 = 100;
            *p = Position { x: 0, y: 0 };
        }
    }
}

/// State outside the world: rollback cannot restore it.
static OUTSIDE_THE_WORLD: AtomicU64 = AtomicU64::new(0);

/// The planted nondeterminism: reads (and bumps) a counter that is not in the world, so a
/// re-simulated frame sees another value than the first simulation did.
#[system(writes(Score), after(respawn))]
fn planted_nondeterminism(mut score: ResMut<Score>) {
    let outside = OUTSIDE_THE_WORLD.fetch_add(1, Ordering::Relaxed);
    score.0[0] = score.0[0].wrapping_add((outside % 3) as u32);
}

// ---------------------------------------------------------------------------------------------
// Set-up

/// The game's systems on `threads` threads; with `plant`, the nondeterministic system too.
pub fn schedule(threads: usize, plant: bool) -> Result<Schedule, ScheduleError> {
    let mut builder = Schedule::builder()
        .add(steer)
        .add(fire)
        .add(spawn_drones)
        .add(chase)
        .add(movement)
        .add(expire)
        .add(collide)
        .add(respawn)
        .threads(threads);
    if plant {
        builder = builder.add(planted_nondeterminism);
    }
    builder.build()
}

/// Two ships and `drones` drones scattered by `seed`.
pub fn new_world(seed: u64, drones: usize) -> World {
    let mut world = World::new();
    let mut rng = Rng(seed);
    for player in 0..2u8 {
        world.spawn_with((
            Ship {
                player,
                cooldown: 0,
            },
            Position {
                x: (i32::from(player) * 2 - 1) * 8 * ONE,
                y: 0,
            },
            Velocity { x: 0, y: 0 },
            Health(100),
        ));
    }
    world.spawn_batch((0..drones).map(|_| {
        let x = rng.below(2 * HALF as u64) as i32 - HALF;
        let y = rng.below(2 * HALF as u64) as i32 - HALF;
        (
            Drone { target: None },
            Position { x, y },
            Velocity { x: 0, y: 0 },
            Health(1 + rng.below(3) as i32),
        )
    }));
    world.insert_resource(rng);
    world.insert_resource(Inputs::default());
    world.insert_resource(Score::default());
    world
}

/// Player `player`'s input on `frame`: a pure function of the seed, so a run is reproducible
/// (GGRS also keeps the inputs it was given and replays them on rollback).
pub fn input(seed: u64, player: usize, frame: u32) -> u8 {
    // Inputs change every 8 frames, like a held stick; fire about half the time.
    let mut rng = Rng(seed ^ ((player as u64) << 40) ^ u64::from(frame / 8));
    let held = (rng.next() & 0xF) as u8;
    let fire = if rng.next() & 1 == 1 { FIRE } else { 0 };
    // Never both directions of an axis.
    let held = if held & (UP | DOWN) == UP | DOWN {
        held & !DOWN
    } else {
        held
    };
    let held = if held & (LEFT | RIGHT) == LEFT | RIGHT {
        held & !RIGHT
    } else {
        held
    };
    held | fire
}

// ---------------------------------------------------------------------------------------------
// The GGRS harness

/// GGRS's compile-time configuration: 2 players' `u8` inputs, world snapshots as the state.
pub struct GgrsConfig;

impl ggrs::Config for GgrsConfig {
    type Input = u8;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = rota::Snapshot;
    type Address = std::net::SocketAddr;
}

/// One sync-test run.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub frames: u32,
    pub threads: usize,
    pub check_distance: usize,
    pub seed: u64,
    pub drones: usize,
    pub plant_nondeterminism: bool,
}

/// What a run did.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Frames confirmed (GGRS's current frame at the end).
    pub frames: i32,
    /// Save, load and advance requests fulfilled.
    pub saves: u64,
    pub loads: u64,
    pub advances: u64,
    /// `full_checksum` of the final world, and its entity count.
    pub checksum: u64,
    pub entities: usize,
    pub score: [u32; 2],
}

/// Why a run failed.
#[derive(Debug)]
pub enum RunError {
    /// GGRS re-simulated frames and got other checksums: the simulation is not deterministic.
    Mismatch {
        current_frame: i32,
        mismatched_frames: Vec<i32>,
    },
    Ggrs(GgrsError),
    Schedule(ScheduleError),
    Snapshot(SnapshotError),
    Checksum(ChecksumError),
    /// GGRS asked to save or load a frame other than the world's tick.
    FrameOutOfStep {
        requested: i32,
        tick: u64,
    },
    /// GGRS asked to load a cell it never had saved.
    EmptyCell {
        frame: i32,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Mismatch {
                current_frame,
                mismatched_frames,
            } => write!(
                f,
                "GGRS found a checksum mismatch at frame {current_frame}: frames \
                 {mismatched_frames:?} re-simulated to another state"
            ),
            RunError::Ggrs(e) => write!(f, "GGRS: {e}"),
            RunError::Schedule(e) => write!(f, "schedule: {e}"),
            RunError::Snapshot(e) => write!(f, "snapshot: {e}"),
            RunError::Checksum(e) => write!(f, "checksum: {e}"),
            RunError::FrameOutOfStep { requested, tick } => {
                write!(
                    f,
                    "GGRS asked for frame {requested} but the world is at tick {tick}"
                )
            }
            RunError::EmptyCell { frame } => {
                write!(f, "GGRS asked to load frame {frame}, never saved")
            }
        }
    }
}

impl std::error::Error for RunError {}

fn in_step(frame: i32, world: &World) -> Result<(), RunError> {
    if u64::try_from(frame).ok() == Some(world.tick()) {
        Ok(())
    } else {
        Err(RunError::FrameOutOfStep {
            requested: frame,
            tick: world.tick(),
        })
    }
}

/// Runs the game for `config.frames` frames under `SyncTestSession`.
///
/// # Errors
///
/// [`RunError::Mismatch`] when GGRS reports frames whose re-simulation gave another checksum;
/// the other variants for a harness failure.
pub fn run_sync_test(config: &RunConfig) -> Result<Outcome, RunError> {
    let mut schedule =
        schedule(config.threads, config.plant_nondeterminism).map_err(RunError::Schedule)?;
    let mut world = new_world(config.seed, config.drones);
    let mut session = SessionBuilder::<GgrsConfig>::new()
        .with_num_players(2)
        .and_then(|b| b.add_player(PlayerType::Local, 0))
        .and_then(|b| b.add_player(PlayerType::Local, 1))
        .map(|b| {
            b.with_max_prediction_window(config.check_distance + 1)
                .with_check_distance(config.check_distance)
        })
        .and_then(|b| b.start_synctest_session())
        .map_err(RunError::Ggrs)?;
    let (mut saves, mut loads, mut advances) = (0, 0, 0);
    for frame in 0..config.frames {
        for player in 0..2 {
            session
                .add_local_input(player, input(config.seed, player, frame))
                .map_err(RunError::Ggrs)?;
        }
        let requests = session.advance_frame().map_err(|e| match e {
            GgrsError::MismatchedChecksum {
                current_frame,
                mismatched_frames,
            } => RunError::Mismatch {
                current_frame,
                mismatched_frames,
            },
            other => RunError::Ggrs(other),
        })?;
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => {
                    in_step(frame, &world)?;
                    let checksum = world.full_checksum().map_err(RunError::Checksum)?;
                    let snapshot = world.snapshot().map_err(RunError::Snapshot)?;
                    cell.save(frame, Some(snapshot), Some(u128::from(checksum)));
                    saves += 1;
                }
                GgrsRequest::LoadGameState { cell, frame } => {
                    let snapshot = cell.data().ok_or(RunError::EmptyCell { frame })?;
                    world.restore(&snapshot);
                    in_step(frame, &world)?;
                    loads += 1;
                }
                GgrsRequest::AdvanceFrame { inputs } => {
                    let mut frame_inputs = [0u8; 2];
                    for (slot, (input, _status)) in frame_inputs.iter_mut().zip(&inputs) {
                        *slot = *input;
                    }
                    world.insert_resource(Inputs(frame_inputs));
                    schedule.run(&mut world);
                    advances += 1;
                }
            }
        }
    }
    Ok(Outcome {
        frames: session.current_frame(),
        saves,
        loads,
        advances,
        checksum: world.full_checksum().map_err(RunError::Checksum)?,
        entities: world.len(),
        score: world.resource::<Score>().map(|s| s.0).unwrap_or_default(),
    })
}
