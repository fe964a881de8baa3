//! Model-based property tests for `World` and `Commands`.
//!
//! Every operation is applied both to a real `World` and to an obviously-correct oracle (a
//! `BTreeMap` from slot to `(generation, components)` plus the free-slot set), and the two are
//! compared after EVERY step: liveness of every handle ever issued, `len`, every component of
//! every handle (`get`/`has`/`query_one`), `check_invariants`, and the exact visit order and
//! values of several queries (which must be ascending slot order). A divergence or a library
//! panic names the step index and the resolved operation.
//!
//! * `world_matches_oracle` — direct spawns (bundles of any subset, `spawn_batch`, small and
//!   large), `despawn_batch` (with repeated and dead handles), despawns of
//!   live, stale, double-despawned and never-issued handles, insert/remove/`get_mut`, writing
//!   `query_mut`, `settle`, and command buffers.
//! * `commands_match_oracle` — the same model weighted towards command buffers: reservations
//!   (lowest free slots ascending at record time, then fresh slots), commands against entities
//!   despawned earlier in the same buffer, runs of consecutive same-typed spawns/inserts/removes
//!   (applied grouped by store), spawns whose reserved slot was taken (by a direct
//!   spawn between `finish` and `apply`, or by a queued closure), and the exact `ApplyReport`.
//! * `queries_are_history_independent` — two different histories reaching the same contents
//!   give identical query visits (order and values), before and after `settle`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Debug, Display};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rota::{
    ApplyReport, CommandError, CommandKind, Component, Entity, EntityNotAlive, MismatchReason,
    QueryGetError, With, Without, World,
};

// ---------------------------------------------------------------------------------------------
// Components

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct A(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct B(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct C(u64);

/// A zero-sized tag.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct D;

/// The components an oracle entity has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Row {
    a: Option<A>,
    b: Option<B>,
    c: Option<C>,
    d: Option<D>,
}

/// Oracle access to one component type, so the per-type checks are written once.
trait Comp: Component + Copy + PartialEq + Debug {
    /// The type's identifier, which the derive uses as `Component::NAME`.
    const LABEL: &'static str;
    fn field(row: &Row) -> Option<Self>;
    fn field_mut(row: &mut Row) -> &mut Option<Self>;
    fn make(x: u64) -> Self;
}

impl Comp for A {
    const LABEL: &'static str = "A";
    fn field(row: &Row) -> Option<A> {
        row.a
    }
    fn field_mut(row: &mut Row) -> &mut Option<A> {
        &mut row.a
    }
    fn make(x: u64) -> A {
        A(x as u32)
    }
}

impl Comp for B {
    const LABEL: &'static str = "B";
    fn field(row: &Row) -> Option<B> {
        row.b
    }
    fn field_mut(row: &mut Row) -> &mut Option<B> {
        &mut row.b
    }
    fn make(x: u64) -> B {
        B(x as u32)
    }
}

impl Comp for C {
    const LABEL: &'static str = "C";
    fn field(row: &Row) -> Option<C> {
        row.c
    }
    fn field_mut(row: &mut Row) -> &mut Option<C> {
        &mut row.c
    }
    fn make(x: u64) -> C {
        C(x)
    }
}

impl Comp for D {
    const LABEL: &'static str = "D";
    fn field(row: &Row) -> Option<D> {
        row.d
    }
    fn field_mut(row: &mut Row) -> &mut Option<D> {
        &mut row.d
    }
    fn make(_: u64) -> D {
        D
    }
}

// ---------------------------------------------------------------------------------------------
// Bundles: a subset mask (bit 0 = A, 1 = B, 2 = C, 3 = D) and the values to use.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Vals {
    a: u32,
    b: u32,
    c: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Spec {
    mask: u8,
    vals: Vals,
}

impl Debug for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", row_of(self.mask, &self.vals))
    }
}

fn row_of(mask: u8, v: &Vals) -> Row {
    Row {
        a: (mask & 1 != 0).then_some(A(v.a)),
        b: (mask & 2 != 0).then_some(B(v.b)),
        c: (mask & 4 != 0).then_some(C(v.c)),
        d: (mask & 8 != 0).then_some(D),
    }
}

/// Runs `$body` with `$mk` bound to a closure `&Vals -> bundle tuple` for the subset `$mask`.
/// The tuples list their components in varying orders (the order must not matter).
macro_rules! with_mask {
    ($mask:expr, $mk:ident => $body:expr) => {
        match $mask & 0xF {
            0x0 => {
                // The empty bundle `()`: passing the closure's unit result is the point here.
                let $mk = |_: &Vals| ();
                #[allow(clippy::unit_arg)]
                let out = $body;
                out
            }
            0x1 => {
                let $mk = |v: &Vals| (A(v.a),);
                $body
            }
            0x2 => {
                let $mk = |v: &Vals| (B(v.b),);
                $body
            }
            0x3 => {
                let $mk = |v: &Vals| (A(v.a), B(v.b));
                $body
            }
            0x4 => {
                let $mk = |v: &Vals| (C(v.c),);
                $body
            }
            0x5 => {
                let $mk = |v: &Vals| (C(v.c), A(v.a));
                $body
            }
            0x6 => {
                let $mk = |v: &Vals| (B(v.b), C(v.c));
                $body
            }
            0x7 => {
                let $mk = |v: &Vals| (C(v.c), B(v.b), A(v.a));
                $body
            }
            0x8 => {
                let $mk = |_: &Vals| (D,);
                $body
            }
            0x9 => {
                let $mk = |v: &Vals| (D, A(v.a));
                $body
            }
            0xA => {
                let $mk = |v: &Vals| (B(v.b), D);
                $body
            }
            0xB => {
                let $mk = |v: &Vals| (A(v.a), D, B(v.b));
                $body
            }
            0xC => {
                let $mk = |v: &Vals| (C(v.c), D);
                $body
            }
            0xD => {
                let $mk = |v: &Vals| (A(v.a), C(v.c), D);
                $body
            }
            0xE => {
                let $mk = |v: &Vals| (D, C(v.c), B(v.b));
                $body
            }
            0xF => {
                let $mk = |v: &Vals| (D, C(v.c), B(v.b), A(v.a));
                $body
            }
            _ => unreachable!(),
        }
    };
}

fn spawn_direct(world: &mut World, spec: &Spec) -> Entity {
    with_mask!(spec.mask, mk => world.spawn_with(mk(&spec.vals)))
}

// ---------------------------------------------------------------------------------------------
// The oracle

/// Builds a handle from raw parts through the public API.
fn ent(slot: u32, generation: u32) -> Entity {
    Entity::from_bits((u64::from(generation) << 32) | u64::from(slot))
}

/// Live entities by slot, each slot's generation, and the free slots (reused lowest first).
#[derive(Clone, Debug, Default)]
struct Oracle {
    /// slot -> (generation, components) of every live entity.
    live: BTreeMap<u32, (u32, Row)>,
    /// For every slot ever used: the live generation, or (if free) the one the next spawn gets.
    generations: Vec<u32>,
    free: BTreeSet<u32>,
}

impl Oracle {
    fn row(&self, e: Entity) -> Option<&Row> {
        match self.live.get(&e.slot()) {
            Some((g, row)) if *g == e.generation() => Some(row),
            _ => None,
        }
    }

    fn row_mut(&mut self, e: Entity) -> Option<&mut Row> {
        match self.live.get_mut(&e.slot()) {
            Some((g, row)) if *g == e.generation() => Some(row),
            _ => None,
        }
    }

    fn is_alive(&self, e: Entity) -> bool {
        self.row(e).is_some()
    }

    fn next_spawn(&self) -> Entity {
        match self.free.first() {
            Some(&slot) => ent(slot, self.generations[slot as usize]),
            None => ent(self.generations.len() as u32, 0),
        }
    }

    fn spawn(&mut self, row: Row) -> Entity {
        let e = self.next_spawn();
        if !self.free.remove(&e.slot()) {
            self.generations.push(0);
        }
        self.live.insert(e.slot(), (e.generation(), row));
        e
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

    /// The `k`-th reservation of a buffer recorded against this state: the free slots in
    /// ascending order, then fresh slots past the end.
    fn reservation(&self, k: usize) -> Entity {
        match self.free.iter().nth(k) {
            Some(&slot) => ent(slot, self.generations[slot as usize]),
            None => ent((self.generations.len() + k - self.free.len()) as u32, 0),
        }
    }

    /// Applies a reservation if its slot is exactly as reserved (free with that generation, or
    /// the next fresh slot at generation 0).
    fn spawn_reserved(&mut self, e: Entity, row: Row) -> bool {
        let slot = e.slot() as usize;
        let ok = if slot == self.generations.len() {
            e.generation() == 0
        } else {
            self.free.contains(&e.slot()) && self.generations[slot] == e.generation()
        };
        if ok {
            if slot == self.generations.len() {
                self.generations.push(0);
            } else {
                self.free.remove(&e.slot());
            }
            self.live.insert(e.slot(), (e.generation(), row));
        }
        ok
    }

    fn live_entities(&self) -> impl Iterator<Item = (Entity, &Row)> + '_ {
        self.live.iter().map(|(&s, (g, row))| (ent(s, *g), row))
    }

    fn nth_live(&self, i: usize) -> Option<Entity> {
        if self.live.is_empty() {
            return None;
        }
        let (&s, (g, _)) = self.live.iter().nth(i % self.live.len())?;
        Some(ent(s, *g))
    }

    /// What `query_mut` writes into every `B` for `Op::QueryMutWrite(salt)`.
    fn mut_write(b: u32, a: Option<A>, salt: u32, slot: u32) -> u32 {
        b.rotate_left(5) ^ a.map_or(salt, |a| a.0) ^ slot
    }
}

// ---------------------------------------------------------------------------------------------
// Query snapshots: the same queries run on a world and predicted from an oracle.

#[derive(Debug, Default, PartialEq)]
struct Snapshot {
    a: Vec<(Entity, A)>,
    ab: Vec<(Entity, A, B)>,
    c_without_a: Vec<(Entity, Option<C>)>,
    with_d: Vec<Entity>,
    all: Vec<Entity>,
    c_opt_b_d: Vec<(Entity, C, Option<B>, bool)>,
    b_with_c_without_d: Vec<(Entity, B)>,
    d_a: Vec<(Entity, A)>,
    mut_b_opt_a: Vec<(Entity, B, Option<A>)>,
}

/// Collects a query, checking its size hint is an honest upper bound.
fn collect_checked<I: Iterator>(name: &str, it: I, errs: &mut Vec<String>) -> Vec<I::Item> {
    let (_, upper) = it.size_hint();
    let v: Vec<_> = it.collect();
    if let Some(u) = upper
        && u < v.len()
    {
        errs.push(format!(
            "{name}: size_hint upper bound {u} < {} items",
            v.len()
        ));
    }
    v
}

impl Snapshot {
    /// Runs every query: the read-only ones through `&World` first (so they see stores left
    /// unsettled by the step), then `query_mut` (which settles `A` and `B`).
    fn of(world: &mut World, errs: &mut Vec<String>) -> Snapshot {
        let w: &World = world;
        let a = collect_checked("a", w.query::<(Entity, &A)>(), errs)
            .into_iter()
            .map(|(e, a)| (e, *a))
            .collect();
        let ab = collect_checked("ab", w.query::<(Entity, &A, &B)>(), errs)
            .into_iter()
            .map(|(e, a, b)| (e, *a, *b))
            .collect();
        let c_without_a = collect_checked(
            "c_without_a",
            w.query_filtered::<(Entity, Option<&C>), Without<A>>(),
            errs,
        )
        .into_iter()
        .map(|(e, c)| (e, c.copied()))
        .collect();
        let with_d = collect_checked("with_d", w.query_filtered::<Entity, With<D>>(), errs);
        let all = collect_checked("all", w.query::<Entity>(), errs);
        let c_opt_b_d = collect_checked(
            "c_opt_b_d",
            w.query::<(Entity, &C, Option<&B>, Option<&D>)>(),
            errs,
        )
        .into_iter()
        .map(|(e, c, b, d)| (e, *c, b.copied(), d.is_some()))
        .collect();
        let b_with_c_without_d = collect_checked(
            "b_with_c_without_d",
            w.query_filtered::<(Entity, &B), (With<C>, Without<D>)>(),
            errs,
        )
        .into_iter()
        .map(|(e, b)| (e, *b))
        .collect();
        let d_a = collect_checked("d_a", w.query::<(Entity, &D, &A)>(), errs)
            .into_iter()
            .map(|(e, _, a)| (e, *a))
            .collect();
        let mut_b_opt_a = world
            .query_mut::<(Entity, &mut B, Option<&A>)>()
            .map(|(e, b, a)| (e, *b, a.copied()))
            .collect();
        Snapshot {
            a,
            ab,
            c_without_a,
            with_d,
            all,
            c_opt_b_d,
            b_with_c_without_d,
            d_a,
            mut_b_opt_a,
        }
    }

    fn expected(oracle: &Oracle) -> Snapshot {
        let live = || oracle.live_entities();
        Snapshot {
            a: live().filter_map(|(e, r)| Some((e, r.a?))).collect(),
            ab: live().filter_map(|(e, r)| Some((e, r.a?, r.b?))).collect(),
            c_without_a: live()
                .filter(|(_, r)| r.a.is_none())
                .map(|(e, r)| (e, r.c))
                .collect(),
            with_d: live()
                .filter(|(_, r)| r.d.is_some())
                .map(|(e, _)| e)
                .collect(),
            all: live().map(|(e, _)| e).collect(),
            c_opt_b_d: live()
                .filter_map(|(e, r)| Some((e, r.c?, r.b, r.d.is_some())))
                .collect(),
            b_with_c_without_d: live()
                .filter(|(_, r)| r.c.is_some() && r.d.is_none())
                .filter_map(|(e, r)| Some((e, r.b?)))
                .collect(),
            d_a: live()
                .filter(|(_, r)| r.d.is_some())
                .filter_map(|(e, r)| Some((e, r.a?)))
                .collect(),
            mut_b_opt_a: live().filter_map(|(e, r)| Some((e, r.b?, r.a))).collect(),
        }
    }

    /// Names every query whose visit differs, with the first divergence.
    fn diff(&self, exp: &Snapshot, got_label: &str, exp_label: &str) -> Result<(), String> {
        let mut out = Vec::new();
        diff_seq(&mut out, "query::<(Entity, &A)>()", &self.a, &exp.a);
        diff_seq(&mut out, "query::<(Entity, &A, &B)>()", &self.ab, &exp.ab);
        diff_seq(
            &mut out,
            "query_filtered::<(Entity, Option<&C>), Without<A>>()",
            &self.c_without_a,
            &exp.c_without_a,
        );
        diff_seq(
            &mut out,
            "query_filtered::<Entity, With<D>>()",
            &self.with_d,
            &exp.with_d,
        );
        diff_seq(&mut out, "query::<Entity>()", &self.all, &exp.all);
        diff_seq(
            &mut out,
            "query::<(Entity, &C, Option<&B>, Option<&D>)>()",
            &self.c_opt_b_d,
            &exp.c_opt_b_d,
        );
        diff_seq(
            &mut out,
            "query_filtered::<(Entity, &B), (With<C>, Without<D>)>()",
            &self.b_with_c_without_d,
            &exp.b_with_c_without_d,
        );
        diff_seq(&mut out, "query::<(Entity, &D, &A)>()", &self.d_a, &exp.d_a);
        diff_seq(
            &mut out,
            "query_mut::<(Entity, &mut B, Option<&A>)>()",
            &self.mut_b_opt_a,
            &exp.mut_b_opt_a,
        );
        if out.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "query visits differ ({got_label} vs {exp_label}):\n  {}",
                out.join("\n  ")
            ))
        }
    }
}

/// Reports the first index where two visit sequences differ, with a few items of context.
fn diff_seq<T: PartialEq + Debug>(out: &mut Vec<String>, name: &str, got: &[T], exp: &[T]) {
    if got == exp {
        return;
    }
    let i = got
        .iter()
        .zip(exp)
        .position(|(g, e)| g != e)
        .unwrap_or(got.len().min(exp.len()));
    let lo = i.saturating_sub(2);
    let window = |v: &[T]| format!("{:?}", &v[lo.min(v.len())..(i + 3).min(v.len())]);
    out.push(format!(
        "{name}: first difference at item {i} (got {} items, expected {}); from item {lo}: \
         got {}, expected {}",
        got.len(),
        exp.len(),
        window(got),
        window(exp),
    ));
}

fn check<T: PartialEq + Debug>(what: impl Display, got: T, exp: T) -> Result<(), String> {
    if got == exp {
        Ok(())
    } else {
        Err(format!(
            "{what}: world gave {got:?}, oracle expects {exp:?}"
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// Operations

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    A,
    B,
    C,
    D,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    A(u32),
    B(u32),
    C(u64),
    D,
}

/// The component's name as `CommandError`s report it (the type identifier).
fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::A => "A",
        Kind::B => "B",
        Kind::C => "C",
        Kind::D => "D",
    }
}

fn val_name(v: Val) -> &'static str {
    kind_name(match v {
        Val::A(_) => Kind::A,
        Val::B(_) => Kind::B,
        Val::C(_) => Kind::C,
        Val::D => Kind::D,
    })
}

/// A handle chosen at run time: the i-th live entity (mod the live count), the i-th handle
/// ever issued (mod their count: mostly stale ones), or raw bits (possibly never issued).
#[derive(Clone, Copy, Debug)]
enum H {
    Live(usize),
    Issued(usize),
    Raw(u32, u32),
}

/// A handle inside a command buffer: as `H`, or one reserved earlier in the same buffer.
#[derive(Clone, Copy, Debug)]
enum CH {
    H(H),
    Reserved(usize),
}

#[derive(Clone, Debug)]
enum Cmd {
    Spawn(Spec),
    Despawn(CH),
    Insert(CH, Val),
    Remove(CH, Kind),
    /// `commands.queue(|w| w.spawn_with(..))`: a direct spawn at apply time, which can take a
    /// slot a later spawn command of the same buffer reserved.
    QueueSpawn(Spec),
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(Spec),
    SpawnEmpty,
    SpawnBatch(u8, Vec<Vals>),
    Despawn(H),
    /// `despawn_batch` of the handles, in order (repeats and dead handles included).
    DespawnBatch(Vec<H>),
    Insert(H, Val),
    Remove(H, Kind),
    /// `delete::<T>`: the value dropped, not returned (marked dead in the store).
    Delete(H, Kind),
    /// `get_mut` then overwrite with a value derived from the `u64`.
    GetMut(H, Kind, u64),
    /// `query_mut::<(Entity, &mut B, Option<&A>)>()` writing `Oracle::mut_write` into every `B`.
    QueryMutWrite(u32),
    Settle,
    /// Record `cmds` in one `world.commands()` buffer, `finish`, spawn `interleave` directly,
    /// then apply it the way `how` says.
    Commands {
        cmds: Vec<Cmd>,
        interleave: Vec<Spec>,
        how: Apply,
    },
}

/// How a `Commands` op applies its buffer: `World::apply`, or `World::apply_and_settle_with`
/// (what a schedule calls) with its stores settled in reverse order, on two threads, or not at
/// all (dropped: each store must then do its removals and sort as it is dropped).
#[derive(Clone, Copy, Debug)]
enum Apply {
    Serial,
    Reverse,
    TwoThreads,
    Dropped,
}

/// Applies `queue` to `world` as `how` says.
fn apply_as(world: &mut World, queue: rota::CommandQueue, how: Apply) -> ApplyReport {
    match how {
        Apply::Serial => world.apply(queue),
        Apply::Reverse => world.apply_and_settle_with([queue], |stores| {
            stores.into_iter().rev().for_each(|s| s.settle());
        }),
        Apply::TwoThreads => world.apply_and_settle_with([queue], |stores| {
            let (odd, even): (Vec<_>, Vec<_>) = stores
                .into_iter()
                .enumerate()
                .partition(|(i, _)| i % 2 == 1);
            std::thread::scope(|scope| {
                scope.spawn(|| odd.into_iter().for_each(|(_, s)| s.settle()));
                even.into_iter().for_each(|(_, s)| s.settle());
            });
        }),
        Apply::Dropped => world.apply_and_settle_with([queue], |stores| drop(stores)),
    }
}

/// A command with its handle resolved, as the oracle replays it.
#[derive(Clone, Debug)]
enum RCmd {
    Spawn(Entity, Spec),
    Despawn(Entity),
    Insert(Entity, Val),
    Remove(Entity, Kind),
    QueueSpawn(Spec),
}

// ---------------------------------------------------------------------------------------------
// The harness: a world, its oracle and every handle ever issued.

struct Harness {
    world: World,
    oracle: Oracle,
    issued: Vec<Entity>,
    issued_set: BTreeSet<Entity>,
}

impl Harness {
    fn new() -> Harness {
        Harness {
            world: World::new(),
            oracle: Oracle::default(),
            issued: Vec::new(),
            issued_set: BTreeSet::new(),
        }
    }

    fn issue(&mut self, e: Entity) {
        if self.issued_set.insert(e) {
            self.issued.push(e);
        }
    }

    fn resolve(&self, h: H) -> Entity {
        match h {
            H::Live(i) => match self.oracle.nth_live(i) {
                Some(e) => e,
                None => self.resolve(H::Issued(i)),
            },
            H::Issued(i) if !self.issued.is_empty() => self.issued[i % self.issued.len()],
            H::Issued(i) => ent(i as u32 % 8, 0),
            H::Raw(slot, generation) => ent(slot, generation),
        }
    }

    /// A command's handle: `reserved` holds the handles reserved so far in its buffer.
    fn resolve_in_buffer(&self, ch: CH, reserved: &[Entity]) -> Entity {
        match ch {
            CH::Reserved(i) if !reserved.is_empty() => reserved[i % reserved.len()],
            CH::Reserved(i) => self.resolve(H::Issued(i)),
            CH::H(h) => self.resolve(h),
        }
    }

    /// The operation with its handles resolved, for failure messages.
    fn describe(&self, op: &Op) -> String {
        match op {
            Op::Despawn(h) => format!("{op:?} = despawn({})", self.resolve(*h)),
            Op::Insert(h, v) => format!("{op:?} = insert({}, {v:?})", self.resolve(*h)),
            Op::Remove(h, k) => format!("{op:?} = remove::<{k:?}>({})", self.resolve(*h)),
            Op::Delete(h, k) => format!("{op:?} = delete::<{k:?}>({})", self.resolve(*h)),
            Op::GetMut(h, k, _) => format!("{op:?} = get_mut::<{k:?}>({})", self.resolve(*h)),
            Op::Commands {
                cmds, interleave, ..
            } => {
                // Reservations as the oracle predicts them.
                let mut reserved = Vec::new();
                let mut parts = Vec::new();
                for cmd in cmds {
                    parts.push(match cmd {
                        Cmd::Spawn(spec) => {
                            let e = self.oracle.reservation(reserved.len());
                            reserved.push(e);
                            format!("spawn({spec:?}) -> {e}")
                        }
                        Cmd::Despawn(ch) => {
                            format!("despawn({})", self.resolve_in_buffer(*ch, &reserved))
                        }
                        Cmd::Insert(ch, v) => {
                            format!("insert({}, {v:?})", self.resolve_in_buffer(*ch, &reserved))
                        }
                        Cmd::Remove(ch, k) => format!(
                            "remove::<{k:?}>({})",
                            self.resolve_in_buffer(*ch, &reserved)
                        ),
                        Cmd::QueueSpawn(spec) => format!("queue(spawn_with({spec:?}))"),
                    });
                }
                format!(
                    "{op:?} = commands [{}], finish, {} direct spawn(s), apply (see `how`)",
                    parts.join(", "),
                    interleave.len()
                )
            }
            _ => format!("{op:?}"),
        }
    }

    fn step(&mut self, op: &Op) -> Result<(), String> {
        match op {
            Op::Spawn(spec) => {
                let exp = self.oracle.spawn(row_of(spec.mask, &spec.vals));
                let got = spawn_direct(&mut self.world, spec);
                self.issue(got);
                check("spawn_with handle", got, exp)
            }
            Op::SpawnEmpty => {
                let exp = self.oracle.spawn(Row::default());
                let got = self.world.spawn();
                self.issue(got);
                check("spawn handle", got, exp)
            }
            Op::SpawnBatch(mask, vals) => {
                let exp: Vec<Entity> = vals
                    .iter()
                    .map(|v| self.oracle.spawn(row_of(*mask, v)))
                    .collect();
                let got = with_mask!(*mask, mk => self.world.spawn_batch(vals.iter().map(mk)));
                for &e in &got {
                    self.issue(e);
                }
                check("spawn_batch handles", got, exp)
            }
            Op::Despawn(h) => {
                let e = self.resolve(*h);
                let exp = if self.oracle.despawn(e) {
                    Ok(())
                } else {
                    Err(EntityNotAlive(e))
                };
                check(format_args!("despawn({e})"), self.world.despawn(e), exp)
            }
            Op::Insert(h, v) => {
                let e = self.resolve(*h);
                match *v {
                    Val::A(x) => self.insert(e, A(x)),
                    Val::B(x) => self.insert(e, B(x)),
                    Val::C(x) => self.insert(e, C(x)),
                    Val::D => self.insert(e, D),
                }
            }
            Op::DespawnBatch(hs) => {
                let es: Vec<Entity> = hs.iter().map(|h| self.resolve(*h)).collect();
                let exp = es.iter().filter(|&&e| self.oracle.despawn(e)).count();
                let got = self.world.despawn_batch(es.iter().copied());
                check(format_args!("despawn_batch({es:?})"), got, exp)
            }
            Op::Remove(h, k) => {
                let e = self.resolve(*h);
                match k {
                    Kind::A => self.remove::<A>(e),
                    Kind::B => self.remove::<B>(e),
                    Kind::C => self.remove::<C>(e),
                    Kind::D => self.remove::<D>(e),
                }
            }
            Op::Delete(h, k) => {
                let e = self.resolve(*h);
                match k {
                    Kind::A => self.delete::<A>(e),
                    Kind::B => self.delete::<B>(e),
                    Kind::C => self.delete::<C>(e),
                    Kind::D => self.delete::<D>(e),
                }
            }
            Op::GetMut(h, k, x) => {
                let e = self.resolve(*h);
                match k {
                    Kind::A => self.get_mut::<A>(e, *x),
                    Kind::B => self.get_mut::<B>(e, *x),
                    Kind::C => self.get_mut::<C>(e, *x),
                    Kind::D => self.get_mut::<D>(e, *x),
                }
            }
            Op::QueryMutWrite(salt) => {
                let mut got = Vec::new();
                for (e, b, a) in self.world.query_mut::<(Entity, &mut B, Option<&A>)>() {
                    b.0 = Oracle::mut_write(b.0, a.copied(), *salt, e.slot());
                    got.push(e);
                }
                let mut exp = Vec::new();
                for (&slot, (g, row)) in self.oracle.live.iter_mut() {
                    if let Some(b) = &mut row.b {
                        b.0 = Oracle::mut_write(b.0, row.a, *salt, slot);
                        exp.push(ent(slot, *g));
                    }
                }
                check("writing query_mut visit order", got, exp)
            }
            Op::Settle => {
                self.world.settle();
                Ok(())
            }
            Op::Commands {
                cmds,
                interleave,
                how,
            } => self.commands(cmds, interleave, *how),
        }
    }

    fn insert<T: Comp>(&mut self, e: Entity, v: T) -> Result<(), String> {
        let exp = match self.oracle.row_mut(e) {
            Some(row) => Ok(T::field_mut(row).replace(v)),
            None => Err(EntityNotAlive(e)),
        };
        let got = self.world.insert(e, v);
        check(format_args!("insert({e}, {v:?})"), got, exp)
    }

    fn remove<T: Comp>(&mut self, e: Entity) -> Result<(), String> {
        let exp = match self.oracle.row_mut(e) {
            Some(row) => Ok(T::field_mut(row).take()),
            None => Err(EntityNotAlive(e)),
        };
        let got = self.world.remove::<T>(e);
        check(format_args!("remove::<{}>({e})", T::LABEL), got, exp)
    }

    fn delete<T: Comp>(&mut self, e: Entity) -> Result<(), String> {
        let exp = match self.oracle.row_mut(e) {
            Some(row) => Ok(T::field_mut(row).take().is_some()),
            None => Err(EntityNotAlive(e)),
        };
        let got = self.world.delete::<T>(e);
        check(format_args!("delete::<{}>({e})", T::LABEL), got, exp)
    }

    fn get_mut<T: Comp>(&mut self, e: Entity, x: u64) -> Result<(), String> {
        let new = T::make(x);
        let exp = self.oracle.row_mut(e).and_then(|row| {
            let field = T::field_mut(row);
            let old = (*field)?;
            *field = Some(new);
            Some(old)
        });
        let got = self
            .world
            .get_mut::<T>(e)
            .map(|r| std::mem::replace(r, new));
        check(format_args!("get_mut::<{}>({e})", T::LABEL), got, exp)
    }

    fn commands(&mut self, cmds: &[Cmd], interleave: &[Spec], how: Apply) -> Result<(), String> {
        // Record. The oracle does not change while recording, exactly like the allocator.
        let spawned_by_queue = Arc::new(Mutex::new(Vec::<Entity>::new()));
        let mut reserved: Vec<Entity> = Vec::new();
        let mut resolved: Vec<RCmd> = Vec::new();
        let mut record_errors = Vec::new();
        let queue = {
            let mut commands = self.world.commands();
            for cmd in cmds {
                let resolve = |ch: &CH| self.resolve_in_buffer(*ch, &reserved);
                match cmd {
                    Cmd::Spawn(spec) => {
                        let exp = self.oracle.reservation(reserved.len());
                        let got = with_mask!(spec.mask, mk => commands.spawn(mk(&spec.vals)));
                        if got != exp {
                            record_errors.push(format!(
                                "reservation #{}: Commands::spawn reserved {got}, oracle expects \
                                 {exp}",
                                reserved.len()
                            ));
                        }
                        reserved.push(got);
                        resolved.push(RCmd::Spawn(got, *spec));
                    }
                    Cmd::Despawn(ch) => {
                        let e = resolve(ch);
                        commands.despawn(e);
                        resolved.push(RCmd::Despawn(e));
                    }
                    Cmd::Insert(ch, v) => {
                        let e = resolve(ch);
                        match *v {
                            Val::A(x) => commands.insert(e, A(x)),
                            Val::B(x) => commands.insert(e, B(x)),
                            Val::C(x) => commands.insert(e, C(x)),
                            Val::D => commands.insert(e, D),
                        }
                        resolved.push(RCmd::Insert(e, *v));
                    }
                    Cmd::Remove(ch, k) => {
                        let e = resolve(ch);
                        match k {
                            Kind::A => commands.remove::<A>(e),
                            Kind::B => commands.remove::<B>(e),
                            Kind::C => commands.remove::<C>(e),
                            Kind::D => commands.remove::<D>(e),
                        }
                        resolved.push(RCmd::Remove(e, *k));
                    }
                    Cmd::QueueSpawn(spec) => {
                        let sink = Arc::clone(&spawned_by_queue);
                        let spec = *spec;
                        commands.queue(move |w: &mut World| {
                            let e = spawn_direct(w, &spec);
                            sink.lock().unwrap_or_else(PoisonError::into_inner).push(e);
                        });
                        resolved.push(RCmd::QueueSpawn(spec));
                    }
                }
            }
            if commands.len() != cmds.len() {
                record_errors.push(format!(
                    "Commands::len() = {}, {} recorded",
                    commands.len(),
                    cmds.len()
                ));
            }
            commands.finish()
        };
        let listing =
            || format!("resolved buffer: {resolved:?}, interleaved spawns: {interleave:?}");
        if !record_errors.is_empty() {
            return Err(format!("{}; {}", record_errors.join("; "), listing()));
        }
        check("CommandQueue::len()", queue.len(), cmds.len())?;

        // Direct spawns between `finish` and `apply`: they may take reserved slots.
        for spec in interleave {
            let exp = self.oracle.spawn(row_of(spec.mask, &spec.vals));
            let got = spawn_direct(&mut self.world, spec);
            self.issue(got);
            check("interleaved spawn_with handle", got, exp)?;
        }

        let report = apply_as(&mut self.world, queue, how);

        // Replay on the oracle.
        let mut exp_report = ApplyReport::default();
        let mut exp_queued = Vec::new();
        // Reservations whose spawn was skipped: later commands naming them are skipped too.
        let mut failed: Vec<Entity> = Vec::new();
        for (index, rc) in resolved.iter().enumerate() {
            let target = match *rc {
                RCmd::Despawn(e) => Some((e, CommandKind::Despawn, None)),
                RCmd::Insert(e, v) => Some((e, CommandKind::Insert, Some(val_name(v)))),
                RCmd::Remove(e, k) => Some((e, CommandKind::Remove, Some(kind_name(k)))),
                RCmd::Spawn(..) | RCmd::QueueSpawn(_) => None,
            };
            if let Some((entity, command, component)) = target
                && failed.contains(&entity)
            {
                exp_report.errors.push(CommandError::ReservationFailed {
                    index,
                    command,
                    component,
                    entity,
                });
                continue;
            }
            let not_alive = |command, component, entity| CommandError::EntityNotAlive {
                index,
                command,
                component,
                entity,
            };
            let result = match *rc {
                RCmd::Spawn(e, spec) => {
                    if self.oracle.spawn_reserved(e, row_of(spec.mask, &spec.vals)) {
                        Ok(())
                    } else {
                        failed.push(e);
                        Err(CommandError::ReservationTaken { index, entity: e })
                    }
                }
                RCmd::Despawn(e) => {
                    if self.oracle.despawn(e) {
                        Ok(())
                    } else {
                        Err(not_alive(CommandKind::Despawn, None, e))
                    }
                }
                RCmd::Insert(e, v) => match self.oracle.row_mut(e) {
                    Some(row) => {
                        match v {
                            Val::A(x) => row.a = Some(A(x)),
                            Val::B(x) => row.b = Some(B(x)),
                            Val::C(x) => row.c = Some(C(x)),
                            Val::D => row.d = Some(D),
                        }
                        Ok(())
                    }
                    None => Err(not_alive(CommandKind::Insert, Some(val_name(v)), e)),
                },
                RCmd::Remove(e, k) => match self.oracle.row_mut(e) {
                    Some(row) => {
                        match k {
                            Kind::A => row.a = None,
                            Kind::B => row.b = None,
                            Kind::C => row.c = None,
                            Kind::D => row.d = None,
                        }
                        Ok(())
                    }
                    None => Err(not_alive(CommandKind::Remove, Some(kind_name(k)), e)),
                },
                RCmd::QueueSpawn(spec) => {
                    exp_queued.push(self.oracle.spawn(row_of(spec.mask, &spec.vals)));
                    Ok(())
                }
            };
            match result {
                Ok(()) => exp_report.applied += 1,
                Err(e) => exp_report.errors.push(e),
            }
        }
        let got_queued = std::mem::take(
            &mut *spawned_by_queue
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for &e in reserved.iter().chain(&got_queued) {
            self.issue(e);
        }
        check("ApplyReport", &report, &exp_report).map_err(|m| format!("{m}; {}", listing()))?;
        check("handles spawned by queued closures", got_queued, exp_queued)
            .map_err(|m| format!("{m}; {}", listing()))
    }

    /// Compares everything observable with the oracle.
    fn compare(&mut self) -> Result<(), String> {
        self.world
            .check_invariants()
            .map_err(|e| format!("check_invariants failed: {e}"))?;
        check("world.len()", self.world.len(), self.oracle.live.len())?;
        check(
            "world.is_empty()",
            self.world.is_empty(),
            self.oracle.live.is_empty(),
        )?;
        // Every handle ever issued (which includes every live one), plus the handle the next
        // spawn will get (not alive yet; possibly a stale or never-issued bit pattern).
        let next = self.oracle.next_spawn();
        for &e in self.issued.iter().chain([&next]) {
            let row = self.oracle.row(e);
            check(
                format_args!("is_alive({e})"),
                self.world.is_alive(e),
                row.is_some(),
            )?;
            self.check_components::<A>(e, row)?;
            self.check_components::<B>(e, row)?;
            self.check_components::<C>(e, row)?;
            self.check_components::<D>(e, row)?;
            let exp_ab = match row {
                None => Err(QueryGetError::Dead(EntityNotAlive(e))),
                Some(r) => match (r.a, r.b) {
                    (Some(a), Some(b)) => Ok((a, b)),
                    (None, _) => Err(mismatch(e, "A", MismatchReason::Lacks)),
                    (Some(_), None) => Err(mismatch(e, "B", MismatchReason::Lacks)),
                },
            };
            let got_ab = self.world.query_one::<(&A, &B)>(e).map(|(a, b)| (*a, *b));
            check(format_args!("query_one::<(&A, &B)>({e})"), got_ab, exp_ab)?;
            let exp_cd = match row {
                None => Err(QueryGetError::Dead(EntityNotAlive(e))),
                Some(r) => match (r.c, r.d) {
                    (None, _) => Err(mismatch(e, "C", MismatchReason::Lacks)),
                    (Some(_), Some(_)) => Err(mismatch(e, "D", MismatchReason::HasExcluded)),
                    (Some(c), None) => Ok(c),
                },
            };
            let got_cd = self
                .world
                .query_one::<(&C, Without<D>)>(e)
                .map(|(c, ())| *c);
            check(
                format_args!("query_one::<(&C, Without<D>)>({e})"),
                got_cd,
                exp_cd,
            )?;
        }
        let mut errs = Vec::new();
        let got = Snapshot::of(&mut self.world, &mut errs);
        if !errs.is_empty() {
            return Err(errs.join("; "));
        }
        got.diff(&Snapshot::expected(&self.oracle), "world", "oracle")?;
        // `query_mut` settled stores: the invariants must survive that too.
        self.world
            .check_invariants()
            .map_err(|e| format!("check_invariants failed after query_mut: {e}"))
    }

    fn check_components<T: Comp>(&self, e: Entity, row: Option<&Row>) -> Result<(), String> {
        let exp = row.and_then(T::field);
        check(
            format_args!("get::<{}>({e})", T::LABEL),
            self.world.get::<T>(e).copied(),
            exp,
        )?;
        check(
            format_args!("has::<{}>({e})", T::LABEL),
            self.world.has::<T>(e),
            exp.is_some(),
        )
    }
}

fn mismatch(entity: Entity, component: &'static str, reason: MismatchReason) -> QueryGetError {
    QueryGetError::Mismatch {
        entity,
        component,
        reason,
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// Runs `ops` on a fresh world and its oracle, comparing after every step.
fn run_model(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut h = Harness::new();
    if let Err(msg) = h.compare() {
        return Err(TestCaseError::fail(format!("empty world: {msg}")));
    }
    for (i, op) in ops.iter().enumerate() {
        let desc = h.describe(op);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            h.step(op)?;
            h.compare()
        }));
        let msg = match outcome {
            Ok(Ok(())) => continue,
            Ok(Err(msg)) => msg,
            Err(payload) => format!("panicked: {}", panic_message(&*payload)),
        };
        return Err(TestCaseError::fail(format!(
            "step {i} of {}: {desc}: {msg}",
            ops.len()
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Strategies

fn config() -> ProptestConfig {
    config_with_cases(256)
}

/// [`config`] with another default case count (`PROPTEST_CASES` still overrides it).
fn config_with_cases(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: crate::cases(cases),
        // A failing long case needs more than the default shrink budget to get short.
        max_shrink_iters: crate::shrink_iters(1 << 14),
        max_shrink_time: 120_000,
        ..ProptestConfig::default()
    }
}

fn vals() -> impl Strategy<Value = Vals> {
    (0u32..1000, 0u32..1000, 0u64..1000).prop_map(|(a, b, c)| Vals { a, b, c })
}

fn spec() -> impl Strategy<Value = Spec> {
    (0u8..16, vals()).prop_map(|(mask, vals)| Spec { mask, vals })
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![Just(Kind::A), Just(Kind::B), Just(Kind::C), Just(Kind::D)]
}

fn val() -> impl Strategy<Value = Val> {
    prop_oneof![
        (0u32..1000).prop_map(Val::A),
        (0u32..1000).prop_map(Val::B),
        (0u64..1000).prop_map(Val::C),
        Just(Val::D),
    ]
}

fn handle() -> impl Strategy<Value = H> {
    prop_oneof![
        6 => (0usize..1000).prop_map(H::Live),
        3 => (0usize..1000).prop_map(H::Issued),
        1 => (0u32..48, 0u32..4).prop_map(|(s, g)| H::Raw(s, g)),
    ]
}

fn cmd_handle() -> impl Strategy<Value = CH> {
    prop_oneof![
        3 => handle().prop_map(CH::H),
        2 => (0usize..1000).prop_map(CH::Reserved),
    ]
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        3 => spec().prop_map(Cmd::Spawn),
        3 => cmd_handle().prop_map(Cmd::Despawn),
        3 => (cmd_handle(), val()).prop_map(|(h, v)| Cmd::Insert(h, v)),
        2 => (cmd_handle(), kind()).prop_map(|(h, k)| Cmd::Remove(h, k)),
        1 => spec().prop_map(Cmd::QueueSpawn),
    ]
}

fn val_of(k: Kind, x: u64) -> Val {
    match k {
        Kind::A => Val::A(x as u32),
        Kind::B => Val::B(x as u32),
        Kind::C => Val::C(x),
        Kind::D => Val::D,
    }
}

/// Consecutive commands of one kind and one bundle/component type: `World::apply` applies such
/// a run with one store lookup, so the model must see them side by side.
fn cmd_run() -> impl Strategy<Value = Vec<Cmd>> {
    prop_oneof![
        (0u8..16, vec(vals(), 1..6)).prop_map(|(mask, vs)| vs
            .into_iter()
            .map(|vals| Cmd::Spawn(Spec { mask, vals }))
            .collect()),
        (kind(), vec((cmd_handle(), 0u64..1000), 1..6)).prop_map(|(k, hs)| hs
            .into_iter()
            .map(|(h, x)| Cmd::Insert(h, val_of(k, x)))
            .collect()),
        (kind(), vec(cmd_handle(), 1..6))
            .prop_map(|(k, hs)| hs.into_iter().map(|h| Cmd::Remove(h, k)).collect()),
    ]
}

fn commands_op(max_cmds: usize) -> impl Strategy<Value = Op> {
    (
        vec(
            prop_oneof![3 => cmd().prop_map(|c| vec![c]), 1 => cmd_run()],
            0..max_cmds,
        )
        .prop_map(|runs| runs.into_iter().flatten().collect::<Vec<Cmd>>()),
        prop_oneof![5 => Just(Vec::new()), 1 => vec(spec(), 1..3)],
        prop_oneof![
            Just(Apply::Serial),
            Just(Apply::Reverse),
            Just(Apply::TwoThreads),
            Just(Apply::Dropped),
        ],
    )
        .prop_map(|(cmds, interleave, how)| Op::Commands {
            cmds,
            interleave,
            how,
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => spec().prop_map(Op::Spawn),
        1 => Just(Op::SpawnEmpty),
        1 => (0u8..16, vec(vals(), 0..6)).prop_map(|(m, v)| Op::SpawnBatch(m, v)),
        1 => (0u8..16, vec(vals(), 16..64)).prop_map(|(m, v)| Op::SpawnBatch(m, v)),
        6 => handle().prop_map(Op::Despawn),
        2 => vec(handle(), 0..12).prop_map(Op::DespawnBatch),
        6 => (handle(), val()).prop_map(|(h, v)| Op::Insert(h, v)),
        4 => (handle(), kind()).prop_map(|(h, k)| Op::Remove(h, k)),
        3 => (handle(), kind()).prop_map(|(h, k)| Op::Delete(h, k)),
        2 => (handle(), kind(), 0u64..1000).prop_map(|(h, k, x)| Op::GetMut(h, k, x)),
        1 => (0u32..1000).prop_map(Op::QueryMutWrite),
        1 => Just(Op::Settle),
        3 => commands_op(12),
    ]
}

fn commands_heavy_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => commands_op(16),
        3 => handle().prop_map(Op::Despawn),
        1 => vec(handle(), 0..8).prop_map(Op::DespawnBatch),
        2 => spec().prop_map(Op::Spawn),
        1 => (0u8..16, vec(vals(), 0..4)).prop_map(|(m, v)| Op::SpawnBatch(m, v)),
        1 => (handle(), val()).prop_map(|(h, v)| Op::Insert(h, v)),
        1 => (handle(), kind()).prop_map(|(h, k)| Op::Remove(h, k)),
    ]
}

proptest! {
    // 128 cases by default, where the other properties run 256: these two were 39 s of the
    // `model` binary's 72 s of CPU at 256 (opt-level 0; docs/testing.md, "Test time"). CI
    // runs them again at 256 (`PROPTEST_CASES` in `.ci/run`'s second step), and the soak for
    // minutes.
    #![proptest_config(config_with_cases(128))]

    // Up to 180 operations: `Harness::compare` checks every handle ever issued after every
    // step, so a case costs about the square of its length; at up to 320 this test took 53 s,
    // at 240 32 s, at 200 20.5–22.7 s, the longest of the README's test command
    // (docs/testing.md, "Test time"). Longer histories are the soak's (`cargo xtask soak`, in
    // CI).
    #[test]
    fn world_matches_oracle(ops in vec(op(), 1..180)) {
        run_model(&ops)?;
    }

    #[test]
    fn commands_match_oracle(ops in vec(commands_heavy_op(), 1..120)) {
        run_model(&ops)?;
    }
}

// ---------------------------------------------------------------------------------------------
// History independence

/// What one entity ends up as.
#[derive(Clone, Copy, Debug)]
struct Target {
    alive: bool,
    spec: Spec,
}

#[derive(Clone, Debug)]
enum Noise {
    Insert(usize, Val),
    Remove(usize, Kind),
}

/// One way of reaching the targets.
#[derive(Clone, Debug)]
struct History {
    /// 0: `spawn_batch` of empty bundles; 1: `spawn_with` a full junk bundle each; 2: command
    /// buffer spawns of junk; 3: `spawn_batch` of full junk bundles.
    spawn_mode: u8,
    /// Random inserts and removes before the fix-up.
    noise: Vec<Noise>,
    /// Apply the noise through one command buffer instead of directly.
    noise_via_commands: bool,
    /// Call `settle` between noise and fix-up.
    settle_midway: bool,
    /// Orders the fix-up (set every component to its target, despawn the dead).
    seed: u64,
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

const JUNK: Vals = Vals {
    a: 7_777,
    b: 8_888,
    c: 9_999,
};

fn insert_val(world: &mut World, e: Entity, v: Val) -> bool {
    match v {
        Val::A(x) => world.insert(e, A(x)).is_ok(),
        Val::B(x) => world.insert(e, B(x)).is_ok(),
        Val::C(x) => world.insert(e, C(x)).is_ok(),
        Val::D => world.insert(e, D).is_ok(),
    }
}

fn remove_kind(world: &mut World, e: Entity, k: Kind) -> bool {
    match k {
        Kind::A => world.remove::<A>(e).is_ok(),
        Kind::B => world.remove::<B>(e).is_ok(),
        Kind::C => world.remove::<C>(e).is_ok(),
        Kind::D => world.remove::<D>(e).is_ok(),
    }
}

/// Builds a world from `targets` through `history`; returns it with the handles spawned.
fn build(targets: &[Target], history: &History) -> Result<World, String> {
    let n = targets.len();
    let mut world = World::new();
    let handles: Vec<Entity> = match history.spawn_mode % 4 {
        0 => world.spawn_batch((0..n).map(|_| ())),
        1 => (0..n)
            .map(|_| world.spawn_with((A(JUNK.a), B(JUNK.b), C(JUNK.c), D)))
            .collect(),
        2 => {
            let mut commands = world.commands();
            let hs = (0..n)
                .map(|_| commands.spawn((D, C(JUNK.c), B(JUNK.b), A(JUNK.a))))
                .collect();
            let queue = commands.finish();
            let report = world.apply(queue);
            check("spawn report", report.applied, n)?;
            hs
        }
        _ => world.spawn_batch((0..n).map(|_| (B(JUNK.b), D, A(JUNK.a), C(JUNK.c)))),
    };
    let expected_handles: Vec<Entity> = (0..n as u32).map(|s| ent(s, 0)).collect();
    check("spawned handles", &handles, &expected_handles)?;

    if history.noise_via_commands {
        let mut commands = world.commands();
        for noise in &history.noise {
            match *noise {
                Noise::Insert(i, v) => {
                    let e = handles[i % n];
                    match v {
                        Val::A(x) => commands.insert(e, A(x)),
                        Val::B(x) => commands.insert(e, B(x)),
                        Val::C(x) => commands.insert(e, C(x)),
                        Val::D => commands.insert(e, D),
                    }
                }
                Noise::Remove(i, k) => {
                    let e = handles[i % n];
                    match k {
                        Kind::A => commands.remove::<A>(e),
                        Kind::B => commands.remove::<B>(e),
                        Kind::C => commands.remove::<C>(e),
                        Kind::D => commands.remove::<D>(e),
                    }
                }
            }
        }
        let queue = commands.finish();
        let report = world.apply(queue);
        check(
            "noise report",
            &report,
            &ApplyReport {
                applied: history.noise.len(),
                errors: Vec::new(),
            },
        )?;
    } else {
        for noise in &history.noise {
            let ok = match *noise {
                Noise::Insert(i, v) => insert_val(&mut world, handles[i % n], v),
                Noise::Remove(i, k) => remove_kind(&mut world, handles[i % n], k),
            };
            check(format_args!("{noise:?} succeeded"), ok, true)?;
        }
    }
    if history.settle_midway {
        world.settle();
    }

    // Fix-up items: (entity, 0..4 = component A..D, 4 = despawn), in a seeded order.
    let mut items: Vec<(u64, usize, u8)> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        for what in 0..5u8 {
            if what == 4 && t.alive {
                continue;
            }
            let key = splitmix(history.seed ^ splitmix(((i as u64) << 8) | u64::from(what)));
            items.push((key, i, what));
        }
    }
    items.sort_unstable();
    for &(_, i, what) in &items {
        let e = handles[i];
        let row = row_of(targets[i].spec.mask, &targets[i].spec.vals);
        let alive = world.is_alive(e);
        let ok = match what {
            0 => match row.a {
                Some(A(x)) => insert_val(&mut world, e, Val::A(x)),
                None => remove_kind(&mut world, e, Kind::A),
            },
            1 => match row.b {
                Some(B(x)) => insert_val(&mut world, e, Val::B(x)),
                None => remove_kind(&mut world, e, Kind::B),
            },
            2 => match row.c {
                Some(C(x)) => insert_val(&mut world, e, Val::C(x)),
                None => remove_kind(&mut world, e, Kind::C),
            },
            3 => match row.d {
                Some(D) => insert_val(&mut world, e, Val::D),
                None => remove_kind(&mut world, e, Kind::D),
            },
            _ => world.despawn(e).is_ok(),
        };
        // Operations on a despawned entity must fail; on a live one succeed.
        check(format_args!("fix-up {what} on {e} succeeded"), ok, alive)?;
    }
    world.check_invariants()?;
    Ok(world)
}

fn target() -> impl Strategy<Value = Target> {
    (prop::bool::weighted(0.8), spec()).prop_map(|(alive, spec)| Target { alive, spec })
}

fn history() -> impl Strategy<Value = History> {
    let noise = prop_oneof![
        (0usize..64, val()).prop_map(|(i, v)| Noise::Insert(i, v)),
        (0usize..64, kind()).prop_map(|(i, k)| Noise::Remove(i, k)),
    ];
    (
        0u8..4,
        vec(noise, 0..120),
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(
            |(spawn_mode, noise, noise_via_commands, settle_midway, seed)| History {
                spawn_mode,
                noise,
                noise_via_commands,
                settle_midway,
                seed,
            },
        )
}

fn history_independence(targets: &[Target], h1: &History, h2: &History) -> Result<(), String> {
    let mut oracle = Oracle::default();
    let handles: Vec<Entity> = targets
        .iter()
        .map(|t| oracle.spawn(row_of(t.spec.mask, &t.spec.vals)))
        .collect();
    for (t, &e) in targets.iter().zip(&handles) {
        if !t.alive {
            oracle.despawn(e);
        }
    }
    let expected = Snapshot::expected(&oracle);
    let mut w1 = build(targets, h1).map_err(|m| format!("building history 1: {m}"))?;
    let mut w2 = build(targets, h2).map_err(|m| format!("building history 2: {m}"))?;
    check("len of the two worlds", w1.len(), w2.len())?;
    let mut errs = Vec::new();
    // Unsettled (as the histories left them), then settled, twice each.
    let s1 = Snapshot::of(&mut w1, &mut errs);
    let s2 = Snapshot::of(&mut w2, &mut errs);
    w1.settle();
    w2.settle();
    let s1_settled = Snapshot::of(&mut w1, &mut errs);
    let s2_settled = Snapshot::of(&mut w2, &mut errs);
    if !errs.is_empty() {
        return Err(errs.join("; "));
    }
    s1.diff(&s2, "history 1", "history 2")?;
    s1.diff(&expected, "history 1", "the targets")?;
    s1_settled.diff(&s1, "history 1 settled", "history 1 unsettled")?;
    s2_settled.diff(&s2, "history 2 settled", "history 2 unsettled")?;
    for (label, w) in [("history 1", &w1), ("history 2", &w2)] {
        for (e, row) in oracle.live_entities() {
            check(
                format_args!("{label}: get::<A>({e})"),
                w.get::<A>(e).copied(),
                row.a,
            )?;
            check(
                format_args!("{label}: get::<C>({e})"),
                w.get::<C>(e).copied(),
                row.c,
            )?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn queries_are_history_independent(
        targets in vec(target(), 1..48),
        h1 in history(),
        h2 in history(),
    ) {
        let outcome = catch_unwind(AssertUnwindSafe(|| history_independence(&targets, &h1, &h2)));
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(msg)) => return Err(TestCaseError::fail(msg)),
            Err(payload) => {
                return Err(TestCaseError::fail(format!(
                    "panicked: {}",
                    panic_message(&*payload)
                )));
            }
        }
    }
}
