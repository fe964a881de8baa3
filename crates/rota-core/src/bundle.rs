//! `Bundle`: a tuple of components spawned or inserted together.

use crate::component::Component;
use crate::entity::Entity;
use crate::world::{StoreEntry, World, downcast_mut};

/// A tuple of up to 12 components, spawned together by `World::spawn_with`, `spawn_batch` and
/// `Commands::spawn`. `()` is the empty bundle.
///
/// If a bundle names the same component type twice, the later value wins.
///
/// This trait is implemented for tuples only; its methods are rota's plumbing.
pub trait Bundle: Send + 'static {
    /// Registers every component's store and records their indices in bundle order.
    #[doc(hidden)]
    fn register(world: &mut World, indices: &mut Vec<usize>);

    /// Reserves room for `additional` values in every store of the bundle.
    #[doc(hidden)]
    fn reserve(stores: &mut [StoreEntry], indices: &[usize], additional: usize);

    /// Moves the components into their stores for `entity`.
    #[doc(hidden)]
    fn insert(self, stores: &mut [StoreEntry], indices: &[usize], entity: Entity);
}

impl Bundle for () {
    fn register(_: &mut World, _: &mut Vec<usize>) {}
    fn reserve(_: &mut [StoreEntry], _: &[usize], _: usize) {}
    fn insert(self, _: &mut [StoreEntry], _: &[usize], _: Entity) {}
}

macro_rules! impl_bundle {
    ($(($T:ident, $i:tt)),+) => {
        impl<$($T: Component),+> Bundle for ($($T,)+) {
            fn register(world: &mut World, indices: &mut Vec<usize>) {
                $(indices.push(world.register::<$T>());)+
            }
            fn reserve(stores: &mut [StoreEntry], indices: &[usize], additional: usize) {
                // A failed reservation is not an error here: inserts grow as needed.
                $(
                    let _ = downcast_mut::<$T>(&mut *stores[indices[$i]].store)
                        .try_reserve(additional);
                )+
            }
            fn insert(self, stores: &mut [StoreEntry], indices: &[usize], entity: Entity) {
                $(downcast_mut::<$T>(&mut *stores[indices[$i]].store).insert(entity, self.$i);)+
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
