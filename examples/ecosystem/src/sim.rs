//! The simulation: a deterministic predator/prey/grass world on a wrapping 2-D grid.
//!
//! Every promise of rota at work: systems declared with `#[system]` (the compiler holds them to
//! their declarations), ordered by `after`, strided by `every_ticks`, gated by a run condition
//! (no grass grows in winter: `#[condition]`, `run_if`), run in parallel where their
//! declarations allow and inside the long loops (`par_for_each`), births and deaths through
//! `Commands`, every random draw keyed by (seed, entity, tick) so that no generator is shared,
//! a `Kill` event from `hunting` to `statistics`, births
//! counted with `Added<Age>` and the aging stride seen with `Changed<Age>` — and a world
//! checksum that is the same on 1 thread or N.

use rota::{
    Added, Changed, Commands, Component, Entity, Event, EventReader, EventWriter, Local,
    ParallelQuery, Query, Res, ResMut, Resource, Scene, Schedule, StableHash, StableHasher, With,
    World, condition, system,
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

/// The world's side length in cells (read-only after setup, so every system may read it at once).
#[derive(Resource, Clone)]
struct Grid {
    side: usize,
}

impl Grid {
    fn cell(&self, p: &Position) -> usize {
        let side = self.side;
        let x = (p.x as usize).min(side - 1);
        let y = (p.y as usize).min(side - 1);
        y * side + x
    }
}

/// Grass per cell (`Grid::cell` indexes it). Kept apart from `Grid` so that systems which only
/// need the side do not conflict with the two that change the grass.
#[derive(Resource, Clone)]
struct Grass(Vec<f32>);

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

/// Prey caught this tick, in the order they were caught; `life` despawns them with the dead.
#[derive(Resource, Clone, Default)]
struct Caught(Vec<Entity>);

/// Which predators caught a prey this tick, by slot (`hunting` writes it, `metabolism` feeds
/// them): a table, so the parallel walk that feeds them looks each one up in O(1).
#[derive(Resource, Clone, Default)]
struct Meals(Vec<bool>);

impl Meals {
    fn fed(&self, predator: Entity) -> bool {
        self.0.get(predator.slot() as usize) == Some(&true)
    }
}

/// The seed of every random draw (read-only).
#[derive(Resource, Clone, Copy)]
struct Seed(u64);

/// Ticks run so far, advanced by the last system of each tick: the `tick` of every draw key.
#[derive(Resource, Clone, Copy, Default)]
struct Clock(u64);

/// What a draw is for: part of its key, so two draws for one entity on one tick differ.
#[derive(Clone, Copy)]
enum Purpose {
    Wander = 1,
    Hunt = 2,
    Birth = 3,
}

/// Random draws keyed by `(seed, entity, tick, purpose)`: a counter-based generator (SplitMix64
/// over a hash of the key). A draw depends on its key alone — not on which draws came before,
/// nor on the thread — so systems need no shared generator (which would serialize them) and
/// `par_for_each` can draw per entity in any order with the same result.
struct Draws(u64);

/// SplitMix64's finalizer: a bijective 64-bit mix.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Draws {
    fn new(seed: Seed, entity: Entity, clock: Clock, purpose: Purpose) -> Draws {
        Draws(mix(
            mix(mix(seed.0 ^ purpose as u64) ^ entity.to_bits()) ^ clock.0
        ))
    }
}

/// What the demo draws from a generator: built on the generator's next 64 bits.
trait Random {
    fn next_u64(&mut self) -> u64;
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

impl Random for Draws {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
}

/// xorshift64*: a tiny sequential PRNG, used only to place the initial animals.
struct Rng(u64);

impl Random for Rng {
    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
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
    /// The prey, despawned with the tick's other deaths when `life`'s commands apply.
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

// Every system whose loop is long splits it with `par_for_each` (its closure sees one animal
// at a time, so how the walk is cut cannot show) or, where it gathers results,
// `par_map_segments` (segments cut at the same slots on any thread count, results in segment
// order); the ones that share one structure between entities (the grass, the prey buckets)
// stay sequential and are kept short. A segment's result lists are made with room to spare:
// allocating inside parallel closures is what scales worst (see `Fates::with_room`). All births and deaths of a tick are
// one batch of commands, at the end of `life`: structural changes cost a pass over each store,
// so the tick pays that once, not once per system that despawns.

#[system(reads(Predator, Seed, Clock), writes(Velocity), every_ticks = 4)]
fn wander(
    mut q: Query<(Entity, &mut Velocity, Option<&Predator>)>,
    seed: Res<Seed>,
    clock: Res<Clock>,
) {
    let (seed, clock) = (*seed, *clock);
    q.par_for_each(|(entity, v, predator)| {
        let speed = if predator.is_some() {
            PREDATOR_SPEED
        } else {
            PREY_SPEED
        };
        *v = Draws::new(seed, entity, clock, Purpose::Wander).velocity(speed);
    });
}

#[system(reads(Velocity, Grid), writes(Position), after(wander))]
fn movement(mut q: Query<(&mut Position, &Velocity)>, grid: Res<Grid>) {
    let side = grid.side as f32;
    q.par_for_each(|(p, v)| {
        p.x = (p.x + v.dx).rem_euclid(side);
        p.y = (p.y + v.dy).rem_euclid(side);
    });
}

/// Ticks per season; a year is four of them, winter the last.
const SEASON_TICKS: u64 = 5;

/// Whether the draw clock is outside winter (the last of the four seasons of a year).
#[condition(reads(Clock))]
fn not_winter(clock: Res<Clock>) -> bool {
    (clock.0 / SEASON_TICKS) % 4 != 3
}

#[system(writes(Grass), every_ticks = 5, run_if(not_winter))]
fn grass_growth(mut grass: ResMut<Grass>) {
    for g in grass.0.iter_mut() {
        *g = (*g + GRASS_REGROWTH).min(GRASS_MAX);
    }
}

/// Prey share the grass of their cell in ascending slot order, so this loop stays sequential.
#[system(
    reads(Position, Prey, Grid),
    writes(Energy, Grass),
    after(movement, grass_growth)
)]
fn grazing(
    mut q: Query<(&Position, &mut Energy), With<Prey>>,
    grid: Res<Grid>,
    mut grass: ResMut<Grass>,
) {
    for (p, e) in &mut q {
        let cell = grid.cell(p);
        let bite = grass.0[cell].min(PREY_BITE);
        grass.0[cell] -= bite;
        e.0 += bite;
    }
}

/// Runs beside `grazing` (they share only reads). The cells are found in parallel segments
/// (`par_map_segments`: each thread joins its own stretch of slots) and come back in segment
/// order (ascending slot); the counting sort that follows is sequential.
#[system(reads(Position, Prey, Grid), writes(PreyGrid), after(movement))]
fn rebuild_grid(
    mut q: Query<(Entity, &Position), With<Prey>>,
    grid: Res<Grid>,
    mut buckets: ResMut<PreyGrid>,
) {
    let grid = &*grid;
    let segments: Vec<Vec<(u32, Entity)>> =
        q.par_map_segments(|segment| segment.map(|(e, p)| (grid.cell(p) as u32, e)).collect());
    let prey = || {
        segments
            .iter()
            .flatten()
            .map(|&(cell, e)| (cell as usize, e))
    };
    let cells = grid.side * grid.side;
    let buckets = &mut *buckets;
    buckets.len.clear();
    buckets.len.resize(cells, 0);
    for (cell, _) in prey() {
        buckets.len[cell] += 1;
    }
    buckets.start.clear();
    let mut total = 0u32;
    for &n in &buckets.len {
        buckets.start.push(total);
        total += n;
    }
    buckets.entities.clear();
    buckets
        .entities
        .resize(total as usize, Entity::from_bits(0));
    buckets.len.fill(0);
    for (cell, e) in prey() {
        buckets.entities[(buckets.start[cell] + buckets.len[cell]) as usize] = e;
        buckets.len[cell] += 1;
    }
}

/// Predators hunt in ascending slot order: each takes the highest-slot prey left in its cell,
/// so who catches whom depends on who went first. The draws and the cell lookups do not, and
/// a cell empty before the hunt stays empty: those run in parallel segments (predators are
/// scattered among the animals, so each thread joins its own stretch of slots), and only the
/// predators that may catch something take their turn, in order, afterwards. A predator that
/// catches is fed by `metabolism`, in its parallel walk.
#[system(
    reads(Position, Predator, Grid, Seed, Clock),
    writes(PreyGrid, Caught, Meals),
    sends(Kill),
    after(rebuild_grid, grazing)
)]
fn hunting(
    mut q: Query<(Entity, &Position), With<Predator>>,
    grid: Res<Grid>,
    seed: Res<Seed>,
    clock: Res<Clock>,
    mut buckets: ResMut<PreyGrid>,
    mut caught: ResMut<Caught>,
    mut meals: ResMut<Meals>,
    mut kills: EventWriter<Kill>,
) {
    caught.0.clear();
    meals.0.clear();
    let (grid, seed, clock, occupied) = (&*grid, *seed, *clock, &buckets.len);
    let segments: Vec<Vec<(Entity, usize)>> = q.par_map_segments(|segment| {
        // Room for every predator of the segment: the list never grows (see `Fates`).
        let mut chances = Vec::with_capacity(segment.len());
        chances.extend(
            segment
                .map(|(predator, p)| (predator, grid.cell(p)))
                .filter(|&(predator, cell)| {
                    occupied[cell] > 0
                        && Draws::new(seed, predator, clock, Purpose::Hunt).unit() < CATCH_CHANCE
                }),
        );
        chances
    });
    for (predator, cell) in segments.into_iter().flatten() {
        // Buckets hold prey in ascending slot order; a predator takes the last (highest slot).
        let Some(victim) = buckets.pop(cell) else {
            continue;
        };
        let slot = predator.slot() as usize;
        if meals.0.len() <= slot {
            meals.0.resize(slot + 1, false);
        }
        meals.0[slot] = true;
        caught.0.push(victim);
        kills.send(Kill {
            predator,
            prey: victim,
        });
    }
}

/// Every animal burns energy; a predator that caught a prey this tick eats first.
#[system(reads(Predator, Meals), writes(Energy), after(hunting))]
fn metabolism(mut q: Query<(Entity, &mut Energy, Option<&Predator>)>, meals: Res<Meals>) {
    q.par_for_each(|(entity, e, predator)| {
        if predator.is_none() {
            e.0 -= PREY_COST;
            return;
        }
        if meals.fed(entity) {
            e.0 += PREDATOR_MEAL;
        }
        e.0 -= PREDATOR_COST;
    });
}

/// Ages advance in strides of whole ticks: every 10th tick, by 10.
#[system(writes(Age), every_ticks = 10)]
fn aging(mut q: Query<&mut Age>) {
    q.par_for_each(|age| age.0 += 10);
}

/// What one segment of `life`'s walk decided: who dies, who is born.
struct Fates {
    deaths: Vec<Entity>,
    prey_births: Vec<(Position, Velocity, Energy, Age, Prey)>,
    predator_births: Vec<(Position, Velocity, Energy, Age, Predator)>,
}

impl Fates {
    /// Empty lists with room for the fates of a segment of `animals`: a few percent of
    /// animals die or give birth each tick, so with room for an eighth the lists rarely grow.
    /// (Grown from empty, they `realloc` several times per segment; on two threads at once the
    /// walk then took 1.6–1.8× the CPU time it takes on one: docs/benchmarks.md, "Result lists made with room".)
    fn with_room(animals: usize) -> Fates {
        let room = animals / 8;
        Fates {
            deaths: Vec::with_capacity(room),
            prey_births: Vec::with_capacity(room),
            predator_births: Vec::with_capacity(room / 4),
        }
    }
}

/// Births and deaths: an animal with enough energy gives half to a newborn; one that starved,
/// grew too old or was caught dies. The walk runs in parallel segments; their fates are combined
/// in segment order, so the commands are the same on any thread count, and recorded together:
/// every despawn, then every birth.
#[system(
    reads(Position, Age, Predator, Seed, Clock, Caught),
    writes(Energy),
    defers(Position, Velocity, Energy, Age, Prey, Predator),
    after(metabolism, aging)
)]
fn life(
    mut q: Query<(Entity, &Position, &mut Energy, &Age, Option<&Predator>)>,
    seed: Res<Seed>,
    clock: Res<Clock>,
    caught: Res<Caught>,
    mut commands: Commands,
    mut is_caught: Local<Vec<bool>>,
) {
    let (seed, clock) = (*seed, *clock);
    // Caught prey by slot (a caught prey is alive until this tick's commands apply, so its
    // slot names it): one array index per animal instead of a search. Kept from tick to tick
    // (`Local`), so each tick clears it rather than allocating it afresh.
    let slots = caught
        .0
        .iter()
        .map(|e| e.slot() as usize + 1)
        .max()
        .unwrap_or(0);
    is_caught.clear();
    is_caught.resize(slots, false);
    for e in &caught.0 {
        is_caught[e.slot() as usize] = true;
    }
    let is_caught: &[bool] = &is_caught;
    let mut segments: Vec<Fates> = q.par_map_segments(|segment| {
        let mut fates = Fates::with_room(segment.len());
        for (entity, p, e, age, predator) in segment {
            let (birth, max_age) = if predator.is_some() {
                (PREDATOR_BIRTH, PREDATOR_MAX_AGE)
            } else {
                (PREY_BIRTH, PREY_MAX_AGE)
            };
            if is_caught.get(entity.slot() as usize) == Some(&true) {
                fates.deaths.push(entity);
                continue;
            }
            if e.0 >= birth {
                e.0 /= 2.0;
                let mut draws = Draws::new(seed, entity, clock, Purpose::Birth);
                if predator.is_some() {
                    let v = draws.velocity(PREDATOR_SPEED);
                    fates
                        .predator_births
                        .push((*p, v, Energy(e.0), Age(0), Predator));
                } else {
                    let v = draws.velocity(PREY_SPEED);
                    fates.prey_births.push((*p, v, Energy(e.0), Age(0), Prey));
                }
            }
            if e.0 <= 0.0 || age.0 > max_age {
                fates.deaths.push(entity);
            }
        }
        fates
    });
    for fates in &segments {
        for &entity in &fates.deaths {
            commands.despawn(entity);
        }
    }
    for fates in &mut segments {
        for bundle in fates.prey_births.drain(..) {
            commands.spawn(bundle);
        }
    }
    for fates in &mut segments {
        for bundle in fates.predator_births.drain(..) {
            commands.spawn(bundle);
        }
    }
}

/// Advances the draw clock: the last system of a tick.
#[system(writes(Clock), after(statistics))]
fn advance_clock(mut clock: ResMut<Clock>) {
    clock.0 += 1;
}

// What `statistics` reads is measured the same tick by three systems that share only reads,
// and so run side by side: the census, the births, the ages and the grass.

/// Live prey and predators (`census`).
#[derive(Resource, Clone, Copy, Default)]
struct Census {
    prey: usize,
    predators: usize,
}

/// Newborns: `Added<Age>` with `Age(0)` (`births`).
#[derive(Resource, Clone, Copy, Default)]
struct Births(usize);

/// Animals whose age changed (`aged`).
#[derive(Resource, Clone, Copy, Default)]
struct Aged(usize);

/// Grass summed over every cell, in cell order (the same float sum on any thread count).
#[derive(Resource, Clone, Copy, Default)]
struct GrassTotal(f32);

#[system(reads(Prey, Predator), writes(Census), after(life))]
fn census(
    prey: Query<Entity, With<Prey>>,
    predators: Query<Entity, With<Predator>>,
    mut census: ResMut<Census>,
) {
    *census = Census {
        prey: prey.iter().count(),
        predators: predators.iter().count(),
    };
}

/// A system's first run sees every component as added, so the initial animals, all older than
/// 0, are left out of the births.
#[system(reads(Age), writes(Births), after(life))]
fn births(born: Query<&Age, Added<Age>>, mut births: ResMut<Births>) {
    births.0 = born.iter().filter(|a| a.0 == 0).count();
}

#[system(reads(Age), writes(Aged), after(life))]
fn aged(aged: Query<Entity, Changed<Age>>, mut count: ResMut<Aged>) {
    count.0 = aged.iter().count();
}

#[system(reads(Grass), writes(GrassTotal), after(life))]
fn grass_total(grass: Res<Grass>, mut total: ResMut<GrassTotal>) {
    total.0 = grass.0.iter().sum();
}

#[system(
    reads(Census, Births, Aged, GrassTotal),
    writes(Stats),
    receives(Kill),
    after(census, births, aged, grass_total)
)]
fn statistics(
    census: Res<Census>,
    births: Res<Births>,
    aged: Res<Aged>,
    grass: Res<GrassTotal>,
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
        prey: census.prey,
        predators: census.predators,
        grass: grass.0,
        kills: caught.len(),
        hunters: hunters.len(),
        births: births.0,
        aged: aged.0,
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
    world.insert_resource(Grid { side });
    world.insert_resource(Grass(grass));
    world.insert_resource(PreyGrid::default());
    world.insert_resource(Caught::default());
    world.insert_resource(Meals::default());
    world.insert_resource(Census::default());
    world.insert_resource(Births::default());
    world.insert_resource(Aged::default());
    world.insert_resource(GrassTotal::default());
    world.insert_resource(Seed(seed));
    world.insert_resource(Clock::default());
    world.insert_resource(Stats {
        rows: vec![initial],
    });
    world
}

/// The demo's fifteen systems on `threads` threads.
pub fn build_schedule(threads: usize) -> Result<Schedule, rota::ScheduleError> {
    Schedule::builder()
        .add(wander)
        .add(movement)
        .add(grass_growth)
        .add(grazing)
        .add(rebuild_grid)
        .add(hunting)
        .add(metabolism)
        .add(aging)
        .add(life)
        .add(census)
        .add(births)
        .add(aged)
        .add(grass_total)
        .add(statistics)
        .add(advance_clock)
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
    if let Ok(grass) = world.resource::<Grass>() {
        grass.0.stable_hash(&mut h);
    }
    if let Ok(clock) = world.resource::<Clock>() {
        clock.0.stable_hash(&mut h);
    }
    h.finish()
}
