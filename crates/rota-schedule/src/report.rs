//! [`RunReport`]: what one [`crate::Schedule::run`] did, [`RunProfile`]: how long it took, and
//! [`ProfileSum`]: the mean of many runs' profiles.

use std::time::Duration;

use rota_core::ApplyReport;

/// What one [`crate::Schedule::run`] did, and where its time went.
///
/// Equality compares what the run did (`tick`, `ran`, `skipped`, `commands`), not the `profile`: wall-clock
/// time differs between any two runs, while everything else is the same on any thread count.
#[derive(Debug, Default, Clone)]
pub struct RunReport {
    /// The tick that ran (the world's tick before `run` advanced it).
    pub tick: u64,
    /// The schedule's own tick that ran, which its strides were checked against
    /// ([`World::schedule_tick`](rota_core::World::schedule_tick)); equal to `tick` while one
    /// schedule is all that runs the world.
    pub schedule_tick: u64,
    /// Systems that ran, in plan order ([`crate::Schedule::order`]; strided systems skip some
    /// ticks).
    pub ran: Vec<&'static str>,
    /// Systems due on their stride that did not run because a run condition was false, in plan
    /// order. A skipped system's last run (what its `Changed`/`Added` filters see next) stays
    /// where it was.
    pub skipped: Vec<&'static str>,
    /// What applying the systems' commands did.
    pub commands: ApplyReport,
    /// Wall-clock durations of the run's parts.
    pub profile: RunProfile,
}

impl PartialEq for RunReport {
    fn eq(&self, other: &Self) -> bool {
        self.tick == other.tick
            && self.schedule_tick == other.schedule_tick
            && self.ran == other.ran
            && self.skipped == other.skipped
            && self.commands == other.commands
    }
}

impl Eq for RunReport {}

/// Wall-clock durations of one [`crate::Schedule::run`], measured with `std::time::Instant`.
///
/// Measured only to be read: no decision of the schedule depends on them, so results stay the
/// same on any thread count. Parts can overlap (systems of a batch run at the same time), so the
/// systems' durations can add up to more than their batch's.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RunProfile {
    /// The whole run.
    pub total: Duration,
    /// Settling: the world at the start of the tick, the stores each batch's commands moved
    /// (store by store, in parallel on a pool), and each batch's split of the world into
    /// per-system borrows.
    pub settle: Duration,
    /// Applying the systems' commands at batch ends (`World::apply_without_settling`; the sort
    /// that follows is in `settle`).
    pub commands: Duration,
    /// Batches with a system due this tick, in run order.
    pub batches: Vec<BatchProfile>,
    /// Systems that ran, in the order they were handed out (batch by batch, each batch in plan
    /// order).
    pub systems: Vec<SystemProfile>,
}

/// One batch's part of a [`RunProfile`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchProfile {
    /// The batch's index in [`crate::Schedule::batches`].
    pub batch: usize,
    /// Systems of the batch due this tick.
    pub systems: usize,
    /// Whether they were handed to the pool (`false`: run one after another on the calling
    /// thread, because the schedule has one thread, one system was due, or the batch touches
    /// fewer entity-components than [`crate::ScheduleBuilder::inline_below`]).
    pub parallel: bool,
    /// From handing out the first system to the last one finishing (the split and the commands
    /// are not included).
    pub run: Duration,
}

/// One system's part of a [`RunProfile`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemProfile {
    /// The system.
    pub system: &'static str,
    /// Its batch's index in [`crate::Schedule::batches`].
    pub batch: usize,
    /// Its body's wall time, on whichever thread ran it.
    pub run: Duration,
}

impl std::fmt::Display for RunProfile {
    /// A small table: one line per batch and system, then settle and commands.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "total {:>10.3?}", self.total)?;
        for b in &self.batches {
            let how = if b.parallel { "parallel" } else { "inline" };
            writeln!(
                f,
                "  batch {:<3} {:>10.3?}  ({} system(s), {how})",
                b.batch, b.run, b.systems
            )?;
            for s in self.systems.iter().filter(|s| s.batch == b.batch) {
                writeln!(f, "    {:<24} {:>10.3?}", s.system, s.run)?;
            }
        }
        writeln!(f, "  settle    {:>10.3?}", self.settle)?;
        writeln!(f, "  commands  {:>10.3?}", self.commands)
    }
}

/// Many runs' [`RunProfile`]s added up, for a mean profile: one tick's profile moves with
/// whatever else the machine did in those few milliseconds (a descheduled thread, a page
/// fault), a mean over a hundred ticks much less.
///
/// A part's mean is its total over every run added, divided by the number of runs — a batch
/// or system that was not due in some of them (strided by `every_ticks`) counts as zero there —
/// so the parts of a mean add up the way one run's do. Batches are kept by index and systems
/// by batch and name, in the order first seen; a mean batch is `parallel` when it was handed to
/// the pool in at least half of the runs it ran in, and its `systems` is the most that were
/// due at once.
///
/// ```
/// # use std::time::Duration;
/// # use rota_schedule::{ProfileSum, RunProfile};
/// let tick = |ms| RunProfile { total: Duration::from_millis(ms), ..RunProfile::default() };
/// let mut sum = ProfileSum::default();
/// assert!(sum.mean().is_none()); // nothing added yet
/// sum.add(&tick(3));
/// sum.add(&tick(5));
/// assert_eq!(sum.runs(), 2);
/// assert_eq!(sum.mean().unwrap().total, Duration::from_millis(4));
/// ```
#[derive(Debug, Default, Clone)]
pub struct ProfileSum {
    runs: u32,
    total: Duration,
    settle: Duration,
    commands: Duration,
    batches: Vec<BatchSum>,
    systems: Vec<SystemProfile>,
}

/// One batch's totals in a [`ProfileSum`].
#[derive(Debug, Clone)]
struct BatchSum {
    batch: usize,
    systems: usize,
    /// Runs in which the batch was due, and in how many of them it was handed to the pool.
    ran: u32,
    parallel: u32,
    run: Duration,
}

impl ProfileSum {
    /// Adds one run's profile.
    pub fn add(&mut self, profile: &RunProfile) {
        self.runs = self.runs.saturating_add(1);
        self.total = self.total.saturating_add(profile.total);
        self.settle = self.settle.saturating_add(profile.settle);
        self.commands = self.commands.saturating_add(profile.commands);
        for b in &profile.batches {
            let at = match self.batches.iter().position(|s| s.batch == b.batch) {
                Some(at) => at,
                None => {
                    self.batches.push(BatchSum {
                        batch: b.batch,
                        systems: 0,
                        ran: 0,
                        parallel: 0,
                        run: Duration::ZERO,
                    });
                    self.batches.len() - 1
                }
            };
            let sum = &mut self.batches[at];
            sum.systems = sum.systems.max(b.systems);
            sum.ran = sum.ran.saturating_add(1);
            sum.parallel = sum.parallel.saturating_add(u32::from(b.parallel));
            sum.run = sum.run.saturating_add(b.run);
        }
        for s in &profile.systems {
            match self
                .systems
                .iter_mut()
                .find(|t| t.batch == s.batch && t.system == s.system)
            {
                Some(t) => t.run = t.run.saturating_add(s.run),
                None => self.systems.push(s.clone()),
            }
        }
    }

    /// How many profiles were added.
    pub fn runs(&self) -> u32 {
        self.runs
    }

    /// The mean profile, or `None` if nothing was added. Batches are listed by index (the
    /// order a run hands them out), each batch's systems in the order first seen.
    pub fn mean(&self) -> Option<RunProfile> {
        let n = self.runs;
        if n == 0 {
            return None;
        }
        let mut batches: Vec<BatchProfile> = self
            .batches
            .iter()
            .map(|b| BatchProfile {
                batch: b.batch,
                systems: b.systems,
                parallel: 2 * u64::from(b.parallel) >= u64::from(b.ran),
                run: b.run / n,
            })
            .collect();
        batches.sort_by_key(|b| b.batch);
        let mut systems: Vec<SystemProfile> = self
            .systems
            .iter()
            .map(|s| SystemProfile {
                system: s.system,
                batch: s.batch,
                run: s.run / n,
            })
            .collect();
        // Stable: within a batch, the order first seen.
        systems.sort_by_key(|s| s.batch);
        Some(RunProfile {
            total: self.total / n,
            settle: self.settle / n,
            commands: self.commands / n,
            batches,
            systems,
        })
    }
}
