//! Model-based property tests for `Entities` and `Store<T>`.
//!
//! Every operation is applied both to the real type and to an obviously-correct oracle (a `Vec`
//! of slot states for `Entities`, a `BTreeMap` keyed by slot for `Store`), and the two are
//! compared after EVERY step, so a divergence names the step index and the (resolved) operation.
//!
//! * `entities_match_oracle` — spawn / despawn (of any handle ever issued, so stale and double
//!   despawns) / despawn of foreign handles, with generation retirement and slot exhaustion.
//! * `store_matches_oracle` — insert / try_insert / remove / get_mut / clear / settle / iter_mut,
//!   and after every step the dense columns (`dense_entities`, `dense_values`, the dense ticks)
//!   parallel to each other, and `clone`/`clone_from` copying the contents.
//! * `store_iteration_is_history_independent` and `store_iter_is_ascending_after_churn` — the
//!   ordering contract: same contents, same iteration, whatever the history.
//! * `join_matches_oracle_intersection` — `rota::join` against a `BTreeMap` intersection.
//! * `handle_bits_and_text_are_the_documented_forms`, `far_apart_slots_keep_their_own_pages` —
//!   the documented encodings of a handle, and sparse pages up to the highest slot.
//! * `in_order_inserts_and_a_single_value_leave_a_store_settled`,
//!   `a_store_stamps_and_reports_its_change_tick`,
//!   `dense_mut_marks_every_value_and_the_store_changed`,
//!   `a_batch_despawn_down_to_one_value_leaves_the_store_settled`,
//!   `a_store_debugs_as_a_map_in_slot_order`, `entity_iteration_counts_down_what_is_left` —
//!   when a store counts as settled without a sort, the tick it stamps, the high-water mark
//!   `dense_mut` moves, its `Debug`, and the length of `Entities::iter` (added for survivors of
//!   the second mutation run).

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rota::{Component, Entities, Entity, EntityNotAlive, SpawnError, Store, Tick, World, join};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: crate::cases(256),
        // A failing 1000-op case needs more than the default 1024 shrink steps to get short
        // (each step past the first failure is cheap: the model stops at the failing step).
        max_shrink_iters: crate::shrink_iters(1 << 15),
        max_shrink_time: 120_000,
        ..ProptestConfig::default()
    }
}

/// Builds a handle from raw parts (the public way: `Entity::from_bits`), checking the round trip.
fn handle(slot: u32, generation: u32) -> Entity {
    let e = Entity::from_bits((u64::from(generation) << 32) | u64::from(slot));
    assert_eq!((e.slot(), e.generation()), (slot, generation));
    e
}

/// Names the failing step in assertion messages: `step 17: Despawn(3v1)`.
struct Ctx<'a, O> {
    label: &'a str,
    step: usize,
    op: &'a O,
}

impl<O: fmt::Debug> fmt::Display for Ctx<'_, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}step {}: {:?}", self.label, self.step, self.op)
    }
}

/// Runs one model step, turning a panic inside the library into a failure that names the step
/// (proptest would catch the panic too, but without saying which step it came from).
fn guarded(
    ctx: &dyn fmt::Display,
    step: impl FnOnce() -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    match catch_unwind(AssertUnwindSafe(step)) {
        Ok(result) => result,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "<non-string panic payload>".to_owned());
            Err(TestCaseError::fail(format!("{ctx}: panicked: {msg}")))
        }
    }
}

// ------------------------------------------------------------------------------------------------
// 1. Entities vs a Vec-of-slots oracle
// ------------------------------------------------------------------------------------------------

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum OracleState {
    Alive,
    Free,
    Retired,
}

#[derive(Copy, Clone, Debug)]
struct OracleSlot {
    generation: u32,
    state: OracleState,
}

/// The obviously-correct allocator: linear scans, no heap.
#[derive(Debug)]
struct EntitiesOracle {
    slots: Vec<OracleSlot>,
    first_generation: u32,
    slot_limit: u32,
}

impl EntitiesOracle {
    fn new(first_generation: u32, slot_limit: u32) -> Self {
        EntitiesOracle {
            slots: Vec::new(),
            first_generation,
            slot_limit,
        }
    }

    /// Lowest free slot first; else a new slot at `first_generation`; else exhausted.
    fn spawn(&mut self) -> Result<(u32, u32), SpawnError> {
        if let Some(slot) = self.slots.iter().position(|s| s.state == OracleState::Free) {
            self.slots[slot].state = OracleState::Alive;
            return Ok((slot as u32, self.slots[slot].generation));
        }
        if self.slots.len() >= self.slot_limit as usize {
            return Err(SpawnError::SlotsExhausted {
                limit: self.slot_limit,
            });
        }
        self.slots.push(OracleSlot {
            generation: self.first_generation,
            state: OracleState::Alive,
        });
        Ok(((self.slots.len() - 1) as u32, self.first_generation))
    }

    /// Generation bumps on despawn; a slot at `u32::MAX` retires instead.
    fn despawn(&mut self, e: Entity) -> Result<(), EntityNotAlive> {
        match self.slots.get_mut(e.slot() as usize) {
            Some(s) if s.state == OracleState::Alive && s.generation == e.generation() => {
                if s.generation == u32::MAX {
                    s.state = OracleState::Retired;
                } else {
                    s.generation += 1;
                    s.state = OracleState::Free;
                }
                Ok(())
            }
            _ => Err(EntityNotAlive(e)),
        }
    }

    fn alive_at(&self, slot: u32) -> Option<(u32, u32)> {
        match self.slots.get(slot as usize) {
            Some(s) if s.state == OracleState::Alive => Some((slot, s.generation)),
            _ => None,
        }
    }

    fn is_alive(&self, e: Entity) -> bool {
        self.alive_at(e.slot()) == Some((e.slot(), e.generation()))
    }

    fn live(&self) -> Vec<(u32, u32)> {
        (0..self.slots.len() as u32)
            .filter_map(|slot| self.alive_at(slot))
            .collect()
    }

    fn retired_count(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.state == OracleState::Retired)
            .count()
    }
}

#[derive(Copy, Clone, Debug)]
enum EntConfig {
    Default,
    FirstGeneration(u32),
    SlotLimit(u32),
}

impl EntConfig {
    fn build(self) -> (Entities, EntitiesOracle) {
        match self {
            EntConfig::Default => (Entities::new(), EntitiesOracle::new(0, Entities::MAX_SLOTS)),
            EntConfig::FirstGeneration(g) => (
                Entities::with_first_generation(g),
                EntitiesOracle::new(g, Entities::MAX_SLOTS),
            ),
            EntConfig::SlotLimit(limit) => (
                Entities::with_slot_limit(limit),
                EntitiesOracle::new(0, limit),
            ),
        }
    }
}

fn ent_config() -> impl Strategy<Value = EntConfig> {
    prop_oneof![
        Just(EntConfig::Default),
        // Mostly exactly `u32::MAX - 2` (two bumps, then retirement); sometimes 1 or 3 bumps.
        prop_oneof![
            3 => Just(u32::MAX - 2),
            1 => (0u32..4).prop_map(|d| u32::MAX - d),
        ]
        .prop_map(EntConfig::FirstGeneration),
        (0u32..10).prop_map(EntConfig::SlotLimit),
    ]
}

#[derive(Copy, Clone)]
enum EntOp {
    Spawn,
    /// Index (modulo) into the list of every handle ever issued, dead ones included.
    Despawn(usize),
    /// A handle with an arbitrary slot and generation.
    DespawnForeign {
        slot: u32,
        generation: u32,
    },
}

/// An `EntOp` with its handle resolved, for failure messages.
#[derive(Copy, Clone, Debug)]
enum EntAction {
    Spawn,
    Despawn(Entity),
    DespawnForeign(Entity),
    /// `Despawn` before any handle was issued.
    Nothing,
}

fn ent_op() -> impl Strategy<Value = EntOp> {
    let slot = prop_oneof![3 => 0u32..64, 1 => any::<u32>()];
    let generation = prop_oneof![
        2 => 0u32..4,
        2 => (0u32..4).prop_map(|d| u32::MAX - d),
        1 => any::<u32>(),
    ];
    prop_oneof![
        3 => Just(EntOp::Spawn),
        3 => (0usize..1000).prop_map(EntOp::Despawn),
        1 => (slot, generation)
            .prop_map(|(slot, generation)| EntOp::DespawnForeign { slot, generation }),
    ]
}

fn run_entities_model(config: EntConfig, ops: &[EntOp]) -> Result<(), TestCaseError> {
    let (mut es, mut oracle) = config.build();
    let mut issued: Vec<Entity> = Vec::new();
    for (step, op) in ops.iter().enumerate() {
        let action = match *op {
            EntOp::Spawn => EntAction::Spawn,
            EntOp::Despawn(_) if issued.is_empty() => EntAction::Nothing,
            EntOp::Despawn(n) => EntAction::Despawn(issued[n % issued.len()]),
            EntOp::DespawnForeign { slot, generation } => {
                EntAction::DespawnForeign(handle(slot, generation))
            }
        };
        let ctx = Ctx {
            label: "",
            step,
            op: &action,
        };
        guarded(&ctx, || {
            match action {
                EntAction::Spawn => {
                    let got = es.spawn();
                    let want = oracle.spawn();
                    prop_assert_eq!(
                        got.map(|e| (e.slot(), e.generation())),
                        want,
                        "{}: spawn result",
                        ctx
                    );
                    if let Ok(e) = got {
                        issued.push(e);
                    }
                }
                EntAction::Despawn(e) | EntAction::DespawnForeign(e) => {
                    prop_assert_eq!(es.is_alive(e), oracle.is_alive(e), "{}: before", ctx);
                    let got = es.despawn(e);
                    let want = oracle.despawn(e);
                    prop_assert_eq!(got, want, "{}: despawn result", ctx);
                    prop_assert!(!es.is_alive(e), "{}: alive after despawn", ctx);
                }
                EntAction::Nothing => {}
            }
            check_entities(&es, &oracle, &issued, &ctx)
        })?;
    }
    Ok(())
}

fn check_entities<O: fmt::Debug>(
    es: &Entities,
    oracle: &EntitiesOracle,
    issued: &[Entity],
    ctx: &Ctx<'_, O>,
) -> Result<(), TestCaseError> {
    for &e in issued {
        prop_assert_eq!(
            es.is_alive(e),
            oracle.is_alive(e),
            "{}: is_alive({})",
            ctx,
            e
        );
    }
    let live = oracle.live();
    prop_assert_eq!(es.len(), live.len(), "{}: len", ctx);
    prop_assert_eq!(es.is_empty(), live.is_empty(), "{}: is_empty", ctx);
    let it = es.iter();
    prop_assert_eq!(it.len(), live.len(), "{}: iter().len()", ctx);
    let got: Vec<(u32, u32)> = it.map(|e| (e.slot(), e.generation())).collect();
    prop_assert_eq!(&got, &live, "{}: iter()", ctx);
    prop_assert_eq!(
        es.retired_count(),
        oracle.retired_count(),
        "{}: retired_count",
        ctx
    );
    prop_assert_eq!(es.slot_count(), oracle.slots.len(), "{}: slot_count", ctx);
    for slot in 0..=oracle.slots.len() as u32 {
        prop_assert_eq!(
            es.alive_at(slot).map(|e| (e.slot(), e.generation())),
            oracle.alive_at(slot),
            "{}: alive_at({})",
            ctx,
            slot
        );
    }
    prop_assert_eq!(es.check_invariants(), Ok(()), "{}: check_invariants", ctx);
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Handle pools for the store models: real handles from an `Entities`, several generations per slot
// ------------------------------------------------------------------------------------------------

/// Which slots the pool covers and how many extra generations each slot gets.
#[derive(Clone)]
struct PoolSpec {
    /// Slots `0..low`.
    low: usize,
    /// Also slots 4094..=4097, straddling the first sparse-page boundary.
    high: bool,
    /// Extra generations (0..=3) per pool slot, in pool order.
    regen: Vec<u8>,
}

const HIGH_SLOTS: [u32; 4] = [4094, 4095, 4096, 4097];
const MAX_POOL: usize = 24 + HIGH_SLOTS.len();

impl PoolSpec {
    fn len(&self) -> usize {
        self.regen.len()
    }
}

fn pool_spec() -> impl Strategy<Value = PoolSpec> {
    (1usize..=24, prop::bool::weighted(0.25)).prop_flat_map(|(low, high)| {
        let len = low + if high { HIGH_SLOTS.len() } else { 0 };
        prop::collection::vec(0u8..=3, len).prop_map(move |regen| PoolSpec { low, high, regen })
    })
}

struct Pool {
    /// Every handle of every generation, grouped by slot, slots ascending.
    per_slot: Vec<Vec<Entity>>,
    /// `per_slot`, flattened.
    handles: Vec<Entity>,
}

/// Spawns up to the highest pool slot, then despawns and respawns chosen pool slots in rounds so
/// the same slot has handles of several generations (all but the last one stale).
fn build_pool(spec: &PoolSpec) -> Pool {
    let mut slots: Vec<u32> = (0..spec.low as u32).collect();
    if spec.high {
        slots.extend(HIGH_SLOTS);
    }
    let max = *slots.last().expect("a pool has at least one slot");
    let mut es = Entities::new();
    let mut current: Vec<Entity> = (0..=max).map(|_| es.spawn().unwrap()).collect();
    let mut per_slot: Vec<Vec<Entity>> = slots.iter().map(|&s| vec![current[s as usize]]).collect();
    for round in 0..3 {
        let chosen: Vec<usize> = (0..slots.len())
            .filter(|&k| spec.regen[k] > round)
            .collect();
        for &k in &chosen {
            es.despawn(current[slots[k] as usize]).unwrap();
        }
        // The freed slots are exactly `chosen`, reused lowest first.
        for &k in &chosen {
            let e = es.spawn().unwrap();
            assert_eq!(
                e.slot(),
                slots[k],
                "pool respawn did not reuse the freed slot"
            );
            assert!(
                e.generation() > current[slots[k] as usize].generation(),
                "pool respawn did not bump the generation"
            );
            current[slots[k] as usize] = e;
            per_slot[k].push(e);
        }
    }
    let handles = per_slot.iter().flatten().copied().collect();
    Pool { per_slot, handles }
}

// ------------------------------------------------------------------------------------------------
// 2. Store<u64> vs BTreeMap<slot, (Entity, u64)>
// ------------------------------------------------------------------------------------------------

type StoreOracle = BTreeMap<u32, (Entity, u64)>;

#[derive(Copy, Clone)]
enum StoreOp {
    Insert(usize, u64),
    TryInsert(usize, u64),
    Remove(usize),
    GetMutWrite(usize, u64),
    Clear,
    Settle,
    IterMutAdd(u64),
}

/// A `StoreOp` with its handle resolved, for failure messages.
#[derive(Copy, Clone, Debug)]
enum StoreAction {
    Insert(Entity, u64),
    TryInsert(Entity, u64),
    Remove(Entity),
    GetMutWrite(Entity, u64),
    Clear,
    Settle,
    IterMutAdd(u64),
}

impl StoreOp {
    fn resolve(self, handles: &[Entity]) -> StoreAction {
        let h = |n: usize| handles[n % handles.len()];
        match self {
            StoreOp::Insert(n, v) => StoreAction::Insert(h(n), v),
            StoreOp::TryInsert(n, v) => StoreAction::TryInsert(h(n), v),
            StoreOp::Remove(n) => StoreAction::Remove(h(n)),
            StoreOp::GetMutWrite(n, v) => StoreAction::GetMutWrite(h(n), v),
            StoreOp::Clear => StoreAction::Clear,
            StoreOp::Settle => StoreAction::Settle,
            StoreOp::IterMutAdd(k) => StoreAction::IterMutAdd(k),
        }
    }
}

fn store_op() -> impl Strategy<Value = StoreOp> {
    // Handle indices are taken modulo the pool size (at most 4 * MAX_POOL handles).
    let n = 0usize..4 * MAX_POOL;
    let value = 0u64..1_000_000;
    prop_oneof![
        8 => (n.clone(), value.clone()).prop_map(|(n, v)| StoreOp::Insert(n, v)),
        2 => (n.clone(), value.clone()).prop_map(|(n, v)| StoreOp::TryInsert(n, v)),
        6 => n.clone().prop_map(StoreOp::Remove),
        2 => (n, value).prop_map(|(n, v)| StoreOp::GetMutWrite(n, v)),
        1 => Just(StoreOp::Clear),
        1 => Just(StoreOp::Settle),
        1 => (0u64..1000).prop_map(StoreOp::IterMutAdd),
    ]
}

/// Applies `action` to both the store and the oracle, comparing what each returns.
fn apply_store<O: fmt::Debug>(
    store: &mut Store<u64>,
    oracle: &mut StoreOracle,
    action: StoreAction,
    ctx: &Ctx<'_, O>,
) -> Result<(), TestCaseError> {
    match action {
        StoreAction::Insert(e, v) => {
            let got = store.insert(e, v);
            let want = oracle.insert(e.slot(), (e, v)).map(|(_, old)| old);
            prop_assert_eq!(got, want, "{}: insert returned", ctx);
        }
        StoreAction::TryInsert(e, v) => {
            let got = store.try_insert(e, v);
            let want = oracle.insert(e.slot(), (e, v)).map(|(_, old)| old);
            prop_assert_eq!(got, Ok(want), "{}: try_insert returned", ctx);
        }
        StoreAction::Remove(e) => {
            let got = store.remove(e);
            let want = match oracle.get(&e.slot()) {
                Some(&(held, v)) if held == e => {
                    oracle.remove(&e.slot());
                    Some(v)
                }
                _ => None,
            };
            prop_assert_eq!(got, want, "{}: remove returned", ctx);
        }
        StoreAction::GetMutWrite(e, v) => {
            let got = store.get_mut(e).map(|slot| std::mem::replace(slot, v));
            let want = match oracle.get_mut(&e.slot()) {
                Some((held, val)) if *held == e => Some(std::mem::replace(val, v)),
                _ => None,
            };
            prop_assert_eq!(got, want, "{}: get_mut saw", ctx);
        }
        StoreAction::Clear => {
            store.clear();
            oracle.clear();
        }
        StoreAction::Settle => {
            store.settle();
            prop_assert!(store.is_settled(), "{}: not settled after settle()", ctx);
        }
        StoreAction::IterMutAdd(k) => {
            let it = store.iter_mut();
            prop_assert_eq!(it.len(), oracle.len(), "{}: iter_mut().len()", ctx);
            let visited: Vec<Entity> = it
                .map(|(e, v)| {
                    *v = v.wrapping_add(k);
                    e
                })
                .collect();
            for (_, v) in oracle.values_mut() {
                *v = v.wrapping_add(k);
            }
            let want: Vec<Entity> = oracle.values().map(|&(e, _)| e).collect();
            prop_assert_eq!(visited, want, "{}: iter_mut order", ctx);
            prop_assert!(store.is_settled(), "{}: not settled after iter_mut()", ctx);
        }
    }
    Ok(())
}

/// Compares every observable of the store with the oracle.
fn check_store<O: fmt::Debug>(
    store: &Store<u64>,
    oracle: &StoreOracle,
    handles: &[Entity],
    ctx: &Ctx<'_, O>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(store.len(), oracle.len(), "{}: len", ctx);
    prop_assert_eq!(store.is_empty(), oracle.is_empty(), "{}: is_empty", ctx);
    for &h in handles {
        let want = oracle
            .get(&h.slot())
            .filter(|(held, _)| *held == h)
            .map(|&(_, v)| v);
        prop_assert_eq!(store.get(h).copied(), want, "{}: get({})", ctx, h);
        prop_assert_eq!(
            store.contains(h),
            want.is_some(),
            "{}: contains({})",
            ctx,
            h
        );
    }
    let want: Vec<(Entity, u64)> = oracle.values().copied().collect();
    // Exact sequence, and `len()` exact at every point of the walk.
    let mut it = store.iter();
    let mut got = Vec::with_capacity(want.len());
    loop {
        prop_assert_eq!(
            it.len(),
            want.len().saturating_sub(got.len()),
            "{}: iter().len() after {} items",
            ctx,
            got.len()
        );
        match it.next() {
            Some((e, v)) if got.len() <= want.len() => got.push((e, *v)),
            _ => break,
        }
    }
    prop_assert_eq!(&got, &want, "{}: iter()", ctx);
    let mut unordered: Vec<(Entity, u64)> = store.iter_unordered().map(|(e, v)| (e, *v)).collect();
    unordered.sort_by_key(|&(e, _)| e.slot());
    prop_assert_eq!(&unordered, &want, "{}: iter_unordered() as a set", ctx);
    prop_assert_eq!(
        store.iter_unordered().len(),
        want.len(),
        "{}: iter_unordered().len()",
        ctx
    );
    // `clone` and `clone_from` (into a store holding something else) copy the contents.
    let mut copy = store.clone();
    prop_assert_eq!(
        copy.iter().map(|(e, v)| (e, *v)).collect::<Vec<_>>(),
        want.clone(),
        "{}: clone",
        ctx
    );
    copy.clear();
    copy.insert(handles[0], u64::MAX);
    copy.clone_from(store);
    prop_assert_eq!(
        copy.iter().map(|(e, v)| (e, *v)).collect::<Vec<_>>(),
        want.clone(),
        "{}: clone_from",
        ctx
    );
    // The dense columns are parallel: entry `i` of each belongs to `dense_entities()[i]`.
    let entities = store.dense_entities();
    let (values, added, changed) = (
        store.dense_values(),
        store.dense_added_ticks(),
        store.dense_changed_ticks(),
    );
    prop_assert_eq!(
        (values.len(), added.len(), changed.len()),
        (entities.len(), entities.len(), entities.len()),
        "{}: dense column lengths",
        ctx
    );
    for (i, &e) in entities.iter().enumerate() {
        prop_assert_eq!(store.dense_index(e), Some(i), "{}: dense_index({})", ctx, e);
        prop_assert_eq!(
            store.get(e),
            Some(&values[i]),
            "{}: dense_values[{}]",
            ctx,
            i
        );
        prop_assert_eq!(
            store.ticks(e).map(|t| (t.added, t.changed)),
            Some((added[i], changed[i])),
            "{}: dense ticks[{}]",
            ctx,
            i
        );
    }
    prop_assert_eq!(
        store.check_invariants(),
        Ok(()),
        "{}: check_invariants",
        ctx
    );
    if store.is_settled() {
        let dense: Vec<Entity> = want.iter().map(|&(e, _)| e).collect();
        prop_assert_eq!(store.dense_entities(), &dense[..], "{}: settled dense", ctx);
    }
    Ok(())
}

fn run_store_model(
    label: &str,
    store: &mut Store<u64>,
    oracle: &mut StoreOracle,
    handles: &[Entity],
    ops: &[StoreOp],
) -> Result<(), TestCaseError> {
    for (step, op) in ops.iter().enumerate() {
        let action = op.resolve(handles);
        let ctx = Ctx {
            label,
            step,
            op: &action,
        };
        guarded(&ctx, || {
            apply_store(store, oracle, action, &ctx)?;
            check_store(store, oracle, handles, &ctx)
        })?;
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// 3. Determinism: different histories, same contents, same iteration
// ------------------------------------------------------------------------------------------------

/// Noise on one slot: `(insert?, generation choice, value)`.
type Noise = (bool, usize, u64);

fn run_determinism(
    spec: &PoolSpec,
    contents: &[Option<(usize, u64)>],
    noise: &[Vec<Noise>],
    picks: &[usize],
) -> Result<(), TestCaseError> {
    let pool = build_pool(spec);
    // One op sequence per pool slot; each ends with the slot holding exactly its `contents`.
    let mut seqs: Vec<VecDeque<StoreAction>> = Vec::new();
    let mut expected: Vec<(Entity, u64)> = Vec::new();
    for (k, hs) in pool.per_slot.iter().enumerate() {
        let pick = |g: usize| hs[g % hs.len()];
        let mut seq: VecDeque<StoreAction> = noise[k]
            .iter()
            .map(|&(insert, g, v)| {
                if insert {
                    StoreAction::Insert(pick(g), v)
                } else {
                    StoreAction::Remove(pick(g))
                }
            })
            .collect();
        match contents[k] {
            Some((g, v)) => {
                let h = pick(g);
                // Replaces whatever generation the noise left behind...
                seq.push_back(StoreAction::Insert(h, v));
                // ...and removing stale generations must not touch it.
                seq.extend(
                    hs.iter()
                        .filter(|&&o| o != h)
                        .map(|&o| StoreAction::Remove(o)),
                );
                expected.push((h, v));
            }
            None => {
                seq.push_back(StoreAction::Insert(hs[0], 0));
                seq.push_back(StoreAction::Remove(hs[0]));
            }
        }
        seqs.push(seq);
    }
    // A random interleaving of the per-slot sequences.
    let mut history: Vec<StoreAction> = Vec::new();
    let mut picks = picks.iter().copied();
    loop {
        let live: Vec<usize> = (0..seqs.len()).filter(|&k| !seqs[k].is_empty()).collect();
        if live.is_empty() {
            break;
        }
        let k = live[picks.next().unwrap_or(0) % live.len()];
        history.push(seqs[k].pop_front().unwrap());
    }

    // Store A: the shuffled, noisy history (checked against the oracle as it goes).
    let mut a = Store::new();
    let mut oracle = StoreOracle::new();
    for (step, &action) in history.iter().enumerate() {
        let ctx = Ctx {
            label: "shuffled history ",
            step,
            op: &action,
        };
        guarded(&ctx, || apply_store(&mut a, &mut oracle, action, &ctx))?;
    }
    let logical: Vec<(Entity, u64)> = oracle.values().copied().collect();
    prop_assert_eq!(
        &logical,
        &expected,
        "test bug: history does not build the contents"
    );

    // Store B: ascending inserts (settled all along). Store C: descending inserts.
    let mut b = Store::new();
    for &(e, v) in &expected {
        b.insert(e, v);
    }
    let mut c = Store::new();
    for &(e, v) in expected.iter().rev() {
        c.insert(e, v);
    }
    let seq = |s: &Store<u64>| s.iter().map(|(e, v)| (e, *v)).collect::<Vec<_>>();
    for phase in ["before settle", "after settle"] {
        for (name, s) in [("shuffled", &a), ("ascending", &b), ("descending", &c)] {
            prop_assert_eq!(s.check_invariants(), Ok(()), "{} {}", name, phase);
            prop_assert_eq!(seq(s), expected.clone(), "{} store, {}", name, phase);
            prop_assert_eq!(
                format!("{s:?}"),
                format!("{b:?}"),
                "{} Debug, {}",
                name,
                phase
            );
        }
        if phase == "before settle" {
            // iter_mut on a clone of each unsettled store visits the same sequence.
            for (name, s) in [("shuffled", &a), ("descending", &c)] {
                let mut clone = s.clone();
                let visited: Vec<(Entity, u64)> = clone.iter_mut().map(|(e, v)| (e, *v)).collect();
                prop_assert_eq!(visited, expected.clone(), "{} iter_mut", name);
            }
            a.settle();
            b.settle();
            c.settle();
        }
    }
    // Settled stores with equal contents have identical dense columns.
    for (name, s) in [("shuffled", &a), ("descending", &c)] {
        prop_assert_eq!(s.dense_entities(), b.dense_entities(), "{} dense", name);
        prop_assert_eq!(s.dense_values(), b.dense_values(), "{} dense", name);
    }
    Ok(())
}

/// Churn on arbitrary handles (slots spread over three sparse pages, several generations).
#[derive(Copy, Clone)]
enum ChurnOp {
    Insert(Entity, u64),
    Remove(Entity),
    Clear,
    Settle,
}

fn churn_op() -> impl Strategy<Value = ChurnOp> {
    let slot = prop_oneof![4 => 0u32..48, 1 => 4090u32..4100, 1 => 8186u32..8196];
    let e = (slot, 0u32..3).prop_map(|(s, g)| handle(s, g));
    prop_oneof![
        10 => (e.clone(), any::<u64>()).prop_map(|(e, v)| ChurnOp::Insert(e, v)),
        8 => e.prop_map(ChurnOp::Remove),
        1 => Just(ChurnOp::Clear),
        1 => Just(ChurnOp::Settle),
    ]
}

fn run_churn(ops: &[ChurnOp]) -> Result<(), TestCaseError> {
    let mut store = Store::new();
    for (step, op) in ops.iter().enumerate() {
        let ctx = Ctx {
            label: "",
            step,
            op,
        };
        guarded(&ctx, || {
            match *op {
                ChurnOp::Insert(e, v) => {
                    store.insert(e, v);
                }
                ChurnOp::Remove(e) => {
                    store.remove(e);
                }
                ChurnOp::Clear => store.clear(),
                ChurnOp::Settle => store.settle(),
            }
            let slots: Vec<u32> = store.iter().map(|(e, _)| e.slot()).collect();
            prop_assert!(
                slots.windows(2).all(|w| w[0] < w[1]),
                "{}: iter() not strictly ascending: {:?}",
                ctx,
                slots
            );
            prop_assert_eq!(slots.len(), store.len(), "{}: len", ctx);
            prop_assert_eq!(
                store.check_invariants(),
                Ok(()),
                "{}: check_invariants",
                ctx
            );
            Ok(())
        })?;
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// 4. join vs the oracle intersection
// ------------------------------------------------------------------------------------------------

fn run_join(
    spec: &PoolSpec,
    ops_a: &[StoreOp],
    ops_b: &[StoreOp],
    settle: (bool, bool),
) -> Result<(), TestCaseError> {
    let pool = build_pool(spec);
    let (mut a, mut oa) = (Store::new(), StoreOracle::new());
    let (mut b, mut ob) = (Store::new(), StoreOracle::new());
    run_store_model("store a ", &mut a, &mut oa, &pool.handles, ops_a)?;
    run_store_model("store b ", &mut b, &mut ob, &pool.handles, ops_b)?;
    if settle.0 {
        a.settle();
    }
    if settle.1 {
        b.settle();
    }
    // Same slot AND same generation in both, ascending slot.
    let want: Vec<(Entity, u64, u64)> = oa
        .iter()
        .filter_map(|(slot, &(ea, va))| match ob.get(slot) {
            Some(&(eb, vb)) if eb == ea => Some((ea, va, vb)),
            _ => None,
        })
        .collect();
    let got: Vec<(Entity, u64, u64)> = join(&a, &b).map(|(e, x, y)| (e, *x, *y)).collect();
    prop_assert_eq!(
        &got,
        &want,
        "join(a, b), len {} vs {}, settled {} / {}",
        a.len(),
        b.len(),
        a.is_settled(),
        b.is_settled()
    );
    let got_ba: Vec<(Entity, u64, u64)> = join(&b, &a).map(|(e, y, x)| (e, *x, *y)).collect();
    prop_assert_eq!(&got_ba, &want, "join(b, a)");
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// The properties
// ------------------------------------------------------------------------------------------------

// One-line `Debug` for the generated inputs, so a shrunk failing case prints one op per line.

impl fmt::Debug for EntOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EntOp::Spawn => write!(f, "Spawn"),
            EntOp::Despawn(n) => write!(f, "Despawn(#{n})"),
            EntOp::DespawnForeign { slot, generation } => {
                write!(f, "DespawnForeign({slot}v{generation})")
            }
        }
    }
}

impl fmt::Debug for StoreOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StoreOp::Insert(n, v) => write!(f, "Insert(#{n}, {v})"),
            StoreOp::TryInsert(n, v) => write!(f, "TryInsert(#{n}, {v})"),
            StoreOp::Remove(n) => write!(f, "Remove(#{n})"),
            StoreOp::GetMutWrite(n, v) => write!(f, "GetMutWrite(#{n}, {v})"),
            StoreOp::Clear => write!(f, "Clear"),
            StoreOp::Settle => write!(f, "Settle"),
            StoreOp::IterMutAdd(k) => write!(f, "IterMutAdd({k})"),
        }
    }
}

impl fmt::Debug for ChurnOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ChurnOp::Insert(e, v) => write!(f, "Insert({e}, {v})"),
            ChurnOp::Remove(e) => write!(f, "Remove({e})"),
            ChurnOp::Clear => write!(f, "Clear"),
            ChurnOp::Settle => write!(f, "Settle"),
        }
    }
}

impl fmt::Debug for PoolSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PoolSpec {{ low: {}, high: {}, regen: {:?} }}",
            self.low, self.high, self.regen
        )
    }
}

proptest! {
    #![proptest_config(config())]

    /// `Entities` agrees with the Vec-of-slots oracle after every spawn/despawn.
    #[test]
    fn entities_match_oracle(
        config in ent_config(),
        ops in prop::collection::vec(ent_op(), 0..1000),
    ) {
        run_entities_model(config, &ops)?;
    }

    /// `Store<u64>` agrees with a `BTreeMap<slot, (Entity, u64)>` after every operation.
    #[test]
    fn store_matches_oracle(
        spec in pool_spec(),
        ops in prop::collection::vec(store_op(), 0..1000),
    ) {
        let pool = build_pool(&spec);
        let (mut store, mut oracle) = (Store::new(), StoreOracle::new());
        check_store(&store, &oracle, &pool.handles, &Ctx { label: "", step: 0, op: &"new" })?;
        run_store_model("", &mut store, &mut oracle, &pool.handles, &ops)?;
    }

    /// Shuffled noisy history, ascending inserts and descending inserts of the same contents
    /// iterate identically, before and after `settle()`.
    #[test]
    fn store_iteration_is_history_independent(
        (spec, contents, noise) in pool_spec().prop_flat_map(|spec| {
            let n = spec.len();
            (
                Just(spec),
                // Per pool slot: its final value (generation choice, value), or empty.
                prop::collection::vec(prop::option::weighted(0.7, (0usize..4, 0u64..1_000_000)), n),
                // Per pool slot: insert/remove noise before the final state is established.
                prop::collection::vec(
                    prop::collection::vec((any::<bool>(), 0usize..4, 0u64..1_000_000), 0..4),
                    n,
                ),
            )
        }),
        picks in prop::collection::vec(0usize..MAX_POOL, 0..200),
    ) {
        run_determinism(&spec, &contents, &noise, &picks)?;
    }

    /// After arbitrary churn `iter()` is strictly ascending by slot, whatever the dense order.
    #[test]
    fn store_iter_is_ascending_after_churn(
        ops in prop::collection::vec(churn_op(), 0..300),
    ) {
        run_churn(&ops)?;
    }

    /// `join(&a, &b)` (and `join(&b, &a)`) is the exact-entity intersection, ascending by slot.
    #[test]
    fn join_matches_oracle_intersection(
        spec in pool_spec(),
        ops_a in prop::collection::vec(store_op(), 0..300),
        ops_b in prop::collection::vec(store_op(), 0..300),
        settle in (any::<bool>(), any::<bool>()),
    ) {
        run_join(&spec, &ops_a, &ops_b, settle)?;
    }
}

// ------------------------------------------------------------------------------------------------
// 5. Documented forms: handle encodings, far-apart slots
// ------------------------------------------------------------------------------------------------

/// `Entity::to_bits` is documented as `generation << 32 | slot` (a wire format), `Display` and
/// `Debug` as `{slot}v{generation}` (what error messages print), and `Display` honours a width.
#[test]
fn handle_bits_and_text_are_the_documented_forms() {
    let e = handle(0xDEAD, 0xBEEF);
    assert_eq!(e.to_bits(), 0x0000_BEEF_0000_DEAD);
    assert_eq!(Entity::from_bits(e.to_bits()), e);
    assert_eq!(e.to_string(), "57005v48879");
    assert_eq!(format!("{e:?}"), "57005v48879");
    assert_eq!(format!("{e:>12}|{e:<12}|"), " 57005v48879|57005v48879 |");
}

/// Slots whose sparse pages are far apart (page numbers from 0 to 2^20 - 1) each keep their own
/// page: every value is found under its own handle, iteration ascends, and the store holds one
/// sparse page per 4096-slot range touched (`Store::sparse_pages`'s documented cost).
#[test]
fn far_apart_slots_keep_their_own_pages() {
    let slots = [0, 1, 4095, 4096, 1 << 20, (1 << 20) + 1, u32::MAX - 1];
    let mut store = Store::new();
    for (i, &slot) in slots.iter().enumerate() {
        assert_eq!(store.insert(handle(slot, 0), i), None, "slot {slot}");
    }
    for (i, &slot) in slots.iter().enumerate() {
        assert_eq!(store.get(handle(slot, 0)), Some(&i), "slot {slot}");
    }
    let order: Vec<u32> = store.iter().map(|(e, _)| e.slot()).collect();
    assert_eq!(order, slots);
    // Pages 0 (slots 0, 1, 4095), 1 (4096), 256 (2^20, 2^20 + 1) and 2^20 - 1 (u32::MAX - 1).
    assert_eq!(store.sparse_pages(), 4);
    store.check_invariants().unwrap();
}

/// The two cases where a store knows it is in order without sorting: values inserted in
/// ascending slot order extend the ascending run (the store stays settled, and a lower slot
/// after them unsettles it), and a store left with one value is settled whatever its history.
#[test]
fn in_order_inserts_and_a_single_value_leave_a_store_settled() {
    let mut store = Store::new();
    for slot in [0, 1, 5, 9] {
        store.insert(handle(slot, 0), slot);
        assert!(store.is_settled(), "after inserting slot {slot}");
    }
    store.insert(handle(3, 0), 3);
    assert!(!store.is_settled());
    store.settle();
    assert!(store.is_settled());
    // Removing slot 0 moves the last value (slot 9) into its place: out of order.
    assert_eq!(store.remove(handle(0, 0)), Some(0));
    assert!(!store.is_settled());
    for slot in [1, 3, 5] {
        assert_eq!(store.remove(handle(slot, 0)), Some(slot));
    }
    // Slot 9 is all that is left, and one value is in order.
    assert_eq!(store.len(), 1);
    assert!(store.is_settled());
    store.check_invariants().unwrap();
}

/// A store stamps its writes with its change tick and reports that tick: a free-standing
/// store starts at tick 0 and follows `set_change_tick`; a world's stores follow the world's
/// clock.
#[test]
fn a_store_stamps_and_reports_its_change_tick() {
    let mut store = Store::new();
    assert_eq!(store.change_tick(), Tick::new(0));
    store.set_change_tick(Tick::new(7));
    assert_eq!(store.change_tick(), Tick::new(7));
    store.insert(handle(3, 0), 'a');
    assert_eq!(store.ticks(handle(3, 0)).unwrap().added, Tick::new(7));

    let mut world = World::new();
    let e = world.spawn();
    world.change_checkpoint();
    world.change_checkpoint();
    world.insert(e, Hp(1)).unwrap();
    let store = world.store::<Hp>().unwrap();
    assert_ne!(world.change_tick(), Tick::new(0));
    assert_eq!(store.change_tick(), world.change_tick());
    assert_eq!(store.ticks(e).unwrap().added, world.change_tick());
}

#[derive(Component, Clone, Debug, PartialEq)]
struct Hp(u32);

/// `dense_mut` settles the store, stamps every value changed at the store's tick and moves the
/// store's high-water mark there, so a change check against an earlier tick sees the store as
/// written.
#[test]
fn dense_mut_marks_every_value_and_the_store_changed() {
    let mut store = Store::new();
    store.insert(handle(2, 0), 20);
    store.insert(handle(1, 0), 10);
    store.set_change_tick(Tick::new(5));
    let (entities, values) = store.dense_mut();
    assert_eq!(entities, [handle(1, 0), handle(2, 0)]);
    values[0] += 1;
    assert_eq!(store.get(handle(1, 0)), Some(&11));
    assert_eq!(store.last_changed(), Tick::new(5));
    for slot in [1, 2] {
        assert_eq!(store.ticks(handle(slot, 0)).unwrap().changed, Tick::new(5));
    }
    store.check_invariants().unwrap();
}

/// A batch despawn that leaves a store one value leaves it settled, as a single remove does
/// (one value is in order), though that value had been inserted out of order.
#[test]
fn a_batch_despawn_down_to_one_value_leaves_the_store_settled() {
    let mut world = World::new();
    let e: Vec<Entity> = (0..3).map(|_| world.spawn()).collect();
    world.insert(e[2], Hp(2)).unwrap();
    world.insert(e[1], Hp(1)).unwrap();
    assert!(!world.store::<Hp>().unwrap().is_settled());
    assert_eq!(world.despawn_batch([e[2]]), 1);
    let store = world.store::<Hp>().unwrap();
    assert_eq!(store.len(), 1);
    assert!(store.is_settled());
    world.check_invariants().unwrap();
}

/// A store's `Debug` is the map of its values by entity, in ascending slot order.
#[test]
fn a_store_debugs_as_a_map_in_slot_order() {
    let mut store = Store::new();
    store.insert(handle(2, 0), 20);
    store.insert(handle(1, 3), 10);
    assert_eq!(format!("{store:?}"), "{1v3: 10, 2v0: 20}");
    assert_eq!(format!("{:?}", Store::<u8>::new()), "{}");
}

/// `Entities::iter` is an `ExactSizeIterator`: the count of live entities left goes down by one
/// per entity yielded, skipping free slots.
#[test]
fn entity_iteration_counts_down_what_is_left() {
    let mut entities = Entities::new();
    let e: Vec<Entity> = (0..4).map(|_| entities.spawn().unwrap()).collect();
    entities.despawn(e[1]).unwrap();
    let mut iter = entities.iter();
    assert_eq!(iter.len(), 3);
    assert_eq!(iter.next(), Some(e[0]));
    assert_eq!(iter.len(), 2);
    assert_eq!(iter.next(), Some(e[2]));
    assert_eq!(iter.size_hint(), (1, Some(1)));
    assert_eq!(iter.next(), Some(e[3]));
    assert_eq!(iter.len(), 0);
    assert_eq!(iter.next(), None);
}
