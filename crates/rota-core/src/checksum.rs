//! A stable world checksum over chosen stores (`World::checksum`, with its [`ChecksumSet`] in
//! `world/checksum.rs`) and the stable hashing it is built on (`stable_hash.rs`): this module is
//! their public path.

pub use crate::stable_hash::{StableHash, StableHashFn, StableHasher};
pub use crate::world::checksum::ChecksumSet;
