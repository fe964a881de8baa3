//! [`ColumnMut`]: one component type's column of a world, held across many structural changes.
//!
//! [`World::insert`], [`World::remove`] and [`World::delete`] find `T`'s store on every call —
//! the registry cell, then the erased store's `Any` downcast (an indirect call; safe Rust has
//! no other way back to the typed store). A `ColumnMut` does both once, when it is made, and
//! then each call is the store's own work, the membership bit and the structural log, with the
//! liveness check where it can decide something (below). The world's methods are a lookup
//! followed by the call of the same name here, so the two cannot drift apart
//! (`tests/model/column_handle.rs` still runs both on the same histories). That layer costs
//! nothing only because the bookkeeping methods are `#[inline(always)]`: with plain `#[inline]`
//! and two callers each, LLVM left them out of line and a loop of `World::insert` + `delete` ran
//! 20% more instructions (docs/benchmarks.md, "A typed column handle").
//!
//! A removal that finds a value skips the liveness check: the store matched the whole handle,
//! generation included, and a store holds only live entities (a despawn takes the entity out of
//! every store, leaving at most a dead element, which no lookup finds). The one window where a
//! store still holds a freed entity — a command application's despawns whose store removals
//! wait (`World::despawn_later`) — is closed before any code that holds a `&mut World` runs:
//! `apply_queue` finishes them before a queued closure, its insert and remove runs check
//! liveness themselves, and a panic finishes them before it goes on. Only a removal that finds
//! nothing asks, to tell `Ok(None)` from [`EntityNotAlive`].
//!
//! Invariant kept here, as in the world's methods: the membership index lists `T`'s store for
//! a slot exactly when the store holds a live value for it (`World::check_invariants`), and
//! every value added or removed is logged.

use std::any::TypeId;

use super::World;
use super::erased::downcast_mut;
use super::log::StructuralLog;
use super::membership::Membership;
use crate::component::Component;
use crate::entity::{Entities, Entity};
use crate::error::EntityNotAlive;
use crate::store::{Discarded, Store};

/// `T`'s column of a [`World`], borrowed for many inserts, removals and deletes in a row
/// ([`World::column_mut`]): each call skips the store lookup and the type check that
/// [`World::insert`], [`World::remove`] and [`World::delete`] pay every time, and otherwise
/// does exactly what they do — the same liveness check, the same errors, the same change
/// ticks and structural log entries, the same order.
///
/// It borrows the world mutably, so nothing else can reach the world while it lives: no other
/// component type can change meanwhile (take another `ColumnMut` after this one).
///
/// ```
/// # use rota::{Component, World};
/// # #[derive(Component, Clone)] struct Health(u32);
/// # #[derive(Component, Clone, Copy)] struct Stunned;
/// let mut world = World::new();
/// let es = world.spawn_batch((0..100).map(|i| (Health(i),)));
/// let mut stunned = world.column_mut::<Stunned>();
/// for &e in es.iter().step_by(2) {
///     stunned.insert(e, Stunned).unwrap();
/// }
/// assert_eq!(stunned.len(), 50);
/// assert_eq!(stunned.delete(es[0]), Ok(true));
/// assert_eq!(stunned.delete(es[1]), Ok(false)); // never stunned
/// assert!(!world.has::<Stunned>(es[0]) && world.has::<Stunned>(es[2]));
/// ```
pub struct ColumnMut<'w, T: Component> {
    entities: &'w Entities,
    membership: &'w mut Membership,
    log: &'w mut Option<StructuralLog>,
    store: &'w mut Store<T>,
    /// The store's position in the world's registration order: its membership bit.
    position: usize,
}

impl World {
    /// `T`'s column, for many structural changes of `T` in a row without a store lookup per
    /// call (see [`ColumnMut`]). Registers `T` if no `T` was ever inserted.
    pub fn column_mut<T: Component>(&mut self) -> ColumnMut<'_, T> {
        let position = self.register::<T>();
        self.column_at(position)
    }

    /// `T`'s column, registered at `position`.
    #[inline]
    pub(crate) fn column_at<T: Component>(&mut self, position: usize) -> ColumnMut<'_, T> {
        ColumnMut {
            entities: &self.entities,
            membership: &mut self.membership,
            log: &mut self.log,
            store: downcast_mut::<T>(&mut *self.stores[position].store),
            position,
        }
    }
}

impl<T: Component> ColumnMut<'_, T> {
    /// Adds or replaces `entity`'s `T`, returning the value replaced ([`World::insert`]).
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle; nothing is stored.
    #[inline]
    pub fn insert(&mut self, entity: Entity, component: T) -> Result<Option<T>, EntityNotAlive> {
        self.entities.check_alive(entity)?;
        Ok(self.insert_alive(entity, component))
    }

    /// [`ColumnMut::insert`] for an `entity` the caller has checked is alive (the store may
    /// hold a dead element of a despawned incarnation, which only that check tells apart).
    #[inline(always)]
    pub(crate) fn insert_alive(&mut self, entity: Entity, component: T) -> Option<T> {
        let old = self.store.insert(entity, component);
        self.membership.set(entity.slot(), self.position);
        if let Some(log) = &mut *self.log
            && old.is_none()
        {
            log.added(entity, T::NAME, TypeId::of::<T>());
        }
        old
    }

    /// Removes and returns `entity`'s `T`, if it has one ([`World::remove`]).
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle.
    #[inline(always)]
    pub fn remove(&mut self, entity: Entity) -> Result<Option<T>, EntityNotAlive> {
        let old = self.store.remove(entity);
        if old.is_none() {
            // A removal that finds nothing tells nothing of the handle: checked only then.
            return self.entities.check_alive(entity).map(|()| None);
        }
        self.removed(entity);
        Ok(old)
    }

    /// Removes `entity`'s `T` and drops it; returns whether it had one ([`World::delete`],
    /// which says when the value is left dead in place instead of moved).
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle.
    #[inline(always)]
    pub fn delete(&mut self, entity: Entity) -> Result<bool, EntityNotAlive> {
        let taken = match self.store.discard(entity) {
            Discarded::NotHeld => return self.entities.check_alive(entity).map(|()| false),
            Discarded::Dead => None,
            Discarded::Taken(value) => Some(value),
        };
        self.removed(entity);
        // Dropped once the world's books agree with the store: its `Drop` may panic.
        drop(taken);
        Ok(true)
    }

    /// `entity`'s `T`, if it is alive and has one.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&T> {
        self.store.get(entity)
    }

    /// `entity`'s `T`, mutably, if it is alive and has one (stamped changed, as
    /// [`World::get_mut`] does).
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Option<&mut T> {
        self.store.get_mut(entity)
    }

    /// Whether `entity` is alive and has a `T`.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.store.contains(entity)
    }

    /// Number of entities with a `T`.
    #[inline]
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether no entity has a `T`.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    /// The books after a value of `entity`'s left the store: its membership bit, the log. No
    /// liveness check: a store that found `entity` holds it alive (the module docs say why).
    #[inline(always)]
    fn removed(&mut self, entity: Entity) {
        debug_assert!(
            self.entities.is_alive(entity),
            "a store held {entity}, which is not alive"
        );
        self.membership.clear(entity.slot(), self.position);
        if let Some(log) = &mut *self.log {
            log.removed(entity, T::NAME, TypeId::of::<T>());
        }
    }
}
