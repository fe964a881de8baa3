//! Which threads a running system may use: the schedule's own, named by a thread-local that the
//! executor sets around every system it runs and [`crate::ParallelQuery`] reads.
//!
//! Why a thread-local: `par_for_each` is called from inside a system body, which only sees its
//! query, yet it must use the schedule's threads (`threads(N)` means N everywhere a schedule
//! runs code) and never rayon's global pool. On the schedule's own worker threads rayon's free
//! functions would find the right pool, but the calling thread runs systems too and belongs to
//! no pool, so the pool is handed over explicitly.

use std::cell::RefCell;
use std::sync::Arc;

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
