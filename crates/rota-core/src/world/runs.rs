//! Applying runs of recorded commands (`World::apply`): consecutive spawns of one bundle type,
//! inserts or removes of one component type, each with one store lookup and one downcast for
//! the whole run instead of one per command.
//!
//! Each item is still decided on its own, in recorded order, by the caller's `admit` (which
//! reports skipped commands); a store is registered only once an item takes effect, exactly as
//! the one-command-at-a-time path would.

use std::any::TypeId;

use super::log::StructuralChange;
use super::membership::Membership;
use crate::bundle::Bundle;
use crate::component::Component;
use crate::entity::{Entities, Entity};
use crate::read_ahead::ReadAhead;
use crate::store::{Discarded, Store};
use crate::world::{World, downcast_mut};

impl World {
    /// Spawns reserved entities with their bundles, in order. `taken(k, entity)` is called for
    /// each item whose reserved slot was taken meanwhile (nothing is spawned for it). `B` names
    /// each type once: `Commands` refuses any other bundle before recording it.
    pub(crate) fn spawn_reserved_run<B: Bundle>(
        &mut self,
        items: Vec<(Entity, B)>,
        mut taken: impl FnMut(usize, Entity),
    ) {
        self.own_bundle_columns::<B>(); // before the first reservation is spawned
        let mut items = items.into_iter();
        // The position of the next item in `items`' original order.
        let mut k = 0;
        let (entity, bundle) = loop {
            let Some((entity, bundle)) = items.next() else {
                return;
            };
            k += 1;
            match self.entities.spawn_reserved(entity) {
                Ok(()) => break (entity, bundle),
                Err(_) => taken(k - 1, entity),
            }
        };
        let indices = B::register(self);
        let World {
            entities,
            stores,
            membership,
            log,
            ..
        } = self;
        let mut spawned: Vec<Entity> = Vec::new();
        let logging = log.is_some();
        let mut record = |membership: &mut Membership, entity: Entity| {
            for &i in indices.as_ref() {
                membership.set(entity.slot(), i);
            }
            if logging {
                spawned.push(entity);
            }
        };
        let mut columns = B::columns(stores, &indices);
        bundle.push(&mut columns, entity);
        record(membership, entity);
        // Reserved slots are mostly reused ones, scattered: each item's first reads (its slot,
        // its membership row, a sparse entry per store) are done ahead, a few items at a time
        // (see `read_ahead.rs`).
        let mut ahead = ReadAhead::new();
        loop {
            ahead.step(items.as_slice(), |(entity, _)| {
                let slot = entity.slot();
                entities.touch(slot) ^ membership.first_word(slot) ^ B::touch(&columns, slot)
            });
            let Some((entity, bundle)) = items.next() else {
                break;
            };
            k += 1;
            match entities.spawn_reserved(entity) {
                Ok(()) => {
                    bundle.push(&mut columns, entity);
                    record(membership, entity);
                }
                Err(_) => taken(k - 1, entity),
            }
        }
        drop(columns);
        if let Some(log) = log {
            for entity in spawned {
                log.spawned(entity, indices.as_ref(), stores);
            }
        }
    }

    /// Inserts (or replaces) each item's component, in order, for the items `admit(k, entity,
    /// alive)` accepts.
    pub(crate) fn insert_run<T: Component>(
        &mut self,
        items: Vec<(Entity, T)>,
        mut admit: impl FnMut(usize, Entity, bool) -> bool,
    ) {
        let mut items = items.into_iter();
        // The position of the next item in `items`' original order.
        let mut k = 0;
        let (entity, value) = loop {
            let Some((entity, value)) = items.next() else {
                return;
            };
            k += 1;
            if admit(k - 1, entity, self.entities.is_alive(entity)) {
                break (entity, value);
            }
        };
        let i = self.register::<T>();
        let World {
            entities,
            stores,
            membership,
            log,
            ..
        } = self;
        let store = downcast_mut::<T>(&mut *stores[i].store);
        let mut insert = |store: &mut Store<T>, membership: &mut Membership, entity, value| {
            let replaced = store.insert(entity, value);
            if replaced.is_none()
                && let Some(log) = log.as_mut()
            {
                log.push(added::<T>(entity));
            }
            membership.set(entity.slot(), i);
            // Dropped once the world's books agree with the store: its `Drop` may panic.
            drop(replaced);
        };
        insert(store, membership, entity, value);
        // The entities may be scattered: each item's first reads are done ahead, a few items at
        // a time (see `read_ahead.rs`).
        let mut ahead = ReadAhead::new();
        loop {
            ahead.step(items.as_slice(), |(entity, _)| {
                touch_for_change(entities, membership, store, entity.slot())
            });
            let Some((entity, value)) = items.next() else {
                return;
            };
            k += 1;
            if admit(k - 1, entity, entities.is_alive(entity)) {
                insert(store, membership, entity, value);
            }
        }
    }

    /// Removes each item's `T` (if it has one), in order, for the items `admit(k, entity,
    /// alive)` accepts.
    pub(crate) fn remove_run<T: Component>(
        &mut self,
        items: Vec<Entity>,
        mut admit: impl FnMut(usize, Entity, bool) -> bool,
    ) {
        let position = self.registry.position::<T>();
        let World {
            entities,
            stores,
            membership,
            log,
            ..
        } = self;
        let mut store = position.map(|i| (i, downcast_mut::<T>(&mut *stores[i].store)));
        // As in `insert_run`: read ahead (see `read_ahead.rs`).
        let mut ahead = ReadAhead::new();
        for (k, &entity) in items.iter().enumerate() {
            if let Some((_, store)) = &store {
                ahead.step(&items[k..], |e| {
                    touch_for_change(entities, membership, store, e.slot())
                });
            }
            if !admit(k, entity, entities.is_alive(entity)) {
                continue;
            }
            let Some((i, store)) = &mut store else {
                continue;
            };
            // As `World::delete`: a value with no drop glue is marked dead, not swap-removed.
            let removed = match store.discard(entity) {
                Discarded::NotHeld => continue,
                Discarded::Dead => None,
                Discarded::Taken(value) => Some(value),
            };
            membership.clear(entity.slot(), *i);
            if let Some(log) = log.as_mut() {
                log.push(StructuralChange::Removed {
                    entity,
                    component: T::NAME,
                    type_id: TypeId::of::<T>(),
                });
            }
            drop(removed);
        }
    }
}

/// Reads what inserting or removing a `T` at `slot` reads first — the slot, its membership
/// row, the store's sparse entry — and returns a value made of them (see `read_ahead.rs`).
#[inline]
fn touch_for_change<T: Component>(
    entities: &Entities,
    membership: &Membership,
    store: &Store<T>,
    slot: u32,
) -> u64 {
    entities.touch(slot) ^ membership.first_word(slot) ^ store.touch(slot)
}

fn added<T: Component>(entity: Entity) -> StructuralChange {
    StructuralChange::Added {
        entity,
        component: T::NAME,
        type_id: TypeId::of::<T>(),
    }
}
