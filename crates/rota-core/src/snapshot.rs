//! World snapshots: an owned copy of everything that decides a world's future, and the
//! per-type policy ([`SnapshotPolicy`]) that says how each component and resource is copied.
//!
//! A snapshot is the world's whole state — not a list of chosen fields. It is made by
//! `World::snapshot` / `copy_state_from` (`world/snapshot.rs`), which destructure `World`,
//! `Store<T>`, `Entities`, the membership index and the resources **exhaustively**: a field
//! added to any of them is a compile error there until it is copied (or shared) too. So state
//! added later (change ticks, event channels, logs) cannot be forgotten by snapshots.
//!
//! Stores are shared copy-on-write between a world and its snapshots (see
//! [`World::snapshot`]): the `CLONE` policy's column function is what copies a shared value
//! column when the world writes it.

pub use crate::snapshot_policy::SnapshotPolicy;
pub use crate::store::SharedColumns;
use crate::world::World;

/// An owned, immutable copy of a world's whole state: entities (with generations and the free
/// list), every store with its dense order, resources and the tick.
///
/// Made by [`World::snapshot`]; put back with [`World::restore`]. It shares the world's store
/// columns (copy-on-write, [`World::shares_columns_with`]) and is never changed by the world's
/// later writes; cloning it is as cheap as taking it. A restored world is
/// indistinguishable from the one snapshotted: same queries in the same order, same
/// [`full_checksum`](World::full_checksum), and the same future for the same operations —
/// including the handles later spawns receive.
///
/// What is *not* in a snapshot: anything outside the world, such as a schedule's `Local<T>`
/// parameter state (it lives in the `Schedule`), or state behind a component's or resource's
/// shared pointer (`Arc`) — `Clone` shares it rather than copying it.
///
/// ```
/// use rota::{Component, World};
///
/// #[derive(Component, Clone)]
/// struct Hp(u32);
///
/// let mut world = World::new();
/// let a = world.spawn_with((Hp(10),));
/// let saved = world.snapshot()?;
/// world.get_mut::<Hp>(a).unwrap().0 = 0;
/// world.despawn(a).unwrap();
/// let b = world.spawn(); // reuses a's slot with a new generation
///
/// world.restore(&saved);
/// assert_eq!(world.get::<Hp>(a).unwrap().0, 10);
/// assert!(!world.is_alive(b));
/// let c = world.spawn(); // the next fresh slot, as if the despawn never happened
/// assert_eq!((c.slot(), c.generation()), (1, 0));
/// # Ok::<(), rota::SnapshotError>(())
/// ```
pub struct Snapshot {
    pub(crate) world: World,
}

impl Snapshot {
    /// The snapshotted state, read-only (query it like any world).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The tick the world was at.
    pub fn tick(&self) -> u64 {
        self.world.tick()
    }
}

/// Another copy of the same state (GGRS's `GameStateCell::load` clones its state, for one).
/// Both share the stores (copy-on-write); `clone_from` is [`World::restore`] into the target.
impl Clone for Snapshot {
    fn clone(&self) -> Self {
        match self.world.snapshot_shared() {
            Ok(copy) => copy,
            // A snapshot holds excluded types only as empty stores, which always copy.
            Err(e) => panic!("rota internal invariant violated: a snapshot did not copy: {e}"),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.world.copy_state_from(&source.world);
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("world", &self.world)
            .finish()
    }
}
