//! Despawning: one entity at once (`World::despawn`), a batch (`despawn_batch`), and the two
//! halves every batched despawn takes — `despawn_later` (the allocator frees the entity, the
//! log records it, its stores are listed) and `finish_despawns` (each store loses its listed
//! entities in one visit) — which command application and `despawn_recursive` share.
//!
//! Invariants: between the halves the stores still hold the despawned entities, so nothing
//! that could reach their slots runs in between (`PendingDespawns::holds` tells a spawn to
//! wait); removed values are dropped only once every store is consistent again, so a `Drop`
//! that panics unwinds out of a whole world; and a component `Clone` that panics while a store
//! copies a column a snapshot shares does so before the first change (`own_values_of`).

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::entity::Entity;
use crate::error::EntityNotAlive;
use crate::read_ahead::{READ_AHEAD, ReadAhead};
use crate::unwind::{Unwound, drop_each};

use super::{UnsettledStore, World, log};

impl World {
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
            return self.despawn_detaching(collected, Detach::EachEntity, walked);
        }
        self.despawn_batch_detached(entities)
    }

    /// The batched despawn of entities that may have links in a hierarchy, shared by
    /// `despawn_batch` and `despawn_recursive`; `detach` says which links change. Copies
    /// first what a snapshot shares, then detaches, then despawns through
    /// [`World::despawn_batch_detached`]. `walked` is how the walk that collected `batch` ended:
    /// its panic, if any, goes on once the batch is despawned (or, if a component `Clone`
    /// panics in a copy, at once, the world left as it was).
    pub(crate) fn despawn_detaching(
        &mut self,
        batch: Vec<Entity>,
        detach: Detach<'_>,
        walked: Unwound,
    ) -> usize {
        // Before any change (detaching changes other entities): a component `Clone` that
        // panics in a copy leaves the world as it was; the iterator's panic, if any, goes
        // on first.
        let owned = catch_unwind(AssertUnwindSafe(|| self.own_values_of_all(&batch)));
        if let Err(panic) = owned {
            resume_unwind(walked.err().unwrap_or(panic));
        }
        match detach {
            Detach::EachEntity => {
                for &entity in &batch {
                    if self.is_alive(entity) {
                        self.detach_for_despawn(entity);
                    }
                }
            }
            Detach::Subtree(in_subtree) => self.detach_subtree(&batch, in_subtree),
        }
        let despawned = self.despawn_batch_detached(batch);
        if let Err(panic) = walked {
            resume_unwind(panic);
        }
        despawned
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
    pub(super) fn own_values_of(&mut self, entity: Entity, batched: bool) {
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
}

/// Which hierarchy links a batched despawn changes ([`World::despawn_detaching`]).
pub(crate) enum Detach<'a> {
    /// Each entity of the batch on its own, as [`World::despawn`] would: it leaves its
    /// parent's `Children` and its children become roots (`despawn_batch`).
    EachEntity,
    /// The batch is a whole subtree (these are its slots): only links to survivors change,
    /// the links inside it go with its despawns (`despawn_recursive`).
    Subtree(&'a BTreeSet<u32>),
}

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
