//! World snapshots: an owned copy of everything that decides a world's future ([`Snapshot`],
//! made in `world/snapshot.rs`), and the per-type policy ([`SnapshotPolicy`], in
//! `snapshot_policy.rs`) that says how each component and resource is copied. This module is
//! their public path.
//!
//! A snapshot is the world's whole state — not a list of chosen fields. It is made by
//! `World::snapshot` / `copy_state_from` (`world/snapshot.rs`), which destructure `World`,
//! `Store<T>`, `Entities`, the membership index and the resources **exhaustively**: a field
//! added to any of them is a compile error there until it is copied (or shared) too. So state
//! added later (change ticks, event channels, logs) cannot be forgotten by snapshots.
//!
//! Stores are shared copy-on-write between a world and its snapshots (see
//! [`World::snapshot`](crate::World::snapshot)): the `CLONE` policy's column function is what copies a shared value
//! column when the world writes it.

pub use crate::snapshot_policy::SnapshotPolicy;
pub use crate::store::SharedColumns;
pub use crate::world::snapshot::Snapshot;
