//! Spawning with bundles: `World::spawn_with`, `spawn_batch` and the unchecked insert that
//! command application uses for a reserved entity. The `Bundle` trait registers its stores in
//! the world, so these live beside it rather than in `world/mod.rs`, which names no bundle.

use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::error::SpawnError;

use super::World;

impl World {
    /// Spawns an entity with every component of `bundle` (a tuple of up to 12 components).
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # #[derive(Component, Clone)] struct Name(&'static str);
    /// let mut world = World::new();
    /// let e = world.spawn_with((Name("ada"),));
    /// assert_eq!(world.get::<Name>(e).unwrap().0, "ada");
    /// ```
    ///
    /// # Panics
    ///
    /// If the allocator has no slot left, or the bundle names a generic component type twice
    /// (see [`World::try_spawn_with`]; nothing is spawned). Also if a component's `Clone`
    /// panics while a store copies the values a [`Snapshot`](crate::snapshot::Snapshot)
    /// shares with it (copy-on-write): the copies come first, so nothing is spawned.
    ///
    /// A bundle naming any other component type twice does not build (see [`Bundle`]).
    #[track_caller]
    pub fn spawn_with<B: Bundle>(&mut self, bundle: B) -> Entity {
        let () = B::DISTINCT_KEYED_TYPES;
        match self.spawn_distinct(bundle) {
            Ok(e) => e,
            Err(err) => panic!("World::spawn_with: {err}"),
        }
    }

    /// Spawns an entity with `bundle`, reporting failures instead of panicking.
    ///
    /// A bundle naming a component type with a `UNIQUE_KEY` (any non-generic derived type)
    /// twice does not build (see [`Bundle`]); one naming a generic type twice is this error:
    ///
    /// ```
    /// # use rota::{Component, SpawnError, World};
    /// #[derive(Component, Clone)]
    /// struct Tag<T>(T);
    ///
    /// let mut world = World::new();
    /// let refused = world.try_spawn_with((Tag(1u8), Tag(2u8)));
    /// assert!(matches!(refused, Err(SpawnError::DuplicateComponent { component: "Tag" })));
    /// assert_eq!(world.entities().len(), 0);
    /// ```
    ///
    /// # Errors
    ///
    /// [`SpawnError`] if no slot is left or memory runs out, or
    /// [`SpawnError::DuplicateComponent`] if the bundle names a type twice; the world is
    /// unchanged.
    pub fn try_spawn_with<B: Bundle>(&mut self, bundle: B) -> Result<Entity, SpawnError> {
        let () = B::DISTINCT_KEYED_TYPES;
        self.spawn_distinct(bundle)
    }

    /// [`World::try_spawn_with`] once the caller has evaluated `B::DISTINCT_KEYED_TYPES` (each
    /// public entry does it itself, so that a compile error points at the user's call).
    fn spawn_distinct<B: Bundle>(&mut self, bundle: B) -> Result<Entity, SpawnError> {
        crate::bundle::refuse_duplicates::<B>()?; // before anything changes
        self.own_bundle_columns::<B>(); // before the entity is allocated
        let entity = self.entities.spawn()?;
        self.insert_bundle_unchecked(entity, bundle);
        Ok(entity)
    }

    /// Spawns one entity per bundle, in iteration order, returning their handles.
    ///
    /// Faster than a loop of [`World::spawn_with`]: each component's store is looked up once
    /// and reserved for the iterator's size hint, every bundle's values are appended to the
    /// typed stores, and then the entities are allocated (fresh slots as one range) and given
    /// to each store in one pass. Fresh slots ascend, so stores that were settled stay settled.
    /// Takes no more bundles than there are slots left, and returns what was spawned. An
    /// empty batch changes nothing.
    ///
    /// # Panics
    ///
    /// If the bundle type names a generic component type twice (checked once per call, before
    /// the iterator is advanced; nothing is spawned, even for an empty batch). A bundle naming
    /// any other component type twice does not build (see [`Bundle`]).
    ///
    /// If memory runs out while a store grows. The world stays consistent: the entities
    /// spawned so far keep the components of the stores that could take them, and the
    /// structural log records exactly those. A panic of the caller's iterator goes on after the
    /// entities spawned before it are recorded, each whole.
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # #[derive(Component, Clone)] struct Id(u32);
    /// let mut world = World::new();
    /// let spawned = world.spawn_batch((0..100).map(|i| (Id(i),)));
    /// assert_eq!(spawned.len(), 100);
    /// assert_eq!(world.query::<&Id>().map(|id| id.0).sum::<u32>(), 4950);
    /// ```
    #[track_caller]
    pub fn spawn_batch<B, I>(&mut self, bundles: I) -> Vec<Entity>
    where
        B: Bundle,
        I: IntoIterator<Item = B>,
    {
        let () = B::DISTINCT_KEYED_TYPES;
        if let Err(err) = crate::bundle::refuse_duplicates::<B>() {
            panic!("World::spawn_batch: {err}");
        }
        // Never take more bundles than there are slots left, so an endless iterator ends.
        let room = self.entities.spawnable();
        let mut bundles = bundles.into_iter().take(room);
        // An empty batch changes nothing: no store registered, none opened (opening one could
        // compact it).
        let Some(first) = bundles.next() else {
            return Vec::new();
        };
        self.own_bundle_columns::<B>(); // before a new type is registered
        let indices = B::register(self);
        let hint = bundles.size_hint().0.saturating_add(1);
        B::reserve(&mut self.stores, &indices, hint);
        // A size hint may lie: the room is asked for, not required.
        let mut out = Vec::new();
        let _ = out.try_reserve(hint);
        let World {
            entities,
            stores,
            membership,
            ..
        } = self;
        // `bundles` is the caller's iterator and may panic between two bundles: every entity
        // spawned before that is whole, and still reaches the structural log below before the
        // panic goes on.
        let mut attached = indices.as_ref().len();
        let mut failed = None;
        // Column by column: every bundle's values first, then their entities (fresh slots as
        // one range), then each store's entity column and sparse entries in one pass.
        let mut columns = B::columns(stores, &indices);
        let mut count = 0;
        let walked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            first.push_values(&mut columns);
            count += 1;
            for bundle in bundles {
                bundle.push_values(&mut columns);
                count += 1;
            }
        }));
        // An error leaves `out` short: `attach` drops the values beyond it. `room` bounds
        // `count`, so only memory can run out here.
        let _ = entities.spawn_many(count, &mut out);
        let ascending = crate::entity::ascending_prefix(&out);
        // Out of memory in a store: the stores before it hold the entities, the others none;
        // the books below record exactly that before the error is raised.
        if let Err((k, e)) = B::attach(&mut columns, &out, ascending) {
            attached = k;
            failed = Some(e);
        }
        drop(columns); // drops the values `attach` gave no entity
        let held = &indices.as_ref()[..attached];
        membership.set_many(&out, held);
        if let Some(log) = &mut self.log {
            for &entity in &out {
                log.spawned(entity, held, &self.stores);
            }
        }
        if let Err(payload) = walked {
            std::panic::resume_unwind(payload);
        }
        if let Some(e) = failed {
            panic!("World::spawn_batch: {e}");
        }
        out
    }

    /// Before a spawn of `B` changes anything: while a snapshot may share the world's columns,
    /// makes both halves of each of `B`'s registered stores the world's own
    /// ([`Bundle::own_columns`]), so that a component `Clone` panicking in a copy leaves the
    /// world as it was — no entity allocated, no type registered.
    pub(super) fn own_bundle_columns<B: Bundle>(&mut self) {
        if self.shares_columns {
            B::own_columns(self);
        }
    }

    /// Inserts `bundle` (whose types are distinct: `refuse_duplicates`) for an entity known to
    /// be alive and to hold no component (a fresh spawn).
    pub(crate) fn insert_bundle_unchecked<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        let indices = B::register(self);
        bundle.push(&mut B::columns(&mut self.stores, &indices), entity);
        for &i in indices.as_ref() {
            self.membership.set(entity.slot(), i);
        }
        if let Some(log) = &mut self.log {
            log.spawned(entity, indices.as_ref(), &self.stores);
        }
    }
}
