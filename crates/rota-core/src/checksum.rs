//! A stable world checksum: FNV-1a over a fixed little-endian encoding, so the same world gives
//! the same number on every run, thread count, platform and compiler version (`std::hash` makes
//! no such promise).

use crate::component::Component;
use crate::entity::Entity;
use crate::world::World;

/// How one value of `T` is fed to a [`StableHasher`]: `T::stable_hash` as a function pointer,
/// so the world can hash stores whose type it has erased
/// ([`Component::stable_hash_fn`]).
pub type StableHashFn<T> = fn(&T, &mut StableHasher);

/// A 64-bit FNV-1a hasher over explicit little-endian bytes.
#[derive(Clone, Debug)]
pub struct StableHasher {
    state: u64,
}

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher::new()
    }
}

impl StableHasher {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// A fresh hasher.
    pub const fn new() -> StableHasher {
        StableHasher {
            state: Self::OFFSET,
        }
    }

    /// Feeds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.state ^= b as u64;
            self.state = self.state.wrapping_mul(Self::PRIME);
        }
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.state
    }
}

/// A value with a fixed byte encoding for [`StableHasher`]. Derive it with
/// `#[derive(StableHash)]` (fields in declaration order; enums hash their variant index first).
pub trait StableHash {
    /// Feeds this value's encoding to `hasher`.
    fn stable_hash(&self, hasher: &mut StableHasher);
}

macro_rules! int_hash {
    ($($t:ty),*) => {$(
        impl StableHash for $t {
            fn stable_hash(&self, h: &mut StableHasher) {
                h.write(&self.to_le_bytes());
            }
        }
    )*};
}
int_hash!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

impl StableHash for usize {
    fn stable_hash(&self, h: &mut StableHasher) {
        (*self as u64).stable_hash(h)
    }
}
impl StableHash for isize {
    fn stable_hash(&self, h: &mut StableHasher) {
        (*self as i64).stable_hash(h)
    }
}
impl StableHash for f32 {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.to_bits().stable_hash(h)
    }
}
impl StableHash for f64 {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.to_bits().stable_hash(h)
    }
}
impl StableHash for bool {
    fn stable_hash(&self, h: &mut StableHasher) {
        (*self as u8).stable_hash(h)
    }
}
impl StableHash for () {
    fn stable_hash(&self, _: &mut StableHasher) {}
}
impl StableHash for Entity {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.slot().stable_hash(h);
        self.generation().stable_hash(h);
    }
}
impl StableHash for str {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.len().stable_hash(h);
        h.write(self.as_bytes());
    }
}
impl StableHash for String {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.as_str().stable_hash(h)
    }
}
impl<T: StableHash + ?Sized> StableHash for &T {
    fn stable_hash(&self, h: &mut StableHasher) {
        (**self).stable_hash(h)
    }
}
impl<T: StableHash> StableHash for Option<T> {
    fn stable_hash(&self, h: &mut StableHasher) {
        match self {
            None => 0u8.stable_hash(h),
            Some(v) => {
                1u8.stable_hash(h);
                v.stable_hash(h);
            }
        }
    }
}
impl<T: StableHash, const N: usize> StableHash for [T; N] {
    fn stable_hash(&self, h: &mut StableHasher) {
        for v in self {
            v.stable_hash(h);
        }
    }
}
impl<T: StableHash> StableHash for [T] {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.len().stable_hash(h);
        for v in self {
            v.stable_hash(h);
        }
    }
}
/// A tuple hashes its elements in order (no length: the type fixes it).
macro_rules! tuple_hash {
    ($($T:ident $i:tt),+) => {
        impl<$($T: StableHash),+> StableHash for ($($T,)+) {
            fn stable_hash(&self, h: &mut StableHasher) {
                $(self.$i.stable_hash(h);)+
            }
        }
    };
}
tuple_hash!(A 0);
tuple_hash!(A 0, B 1);
tuple_hash!(A 0, B 1, C 2);
tuple_hash!(A 0, B 1, C 2, D 3);

impl<T: StableHash> StableHash for Vec<T> {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.as_slice().stable_hash(h)
    }
}

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

impl StableHash for crate::hierarchy::ChildOf {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.parent().stable_hash(h)
    }
}
impl StableHash for crate::hierarchy::Children {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.as_slice().stable_hash(h)
    }
}
