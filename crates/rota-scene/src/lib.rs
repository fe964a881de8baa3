//! # rota-scene
//!
//! Scenes for rota: save a world's chosen components to a human-readable, versioned file and
//! load it into a world — this year's or next year's game — or refuse loudly.
//!
//! ## Contract
//!
//! * **Fields are addressed by stable ids, never names or positions.** `#[derive(Scene)]`
//!   gives every field a numeric id and the type a stable key; renaming, reordering or moving
//!   a type does not change its file. Missing, duplicate and retired-then-reused ids are
//!   compile errors.
//! * **Migration is explicit.** A field added since the save gets its default; a removed
//!   (retired) field is dropped; a retyped field, an unknown field and an unknown component are
//!   refused, naming the entity, the component key, the field id and both types
//!   ([`SceneComponent`] lists the rules).
//! * **Loading is atomic.** Nothing is written into the world until every entity has been
//!   read, migrated and validated; a refused scene leaves the world exactly as it was (`load.rs`
//!   says how).
//! * **Entity references are remapped.** Fields declared as [`Entity`](rota_core::Entity) or
//!   `Option<Entity>`, and the hierarchy ([`ChildOf`](rota_core::ChildOf)), are written as
//!   scene ids and loaded as the new entities; a `u64` holding an entity's bits is a number.
//!   On save, an `Entity` field naming a dead entity is refused and an `Option<Entity>` one is
//!   cleared to `None`; on load, a reference to an id not in the file is refused.
//! * **Bad input never panics.** Truncated files, wrong types, duplicate ids, unknown versions
//!   and unknown keys (a misspelt `parent` or `components` included) are [`LoadError`]s naming
//!   the place (the line, for syntax errors).
//! * **Deterministic output.** Entities in ascending slot order, components in set order,
//!   fields in declaration order: the same world saves to the same bytes.
//!
//! ## Goals, in order
//!
//! 1. Old files load or are refused with an error a person can act on.
//! 2. A file a person can read and diff (RON, one entity per line).
//! 3. Speed: figures in `docs/benchmarks.md`.
//!
//! ## Non-goals
//!
//! * Resources, the tick and entity bits are not saved: a scene is content, not a snapshot
//!   (a byte-exact snapshot/restore of a whole world is a different tool).
//! * Field types beyond [`SceneField`]'s list (no nested structs, enums or collections yet).
//! * File access: [`save`] returns a `String`, [`save_to`] writes to any `io::Write`.
//!
//! ## Example
//!
//! ```
//! use rota::{Component, Entity, Scene, World};
//! use rota::scene::{load, save, value_checksum};
//!
//! #[derive(Component, Clone, Scene)]
//! #[scene(key = "demo.Hunter")]
//! struct Hunter {
//!     #[scene(id = 1)]
//!     speed: f32,
//!     #[scene(id = 2)]
//!     target: Option<Entity>,
//! }
//!
//! let mut world = World::new();
//! let prey = world.spawn();
//! let pack = world.spawn();
//! let hunter = world.spawn_with((Hunter { speed: 2.0, target: Some(prey) },));
//! world.set_parent(hunter, pack)?;
//!
//! let text = save::<(Hunter,)>(&world)?;
//! let mut fresh = World::new();
//! fresh.spawn(); // the new entities will not get the old bits
//! let report = load::<(Hunter,)>(&mut fresh, &text)?;
//! let [new_prey, new_pack, new_hunter] = report.entities[..] else { unreachable!() };
//! assert_eq!(fresh.get::<Hunter>(new_hunter).unwrap().target, Some(new_prey));
//! assert_eq!(fresh.parent(new_hunter), Some(new_pack));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod component;
mod error;
mod field_diff;
mod format;
mod ids;
mod load;
mod replay;
mod save;
mod set;
mod value;
pub mod world_file;

pub use component::{FieldInfo, FieldsIn, FieldsOut, SceneComponent};
pub use error::{LoadError, SaveError, WorldLoadError, WorldSaveError};
pub use field_diff::field_diff;
pub use format::FORMAT_VERSION;
pub use ids::{EntityIds, EntityMap};
pub use load::{LoadReport, load};
pub use replay::{Divergence, REPLAY_FORMAT_VERSION, Replay, ReplayError};
pub use save::{save, save_to, value_checksum};
#[doc(hidden)]
pub use set::Columns;
pub use set::SceneSet;
pub use value::{FieldError, SceneField, Value};
pub use world_file::sets::{EventSet, ResourceSet};
pub use world_file::{WORLD_FORMAT_VERSION, load_world, save_world, save_world_to};
