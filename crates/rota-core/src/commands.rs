//! `Commands`: structural changes recorded now and applied later, in recorded order.
//!
//! # Why despawning while iterating goes through `Commands`
//!
//! Removing from a sparse set swaps the last element into the hole. Under a live cursor that
//! walks the dense array, the swapped-in element lands *behind* the cursor and is silently
//! skipped (the bug every sparse-set ECS meets once). Queries therefore make no structural
//! change; you record despawns, inserts and spawns in a `Commands` buffer and apply it when the
//! iteration is over. Schedules apply each system's buffer at fixed points (see `rota-schedule`).

//!
//! # Runs
//!
//! Consecutive spawns of one bundle type, and consecutive inserts or removes of one component
//! type, are recorded as one typed *run*, applied with one store lookup for the whole run
//! (`world/runs.rs`). Each command of a run is still checked and reported on its own, at its own
//! index, in recorded order: grouping only ever joins neighbours, so no command moves past
//! another.

use std::any::{Any, TypeId};
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

use crate::access_markers::{BundleDefers, DeferredBy, Unrestricted};
use crate::bundle::{Bundle, refuse_duplicates};
use crate::component::Component;
use crate::entity::{Entities, Entity, ReserveCursor};
use crate::error::{CommandError, CommandKind, SpawnError};
use crate::hierarchy::{ChildOf, Children};
use crate::world::World;
use crate::world::despawn::PendingDespawns;

mod apply;

type QueueFn = Box<dyn FnOnce(&mut World) + Send>;

enum Command {
    Despawn(Entity),
    SetParent {
        child: Entity,
        parent: Entity,
    },
    RemoveParent(Entity),
    /// `remove::<Children>`: [`World::remove_children`].
    RemoveChildren(Entity),
    DespawnRecursive(Entity),
    Queue(QueueFn),
    /// A spawn refused when recorded: its bundle names `component` twice. Applying it changes
    /// nothing and reports [`CommandError::DuplicateComponent`].
    RefusedSpawn {
        component: &'static str,
    },
    /// Consecutive commands of one kind and one bundle or component type.
    Run(Box<dyn CommandRun>),
}

impl Command {
    /// Number of recorded commands this entry stands for.
    fn len(&self) -> usize {
        match self {
            Command::Despawn(_)
            | Command::SetParent { .. }
            | Command::RemoveParent(_)
            | Command::RemoveChildren(_)
            | Command::DespawnRecursive(_)
            | Command::Queue(_)
            | Command::RefusedSpawn { .. } => 1,
            Command::Run(run) => run.len(),
        }
    }
}

/// The state `World::apply` threads through a buffer.
struct Applying {
    /// Index of the next command in the buffer.
    index: usize,
    /// Reservations whose spawn was skipped: the handle now names whoever took the slot, so
    /// every later command naming it is skipped too, or it would land on that other entity.
    failed: Vec<Entity>,
    report: ApplyReport,
}

/// A deferred event operation (a system's sent events, a reader's new cursor), applied after
/// the buffer's commands. Not a command: it is not counted in `len` or the `ApplyReport`.
pub(crate) trait EventOp: Send {
    fn apply(self: Box<Self>, world: &mut World);
}

/// A run of same-typed commands, type-erased so one buffer can hold runs of many types.
trait CommandRun: Any + Send {
    fn len(&self) -> usize;
    fn apply(self: Box<Self>, world: &mut World, state: &mut Applying);
    /// Whether the run would put an entity into a slot whose despawned entity the stores still
    /// hold (`pending`): then those removals must be finished first.
    fn meets(&self, pending: &PendingDespawns) -> bool {
        let _ = pending;
        false
    }
}

/// A concrete run: a `Vec` of its commands' items.
trait Run: CommandRun + Sized {
    type Item;
    fn from_items(items: Vec<Self::Item>) -> Self;
    fn items(&mut self) -> &mut Vec<Self::Item>;
}

struct SpawnRun<B>(Vec<(Entity, B)>);
struct InsertRun<T>(Vec<(Entity, T)>);
struct RemoveRun<T>(Vec<Entity>, PhantomData<fn() -> T>);

impl<B: Bundle> Run for SpawnRun<B> {
    type Item = (Entity, B);
    fn from_items(items: Vec<(Entity, B)>) -> Self {
        SpawnRun(items)
    }
    fn items(&mut self) -> &mut Vec<(Entity, B)> {
        &mut self.0
    }
}

impl<T: Component> Run for InsertRun<T> {
    type Item = (Entity, T);
    fn from_items(items: Vec<(Entity, T)>) -> Self {
        InsertRun(items)
    }
    fn items(&mut self) -> &mut Vec<(Entity, T)> {
        &mut self.0
    }
}

impl<T: Component> Run for RemoveRun<T> {
    type Item = Entity;
    fn from_items(items: Vec<Entity>) -> Self {
        RemoveRun(items, PhantomData)
    }
    fn items(&mut self) -> &mut Vec<Entity> {
        &mut self.0
    }
}

impl<B: Bundle> CommandRun for SpawnRun<B> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn meets(&self, pending: &PendingDespawns) -> bool {
        self.0
            .iter()
            .any(|(entity, _)| pending.holds(entity.slot()))
    }
    fn apply(self: Box<Self>, world: &mut World, state: &mut Applying) {
        let mut taken = Vec::new();
        let len = self.0.len();
        world.spawn_reserved_run(self.0, |k, entity| taken.push((k, entity)));
        state.report.applied += len - taken.len();
        for (k, entity) in taken {
            state.failed.push(entity);
            let index = state.index + k;
            state
                .report
                .errors
                .push(CommandError::ReservationTaken { index, entity });
        }
    }
}

impl<T: Component> CommandRun for InsertRun<T> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn apply(self: Box<Self>, world: &mut World, state: &mut Applying) {
        world.insert_run(self.0, |k, entity, alive| {
            state.admit(k, CommandKind::Insert, Some(T::NAME), entity, alive)
        });
    }
}

impl<T: Component> CommandRun for RemoveRun<T> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn apply(self: Box<Self>, world: &mut World, state: &mut Applying) {
        world.remove_run::<T>(self.0, |k, entity, alive| {
            state.admit(k, CommandKind::Remove, Some(T::NAME), entity, alive)
        });
    }
}

/// The recorded commands, with runs merged as they are recorded.
#[derive(Default)]
struct Recorded {
    ops: Vec<Command>,
    /// Number of commands (a run counts each of its commands).
    len: usize,
}

impl Recorded {
    /// Extends the last entry if it is a run of type `R`, else calls `starting` (which may
    /// refuse the run by panicking: a system's declarations, see `Declared`) and starts a new
    /// run. A command that extends a run was checked with the run's first.
    fn push_run<R: Run>(&mut self, item: R::Item, starting: impl FnOnce()) {
        if let Some(Command::Run(last)) = self.ops.last_mut() {
            let last: &mut dyn Any = &mut **last;
            if let Some(run) = last.downcast_mut::<R>() {
                run.items().push(item);
                self.len += 1;
                return;
            }
        }
        starting();
        self.ops
            .push(Command::Run(Box::new(R::from_items(vec![item]))));
        self.len += 1;
    }

    fn push(&mut self, command: Command) {
        self.len += 1;
        self.ops.push(command);
    }

    fn append(&mut self, other: Recorded) {
        self.len += other.len;
        self.ops.extend(other.ops);
    }
}

/// A buffer of structural changes for one world, applied by [`World::apply`] in recorded order.
///
/// [`Commands::spawn`] reserves the entity at once, so the handle can be stored or used by later
/// commands in the same buffer; the world reports it alive once the buffer is applied. Reserved
/// slots are the world's lowest free slots in ascending order, then fresh ones — exactly what
/// direct spawns would have taken, so applying a buffer gives the same handles every run.
///
/// One buffer at a time per world: two buffers reserving concurrently would reserve the same
/// slots, and the second to be applied reports [`CommandError::ReservationTaken`] for its spawns.
///
/// # Examples
///
/// ```
/// use rota::{Component, Entity, World};
///
/// #[derive(Component, Clone)]
/// struct Hp(i32);
///
/// let mut world = World::new();
/// world.spawn_batch([(Hp(0),), (Hp(5),), (Hp(-1),)]);
///
/// let mut commands = world.commands();
/// for (e, hp) in world.query::<(Entity, &Hp)>() {
///     if hp.0 <= 0 {
///         commands.despawn(e);
///     }
/// }
/// let child = commands.spawn((Hp(1),));
/// let queue = commands.finish(); // ends the buffer's borrow of the world
/// let report = world.apply(queue);
/// assert!(report.is_clean());
/// assert_eq!(world.len(), 2);
/// assert_eq!(world.get::<Hp>(child).unwrap().0, 1);
/// // Reserved when recorded, before the despawns were applied: the next fresh slot.
/// assert_eq!(child.slot(), 3);
/// ```
///
/// # In systems
///
/// A system's `Commands` parameter is typed by its system: `insert`, `remove` and `spawn` only
/// compile for components the system declares in `defers(..)` or `writes(..)`, and `queue` (arbitrary world
/// access) is not offered. Its commands are applied at the schedule's sync points.
pub struct Commands<'w, S = Unrestricted> {
    entities: &'w Entities,
    cursor: ReserveCursor,
    recorded: Recorded,
    /// A system's buffer hands its commands to the runner here when dropped.
    sink: Option<&'w Mutex<CommandQueue>>,
    /// A system's buffer: the components its descriptor lets it change (`None`: not a
    /// system's). `S` says the same at compile time for every system `#[system]` built; this
    /// holds a system whose seal was implemented by hand to its descriptor (see `Grant`).
    declared: Option<Declared>,
    _system: PhantomData<fn() -> S>,
}

/// The system a buffer belongs to and the components it declared in `writes(..)` or
/// `defers(..)`.
struct Declared {
    system: &'static str,
    defers: Arc<[TypeId]>,
}

impl Declared {
    /// Panics unless the system may change the component `id`.
    fn allow(&self, id: TypeId, name: &'static str) {
        if !self.defers.contains(&id) {
            panic!(
                "system `{}` inserts, removes or spawns `{name}` through `Commands` but its descriptor does not declare it in `defers(..)` or `writes(..)`",
                self.system
            );
        }
    }
}

impl<S> Drop for Commands<'_, S> {
    fn drop(&mut self) {
        if let Some(sink) = self.sink {
            let recorded = std::mem::take(&mut self.recorded);
            sink.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .recorded
                .append(recorded);
        }
    }
}

impl<S> fmt::Debug for Commands<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Commands")
            .field("len", &self.recorded.len)
            .finish()
    }
}

impl<'w> Commands<'w, Unrestricted> {
    /// An empty buffer reserving from `entities` (usually `world.commands()` instead).
    pub fn new(entities: &'w Entities) -> Commands<'w, Unrestricted> {
        Commands {
            entities,
            cursor: ReserveCursor::default(),
            recorded: Recorded::default(),
            sink: None,
            declared: None,
            _system: PhantomData,
        }
    }

    /// Records an arbitrary change, run with the whole world when its turn comes. Not offered
    /// to systems: it could touch what they did not declare.
    ///
    /// # Panics
    ///
    /// If this is a system's buffer (which only a system whose seal was implemented by hand
    /// can reach with this type).
    pub fn queue(&mut self, f: impl FnOnce(&mut World) + Send + 'static) {
        if let Some(declared) = &self.declared {
            panic!(
                "system `{}` queued a closure on its `Commands`: arbitrary world access is not offered to systems",
                declared.system
            );
        }
        self.recorded.push(Command::Queue(Box::new(f)));
    }

    /// Ends recording: the commands, no longer borrowing the world, ready for [`World::apply`].
    pub fn finish(mut self) -> CommandQueue {
        CommandQueue {
            recorded: std::mem::take(&mut self.recorded),
            events: Vec::new(),
        }
    }
}

impl<'w, S> Commands<'w, S> {
    /// System `system`'s buffer: its commands go to `sink` when it is dropped; it may change
    /// the components `defers` lists (its `Grant`).
    pub(crate) fn for_system(
        entities: &'w Entities,
        sink: &'w Mutex<CommandQueue>,
        system: &'static str,
        defers: Arc<[TypeId]>,
    ) -> Self {
        Commands {
            entities,
            cursor: ReserveCursor::default(),
            recorded: Recorded::default(),
            sink: Some(sink),
            declared: Some(Declared { system, defers }),
            _system: PhantomData,
        }
    }

    /// Records `item` in a run of type `R`; a system's buffer checks the components `types`
    /// lists against its declarations when the run starts.
    #[inline]
    fn push_run<R: Run>(
        &mut self,
        item: R::Item,
        types: impl FnOnce(&mut dyn FnMut(TypeId, &'static str)),
    ) {
        let declared = &self.declared;
        self.recorded.push_run::<R>(item, || {
            if let Some(declared) = declared {
                types(&mut |id, name| declared.allow(id, name));
            }
        });
    }

    /// Panics unless this buffer may change the component `id` (always, outside a system).
    fn allow(&self, id: TypeId, name: &'static str) {
        if let Some(declared) = &self.declared {
            declared.allow(id, name);
        }
    }

    /// Number of recorded commands.
    pub fn len(&self) -> usize {
        self.recorded.len
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.recorded.len == 0
    }

    /// Reserves an entity now and records spawning it with `bundle`.
    ///
    /// A bundle naming a component type with a `UNIQUE_KEY` (any non-generic derived type)
    /// twice does not build (see [`Bundle`]). One naming a generic type twice reserves nothing:
    /// it is recorded as refused, and applying the buffer spawns nothing for it and reports
    /// [`CommandError::DuplicateComponent`] naming the type. The handle returned for it is
    /// never alive, so commands naming it are reported as [`CommandError::EntityNotAlive`].
    ///
    /// ```
    /// # use rota::{CommandError, Component, World};
    /// #[derive(Component, Clone)]
    /// struct Tag<T>(T);
    ///
    /// let mut world = World::new();
    /// let mut commands = world.commands();
    /// let refused = commands.spawn((Tag(1u8), Tag(2u8)));
    /// let report = world.apply(commands.finish());
    /// assert!(!world.is_alive(refused));
    /// assert!(matches!(
    ///     report.errors[..],
    ///     [CommandError::DuplicateComponent { index: 0, component: "Tag" }]
    /// ));
    /// ```
    ///
    /// # Panics
    ///
    /// If the world has no slot left to reserve (see [`Commands::try_spawn`]).
    #[track_caller]
    pub fn spawn<B: Bundle + BundleDefers<S>>(&mut self, bundle: B) -> Entity {
        let () = B::DISTINCT_KEYED_TYPES;
        if let Err(SpawnError::DuplicateComponent { component }) = refuse_duplicates::<B>() {
            self.recorded.push(Command::RefusedSpawn { component });
            return Entity::NEVER_ALIVE;
        }
        match self.record_spawn(bundle) {
            Ok(e) => e,
            Err(err) => panic!("Commands::spawn: {err}"),
        }
    }

    /// Like [`Commands::spawn`], reporting slot exhaustion and a bundle that names a generic
    /// type twice at once.
    ///
    /// # Errors
    ///
    /// [`SpawnError::SlotsExhausted`] if no slot is left, or
    /// [`SpawnError::DuplicateComponent`] if the bundle names a type twice; nothing is
    /// recorded or reserved.
    pub fn try_spawn<B: Bundle + BundleDefers<S>>(
        &mut self,
        bundle: B,
    ) -> Result<Entity, SpawnError> {
        let () = B::DISTINCT_KEYED_TYPES;
        refuse_duplicates::<B>()?;
        self.record_spawn(bundle)
    }

    /// Reserves an entity and records spawning it with `bundle`, whose types are distinct
    /// (`refuse_duplicates`).
    fn record_spawn<B: Bundle + BundleDefers<S>>(
        &mut self,
        bundle: B,
    ) -> Result<Entity, SpawnError> {
        let entity = self.entities.reserve(&mut self.cursor)?;
        self.push_run::<SpawnRun<B>>((entity, bundle), B::types);
        Ok(entity)
    }

    /// Records despawning `entity`.
    pub fn despawn(&mut self, entity: Entity) {
        self.recorded.push(Command::Despawn(entity));
    }

    /// Records making `child` a child of `parent` ([`World::set_parent`]). A system needs
    /// `ChildOf` in `defers(..)`: the hierarchy is that component (and `Children`, kept with
    /// it; neither can be declared in `writes(..)`).
    ///
    /// When applied, a refusal ([`HierarchyError`](crate::HierarchyError): a dead entity, a
    /// cycle) is reported as [`CommandError::Hierarchy`] or [`CommandError::EntityNotAlive`].
    pub fn set_parent(&mut self, child: Entity, parent: Entity)
    where
        ChildOf: DeferredBy<S>,
    {
        self.allow(TypeId::of::<ChildOf>(), ChildOf::NAME);
        self.recorded.push(Command::SetParent { child, parent });
    }

    /// Records making `child` a root ([`World::remove_parent`]); declarations as
    /// [`Commands::set_parent`].
    pub fn remove_parent(&mut self, child: Entity)
    where
        ChildOf: DeferredBy<S>,
    {
        self.allow(TypeId::of::<ChildOf>(), ChildOf::NAME);
        self.recorded.push(Command::RemoveParent(child));
    }

    /// Records despawning `entity` and its descendants ([`World::despawn_recursive`]). Like
    /// [`Commands::despawn`], it needs no declaration.
    pub fn despawn_recursive(&mut self, entity: Entity) {
        self.recorded.push(Command::DespawnRecursive(entity));
    }

    /// Records inserting (or replacing) `entity`'s `T`.
    pub fn insert<T: Component + DeferredBy<S>>(&mut self, entity: Entity, component: T) {
        self.push_run::<InsertRun<T>>((entity, component), |each| each(TypeId::of::<T>(), T::NAME));
    }

    /// Records removing `entity`'s `T` (nothing happens if it has none). Removing `ChildOf`
    /// is [`Commands::remove_parent`]: the parent's `Children` forgets the entity too.
    /// Removing `Children` (only a world's own buffer may: `defers(Children)` does not compile)
    /// is [`World::remove_children`]: every child becomes a root.
    pub fn remove<T: Component + DeferredBy<S>>(&mut self, entity: Entity) {
        if TypeId::of::<T>() == TypeId::of::<ChildOf>() {
            self.allow(TypeId::of::<ChildOf>(), ChildOf::NAME);
            self.recorded.push(Command::RemoveParent(entity));
            return;
        }
        if TypeId::of::<T>() == TypeId::of::<Children>() {
            self.allow(TypeId::of::<Children>(), Children::NAME);
            self.recorded.push(Command::RemoveChildren(entity));
            return;
        }
        self.push_run::<RemoveRun<T>>(entity, |each| each(TypeId::of::<T>(), T::NAME));
    }
}

/// Recorded commands that no longer borrow the world; see [`Commands::finish`].
#[derive(Default)]
pub struct CommandQueue {
    recorded: Recorded,
    /// Events sent and readers' cursors, applied after the commands, in order.
    events: Vec<Box<dyn EventOp>>,
}

impl CommandQueue {
    /// Number of recorded commands (events sent through an `EventWriter` are not commands).
    pub fn len(&self) -> usize {
        self.recorded.len
    }

    /// Whether nothing is recorded: no command and no event operation.
    pub fn is_empty(&self) -> bool {
        self.recorded.len == 0 && self.events.is_empty()
    }

    /// Appends `other`'s commands after this queue's.
    pub fn append(&mut self, other: CommandQueue) {
        self.recorded.append(other.recorded);
        self.events.extend(other.events);
    }

    pub(crate) fn push_event_op(&mut self, op: Box<dyn EventOp>) {
        self.events.push(op);
    }
}

impl fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommandQueue")
            .field("len", &self.recorded.len)
            .finish()
    }
}

/// What applying a [`Commands`] buffer did: how many commands took effect and, in order, the
/// ones skipped with why.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[must_use = "skipped commands are reported here; check `is_clean` or `errors`"]
pub struct ApplyReport {
    /// Commands that took effect.
    pub applied: usize,
    /// Commands skipped, in recorded order. A skipped command changed nothing.
    pub errors: Vec<CommandError>,
}

impl ApplyReport {
    /// Whether every command took effect.
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty()
    }

    /// Adds another report's counts and errors (used when a schedule applies several buffers).
    pub fn merge(&mut self, other: ApplyReport) {
        self.applied += other.applied;
        self.errors.extend(other.errors);
    }
}

#[cfg(test)]
mod tests;
