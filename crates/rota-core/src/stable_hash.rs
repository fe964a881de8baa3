//! Stable hashing: FNV-1a over a fixed little-endian encoding, so the same values give the same
//! number on every run, thread count, platform and compiler version (`std::hash` makes no such
//! promise). The world's checksums (`checksum.rs`, `world/full_checksum.rs`) are built on it.

/// How one value of `T` is fed to a [`StableHasher`]: `T::stable_hash` as a function pointer,
/// so the world can hash stores whose type it has erased
/// ([`Component::stable_hash_fn`](crate::component::Component::stable_hash_fn)).
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
