//! `Commands`: structural changes recorded now and applied later, in recorded order.
//!
//! # Why despawning while iterating goes through `Commands`
//!
//! Removing from a sparse set swaps the last element into the hole. Under a live cursor that
//! walks the dense array, the swapped-in element lands *behind* the cursor and is silently
//! skipped (the bug every sparse-set ECS meets once). Queries therefore make no structural
//! change; you record despawns, inserts and spawns in a `Commands` buffer and apply it when the
//! iteration is over. Schedules apply each system's buffer at fixed points (see `rota-schedule`).

use std::fmt;
use std::marker::PhantomData;
use std::sync::{Mutex, PoisonError};

use crate::bundle::Bundle;
use crate::component::Component;
use crate::entity::{Entities, Entity, ReserveCursor};
use crate::error::{CommandError, EntityNotAlive, SpawnError};
use crate::system::{BundleDefers, DeferredBy, Unrestricted};
use crate::world::World;

type SpawnFn = Box<dyn FnOnce(&mut World, Entity) + Send>;
type InsertFn = Box<dyn FnOnce(&mut World, Entity) -> Result<(), EntityNotAlive> + Send>;
type RemoveFn = fn(&mut World, Entity) -> Result<(), EntityNotAlive>;
type QueueFn = Box<dyn FnOnce(&mut World) + Send>;

enum Command {
    Spawn(Entity, SpawnFn),
    Despawn(Entity),
    Insert(Entity, &'static str, InsertFn),
    Remove(Entity, &'static str, RemoveFn),
    Queue(QueueFn),
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
/// use rota_core::{Component, Entity, World};
///
/// struct Hp(i32);
/// impl Component for Hp { const NAME: &'static str = "Hp"; const UNIQUE_KEY: Option<&'static str> = Some("doc::Hp"); }
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
    ops: Vec<Command>,
    /// A system's buffer hands its commands to the runner here when dropped.
    sink: Option<&'w Mutex<CommandQueue>>,
    _system: PhantomData<fn() -> S>,
}

impl<S> Drop for Commands<'_, S> {
    fn drop(&mut self) {
        if let Some(sink) = self.sink {
            let ops = std::mem::take(&mut self.ops);
            sink.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .ops
                .extend(ops);
        }
    }
}

impl<S> fmt::Debug for Commands<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Commands")
            .field("len", &self.ops.len())
            .finish()
    }
}

impl<'w> Commands<'w, Unrestricted> {
    /// An empty buffer reserving from `entities` (usually `world.commands()` instead).
    pub fn new(entities: &'w Entities) -> Commands<'w, Unrestricted> {
        Commands {
            entities,
            cursor: ReserveCursor::default(),
            ops: Vec::new(),
            sink: None,
            _system: PhantomData,
        }
    }

    /// Records an arbitrary change, run with the whole world when its turn comes. Not offered
    /// to systems: it could touch what they did not declare.
    pub fn queue(&mut self, f: impl FnOnce(&mut World) + Send + 'static) {
        self.ops.push(Command::Queue(Box::new(f)));
    }

    /// Ends recording: the commands, no longer borrowing the world, ready for [`World::apply`].
    pub fn finish(mut self) -> CommandQueue {
        CommandQueue {
            ops: std::mem::take(&mut self.ops),
        }
    }
}

impl<'w, S> Commands<'w, S> {
    /// A system's buffer: its commands go to `sink` when it is dropped.
    pub(crate) fn for_system(entities: &'w Entities, sink: &'w Mutex<CommandQueue>) -> Self {
        Commands {
            entities,
            cursor: ReserveCursor::default(),
            ops: Vec::new(),
            sink: Some(sink),
            _system: PhantomData,
        }
    }

    /// Number of recorded commands.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Reserves an entity now and records spawning it with `bundle`.
    ///
    /// # Panics
    ///
    /// If the world has no slot left to reserve (see [`Commands::try_spawn`]).
    pub fn spawn<B: Bundle + BundleDefers<S>>(&mut self, bundle: B) -> Entity {
        match self.try_spawn(bundle) {
            Ok(e) => e,
            Err(err) => panic!("Commands::spawn: {err}"),
        }
    }

    /// Like [`Commands::spawn`], reporting slot exhaustion.
    ///
    /// # Errors
    ///
    /// [`SpawnError::SlotsExhausted`] if no slot is left; nothing is recorded.
    pub fn try_spawn<B: Bundle + BundleDefers<S>>(
        &mut self,
        bundle: B,
    ) -> Result<Entity, SpawnError> {
        let entity = self.entities.reserve(&mut self.cursor)?;
        self.ops.push(Command::Spawn(
            entity,
            Box::new(move |world, e| world.insert_bundle_unchecked(e, bundle)),
        ));
        Ok(entity)
    }

    /// Records despawning `entity`.
    pub fn despawn(&mut self, entity: Entity) {
        self.ops.push(Command::Despawn(entity));
    }

    /// Records inserting (or replacing) `entity`'s `T`.
    pub fn insert<T: Component + DeferredBy<S>>(&mut self, entity: Entity, component: T) {
        self.ops.push(Command::Insert(
            entity,
            T::NAME,
            Box::new(move |world, e| world.insert(e, component).map(drop)),
        ));
    }

    /// Records removing `entity`'s `T` (nothing happens if it has none).
    pub fn remove<T: Component + DeferredBy<S>>(&mut self, entity: Entity) {
        self.ops.push(Command::Remove(entity, T::NAME, |world, e| {
            world.remove::<T>(e).map(drop)
        }));
    }
}

/// Recorded commands that no longer borrow the world; see [`Commands::finish`].
#[derive(Default)]
pub struct CommandQueue {
    ops: Vec<Command>,
}

impl CommandQueue {
    /// Number of recorded commands.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Appends `other`'s commands after this queue's.
    pub fn append(&mut self, other: CommandQueue) {
        self.ops.extend(other.ops);
    }
}

impl fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommandQueue")
            .field("len", &self.ops.len())
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

impl World {
    /// A command buffer for this world.
    pub fn commands(&self) -> Commands<'_> {
        Commands::new(&self.entities)
    }

    /// Applies `commands` in recorded order and settles the stores.
    ///
    /// A command against an entity that died meanwhile (or a spawn whose reserved slot was taken)
    /// is skipped whole and reported; it never panics and never half-applies.
    pub fn apply(&mut self, commands: CommandQueue) -> ApplyReport {
        self.apply_ops(commands.ops)
    }

    fn apply_ops(&mut self, ops: Vec<Command>) -> ApplyReport {
        let mut report = ApplyReport::default();
        // Reservations whose spawn was skipped: the handle now names whoever took the slot, so
        // every later command naming it is skipped too, or it would land on that other entity.
        let mut failed: Vec<Entity> = Vec::new();
        for (index, op) in ops.into_iter().enumerate() {
            let target = match &op {
                Command::Despawn(e) => Some((*e, "despawn", None)),
                Command::Insert(e, n, _) => Some((*e, "insert", Some(*n))),
                Command::Remove(e, n, _) => Some((*e, "remove", Some(*n))),
                Command::Spawn(..) | Command::Queue(_) => None,
            };
            if let Some((entity, command, component)) = target
                && failed.contains(&entity)
            {
                report.errors.push(CommandError::ReservationFailed {
                    index,
                    command,
                    component,
                    entity,
                });
                continue;
            }
            let result = match op {
                Command::Spawn(entity, spawn) => match self.entities.spawn_reserved(entity) {
                    Ok(()) => {
                        spawn(self, entity);
                        Ok(())
                    }
                    Err(_) => {
                        failed.push(entity);
                        Err(CommandError::ReservationTaken { index, entity })
                    }
                },
                Command::Despawn(entity) => {
                    self.despawn(entity)
                        .map_err(|_| CommandError::EntityNotAlive {
                            index,
                            command: "despawn",
                            component: None,
                            entity,
                        })
                }
                Command::Insert(entity, name, insert) => {
                    insert(self, entity).map_err(|_| CommandError::EntityNotAlive {
                        index,
                        command: "insert",
                        component: Some(name),
                        entity,
                    })
                }
                Command::Remove(entity, name, remove) => {
                    remove(self, entity).map_err(|_| CommandError::EntityNotAlive {
                        index,
                        command: "remove",
                        component: Some(name),
                        entity,
                    })
                }
                Command::Queue(f) => {
                    f(self);
                    Ok(())
                }
            };
            match result {
                Ok(()) => report.applied += 1,
                Err(e) => report.errors.push(e),
            }
        }
        self.settle();
        report
    }
}
