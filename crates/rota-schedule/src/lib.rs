//! # rota-schedule
//!
//! Turns system declarations into a plan and runs it: ordered by `after`, strided by whole
//! ticks, parallel where declarations allow — and the same result on 1 thread or N.
//!
//! ## Contract
//!
//! * **Order is a function of declarations.** `after` edges first; conflicting systems (one
//!   writes what the other reads or writes, or both record commands) in declaration order unless
//!   `after` forces otherwise; among systems free to run, the earlier declared goes first. See
//!   [`Schedule::describe`] for the plan and why each edge exists.
//! * **Strides are whole ticks of their own schedule.** A system with `every_ticks = N` runs
//!   on the schedule's ticks where `tick % N == 0` (tick 0 included). Each schedule counts its
//!   own runs in the world ([`World::schedule_tick`](rota_core::World::schedule_tick), under
//!   [`Schedule::label`]), starting from the world's tick at its first run: an update schedule
//!   and a fixed-step schedule on one world each see their strides exactly, and a restore puts
//!   every count back. A wall-clock rate would break determinism at the first dropped frame.
//! * **Parallelism never changes the result.** Systems in one batch have no edge between them,
//!   so they touch disjoint data; each gets exactly the stores its descriptor names, as
//!   exclusive or shared borrows (no `unsafe`, no locks per entity).
//! * **Run conditions are read-only and evaluated at one point.** A system's conditions
//!   (`#[system(run_if(..))]`, [`ScheduleBuilder::run_if`]; `#[condition(reads(..))]`
//!   functions, combined with `and`/`or`/`not`) are evaluated immediately before its batch
//!   runs, in plan order, on the world as the earlier batches and their commands left it. A
//!   condition's reads are added to its system's, so the plan orders it like a reader. A system
//!   whose conditions are false does not run, keeps its last run, and is listed in
//!   [`RunReport::skipped`].
//! * **Commands apply at batch ends**, in plan order, the same points for any thread count. A
//!   system declared `after` another is in a later batch, so it sees that system's commands.
//! * **Threads are the schedule's.** With `threads(1)` every system and every
//!   [`ParallelQuery::par_for_each`] chunk runs on the calling thread; with `threads(N)` on the
//!   calling thread and the schedule's own N - 1 workers, never on rayon's global pool.
//! * **Panics** in systems reach the caller of [`Schedule::run`] as a [`SystemPanics`] payload
//!   naming every system of the batch that panicked, each with its original payload. The world
//!   stays consistent (partially updated: see [`Schedule::run`] for exactly what survives) and
//!   the next `run` works. [`Schedule::run_or_restore`] makes a tick all or nothing: on a panic
//!   the world is restored to its state before the tick.
//! * **Profiles are for reading.** [`RunReport::profile`] holds wall-clock durations per system,
//!   per batch, in settling and in command application; nothing the schedule decides depends on
//!   them.
//!
//! ## Goals, in order
//!
//! 1. Same world, same systems, same result.
//! 2. Never slower than running the plan on one thread: small batches run inline.
//! 3. A plan you can read (`describe`, `to_dot`).
//!
//! ## Non-goals
//!
//! * Run conditions on wall-clock time, or any other input outside the world.
//! * Exclusive (`&mut World`) systems: structural changes go through `Commands`.
//!
//! ## Example
//!
//! ```
//! use rota::{system, Component, Query, World};
//! use rota::rota_schedule::Schedule;
//!
//! #[derive(Component, Clone)]
//! struct Position(f32);
//! #[derive(Component, Clone)]
//! struct Velocity(f32);
//!
//! #[system(reads(Velocity), writes(Position))]
//! fn movement(mut q: Query<(&mut Position, &Velocity)>) {
//!     for (p, v) in &mut q {
//!         p.0 += v.0;
//!     }
//! }
//!
//! #[system(writes(Velocity), after(movement), every_ticks = 2)]
//! fn drag(mut q: Query<&mut Velocity>) {
//!     for v in &mut q {
//!         v.0 *= 0.5;
//!     }
//! }
//!
//! let mut schedule = Schedule::builder().add(movement).add(drag).threads(2).build()?;
//! let mut world = World::new();
//! world.spawn_with((Position(0.0), Velocity(4.0)));
//! for _ in 0..3 {
//!     schedule.run(&mut world);
//! }
//! // tick 0: +4, drag -> 2; tick 1: +2; tick 2: +2, drag -> 1
//! assert_eq!(world.query::<&Position>().next().unwrap().0, 8.0);
//! assert_eq!(world.tick(), 3);
//! # Ok::<(), rota::ScheduleError>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod audit;
mod describe;
mod error;
mod execute;
mod panic;
mod par;
mod plan;
mod report;
mod system_box;
mod trace;
mod workers;

use rota_core::system::condition::{IntoRunIf, RunIf};
use rota_core::system::{IntoSystem, SystemDescriptor, SystemRef, system_ref};

pub use audit::{AuditReport, UnderConstrained};
pub use error::{ScheduleError, ThreadPoolError, TickError};
pub use panic::{SystemPanic, SystemPanics};
pub use par::{PAR_CHUNK, PAR_SEGMENT, ParChunk, ParSegment, ParallelQuery};
pub use plan::EdgeReason;
pub use report::{BatchProfile, ProfileSum, RunProfile, RunReport, SystemProfile};

use execute::Scheduled;
use plan::Plan;
use system_box::{BoxedSystem, WithState};
use workers::Workers;

/// Collects systems in declaration order; [`ScheduleBuilder::build`] checks and plans them.
pub struct ScheduleBuilder {
    systems: Vec<Box<dyn BoxedSystem>>,
    descriptors: Vec<SystemDescriptor>,
    /// Each system's run conditions from its attribute, in declaration order.
    run_if: Vec<Option<RunIf>>,
    /// Conditions added with [`ScheduleBuilder::run_if`], in call order.
    extra_run_if: Vec<(SystemRef, RunIf)>,
    extra_after: Vec<(SystemRef, SystemRef)>,
    strides: Vec<(SystemRef, u64)>,
    label: Option<String>,
    threads: usize,
    inline_below: usize,
}

/// The default for [`ScheduleBuilder::inline_below`]: batches touching fewer entity-components
/// than this run on the calling thread. Measured on the ecs_bench_suite `schedule` workload
/// (`cargo bench --bench schedule`, `docs/benchmarks.md`): its 120,000-entity-component batch
/// runs ~25% faster on 2 threads than inline, so the threshold sits well below that.
pub const DEFAULT_INLINE_BELOW: usize = 20_000;

impl Default for ScheduleBuilder {
    fn default() -> Self {
        ScheduleBuilder {
            systems: Vec::new(),
            descriptors: Vec::new(),
            run_if: Vec::new(),
            extra_run_if: Vec::new(),
            extra_after: Vec::new(),
            strides: Vec::new(),
            label: None,
            threads: 1,
            inline_below: DEFAULT_INLINE_BELOW,
        }
    }
}

impl ScheduleBuilder {
    /// Adds a system (pass the `#[system]` function itself: `.add(movement)`).
    // `add` reads best in a builder chain; there is no `Add` impl to confuse it with.
    #[allow(clippy::should_implement_trait)]
    pub fn add<F: IntoSystem>(mut self, system: F) -> Self {
        let system = system.into_system();
        let state = rota_core::system::System::init_state(&system);
        self.run_if.push(rota_core::system::System::run_if(&system));
        let boxed = WithState { system, state };
        self.descriptors.push(boxed.descriptor());
        self.systems.push(Box::new(boxed));
        self
    }

    /// Adds the constraint "`system` runs after `before`", e.g. between systems from crates
    /// that cannot name each other in their attributes.
    pub fn after<A: IntoSystem, B: IntoSystem>(mut self, system: A, before: B) -> Self {
        self.extra_after
            .push((system_ref(system), system_ref(before)));
        self
    }

    /// Adds a run condition to `system`: it runs only on ticks where `condition` holds (and
    /// every condition of its attribute, and every earlier `run_if` call for it). The
    /// condition is evaluated immediately before the system's batch runs, on the world as it is
    /// then; its reads are added to the system's, so the plan orders it like a reader.
    ///
    /// ```
    /// use rota::condition::{ConditionExt, not};
    /// use rota::{Res, Resource, Schedule, World, condition, system};
    ///
    /// #[derive(Resource, Clone)]
    /// struct Daylight(bool);
    /// #[derive(Resource, Clone)]
    /// struct Prey(u32);
    ///
    /// #[condition(reads(Daylight))]
    /// fn is_day(light: Res<Daylight>) -> bool {
    ///     light.0
    /// }
    ///
    /// #[condition(reads(Prey))]
    /// fn has_prey(prey: Res<Prey>) -> bool {
    ///     prey.0 > 0
    /// }
    ///
    /// #[system()]
    /// fn hunt() {}
    /// #[system()]
    /// fn sleep() {}
    ///
    /// let mut schedule = Schedule::builder()
    ///     .add(hunt)
    ///     .add(sleep)
    ///     .run_if(hunt, is_day.and(has_prey))
    ///     .run_if(sleep, not(is_day))
    ///     .build()?;
    /// let mut world = World::new();
    /// world.insert_resource(Daylight(true));
    /// world.insert_resource(Prey(3));
    /// let report = schedule.run(&mut world);
    /// assert_eq!((report.ran, report.skipped), (vec!["hunt"], vec!["sleep"]));
    /// assert!(schedule.describe().contains("hunt (every tick; if is_day and has_prey)"));
    /// # Ok::<(), rota::ScheduleError>(())
    /// ```
    pub fn run_if<A: IntoSystem>(mut self, system: A, condition: impl IntoRunIf) -> Self {
        self.extra_run_if
            .push((system_ref(system), condition.into_run_if()));
        self
    }

    /// Overrides a system's stride (`every_ticks`).
    pub fn every_ticks<A: IntoSystem>(mut self, system: A, ticks: u64) -> Self {
        self.strides.push((system_ref(system), ticks));
        self
    }

    /// Names the schedule in the worlds it runs on: its strides count its own runs
    /// ([`rota_core::World::schedule_tick`]), kept in the world under this label. Without one,
    /// the label is its systems' names in declaration order (`"movement, drag"`), so two
    /// schedules of different systems on one world never share a count; give one explicitly
    /// when two schedules hold the same systems, or to keep a schedule's count when its
    /// systems change between versions of a program that restore each other's snapshots.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Worker threads (default 1). The calling thread is one of them.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Batches whose systems touch fewer than this many entity-components in total run on the
    /// calling thread: handing small work to a pool costs more than it saves.
    pub fn inline_below(mut self, work: usize) -> Self {
        self.inline_below = work;
        self
    }

    /// Checks the systems and computes the plan.
    ///
    /// # Errors
    ///
    /// [`ScheduleError`]: a cycle (naming its systems in order), an `after` or `run_if` naming a
    /// system not in the schedule, a system added twice, a stride of 0, or 0 threads.
    pub fn build(self) -> Result<Schedule, ScheduleError> {
        self.build_with(None)
    }

    /// `build`, with `priority[i]` replacing declaration index `i` as the tie-break and conflict
    /// direction (the ordering audit's shuffle).
    pub(crate) fn build_with(
        mut self,
        priority: Option<Vec<usize>>,
    ) -> Result<Schedule, ScheduleError> {
        if self.threads == 0 {
            return Err(ScheduleError::ZeroThreads);
        }
        for (i, d) in self.descriptors.iter().enumerate() {
            if self.descriptors[..i].iter().any(|e| e.id == d.id) {
                return Err(ScheduleError::DuplicateSystem { system: d.name });
            }
        }
        for (sys, ticks) in &self.strides {
            let Some(d) = self.descriptors.iter_mut().find(|d| d.id == sys.id) else {
                return Err(ScheduleError::UnknownSystem {
                    system: sys.name,
                    call: "every_ticks",
                });
            };
            d.every_ticks = *ticks;
        }
        for (sys, condition) in self.extra_run_if {
            let Some(i) = self.descriptors.iter().position(|d| d.id == sys.id) else {
                return Err(ScheduleError::UnknownSystem {
                    system: sys.name,
                    call: "run_if",
                });
            };
            self.run_if[i] = Some(match self.run_if[i].take() {
                Some(earlier) => earlier.and(condition),
                None => condition,
            });
        }
        // A condition's reads are its system's: the plan orders them against writers.
        for (d, condition) in self.descriptors.iter_mut().zip(&self.run_if) {
            for read in condition.iter().flat_map(RunIf::reads) {
                d.add_read(read);
            }
        }
        let conditions: Vec<Option<String>> = self
            .run_if
            .iter()
            .map(|c| c.as_ref().map(ToString::to_string))
            .collect();
        if let Some(d) = self.descriptors.iter().find(|d| d.every_ticks == 0) {
            return Err(ScheduleError::ZeroStride { system: d.name });
        }
        if let Some(d) = self.descriptors.iter().find(|d| d.param_alias.is_some()) {
            return Err(ScheduleError::AliasingParameters {
                system: d.name,
                component: d.param_alias.unwrap_or_default(),
            });
        }
        let index = |r: &SystemRef| self.descriptors.iter().position(|d| d.id == r.id);
        let mut after: Vec<Vec<usize>> = vec![Vec::new(); self.descriptors.len()];
        for (i, d) in self.descriptors.iter().enumerate() {
            for a in &d.after {
                let j = index(a).ok_or(ScheduleError::UnknownAfter {
                    system: d.name,
                    after: a.name,
                })?;
                after[i].push(j);
            }
        }
        for (sys, before) in &self.extra_after {
            let i = index(sys).ok_or(ScheduleError::UnknownSystem {
                system: sys.name,
                call: "after",
            })?;
            let j = index(before).ok_or(ScheduleError::UnknownAfter {
                system: sys.name,
                after: before.name,
            })?;
            after[i].push(j);
        }
        let plan = Plan::build(&self.descriptors, &after, priority.as_deref())?;
        let workers = if self.threads > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(self.threads - 1)
                .thread_name(|i| format!("rota-worker-{i}"))
                .build()
                .map_err(|e| ScheduleError::ThreadPool {
                    workers: self.threads - 1,
                    source: e.into(),
                })?;
            Workers::Pool(std::sync::Arc::new(pool))
        } else {
            Workers::Calling
        };
        // Store systems batch after batch, so a batch is one contiguous slice at run time.
        let mut systems: Vec<Scheduled> = self
            .systems
            .into_iter()
            .zip(self.run_if)
            .zip(&self.descriptors)
            .enumerate()
            .map(|(index, ((system, run_if), d))| Scheduled {
                index,
                every_ticks: d.every_ticks,
                run_if,
                system,
            })
            .collect();
        let run_order: Vec<usize> = plan.batches.concat();
        let mut rank = vec![0; systems.len()];
        for (r, &i) in run_order.iter().enumerate() {
            rank[i] = r;
        }
        systems.sort_by_key(|s| rank[s.index]);
        let mut batch_ranges = Vec::with_capacity(plan.batches.len());
        let mut start = 0;
        for batch in &plan.batches {
            batch_ranges.push(start..start + batch.len());
            start += batch.len();
        }
        let label = self.label.unwrap_or_else(|| {
            let names: Vec<&str> = self.descriptors.iter().map(|d| d.name).collect();
            names.join(", ")
        });
        let enabled = vec![false; systems.len()];
        Ok(Schedule {
            label,
            enabled,
            conditions,
            systems,
            batch_ranges,
            descriptors: self.descriptors,
            plan,
            workers,
            threads: self.threads,
            inline_below: self.inline_below,
            outcomes: Vec::new(),
        })
    }
}

/// A planned set of systems; [`Schedule::run`] runs one tick.
pub struct Schedule {
    /// The schedule's name in a world's `schedule_ticks` (see [`ScheduleBuilder::label`]).
    label: String,
    /// The systems in run order: batch after batch, each batch in plan order.
    systems: Vec<Scheduled>,
    /// `enabled[p]`: whether `systems[p]` runs this tick (due on its stride and its
    /// conditions hold), set for a batch immediately before it runs.
    enabled: Vec<bool>,
    /// Each system's run conditions as text (`is_day and not(winter)`), in declaration order.
    conditions: Vec<Option<String>>,
    /// `systems[batch_ranges[b]]` is batch `b`.
    batch_ranges: Vec<std::ops::Range<usize>>,
    /// In declaration order.
    descriptors: Vec<SystemDescriptor>,
    plan: Plan,
    /// The threads systems and `par_for_each` run on.
    workers: Workers,
    threads: usize,
    inline_below: usize,
    /// One batch's outcomes; kept between batches so its allocation is reused.
    outcomes: Vec<execute::Outcome>,
}

impl std::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schedule")
            .field(
                "order",
                &self
                    .plan
                    .order
                    .iter()
                    .map(|&i| self.descriptors[i].name)
                    .collect::<Vec<_>>(),
            )
            .field("threads", &self.threads)
            .finish()
    }
}

impl Schedule {
    /// A builder with no systems, one thread.
    pub fn builder() -> ScheduleBuilder {
        ScheduleBuilder::default()
    }

    /// System names in plan order: a topological order of every edge in which, among systems
    /// free to run, the earlier declared comes first. Execution runs batch by batch, which can
    /// interleave independent systems differently without changing any result.
    pub fn order(&self) -> Vec<&'static str> {
        self.plan
            .order
            .iter()
            .map(|&i| self.descriptors[i].name)
            .collect()
    }

    /// Batches of system names; systems in one batch may run in parallel.
    pub fn batches(&self) -> Vec<Vec<&'static str>> {
        self.plan
            .batches
            .iter()
            .map(|b| b.iter().map(|&i| self.descriptors[i].name).collect())
            .collect()
    }

    /// Each system's run conditions as text (`"is_day and not(has_prey)"`), `None` for a system
    /// without any; in declaration order, like [`Schedule::descriptors`].
    pub fn conditions(&self) -> &[Option<String>] {
        &self.conditions
    }

    /// The descriptors, in declaration order (a system's reads include its conditions').
    pub fn descriptors(&self) -> &[SystemDescriptor] {
        &self.descriptors
    }

    /// The schedule's label: its own tick in a world is
    /// [`world.schedule_tick(label)`](rota_core::World::schedule_tick).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Worker threads, the calling thread included.
    pub fn threads(&self) -> usize {
        self.threads
    }
}
