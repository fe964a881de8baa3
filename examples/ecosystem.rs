//! A deterministic predator/prey/grass simulation on a wrapping 2-D grid — rota's main demo.
//!
//! Every promise of rota at work: systems declared with `#[system]` (the compiler holds them to
//! their declarations), ordered by `after`, strided by `every_ticks`, run in parallel where their
//! declarations allow, births and deaths through `Commands`, every random draw taken from a
//! seeded PRNG stored as a resource — and a world checksum that is the same on 1 thread or N.
//!
//! Run: `cargo run --release --example ecosystem -- --help`

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use rota::{
    Commands, Component, Entity, Query, Res, ResMut, Resource, Schedule, StableHash, StableHasher,
    With, World, system,
};

// ---------------------------------------------------------------------------------------------
// Components and resources
// ---------------------------------------------------------------------------------------------

/// Where an animal is, in cells; the grid wraps around.
#[derive(Component, StableHash, Clone, Copy, Debug)]
struct Position {
    x: f32,
    y: f32,
}

/// Cells per tick.
#[derive(Component, StableHash, Clone, Copy, Debug)]
struct Velocity {
    dx: f32,
    dy: f32,
}

/// Food in the belly; at zero the animal dies.
#[derive(Component, StableHash, Clone, Copy, Debug)]
struct Energy(f32);

/// Ticks lived.
#[derive(Component, StableHash, Clone, Copy, Debug)]
struct Age(u32);

/// Species tag: eats grass.
#[derive(Component, StableHash, Clone, Copy, Debug)]
struct Prey;

/// Species tag: eats prey.
#[derive(Component, StableHash, Clone, Copy, Debug)]
struct Predator;

/// The world's side length in cells and per-cell grass.
#[derive(Resource)]
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
#[derive(Resource, Default)]
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
#[derive(Resource)]
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

/// Population history, one row per tick.
#[derive(Resource, Default)]
struct Stats {
    rows: Vec<(u64, usize, usize, f32)>,
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
    after(rebuild_grid, grazing)
)]
fn hunting(
    mut q: Query<(&Position, &mut Energy), With<Predator>>,
    field: Res<Field>,
    mut grid: ResMut<PreyGrid>,
    mut rng: ResMut<Rng>,
    mut commands: Commands,
) {
    for (p, e) in &mut q {
        let cell = field.cell(p);
        if grid.len[cell] == 0 || rng.unit() >= CATCH_CHANCE {
            continue;
        }
        // Buckets hold prey in ascending slot order; a predator takes the last (highest slot).
        if let Some(victim) = grid.pop(cell) {
            e.0 += PREDATOR_MEAL;
            commands.despawn(victim);
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

#[system(reads(Prey, Predator, Field), writes(Stats), after(death))]
fn statistics(
    prey: Query<Entity, With<Prey>>,
    predators: Query<Entity, With<Predator>>,
    field: Res<Field>,
    mut stats: ResMut<Stats>,
    tick: rota::rota_core::system::Local<u64>,
) {
    let mut tick = tick;
    let grass: f32 = field.grass.iter().sum();
    stats
        .rows
        .push((*tick, prey.iter().count(), predators.iter().count(), grass));
    *tick += 1;
}

// ---------------------------------------------------------------------------------------------
// Setup, running, checksums
// ---------------------------------------------------------------------------------------------

fn build_world(size: usize, seed: u64) -> World {
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
        let age = Age((rng.next_u64() % 50) as u32);
        animals.push((p, i < predators, age));
    }
    let (preds, prey): (Vec<_>, Vec<_>) = animals.into_iter().partition(|a| a.1);
    let mut velocities: Vec<Velocity> = Vec::new();
    for _ in 0..size {
        velocities.push(rng.velocity(PREY_SPEED));
    }
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
    world.insert_resource(Field {
        side,
        grass: vec![GRASS_MAX / 2.0; side * side],
    });
    world.insert_resource(PreyGrid::default());
    world.insert_resource(rng);
    world.insert_resource(Stats::default());
    world
}

fn build_schedule(threads: usize) -> Result<Schedule, rota::ScheduleError> {
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
fn checksum(world: &World) -> u64 {
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

#[derive(Parser, Debug)]
#[command(
    about = "rota's ecosystem demo: predators, prey and grass on a wrapping grid, deterministic on any number of threads",
    long_about = None
)]
struct Args {
    /// Ticks to simulate.
    #[arg(long, default_value_t = 300)]
    ticks: u64,
    /// Seed of the world's PRNG (initial placement and every random draw).
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Worker threads (the calling thread included); default: all available cores.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Initial number of animals (one in ten is a predator).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(10..=10_000_000))]
    size: u64,
    /// Run with 1 thread, with N threads, and again with N, and fail if any checksum differs.
    #[arg(long)]
    verify: bool,
    /// Print the population table every this many ticks.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    report_every: u64,
    /// Where to write the population chart (SVG).
    #[arg(long, default_value = "target/ecosystem.svg")]
    chart: PathBuf,
}

struct Outcome {
    checksum: u64,
    seconds: f64,
    world: World,
}

fn simulate(args: &Args, threads: usize, show: bool) -> Result<Outcome, String> {
    let mut world = build_world(args.size as usize, args.seed);
    let mut schedule = build_schedule(threads).map_err(|e| e.to_string())?;
    let bar = if show && args.ticks >= 100 {
        let bar = ProgressBar::new(args.ticks);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} ticks {per_sec} eta {eta}")
                .map_err(|e| e.to_string())?,
        );
        Some(bar)
    } else {
        None
    };
    if show {
        println!(
            "{:>6} {:>9} {:>9} {:>10}",
            "tick", "prey", "predators", "grass"
        );
    }
    let start = Instant::now();
    for t in 0..args.ticks {
        let _ = schedule.run(&mut world);
        if let Some(bar) = &bar {
            bar.inc(1);
        }
        if show
            && (t % args.report_every == 0 || t + 1 == args.ticks)
            && let Some(&(tick, prey, predators, grass)) =
                world.resource::<Stats>().ok().and_then(|s| s.rows.last())
        {
            let line = format!("{tick:>6} {prey:>9} {predators:>9} {grass:>10.0}");
            match &bar {
                Some(bar) if !bar.is_hidden() => bar.println(line),
                _ => println!("{line}"),
            }
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let seconds = start.elapsed().as_secs_f64();
    Ok(Outcome {
        checksum: checksum(&world),
        seconds,
        world,
    })
}

fn write_chart(path: &PathBuf, world: &World) -> Result<(), String> {
    use plotters::prelude::*;
    let rows = &world.resource::<Stats>().map_err(|e| e.to_string())?.rows;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let max = rows.iter().map(|r| r.1.max(r.2)).max().unwrap_or(1).max(1) as f64;
    let ticks = rows.len().max(2) as f64;
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption("population over time", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..ticks, 0f64..max * 1.05)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("tick")
        .y_desc("animals")
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(LineSeries::new(
            rows.iter().map(|r| (r.0 as f64, r.1 as f64)),
            &GREEN,
        ))
        .map_err(|e| e.to_string())?
        .label("prey")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], GREEN));
    chart
        .draw_series(LineSeries::new(
            rows.iter().map(|r| (r.0 as f64, r.2 as f64)),
            &RED,
        ))
        .map_err(|e| e.to_string())?
        .label("predators")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], RED));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let args = Args::parse();
    let threads = args.threads.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    println!(
        "ecosystem: {} animals, {} ticks, seed {}, {} thread(s)",
        args.size, args.ticks, args.seed, threads
    );
    let main_run = match simulate(&args, threads, true) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "checksum {:016x} after {} ticks, {:.1} ticks/s ({} live entities)",
        main_run.checksum,
        args.ticks,
        args.ticks as f64 / main_run.seconds.max(1e-9),
        main_run.world.len()
    );
    match write_chart(&args.chart, &main_run.world) {
        Ok(()) => println!("population chart written to {}", args.chart.display()),
        Err(e) => eprintln!("warning: could not write the chart: {e}"),
    }
    if args.verify {
        let n = threads.max(2);
        let runs = [
            (1usize, "1 thread"),
            (n, "N threads"),
            (n, "N threads, again"),
        ];
        let mut sums = Vec::new();
        for (t, label) in runs {
            match simulate(&args, t, false) {
                Ok(o) => {
                    println!("verify: {label:<17} ({t:>2}) checksum {:016x}", o.checksum);
                    sums.push(o.checksum);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        if sums.iter().all(|&s| s == main_run.checksum) {
            println!("verify: OK — identical checksums on 1 and {n} threads and across runs");
        } else {
            eprintln!("verify: FAILED — checksums differ: the determinism promise is broken");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
