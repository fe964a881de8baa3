//! The simulation: a deterministic predator/prey/grass world on a wrapping 2-D grid.
//!
//! Every promise of rota at work: systems declared with `#[system]` (the compiler holds them to
//! their declarations), ordered by `after`, strided by `every_ticks`, run in parallel where their
//! declarations allow, births and deaths through `Commands`, every random draw taken from a
//! seeded PRNG stored as a resource, a `Kill` event from `hunting` to `statistics`, births
//! counted with `Added<Age>` and the aging stride seen with `Changed<Age>` — and a world
//! checksum that is the same on 1 thread or N.

use rota::{
    Added, Changed, Commands, Component, Entity, Event, EventReader, EventWriter, Local, Query,
    Res, ResMut, Resource, Scene, Schedule, StableHash, StableHasher, With, World, system,
};

pub mod scene;

// ---------------------------------------------------------------------------------------------
// Components and resources
// ---------------------------------------------------------------------------------------------

// Every component can be saved in a scene (`--save-scene`): a stable key per type, a stable
// id per field (`sim/scene.rs`).

/// Where an animal is, in cells; the grid wraps around.
#[derive(Component, Scene, StableHash, Clone, Copy, Debug)]
#[scene(key = "ecosystem.Position")]
struct Position {
    #[scene(id = 1)]
    x: f32,
    #[scene(id = 2)]
    y: f32,
}

/// Cells per tick.
#[derive(Component, Scene, StableHash, Clone, Copy, Debug)]
#[scene(key = "ecosystem.Velocity")]
struct Velocity {
    #[scene(id = 1)]
    dx: f32,
    #[scene(id = 2)]
    dy: f32,
}

/// Food in the belly; at zero the animal dies.
#[derive(Component, Scene, StableHash, Clone, Copy, Debug)]
#[scene(key = "ecosystem.Energy")]
struct Energy(#[scene(id = 1)] f32);

/// Ticks lived.
#[derive(Component, Scene, StableHash, Clone, Copy, Debug)]
#[scene(key = "ecosystem.Age")]
struct Age(#[scene(id = 1)] u32);

/// Species tag: eats grass.
#[derive(Component, Scene, StableHash, Clone, Copy, Debug)]
#[scene(key = "ecosystem.Prey")]
struct Prey;

/// Species tag: eats prey.
#[derive(Component, Scene, StableHash, Clone, Copy, Debug)]
#[scene(key = "ecosystem.Predator")]
struct Predator;

/// The world's side length in cells and per-cell grass.
#[derive(Resource, Clone)]
struct Field {
    side: usize,
    grass: Vec<f32>,
}

impl Field {
    fn cell(&self, p: &Position) -> usize {
        let side = self.side;
        let x = (p.x as usize).min(side - 1);
        let y = (p.y as usize).min(side - 1);
        y * side + x
    }
}

/// Prey per cell, rebuilt every tick (spatial buckets for hunting), as one array sorted by cell
/// (a counting sort): cell `c` holds `entities[start[c]..start[c] + len[c]]`.
#[derive(Resource, Clone, Default)]
struct PreyGrid {
    start: Vec<u32>,
    len: Vec<u32>,
    entities: Vec<Entity>,
}

impl PreyGrid {
    /// Takes the last prey of `cell` (the highest slot), if any.
    fn pop(&mut self, cell: usize) -> Option<Entity> {
        let len = self.len[cell];
        if len == 0 {
            return None;
        }
        self.len[cell] = len - 1;
        Some(self.entities[(self.start[cell] + len - 1) as usize])
    }
}

/// xorshift64*: a tiny portable PRNG. Stored as a resource, so every draw is world state and
/// systems that draw are serialized by their declared `writes(Rng)`.
#[derive(Resource, Clone)]
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn velocity(&mut self, speed: f32) -> Velocity {
        Velocity {
            dx: (self.unit() * 2.0 - 1.0) * speed,
            dy: (self.unit() * 2.0 - 1.0) * speed,
        }
    }
}

/// One row of the population table: the state after `tick` ticks (tick 0: the initial world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    /// Ticks run so far.
    pub tick: u64,
    /// Live prey.
    pub prey: usize,
    /// Live predators.
    pub predators: usize,
    /// Grass summed over every cell.
    pub grass: f32,
    /// Prey caught this tick (`Kill` events received by `statistics`).
    pub kills: usize,
    /// Distinct predators that caught prey this tick.
    pub hunters: usize,
    /// Animals born since the previous row (`Added<Age>` with `Age(0)`: a system's first run
    /// sees every component as added, so the initial animals, all older, are left out).
    pub births: usize,
    /// Animals whose age advanced since the previous row (`Changed<Age>`: the newborns, plus
    /// everyone on the ticks `aging` runs).
    pub aged: usize,
}

/// A predator caught a prey (sent by `hunting`, counted by `statistics`).
#[derive(Event, Clone, Copy, Debug)]
pub struct Kill {
    /// The hunter.
    pub predator: Entity,
    /// The prey, despawned at the end of the batch.
    pub prey: Entity,
}

/// Population history: the initial row, then one row per tick.
#[derive(Resource, Clone, Default)]
pub struct Stats {
    /// Oldest first; `rows[t].tick == t`.
    pub rows: Vec<Row>,
}

// Tuning. Energy is in "meals".
const GRASS_MAX: f32 = 4.0;
const GRASS_REGROWTH: f32 = 1.0; // per cell, every 5 ticks
const PREY_SPEED: f32 = 0.6;
const PREDATOR_SPEED: f32 = 0.9;
const PREY_BITE: f32 = 1.0;
const PREY_COST: f32 = 0.35;
const PREDATOR_COST: f32 = 0.4;
const CATCH_CHANCE: f32 = 0.3;
const PREDATOR_MEAL: f32 = 5.0;
const PREY_BIRTH: f32 = 8.0;
const PREDATOR_BIRTH: f32 = 20.0;
const PREY_MAX_AGE: u32 = 160;
const PREDATOR_MAX_AGE: u32 = 400;

// ---------------------------------------------------------------------------------------------
// Systems
// ---------------------------------------------------------------------------------------------

#[system(reads(Velocity, Field), writes(Position))]
fn movement(mut q: Query<(&mut Position, &Velocity)>, field: Res<Field>) {
    let side = field.side as f32;
    for (p, v) in &mut q {
        p.x = (p.x + v.dx).rem_euclid(side);
        p.y = (p.y + v.dy).rem_euclid(side);
    }
}

#[system(reads(Prey, Predator), writes(Velocity, Rng), every_ticks = 4)]
fn wander(mut q: Query<(&mut Velocity, Option<&Predator>)>, mut rng: ResMut<Rng>) {
    for (v, predator) in &mut q {
        let speed = if predator.is_some() {
            PREDATOR_SPEED
        } else {
            PREY_SPEED
        };
        *v = rng.velocity(speed);
    }
}

#[system(writes(Field), every_ticks = 5)]
fn grass_growth(mut field: ResMut<Field>) {
    for g in field.grass.iter_mut() {
        *g = (*g + GRASS_REGROWTH).min(GRASS_MAX);
    }
}

#[system(
    reads(Position, Prey),
    writes(Energy, Field),
    after(movement, grass_growth)
)]
fn grazing(mut q: Query<(&Position, &mut Energy), With<Prey>>, mut field: ResMut<Field>) {
    for (p, e) in &mut q {
        let cell = field.cell(p);
        let bite = field.grass[cell].min(PREY_BITE);
        field.grass[cell] -= bite;
        e.0 += bite;
    }
}

#[system(reads(Position, Prey, Field), writes(PreyGrid), after(movement))]
fn rebuild_grid(
    q: Query<(Entity, &Position), With<Prey>>,
    field: Res<Field>,
    mut grid: ResMut<PreyGrid>,
) {
    let cells = field.side * field.side;
    let grid = &mut *grid;
    grid.len.clear();
    grid.len.resize(cells, 0);
    for (_, p) in q.iter() {
        grid.len[field.cell(p)] += 1;
    }
    grid.start.clear();
    let mut total = 0u32;
    for &n in &grid.len {
        grid.start.push(total);
        total += n;
    }
    grid.entities.clear();
    grid.entities.resize(total as usize, Entity::from_bits(0));
    grid.len.fill(0);
    for (e, p) in q.iter() {
        let cell = field.cell(p);
        grid.entities[(grid.start[cell] + grid.len[cell]) as usize] = e;
        grid.len[cell] += 1;
    }
}

#[system(
    reads(Position, Predator, Field),
    writes(Energy, PreyGrid, Rng),
    sends(Kill),
    after(rebuild_grid, grazing)
)]
fn hunting(
    mut q: Query<(Entity, &Position, &mut Energy), With<Predator>>,
    field: Res<Field>,
    mut grid: ResMut<PreyGrid>,
    mut rng: ResMut<Rng>,
    mut commands: Commands,
    mut kills: EventWriter<Kill>,
) {
    for (predator, p, e) in &mut q {
        let cell = field.cell(p);
        if grid.len[cell] == 0 || rng.unit() >= CATCH_CHANCE {
            continue;
        }
        // Buckets hold prey in ascending slot order; a predator takes the last (highest slot).
        if let Some(victim) = grid.pop(cell) {
            e.0 += PREDATOR_MEAL;
            commands.despawn(victim);
            kills.send(Kill {
                predator,
                prey: victim,
            });
        }
    }
}

#[system(reads(Predator), writes(Energy), after(hunting))]
fn metabolism(mut q: Query<(&mut Energy, Option<&Predator>)>) {
    for (e, predator) in &mut q {
        e.0 -= if predator.is_some() {
            PREDATOR_COST
        } else {
            PREY_COST
        };
    }
}

/// Ages advance in strides of whole ticks: every 10th tick, by 10.
#[system(writes(Age), every_ticks = 10)]
fn aging(mut q: Query<&mut Age>) {
    for age in &mut q {
        age.0 += 10;
    }
}

#[system(
    writes(Energy, Rng, Position, Velocity, Age, Prey, Predator),
    after(metabolism)
)]
fn reproduction(
    mut q: Query<(&Position, &mut Energy, Option<&Predator>)>,
    mut rng: ResMut<Rng>,
    mut commands: Commands,
) {
    for (p, e, predator) in &mut q {
        let threshold = if predator.is_some() {
            PREDATOR_BIRTH
        } else {
            PREY_BIRTH
        };
        if e.0 < threshold {
            continue;
        }
        e.0 /= 2.0;
        let child = (*p, Energy(e.0), Age(0));
        if predator.is_some() {
            let v = rng.velocity(PREDATOR_SPEED);
            commands.spawn((child.0, v, child.1, child.2, Predator));
        } else {
            let v = rng.velocity(PREY_SPEED);
            commands.spawn((child.0, v, child.1, child.2, Prey));
        }
    }
}

#[system(reads(Energy, Age, Predator), after(reproduction, aging))]
fn death(q: Query<(Entity, &Energy, &Age, Option<&Predator>)>, mut commands: Commands) {
    for (entity, e, age, predator) in q.iter() {
        let max_age = if predator.is_some() {
            PREDATOR_MAX_AGE
        } else {
            PREY_MAX_AGE
        };
        if e.0 <= 0.0 || age.0 > max_age {
            commands.despawn(entity);
        }
    }
}

#[system(
    reads(Prey, Predator, Field, Age),
    writes(Stats),
    receives(Kill),
    after(death)
)]
fn statistics(
    prey: Query<Entity, With<Prey>>,
    predators: Query<Entity, With<Predator>>,
    born: Query<&Age, Added<Age>>,
    aged: Query<Entity, Changed<Age>>,
    field: Res<Field>,
    mut kills: EventReader<Kill>,
    mut stats: ResMut<Stats>,
    mut ticks_run: Local<u64>,
) {
    // Row 0 (the initial world) is written by `build_world`; this system runs at the end of a
    // tick, so its first row is tick 1.
    *ticks_run += 1;
    // Events arrive in sequence order: `hunting` walks predators in ascending slot order, so
    // one predator's kills are adjacent. Each prey is caught once.
    let mut hunters: Vec<Entity> = Vec::new();
    let mut caught: Vec<Entity> = Vec::new();
    for kill in kills.read() {
        if hunters.last() != Some(&kill.predator) {
            hunters.push(kill.predator);
        }
        caught.push(kill.prey);
    }
    stats.rows.push(Row {
        tick: *ticks_run,
        prey: prey.iter().count(),
        predators: predators.iter().count(),
        grass: field.grass.iter().sum(),
        kills: caught.len(),
        hunters: hunters.len(),
        births: born.iter().filter(|a| a.0 == 0).count(),
        aged: aged.iter().count(),
    });
}

// ---------------------------------------------------------------------------------------------
// Setup, running, checksums
// ---------------------------------------------------------------------------------------------

/// A world of `size` animals (one in ten a predator) placed by the PRNG seeded with `seed`, with
/// its resources and the tick-0 row of the population table.
pub fn build_world(size: usize, seed: u64) -> World {
    let side = ((size as f64).sqrt().ceil() as usize).max(4);
    let mut world = World::new();
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let predators = size / 10;
    let mut animals = Vec::with_capacity(size);
    for i in 0..size {
        let p = Position {
            x: rng.unit() * side as f32,
            y: rng.unit() * side as f32,
        };
        // At least 1: `Age(0)` marks a newborn (see `statistics`).
        let age = Age(1 + (rng.next_u64() % 50) as u32);
        animals.push((p, i < predators, age));
    }
    let (preds, prey): (Vec<_>, Vec<_>) = animals.into_iter().partition(|a| a.1);
    let mut velocities: Vec<Velocity> = Vec::new();
    for _ in 0..size {
        velocities.push(rng.velocity(PREY_SPEED));
    }
    let (prey_count, predator_count) = (prey.len(), preds.len());
    let mut v = velocities.into_iter();
    world.spawn_batch(prey.into_iter().map(|(p, _, age)| {
        (
            p,
            v.next().expect("one velocity per animal"),
            Energy(4.0),
            age,
            Prey,
        )
    }));
    world.spawn_batch(preds.into_iter().map(|(p, _, age)| {
        (
            p,
            v.next().expect("one velocity per animal"),
            Energy(12.0),
            age,
            Predator,
        )
    }));
    let grass = vec![GRASS_MAX / 2.0; side * side];
    let initial = Row {
        tick: 0,
        prey: prey_count,
        predators: predator_count,
        grass: grass.iter().sum(),
        kills: 0,
        hunters: 0,
        births: 0,
        aged: 0,
    };
    world.insert_resource(Field { side, grass });
    world.insert_resource(PreyGrid::default());
    world.insert_resource(rng);
    world.insert_resource(Stats {
        rows: vec![initial],
    });
    world
}

/// The demo's eleven systems on `threads` threads.
pub fn build_schedule(threads: usize) -> Result<Schedule, rota::ScheduleError> {
    Schedule::builder()
        .add(movement)
        .add(wander)
        .add(grass_growth)
        .add(grazing)
        .add(rebuild_grid)
        .add(hunting)
        .add(metabolism)
        .add(aging)
        .add(reproduction)
        .add(death)
        .add(statistics)
        .threads(threads)
        .build()
}

/// The world checksum plus the resources that are part of the simulation state.
pub fn checksum(world: &World) -> u64 {
    let mut h = StableHasher::new();
    use rota::StableHash as _;
    world
        .checksum::<(Position, Velocity, Energy, Age, Prey, Predator)>()
        .stable_hash(&mut h);
    if let Ok(field) = world.resource::<Field>() {
        field.grass.stable_hash(&mut h);
    }
    if let Ok(rng) = world.resource::<Rng>() {
        rng.0.stable_hash(&mut h);
    }
    h.finish()
}
