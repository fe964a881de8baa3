//! Applying a command buffer to a world (`World::apply` and its settling variants): each
//! command checked and counted or skipped and reported at its own index, in recorded order;
//! runs applied with one store lookup each; despawns batched, and their removals finished
//! before anything that could reach the despawned slots.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::component::Component;
use crate::entity::Entity;
use crate::error::{CommandError, CommandKind};
use crate::hierarchy::Children;
use crate::read_ahead::ReadAhead;
use crate::unwind::drop_each;
use crate::world::despawn::PendingDespawns;
use crate::world::{UnsettledStore, World};

use super::*;

impl Applying {
    /// Decides one despawn/insert/remove command: applied (counted) or skipped (reported).
    pub(super) fn admit(
        &mut self,
        offset: usize,
        kind: CommandKind,
        component: Option<&'static str>,
        entity: Entity,
        alive: bool,
    ) -> bool {
        let index = self.index + offset;
        let error = if self.failed.contains(&entity) {
            CommandError::ReservationFailed {
                index,
                command: kind,
                component,
                entity,
            }
        } else if !alive {
            CommandError::EntityNotAlive {
                index,
                command: kind,
                component,
                entity,
            }
        } else {
            self.report.applied += 1;
            return true;
        };
        self.report.errors.push(error);
        false
    }
}

impl World {
    /// A command buffer for this world.
    pub fn commands(&self) -> Commands<'_> {
        Commands::new(self.entities())
    }

    /// Applies `commands` in recorded order and settles the stores.
    ///
    /// A command against an entity that died meanwhile (or a spawn whose reserved slot was taken)
    /// is skipped whole and reported; it never panics and never half-applies.
    pub fn apply(&mut self, commands: CommandQueue) -> ApplyReport {
        let report = self.apply_without_settling(commands);
        self.settle();
        report
    }

    /// [`World::apply`] without the final [`World::settle`]: the stores the commands touched
    /// may be left unsettled, to be settled later in one go — by `settle`, by a `&mut World`
    /// query, or store by store on several threads through [`World::unsettled_stores`]. Everything
    /// else is as `apply`. (A schedule uses [`World::apply_and_settle_with`], which also leaves
    /// the despawns' removals to the threads.)
    pub fn apply_without_settling(&mut self, commands: CommandQueue) -> ApplyReport {
        let mut pending = PendingDespawns::default();
        let report = self.apply_queues([commands], &mut pending);
        self.finish_despawns(&mut pending);
        report
    }

    /// For schedules: applies `queues` in order, each exactly as
    /// [`World::apply_without_settling`] would (one report, merged), then calls `settle` once
    /// with every store that is left to sort, in registration order — each also owing the
    /// removals of the entities the commands despawned ([`UnsettledStore`]), so that those, too,
    /// can run store by store on several threads. When this returns (or unwinds), every store
    /// is whole and sorted: what `settle` did not do — a store it dropped or forgot, or the
    /// rest after a panic — is done here, after it.
    ///
    /// The result does not depend on how `settle` shares the stores out: a store's removals and
    /// sort touch that store alone.
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # #[derive(Component, Clone)] struct Id(u32);
    /// let mut world = World::new();
    /// let ids = world.spawn_batch((0..6).map(|i| (Id(i),)));
    /// let mut commands = world.commands();
    /// commands.despawn(ids[1]);
    /// commands.spawn((Id(10),));
    /// let queue = commands.finish();
    /// let report = world.apply_and_settle_with([queue], |stores| {
    ///     // Here a schedule hands the stores to its threads.
    ///     stores.into_iter().rev().for_each(|s| s.settle());
    /// });
    /// assert!(report.is_clean());
    /// let ids: Vec<u32> = world.query::<&Id>().map(|id| id.0).collect();
    /// assert_eq!(ids, [0, 2, 3, 4, 5, 10]);
    /// ```
    pub fn apply_and_settle_with(
        &mut self,
        queues: impl IntoIterator<Item = CommandQueue>,
        settle: impl FnOnce(Vec<UnsettledStore<'_>>),
    ) -> ApplyReport {
        let mut pending = PendingDespawns::default();
        let report = self.apply_queues(queues, &mut pending);
        let settled = catch_unwind(AssertUnwindSafe(|| {
            settle(self.stores_to_settle(&mut pending));
        }));
        // What `settle` left — a store dropped or forgotten unsettled, or the rest after a
        // panic — is done here, so the world is whole whatever happened.
        let removed = self.finish_despawns_keeping(&mut pending);
        self.settle();
        match settled {
            Ok(()) => drop(removed),
            Err(panic) => {
                drop_each(removed);
                resume_unwind(panic)
            }
        }
        report
    }

    /// Applies `queues` in order (one merged report), leaving the despawns' removals in
    /// `pending`. If a command panics — a queued closure, a component's `Drop` run by a
    /// replacing insert or a remove, an event's — the removals pending so far are finished
    /// (their values dropped by [`drop_each`]) before the panic goes on, so the world it leaves
    /// is whole.
    pub(super) fn apply_queues(
        &mut self,
        queues: impl IntoIterator<Item = CommandQueue>,
        pending: &mut PendingDespawns,
    ) -> ApplyReport {
        let mut report = ApplyReport::default();
        let applied = catch_unwind(AssertUnwindSafe(|| {
            for queue in queues {
                report.merge(self.apply_queue(queue, pending));
            }
        }));
        if let Err(panic) = applied {
            drop_each(self.finish_despawns_keeping(pending));
            resume_unwind(panic);
        }
        report
    }

    /// Applies one buffer. Despawns outside any hierarchy are only begun (`despawn_later`):
    /// each store's removals stay in `pending` for the caller to finish, while spawn, insert
    /// and remove runs go on around them. Every other command sees a whole world: the pending
    /// removals are finished before it.
    ///
    /// Why runs may pass pending removals: a pending entity's store entries are only ever found
    /// through its own slot, and no entity that a run touches holds that slot. A spawn run that
    /// would put an entity there waits for the removals (`CommandRun::meets`: a reservation made
    /// before a `World::restore` can name the slot's next generation). An insert or remove run
    /// only touches live entities, and a live entity in a pending slot could only come from such
    /// a spawn or from a `queue`d closure, before which the removals are finished too.
    pub(super) fn apply_queue(
        &mut self,
        commands: CommandQueue,
        pending: &mut PendingDespawns,
    ) -> ApplyReport {
        let mut state = Applying {
            index: 0,
            failed: Vec::new(),
            report: ApplyReport::default(),
        };
        // Despawns are scattered: their first reads are done ahead, a few at a time (see
        // `read_ahead.rs`).
        let mut ops = commands.recorded.ops.into_iter();
        let mut ahead = ReadAhead::new();
        loop {
            ahead.step(ops.as_slice(), |op| match op {
                Command::Despawn(entity) => self.touch_for_despawn(*entity),
                _ => 0,
            });
            let Some(op) = ops.next() else {
                break;
            };
            let len = op.len();
            let waits = match &op {
                Command::Despawn(_) | Command::RefusedSpawn { .. } => false,
                // Only a run while removals are pending walks its entities.
                Command::Run(run) => pending.any() && run.meets(pending),
                _ => true,
            };
            if waits {
                self.finish_despawns(pending);
            }
            match op {
                Command::Despawn(entity) => {
                    let alive = self.is_alive(entity);
                    if state.admit(0, CommandKind::Despawn, None, entity, alive) {
                        if self.has_relations(entity.slot()) {
                            self.finish_despawns(pending);
                            self.despawn(entity)
                                .expect("a live entity can be despawned");
                        } else {
                            let freed = self.despawn_later(entity, pending);
                            debug_assert!(freed, "an admitted entity is alive");
                        }
                    }
                }
                Command::DespawnRecursive(entity) => {
                    let alive = self.is_alive(entity);
                    if state.admit(0, CommandKind::DespawnRecursive, None, entity, alive) {
                        self.despawn_recursive(entity)
                            .expect("a live entity can be despawned");
                    }
                }
                Command::RemoveParent(child) => {
                    let alive = self.is_alive(child);
                    if state.admit(0, CommandKind::RemoveParent, None, child, alive) {
                        self.remove_parent(child).expect("checked alive");
                    }
                }
                Command::RemoveChildren(parent) => {
                    let alive = self.is_alive(parent);
                    if state.admit(0, CommandKind::Remove, Some(Children::NAME), parent, alive) {
                        self.remove_children(parent).expect("checked alive");
                    }
                }
                Command::SetParent { child, parent } => {
                    let failed = [child, parent]
                        .into_iter()
                        .find(|e| state.failed.contains(e));
                    if let Some(entity) = failed {
                        state.admit(0, CommandKind::SetParent, None, entity, false);
                    } else if let Err(error) = self.set_parent(child, parent) {
                        state.report.errors.push(CommandError::Hierarchy {
                            index: state.index,
                            error,
                        });
                    } else {
                        state.report.applied += 1;
                    }
                }
                Command::Queue(f) => {
                    f(self);
                    state.report.applied += 1;
                }
                Command::RefusedSpawn { component } => {
                    state.report.errors.push(CommandError::DuplicateComponent {
                        index: state.index,
                        component,
                    });
                }
                Command::Run(run) => run.apply(self, &mut state),
            }
            state.index += len;
        }
        // Events touch their channels only, never a store.
        for op in commands.events {
            op.apply(self);
        }
        state.report
    }
}
