//! Errors refusing a schedule, each naming the systems at fault.

use std::error::Error as _;
use std::sync::Arc;

use crate::panic::SystemPanics;

/// Why a schedule could not be built.
///
/// `Debug` prints the same text as `Display` followed by the chain of sources, so that
/// `fn main() -> Result<(), ScheduleError>` shows a sentence rather than a struct dump.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// `after` constraints form a cycle; the systems are listed in cycle order, the first
    /// repeated at the end.
    #[error("`after` constraints form a cycle: {}", .systems.join(" -> "))]
    Cycle {
        /// The systems on the cycle, in order, the first repeated last.
        systems: Vec<&'static str>,
    },
    /// A system is constrained to run after one that is not in the schedule.
    #[error("system `{system}` runs after `{after}`, which is not in the schedule")]
    UnknownAfter {
        /// The constrained system.
        system: &'static str,
        /// The missing system.
        after: &'static str,
    },
    /// A builder call names a system that was never added.
    #[error("system `{system}` is named by `{call}` but was never added to the schedule")]
    UnknownSystem {
        /// The missing system.
        system: &'static str,
        /// The builder call naming it (`"after"`, `"every_ticks"`).
        call: &'static str,
    },
    /// The same system was added twice.
    #[error("system `{system}` was added twice")]
    DuplicateSystem {
        /// The system.
        system: &'static str,
    },
    /// A stride of zero ticks.
    #[error("system `{system}` has `every_ticks = 0`; strides are at least one tick")]
    ZeroStride {
        /// The system.
        system: &'static str,
    },
    /// A system's parameters access a generic component (or resource) twice and one access
    /// writes it. Keyed types are refused at compile time; generic ones, which have no `const`
    /// identity, are refused here, before anything runs.
    #[error(
        "system `{system}`: its parameters access `{component}` twice and one access writes it; a `&mut` would alias"
    )]
    AliasingParameters {
        /// The system.
        system: &'static str,
        /// The type accessed twice.
        component: &'static str,
    },
    /// A worker count of zero.
    #[error("a schedule needs at least one thread; 0 were requested")]
    ZeroThreads,
    /// The schedule's thread pool could not be started.
    #[error("could not start the schedule's pool of {workers} worker thread(s)")]
    ThreadPool {
        /// Worker threads requested (`threads - 1`: the calling thread is the other one).
        workers: usize,
        /// Why rayon refused.
        #[source]
        source: ThreadPoolError,
    },
}

impl std::fmt::Debug for ScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")?;
        let mut source = self.source();
        while let Some(s) = source {
            write!(f, ": {s}")?;
            source = s.source();
        }
        Ok(())
    }
}

/// rayon's reason for refusing to start a pool, shared so [`ScheduleError`] stays `Clone`.
/// Two are equal when their messages are (rayon's error has no `PartialEq`).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{0}")]
pub struct ThreadPoolError(Arc<rayon::ThreadPoolBuildError>);

impl From<rayon::ThreadPoolBuildError> for ThreadPoolError {
    fn from(e: rayon::ThreadPoolBuildError) -> Self {
        ThreadPoolError(Arc::new(e))
    }
}

impl PartialEq for ThreadPoolError {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for ThreadPoolError {}

/// Why [`Schedule::run_or_restore`](crate::Schedule::run_or_restore) did not complete a tick.
/// Either way the world is as it was before the call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TickError {
    /// The world could not be snapshotted before the tick, so nothing ran.
    #[error("the tick did not run: the world cannot be snapshotted: {0}")]
    Snapshot(#[from] rota_core::SnapshotError),
    /// Systems panicked; the world was restored to its state before the tick.
    #[error("the tick was rolled back: {0}")]
    Panicked(SystemPanics),
}

#[cfg(test)]
mod tests;
