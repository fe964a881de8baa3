//! # rota
//!
//! *Same world, same systems, same result.* rota is an Entity Component System whose iteration
//! order is part of the contract. This crate re-exports its parts:
//!
//! * [`rota_core`] — entities, ordered sparse-set stores (and, soon, the world and queries);
//! * `rota_macros` — `#[derive(Component)]` and `#[system]`;
//! * [`rota_schedule`] — the deterministic parallel scheduler.
//!
//! ## Non-goals
//!
//! * Wall-clock time anywhere in the simulation path.
//!
//! ```
//! use rota::{Entities, Store};
//!
//! let mut entities = Entities::new();
//! let mut hp = Store::new();
//! let e = entities.spawn()?;
//! hp.insert(e, 10u32);
//! assert_eq!(hp.get(e), Some(&10));
//! # Ok::<(), rota::SpawnError>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use rota_core;
pub use rota_core::{
    Entities, EntitiesIter, Entity, EntityNotAlive, Iter, IterMut, SpawnError, Store, StoreError,
    join,
};
pub use rota_schedule;
