//! The `World`: the entity allocator, one store per component type, resources and the tick.
//!
//! Its fields are private to this folder: queries, commands and systems reach the stores
//! through named `#[inline]` methods (`stores_and_entities_mut`, `split_parts_mut`,
//! `store`, `erased_store`, …). Here: the struct, the clock, lookups, inserts and removes,
//! settling and the invariant check; spawning with bundles is in `spawn.rs`, despawning in
//! `despawn.rs`, snapshots in `snapshot.rs`, checksums in `checksum.rs` and
//! `full_checksum.rs`, command runs in `runs.rs`.

pub(crate) mod checksum;
mod column;
pub(crate) mod despawn;
pub mod diff;
mod erased;
mod full_checksum;
pub mod image;
mod inspect;
mod issued;
pub mod log;
mod membership;
mod registry;
pub(crate) mod resources;
mod runs;
mod schedule_ticks;
pub(crate) mod snapshot;
mod spawn;

use std::any::TypeId;
use std::collections::BTreeMap;

use crate::component::Component;
use crate::entity::{Entities, Entity};
use crate::error::EntityNotAlive;
use crate::store::Store;
use crate::tick::{CHECK_INTERVAL, ChangeWindow, Tick};
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
    entities: Entities,
    stores: Vec<StoreEntry>,
    /// Component type → position in `stores`; lookup only, never iterated.
    registry: Registry,
    /// Which stores hold each slot, so a despawn visits only the entity's own components.
    membership: Membership,
    resources: Resources,
    tick: u64,
    /// The change clock (see `tick.rs`): world-level writes stamp it; every store's own
    /// `change_tick` is kept equal to it.
    change_tick: Tick,
    /// When every stored tick was last clamped to `MAX_AGE`.
    last_clamp: Tick,
    /// Each system's last run (by its marker's `TypeId`), for its `Changed`/`Added` window.
    /// Lookup and clamping only; never iterated for a result.
    system_runs: BTreeMap<TypeId, Tick>,
    /// Each system's name, by its marker's `TypeId`: what `full_checksum` orders and hashes
    /// `system_runs` by (`TypeId`s differ between builds). Lookup only.
    system_names: BTreeMap<TypeId, &'static str>,
    /// Last runs loaded from a world image (`image.rs`) by system name, for systems that have
    /// not run on this world yet: a system's first run takes its entry (`name_system`) into
    /// `system_runs`. State: snapshotted, hashed by name like `system_runs`, clamped with them.
    unbound_system_runs: BTreeMap<Box<str>, Tick>,
    /// Each schedule's own tick, by label: the count its strides are checked against (see
    /// `schedule_ticks.rs`). State like the world's tick: snapshotted, restored, hashed.
    schedule_ticks: BTreeMap<Box<str>, u64>,
    /// The structural change log, when enabled.
    log: Option<log::StructuralLog>,
    /// How far each numbered stream (the log, every event channel) ever numbered in this
    /// world. Not state: a restore keeps it, so that numbers are never reused (`issued.rs`,
    /// `sequence.rs`).
    issued: issued::Issued,
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
            system_names: BTreeMap::new(),
            unbound_system_runs: BTreeMap::new(),
            schedule_ticks: BTreeMap::new(),
            log: None,
            issued: issued::Issued::default(),
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
            for last in self.unbound_system_runs.values_mut() {
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

    /// Records system `id`'s name (for hashing its last run). The first time, the system
    /// takes what a world image left under its name (`image.rs`): its last run and, in every
    /// event channel, its readers' cursors. Call it before `begin_system_runs`.
    pub(crate) fn name_system(&mut self, id: TypeId, name: &'static str) {
        if let std::collections::btree_map::Entry::Vacant(entry) = self.system_names.entry(id) {
            entry.insert(name);
            if let Some(last) = self.unbound_system_runs.remove(name) {
                self.system_runs.entry(id).or_insert(last);
            }
            for (_, stream) in self.resources.streams_mut() {
                stream.bind_reader(name, id);
            }
        }
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

    /// Every store, exclusively, beside the allocator (shared): what a query splits its
    /// borrows from (`query/borrow.rs`), indexed by registry position.
    #[inline]
    pub(crate) fn stores_and_entities_mut(&mut self) -> (&mut [StoreEntry], &Entities) {
        (&mut self.stores, &self.entities)
    }

    /// The allocator (shared), every store and every resource (exclusively): what
    /// `World::split_for_systems` (`system/split.rs`) lends out to a batch of systems.
    #[inline]
    pub(crate) fn split_parts_mut(&mut self) -> (&Entities, &mut [StoreEntry], &mut Resources) {
        (&self.entities, &mut self.stores, &mut self.resources)
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
    ///
    /// The end of a tick is also when event channels drop the events their retention no
    /// longer keeps (see [`crate::event`]).
    pub fn advance_tick(&mut self) {
        self.tick += 1;
        for (_, stream) in self.resources.streams_mut() {
            stream.end_tick();
        }
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

    /// Adds or replaces `entity`'s `T`, returning the value replaced.
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle; nothing is stored.
    // `inline(always)`: LLVM left it out of line by size, and a loop of `insert` + `delete`
    // then ran 134 instructions per call against 104 inlined (callgrind; docs/benchmarks.md,
    // "add_remove through `World`"). The append path stays out of line.
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

#[cfg(test)]
mod tests;
