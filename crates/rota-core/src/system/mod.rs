//! Systems: functions whose declared accesses are data (a [`SystemDescriptor`]) and types (the
//! [`Reads`]/[`Writes`] markers on the system's own type), so the two cannot disagree.
//!
//! `#[system(reads(..), writes(..))]` (in `rota-macros`) turns a function into a constructor
//! `fn name() -> impl System`. The system's marker type is declared in a block of that function
//! that the body cannot see, and the body itself is generic over the marker, bounded by exactly
//! the declared `Reads`/`Writes`/`Defers` — so nothing the user writes can name the marker or
//! add to its declarations. `System` and `SystemParam` are sealed: a system's descriptor and
//! what its body can touch come from one source, the attribute.

pub mod condition;
mod param;
mod split;

use std::any::TypeId;
use std::sync::{Arc, Mutex, PoisonError};

pub use crate::access_markers::{
    AccessKind, AllowedBy, BundleDefers, Declarable, DeferredBy, Defers, Marker, ReadOf, Reads,
    ReceiveOf, Receives, SendOf, Sends, SystemMarker, Unrestricted, WriteOf, Writes,
};
pub use param::{Local, Query, Res, ResMut, SystemParam, sealed::ParamSeal};
pub use split::{ResourceBorrows, SplitError, SystemBorrows};

use crate::commands::{ApplyReport, CommandQueue};
use crate::event::{Event, Events};
use crate::query::{Access, Borrows, find_alias_runtime};
use crate::world::World;

/// One type a system declared, as data.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DeclaredAccess {
    /// The type's `TypeId`.
    pub type_id: TypeId,
    /// The type's name.
    pub name: &'static str,
    /// Component or resource.
    pub kind: AccessKind,
}

/// A reference to a system by identity (its marker's `TypeId`) and name.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SystemRef {
    /// The system marker's `TypeId`.
    pub id: TypeId,
    /// The system's name.
    pub name: &'static str,
}

/// What a system declared, as data the scheduler consumes: name, reads, writes, `after`,
/// `every_ticks`, and whether it records `Commands`.
///
/// `#[system]` builds it from the same lists it turns into `Reads`/`Writes` impls, so the
/// descriptor and what the body can access cannot disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemDescriptor {
    /// The system's name (the function's identifier).
    pub name: &'static str,
    /// The system's identity.
    pub id: TypeId,
    /// Types read and not written, in declaration order.
    pub reads: Vec<DeclaredAccess>,
    /// Types written (and therefore also read), in declaration order.
    pub writes: Vec<DeclaredAccess>,
    /// Components the system's `Commands` may insert, remove or spawn without writing them
    /// (`defers(..)`); applied at the batch end, so they conflict with nothing.
    pub defers: Vec<DeclaredAccess>,
    /// Event types the system sends (`sends(..)`), as their channels (`Events<E>`): appended
    /// at the batch end, so senders do not conflict with each other, only with receivers.
    pub sends: Vec<DeclaredAccess>,
    /// Event types the system receives (`receives(..)`), as their channels (`Events<E>`, read).
    pub receives: Vec<DeclaredAccess>,
    /// Systems this one runs after.
    pub after: Vec<SystemRef>,
    /// Runs on ticks where `tick % every_ticks == 0`; 1 means every tick.
    pub every_ticks: u64,
    /// Whether the system has a `Commands` parameter.
    pub uses_commands: bool,
    /// A type the system's parameters access in a way that aliases, found by `TypeId` when the
    /// descriptor is built. Only generic components and resources (which have no `const`
    /// identity) can get here; keyed types are refused at compile time. A system with one is
    /// refused by `World::run` and `Schedule` before it runs.
    pub param_alias: Option<&'static str>,
    /// Everything the system's parameters can touch, by type (what the body can reach; the
    /// compiler has checked it against `reads`/`writes`).
    pub param_accesses: Vec<Access>,
}

impl SystemDescriptor {
    /// A descriptor with no accesses, running every tick.
    pub fn new(name: &'static str, id: TypeId) -> SystemDescriptor {
        SystemDescriptor {
            name,
            id,
            reads: Vec::new(),
            writes: Vec::new(),
            defers: Vec::new(),
            sends: Vec::new(),
            receives: Vec::new(),
            after: Vec::new(),
            every_ticks: 1,
            uses_commands: false,
            param_alias: None,
            param_accesses: Vec::new(),
        }
    }

    /// Declares a read of `T` (ignored if `T` is already written).
    pub fn read<T: Declarable>(mut self) -> Self {
        let a = declared::<T>();
        if !self.writes.contains(&a) && !self.reads.contains(&a) {
            self.reads.push(a);
        }
        self
    }

    /// Declares a write of `T` (which implies reading it).
    pub fn write<T: Declarable>(mut self) -> Self {
        let a = declared::<T>();
        self.reads.retain(|r| *r != a);
        if !self.writes.contains(&a) {
            self.writes.push(a);
        }
        self
    }

    /// Declares that this system's `Commands` may insert, remove or spawn `T`.
    pub fn defer<T: Declarable>(mut self) -> Self {
        let a = declared::<T>();
        if !self.defers.contains(&a) {
            self.defers.push(a);
        }
        self
    }

    /// Declares that this system sends events `E`.
    pub fn send<E: Event>(mut self) -> Self {
        let a = channel::<E>();
        if !self.sends.contains(&a) {
            self.sends.push(a);
        }
        self
    }

    /// Declares that this system receives events `E`.
    pub fn receive<E: Event>(mut self) -> Self {
        let a = channel::<E>();
        if !self.receives.contains(&a) {
            self.receives.push(a);
        }
        self
    }

    /// Whether the system receives from the channel `id` (an `Events<E>` `TypeId`).
    pub fn receives_type(&self, id: TypeId) -> bool {
        self.receives.iter().any(|a| a.type_id == id)
    }

    /// Whether the system sends into the channel `id` (an `Events<E>` `TypeId`).
    pub fn sends_type(&self, id: TypeId) -> bool {
        self.sends.iter().any(|a| a.type_id == id)
    }

    /// Records the parameters' accesses and any aliasing among them (by `TypeId`).
    pub fn params(mut self, accesses: &[Access]) -> Self {
        self.param_alias = find_alias_runtime(accesses);
        self.param_accesses = accesses.to_vec();
        self
    }

    /// Adds a read of a type already described (a run condition's read, see
    /// [`condition::RunIf::reads`]); ignored if the type is already read or written.
    pub fn add_read(&mut self, access: DeclaredAccess) {
        if !self.writes.contains(&access) && !self.reads.contains(&access) {
            self.reads.push(access);
        }
    }

    /// Declares that this system runs after `other`.
    pub fn after(mut self, other: SystemRef) -> Self {
        self.after.push(other);
        self
    }

    /// Sets the stride in whole ticks.
    pub fn every_ticks(mut self, n: u64) -> Self {
        self.every_ticks = n;
        self
    }

    /// Marks the system as recording `Commands`.
    pub fn uses_commands(mut self) -> Self {
        self.uses_commands = true;
        self
    }

    /// Whether the system reads (and does not write) the type `id`.
    pub fn reads_type(&self, id: TypeId) -> bool {
        self.reads.iter().any(|a| a.type_id == id)
    }

    /// Whether the system writes the type `id`.
    pub fn writes_type(&self, id: TypeId) -> bool {
        self.writes.iter().any(|a| a.type_id == id)
    }

    /// Why `self` and `other` may not run at the same time, if they may not: the first type one
    /// writes and the other reads or writes, or `"Commands"` when both record commands (their
    /// reservations must see each other's applied spawns).
    pub fn conflict_with(&self, other: &SystemDescriptor) -> Option<&'static str> {
        for w in &self.writes {
            if other.writes_type(w.type_id) || other.reads_type(w.type_id) {
                return Some(w.name);
            }
        }
        for w in &other.writes {
            if self.reads_type(w.type_id) {
                return Some(w.name);
            }
        }
        // A sender and a receiver of one event type are ordered like a writer and a reader.
        for s in &self.sends {
            if other.receives_type(s.type_id) {
                return Some(s.name);
            }
        }
        for s in &other.sends {
            if self.receives_type(s.type_id) {
                return Some(s.name);
            }
        }
        (self.uses_commands && other.uses_commands).then_some("Commands")
    }
}

fn channel<E: Event>() -> DeclaredAccess {
    DeclaredAccess {
        type_id: TypeId::of::<Events<E>>(),
        name: E::NAME,
        kind: AccessKind::Event,
    }
}

fn declared<T: Declarable>() -> DeclaredAccess {
    DeclaredAccess {
        type_id: TypeId::of::<T>(),
        name: T::NAME,
        kind: T::KIND,
    }
}

#[doc(hidden)]
pub mod sealed {
    /// Seals [`System`](super::System): implemented by `#[system]` through `rota::__private`.
    /// Not an API.
    pub trait SystemSeal {}
    /// Seals [`Condition`](super::condition::Condition): implemented by `#[condition]`
    /// through `rota::__private`. Not an API.
    pub trait ConditionSeal {}
}

/// A system: implemented by `#[system]` for the system's (unnameable) marker type, and sealed,
/// so a schedule only ever runs systems whose descriptor and body come from one attribute.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system",
    label = "not a system",
    note = "write the system as a function with `#[system(reads(..), writes(..))]` and pass the function itself, e.g. `schedule.add(movement)`"
)]
pub trait System: sealed::SystemSeal + Send + Sync + 'static {
    /// The system's name.
    const NAME: &'static str;
    /// Per-system state (its `Local` parameters), kept by a schedule between runs.
    type State: Send + 'static;
    /// What the system declared.
    fn descriptor(&self) -> SystemDescriptor;
    /// Fresh state.
    fn init_state(&self) -> Self::State;
    /// Runs the system once with the stores and resources it declared.
    fn run(&self, state: &mut Self::State, context: SystemContext<'_>);
    /// The run conditions of its attribute (`run_if(..)`), all of which must hold; `None`
    /// without any. A schedule evaluates them; [`World::run`] ignores them.
    fn run_if(&self) -> Option<condition::RunIf> {
        None
    }
}

/// Something that makes a system: the function `#[system]` generates (`movement`, not
/// `movement()`), so `world.run(movement)` and `schedule.add(movement)` read naturally.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system",
    label = "not a `#[system]` function",
    note = "pass a function declared with `#[system(..)]`, by name: `world.run(movement)`"
)]
pub trait IntoSystem {
    /// The system made.
    type System: System;
    /// Makes it.
    fn into_system(self) -> Self::System;
}

impl<F: FnOnce() -> S, S: System> IntoSystem for F {
    type System = S;
    fn into_system(self) -> S {
        self()
    }
}

/// The identity of the system a `#[system]` function makes (used for `after(..)`).
pub fn system_ref<F: IntoSystem>(_: F) -> SystemRef {
    SystemRef {
        id: TypeId::of::<F::System>(),
        name: <F::System as System>::NAME,
    }
}

/// What a system's declarations let its deferred parameters do: the part of its access that is
/// not a borrow, so splitting the world cannot enforce it — whether it records `Commands`, which
/// components those may insert, remove or spawn, and which event channels it sends into.
///
/// `#[system]` makes a body's parameters agree with its descriptor at compile time. A system
/// whose seal was implemented by hand (naming rota's hidden paths) can make them disagree; the
/// parameters then check this grant, built from the descriptor the schedule ordered the
/// system by, and panic naming the system and the type, so such a system never reaches more
/// than it declared.
#[derive(Clone, Debug)]
pub(crate) struct Grant {
    pub(crate) system: &'static str,
    /// The components in `writes(..)` and `defers(..)` if the descriptor records a `Commands`
    /// parameter, `None` if it records none (built per system per tick: nothing is allocated
    /// for a system without `Commands`).
    pub(crate) defers: Option<Arc<[TypeId]>>,
    /// The event channels (`Events<E>`) in `sends(..)`.
    pub(crate) sends: Vec<TypeId>,
}

impl Grant {
    pub(crate) fn of(descriptor: &SystemDescriptor) -> Grant {
        Grant {
            system: descriptor.name,
            defers: descriptor.uses_commands.then(|| {
                descriptor
                    .writes
                    .iter()
                    .chain(&descriptor.defers)
                    .filter(|a| a.kind == AccessKind::Component)
                    .map(|a| a.type_id)
                    .collect()
            }),
            sends: descriptor.sends.iter().map(|a| a.type_id).collect(),
        }
    }
}

/// What a running system sees: the stores and resources it declared, the entity allocator, and
/// the sink its `Commands` flush into.
///
/// The sink is a `&Mutex`, not a `&mut CommandQueue`, because it is shared: a system has at most
/// one `Commands` (`check_one_commands`), but any number of `EventWriter`s and `EventReader`s,
/// and each of them flushes into the same queue when it is dropped (events sent; a reader's new
/// cursor). The runner creates one sink per job and takes the queue back after the run, so the
/// lock is never contended; a `RefCell` would make those parameters `!Send`.
pub struct SystemContext<'w> {
    pub(crate) stores: Borrows<'w>,
    pub(crate) resources: ResourceBorrows<'w>,
    pub(crate) sink: &'w Mutex<CommandQueue>,
    pub(crate) system: &'static str,
    /// The system's identity (its marker's `TypeId`), keying its event readers' cursors.
    pub(crate) system_id: TypeId,
    /// Event readers fetched so far, per event channel, to key each reader's cursor.
    pub(crate) readers: Vec<(TypeId, u32)>,
    /// What its deferred parameters may do.
    pub(crate) grant: Grant,
}

impl<'w> SystemContext<'w> {
    /// A context over `borrows`, flushing commands into `sink`.
    pub fn new(
        borrows: SystemBorrows<'w>,
        sink: &'w Mutex<CommandQueue>,
        system: &'static str,
    ) -> SystemContext<'w> {
        SystemContext {
            stores: borrows.stores,
            resources: borrows.resources,
            sink,
            system,
            system_id: borrows.system_id,
            readers: Vec::new(),
            grant: borrows.grant,
        }
    }

    /// The next reader key for channel `channel`: (system, how many readers of it came before).
    pub(crate) fn next_reader(&mut self, channel: TypeId) -> (TypeId, u32) {
        let n = match self.readers.iter_mut().find(|(c, _)| *c == channel) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.readers.push((channel, 0));
                0
            }
        };
        (self.system_id, n)
    }

    /// The running system's name.
    pub fn system_name(&self) -> &'static str {
        self.system
    }
}

impl World {
    /// Runs one system once, now, then applies its commands. `Local` state starts fresh each
    /// call (a schedule keeps it between ticks).
    ///
    /// ```
    /// use rota::{Component, Query, World, system};
    ///
    /// #[derive(Component, Clone)]
    /// struct Hp(u32);
    ///
    /// #[system(writes(Hp))]
    /// fn heal(mut q: Query<&mut Hp>) {
    ///     for hp in &mut q {
    ///         hp.0 += 1;
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let e = world.spawn_with((Hp(1),));
    /// let report = world.run(heal);
    /// assert!(report.is_clean());
    /// assert_eq!(world.get::<Hp>(e).unwrap().0, 2);
    /// ```
    ///
    /// # Panics
    ///
    /// If the system reads a resource that is not in the world, or its parameters alias a
    /// generic component (see [`SystemDescriptor::param_alias`]).
    #[track_caller]
    pub fn run<F: IntoSystem>(&mut self, system: F) -> ApplyReport {
        let system = system.into_system();
        let descriptor = system.descriptor();
        if let Some(name) = descriptor.param_alias {
            panic!(
                "system `{}`: its parameters access `{name}` twice and one access writes it; a `&mut` would alias",
                descriptor.name
            );
        }
        let mut state = system.init_state();
        let sink = Mutex::new(CommandQueue::default());
        {
            let borrows = match self.split_for_systems(&[&descriptor]) {
                Ok(mut v) => v.pop().expect("one set of borrows per system"),
                Err(e) => panic!("{e}"),
            };
            system.run(
                &mut state,
                SystemContext::new(borrows, &sink, descriptor.name),
            );
        }
        let queue = sink.into_inner().unwrap_or_else(PoisonError::into_inner);
        self.apply(queue)
    }
}
