use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{Helpers, linger_after_job};

/// Every helper is counted from `start` until its part returns, whichever thread runs it; once
/// all have run, none is counted and the calling thread's wait returns at once.
#[test]
fn helpers_are_counted_until_their_part_returns() {
    for helpers in [1, 2, 4] {
        let running = Helpers::new(false);
        let parts = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..helpers {
                running.start();
                s.spawn(|| {
                    running.run(|| {
                        // Still counted while its part runs.
                        assert!(running.running.load(Ordering::SeqCst) >= 1);
                        parts.fetch_add(1, Ordering::SeqCst);
                    });
                });
            }
            running.wait_awake();
        });
        assert_eq!(parts.load(Ordering::SeqCst), helpers);
        assert_eq!(running.running.load(Ordering::SeqCst), 0);
        running.wait_awake();
    }
}

/// A helper whose part panics is no longer counted (the panic goes on to the caller).
#[test]
fn a_helper_that_panics_is_no_longer_counted() {
    let running = Helpers::new(false);
    running.start();
    let result = catch_unwind(AssertUnwindSafe(|| running.run(|| panic!("part failed"))));
    assert!(result.is_err());
    assert_eq!(running.running.load(Ordering::SeqCst), 0);
}

/// The wait is bounded: a helper that never runs (a pool that has not got to it) does not keep
/// the calling thread waiting, so a parallel section cannot deadlock on it.
#[test]
fn the_wait_ends_even_if_a_helper_never_runs() {
    let running = Helpers::new(false);
    running.start();
    running.wait_awake();
    assert_eq!(running.running.load(Ordering::SeqCst), 1);
}

/// A lingering pool thread still runs the jobs it is given (it takes them from inside its
/// linger), never lingers twice at once, and a pool whose thread lingers can be dropped.
#[test]
fn a_lingering_pool_thread_runs_new_jobs_and_the_pool_can_be_dropped() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let ran = AtomicUsize::new(0);
    for _ in 0..100 {
        pool.in_place_scope(|scope| {
            scope.spawn(|_| {
                ran.fetch_add(1, Ordering::SeqCst);
                // Outside any linger on the first round; inside one afterwards (a no-op then).
                linger_after_job();
            });
        });
    }
    assert_eq!(ran.load(Ordering::SeqCst), 100);
    // Called from a thread outside any pool: nothing to keep awake.
    linger_after_job();
    drop(pool);
}
