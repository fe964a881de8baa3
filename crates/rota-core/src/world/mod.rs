//! The `World`: the entity allocator, one store per component type, resources and the tick.

mod column;
mod erased;
mod full_checksum;
pub mod log;
mod membership;
mod registry;
pub(crate) mod resources;
mod runs;
mod snapshot;
mod spawn;

use std::any::TypeId;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::component::Component;
use crate::entity::{Entities, Entity};
use crate::error::EntityNotAlive;
use crate::read_ahead::{READ_AHEAD, ReadAhead};
use crate::store::Store;
use crate::tick::{CHECK_INTERVAL, ChangeWindow, Tick};
use crate::unwind::drop_each;
pub(crate) use erased::{AnyValues, ErasedStore, downcast_mut, downcast_ref};
use membership::Membership;
use registry::Registry;

pub use column::ColumnMut;
pub(crate) use registry::key as registry_key;
pub(crate) use resources::Resources;

/// One registered store (rota's plumbing, opaque outside the crate). `World::stores` is a `Vec`
/// in registration order; that order — never the lookup registry's — is what any walk over all
/// stores uses (the despawn cascade, checksums).
pub struct StoreEntry {
    pub(crate) type_id: TypeId,
    pub(crate) name: &'static str,
    pub(crate) store: Box<dyn ErasedStore>,
}

/// One store waiting to be sorted, borrowed alone ([`World::unsettled_stores`],
/// [`World::apply_and_settle_with`]); it can be sent to another thread.
///
/// From `apply_and_settle_with` it may also owe **removals**: the values of entities that
/// commands despawned, which the store still holds (their handles are already dead).
/// [`UnsettledStore::settle`] removes them, then sorts. A store that is dropped or forgotten
/// without `settle` leaves its work to the world, which does it once the callback returns.
pub struct UnsettledStore<'w> {
    store: &'w mut dyn ErasedStore,
    /// Entities the store must lose first (despawned; see above), if any.
    gone: Option<&'w mut Vec<Entity>>,
}

impl UnsettledStore<'_> {
    /// Values the store holds: settling costs about one pass over them.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether the store holds no value (it may still be unsettled: every value deleted and
    /// left dead, waiting for the settle that drops them).
    pub fn is_empty(&self) -> bool {
        self.store.len() == 0
    }

    /// Removes what the store owes (see the type's docs) and sorts it (`World::settle` for
    /// this store alone), in one pass over the values that move. The removed values are
    /// dropped last, once the store is whole.
    pub fn settle(self) {
        match self.gone {
            Some(gone) if !gone.is_empty() => {
                let removed = self.store.remove_and_settle(gone);
                gone.clear();
                drop(removed);
            }
            _ => self.store.settle(),
        }
    }
}

/// Everything a simulation holds: entities, their components, resources and the tick counter.
///
/// # Guarantees
///
/// * Every query visits entities in ascending slot order, whatever the history.
/// * Stale handles never read or write anything: every operation on a dead entity is an
///   [`EntityNotAlive`] error or `None`.
/// * [`World::despawn`] removes the entity from every store before the slot can be reused, so a
///   reused slot never inherits a component.
///
/// # Examples
///
/// ```
/// use rota::{Component, World};
///
/// #[derive(Component, Clone)]
/// struct Position(f32);
/// #[derive(Component, Clone)]
/// struct Velocity(f32);
///
/// let mut world = World::new();
/// let a = world.spawn_with((Position(0.0), Velocity(1.0)));
/// let b = world.spawn_with((Position(5.0),));
/// world.query_mut::<(&mut Position, &Velocity)>().for_each(|(p, v)| p.0 += v.0);
/// assert_eq!(world.get::<Position>(a).unwrap().0, 1.0);
/// assert_eq!(world.get::<Position>(b).unwrap().0, 5.0);
/// ```
pub struct World {
    pub(crate) entities: Entities,
    pub(crate) stores: Vec<StoreEntry>,
    /// Component type → position in `stores`; lookup only, never iterated.
    registry: Registry,
    /// Which stores hold each slot, so a despawn visits only the entity's own components.
    membership: Membership,
    pub(crate) resources: Resources,
    tick: u64,
    /// The change clock (see `tick.rs`): world-level writes stamp it; every store's own
    /// `change_tick` is kept equal to it.
    change_tick: Tick,
    /// When every stored tick was last clamped to `MAX_AGE`.
    last_clamp: Tick,
    /// Each system's last run (by its marker's `TypeId`), for its `Changed`/`Added` window.
    /// Lookup and clamping only; never iterated for a result.
    system_runs: BTreeMap<TypeId, Tick>,
    /// The structural change log, when enabled.
    log: Option<log::StructuralLog>,
    /// Whether a snapshot may share this world's columns: set by `snapshot`, `snapshot_into`
    /// and `restore`, never cleared. While it is set, a despawn, a spawn and the tick clamp
    /// first make the columns they will change their own ([`World::own_values_of`],
    /// `World::own_bundle_columns`, `World::own_columns_before_ticks`), so that a component
    /// `Clone` panicking in that copy finds the world unchanged; a world that never shared
    /// skips them.
    shares_columns: bool,
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("entities", &self.entities.len())
            .field(
                "stores",
                &self
                    .stores
                    .iter()
                    .map(|s| (s.name, s.store.len()))
                    .collect::<Vec<_>>(),
            )
            .field("resources", &self.resources.names())
            .field("tick", &self.tick)
            .finish()
    }
}

impl World {
    /// An empty world at tick 0.
    pub fn new() -> World {
        World::with_entities(Entities::new())
    }

    /// A world using a preconfigured allocator (e.g. [`Entities::with_slot_limit`]).
    pub fn with_entities(entities: Entities) -> World {
        World {
            entities,
            stores: Vec::new(),
            registry: Registry::default(),
            membership: Membership::default(),
            resources: Resources::default(),
            tick: 0,
            change_tick: Tick::new(0),
            last_clamp: Tick::new(0),
            system_runs: BTreeMap::new(),
            log: None,
            shares_columns: false,
        }
    }

    /// The change clock's current tick: what world-level writes (insert, spawn, `get_mut`,
    /// `query_mut`, applied commands) stamp. See [`Tick`].
    #[inline]
    pub fn change_tick(&self) -> Tick {
        self.change_tick
    }

    /// Ends the current change moment: returns its tick and advances the clock, so that every
    /// change made after this call is newer than the returned tick. Pass it to
    /// [`World::query_since`] to see those changes.
    ///
    /// ```
    /// # use rota::{Changed, Component, Entity, World};
    /// # #[derive(Component, Clone)] struct Hp(u32);
    /// let mut world = World::new();
    /// let a = world.spawn_with((Hp(1),));
    /// let b = world.spawn_with((Hp(2),));
    /// let since = world.change_checkpoint();
    /// world.get_mut::<Hp>(b).unwrap().0 += 1;
    /// let changed: Vec<Entity> = world.query_since::<Entity, Changed<Hp>>(since).collect();
    /// assert_eq!(changed, [b]);
    /// # let _ = a;
    /// ```
    pub fn change_checkpoint(&mut self) -> Tick {
        let ended = self.change_tick;
        self.advance_change_tick();
        ended
    }

    /// Sets the change clock (every store follows). Meant for tests that start the clock near
    /// `u32::MAX` to exercise the wrap; ticks already stored keep their values, so set it
    /// before anything is written.
    pub fn set_change_tick(&mut self, tick: Tick) {
        self.change_tick = tick;
        self.last_clamp = tick;
        for entry in &mut self.stores {
            entry.store.set_change_tick(tick);
        }
    }

    /// Advances the clock by one moment; every store follows. Clamps every stored tick once
    /// per `CHECK_INTERVAL` ticks so that ages never wrap.
    pub(crate) fn advance_change_tick(&mut self) -> Tick {
        let now = self.bump_change_tick();
        for entry in &mut self.stores {
            entry.store.set_change_tick(now);
        }
        now
    }

    /// Advances the clock without telling the stores (the caller does, once, afterwards).
    fn bump_change_tick(&mut self) -> Tick {
        self.own_columns_before_ticks(1);
        let now = self.change_tick.next();
        self.change_tick = now;
        if self.last_clamp.age(now) >= CHECK_INTERVAL {
            self.last_clamp = now;
            for entry in &mut self.stores {
                entry.store.clamp_ticks(now);
            }
            for last in self.system_runs.values_mut() {
                last.clamp(now);
            }
        }
        now
    }

    /// Before the clock moves `ticks` times: if one of those moves will clamp every stored
    /// tick (`bump_change_tick`) and a snapshot may share the world's columns, makes every
    /// store's columns its own first, so that a component `Clone` panicking in a copy leaves
    /// the clock, the systems' last runs and every store as they were.
    fn own_columns_before_ticks(&mut self, ticks: usize) {
        if !self.shares_columns {
            return;
        }
        let ticks = u32::try_from(ticks).unwrap_or(u32::MAX);
        let last = Tick::new(self.change_tick.get().wrapping_add(ticks));
        // Ages grow with each move (up to `CHECK_INTERVAL`, far below a wrap): the last move is
        // due to clamp if any is.
        if self.last_clamp.age(last) >= CHECK_INTERVAL {
            for entry in &mut self.stores {
                entry.store.own_columns();
            }
        }
    }

    /// Gives each system (by marker `TypeId`, in the order given) its own tick and its window
    /// `(last run, this run]`, records this run as its last, then advances once more so that
    /// what happens after the systems (their commands, the caller's writes) is newer than all
    /// of them.
    pub(crate) fn begin_system_runs(&mut self, systems: &[TypeId]) -> Vec<ChangeWindow> {
        // One bump per system and one advance: copied before the first if any will clamp.
        self.own_columns_before_ticks(systems.len().saturating_add(1));
        let windows = systems
            .iter()
            .map(|id| {
                let now = self.bump_change_tick();
                let since = match self.system_runs.insert(*id, now) {
                    Some(mut last) => {
                        last.clamp(now);
                        last
                    }
                    None => Tick::horizon(now),
                };
                ChangeWindow { since, now }
            })
            .collect();
        self.advance_change_tick();
        windows
    }

    /// The tick system `id` (its marker's `TypeId`) last ran at, if it ever ran on this world.
    pub fn system_last_run(&self, id: TypeId) -> Option<Tick> {
        self.system_runs.get(&id).copied()
    }

    /// The entity allocator (read-only: spawn and despawn through the world).
    #[inline]
    pub fn entities(&self) -> &Entities {
        &self.entities
    }

    /// Number of live entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether no entity is alive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// Whether `entity` is alive in this world.
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.entities.is_alive(entity)
    }

    /// The tick counter: how many times a schedule has run this world (see `rota-schedule`).
    #[inline]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Advances the tick counter by one. Schedules call this at the end of each run.
    pub fn advance_tick(&mut self) {
        self.tick += 1;
    }

    /// Spawns an entity with no components.
    ///
    /// # Panics
    ///
    /// If the allocator has no slot left (see [`World::try_spawn_with`] for the fallible form).
    #[track_caller]
    pub fn spawn(&mut self) -> Entity {
        self.spawn_with(())
    }

    /// Despawns `entity`, removing its components before the slot is freed.
    ///
    /// In a hierarchy it leaves its parent's [`Children`](crate::Children) and its children
    /// become roots; [`World::despawn_recursive`] despawns the subtree instead.
    ///
    /// Cost: one removal per component the entity has (found through a per-slot bitset of
    /// stores), not one probe per registered component type.
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle; nothing changes.
    ///
    /// # Panics
    ///
    /// Only if a component's code panics, and then the world it unwinds out of is whole:
    ///
    /// * a `Drop` panicking as its value is dropped: the entity is still despawned whole (its
    ///   other components removed, its slot freed), then the panic goes on;
    /// * a `Clone` panicking while a store copies the values a
    ///   [`Snapshot`](crate::snapshot::Snapshot) shares with it (copy-on-write): the copies
    ///   are made before anything changes, so the entity is left alive and whole.
    pub fn despawn(&mut self, entity: Entity) -> Result<(), EntityNotAlive> {
        self.entities.check_alive(entity)?;
        // Before any change: a component `Clone` that panics here leaves the world as it was.
        self.own_values_of(entity, false);
        self.detach_for_despawn(entity);
        let stores = &mut self.stores;
        // A component's `Drop` may panic (each store is whole when it drops the value): the
        // other stores still lose the entity and the slot is still freed before the first such
        // panic goes on (a later one is dropped), so the world it unwinds out of is whole.
        let mut dropped = Ok(());
        self.membership.take(entity.slot(), |i| {
            let removed = catch_unwind(AssertUnwindSafe(|| stores[i].store.remove_entity(entity)));
            if dropped.is_ok() {
                dropped = removed;
            }
        });
        if let Some(log) = &mut self.log {
            log.push(log::StructuralChange::Despawned(entity));
        }
        let freed = self.entities.despawn(entity);
        if let Err(panic) = dropped {
            resume_unwind(panic);
        }
        freed
    }

    /// Despawns every live entity of `entities`, returning how many were despawned; dead,
    /// stale and repeated handles are skipped. The result equals a loop of [`World::despawn`]
    /// ignoring errors (hierarchy included).
    ///
    /// Each store is visited once, with all of the batch's entities it holds: a store losing
    /// many values is compacted in one order-preserving pass (it stays settled) instead of
    /// being swap-removed value by value.
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # #[derive(Component, Clone)] struct Id(u32);
    /// let mut world = World::new();
    /// let es = world.spawn_batch((0..10).map(|i| (Id(i),)));
    /// assert_eq!(world.despawn_batch(es.iter().rev().copied().step_by(2)), 5);
    /// assert_eq!(world.despawn_batch([es[9], es[0]]), 1); // es[9] is already gone
    /// let ids: Vec<u32> = world.query::<&Id>().map(|id| id.0).collect();
    /// assert_eq!(ids, [2, 4, 6, 8]);
    /// ```
    ///
    /// # Panics
    ///
    /// The world it unwinds out of is whole, each entity of the batch despawned whole or left
    /// alive and whole:
    ///
    /// * if `entities` panics, what it yielded before is despawned, then the panic goes on;
    /// * if a component's `Drop` panics, every entity is still despawned, the values dropped
    ///   once every store is consistent, then the panic goes on;
    /// * if a component's `Clone` panics while a store copies the values a
    ///   [`Snapshot`](crate::snapshot::Snapshot) shares with it (copy-on-write), the entities
    ///   before the one whose copy panicked are despawned and the rest left alive (in a world
    ///   with a hierarchy the copies come first and none is despawned); if `entities` panicked
    ///   too, its panic goes on.
    pub fn despawn_batch<I>(&mut self, entities: I) -> usize
    where
        I: IntoIterator<Item = Entity>,
    {
        if self.has_hierarchy() {
            // Detach first (needs the stores intact), so the handles are walked twice. What
            // the iterator yielded before a panic is despawned before the panic goes on.
            let mut collected: Vec<Entity> = Vec::new();
            let walked = catch_unwind(AssertUnwindSafe(|| {
                for entity in entities {
                    collected.push(entity);
                }
            }));
            // Before any change (detaching changes other entities): a component `Clone` that
            // panics in a copy leaves the world as it was; the iterator's panic, if any, goes
            // on first.
            let owned = catch_unwind(AssertUnwindSafe(|| self.own_values_of_all(&collected)));
            if let Err(panic) = owned {
                resume_unwind(walked.err().unwrap_or(panic));
            }
            for &entity in &collected {
                if self.is_alive(entity) {
                    self.detach_for_despawn(entity);
                }
            }
            let despawned = self.despawn_batch_detached(collected);
            if let Err(panic) = walked {
                resume_unwind(panic);
            }
            return despawned;
        }
        self.despawn_batch_detached(entities)
    }

    /// `despawn_batch` once no entity of the batch has a link to a survivor (the batch is
    /// detached, or is in no hierarchy): the links inside the batch go with it.
    ///
    /// If the caller's iterator panics, every entity it yielded before is despawned whole
    /// before the panic goes on (the removals finished, the values dropped one store at a
    /// time), so the world it leaves is whole.
    pub(crate) fn despawn_batch_detached(
        &mut self,
        entities: impl IntoIterator<Item = Entity>,
    ) -> usize {
        let mut pending = PendingDespawns::default();
        // Taken in chunks, each read ahead first (see `read_ahead.rs`).
        let mut chunk: Vec<Entity> = Vec::with_capacity(READ_AHEAD);
        let mut despawned = 0;
        let walked = catch_unwind(AssertUnwindSafe(|| {
            let mut entities = entities.into_iter();
            let mut ahead = ReadAhead::new();
            loop {
                chunk.clear();
                chunk.extend(entities.by_ref().take(READ_AHEAD));
                if chunk.is_empty() {
                    return;
                }
                ahead.touch_all(&chunk, |&entity| self.touch_for_despawn(entity));
                for &entity in &chunk {
                    despawned += usize::from(self.despawn_later(entity, &mut pending));
                }
            }
        }));
        if let Err(panic) = walked {
            // What the iterator yielded into the chunk it was filling (a dead or repeated
            // handle is a no-op, so the chunk may be walked again whole). If the panic was a
            // component's `Clone` in a despawn's copy (`own_values_of`), that entity is still
            // alive and whole, and panics again here: that second panic is dropped, so it and
            // the rest of the chunk stay alive.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                for &entity in &chunk {
                    self.despawn_later(entity, &mut pending);
                }
            }));
            drop_each(self.finish_despawns_keeping(&mut pending));
            resume_unwind(panic)
        }
        self.finish_despawns(&mut pending);
        despawned
    }

    /// While a snapshot may share the world's columns, makes the value half of every store
    /// `entity` is in that its removal would copy its own ([`ErasedStore::own_values_for_removal`];
    /// `batched` as there), changing nothing else: a despawn calls it before its first change,
    /// so a component `Clone` that panics in a copy unwinds out of an unchanged world (the
    /// copies already made are kept: they are invisible). Nothing to do for a world that never
    /// shared its columns.
    ///
    /// [`ErasedStore::own_values_for_removal`]: erased::ErasedStore::own_values_for_removal
    #[inline]
    fn own_values_of(&mut self, entity: Entity, batched: bool) {
        if !self.shares_columns {
            return;
        }
        let stores = &mut self.stores;
        self.membership.for_each(entity.slot(), |i| {
            stores[i].store.own_values_for_removal(batched);
        });
    }

    /// [`World::own_values_of`] for each live entity of `entities`, as a batch.
    pub(crate) fn own_values_of_all(&mut self, entities: &[Entity]) {
        if !self.shares_columns {
            return;
        }
        for &entity in entities {
            if self.is_alive(entity) {
                self.own_values_of(entity, true);
            }
        }
    }

    /// Reads what [`World::despawn_later`] will read first for `entity` — its slot and its
    /// membership row — and returns a value made of them (nothing changes): command
    /// application reads a few despawns ahead (see `read_ahead.rs`).
    #[inline]
    pub(crate) fn touch_for_despawn(&self, entity: Entity) -> u64 {
        self.entities.touch(entity.slot()) ^ self.membership.first_word(entity.slot())
    }

    /// The first half of a batched despawn of `entity` (in no hierarchy): the allocator frees
    /// it (`false` for a dead or repeated handle: nothing happens), the structural log records
    /// it, and its components are listed in `pending`, to be removed store by store by
    /// [`World::finish_despawns`]. Until then the stores still hold it, so nothing that could
    /// reach its slot may run in between: callers finish first (see `World::apply_queue`).
    pub(crate) fn despawn_later(&mut self, entity: Entity, pending: &mut PendingDespawns) -> bool {
        if self.shares_columns && self.entities.is_alive(entity) {
            // Before any change to `entity`: a component `Clone` that panics here leaves it
            // alive and whole (a batch's removals copy values of every type).
            self.own_values_of(entity, true);
        }
        if self.entities.despawn(entity).is_err() {
            return false;
        }
        let per_store = &mut pending.per_store;
        if per_store.len() < self.stores.len() {
            per_store.resize_with(self.stores.len(), Vec::new);
        }
        pending.any = true;
        pending.mark(entity.slot());
        let per_store = &mut pending.per_store;
        self.membership
            .take(entity.slot(), |i| per_store[i].push(entity));
        if let Some(log) = &mut self.log {
            log.push(log::StructuralChange::Despawned(entity));
        }
        true
    }

    /// The second half of batched despawns: each store loses the listed entities in one visit
    /// (`Store::remove_many`); `pending` is left empty, its lists kept for reuse. Nothing to do
    /// (one flag check) when nothing is pending.
    ///
    /// The removed values are dropped last, once every store is consistent again: a component
    /// whose `Drop` panics then unwinds out of a whole world, not out of a half-cleaned store
    /// (`tests/it/command_buffers.rs`).
    pub(crate) fn finish_despawns(&mut self, pending: &mut PendingDespawns) {
        let removed = self.finish_despawns_keeping(pending);
        // One store's values at a time: a second store's panicking `Drop` does not abort.
        if let Err(panic) = crate::unwind::drop_one_by_one(removed) {
            resume_unwind(panic);
        }
    }

    /// [`World::finish_despawns`], handing back the removed values instead of dropping them:
    /// after a panic the caller drops them one store at a time, catching any second panic (it
    /// would replace the first), otherwise it drops them.
    pub(crate) fn finish_despawns_keeping(
        &mut self,
        pending: &mut PendingDespawns,
    ) -> Vec<Box<dyn std::any::Any + Send>> {
        let mut removed = Vec::new();
        if !std::mem::take(&mut pending.any) {
            return removed;
        }
        for (entry, gone) in self.stores.iter_mut().zip(&mut pending.per_store) {
            if !gone.is_empty() {
                removed.push(entry.store.remove_many(gone));
                gone.clear();
            }
        }
        pending.slots.clear();
        removed
    }

    /// Adds or replaces `entity`'s `T`, returning the value replaced.
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle; nothing is stored.
    // `inline(always)`: LLVM left it out of line by size, and a loop of `insert` + `delete`
    // then ran 134 instructions per call against 104 inlined (callgrind; docs/benchmarks.md,
    // "the world's structural methods inlined"). The append path stays out of line.
    #[inline(always)]
    pub fn insert<T: Component>(
        &mut self,
        entity: Entity,
        component: T,
    ) -> Result<Option<T>, EntityNotAlive> {
        // Checked before registering: a failed insert leaves the world as it was.
        self.entities.check_alive(entity)?;
        let i = self.register::<T>();
        Ok(self.column_at::<T>(i).insert_alive(entity, component))
    }

    /// Removes and returns `entity`'s `T`, if it has one.
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle.
    // `inline(always)`: see `World::insert`.
    #[inline(always)]
    pub fn remove<T: Component>(&mut self, entity: Entity) -> Result<Option<T>, EntityNotAlive> {
        match self.registry.position::<T>() {
            Some(i) => self.column_at::<T>(i).remove(entity),
            None => self.entities.check_alive(entity).map(|()| None),
        }
    }

    /// Removes `entity`'s `T` and drops it; returns whether it had one. The same change as
    /// [`World::remove`] for every observer (queries, `contains`, the structural log), for a
    /// caller that does not want the value back.
    ///
    /// Cheaper when `T` has no drop glue (no `Drop` impl, no `String`/`Vec`/`Box` inside): the
    /// value is left where it is, marked dead, and goes at the store's next settle — one sparse
    /// entry and a counter written, where a removal moves the store's last element into the hole
    /// in every dense column (measured: `cargo bench --bench workloads -- add_remove`,
    /// docs/benchmarks.md). Inserting a `T` for the entity again before then puts the new
    /// value in the same place (no append; a settled store stays settled) — unless an insert
    /// of a `T` for another entity appended meanwhile and compacted the dead values first.
    /// Other types are removed as by [`World::remove`], their value dropped once the world's
    /// books agree.
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # #[derive(Component, Clone)] struct Stunned;
    /// let mut world = World::new();
    /// let e = world.spawn_with((Stunned,));
    /// assert_eq!(world.delete::<Stunned>(e), Ok(true));
    /// assert_eq!(world.delete::<Stunned>(e), Ok(false)); // already gone
    /// assert!(!world.has::<Stunned>(e));
    /// world.despawn(e).unwrap();
    /// assert!(world.delete::<Stunned>(e).is_err()); // a dead handle
    /// ```
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle.
    // `inline(always)`: see `World::insert`.
    #[inline(always)]
    pub fn delete<T: Component>(&mut self, entity: Entity) -> Result<bool, EntityNotAlive> {
        match self.registry.position::<T>() {
            Some(i) => self.column_at::<T>(i).delete(entity),
            None => self.entities.check_alive(entity).map(|()| false),
        }
    }

    /// `entity`'s `T`, if it is alive and has one.
    #[inline]
    pub fn get<T: Component>(&self, entity: Entity) -> Option<&T> {
        // A store only ever holds live entities (despawn cascades), and `Store::get` checks the
        // generation, so a stale handle finds nothing.
        self.store::<T>()?.get(entity)
    }

    /// `entity`'s `T`, mutably, if it is alive and has one.
    #[inline]
    pub fn get_mut<T: Component>(&mut self, entity: Entity) -> Option<&mut T> {
        self.store_mut::<T>()?.get_mut(entity)
    }

    /// Whether `entity` is alive and has a `T`.
    #[inline]
    pub fn has<T: Component>(&self, entity: Entity) -> bool {
        self.store::<T>().is_some_and(|s| s.contains(entity))
    }

    /// The store of `T`, if any `T` was ever inserted. Read-only: a store may only hold live
    /// entities, so changes go through the world.
    pub fn store<T: Component>(&self) -> Option<&Store<T>> {
        let i = self.registry.position::<T>()?;
        Some(downcast_ref::<T>(&*self.stores[i].store))
    }

    /// Values only: membership changes must go through the world (see `membership.rs`).
    #[inline]
    pub(crate) fn store_mut<T: Component>(&mut self) -> Option<&mut Store<T>> {
        let i = self.registry.position::<T>()?;
        Some(downcast_mut::<T>(&mut *self.stores[i].store))
    }

    /// Whether the live entity at `slot` has a `T`, per the membership index (a registry
    /// lookup and a bit test; no store is touched).
    #[inline]
    pub(crate) fn slot_has<T: Component>(&self, slot: u32) -> bool {
        self.registry
            .position::<T>()
            .is_some_and(|i| self.membership.contains(slot, i))
    }

    /// Registers `T`'s store if needed and returns its index in registration order.
    #[inline]
    pub(crate) fn register<T: Component>(&mut self) -> usize {
        match self.registry.position::<T>() {
            Some(i) => i,
            None => self.register_new::<T>(),
        }
    }

    /// [`World::register`]'s first call for `T`: out of line, so that every later call is a
    /// registry lookup inlined into its caller.
    #[cold]
    #[inline(never)]
    fn register_new<T: Component>(&mut self) -> usize {
        let i = self.stores.len();
        let mut store = Store::<T>::new();
        store.set_change_tick(self.change_tick);
        // Snapshots share the store's columns; a write copies them with this (`Clone` types).
        store.set_copy_values(T::SNAPSHOT.cloning.map(|c| c.column_from));
        self.stores.push(StoreEntry {
            type_id: TypeId::of::<T>(),
            name: T::NAME,
            store: Box::new(store),
        });
        self.registry.insert::<T>(i);
        self.membership.ensure_stores(self.stores.len());
        i
    }

    /// Number of values in the store registered for the component type `type_id`, if any.
    pub fn component_len(&self, type_id: TypeId) -> Option<usize> {
        self.erased_store(type_id).map(|s| s.len())
    }

    /// The store registered for the component type `type_id`, type-erased (registry lookup).
    pub(crate) fn erased_store(&self, type_id: TypeId) -> Option<&dyn ErasedStore> {
        let i = self.registry.position_of(type_id)?;
        Some(&*self.stores[i].store)
    }

    /// The store of the type whose registry key is `key` and whose id is `type_id` (one array
    /// index for a keyed type).
    pub(crate) fn erased_store_by_key(
        &self,
        key: u32,
        type_id: TypeId,
    ) -> Option<&dyn ErasedStore> {
        let i = self.registry.position_by_key(key, type_id)?;
        Some(&*self.stores[i].store)
    }

    /// The position in `stores` of the type whose registry key is `key` and whose id is
    /// `type_id`.
    #[inline]
    pub(crate) fn registry_position(&self, key: u32, type_id: TypeId) -> Option<usize> {
        self.registry.position_by_key(key, type_id)
    }

    /// Component names in registration order (the order every whole-world walk uses).
    pub fn component_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.stores.iter().map(|s| s.name)
    }

    /// Sorts every unsettled store so the next ordered iterations are plain slice walks.
    /// Schedules call this at their sync points; queries through `&mut World` settle what they
    /// touch on their own.
    pub fn settle(&mut self) {
        for entry in &mut self.stores {
            entry.store.settle();
        }
    }

    /// The stores [`World::settle`] would sort, in registration order, each borrowed on its
    /// own so that they can be settled on different threads (stores share nothing, and
    /// settling one gives the same result on any thread). `rota-core` spawns no thread: the
    /// caller (a schedule) hands them out.
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # #[derive(Component, Clone)] struct Id(u32);
    /// let mut world = World::new();
    /// let ids = world.spawn_batch((0..4).map(|i| (Id(i),)));
    /// world.despawn(ids[0]).unwrap(); // its value is left in place, marked dead
    /// let unsettled = world.unsettled_stores();
    /// assert_eq!(unsettled.len(), 1);
    /// unsettled.into_iter().for_each(|s| s.settle());
    /// assert!(world.unsettled_stores().is_empty());
    /// ```
    pub fn unsettled_stores(&mut self) -> Vec<UnsettledStore<'_>> {
        self.stores
            .iter_mut()
            .filter(|entry| !entry.store.index().settled)
            .map(|entry| UnsettledStore {
                store: &mut *entry.store,
                gone: None,
            })
            .collect()
    }

    /// The stores that are unsettled or owe removals (each lent its list in `pending`), in
    /// registration order; see [`World::apply_and_settle_with`].
    pub(crate) fn stores_to_settle<'a>(
        &'a mut self,
        pending: &'a mut PendingDespawns,
    ) -> Vec<UnsettledStore<'a>> {
        if pending.per_store.len() < self.stores.len() {
            pending.per_store.resize_with(self.stores.len(), Vec::new);
        }
        self.stores
            .iter_mut()
            .zip(&mut pending.per_store)
            .filter(|(entry, gone)| !gone.is_empty() || !entry.store.index().settled)
            .map(|(entry, gone)| UnsettledStore {
                store: &mut *entry.store,
                gone: Some(gone),
            })
            .collect()
    }

    /// Checks the allocator's and every store's invariants, that stores hold only live
    /// entities, and the hierarchy's invariants (`hierarchy.rs`).
    ///
    /// # Errors
    ///
    /// A description naming the store and the broken invariant.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.entities.check_invariants()?;
        let mut held = 0;
        for (i, entry) in self.stores.iter().enumerate() {
            entry
                .store
                .check_invariants()
                .map_err(|e| format!("store `{}`: {e}", entry.name))?;
            // What the dense column lists but the store does not hold are dead elements
            // (`store/dead.rs`): they belong to despawned entities, or to live ones whose
            // component was deleted (`World::delete`), which the membership index must agree
            // no longer have it.
            let index = entry.store.index();
            for &e in entry.store.dense_entities() {
                let alive = self.entities.is_alive(e);
                if !index.contains(e) {
                    if alive && self.membership.contains(e.slot(), i) {
                        return Err(format!(
                            "store `{}` keeps a dead element for {e}, which is alive and, per \
                             the membership index, still has the component",
                            entry.name
                        ));
                    }
                    continue;
                }
                if !self.membership.contains(e.slot(), i) {
                    return Err(format!(
                        "store `{}` holds {e} but the membership index says it does not",
                        entry.name
                    ));
                }
                if !alive {
                    return Err(format!("store `{}` holds dead entity {e}", entry.name));
                }
            }
            held += entry.store.len();
        }
        let indexed = self.membership.count();
        if indexed != held {
            return Err(format!(
                "the membership index records {indexed} values but the stores hold {held}"
            ));
        }
        self.check_hierarchy()
    }
}

/// A bundle's store positions without repeats (a bundle naming a type twice stores it once),
/// in first-occurrence order.
fn unique(indices: &[usize]) -> &[usize] {
    // Bundles are at most 12 long; a repeat is rare and only shortens the list.
    let n = indices
        .iter()
        .enumerate()
        .position(|(k, i)| indices[..k].contains(i))
        .unwrap_or(indices.len());
    &indices[..n]
}

#[cfg(test)]
mod tests;

/// Despawns begun by [`World::despawn_later`] and not yet finished: per store (registration
/// index), the entities it must lose, in despawn order.
#[derive(Default)]
pub(crate) struct PendingDespawns {
    per_store: Vec<Vec<Entity>>,
    /// Whether any list is non-empty (so that finishing with nothing pending costs one check,
    /// not a walk over every registered store).
    any: bool,
    /// The despawned entities' slots, one bit each: a spawn into one of them must wait until
    /// the stores have let go of the old entity.
    slots: Vec<u64>,
}

impl PendingDespawns {
    fn mark(&mut self, slot: u32) {
        let word = slot as usize / 64;
        if self.slots.len() <= word {
            self.slots.resize(word + 1, 0);
        }
        self.slots[word] |= 1 << (slot % 64);
    }

    /// Whether any removal is pending.
    pub(crate) fn any(&self) -> bool {
        self.any
    }

    /// Whether the stores may still hold a despawned entity in `slot`.
    pub(crate) fn holds(&self, slot: u32) -> bool {
        self.any
            && self
                .slots
                .get(slot as usize / 64)
                .is_some_and(|w| w & (1 << (slot % 64)) != 0)
    }
}
