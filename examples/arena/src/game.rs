//! The arena game on rota: players steer and fire (inputs from GGRS), projectiles hit players
//! (`Hit` events), a shield rides on each player (a child entity, `ChildOf`) and absorbs shots,
//! health pickups and projectiles are spawned and despawned through `Commands` every few
//! frames, and asteroids drift and bounce (the world-size knob for `--capacity`).
//!
//! Everything that decides the next frame is in the world: positions are fixed-point
//! integers, the random numbers are a resource, and this frame's inputs are a resource set
//! before each `Schedule::run`. The one exception is deliberate: `planted_nondeterminism`
//! reads a counter outside the world (`--plant`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rota::{
    ChildOf, Commands, Component, Entity, Event, EventReader, EventWriter, ParallelQuery, Query,
    Res, ResMut, Resource, Schedule, ScheduleError, StableHash, With, World, system,
};
use serde::{Deserialize, Serialize};

/// The most players a match takes.
pub const MAX_PLAYERS: usize = 4;
/// Fixed-point scale: 256 units per cell.
const ONE: i32 = 256;
/// The arena spans `-HALF..=HALF` on both axes.
const HALF: i32 = 48 * ONE;

/// Input bits.
pub const UP: u8 = 1;
/// Input bits.
pub const DOWN: u8 = 2;
/// Input bits.
pub const LEFT: u8 = 4;
/// Input bits.
pub const RIGHT: u8 = 8;
/// Input bits.
pub const FIRE: u8 = 16;

/// One player's input for one frame: what GGRS sends over the network (one byte).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotInput {
    /// `UP | DOWN | LEFT | RIGHT | FIRE` bits.
    pub buttons: u8,
}

// ---------------------------------------------------------------------------------------------
// Components, resources, events: all `Clone` (snapshots) and `StableHash` (full_checksum).

/// A player's ship.
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Player {
    /// The GGRS player handle.
    pub id: u8,
    /// Frames until the next shot.
    pub cooldown: u8,
}

/// Where a body is (fixed point).
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Position {
    /// Horizontal.
    pub x: i32,
    /// Vertical.
    pub y: i32,
}

/// How far a body moves per frame (fixed point).
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Velocity {
    /// Horizontal.
    pub x: i32,
    /// Vertical.
    pub y: i32,
}

/// A player's health.
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Health(pub i32);

/// A shot, and who fired it.
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Projectile {
    /// The shooter's player id.
    pub owner: u8,
}

/// Frames until a projectile or pickup despawns.
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Lifetime(pub u32);

/// A shield orbiting its parent player (`ChildOf`); its place is the parent's plus an offset
/// from `angle`, so it moves with the player without a position of its own.
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Shield {
    /// Shots it still absorbs.
    pub charge: u8,
    /// One of 8 positions around the player; advances every frame.
    pub angle: u8,
}

/// A health pickup.
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Pickup;

/// A drifting rock: only moves and bounces (the world-size knob).
#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Asteroid;

/// A projectile hit a player.
#[derive(Event, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Who fired.
    pub shooter: u8,
    /// The player hit.
    pub target: Entity,
}

/// This frame's inputs (set from GGRS before each frame).
#[derive(Resource, StableHash, Clone, Debug, Default, PartialEq)]
pub struct Inputs(pub [u8; MAX_PLAYERS]);

/// Hits scored per player.
#[derive(Resource, StableHash, Clone, Debug, Default, PartialEq)]
pub struct Score(pub [u32; MAX_PLAYERS]);

/// The game's random numbers (SplitMix64): state that rolls back with the world.
#[derive(Resource, StableHash, Clone, Debug, PartialEq)]
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        splitmix_finish(self.0)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// SplitMix64's output function.
pub fn splitmix_finish(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

// ---------------------------------------------------------------------------------------------
// Systems

#[system(reads(Inputs), writes(Player, Velocity))]
fn steer(mut players: Query<(&mut Player, &mut Velocity)>, inputs: Res<Inputs>) {
    for (player, v) in &mut players {
        let input = inputs.0[usize::from(player.id) % MAX_PLAYERS];
        let axis = |neg: u8, pos: u8| {
            i32::from(input & pos != 0) * (ONE / 2) - i32::from(input & neg != 0) * (ONE / 2)
        };
        v.x = axis(LEFT, RIGHT);
        v.y = axis(DOWN, UP);
        player.cooldown = player.cooldown.saturating_sub(1);
    }
}

#[system(
    reads(Inputs, Position, Velocity),
    writes(Player),
    defers(Projectile, Position, Velocity, Lifetime),
    after(steer)
)]
fn fire(
    mut players: Query<(&mut Player, &Position, &Velocity)>,
    inputs: Res<Inputs>,
    mut commands: Commands,
) {
    for (player, p, v) in &mut players {
        let input = inputs.0[usize::from(player.id) % MAX_PLAYERS];
        if input & FIRE == 0 || player.cooldown > 0 {
            continue;
        }
        player.cooldown = 6;
        let (dx, dy) = if v.x == 0 && v.y == 0 {
            (0, ONE / 2)
        } else {
            (v.x, v.y)
        };
        commands.spawn((
            Projectile { owner: player.id },
            *p,
            Velocity {
                x: dx * 3,
                y: dy * 3,
            },
            Lifetime(30),
        ));
    }
}

#[system(writes(Rng), defers(Pickup, Position, Lifetime), every_ticks = 10)]
fn spawn_pickups(mut rng: ResMut<Rng>, mut commands: Commands) {
    let x = rng.below(2 * HALF as u64) as i32 - HALF;
    let y = rng.below(2 * HALF as u64) as i32 - HALF;
    commands.spawn((Pickup, Position { x, y }, Lifetime(120)));
}

/// Moves every body, in parallel chunks on the schedule's threads.
#[system(reads(Velocity), writes(Position), after(fire))]
fn movement(mut bodies: Query<(&mut Position, &Velocity)>) {
    bodies.par_for_each(|(p, v)| {
        p.x = (p.x + v.x).clamp(-HALF, HALF);
        p.y = (p.y + v.y).clamp(-HALF, HALF);
    });
}

/// Asteroids at a wall turn back.
#[system(reads(Asteroid, Position), writes(Velocity), after(movement))]
fn bounce(mut rocks: Query<(&Position, &mut Velocity), With<Asteroid>>) {
    rocks.par_for_each(|(p, v)| {
        if p.x.abs() >= HALF {
            v.x = -p.x.signum() * v.x.abs();
        }
        if p.y.abs() >= HALF {
            v.y = -p.y.signum() * v.y.abs();
        }
    });
}

#[system(writes(Shield))]
fn orbit_shields(mut shields: Query<&mut Shield>) {
    for shield in &mut shields {
        shield.angle = (shield.angle + 1) % 8;
    }
}

#[system(writes(Lifetime), after(movement))]
fn expire(mut timed: Query<(Entity, &mut Lifetime)>, mut commands: Commands) {
    for (e, life) in &mut timed {
        life.0 = life.0.saturating_sub(1);
        if life.0 == 0 {
            commands.despawn(e);
        }
    }
}

/// A shield's offset from its player at `angle`.
fn orbit_offset(angle: u8) -> (i32, i32) {
    const RING: [(i32, i32); 8] = [
        (2, 0),
        (1, 1),
        (0, 2),
        (-1, 1),
        (-2, 0),
        (-1, -1),
        (0, -2),
        (1, -1),
    ];
    let (x, y) = RING[usize::from(angle % 8)];
    (x * ONE, y * ONE)
}

fn near(a: Position, b: Position, reach: i32) -> bool {
    (a.x - b.x).abs() < reach && (a.y - b.y).abs() < reach
}

/// Shots against shields first (a shield absorbs a shot and breaks after `charge` of them),
/// then against players (a `Hit` event). Nobody hits themselves.
#[system(
    reads(Projectile, Position, Player, ChildOf),
    writes(Shield),
    sends(Hit),
    after(movement, orbit_shields)
)]
fn collide(
    shots: Query<(Entity, &Projectile, &Position)>,
    players: Query<(Entity, &Player, &Position)>,
    mut shields: Query<(Entity, &ChildOf, &mut Shield)>,
    mut hits: EventWriter<Hit>,
    mut commands: Commands,
) {
    let shots: Vec<(Entity, u8, Position)> =
        shots.iter().map(|(e, s, p)| (e, s.owner, *p)).collect();
    let players: Vec<(Entity, u8, Position)> =
        players.iter().map(|(e, pl, p)| (e, pl.id, *p)).collect();
    let mut spent = vec![false; shots.len()];
    for (shield_entity, child_of, shield) in &mut shields {
        let Some(&(_, holder, centre)) = players.iter().find(|(e, _, _)| *e == child_of.parent())
        else {
            continue;
        };
        let (dx, dy) = orbit_offset(shield.angle);
        let at = Position {
            x: centre.x + dx,
            y: centre.y + dy,
        };
        for (i, &(_, owner, p)) in shots.iter().enumerate() {
            if !spent[i] && owner != holder && shield.charge > 0 && near(p, at, ONE) {
                spent[i] = true;
                shield.charge -= 1;
                if shield.charge == 0 {
                    commands.despawn(shield_entity);
                }
            }
        }
    }
    for (i, &(shot, owner, p)) in shots.iter().enumerate() {
        if !spent[i]
            && let Some(&(target, _, _)) = players
                .iter()
                .find(|&&(_, id, at)| id != owner && near(p, at, ONE))
        {
            spent[i] = true;
            hits.send(Hit {
                shooter: owner,
                target,
            });
        }
        if spent[i] {
            commands.despawn(shot);
        }
    }
}

#[system(receives(Hit), writes(Health, Score), after(collide))]
fn apply_hits(
    mut hits: EventReader<Hit>,
    mut health: Query<&mut Health>,
    mut score: ResMut<Score>,
) {
    for hit in hits.read() {
        if let Ok(hp) = health.get_mut(hit.target) {
            hp.0 -= 10;
            score.0[usize::from(hit.shooter) % MAX_PLAYERS] += 1;
        }
    }
}

#[system(
    reads(Pickup, Position, Player),
    writes(Health),
    after(apply_hits, movement)
)]
fn collect_pickups(
    pickups: Query<(Entity, &Position), With<Pickup>>,
    mut players: Query<(&Position, &mut Health), With<Player>>,
    mut commands: Commands,
) {
    let pickups: Vec<(Entity, Position)> = pickups.iter().map(|(e, p)| (e, *p)).collect();
    let mut taken = vec![false; pickups.len()];
    for (p, hp) in &mut players {
        for (i, &(pickup, at)) in pickups.iter().enumerate() {
            if !taken[i] && near(*p, at, 2 * ONE) {
                taken[i] = true;
                hp.0 = (hp.0 + 20).min(100);
                commands.despawn(pickup);
            }
        }
    }
}

#[system(reads(Player), writes(Health, Position), after(collect_pickups))]
fn respawn(mut players: Query<(&Player, &mut Health, &mut Position)>) {
    for (player, hp, p) in &mut players {
        if hp.0 <= 0 {
            hp.0 = 100;
            *p = start_position(player.id);
        }
    }
}

/// Every 20 frames a player without a shield gets a new one, attached as its child.
#[system(
    reads(Player, ChildOf, Shield),
    defers(Shield, ChildOf),
    every_ticks = 20
)]
fn regrow_shields(
    players: Query<Entity, With<Player>>,
    shields: Query<&ChildOf, With<Shield>>,
    mut commands: Commands,
) {
    let shielded: Vec<Entity> = shields.iter().map(ChildOf::parent).collect();
    for player in &players {
        if !shielded.contains(&player) {
            let shield = commands.spawn((Shield {
                charge: 3,
                angle: 0,
            },));
            commands.set_parent(shield, player);
        }
    }
}

/// State outside the world: rollback cannot restore it, and the other peers do not share it.
static OUTSIDE_THE_WORLD: AtomicU64 = AtomicU64::new(0);

/// Whether this process plants the nondeterminism (`--plant`): also state outside the world.
static PLANTED: AtomicBool = AtomicBool::new(false);

/// The planted nondeterminism: on a peer run with `--plant`, reads and bumps a per-process
/// counter, so this peer's `Score` drifts from the others' (and a re-simulated frame from its
/// first simulation). Every peer runs it (a no-op elsewhere), so every peer runs the same
/// schedule and only the state it writes can differ — as in a real desync, where a desync
/// report should name that state alone.
#[system(writes(Score), after(respawn))]
fn planted_nondeterminism(mut score: ResMut<Score>) {
    if !PLANTED.load(Ordering::Relaxed) {
        return;
    }
    let outside = OUTSIDE_THE_WORLD.fetch_add(1, Ordering::Relaxed);
    score.0[0] = score.0[0].wrapping_add(1 + (outside % 3) as u32);
}

// ---------------------------------------------------------------------------------------------
// Set-up

/// The game's systems on `threads` threads; with `plant`, this process's
/// `planted_nondeterminism` drifts.
///
/// # Errors
///
/// A [`ScheduleError`] if the schedule does not build (it does; the declarations are checked
/// at compile time, the plan at build time).
pub fn schedule(threads: usize, plant: bool) -> Result<Schedule, ScheduleError> {
    let builder = Schedule::builder()
        .add(steer)
        .add(fire)
        .add(spawn_pickups)
        .add(movement)
        .add(bounce)
        .add(orbit_shields)
        .add(expire)
        .add(collide)
        .add(apply_hits)
        .add(collect_pickups)
        .add(respawn)
        .add(regrow_shields)
        .add(planted_nondeterminism)
        .threads(threads);
    PLANTED.store(plant, Ordering::Relaxed);
    builder.build()
}

fn start_position(id: u8) -> Position {
    let corner = |bit: u8| if id & bit == 0 { -HALF / 2 } else { HALF / 2 };
    Position {
        x: corner(1),
        y: corner(2),
    }
}

/// `players` players, each with a shield, and `asteroids` asteroids scattered by `seed`.
pub fn new_world(players: usize, asteroids: usize, seed: u64) -> World {
    let mut world = World::new();
    let mut rng = Rng(seed);
    for id in 0..players.min(MAX_PLAYERS) as u8 {
        let player = world.spawn_with((
            Player { id, cooldown: 0 },
            start_position(id),
            Velocity { x: 0, y: 0 },
            Health(100),
        ));
        let shield = world.spawn_with((Shield {
            charge: 3,
            angle: id * 2,
        },));
        world
            .set_parent(shield, player)
            .expect("both were just spawned");
    }
    world.spawn_batch((0..asteroids).map(|_| {
        let mut coordinate = || rng.below(2 * HALF as u64) as i32 - HALF;
        let (x, y) = (coordinate(), coordinate());
        let mut speed = || rng.below(ONE as u64 / 2) as i32 - ONE / 4;
        let (vx, vy) = (speed(), speed());
        (Asteroid, Position { x, y }, Velocity { x: vx, y: vy })
    }));
    world.insert_resource(rng);
    world.insert_resource(Inputs::default());
    world.insert_resource(Score::default());
    world
}

/// The seeded bot: player `player`'s input on `frame`, a pure function of its arguments.
/// Inputs are held for 6 frames (like a stick), so GGRS's repeat-last prediction is right
/// most of the time and wrong at each change: a rollback.
pub fn bot_input(seed: u64, player: usize, frame: u32) -> BotInput {
    let z = splitmix_finish(seed ^ ((player as u64) << 48) ^ u64::from(frame / 6));
    let mut buttons = (z & 0xF) as u8;
    if buttons & (UP | DOWN) == UP | DOWN {
        buttons &= !DOWN;
    }
    if buttons & (LEFT | RIGHT) == LEFT | RIGHT {
        buttons &= !RIGHT;
    }
    if (z >> 8) & 3 != 0 {
        buttons |= FIRE;
    }
    BotInput { buttons }
}
