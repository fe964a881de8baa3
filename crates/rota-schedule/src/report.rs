//! [`RunReport`]: what one [`crate::Schedule::run`] did, and [`RunProfile`]: how long it took.

use std::time::Duration;

use rota_core::ApplyReport;

/// What one [`crate::Schedule::run`] did, and where its time went.
///
/// Equality compares what the run did (`tick`, `ran`, `commands`), not the `profile`: wall-clock
/// time differs between any two runs, while everything else is the same on any thread count.
#[derive(Debug, Default, Clone)]
pub struct RunReport {
    /// The tick that ran (the world's tick before `run` advanced it).
    pub tick: u64,
    /// Systems that ran, in plan order ([`crate::Schedule::order`]; strided systems skip some
    /// ticks).
    pub ran: Vec<&'static str>,
    /// What applying the systems' commands did.
    pub commands: ApplyReport,
    /// Wall-clock durations of the run's parts.
    pub profile: RunProfile,
}

impl PartialEq for RunReport {
    fn eq(&self, other: &Self) -> bool {
        self.tick == other.tick && self.ran == other.ran && self.commands == other.commands
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
