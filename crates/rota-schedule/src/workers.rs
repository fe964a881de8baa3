//! Which threads a running system may use: the schedule's own, named by a thread-local that the
//! executor sets around every system it runs and [`crate::ParallelQuery`] reads.
//!
//! Why a thread-local: `par_for_each` is called from inside a system body, which only sees its
//! query, yet it must use the schedule's threads (`threads(N)` means N everywhere a schedule
//! runs code) and never rayon's global pool. On the schedule's own worker threads rayon's free
//! functions would find the right pool, but the calling thread runs systems too and belongs to
//! no pool, so the pool is handed over explicitly.
//!
//! Also here: how the threads meet at the ends of a parallel section (a parallel batch, a
//! parallel settle, a `par_for_each` or `par_map_segments` walk). A pool thread that finishes
//! its part **lingers** ([`linger_after_job`]): it stays awake a short while, running any new
//! job at once, so the next section a few hundred microseconds later does not have to wake it.
//! The calling thread, done with its own part, **waits awake** for the pool threads still
//! running theirs ([`Helpers::wait_awake`]) instead of sleeping in rayon's scope wait. Both are
//! bounded, and timing only ever decides which thread runs a job, never what runs.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The threads of the schedule running the current system.
#[derive(Clone)]
pub(crate) enum Workers {
    /// `threads(1)`: no pool; everything runs on the calling thread.
    Calling,
    /// `threads(N)`, N > 1: the calling thread plus this pool's N - 1 workers.
    Pool(Arc<rayon::ThreadPool>),
}

thread_local! {
    static CURRENT: RefCell<Option<Workers>> = const { RefCell::new(None) };
}

/// Restores the previous value when dropped, so a panicking system (or a system nested inside
/// another thread's wait, which rayon's work stealing allows) leaves the thread as it found it.
struct Restore(Option<Workers>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with_borrow_mut(|c| *c = previous);
    }
}

impl Workers {
    /// Runs `f` with `self` as the current thread's workers.
    pub(crate) fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        let previous = CURRENT.with_borrow_mut(|c| c.replace(self.clone()));
        let _restore = Restore(previous);
        f()
    }

    /// The workers of the schedule whose system is running on this thread; `None` outside a
    /// schedule (e.g. `World::run`).
    pub(crate) fn current() -> Option<Workers> {
        CURRENT.with_borrow(Clone::clone)
    }
}

/// How long a pool thread stays awake, taking any new job at once, after its part of a
/// parallel section ends (see [`linger_after_job`]).
const LINGER: Duration = Duration::from_micros(300);

/// How long the calling thread waits awake, at the end of a parallel section, for the pool
/// threads still running their part (see [`Helpers::wait_awake`]).
const WAIT_AWAKE: Duration = Duration::from_micros(100);

thread_local! {
    /// Set while this pool thread runs its linger job (so a job it takes meanwhile does not
    /// queue a second one inside the first).
    static LINGERING: Cell<bool> = const { Cell::new(false) };
}

/// Called by a pool thread when its part of a parallel section ends: queues a job on this
/// thread that keeps it awake for [`LINGER`] after its last job, running any job that arrives
/// meanwhile (`rayon::yield_now`) instead of going to sleep.
///
/// Why: on the 2-core VM this was measured on, waking a sleeping rayon worker took 57–78 µs
/// from the spawn to the job's start (a throw-away counter in `par.rs`; 5–6 µs with this
/// linger), and a tick of the ecosystem demo opens a dozen parallel sections — each
/// `par_for_each`, `par_map_segments`, parallel batch and parallel settle is one — a few
/// hundred microseconds apart. Without the linger every one of them started with the calling
/// thread alone. Bounded, so an idle schedule gives its cores back within [`LINGER`]; between
/// jobs the thread also offers its core to the OS (`std::thread::yield_now`: `rayon::yield_now`
/// alone only runs a pending rayon job), so a pool with more threads than cores lets the
/// working threads run. It is still a busy loop on an idle core. Timing decides only which
/// thread runs a job, never what runs: results are unchanged. Measured: `docs/benchmarks.md`,
/// "Workers that stay awake between parallel sections".
pub(crate) fn linger_after_job() {
    let Some(home) = rayon::current_thread_index() else {
        return; // not a pool thread
    };
    // Only at the bottom of a pool thread's stack: a job that ran nested inside a system's wait
    // (a system on this thread walking its query) must not keep that system from going on, and
    // one linger at a time.
    if Workers::current().is_some() || LINGERING.get() {
        return;
    }
    rayon::spawn(move || {
        if rayon::current_thread_index() != Some(home) || LINGERING.get() {
            return; // stolen by another thread, or run nested in another linger
        }
        LINGERING.set(true);
        let mut last_job = Instant::now();
        loop {
            match rayon::yield_now() {
                Some(rayon::Yield::Executed) => last_job = Instant::now(),
                _ if last_job.elapsed() > LINGER => break,
                // `rayon::yield_now` only runs a pending rayon job: offer the core to the OS
                // too, so a pool with more threads than cores lets the working ones run.
                _ => std::thread::yield_now(),
            }
        }
        LINGERING.set(false);
    });
}

/// The pool threads a parallel section handed work to, counted so that the calling thread can
/// wait for them awake at the end of the section: otherwise it sleeps in rayon's scope wait and
/// must be woken when the last one finishes (tens of microseconds here, see
/// [`linger_after_job`]).
pub(crate) struct Helpers {
    running: AtomicUsize,
    /// Whether a helper's thread lingers when done: on a schedule's own pool, not on rayon's
    /// global pool (which a `par_for_each` outside a schedule uses, and which is the
    /// application's to keep busy or idle).
    linger: bool,
}

impl Helpers {
    /// No helper yet, on a schedule's pool (`linger`) or on rayon's global pool.
    pub(crate) const fn new(linger: bool) -> Helpers {
        Helpers {
            running: AtomicUsize::new(0),
            linger,
        }
    }

    /// Counts one more helper; call before spawning it.
    pub(crate) fn start(&self) {
        self.running.fetch_add(1, Ordering::AcqRel);
    }

    /// Runs a helper's part: `f`, then the helper is no longer counted (also if `f` panics)
    /// and, on a schedule's pool, its thread lingers.
    pub(crate) fn run(&self, f: impl FnOnce()) {
        struct Done<'a>(&'a AtomicUsize);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::AcqRel);
            }
        }
        let done = Done(&self.running);
        f();
        drop(done);
        if self.linger {
            linger_after_job();
        }
    }

    /// The common shape of a parallel section: `helpers` helpers on `scope`, each running
    /// `part` (which takes work until none is left), the calling thread running it too, then
    /// waiting awake for the helpers.
    pub(crate) fn share<'scope>(
        &'scope self,
        scope: &rayon::Scope<'scope>,
        helpers: usize,
        part: &'scope (dyn Fn() + Sync),
    ) {
        for _ in 0..helpers {
            self.start();
            scope.spawn(move |_| self.run(part));
        }
        part();
        self.wait_awake();
    }

    /// On the calling thread, once its own part is done: waits, awake (yielding to the OS) for
    /// at most [`WAIT_AWAKE`], until no helper is running. Past the bound it returns anyway and
    /// the scope's own wait (which sleeps) takes over, so a descheduled helper costs a bounded
    /// wait and never a deadlock. On a pool thread it returns at once (see the body).
    pub(crate) fn wait_awake(&self) {
        // On a pool thread (a system of a parallel batch walking its query), the helpers may
        // be queued on this very thread, or the other threads busy: spinning would only hold
        // them up. Rayon's own wait there runs pending jobs and never sleeps first.
        if rayon::current_thread_index().is_some() || self.running.load(Ordering::Acquire) == 0 {
            return;
        }
        let start = Instant::now();
        while self.running.load(Ordering::Acquire) > 0 && start.elapsed() <= WAIT_AWAKE {
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests;
