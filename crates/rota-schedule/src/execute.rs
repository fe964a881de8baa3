//! Running a plan: batch by batch, each batch's systems on split borrows of the world (in
//! parallel when there is enough work), then the batch's commands in plan order.
//!
//! One batch is a pure data flow: `Job`s in (a system, its borrows), `Outcome`s out (its
//! commands, its panic if any, its wall time), both in plan order. Systems are stored batch by
//! batch (`Schedule::systems`), so a batch's systems are one contiguous slice and each job gets
//! its `&mut` from `iter_mut` without any bookkeeping; each parallel job writes its outcome into
//! its own element of the batch's output, so nothing is shared between jobs.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rota_core::system::condition::RunIf;
use rota_core::system::{SystemBorrows, SystemContext, SystemDescriptor};
use rota_core::{CommandQueue, UnsettledStore, World};

use crate::Schedule;
use crate::error::TickError;
use crate::panic::{SystemPanic, SystemPanics};
use crate::report::{BatchProfile, RunReport, SystemProfile};
use crate::system_box::BoxedSystem;
use crate::trace::span;
use crate::workers::{Helpers, Workers};

/// A system in `Schedule::systems`: stored in run order, batch after batch.
pub(crate) struct Scheduled {
    /// Its declaration index (into `Schedule::descriptors`).
    pub(crate) index: usize,
    /// Its stride in ticks.
    pub(crate) every_ticks: u64,
    /// Its run conditions (attribute and builder), all in one tree.
    pub(crate) run_if: Option<RunIf>,
    pub(crate) system: Box<dyn BoxedSystem>,
}

/// One system ready to run: the system and everything it borrowed.
struct Job<'s, 'w> {
    system: &'s mut dyn BoxedSystem,
    borrows: SystemBorrows<'w>,
    name: &'static str,
}

/// What running one job left: its commands, its panic payload if it panicked, its wall time.
#[derive(Default)]
pub(crate) struct Outcome {
    commands: CommandQueue,
    panic: Option<Box<dyn Any + Send>>,
    run: Duration,
}

/// Runs one job on this thread, catching its panic.
fn run_job(job: Job<'_, '_>, workers: &Workers) -> Outcome {
    // `SystemContext` takes its command sink as a `&Mutex`; this one is the job's own, never
    // contended.
    let sink = Mutex::new(CommandQueue::default());
    let _span = span!("rota.system", system = job.name);
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| {
        workers.enter(|| {
            job.system
                .run(SystemContext::new(job.borrows, &sink, job.name))
        })
    }));
    Outcome {
        run: start.elapsed(),
        commands: sink.into_inner().unwrap_or_else(PoisonError::into_inner),
        panic: result.err(),
    }
}

/// Runs `jobs` one after another on this thread.
fn run_inline<'s, 'w>(
    jobs: impl Iterator<Item = Job<'s, 'w>>,
    workers: &Workers,
    outcomes: &mut Vec<Outcome>,
) {
    outcomes.extend(jobs.map(|job| run_job(job, workers)));
}

/// Runs the `count` `jobs` on `pool`, each job writing into its own output slot, so the
/// outcomes come back in plan order.
///
/// The first jobs are handed out fixed, one per thread (the calling thread takes the first,
/// each worker one of the next): a hand-out pulled from the start would let the calling thread
/// run a batch of small systems alone before a worker wakes, and the determinism tests
/// (`tests/it/schedule_determinism.rs`) would no longer exercise the pool. The jobs left over
/// when a batch has more systems than threads are then pulled, in plan order, by whichever
/// thread is free: with a fixed hand-out of those too, the calling thread sat idle while one
/// worker ran three systems one after another (the ecosystem's statistics batch, 2 threads).
/// Small batches run inline anyway (`inline_below`).
fn run_parallel<'s, 'w>(
    jobs: impl Iterator<Item = Job<'s, 'w>>,
    count: usize,
    pool: &rayon::ThreadPool,
    workers: &Workers,
    outcomes: &mut Vec<Outcome>,
) {
    outcomes.resize_with(count, Outcome::default);
    let mut pairs = jobs.zip(outcomes.iter_mut());
    let Some((first, first_out)) = pairs.next() else {
        return;
    };
    let fixed: Vec<_> = pairs.by_ref().take(pool.current_num_threads()).collect();
    // What is left to pull (empty when every job has a thread of its own: then no thread
    // touches the queue's lock, which would move its cache line between cores per batch).
    let left: VecDeque<_> = pairs.collect();
    let pull = !left.is_empty();
    let left = Mutex::new(left);
    let run_left = || {
        if !pull {
            return;
        }
        loop {
            let next = left
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop_front();
            let Some((job, out)) = next else { return };
            *out = run_job(job, workers);
        }
    };
    // The workers end (and linger) once nothing is left to pull; the calling thread then waits
    // for them awake, so neither end of the batch has to wake a sleeping thread.
    let running = Helpers::new(true);
    let (running, run_left) = (&running, &run_left);
    pool.in_place_scope(|scope| {
        for (job, out) in fixed {
            running.start();
            scope.spawn(move |_| {
                running.run(|| {
                    *out = run_job(job, workers);
                    run_left();
                });
            });
        }
        *first_out = run_job(first, workers);
        run_left();
        running.wait_awake();
    });
}

/// Settles `stores` (each also making the removals it owes, see [`UnsettledStore`]): on the
/// calling thread alone when the schedule has one thread, there is one store to sort or less
/// than `inline_below` values in all; otherwise
/// the stores are shared out over the calling thread and the pool's workers, biggest first
/// (each thread takes the biggest store left when it is free: the calling thread is not one of
/// the pool's workers, so a store handed to the pool alone would wait for a worker while the
/// calling thread idles). Settling a store gives the same result on any thread.
fn settle(mut stores: Vec<UnsettledStore<'_>>, workers: &Workers, inline_below: usize) {
    let pool = match workers {
        Workers::Pool(pool)
            if stores.len() > 1
                && stores.iter().map(|s| s.len()).sum::<usize>() >= inline_below =>
        {
            pool
        }
        _ => {
            stores.into_iter().for_each(|s| s.settle());
            return;
        }
    };
    // Ascending, so `pop` takes the biggest left.
    stores.sort_by_key(|s| s.len());
    let helpers = pool.current_num_threads().min(stores.len() - 1);
    let left = Mutex::new(stores);
    let settle_left = || {
        loop {
            let next = left.lock().unwrap_or_else(PoisonError::into_inner).pop();
            match next {
                Some(store) => store.settle(),
                None => return,
            }
        }
    };
    let running = Helpers::new(true);
    pool.in_place_scope(|scope| running.share(scope, helpers, &settle_left));
}

/// Entity-components a batch touches: the summed lengths of every declared component store.
fn estimated_work(world: &World, descriptors: &[&SystemDescriptor]) -> usize {
    descriptors
        .iter()
        .flat_map(|d| d.reads.iter().chain(&d.writes))
        .filter_map(|a| world.component_len(a.type_id))
        .sum()
}

impl Schedule {
    /// Runs one tick: every system due on the schedule's own tick ([`Schedule::label`]), batch by batch, applying each batch's
    /// commands in plan order at its end; then advances the world's tick. The report's
    /// [`RunReport::profile`] says where the time went.
    ///
    /// # Panics
    ///
    /// If systems panic, after every system of their batch has finished: `run` unwinds with a
    /// [`SystemPanics`] payload naming each system of the batch that panicked, in plan order,
    /// each with its original payload. What survives:
    ///
    /// * every write made before the panic stays — earlier batches' writes and commands, the
    ///   writes of the panicking system up to its panic, and all writes of its batch-mates;
    /// * the panicking batch's commands are dropped, its batch-mates' included;
    /// * later batches do not run, and the world's tick does not advance.
    ///
    /// The world stays consistent (its invariants hold) and the next `run` works. For a tick
    /// that is all or nothing, use [`Schedule::run_or_restore`].
    pub fn run(&mut self, world: &mut World) -> RunReport {
        match self.try_run(world) {
            Ok(report) => report,
            Err(panics) => resume_unwind(Box::new(panics)),
        }
    }

    /// Runs one tick all or nothing: as [`Schedule::run`], but if a system panics the world is
    /// put back exactly as it was before the tick ([`World::restore`] of a snapshot taken
    /// first) and the panics come back as [`TickError::Panicked`] instead of unwinding.
    ///
    /// After an `Err` the world is indistinguishable from the world before the call: the same
    /// contents and iteration order, the same [`World::full_checksum`], the same handles for
    /// future spawns, the same tick (so the next call runs the same tick again). State kept
    /// outside the world is not restored: a system's `Local<T>` (it lives in the schedule),
    /// what a closure captured, a file.
    ///
    /// Cost: one [`World::snapshot`] per tick. Snapshots share columns copy-on-write, so the
    /// snapshot itself copies no column, but every store the tick then writes is copied once
    /// (a `memcpy` for `Copy` components; figures for that deferred cost in
    /// `docs/benchmarks.md`, "Copy-on-write snapshots"). The snapshot is dropped when the tick
    /// succeeds.
    ///
    /// # Errors
    ///
    /// * [`TickError::Snapshot`] if the world cannot be snapshotted (it holds a component or
    ///   resource excluded from snapshots); nothing ran and the world is unchanged.
    /// * [`TickError::Panicked`] naming every system of the batch that panicked, with their
    ///   payloads; the world was restored.
    ///
    /// # Panics
    ///
    /// If a component's `Clone` or `Drop` panics outside the systems (while their commands are
    /// applied: a despawn's or an insert's copy of a column the tick's snapshot shares, a
    /// removed value's `Drop`): the world is restored first, then that panic goes on.
    ///
    /// ```
    /// use rota::{Schedule, TickError};
    /// use rota::{system, Component, Query, StableHash, World};
    ///
    /// #[derive(Component, StableHash, Clone)]
    /// struct Hp(i32);
    ///
    /// #[system(writes(Hp))]
    /// fn damage(mut q: Query<&mut Hp>) {
    ///     for hp in &mut q {
    ///         hp.0 -= 5;
    ///         assert!(hp.0 > 0, "an entity died");
    ///     }
    /// }
    ///
    /// let mut schedule = Schedule::builder().add(damage).build()?;
    /// let mut world = World::new();
    /// world.spawn_with((Hp(20),));
    /// world.spawn_with((Hp(7),));
    /// let before = world.full_checksum()?;
    /// # let hook = std::panic::take_hook();
    /// # std::panic::set_hook(Box::new(|_| {}));
    /// assert!(schedule.run_or_restore(&mut world).is_ok()); // 15 and 2
    /// let after_one = world.full_checksum()?;
    /// assert_ne!(after_one, before);
    /// let err = schedule.run_or_restore(&mut world).unwrap_err(); // 10, then -3 panics
    /// # std::panic::set_hook(hook);
    /// let TickError::Panicked(panics) = err else { unreachable!() };
    /// assert_eq!(panics.systems(), ["damage"]);
    /// assert_eq!(world.full_checksum()?, after_one); // the 10 was rolled back too
    /// assert_eq!(world.tick(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_or_restore(&mut self, world: &mut World) -> Result<RunReport, TickError> {
        let before = world.snapshot()?;
        // A panic outside the systems — a component's `Clone` or `Drop` while the commands are
        // applied — unwinds out of `try_run`: the world is restored before it goes on. A
        // panicking `Drop` in the restore itself (the world is restored whole anyway) gives way
        // to the systems' panics or to the first one.
        match catch_unwind(AssertUnwindSafe(|| self.try_run(world))) {
            Ok(Ok(report)) => Ok(report),
            Ok(Err(panics)) => {
                let _ = catch_unwind(AssertUnwindSafe(|| world.restore(&before)));
                Err(TickError::Panicked(panics))
            }
            Err(panic) => {
                let _ = catch_unwind(AssertUnwindSafe(|| world.restore(&before)));
                resume_unwind(panic)
            }
        }
    }

    /// [`Schedule::run`], returning the panics of a batch instead of unwinding with them.
    fn try_run(&mut self, world: &mut World) -> Result<RunReport, SystemPanics> {
        let start = Instant::now();
        // Strides count this schedule's own runs; the report names the world's tick.
        let tick = world.schedule_tick(&self.label);
        let world_tick = world.tick();
        let _span = span!("rota.tick", tick = world_tick);
        let mut report = RunReport {
            tick: world_tick,
            schedule_tick: tick,
            ..RunReport::default()
        };
        // Sized once per run, so recording the profile does not reallocate per batch.
        report.profile.systems.reserve_exact(self.systems.len());
        report
            .profile
            .batches
            .reserve_exact(self.batch_ranges.len());
        {
            let _span = span!("rota.settle");
            settle(world.unsettled_stores(), &self.workers, self.inline_below);
        }
        report.profile.settle += start.elapsed();
        // By declaration index: whether the system's conditions were false this tick.
        let mut skipped = vec![false; self.descriptors.len()];
        for b in 0..self.batch_ranges.len() {
            self.evaluate_conditions(world, b, tick, &mut skipped)?;
            if self.due(b).next().is_none() {
                continue;
            }
            self.run_batch(world, b, &mut report);
            if self.outcomes.iter().any(|o| o.panic.is_some()) {
                return Err(self.collect_panics(b));
            }
            let apply = Instant::now();
            let commands_span = span!("rota.commands", batch = b);
            let queues = self
                .outcomes
                .drain(..)
                .map(|outcome| outcome.commands)
                .filter(|commands| !commands.is_empty());
            let (workers, inline_below) = (&self.workers, self.inline_below);
            let mut sort = None;
            // The batch's commands, in plan order; then what they moved is sorted once, and what
            // they despawned removed, store by store in parallel (each store's work is a pass
            // over its values).
            let applied = world.apply_and_settle_with(queues, |stores| {
                drop(commands_span);
                sort = Some(Instant::now());
                let _span = span!("rota.settle", batch = b);
                settle(stores, workers, inline_below);
            });
            report.commands.merge(applied);
            let sort = sort.expect("apply_and_settle_with calls settle once");
            report.profile.commands += sort - apply;
            report.profile.settle += sort.elapsed();
        }
        // Every batch ran, so the systems that ran are those due whose conditions held, listed
        // in plan order.
        for &i in &self.plan.order {
            let d = &self.descriptors[i];
            if skipped[i] {
                report.skipped.push(d.name);
            } else if tick.is_multiple_of(d.every_ticks) {
                report.ran.push(d.name);
            }
        }
        world.advance_schedule_tick(&self.label);
        report.profile.total = start.elapsed();
        Ok(report)
    }

    /// Decides which of batch `b`'s systems run on `tick` (`self.enabled`): those due on their
    /// stride whose conditions hold, evaluated now, in plan order, on the world as the earlier
    /// batches and their commands left it. Marks the others due in `skipped` (by declaration
    /// index).
    ///
    /// A condition that panics is reported like a system that panicked, under its system's
    /// name; the batch does not run.
    fn evaluate_conditions(
        &mut self,
        world: &mut World,
        b: usize,
        tick: u64,
        skipped: &mut [bool],
    ) -> Result<(), SystemPanics> {
        let range = self.batch_ranges[b].clone();
        for (s, enabled) in self.systems[range.clone()]
            .iter_mut()
            .zip(&mut self.enabled[range])
        {
            *enabled = tick.is_multiple_of(s.every_ticks);
            let Some(condition) = s.run_if.as_mut().filter(|_| *enabled) else {
                continue;
            };
            let _span = span!("rota.condition", system = self.descriptors[s.index].name);
            match catch_unwind(AssertUnwindSafe(|| condition.evaluate(world))) {
                Ok(holds) => {
                    *enabled = holds;
                    skipped[s.index] = !holds;
                }
                Err(payload) => {
                    return Err(SystemPanics {
                        panics: vec![SystemPanic {
                            system: self.descriptors[s.index].name,
                            payload,
                        }],
                    });
                }
            }
        }
        Ok(())
    }

    /// Batch `b`'s systems that run this tick (see [`Schedule::evaluate_conditions`]), in plan
    /// order.
    fn due(&self, b: usize) -> impl Iterator<Item = &Scheduled> {
        let range = self.batch_ranges[b].clone();
        self.systems[range.clone()]
            .iter()
            .zip(&self.enabled[range])
            .filter(|(_, enabled)| **enabled)
            .map(|(s, _)| s)
    }

    /// Runs batch `b`'s enabled systems on split borrows, pushing one outcome per system
    /// into `self.outcomes`, in plan order.
    fn run_batch(&mut self, world: &mut World, b: usize, report: &mut RunReport) {
        let split = Instant::now();
        let descriptors: Vec<&SystemDescriptor> =
            self.due(b).map(|s| &self.descriptors[s.index]).collect();
        let parallel = matches!(self.workers, Workers::Pool(_))
            && descriptors.len() > 1
            && estimated_work(world, &descriptors) >= self.inline_below;
        let borrows = match world.split_for_systems(&descriptors) {
            Ok(b) => b,
            Err(e) => panic!("rota-schedule internal error: a batch conflicts: {e}"),
        };
        report.profile.settle += split.elapsed();
        let range = self.batch_ranges[b].clone();
        let jobs = self.systems[range.clone()]
            .iter_mut()
            .zip(&self.enabled[range])
            .filter(|(_, enabled)| **enabled)
            .map(|(s, _)| s)
            .zip(borrows)
            .zip(&descriptors)
            .map(|((s, borrows), d)| Job {
                system: s.system.as_mut(),
                borrows,
                name: d.name,
            });
        let run = Instant::now();
        let batch_span = span!(
            "rota.batch",
            batch = b,
            systems = descriptors.len(),
            parallel
        );
        match &self.workers {
            Workers::Pool(pool) if parallel => run_parallel(
                jobs,
                descriptors.len(),
                pool,
                &self.workers,
                &mut self.outcomes,
            ),
            _ => run_inline(jobs, &self.workers, &mut self.outcomes),
        }
        drop(batch_span);
        report.profile.batches.push(BatchProfile {
            batch: b,
            systems: descriptors.len(),
            parallel,
            run: run.elapsed(),
        });
        for (d, outcome) in descriptors.iter().zip(&self.outcomes) {
            report.profile.systems.push(SystemProfile {
                system: d.name,
                batch: b,
                run: outcome.run,
            });
        }
    }

    /// The panics among batch `b`'s `outcomes`, named, in plan order; drops the batch's
    /// commands.
    fn collect_panics(&mut self, b: usize) -> SystemPanics {
        let outcomes = std::mem::take(&mut self.outcomes);
        let names = self.due(b).map(|s| self.descriptors[s.index].name);
        let panics = names
            .zip(outcomes)
            .filter_map(|(system, o)| {
                // The batch's commands are dropped unapplied; a component's `Drop` panicking
                // there must not take the systems' panics with it.
                let _ = catch_unwind(AssertUnwindSafe(|| drop(o.commands)));
                o.panic.map(|payload| SystemPanic { system, payload })
            })
            .collect();
        SystemPanics { panics }
    }
}
