//! `World::snapshot`, `World::snapshot_into` and `World::restore`: the whole world state, and
//! putting it back.
//!
//! Stores are **copy-on-write**: a snapshot shares each store's two halves (the index — sparse
//! pages, entity column, `added` ticks, order flags — and the values with their `changed`
//! ticks) with the world through `Arc`s, so taking or restoring one copies no column. The
//! first write to a half that a snapshot still shares copies that half, once per borrow (a
//! `&mut T` query, a system's write borrow) or per operation (`get_mut`, `insert`, `remove`,
//! despawn, settle) — never per item. The rest of the world (the allocator's slot table, the
//! membership bitset, resources, the change clock, the log) is small per entity and copied.
//!
//! `snapshot` and `copy_state_from` destructure `World` exhaustively: a field added to `World`
//! is a compile error in both functions until it is copied and restored, so no state can be
//! left out of a snapshot by accident. Per store the share is `Store::share_from` (itself
//! exhaustive; `Store::clone_from_with` for the empty store of an excluded type), per resource
//! `Resources::snapshot`/`restore_from`.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::component::Component;
use crate::error::SnapshotError;
use crate::store::SharedColumns;
use crate::world::{StoreEntry, World};

impl World {
    /// An owned, immutable copy of everything that decides this world's future: the entity
    /// allocator (generations, free slots), every store with its dense order, resources and
    /// the tick.
    ///
    /// Cost: stores are shared, not copied (copy-on-write: two reference counts per store), so
    /// this is O(stores + resources) plus a copy of the allocator's slot table and the
    /// membership bitset (O(slots), a few bytes per slot). The column copies are deferred to
    /// the world's next writes: the first write to a store's values (or, for a structural
    /// change, its index) while a snapshot still shares them copies that half once (`Clone`
    /// per value; a `memcpy` for `Copy` components). A frame that writes few components pays
    /// for those only. Figures (snapshot, restore, the deferred cost, an 8-frame rollback
    /// window): `docs/benchmarks.md`.
    ///
    /// Values are cloned only for copy-on-write, so a component's `Clone` must produce an
    /// equal value (what is behind an `Arc` in a component is shared either way).
    ///
    /// It takes `&mut self` to move each store's columns into shared buffers (`Arc`s, no
    /// copy): while nothing shares them, the world writes its columns with no reference-count
    /// check.
    ///
    /// # Errors
    ///
    /// [`SnapshotError`] naming a component or resource that is excluded from snapshots
    /// ([`SnapshotPolicy::EXCLUDED`](crate::snapshot::SnapshotPolicy::EXCLUDED)) while the
    /// world holds a value of it. No partial snapshot is ever returned.
    ///
    /// # Examples
    ///
    /// See [`Snapshot`].
    pub fn snapshot(&mut self) -> Result<Snapshot, SnapshotError> {
        self.make_stores_shareable();
        self.snapshot_shared()
    }

    /// Every store's halves into `Arc`s, ready to be shared.
    fn make_stores_shareable(&mut self) {
        self.shares_columns = true;
        for entry in &mut self.stores {
            entry.store.make_shareable();
        }
    }

    /// [`World::snapshot`] through `&self`: shares what is already shared (all of a snapshot's
    /// stores), copies the rest.
    pub(crate) fn snapshot_shared(&self) -> Result<Snapshot, SnapshotError> {
        let World {
            entities,
            stores,
            registry,
            membership,
            resources,
            tick,
            change_tick,
            last_clamp,
            system_runs,
            system_names,
            unbound_system_runs,
            schedule_ticks,
            log,
            issued: _, // kept by the world a snapshot is restored into, never copied
            shares_columns: _, // the snapshot's world shares its columns: set below
        } = self;
        let mut store_copies = Vec::with_capacity(stores.len());
        for entry in stores {
            let StoreEntry {
                type_id,
                name,
                store,
            } = entry;
            let Some(copy) = store.snapshot_store() else {
                return Err(SnapshotError::ComponentExcluded {
                    component: name,
                    held: store.len(),
                });
            };
            store_copies.push(StoreEntry {
                type_id: *type_id,
                name,
                store: copy,
            });
        }
        let resources = resources
            .snapshot()
            .map_err(|resource| SnapshotError::ResourceExcluded { resource })?;
        Ok(Snapshot {
            world: World {
                entities: entities.clone(),
                stores: store_copies,
                registry: registry.clone(),
                membership: membership.clone(),
                resources,
                tick: *tick,
                change_tick: *change_tick,
                last_clamp: *last_clamp,
                system_runs: system_runs.clone(),
                system_names: system_names.clone(),
                unbound_system_runs: unbound_system_runs.clone(),
                schedule_ticks: schedule_ticks.clone(),
                log: log.clone(),
                issued: Default::default(),
                shares_columns: true,
            },
        })
    }

    /// Like [`World::snapshot`], but overwrites `target` (a ring of saved frames keeps its
    /// snapshots). Same cost as `snapshot`: the columns are shared, the previous contents of
    /// `target` released (their buffers freed if nothing else shares them).
    ///
    /// # Errors
    ///
    /// As [`World::snapshot`]; `target` is unchanged on error.
    pub fn snapshot_into(&mut self, target: &mut Snapshot) -> Result<(), SnapshotError> {
        self.check_snapshottable()?;
        self.make_stores_shareable();
        target.world.copy_state_from(self);
        Ok(())
    }

    /// Puts the world back exactly as it was when `snapshot` was taken: afterwards it is
    /// indistinguishable from that world (same contents and iteration order, same
    /// [`full_checksum`](World::full_checksum), same handles for future spawns).
    ///
    /// Cost: O(stores + resources) plus a copy of the slot table and membership bitset
    /// (`clone_from`, reusing allocations). The world then shares every store with the
    /// snapshot (copy-on-write, as after [`World::snapshot`]): the snapshot stays unchanged
    /// whatever the world writes next, and each write pays the copy of the half it touches,
    /// once. Component types registered after the snapshot are unregistered again (their
    /// stores dropped), so the registration order matches the snapshot's.
    ///
    /// A snapshot can be restored into any world, any number of times.
    ///
    /// # What a restore does to cursors, logs, strides and ticks
    ///
    /// Everything that is state comes back: the world's tick, each schedule's own tick (so
    /// strides resume in phase), the change clock and every stored change tick, each system's
    /// last run (its next `Changed` window), every event channel with its system readers'
    /// cursors, and the structural log's entries. Sequence numbers do **not** go back: the
    /// log and every channel go on past every number they ever handed out, and remember the
    /// [`Rewind`](crate::sequence::Rewind). A consumer outside the world whose cursor had read
    /// what the restore undid is told so by its next read
    /// ([`LogRead::rewound`](crate::log::LogRead::rewound),
    /// [`EventRead::rewound`](crate::EventRead::rewound)) and resyncs; a cursor that had not
    /// got that far reads on normally. A structural log that is on stays on, even when the
    /// snapshot was taken before it was enabled (it is then empty, with the rewind recorded).
    ///
    /// # Panics
    ///
    /// Only if a component's or resource's `Drop` panics as what the world had is dropped, or a
    /// resource's `Clone` panics as it is copied: the world is still restored whole (a resource
    /// whose copy panicked is left absent, one whose own `clone_from` panicked as that left it),
    /// what it had is dropped last, and then the first panic goes on. The same holds for
    /// [`World::snapshot_into`]'s target and for `Snapshot::clone_from`.
    pub fn restore(&mut self, snapshot: &Snapshot) {
        self.record_issued();
        let copied = catch_unwind(AssertUnwindSafe(|| self.copy_state_from(&snapshot.world)));
        // Whole even after a panicking `Drop` (see above): the numbering goes on either way.
        self.rejoin_streams();
        if let Err(panic) = copied {
            resume_unwind(panic);
        }
    }

    /// Which halves of `T`'s store this world still shares with `snapshot` (copy-on-write): a
    /// shared half costs nothing until this world writes it. `None` if either has no `T`
    /// store, or they are not the same registration.
    ///
    /// ```
    /// # use rota::{Component, World};
    /// use rota::rota_core::snapshot::SharedColumns;
    /// # #[derive(Component, Clone)] struct Hp(u32);
    /// let mut world = World::new();
    /// let a = world.spawn_with((Hp(10),));
    /// let saved = world.snapshot()?;
    /// let both = SharedColumns { index: true, values: true };
    /// assert_eq!(world.shares_columns_with::<Hp>(&saved), Some(both));
    /// world.get_mut::<Hp>(a).unwrap().0 -= 1; // copies the values (once), not the index
    /// assert_eq!(
    ///     world.shares_columns_with::<Hp>(&saved),
    ///     Some(SharedColumns { index: true, values: false })
    /// );
    /// # Ok::<(), rota::SnapshotError>(())
    /// ```
    pub fn shares_columns_with<T: Component>(&self, snapshot: &Snapshot) -> Option<SharedColumns> {
        Some(
            self.store::<T>()?
                .shared_columns(snapshot.world.store::<T>()?),
        )
    }

    /// The error `snapshot` would return, checked before anything is copied.
    fn check_snapshottable(&self) -> Result<(), SnapshotError> {
        if let Some(entry) = self.stores.iter().find(|e| !e.store.is_snapshottable()) {
            return Err(SnapshotError::ComponentExcluded {
                component: entry.name,
                held: entry.store.len(),
            });
        }
        match self.resources.first_excluded() {
            Some(resource) => Err(SnapshotError::ResourceExcluded { resource }),
            None => Ok(()),
        }
    }

    /// Makes `self` a copy of `source`, reusing allocations. `source` must pass
    /// `check_snapshottable` (a snapshot's world always does).
    pub(crate) fn copy_state_from(&mut self, source: &World) {
        let World {
            entities,
            stores,
            registry,
            membership,
            resources,
            tick,
            change_tick,
            last_clamp,
            system_runs,
            system_names,
            unbound_system_runs,
            schedule_ticks,
            log,
            issued: _, // not state: what this world ever numbered stays (see `issued.rs`)
            shares_columns,
        } = self;
        // The stores below share the source's columns.
        *shares_columns = true;
        *change_tick = source.change_tick;
        *last_clamp = source.last_clamp;
        system_runs.clone_from(&source.system_runs);
        system_names.clone_from(&source.system_names);
        unbound_system_runs.clone_from(&source.unbound_system_runs);
        schedule_ticks.clone_from(&source.schedule_ticks);
        log.clone_from(&source.log);
        entities.clone_from(&source.entities);
        // A component's or resource's `Drop` (or a resource's `Clone`) may panic here: every
        // store and resource is still restored, the ones this world had and the snapshot has
        // not are dropped last, and the first panic goes on once the world is whole.
        let mut first_panic = None;
        let mut keep = |result: crate::unwind::Unwound| {
            if let Err(panic) = result {
                first_panic.get_or_insert(panic);
            }
        };
        let mut gone: Vec<StoreEntry> = stores.split_off(source.stores.len().min(stores.len()));
        for (i, from) in source.stores.iter().enumerate() {
            match stores.get_mut(i) {
                // Whole even if a `Drop` of its old values panics (they go last).
                Some(to) if to.type_id == from.type_id => {
                    keep(catch_unwind(AssertUnwindSafe(|| {
                        to.store.restore_store(&*from.store)
                    })))
                }
                slot => {
                    let entry = StoreEntry {
                        type_id: from.type_id,
                        name: from.name,
                        store: from
                            .store
                            .snapshot_store()
                            .unwrap_or_else(|| unreachable_excluded(from.name)),
                    };
                    match slot {
                        Some(to) => gone.push(std::mem::replace(to, entry)),
                        None => stores.push(entry),
                    }
                }
            }
        }
        registry.clone_from(&source.registry);
        membership.clone_from(&source.membership);
        keep(resources.restore_from(&source.resources));
        *tick = source.tick;
        keep(crate::unwind::drop_one_by_one(gone));
        if let Some(panic) = first_panic {
            resume_unwind(panic);
        }
    }
}

/// A snapshot only holds excluded stores that are empty, and those always copy.
#[cold]
fn unreachable_excluded(name: &str) -> ! {
    panic!("rota internal invariant violated: snapshot holds a non-empty excluded store `{name}`")
}

/// An owned, immutable copy of a world's whole state: entities (with generations and the free
/// list), every store with its dense order, resources and the tick.
///
/// Made by [`World::snapshot`]; put back with [`World::restore`]. It shares the world's store
/// columns (copy-on-write, [`World::shares_columns_with`]) and is never changed by the world's
/// later writes; cloning it is as cheap as taking it. A restored world is
/// indistinguishable from the one snapshotted: same queries in the same order, same
/// [`full_checksum`](World::full_checksum), and the same future for the same operations —
/// including the handles later spawns receive.
///
/// What is *not* in a snapshot: anything outside the world, such as a schedule's `Local<T>`
/// parameter state (it lives in the `Schedule`), or state behind a component's or resource's
/// shared pointer (`Arc`) — `Clone` shares it rather than copying it.
///
/// ```
/// use rota::{Component, World};
///
/// #[derive(Component, Clone)]
/// struct Hp(u32);
///
/// let mut world = World::new();
/// let a = world.spawn_with((Hp(10),));
/// let saved = world.snapshot()?;
/// world.get_mut::<Hp>(a).unwrap().0 = 0;
/// world.despawn(a).unwrap();
/// let b = world.spawn(); // reuses a's slot with a new generation
///
/// world.restore(&saved);
/// assert_eq!(world.get::<Hp>(a).unwrap().0, 10);
/// assert!(!world.is_alive(b));
/// let c = world.spawn(); // the next fresh slot, as if the despawn never happened
/// assert_eq!((c.slot(), c.generation()), (1, 0));
/// # Ok::<(), rota::SnapshotError>(())
/// ```
pub struct Snapshot {
    pub(crate) world: World,
}

impl Snapshot {
    /// The snapshotted state, read-only (query it like any world).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The tick the world was at.
    pub fn tick(&self) -> u64 {
        self.world.tick()
    }
}

/// Another copy of the same state (GGRS's `GameStateCell::load` clones its state, for one).
/// Both share the stores (copy-on-write); `clone_from` is [`World::restore`] into the target.
impl Clone for Snapshot {
    fn clone(&self) -> Self {
        match self.world.snapshot_shared() {
            Ok(copy) => copy,
            // A snapshot holds excluded types only as empty stores, which always copy.
            Err(e) => panic!("rota internal invariant violated: a snapshot did not copy: {e}"),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.world.copy_state_from(&source.world);
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("world", &self.world)
            .finish()
    }
}
