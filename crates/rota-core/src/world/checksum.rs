//! `World::checksum`: a stable checksum of the tick, the live entities and the stores of the
//! component types a tuple lists ([`ChecksumSet`]), each in ascending slot order.

use crate::component::Component;
use crate::stable_hash::{StableHash, StableHasher};
use crate::world::World;

/// A tuple of component types whose stores a checksum covers, in tuple order.
pub trait ChecksumSet {
    /// Hashes every listed store's `(slot, value)` pairs in ascending slot order.
    fn hash_stores(world: &World, h: &mut StableHasher);
}

impl ChecksumSet for () {
    fn hash_stores(_: &World, _: &mut StableHasher) {}
}

macro_rules! checksum_tuple {
    ($($T:ident),+) => {
        impl<$($T: Component + StableHash),+> ChecksumSet for ($($T,)+) {
            fn hash_stores(world: &World, h: &mut StableHasher) {
                $(
                    $T::NAME.stable_hash(h);
                    match world.store::<$T>() {
                        None => 0usize.stable_hash(h),
                        Some(store) => {
                            store.len().stable_hash(h);
                            for (e, v) in store.iter() {
                                e.slot().stable_hash(h);
                                v.stable_hash(h);
                            }
                        }
                    }
                )+
            }
        }
    };
}
checksum_tuple!(A);
checksum_tuple!(A, B);
checksum_tuple!(A, B, C);
checksum_tuple!(A, B, C, D);
checksum_tuple!(A, B, C, D, E);
checksum_tuple!(A, B, C, D, E, F);
checksum_tuple!(A, B, C, D, E, F, G);
checksum_tuple!(A, B, C, D, E, F, G, H);
checksum_tuple!(A, B, C, D, E, F, G, H, I);
checksum_tuple!(A, B, C, D, E, F, G, H, I, J);
checksum_tuple!(A, B, C, D, E, F, G, H, I, J, K);
checksum_tuple!(A, B, C, D, E, F, G, H, I, J, K, L);

impl World {
    /// A stable checksum of the world: the tick, every live entity's slot and generation in
    /// ascending order, then the stores of the component types in `C` (a tuple), each as
    /// `(slot, value)` pairs in ascending slot order. Resources are not included; hash them
    /// yourself with a [`StableHasher`] if they matter, or use [`World::full_checksum`], which
    /// covers every store and resource without a list.
    ///
    /// ```
    /// use rota::{Component, StableHash, World};
    ///
    /// #[derive(Component, StableHash, Clone)]
    /// struct Hp(u32);
    ///
    /// let mut a = World::new();
    /// let mut b = World::new();
    /// let (x, y) = (a.spawn_with((Hp(1),)), a.spawn_with((Hp(2),)));
    /// b.spawn_with((Hp(2),));
    /// b.spawn_with((Hp(2),));
    /// b.insert(b.entities().iter().next().unwrap(), Hp(1)).unwrap();
    /// assert_eq!(a.checksum::<(Hp,)>(), b.checksum::<(Hp,)>());
    /// # let _ = (x, y);
    /// ```
    pub fn checksum<C: ChecksumSet>(&self) -> u64 {
        let mut h = StableHasher::new();
        self.tick().stable_hash(&mut h);
        self.len().stable_hash(&mut h);
        for e in self.entities().iter() {
            e.stable_hash(&mut h);
        }
        C::hash_stores(self, &mut h);
        h.finish()
    }
}
