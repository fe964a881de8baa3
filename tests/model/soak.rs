//! The soak: long random op sequences against an oracle, including schedule ticks on random
//! thread counts, with a fresh seed per run and a shrunk reproduction on failure.
//!
//! Ops: direct spawns, despawns (live, stale and double), inserts and removes; command buffers
//! (spawns reserved at record time, commands on entities despawned or reserved earlier in the
//! same buffer) applied at once; and `Schedule::run` ticks on 1 to 4 threads (`inline_below(0)`
//! so multi-system batches really run on the pool) over five `#[system]`s that move, age, reap,
//! breed and tag entities through queries and `Commands`. After EVERY op the world is compared
//! with the oracle: invariants, live handles, every component of every store in ascending slot
//! order, the liveness of every handle ever issued, the tick, a resource, and each op's
//! `ApplyReport`/`RunReport`.
//!
//! * `cargo test --test model soak` — one short round (a few cases), part of the normal suite.
//! * `cargo xtask soak --minutes N [--seed S]` — rounds until N minutes are up (it sets
//!   `ROTA_SOAK_SECONDS` and `ROTA_SOAK_SEED` and runs this test). Round `r` uses seed `S + r`;
//!   a failure prints that round seed and proptest's shrunk op sequence, and
//!   `cargo xtask soak --minutes 1 --seed <round seed>` replays it.
//!
//! Only the user-facing API is used (`World`, `world.commands()`, `Schedule`, `#[system]`).

use std::cell::RefCell;
use std::collections::hash_map::RandomState;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use rota::{
    Commands, Component, Entities, Entity, ParallelQuery, Query, ResMut, Resource, RunReport,
    Schedule, World, system,
};

// ---------------------------------------------------------------------------------------------
// Components, resource, systems

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Pos(i64);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Vel(i64);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Hp(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Tag;

/// Written by `census` every third tick.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Census {
    runs: u64,
    hp_total: u64,
}

/// Population above which `breeder` stops spawning, so sequences stay small.
const BREED_LIMIT: usize = 48;

#[system(reads(Vel), writes(Pos))]
fn movement(mut q: Query<(&mut Pos, &Vel)>) {
    q.par_for_each(|(p, v)| p.0 = p.0.wrapping_add(v.0));
}

#[system(writes(Hp))]
fn aging(mut q: Query<&mut Hp>) {
    for h in &mut q {
        h.0 = h.0.saturating_sub(1);
    }
}

#[system(reads(Hp), after(aging))]
fn reaper(q: Query<(Entity, &Hp)>, mut commands: Commands) {
    for (e, h) in q.iter() {
        if h.0 == 0 {
            commands.despawn(e);
        }
    }
}

#[system(reads(Pos, Tag), writes(Vel, Hp), after(reaper), every_ticks = 2)]
fn breeder(parents: Query<(&Pos, &Tag)>, entities: &Entities, mut commands: Commands) {
    if entities.len() >= BREED_LIMIT {
        return;
    }
    for (p, _) in parents.iter() {
        if p.0.rem_euclid(3) == 0 {
            commands.spawn((Vel(p.0 % 5), Hp(3)));
        }
    }
}

#[system(reads(Vel), writes(Tag), after(breeder))]
fn tagger(q: Query<(Entity, &Vel, Option<&Tag>)>, mut commands: Commands) {
    for (e, v, t) in q.iter() {
        match (v.0.rem_euclid(2) == 1, t.is_some()) {
            (true, false) => commands.insert(e, Tag),
            (false, true) => commands.remove::<Tag>(e),
            _ => {}
        }
    }
}

#[system(reads(Hp), writes(Census), after(tagger), every_ticks = 3)]
fn census(q: Query<&Hp>, mut c: ResMut<Census>) {
    c.runs += 1;
    c.hp_total = q.iter().map(|h| u64::from(h.0)).sum();
}

/// One schedule per thread count 1..=4, all with the same systems.
fn schedules() -> Vec<Schedule> {
    (1..=4)
        .map(|threads| {
            Schedule::builder()
                .add(movement)
                .add(aging)
                .add(reaper)
                .add(breeder)
                .add(tagger)
                .add(census)
                .threads(threads)
                .inline_below(0)
                .build()
                .expect("the soak schedule builds")
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The oracle

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Row {
    pos: Option<i64>,
    vel: Option<i64>,
    hp: Option<u32>,
    tag: bool,
}

fn handle(slot: u32, generation: u32) -> Entity {
    Entity::from_bits((u64::from(generation) << 32) | u64::from(slot))
}

#[derive(Clone, Debug, Default)]
struct Oracle {
    live: BTreeMap<u32, (u32, Row)>,
    /// Per slot ever used: the live generation, or the one its next spawn gets.
    generations: Vec<u32>,
    free: BTreeSet<u32>,
    tick: u64,
    census: Census,
}

impl Oracle {
    fn is_alive(&self, e: Entity) -> bool {
        matches!(self.live.get(&e.slot()), Some((g, _)) if *g == e.generation())
    }

    fn row_mut(&mut self, e: Entity) -> Option<&mut Row> {
        match self.live.get_mut(&e.slot()) {
            Some((g, row)) if *g == e.generation() => Some(row),
            _ => None,
        }
    }

    fn spawn(&mut self, row: Row) -> Entity {
        let e = self.reservation(0);
        self.spawn_reserved(e, row);
        e
    }

    /// The `k`-th reservation of a buffer recorded now: free slots ascending, then fresh ones.
    fn reservation(&self, k: usize) -> Entity {
        match self.free.iter().nth(k) {
            Some(&s) => handle(s, self.generations[s as usize]),
            None => handle((self.generations.len() + k - self.free.len()) as u32, 0),
        }
    }

    /// Buffers are applied before anything else spawns, so a reservation always fits.
    fn spawn_reserved(&mut self, e: Entity, row: Row) {
        if e.slot() as usize == self.generations.len() {
            self.generations.push(0);
        } else {
            assert!(self.free.remove(&e.slot()), "reservation {e} not free");
        }
        self.live.insert(e.slot(), (e.generation(), row));
    }

    fn despawn(&mut self, e: Entity) -> bool {
        if !self.is_alive(e) {
            return false;
        }
        self.live.remove(&e.slot());
        self.generations[e.slot() as usize] += 1;
        self.free.insert(e.slot());
        true
    }

    fn entities_where(&self, f: impl Fn(&Row) -> bool) -> Vec<(Entity, Row)> {
        self.live
            .iter()
            .filter(|(_, (_, r))| f(r))
            .map(|(&s, (g, r))| (handle(s, *g), *r))
            .collect()
    }

    /// One `Schedule::run`, system by system in plan order, each command-recording system's
    /// commands applied right after it (each is alone in its batch). Returns the names run and
    /// the number of commands applied.
    fn tick(&mut self) -> (Vec<&'static str>, usize) {
        let t = self.tick;
        let mut ran = vec!["movement", "aging", "reaper"];
        let mut applied = 0;
        for (_, (_, r)) in self.live.iter_mut() {
            if let (Some(p), Some(v)) = (r.pos.as_mut(), r.vel) {
                *p = p.wrapping_add(v);
            }
            if let Some(h) = r.hp.as_mut() {
                *h = h.saturating_sub(1);
            }
        }
        for (e, _) in self.entities_where(|r| r.hp == Some(0)) {
            assert!(self.despawn(e));
            applied += 1;
        }
        if t.is_multiple_of(2) {
            ran.push("breeder");
            if self.live.len() < BREED_LIMIT {
                let parents = self.entities_where(|r| r.tag && r.pos.is_some());
                let children: Vec<i64> = parents
                    .iter()
                    .filter_map(|(_, r)| r.pos.filter(|p| p.rem_euclid(3) == 0))
                    .collect();
                let reserved: Vec<Entity> =
                    (0..children.len()).map(|k| self.reservation(k)).collect();
                for (e, p) in reserved.into_iter().zip(children) {
                    let row = Row {
                        vel: Some(p % 5),
                        hp: Some(3),
                        ..Row::default()
                    };
                    self.spawn_reserved(e, row);
                    applied += 1;
                }
            }
        }
        ran.push("tagger");
        for (e, r) in self.entities_where(|r| r.vel.is_some()) {
            let odd = r.vel.is_some_and(|v| v.rem_euclid(2) == 1);
            if odd != r.tag {
                self.row_mut(e).unwrap().tag = odd;
                applied += 1;
            }
        }
        if t.is_multiple_of(3) {
            ran.push("census");
            self.census.runs += 1;
            self.census.hp_total = self
                .live
                .values()
                .filter_map(|(_, r)| r.hp.map(u64::from))
                .sum();
        }
        self.tick += 1;
        (ran, applied)
    }
}

// ---------------------------------------------------------------------------------------------
// Ops

/// A component value (or, for `Remove`, just its type).
#[derive(Clone, Copy, Debug)]
enum Value {
    Pos(i64),
    Vel(i64),
    Hp(u32),
    Tag,
}

/// One command in a buffer. Handle indices count the handles issued so far, then the ones
/// reserved earlier in this buffer.
#[derive(Clone, Debug)]
enum Cmd {
    Spawn(Row),
    Despawn(usize),
    Insert(usize, Value),
    Remove(usize, Value),
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(Row),
    Despawn(usize),
    Insert(usize, Value),
    Remove(usize, Value),
    Commands(Vec<Cmd>),
    Tick { threads: usize },
}

fn row() -> impl Strategy<Value = Row> {
    (
        proptest::option::of(-20i64..20),
        proptest::option::of(-3i64..4),
        proptest::option::weighted(0.7, 0u32..6),
        any::<bool>(),
    )
        .prop_map(|(pos, vel, hp, tag)| Row { pos, vel, hp, tag })
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-20i64..20).prop_map(Value::Pos),
        (-3i64..4).prop_map(Value::Vel),
        (0u32..6).prop_map(Value::Hp),
        Just(Value::Tag),
    ]
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        2 => row().prop_map(Cmd::Spawn),
        2 => any::<usize>().prop_map(Cmd::Despawn),
        2 => (any::<usize>(), value()).prop_map(|(k, v)| Cmd::Insert(k, v)),
        1 => (any::<usize>(), value()).prop_map(|(k, v)| Cmd::Remove(k, v)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => row().prop_map(Op::Spawn),
        2 => any::<usize>().prop_map(Op::Despawn),
        3 => (any::<usize>(), value()).prop_map(|(k, v)| Op::Insert(k, v)),
        2 => (any::<usize>(), value()).prop_map(|(k, v)| Op::Remove(k, v)),
        2 => vec(cmd(), 0..8).prop_map(Op::Commands),
        3 => (1usize..=4).prop_map(|threads| Op::Tick { threads }),
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    vec(op(), 1..150)
}

// ---------------------------------------------------------------------------------------------
// Running ops on both sides

fn insert_value(world: &mut World, e: Entity, v: Value) -> bool {
    match v {
        Value::Pos(x) => world.insert(e, Pos(x)).is_ok(),
        Value::Vel(x) => world.insert(e, Vel(x)).is_ok(),
        Value::Hp(x) => world.insert(e, Hp(x)).is_ok(),
        Value::Tag => world.insert(e, Tag).is_ok(),
    }
}

fn remove_value(world: &mut World, e: Entity, v: Value) -> bool {
    match v {
        Value::Pos(_) => world.remove::<Pos>(e).is_ok(),
        Value::Vel(_) => world.remove::<Vel>(e).is_ok(),
        Value::Hp(_) => world.remove::<Hp>(e).is_ok(),
        Value::Tag => world.remove::<Tag>(e).is_ok(),
    }
}

fn set_in_row(row: &mut Row, v: Value, present: bool) {
    match v {
        Value::Pos(x) => row.pos = present.then_some(x),
        Value::Vel(x) => row.vel = present.then_some(x),
        Value::Hp(x) => row.hp = present.then_some(x),
        Value::Tag => row.tag = present,
    }
}

fn spawn_row(world: &mut World, row: &Row) -> Entity {
    let e = world.spawn();
    for v in values_of(row) {
        insert_value(world, e, v);
    }
    e
}

fn values_of(row: &Row) -> Vec<Value> {
    let mut out = Vec::new();
    out.extend(row.pos.map(Value::Pos));
    out.extend(row.vel.map(Value::Vel));
    out.extend(row.hp.map(Value::Hp));
    if row.tag {
        out.push(Value::Tag);
    }
    out
}

/// Records `row` as one spawn command (bundles by which components are present).
fn record_spawn(commands: &mut Commands<'_>, row: &Row) -> Entity {
    let e = commands.spawn(());
    for v in values_of(row) {
        record_insert(commands, e, v);
    }
    e
}

fn record_insert(commands: &mut Commands<'_>, e: Entity, v: Value) {
    match v {
        Value::Pos(x) => commands.insert(e, Pos(x)),
        Value::Vel(x) => commands.insert(e, Vel(x)),
        Value::Hp(x) => commands.insert(e, Hp(x)),
        Value::Tag => commands.insert(e, Tag),
    }
}

fn record_remove(commands: &mut Commands<'_>, e: Entity, v: Value) {
    match v {
        Value::Pos(_) => commands.remove::<Pos>(e),
        Value::Vel(_) => commands.remove::<Vel>(e),
        Value::Hp(_) => commands.remove::<Hp>(e),
        Value::Tag => commands.remove::<Tag>(e),
    }
}

fn pick(handles: &[Entity], k: usize) -> Option<Entity> {
    (!handles.is_empty()).then(|| handles[k % handles.len()])
}

struct Sim {
    world: World,
    oracle: Oracle,
    issued: Vec<Entity>,
}

impl Sim {
    fn new() -> Sim {
        let mut world = World::new();
        world.insert_resource(Census::default());
        Sim {
            world,
            oracle: Oracle::default(),
            issued: Vec::new(),
        }
    }

    fn step(&mut self, op: &Op, schedules: &mut [Schedule]) -> Result<(), String> {
        match op {
            Op::Spawn(row) => {
                let e = spawn_row(&mut self.world, row);
                let expected = self.oracle.spawn(*row);
                if e != expected {
                    return Err(format!("spawn gave {e}, oracle {expected}"));
                }
                self.issued.push(e);
            }
            Op::Despawn(k) => {
                let Some(e) = pick(&self.issued, *k) else {
                    return Ok(());
                };
                let (got, exp) = (self.world.despawn(e).is_ok(), self.oracle.despawn(e));
                if got != exp {
                    return Err(format!("despawn {e}: ok {got}, oracle {exp}"));
                }
            }
            Op::Insert(k, v) | Op::Remove(k, v) => {
                let Some(e) = pick(&self.issued, *k) else {
                    return Ok(());
                };
                let inserting = matches!(op, Op::Insert(..));
                let got = if inserting {
                    insert_value(&mut self.world, e, *v)
                } else {
                    remove_value(&mut self.world, e, *v)
                };
                let exp = match self.oracle.row_mut(e) {
                    Some(row) => {
                        set_in_row(row, *v, inserting);
                        true
                    }
                    None => false,
                };
                if got != exp {
                    return Err(format!("{op:?} on {e}: ok {got}, oracle {exp}"));
                }
            }
            Op::Commands(cmds) => self.commands(cmds)?,
            Op::Tick { threads } => {
                let report: RunReport = schedules[threads - 1].run(&mut self.world);
                let tick = self.oracle.tick;
                let (ran, applied) = self.oracle.tick();
                if report.tick != tick || report.ran != ran {
                    return Err(format!(
                        "run on {threads} threads: tick {} ran {:?}; oracle tick {tick} ran {ran:?}",
                        report.tick, report.ran
                    ));
                }
                TICKS.fetch_add(1, Ordering::Relaxed);
                SYSTEM_COMMANDS.fetch_add(applied as u64, Ordering::Relaxed);
                if !report.commands.is_clean() || report.commands.applied != applied {
                    return Err(format!(
                        "run on {threads} threads: {:?}, oracle applied {applied} cleanly",
                        report.commands
                    ));
                }
            }
        }
        Ok(())
    }

    fn commands(&mut self, cmds: &[Cmd]) -> Result<(), String> {
        // Record against the current world; the oracle predicts each command's outcome when
        // applied in order.
        let mut commands = self.world.commands();
        let mut known = self.issued.clone();
        let mut plan: Vec<(Cmd, Option<Entity>)> = Vec::new();
        let mut reservations = 0;
        for cmd in cmds {
            let target = match cmd {
                Cmd::Spawn(row) => {
                    let e = record_spawn(&mut commands, row);
                    let expected = self.oracle.reservation(reservations);
                    reservations += 1;
                    if e != expected {
                        return Err(format!("command spawn reserved {e}, oracle {expected}"));
                    }
                    known.push(e);
                    Some(e)
                }
                Cmd::Despawn(k) => pick(&known, *k).inspect(|&e| commands.despawn(e)),
                Cmd::Insert(k, v) => {
                    pick(&known, *k).inspect(|&e| record_insert(&mut commands, e, *v))
                }
                Cmd::Remove(k, v) => {
                    pick(&known, *k).inspect(|&e| record_remove(&mut commands, e, *v))
                }
            };
            plan.push((cmd.clone(), target));
        }
        let queue = commands.finish();
        let report = self.world.apply(queue);

        let mut applied = 0;
        let mut failed = 0;
        let mut count = |ok: bool| if ok { applied += 1 } else { failed += 1 };
        for (cmd, target) in plan {
            let Some(e) = target else { continue };
            match cmd {
                Cmd::Spawn(row) => {
                    self.oracle.spawn_reserved(e, Row::default());
                    self.issued.push(e);
                    count(true);
                    // `record_spawn` recorded the components as inserts right after the spawn.
                    for v in values_of(&row) {
                        set_in_row(self.oracle.row_mut(e).unwrap(), v, true);
                        count(true);
                    }
                }
                Cmd::Despawn(_) => count(self.oracle.despawn(e)),
                Cmd::Insert(_, v) | Cmd::Remove(_, v) => {
                    let inserting = matches!(cmd, Cmd::Insert(..));
                    match self.oracle.row_mut(e) {
                        Some(row) => {
                            set_in_row(row, v, inserting);
                            count(true);
                        }
                        None => count(false),
                    }
                }
            }
        }
        if report.applied != applied || report.errors.len() != failed {
            return Err(format!(
                "apply: {} applied, {} skipped ({:?}); oracle {applied} applied, {failed} skipped",
                report.applied,
                report.errors.len(),
                report.errors
            ));
        }
        Ok(())
    }

    fn compare(&self) -> Result<(), String> {
        let (w, o) = (&self.world, &self.oracle);
        w.check_invariants()?;
        let live: Vec<Entity> = w.entities().iter().collect();
        let expected: Vec<Entity> = o.live.iter().map(|(&s, (g, _))| handle(s, *g)).collect();
        if live != expected {
            return Err(format!("live {live:?}, oracle {expected:?}"));
        }
        let rows = |f: fn(&Row) -> Option<i64>| -> Visits {
            o.live
                .iter()
                .filter_map(|(&s, (g, r))| Some((handle(s, *g), f(r)?)))
                .collect()
        };
        let checks: [(&str, Visits, Visits); 4] = [
            (
                "Pos",
                w.query::<(Entity, &Pos)>().map(|(e, p)| (e, p.0)).collect(),
                rows(|r| r.pos),
            ),
            (
                "Vel",
                w.query::<(Entity, &Vel)>().map(|(e, v)| (e, v.0)).collect(),
                rows(|r| r.vel),
            ),
            (
                "Hp",
                w.query::<(Entity, &Hp)>()
                    .map(|(e, h)| (e, i64::from(h.0)))
                    .collect(),
                rows(|r| r.hp.map(i64::from)),
            ),
            (
                "Tag",
                w.query::<(Entity, &Tag)>().map(|(e, _)| (e, 0)).collect(),
                rows(|r| r.tag.then_some(0)),
            ),
        ];
        for (name, got, exp) in checks {
            if got != exp {
                return Err(format!("{name} store: {got:?}, oracle {exp:?}"));
            }
        }
        for &e in &self.issued {
            if w.is_alive(e) != o.is_alive(e) {
                return Err(format!("liveness of {e} differs"));
            }
        }
        if w.tick() != o.tick {
            return Err(format!("tick {}, oracle {}", w.tick(), o.tick));
        }
        let census = *w.resource::<Census>().map_err(|e| e.to_string())?;
        if census != o.census {
            return Err(format!("{census:?}, oracle {:?}", o.census));
        }
        Ok(())
    }
}

/// What the soak exercised (printed at the end, so a vacuous soak would show).
static OPS: AtomicU64 = AtomicU64::new(0);
static TICKS: AtomicU64 = AtomicU64::new(0);
static SYSTEM_COMMANDS: AtomicU64 = AtomicU64::new(0);
static PEAK_ENTITIES: AtomicU64 = AtomicU64::new(0);

/// A store's `(entity, value)` pairs in visit order.
type Visits = Vec<(Entity, i64)>;

fn run_ops(ops: &[Op], schedules: &mut [Schedule]) -> Result<(), TestCaseError> {
    let mut sim = Sim::new();
    for (i, op) in ops.iter().enumerate() {
        OPS.fetch_add(1, Ordering::Relaxed);
        PEAK_ENTITIES.fetch_max(sim.world.len() as u64, Ordering::Relaxed);
        sim.step(op, schedules)
            .and_then(|()| sim.compare())
            .map_err(|msg| TestCaseError::fail(format!("op {i} ({op:?}): {msg}")))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Rounds

/// Cases per round; each case is one sequence of up to 150 ops.
const CASES_PER_ROUND: u32 = 32;

/// 32 seed bytes for ChaCha from a 64-bit seed (splitmix64).
fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut x = seed;
    let mut out = [0u8; 32];
    for chunk in out.chunks_mut(8) {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

/// Runs one round; on failure, the message names the round seed and the shrunk op sequence.
fn round(seed: u64, cases: u32) -> Result<(), String> {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_time: 120_000,
        max_shrink_iters: crate::shrink_iters(10_000),
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes(seed));
    let mut runner = TestRunner::new_with_rng(config, rng);
    let schedules = RefCell::new(schedules());
    match runner.run(&ops(), |ops| run_ops(&ops, &mut schedules.borrow_mut())) {
        Ok(()) => Ok(()),
        Err(TestError::Fail(reason, minimal)) => Err(format!(
            "soak round seed {seed} failed: {reason}\nminimal reproducing sequence ({} ops):\n{minimal:#?}\nreplay: cargo xtask soak --minutes 1 --seed {seed}",
            minimal.len()
        )),
        Err(TestError::Abort(reason)) => Err(format!("soak round seed {seed} aborted: {reason}")),
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
    )
}

#[test]
fn soak_against_oracle() {
    let seed = env_u64("ROTA_SOAK_SEED").unwrap_or_else(|| RandomState::new().hash_one(0u8));
    let budget = env_u64("ROTA_SOAK_SECONDS");
    println!("soak seed {seed}");
    let Some(seconds) = budget else {
        // The normal suite: one short round.
        if let Err(msg) = round(seed, 8) {
            panic!("{msg}");
        }
        return;
    };
    let start = Instant::now();
    let deadline = Duration::from_secs(seconds);
    let mut rounds = 0u64;
    while start.elapsed() < deadline {
        if let Err(msg) = round(seed.wrapping_add(rounds), CASES_PER_ROUND) {
            panic!("{msg}\n(after {rounds} clean rounds)");
        }
        rounds += 1;
    }
    println!(
        "soak clean: {rounds} rounds x {CASES_PER_ROUND} cases in {:.0} s, seeds {seed}..={}; \
         {} ops, {} schedule ticks applying {} system commands, peak {} entities",
        start.elapsed().as_secs_f64(),
        seed.wrapping_add(rounds.saturating_sub(1)),
        OPS.load(Ordering::Relaxed),
        TICKS.load(Ordering::Relaxed),
        SYSTEM_COMMANDS.load(Ordering::Relaxed),
        PEAK_ENTITIES.load(Ordering::Relaxed),
    );
}
