//! `Bundle`: a tuple of components spawned or inserted together.

use std::any::TypeId;

use crate::component::Component;
use crate::entity::Entity;
use crate::error::StoreError;
use crate::store::Appender;
use crate::world::{StoreEntry, World, downcast_mut};

/// A tuple of up to 12 components, spawned together by `World::spawn_with`, `spawn_batch` and
/// `Commands::spawn`. `()` is the empty bundle.
///
/// If a bundle names the same component type twice, the later value wins (the earlier one is
/// dropped once the entity is whole in the world's books).
///
/// This trait is implemented for tuples only; its items are rota's plumbing.
pub trait Bundle: Send + 'static {
    /// The bundle's store positions in `World::stores`, in bundle order (`[usize; N]`).
    #[doc(hidden)]
    type Indices: AsRef<[usize]> + Copy;

    /// Each component's store, typed: looked up and downcast once per batch.
    #[doc(hidden)]
    type Columns<'s>;

    /// Registers every component's store and returns their positions in bundle order.
    #[doc(hidden)]
    fn register(world: &mut World) -> Self::Indices;

    /// Reserves room for `additional` values in every store of the bundle.
    #[doc(hidden)]
    fn reserve(stores: &mut [StoreEntry], indices: &Self::Indices, additional: usize);

    /// The typed stores, or `None` if the bundle names a type twice (then use `insert`).
    #[doc(hidden)]
    fn columns<'s>(
        stores: &'s mut [StoreEntry],
        indices: &Self::Indices,
    ) -> Option<Self::Columns<'s>>;

    /// Appends the components for `entity`, whose slot no store holds (a fresh entity).
    #[doc(hidden)]
    fn push(self, columns: &mut Self::Columns<'_>, entity: Entity);

    /// Appends the components alone; `attach` gives them their entity later.
    #[doc(hidden)]
    fn push_values(self, columns: &mut Self::Columns<'_>);

    /// Gives the values appended by `push_values` their entities, in order, one column at a
    /// time; values beyond `entities` are dropped. No store may hold a slot of `entities`;
    /// the slots of `entities[..ascending]` strictly ascend. On an error, the columns before
    /// the one that failed (their number is returned with it) hold the entities, the others
    /// none.
    #[doc(hidden)]
    fn attach(
        columns: &mut Self::Columns<'_>,
        entities: &[Entity],
        ascending: usize,
    ) -> Result<(), (usize, StoreError)>;

    /// Reads the entries `push` will write for an entity at `slot` and returns a value made of
    /// them: a read ahead that brings them into the cache (see `read_ahead.rs`).
    #[doc(hidden)]
    fn touch(columns: &Self::Columns<'_>, slot: u32) -> u64;

    /// Makes both halves of each registered store of the bundle the world's own (copied, with
    /// the components' `Clone`, if a snapshot shares them), changing nothing else: called
    /// before a spawn changes anything, so that a `Clone` panicking in the copy leaves the world
    /// as it was. Types not registered yet have no store to copy.
    #[doc(hidden)]
    fn own_columns(world: &mut World);

    /// The values a bundle that names a type twice replaced in its own entity
    /// (`Option<T>` per component), handed back by [`Bundle::insert`] so that the caller drops
    /// them once the world's books agree (a `Drop` may panic).
    #[doc(hidden)]
    type Replaced;

    /// Moves the components into their stores for `entity`, one lookup each (any bundle);
    /// returns the values replaced, for the caller to drop once its books agree.
    #[doc(hidden)]
    fn insert(
        self,
        stores: &mut [StoreEntry],
        indices: &Self::Indices,
        entity: Entity,
    ) -> Self::Replaced;

    /// Calls `each` with every component's `TypeId` and name, in bundle order (what a
    /// system's `Commands` checks against its declarations).
    #[doc(hidden)]
    fn types(each: &mut dyn FnMut(TypeId, &'static str));
}

impl Bundle for () {
    type Indices = [usize; 0];
    type Columns<'s> = ();
    fn register(_: &mut World) -> [usize; 0] {
        []
    }
    fn reserve(_: &mut [StoreEntry], _: &[usize; 0], _: usize) {}
    fn columns(_: &mut [StoreEntry], _: &[usize; 0]) -> Option<()> {
        Some(())
    }
    fn push(self, _: &mut (), _: Entity) {}
    fn push_values(self, _: &mut ()) {}
    fn attach(_: &mut (), _: &[Entity], _: usize) -> Result<(), (usize, StoreError)> {
        Ok(())
    }
    fn touch(_: &(), _: u32) -> u64 {
        0
    }
    fn own_columns(_: &mut World) {}
    type Replaced = ();
    fn insert(self, _: &mut [StoreEntry], _: &[usize; 0], _: Entity) {}
    fn types(_: &mut dyn FnMut(TypeId, &'static str)) {}
}

macro_rules! impl_bundle {
    ($(($T:ident, $i:tt)),+) => {
        impl<$($T: Component),+> Bundle for ($($T,)+) {
            type Indices = [usize; [$($i),+].len()];
            type Columns<'s> = ($(Appender<'s, $T>,)+);

            fn register(world: &mut World) -> Self::Indices {
                [$(world.register::<$T>()),+]
            }
            fn types(each: &mut dyn FnMut(TypeId, &'static str)) {
                $(each(TypeId::of::<$T>(), $T::NAME);)+
            }
            fn reserve(stores: &mut [StoreEntry], indices: &Self::Indices, additional: usize) {
                // A failed reservation is not an error here: inserts grow as needed.
                $(
                    let _ = downcast_mut::<$T>(&mut *stores[indices[$i]].store)
                        .try_reserve(additional);
                )+
            }
            #[allow(non_snake_case)] // the bindings are named after the type they hold
            fn columns<'s>(
                stores: &'s mut [StoreEntry],
                indices: &Self::Indices,
            ) -> Option<Self::Columns<'s>> {
                let [$($T),+] = stores.get_disjoint_mut(*indices).ok()?;
                Some(($(downcast_mut::<$T>(&mut *$T.store).appender(),)+))
            }
            #[inline]
            fn push(self, columns: &mut Self::Columns<'_>, entity: Entity) {
                $(columns.$i.push(entity, self.$i);)+
            }
            #[inline]
            fn push_values(self, columns: &mut Self::Columns<'_>) {
                $(columns.$i.push_value(self.$i);)+
            }
            fn attach(
                columns: &mut Self::Columns<'_>,
                entities: &[Entity],
                ascending: usize,
            ) -> Result<(), (usize, StoreError)> {
                $(columns.$i.attach(entities, ascending).map_err(|e| ($i, e))?;)+
                Ok(())
            }
            #[inline]
            fn touch(columns: &Self::Columns<'_>, slot: u32) -> u64 {
                0 $(^ columns.$i.touch(slot))+
            }
            fn own_columns(world: &mut World) {
                $(
                    if let Some(store) = world.store_mut::<$T>() {
                        store.own_columns();
                    }
                )+
            }
            type Replaced = ($(Option<$T>,)+);
            fn insert(
                self,
                stores: &mut [StoreEntry],
                indices: &Self::Indices,
                entity: Entity,
            ) -> Self::Replaced {
                ($(downcast_mut::<$T>(&mut *stores[indices[$i]].store).insert(entity, self.$i),)+)
            }
        }
    };
}

impl_bundle!((A, 0));
impl_bundle!((A, 0), (B, 1));
impl_bundle!((A, 0), (B, 1), (C, 2));
impl_bundle!((A, 0), (B, 1), (C, 2), (D, 3));
impl_bundle!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4));
impl_bundle!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4), (F, 5));
impl_bundle!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4), (F, 5), (G, 6));
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7)
);
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8)
);
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9)
);
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9),
    (K, 10)
);
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9),
    (K, 10),
    (L, 11)
);
