//! Applying runs of recorded commands (`World::apply`): consecutive spawns of one bundle type,
//! inserts or removes of one component type, each with one store lookup and one downcast for
//! the whole run instead of one per command.
//!
//! Each item is still decided on its own, in recorded order, by the caller's `admit` (which
//! reports skipped commands); a store is registered only once an item takes effect, exactly as
//! the one-command-at-a-time path would.

use std::any::TypeId;

use super::log::StructuralChange;
use crate::bundle::Bundle;
use crate::component::Component;
use crate::entity::Entity;
use crate::world::{World, downcast_mut};

impl World {
    /// Spawns reserved entities with their bundles, in order. `taken(k, entity)` is called for
    /// each item whose reserved slot was taken meanwhile (nothing is spawned for it).
    pub(crate) fn spawn_reserved_run<B: Bundle>(
        &mut self,
        items: Vec<(Entity, B)>,
        mut taken: impl FnMut(usize, Entity),
    ) {
        let mut items = items.into_iter().enumerate();
        let (entity, bundle) = loop {
            let Some((k, (entity, bundle))) = items.next() else {
                return;
            };
            match self.entities.spawn_reserved(entity) {
                Ok(()) => break (entity, bundle),
                Err(_) => taken(k, entity),
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
        let mut record = |entity: Entity| {
            for &i in indices.as_ref() {
                membership.set(entity.slot(), i);
            }
            if logging {
                spawned.push(entity);
            }
        };
        if let Some(mut columns) = B::columns(stores, &indices) {
            bundle.push(&mut columns, entity);
            record(entity);
            for (k, (entity, bundle)) in items {
                match entities.spawn_reserved(entity) {
                    Ok(()) => {
                        bundle.push(&mut columns, entity);
                        record(entity);
                    }
                    Err(_) => taken(k, entity),
                }
            }
        } else {
            bundle.insert(stores, &indices, entity);
            record(entity);
            for (k, (entity, bundle)) in items {
                match entities.spawn_reserved(entity) {
                    Ok(()) => {
                        bundle.insert(stores, &indices, entity);
                        record(entity);
                    }
                    Err(_) => taken(k, entity),
                }
            }
        }
        if let Some(log) = log {
            for entity in spawned {
                log.spawned(entity, super::unique(indices.as_ref()), stores);
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
        let mut items = items.into_iter().enumerate();
        let (entity, value) = loop {
            let Some((k, (entity, value))) = items.next() else {
                return;
            };
            if admit(k, entity, self.entities.is_alive(entity)) {
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
        let mut insert = |entity: Entity, value: T| {
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
        insert(entity, value);
        for (k, (entity, value)) in items {
            if admit(k, entity, entities.is_alive(entity)) {
                insert(entity, value);
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
        for (k, entity) in items.into_iter().enumerate() {
            if !admit(k, entity, entities.is_alive(entity)) {
                continue;
            }
            if let Some((i, store)) = &mut store
                && let Some(removed) = store.remove(entity)
            {
                membership.clear(entity.slot(), *i);
                if let Some(log) = log.as_mut() {
                    log.push(StructuralChange::Removed {
                        entity,
                        component: T::NAME,
                        type_id: TypeId::of::<T>(),
                    });
                }
                // Dropped once the world's books agree with the store: its `Drop` may panic.
                drop(removed);
            }
        }
    }
}

fn added<T: Component>(entity: Entity) -> StructuralChange {
    StructuralChange::Added {
        entity,
        component: T::NAME,
        type_id: TypeId::of::<T>(),
    }
}
