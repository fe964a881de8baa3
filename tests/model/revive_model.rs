//! Deletes, revives and snapshots against a `BTreeMap` oracle (written by a review of the
//! one-lookup insert and delete paths, `5f7e26a`). A world is driven by random spawns,
//! batches, inserts, deletes, removes, delete-then-insert, `get_mut`, despawns (single and
//! batched, and in bulk so dead elements outnumber live ones and the next append compacts),
//! partial `&mut` walks, settles, checkpoints, command buffers applied three ways, and
//! snapshots (`snapshot`, `snapshot_into`, `restore`, into a fresh world; up to three alive),
//! with about one handle pick in six a stale one; the change clock starts at 0, near
//! `u32::MAX` or anywhere. After every step the world — and every live snapshot, against the
//! oracle state it was taken from — is compared on `check_invariants`, liveness, every value
//! and its added/changed ticks, query, store and join order, `Added`/`Changed` from the last
//! three checkpoints, and each snapshot's `full_checksum`. The second property puts the tested
//! entities across a 4096-slot sparse page boundary.

use std::collections::BTreeMap;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rota::{Added, Changed, Component, Entity, Snapshot, StableHash, Tick, World};

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct P(u32);

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
pub struct Z;

#[derive(Component, StableHash, Clone, Debug, PartialEq)]
pub struct S(String);

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
#[component(no_snapshot)]
pub struct X(u32);

pub trait Comp: Component + Sized {
    const K: usize;
    const LABEL: &'static str;
    fn make(v: u32) -> Self;
    fn val(&self) -> u32;
    /// The value the oracle stores for `make(v)`.
    fn norm(v: u32) -> u32 {
        v
    }
}
impl Comp for P {
    const K: usize = 0;
    const LABEL: &'static str = "P";
    fn make(v: u32) -> Self {
        P(v)
    }
    fn val(&self) -> u32 {
        self.0
    }
}
impl Comp for Z {
    const K: usize = 1;
    const LABEL: &'static str = "Z";
    fn make(_: u32) -> Self {
        Z
    }
    fn val(&self) -> u32 {
        0
    }
    fn norm(_: u32) -> u32 {
        0
    }
}
impl Comp for S {
    const K: usize = 2;
    const LABEL: &'static str = "S";
    fn make(v: u32) -> Self {
        S(v.to_string())
    }
    fn val(&self) -> u32 {
        self.0.parse().unwrap()
    }
}
impl Comp for X {
    const K: usize = 3;
    const LABEL: &'static str = "X";
    fn make(v: u32) -> Self {
        X(v)
    }
    fn val(&self) -> u32 {
        self.0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub v: u32,
    pub added: u32,
    pub changed: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Model {
    /// slot -> (entity, [P, Z, S, X])
    pub live: BTreeMap<u32, (Entity, [Option<Cell>; 4])>,
    pub checkpoints: Vec<u32>,
    /// Entities spawned first, with nothing, never touched (push the rest past a sparse page).
    pub pad: usize,
}

impl Model {
    fn alive(&self, e: Entity) -> bool {
        self.live.get(&e.slot()).is_some_and(|(h, _)| *h == e)
    }
    fn row_mut(&mut self, e: Entity) -> Option<&mut [Option<Cell>; 4]> {
        match self.live.get_mut(&e.slot()) {
            Some((h, row)) if *h == e => Some(row),
            _ => None,
        }
    }
    fn any_x(&self) -> bool {
        self.live.values().any(|(_, r)| r[3].is_some())
    }
    fn spawn(&mut self, e: Entity, row: [Option<Cell>; 4]) -> Result<(), String> {
        if self.live.contains_key(&e.slot()) {
            return Err(format!("spawned {e:?} into a live slot"));
        }
        self.live.insert(e.slot(), (e, row));
        Ok(())
    }
}

fn newer(t: u32, since: u32, now: u32) -> bool {
    now.wrapping_sub(t) < now.wrapping_sub(since)
}

fn check_kind<T: Comp>(
    world: &World,
    model: &Model,
    handles: &[Entity],
    what: &str,
) -> Result<(), String> {
    let store = world.store::<T>();
    let mut count = 0;
    for &h in handles {
        let exp = model
            .live
            .get(&h.slot())
            .filter(|(e, _)| *e == h)
            .and_then(|(_, r)| r[T::K]);
        let got = world.get::<T>(h).map(|v| v.val());
        if got != exp.map(|c| c.v) {
            return Err(format!(
                "{what}: get::<{}>({h:?}) = {got:?}, expected {exp:?}",
                T::LABEL
            ));
        }
        if world.has::<T>(h) != exp.is_some() {
            return Err(format!("{what}: has::<{}>({h:?}) wrong", T::LABEL));
        }
        let ticks = store.and_then(|s| s.ticks(h));
        let got_t = ticks.map(|t| (t.added.get(), t.changed.get()));
        let exp_t = exp.map(|c| (c.added, c.changed));
        if got_t != exp_t {
            return Err(format!(
                "{what}: ticks::<{}>({h:?}) = {got_t:?}, expected {exp_t:?}",
                T::LABEL
            ));
        }
    }
    let exp: Vec<(Entity, u32)> = model
        .live
        .values()
        .filter_map(|(e, r)| r[T::K].map(|c| (*e, c.v)))
        .collect();
    count += exp.len();
    let got: Vec<(Entity, u32)> = world
        .query::<(Entity, &T)>()
        .map(|(e, v)| (e, v.val()))
        .collect();
    if got != exp {
        return Err(format!(
            "{what}: query::<(Entity,&{})> = {got:?}, expected {exp:?}",
            T::LABEL
        ));
    }
    let len = store.map_or(0, |s| s.len());
    if len != count {
        return Err(format!(
            "{what}: store {} len {len}, expected {count}",
            T::LABEL
        ));
    }
    if let Some(s) = store {
        let iter: Vec<(Entity, u32)> = s.iter().map(|(e, v)| (e, v.val())).collect();
        if iter != exp {
            return Err(format!("{what}: store {} iter = {iter:?}", T::LABEL));
        }
        let mut un: Vec<(Entity, u32)> = s.iter_unordered().map(|(e, v)| (e, v.val())).collect();
        un.sort_by_key(|(e, _)| e.slot());
        if un != exp {
            return Err(format!(
                "{what}: store {} iter_unordered = {un:?}",
                T::LABEL
            ));
        }
        // The iterator is an `ExactSizeIterator`: its length, dead elements skipped.
        if s.iter_unordered().len() != exp.len() {
            return Err(format!(
                "{what}: store {} iter_unordered().len() = {}, {} held",
                T::LABEL,
                s.iter_unordered().len(),
                exp.len()
            ));
        }
    }
    // Change detection from every checkpoint.
    let now = world.change_tick().get();
    for &c in &model.checkpoints {
        let exp_added: Vec<Entity> = model
            .live
            .values()
            .filter_map(|(e, r)| r[T::K].filter(|c2| newer(c2.added, c, now)).map(|_| *e))
            .collect();
        let got_added: Vec<Entity> = world
            .query_since::<Entity, Added<T>>(Tick::new(c))
            .collect();
        if got_added != exp_added {
            return Err(format!(
                "{what}: Added<{}> since {c} (now {now}) = {got_added:?}, expected {exp_added:?}",
                T::LABEL
            ));
        }
        let exp_changed: Vec<Entity> = model
            .live
            .values()
            .filter_map(|(e, r)| r[T::K].filter(|c2| newer(c2.changed, c, now)).map(|_| *e))
            .collect();
        let got_changed: Vec<Entity> = world
            .query_since::<Entity, Changed<T>>(Tick::new(c))
            .collect();
        if got_changed != exp_changed {
            return Err(format!(
                "{what}: Changed<{}> since {c} (now {now}) = {got_changed:?}, expected {exp_changed:?}",
                T::LABEL
            ));
        }
    }
    Ok(())
}

pub fn check_world(
    world: &World,
    model: &Model,
    handles: &[Entity],
    what: &str,
) -> Result<(), String> {
    world
        .check_invariants()
        .map_err(|e| format!("{what}: check_invariants: {e}"))?;
    if world.len() != model.live.len() + model.pad {
        return Err(format!(
            "{what}: len {} expected {}",
            world.len(),
            model.live.len() + model.pad
        ));
    }
    for &h in handles {
        if world.is_alive(h) != model.alive(h) {
            return Err(format!("{what}: is_alive({h:?}) = {}", world.is_alive(h)));
        }
    }
    check_kind::<P>(world, model, handles, what)?;
    check_kind::<Z>(world, model, handles, what)?;
    check_kind::<S>(world, model, handles, what)?;
    check_kind::<X>(world, model, handles, what)?;
    // A join over two stores, one of them a tag, with an optional third.
    let exp: Vec<(Entity, u32, Option<u32>)> = model
        .live
        .values()
        .filter(|(_, r)| r[0].is_some() && r[1].is_some())
        .map(|(e, r)| (*e, r[0].unwrap().v, r[2].map(|c| c.v)))
        .collect();
    let got: Vec<(Entity, u32, Option<u32>)> = world
        .query::<(Entity, &P, &Z, Option<&S>)>()
        .map(|(e, p, _, s)| (e, p.0, s.map(|s| s.val())))
        .collect();
    if got != exp {
        return Err(format!("{what}: join = {got:?}, expected {exp:?}"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
pub enum Kind {
    P,
    Z,
    S,
    X,
}

/// A handle: a live entity (index into the live ones, slot order) or any handle ever issued.
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    Live(u16),
    Any(u16),
}

#[derive(Clone, Debug)]
pub enum Cmd {
    Insert(Pick, Kind, u32),
    Remove(Pick, Kind),
    Despawn(Pick),
    Spawn(u8, u32),
}

#[derive(Clone, Debug)]
pub enum Op {
    /// bits: 0 P, 1 Z, 2 S, 3 X
    Spawn(u8, u32),
    SpawnBatch(u8, u8, u32),
    Insert(Pick, Kind, u32),
    Delete(Pick, Kind),
    Remove(Pick, Kind),
    DeleteInsert(Pick, Kind, u32),
    GetMut(Pick, Kind, u32),
    Despawn(Pick),
    DespawnBatch(Vec<Pick>),
    /// Delete `kind` from every n-th live entity.
    DeleteMany(Kind, u8),
    /// Despawn every n-th live entity one by one.
    DespawnMany(u8),
    QueryMutAll(Kind),
    QueryMutFirst(Kind, u8),
    Settle,
    Checkpoint,
    Commands(Vec<Cmd>, u8),
    Snapshot,
    Restore(u8),
    /// Restore into a fresh `World::new()`, which then replaces the world.
    RestoreFresh(u8),
    /// `snapshot_into` the i-th snapshot.
    SnapshotInto(u8),
    DropSnapshot(u8),
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        6 => Just(Kind::P),
        3 => Just(Kind::Z),
        3 => Just(Kind::S),
        1 => Just(Kind::X),
    ]
}

fn pick() -> impl Strategy<Value = Pick> {
    prop_oneof![
        5 => any::<u16>().prop_map(Pick::Live),
        1 => any::<u16>().prop_map(Pick::Any),
    ]
}

fn mask() -> impl Strategy<Value = u8> {
    // X rarely, so snapshots mostly succeed.
    prop_oneof![
        8 => 0u8..8,
        1 => 0u8..16,
    ]
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        3 => (pick(), kind(), any::<u32>()).prop_map(|(p, k, v)| Cmd::Insert(p, k, v)),
        3 => (pick(), kind()).prop_map(|(p, k)| Cmd::Remove(p, k)),
        1 => pick().prop_map(Cmd::Despawn),
        1 => (mask(), any::<u32>()).prop_map(|(m, v)| Cmd::Spawn(m, v)),
    ]
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (mask(), any::<u32>()).prop_map(|(m, v)| Op::Spawn(m, v)),
        1 => (mask(), 0u8..40, any::<u32>()).prop_map(|(m, n, v)| Op::SpawnBatch(m, n, v)),
        5 => (pick(), kind(), any::<u32>()).prop_map(|(p, k, v)| Op::Insert(p, k, v)),
        5 => (pick(), kind()).prop_map(|(p, k)| Op::Delete(p, k)),
        1 => (pick(), kind()).prop_map(|(p, k)| Op::Remove(p, k)),
        3 => (pick(), kind(), any::<u32>()).prop_map(|(p, k, v)| Op::DeleteInsert(p, k, v)),
        2 => (pick(), kind(), any::<u32>()).prop_map(|(p, k, v)| Op::GetMut(p, k, v)),
        3 => pick().prop_map(Op::Despawn),
        1 => vec(pick(), 0..12).prop_map(Op::DespawnBatch),
        1 => (kind(), 1u8..4).prop_map(|(k, n)| Op::DeleteMany(k, n)),
        1 => (1u8..4).prop_map(Op::DespawnMany),
        1 => kind().prop_map(Op::QueryMutAll),
        1 => (kind(), 0u8..6).prop_map(|(k, n)| Op::QueryMutFirst(k, n)),
        1 => Just(Op::Settle),
        2 => Just(Op::Checkpoint),
        2 => (vec(cmd(), 0..10), 0u8..3).prop_map(|(c, s)| Op::Commands(c, s)),
        2 => Just(Op::Snapshot),
        1 => any::<u8>().prop_map(Op::Restore),
        1 => any::<u8>().prop_map(Op::DropSnapshot),
        1 => any::<u8>().prop_map(Op::RestoreFresh),
        1 => any::<u8>().prop_map(Op::SnapshotInto),
    ]
}

pub struct Harness {
    pub world: World,
    pub model: Model,
    pub handles: Vec<Entity>,
    pub snaps: Vec<(Snapshot, Model, u64)>,
}

fn row_of(mask: u8, v: u32, now: u32) -> [Option<Cell>; 4] {
    let cell = |norm: u32| {
        Some(Cell {
            v: norm,
            added: now,
            changed: now,
        })
    };
    [
        if mask & 1 != 0 {
            cell(P::norm(v))
        } else {
            None
        },
        if mask & 2 != 0 {
            cell(Z::norm(v))
        } else {
            None
        },
        if mask & 4 != 0 {
            cell(S::norm(v))
        } else {
            None
        },
        if mask & 8 != 0 {
            cell(X::norm(v))
        } else {
            None
        },
    ]
}

fn spawn_mask(world: &mut World, mask: u8, v: u32) -> Entity {
    let e = match mask & 7 {
        0 => world.spawn_with(()),
        1 => world.spawn_with((P(v),)),
        2 => world.spawn_with((Z,)),
        3 => world.spawn_with((Z, P(v))),
        4 => world.spawn_with((S::make(v),)),
        5 => world.spawn_with((P(v), S::make(v))),
        6 => world.spawn_with((S::make(v), Z)),
        _ => world.spawn_with((P(v), Z, S::make(v))),
    };
    if mask & 8 != 0 {
        world.insert(e, X(v)).unwrap();
    }
    e
}

fn spawn_batch_mask(world: &mut World, mask: u8, n: u8, v: u32) -> Vec<Entity> {
    let r = 0..n as u32;
    match mask & 15 {
        0 => world.spawn_batch(r.map(|_| ())),
        1 => world.spawn_batch(r.map(|i| (P(v.wrapping_add(i)),))),
        2 => world.spawn_batch(r.map(|_| (Z,))),
        3 => world.spawn_batch(r.map(|i| (Z, P(v.wrapping_add(i))))),
        4 => world.spawn_batch(r.map(|i| (S::make(v.wrapping_add(i)),))),
        5 => world.spawn_batch(r.map(|i| (P(v.wrapping_add(i)), S::make(v.wrapping_add(i))))),
        6 => world.spawn_batch(r.map(|i| (S::make(v.wrapping_add(i)), Z))),
        7 => world.spawn_batch(r.map(|i| (P(v.wrapping_add(i)), Z, S::make(v.wrapping_add(i))))),
        8 => world.spawn_batch(r.map(|i| (X(v.wrapping_add(i)),))),
        _ => world.spawn_batch(r.map(|i| (X(v.wrapping_add(i)), P(v.wrapping_add(i)), Z))),
    }
}

fn batch_row(mask: u8, v: u32, now: u32) -> [Option<Cell>; 4] {
    match mask & 15 {
        m @ 0..=7 => row_of(m, v, now),
        8 => row_of(8, v, now),
        _ => row_of(8 | 1 | 2, v, now),
    }
}

impl Harness {
    pub fn new() -> Self {
        Harness {
            world: World::new(),
            model: Model::default(),
            handles: Vec::new(),
            snaps: Vec::new(),
        }
    }

    fn resolve(&self, p: Pick) -> Option<Entity> {
        match p {
            Pick::Live(i) => {
                let n = self.model.live.len();
                (n > 0).then(|| {
                    let (e, _) = self.model.live.values().nth(i as usize % n).unwrap();
                    *e
                })
            }
            Pick::Any(i) => {
                let n = self.handles.len();
                (n > 0).then(|| self.handles[i as usize % n])
            }
        }
    }

    fn now(&self) -> u32 {
        self.world.change_tick().get()
    }

    fn insert<T: Comp>(&mut self, e: Entity, v: u32) -> Result<(), String> {
        let now = self.now();
        let got = self
            .world
            .insert(e, T::make(v))
            .map(|o| o.map(|x| x.val()))
            .map_err(|_| ());
        let exp = match self.model.row_mut(e) {
            None => Err(()),
            Some(row) => {
                let old = row[T::K];
                row[T::K] = Some(Cell {
                    v: T::norm(v),
                    added: old.map_or(now, |c| c.added),
                    changed: now,
                });
                Ok(old.map(|c| c.v))
            }
        };
        if got != exp {
            return Err(format!(
                "insert::<{}>({e:?}) = {got:?}, expected {exp:?}",
                T::LABEL
            ));
        }
        Ok(())
    }

    fn delete<T: Comp>(&mut self, e: Entity) -> Result<(), String> {
        let got = self.world.delete::<T>(e).map_err(|_| ());
        let exp = match self.model.row_mut(e) {
            None => Err(()),
            Some(row) => Ok(row[T::K].take().is_some()),
        };
        if got != exp {
            return Err(format!(
                "delete::<{}>({e:?}) = {got:?}, expected {exp:?}",
                T::LABEL
            ));
        }
        Ok(())
    }

    fn remove<T: Comp>(&mut self, e: Entity) -> Result<(), String> {
        let got = self
            .world
            .remove::<T>(e)
            .map(|o| o.map(|x| x.val()))
            .map_err(|_| ());
        let exp = match self.model.row_mut(e) {
            None => Err(()),
            Some(row) => Ok(row[T::K].take().map(|c| c.v)),
        };
        if got != exp {
            return Err(format!(
                "remove::<{}>({e:?}) = {got:?}, expected {exp:?}",
                T::LABEL
            ));
        }
        Ok(())
    }

    fn get_mut<T: Comp>(&mut self, e: Entity, v: u32) -> Result<(), String> {
        let now = self.now();
        let got = self
            .world
            .get_mut::<T>(e)
            .map(|x| *x = T::make(v))
            .is_some();
        let exp = match self.model.row_mut(e) {
            Some(row) => match &mut row[T::K] {
                Some(c) => {
                    c.v = T::norm(v);
                    c.changed = now;
                    true
                }
                None => false,
            },
            None => false,
        };
        if got != exp {
            return Err(format!(
                "get_mut::<{}>({e:?}) = {got}, expected {exp}",
                T::LABEL
            ));
        }
        Ok(())
    }

    fn despawn(&mut self, e: Entity) -> Result<(), String> {
        let got = self.world.despawn(e).is_ok();
        let exp = self.model.alive(e);
        if exp {
            self.model.live.remove(&e.slot());
        }
        if got != exp {
            return Err(format!("despawn({e:?}) = {got}, expected {exp}"));
        }
        Ok(())
    }

    fn query_mut_all<T: Comp>(&mut self, first: Option<usize>) -> Result<(), String> {
        let now = self.now();
        let mut seen = Vec::new();
        {
            let mut it = self.world.query_mut::<(Entity, &mut T)>();
            let mut k = 0;
            while first.is_none_or(|f| k < f) {
                let Some((e, x)) = it.next() else { break };
                let v = x.val();
                *x = T::make(v.wrapping_add(1));
                seen.push(e);
                k += 1;
            }
        }
        let exp: Vec<Entity> = self
            .model
            .live
            .values()
            .filter(|(_, r)| r[T::K].is_some())
            .map(|(e, _)| *e)
            .take(first.unwrap_or(usize::MAX))
            .collect();
        if seen != exp {
            return Err(format!(
                "query_mut::<&mut {}> visited {seen:?}, expected {exp:?}",
                T::LABEL
            ));
        }
        for e in exp {
            let c = self.model.row_mut(e).unwrap()[T::K].as_mut().unwrap();
            c.v = T::norm(c.v.wrapping_add(1));
            c.changed = now;
        }
        Ok(())
    }

    fn by_kind(
        &mut self,
        k: Kind,
        f: &mut dyn FnMut(&mut Self, Kind) -> Result<(), String>,
    ) -> Result<(), String> {
        f(self, k)
    }

    pub fn step(&mut self, op: &Op) -> Result<(), String> {
        macro_rules! dispatch {
            ($k:expr, $T:ident => $body:expr) => {
                match $k {
                    Kind::P => {
                        type $T = P;
                        $body
                    }
                    Kind::Z => {
                        type $T = Z;
                        $body
                    }
                    Kind::S => {
                        type $T = S;
                        $body
                    }
                    Kind::X => {
                        type $T = X;
                        $body
                    }
                }
            };
        }
        match op {
            Op::Spawn(mask, v) => {
                let now = self.now();
                let e = spawn_mask(&mut self.world, *mask, *v);
                self.handles.push(e);
                self.model.spawn(e, row_of(*mask, *v, now))?;
            }
            Op::SpawnBatch(mask, n, v) => {
                let now = self.now();
                let es = spawn_batch_mask(&mut self.world, *mask, *n, *v);
                if es.len() != *n as usize {
                    return Err("spawn_batch count".into());
                }
                for (i, e) in es.into_iter().enumerate() {
                    self.handles.push(e);
                    self.model
                        .spawn(e, batch_row(*mask, v.wrapping_add(i as u32), now))?;
                }
            }
            Op::Insert(p, k, v) => {
                let Some(e) = self.resolve(*p) else {
                    return Ok(());
                };
                dispatch!(k, T => self.insert::<T>(e, *v))?;
            }
            Op::Delete(p, k) => {
                let Some(e) = self.resolve(*p) else {
                    return Ok(());
                };
                dispatch!(k, T => self.delete::<T>(e))?;
            }
            Op::Remove(p, k) => {
                let Some(e) = self.resolve(*p) else {
                    return Ok(());
                };
                dispatch!(k, T => self.remove::<T>(e))?;
            }
            Op::DeleteInsert(p, k, v) => {
                let Some(e) = self.resolve(*p) else {
                    return Ok(());
                };
                dispatch!(k, T => {
                    self.delete::<T>(e)?;
                    self.insert::<T>(e, *v)
                })?;
            }
            Op::GetMut(p, k, v) => {
                let Some(e) = self.resolve(*p) else {
                    return Ok(());
                };
                dispatch!(k, T => self.get_mut::<T>(e, *v))?;
            }
            Op::Despawn(p) => {
                let Some(e) = self.resolve(*p) else {
                    return Ok(());
                };
                self.despawn(e)?;
            }
            Op::DespawnBatch(ps) => {
                let es: Vec<Entity> = ps.iter().filter_map(|p| self.resolve(*p)).collect();
                let got = self.world.despawn_batch(es.iter().copied());
                let mut exp = 0;
                for e in &es {
                    if self.model.alive(*e) {
                        self.model.live.remove(&e.slot());
                        exp += 1;
                    }
                }
                if got != exp {
                    return Err(format!("despawn_batch({es:?}) = {got}, expected {exp}"));
                }
            }
            Op::DeleteMany(k, n) => {
                let es: Vec<Entity> = self
                    .model
                    .live
                    .values()
                    .map(|(e, _)| *e)
                    .step_by(*n as usize)
                    .collect();
                for e in es {
                    dispatch!(k, T => self.delete::<T>(e))?;
                }
            }
            Op::DespawnMany(n) => {
                let es: Vec<Entity> = self
                    .model
                    .live
                    .values()
                    .map(|(e, _)| *e)
                    .step_by(*n as usize)
                    .collect();
                for e in es {
                    self.despawn(e)?;
                }
            }
            Op::QueryMutAll(k) => dispatch!(k, T => self.query_mut_all::<T>(None))?,
            Op::QueryMutFirst(k, n) => {
                dispatch!(k, T => self.query_mut_all::<T>(Some(*n as usize)))?
            }
            Op::Settle => self.world.settle(),
            Op::Checkpoint => {
                let t = self.world.change_checkpoint().get();
                self.model.checkpoints.push(t);
                if self.model.checkpoints.len() > 3 {
                    self.model.checkpoints.remove(0);
                }
            }
            Op::Commands(cmds, settle) => {
                // Resolve the handles against the model as it is before the buffer.
                let now = self.now();
                let mut commands = self.world.commands();
                let mut plan: Vec<(Cmd, Option<Entity>)> = Vec::new();
                for c in cmds {
                    let resolved = match c {
                        Cmd::Insert(p, k, v) => {
                            let e = self.resolve(*p);
                            if let Some(e) = e {
                                dispatch!(k, T => commands.insert(e, T::make(*v)));
                            }
                            e
                        }
                        Cmd::Remove(p, k) => {
                            let e = self.resolve(*p);
                            if let Some(e) = e {
                                dispatch!(k, T => commands.remove::<T>(e));
                            }
                            e
                        }
                        Cmd::Despawn(p) => {
                            let e = self.resolve(*p);
                            if let Some(e) = e {
                                commands.despawn(e);
                            }
                            e
                        }
                        Cmd::Spawn(mask, v) => {
                            let v = *v;
                            let e = match mask & 7 {
                                0 => commands.spawn(()),
                                1 => commands.spawn((P(v),)),
                                2 => commands.spawn((Z,)),
                                3 => commands.spawn((Z, P(v))),
                                4 => commands.spawn((S::make(v),)),
                                5 => commands.spawn((P(v), S::make(v))),
                                6 => commands.spawn((S::make(v), Z)),
                                _ => commands.spawn((P(v), Z, S::make(v))),
                            };
                            Some(e)
                        }
                    };
                    plan.push((c.clone(), resolved));
                }
                let queue = commands.finish();
                let report = match settle {
                    0 => self.world.apply(queue),
                    1 => self.world.apply_without_settling(queue),
                    _ => self.world.apply_and_settle_with([queue], |stores| {
                        stores.into_iter().rev().for_each(|s| s.settle());
                    }),
                };
                let mut errors = 0;
                for (c, e) in plan {
                    let Some(e) = e else { continue };
                    match c {
                        Cmd::Insert(_, k, v) => match self.model.row_mut(e) {
                            Some(row) => {
                                let i = match k {
                                    Kind::P => 0,
                                    Kind::Z => 1,
                                    Kind::S => 2,
                                    Kind::X => 3,
                                };
                                let norm = dispatch!(k, T => T::norm(v));
                                let old = row[i];
                                row[i] = Some(Cell {
                                    v: norm,
                                    added: old.map_or(now, |c| c.added),
                                    changed: now,
                                });
                            }
                            None => errors += 1,
                        },
                        Cmd::Remove(_, k) => match self.model.row_mut(e) {
                            Some(row) => {
                                let i = match k {
                                    Kind::P => 0,
                                    Kind::Z => 1,
                                    Kind::S => 2,
                                    Kind::X => 3,
                                };
                                row[i] = None;
                            }
                            None => errors += 1,
                        },
                        Cmd::Despawn(_) => {
                            if self.model.alive(e) {
                                self.model.live.remove(&e.slot());
                            } else {
                                errors += 1;
                            }
                        }
                        Cmd::Spawn(mask, v) => {
                            self.handles.push(e);
                            self.model.spawn(e, row_of(mask & 7, v, now))?;
                        }
                    }
                }
                if report.errors.len() != errors {
                    return Err(format!(
                        "commands: {} errors, expected {errors}: {:?}",
                        report.errors.len(),
                        report.errors
                    ));
                }
            }
            Op::Snapshot => {
                let got = self.world.snapshot();
                let exp_ok = !self.model.any_x();
                match got {
                    Ok(s) => {
                        if !exp_ok {
                            return Err("snapshot succeeded with X held".into());
                        }
                        let sum = s.world().full_checksum().map_err(|e| e.to_string())?;
                        self.snaps.push((s, self.model.clone(), sum));
                        if self.snaps.len() > 3 {
                            self.snaps.remove(0);
                        }
                    }
                    Err(e) => {
                        if exp_ok {
                            return Err(format!("snapshot failed: {e}"));
                        }
                    }
                }
            }
            Op::Restore(i) => {
                if !self.snaps.is_empty() {
                    let i = *i as usize % self.snaps.len();
                    self.world.restore(&self.snaps[i].0);
                    self.model = self.snaps[i].1.clone();
                    let sum = self.world.full_checksum().map_err(|e| e.to_string())?;
                    if sum != self.snaps[i].2 {
                        return Err("restored world's checksum differs from the snapshot's".into());
                    }
                }
            }
            Op::RestoreFresh(i) => {
                if !self.snaps.is_empty() {
                    let i = *i as usize % self.snaps.len();
                    let mut fresh = World::new();
                    fresh.restore(&self.snaps[i].0);
                    self.world = fresh;
                    self.model = self.snaps[i].1.clone();
                }
            }
            Op::SnapshotInto(i) => {
                if !self.snaps.is_empty() {
                    let i = *i as usize % self.snaps.len();
                    let exp_ok = !self.model.any_x();
                    let got = self.world.snapshot_into(&mut self.snaps[i].0);
                    match (got, exp_ok) {
                        (Ok(()), true) => {
                            self.snaps[i].1 = self.model.clone();
                            self.snaps[i].2 = self.snaps[i]
                                .0
                                .world()
                                .full_checksum()
                                .map_err(|e| e.to_string())?;
                        }
                        (Err(_), false) => {}
                        (got, _) => {
                            return Err(format!(
                                "snapshot_into = {:?}, expected ok {exp_ok}",
                                got.is_ok()
                            ));
                        }
                    }
                }
            }
            Op::DropSnapshot(i) => {
                if !self.snaps.is_empty() {
                    let i = *i as usize % self.snaps.len();
                    self.snaps.remove(i);
                }
            }
        }
        let _ = Self::by_kind;
        Ok(())
    }

    pub fn check(&self) -> Result<(), String> {
        check_world(&self.world, &self.model, &self.handles, "world")?;
        for (i, (s, m, sum)) in self.snaps.iter().enumerate() {
            check_world(s.world(), m, &self.handles, &format!("snapshot {i}"))?;
            let now = s.world().full_checksum().map_err(|e| e.to_string())?;
            if now != *sum {
                return Err(format!("snapshot {i}: checksum changed"));
            }
        }
        Ok(())
    }
}

pub fn run(start: u32, pad: usize, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut h = Harness::new();
    h.world.set_change_tick(Tick::new(start));
    h.world.spawn_batch((0..pad).map(|_| ()));
    h.model.pad = pad;
    for (i, op) in ops.iter().enumerate() {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            h.step(op)?;
            h.check()
        }));
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(TestCaseError::fail(format!("step {i} {op:?}: {e}"))),
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                return Err(TestCaseError::fail(format!("step {i} {op:?}: panic {msg}")));
            }
        }
    }
    Ok(())
}

/// Operations per case, at most.
const MAX_OPS: usize = 160;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::cases(24),
        max_shrink_iters: crate::shrink_iters(2000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn world_with_snapshots_matches_oracle(
        start in prop_oneof![Just(0u32), (0u32..60).prop_map(|b| u32::MAX - b), any::<u32>()],
        ops in vec(op(), 1..MAX_OPS),
    ) {
        run(start, 0, &ops)?;
    }

    #[test]
    fn world_past_a_sparse_page_matches_oracle(
        pad in 4070usize..4096,
        ops in vec(op(), 1..MAX_OPS),
    ) {
        run(0, pad, &ops)?;
    }
}
