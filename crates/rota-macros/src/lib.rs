//! # rota-macros
//!
//! Procedural macros for rota. Use them through the `rota` facade crate, whose
//! `rota::__private` module is the only path the generated code names — so your imports cannot
//! break it, and it compiles under `#![no_implicit_prelude]`.
//!
//! ## Contract
//!
//! * `#[derive(Component)]`, `#[derive(Resource)]` and `#[derive(Event)]` implement the marker
//!   traits for
//!   `'static + Send + Sync` structs and enums. Unions, lifetime parameters and non-`Send + Sync`
//!   types are compile errors that say why. The types must also be `Clone` (world snapshots
//!   copy them) unless marked `#[component(no_snapshot)]` / `#[resource(no_snapshot)]`; a type
//!   that also implements `StableHash` is covered by `World::full_checksum`.
//! * `#[system(reads(..), writes(..), defers(..), sends(..), receives(..), after(..),
//!   every_ticks = N)]` turns a function into a system whose body **cannot compile** if it
//!   touches a component or resource it did not declare (writes imply reads), or sends or
//!   receives an event it did not declare. Parameters are recognised **by type**, so aliases,
//!   `use .. as`, macros and `#[derive(SystemParam)]` structs are checked like plain parameters,
//!   each once, at the parameter. The body is generic over the system's marker and bounded by
//!   exactly the declarations, so it can neither name the marker nor add to its declarations;
//!   the descriptor the scheduler reads is built from the same lists. Parameters that alias a
//!   `&mut` (`(&mut A, &A)`, `Res<G>` with `ResMut<G>`, across parameters or inside derived ones)
//!   fail in a `const` evaluated by `cargo check`.
//! * `#[condition(reads(..))]` turns a function returning `bool` into a run condition checked
//!   like a system (`run_if(..)` in `#[system]` attaches it); a condition only reads: any other
//!   key, and a parameter that writes or records commands, is a compile error naming it.
//! * `#[derive(SystemParam)]` composes parameters into one whose access is their union.
//! * `#[derive(StableHash)]` gives a type the fixed encoding world checksums use.
//! * `#[derive(Scene)]` gives a component a stable scene key and every field a stable id;
//!   a field without an id, an id used twice and a retired id reused are compile errors.
//! * Every error is a spanned `syn::Error` on the token at fault, and all errors in one input are
//!   reported together. `tests/ui/` pins every rejection with trybuild.
//!
//! ## Known limits
//!
//! * A type spelled two ways across `reads` and `writes` (alias and name) gives a conflicting-impl
//!   error; spell it once (pinned by `same-type-in-both-lists-under-two-names.rs`).
//! * Generic components have no `const` identity, so aliasing them is refused when the system is
//!   set up (`Schedule::build`, `World::run`), before it runs, instead of at compile time.
//! * Interior mutability inside a declared-read component is invisible to types.
//!
//! ## Compile cost
//!
//! Each system expands to a marker type, its impls and one `const` per parameter; the measured
//! cost per system (`cargo xtask compile-cost`) is in `docs/benchmarks.md`.
//!
//! ## Structure
//!
//! Each macro is a thin entry point: **parse** (syntax into a small typed model that keeps the
//! syn nodes for spans) → **validate** (every error a spanned `syn::Error`, combined) →
//! **expand**. `system/expand.rs` opens with the shape of the generated code.
//!
//! ## Non-goals
//!
//! * Runtime behaviour: everything here runs at compile time.
//! * Being used without the `rota` facade crate.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod derive;
mod system;

use proc_macro::TokenStream;

/// Combines errors so the user sees all of them at once (each stays on its own span).
pub(crate) fn combine(errors: Vec<syn::Error>) -> syn::Result<()> {
    let mut iter = errors.into_iter();
    match iter.next() {
        None => Ok(()),
        Some(mut first) => {
            first.extend(iter);
            Err(first)
        }
    }
}

/// Implements `rota::Component` for a struct or enum.
///
/// Components must be `'static + Send + Sync`: the parallel scheduler hands stores to systems
/// on other threads. They must also be `Clone`, because `World::snapshot` copies every store —
/// a component that is not `Clone` is a compile error here, naming it — unless marked
/// `#[component(no_snapshot)]`: then `World::snapshot` returns an error naming the component
/// while any entity holds one (never a snapshot that silently lacks it). If the type also
/// implements `StableHash`, `World::full_checksum` covers its store.
///
/// ```ignore
/// #[derive(rota::Component, Clone)]
/// struct Position { x: f32, y: f32 }
///
/// #[derive(rota::Component, Clone)]
/// #[component(no_snapshot)]
/// struct GpuHandle(std::sync::Mutex<u32>);
/// ```
#[proc_macro_derive(Component, attributes(component))]
pub fn derive_component(input: TokenStream) -> TokenStream {
    derive::derive(input.into(), derive::Kind::Component).into()
}

/// Declares a system: a function whose component and resource accesses are declared, and held
/// to that declaration by the compiler.
///
/// # Attribute keys
///
/// | key | meaning |
/// |---|---|
/// | `reads(T, ..)` | components and resources the system reads (also needed by `With<T>`/`Without<T>` filters) |
/// | `writes(T, ..)` | components and resources it writes; writes imply reads and `defers` |
/// | `defers(T, ..)` | components its `Commands` may insert, remove or spawn; applied at the batch end, so no conflict with readers or writers of `T` |
/// | `sends(E, ..)` | events its `EventWriter<E>`s send; appended at the batch end in plan order, so senders do not conflict with each other, only with receivers |
/// | `receives(E, ..)` | events its `EventReader<E>`s receive; ordered after (or before) senders like a reader after a writer |
/// | `after(system, ..)` | systems this one runs after (by function name) |
/// | `every_ticks = N` | runs on ticks where `tick % N == 0`; whole ticks, never seconds |
/// | `run_if(condition, ..)` | runs only when every `#[condition]` listed holds (see [`macro@condition`]) |
///
/// # Parameters
///
/// | parameter | needs |
/// |---|---|
/// | `Query<Q>` / `Query<Q, F>` — `Q` of `&T`, `&mut T`, `Entity`, `Option<&T>`, `Option<&mut T>`, tuples; `F` of `With<T>`, `Without<T>`, `Changed<T>`, `Added<T>`, tuples | `reads(T)` for `&T` and filters, `writes(T)` for `&mut T` |
/// | `EventWriter<E>` / `EventReader<E>` | `sends(E)` / `receives(E)` |
/// | `Res<R>` / `ResMut<R>` | `reads(R)` / `writes(R)` |
/// | `Commands` (at most one) | `defers(T)` or `writes(T)` for every component it inserts, removes or spawns; despawn needs nothing |
/// | `Local<T>` | nothing: state kept between runs of a schedule |
/// | `&Entities` | nothing: liveness checks |
/// | a `#[derive(SystemParam)]` struct | what its fields need |
///
/// `Changed<T>`/`Added<T>` see the changes made since **this system** last ran (through a
/// schedule or `World::run`; on its first run, everything). Fetching `&mut T` marks a value
/// changed whether or not it is written.
///
/// Parameters are recognised by type: aliases, `use .. as` and macro-generated types work. The
/// function becomes a constructor `fn movement() -> impl System`; pass it by name:
/// `world.run(movement)`, `Schedule::builder().add(movement)`.
///
/// # Example
///
/// ```
/// use rota::{system, Commands, Component, Entity, Local, Query, Res, Resource, With, World};
///
/// #[derive(Component, Clone)]
/// struct Position(f32);
/// #[derive(Component, Clone)]
/// struct Velocity(f32);
/// #[derive(Component, Clone)]
/// struct Player;
/// #[derive(Component, Clone)]
/// struct Escaped;
/// #[derive(Resource, Clone)]
/// struct Bounds(f32);
///
/// #[system(reads(Velocity, Player, Bounds), writes(Position), defers(Escaped))]
/// fn movement(
///     mut players: Query<(Entity, &mut Position, &Velocity), With<Player>>,
///     bounds: Res<Bounds>,
///     mut commands: Commands,
///     mut runs: Local<u32>,
/// ) {
///     *runs += 1;
///     for (e, p, v) in &mut players {
///         p.0 += v.0;
///         if p.0 > bounds.0 {
///             commands.insert(e, Escaped);
///         }
///     }
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Bounds(1.5));
/// world.spawn_with((Position(1.0), Velocity(1.0), Player));
/// world.spawn_with((Position(0.0), Velocity(1.0)));
/// let report = world.run(movement);
/// assert!(report.is_clean());
/// assert_eq!(world.query::<&Escaped>().count(), 1);
/// ```
///
/// Touching anything undeclared does not compile, and the error names the system and the type:
///
/// ```compile_fail
/// # use rota::{system, Component, Query};
/// # #[derive(Component, Clone)] struct Position(f32);
/// # #[derive(Component, Clone)] struct Health(u32);
/// #[system(writes(Position))]
/// fn movement(mut q: Query<(&mut Position, &mut Health)>) {} // Health: not declared
/// ```
#[proc_macro_attribute]
pub fn system(attr: TokenStream, item: TokenStream) -> TokenStream {
    system::system(attr.into(), item.into()).into()
}

/// Declares a run condition: a function returning `bool` that only reads, whose reads are
/// declared and held to that declaration by the compiler like a system's.
///
/// The one key is `reads(T, ..)`. A parameter that writes (`ResMut`, `Query` of `&mut T`) or
/// records `Commands` is a compile error naming the condition; so is any other key. Attach a
/// condition with `#[system(run_if(is_day))]` or `ScheduleBuilder::run_if(system, is_day)`,
/// combine with `is_day.and(..)`, `.or(..)` and `rota::condition::not(..)`.
///
/// ```
/// use rota::{Resource, Res, Schedule, World, condition, system};
///
/// #[derive(Resource, Clone)]
/// struct Clock(u32);
///
/// #[condition(reads(Clock))]
/// fn is_day(clock: Res<Clock>) -> bool {
///     clock.0 % 24 < 12
/// }
///
/// #[system(writes(Clock))]
/// fn advance(mut clock: rota::ResMut<Clock>) {
///     clock.0 += 6;
/// }
///
/// #[system(reads(Clock), run_if(is_day), after(advance))]
/// fn forage() {}
///
/// let mut schedule = Schedule::builder().add(advance).add(forage).build()?;
/// let mut world = World::new();
/// world.insert_resource(Clock(0));
/// assert_eq!(schedule.run(&mut world).ran, ["advance", "forage"]); // 6 o'clock
/// assert_eq!(schedule.run(&mut world).skipped, ["forage"]); // 12 o'clock
/// # Ok::<(), rota::ScheduleError>(())
/// ```
///
/// A condition that writes does not compile, and the error names it:
///
/// ```compile_fail
/// # use rota::{Resource, ResMut, condition};
/// # #[derive(Resource, Clone)] struct Clock(u32);
/// #[condition(reads(Clock))]
/// fn is_day(mut clock: ResMut<Clock>) -> bool { clock.0 += 1; true }
/// ```
#[proc_macro_attribute]
pub fn condition(attr: TokenStream, item: TokenStream) -> TokenStream {
    system::condition(attr.into(), item.into()).into()
}

/// Implements `rota::StableHash` (the fixed encoding world checksums use): every field in
/// declaration order; enums hash their variant index first.
#[proc_macro_derive(StableHash)]
pub fn derive_stable_hash(input: TokenStream) -> TokenStream {
    derive::stable_hash::derive_stable_hash(input.into()).into()
}

/// Makes a struct of system parameters a system parameter itself: its access is the union of
/// its fields', checked against each system's declarations like any other parameter.
///
/// The struct has one lifetime (the borrow of the world) and, if it holds `Commands`, one type
/// parameter — the system marker, which `#[system]` fills in. Inside `Query` types write
/// `&'static T` / `&'static mut T` (the lifetime of items comes from the query).
///
/// ```ignore
/// #[derive(SystemParam)]
/// struct Movers<'w, S = ()> {
///     bodies: Query<'w, (&'static mut Position, &'static Velocity)>,
///     gravity: Res<'w, Gravity>,
///     commands: Commands<'w, S>,
/// }
/// ```
#[proc_macro_derive(SystemParam)]
pub fn derive_system_param(input: TokenStream) -> TokenStream {
    derive::system_param::derive_system_param(input.into()).into()
}

/// Implements `rota::Event` for a struct or enum (sent through `EventWriter`, received through
/// `EventReader`). The type must also be `Clone` (so worlds holding events can be snapshotted).
///
/// ```
/// use rota::{Event, EventReader, EventWriter, World, system};
///
/// #[derive(Event, Clone, Debug, PartialEq)]
/// struct Hit(u32);
///
/// #[system(sends(Hit))]
/// fn shoot(mut hits: EventWriter<Hit>) {
///     hits.send(Hit(3));
/// }
///
/// #[system(receives(Hit))]
/// fn count(mut hits: EventReader<Hit>) {
///     assert_eq!(hits.read().map(|h| h.0).sum::<u32>(), 3);
/// }
///
/// let mut world = World::new();
/// assert!(world.run(shoot).is_clean());
/// assert!(world.run(count).is_clean()); // sees the hit once
/// ```
#[proc_macro_derive(Event)]
pub fn derive_event(input: TokenStream) -> TokenStream {
    derive::derive(input.into(), derive::Kind::Event).into()
}

/// Implements `rota::scene::SceneComponent`: a stable key for the component and a stable
/// numeric id for every field, which scene files address values by (never names or positions).
///
/// `#[scene(key = "..")]` on the type (keep it when the type is renamed or moved),
/// `#[scene(id = N)]` on every field, and `#[scene(retired(N, ..))]` on the type for the ids
/// of removed fields: old files' values for them are dropped, and the ids can never be used
/// again. A field without an id, an id used twice and a retired id reused are compile errors.
///
/// ```
/// use rota::{Component, Entity, Scene};
///
/// #[derive(Component, Clone, Scene)]
/// #[scene(key = "game.Missile", retired(3))]
/// struct Missile {
///     #[scene(id = 1)]
///     speed: f32,
///     #[scene(id = 2)]
///     target: Entity, // remapped to the new entity on load
///     #[scene(id = 4)]
///     fuel: u32,      // added in version 2: old files load it as 0
/// }
/// ```
///
/// ```compile_fail
/// # use rota::{Component, Scene};
/// #[derive(Component, Clone, Scene)]
/// #[scene(key = "game.Fuel", retired(2))]
/// struct Fuel {
///     #[scene(id = 2)] // retired: old files hold another field's value under this id
///     litres: f32,
/// }
/// ```
#[proc_macro_derive(Scene, attributes(scene))]
pub fn derive_scene(input: TokenStream) -> TokenStream {
    derive::scene::derive_scene(input.into()).into()
}

/// Implements `rota::Resource` for a struct or enum (stored once per world).
///
/// Like components, resources must be `Clone` (snapshots copy them) unless marked
/// `#[resource(no_snapshot)]`, and are covered by `World::full_checksum` if they implement
/// `StableHash`.
#[proc_macro_derive(Resource, attributes(resource))]
pub fn derive_resource(input: TokenStream) -> TokenStream {
    derive::derive(input.into(), derive::Kind::Resource).into()
}
