//! `ScheduleError`'s `Debug` (what `fn main() -> Result<(), ScheduleError>` prints) and the
//! thread-pool variant's source.

use std::error::Error as _;

use super::{ScheduleError, ThreadPoolError};

#[test]
fn debug_prints_the_display_text() {
    let errors = [
        ScheduleError::Cycle {
            systems: vec!["a", "b", "a"],
        },
        ScheduleError::UnknownAfter {
            system: "a",
            after: "b",
        },
        ScheduleError::UnknownSystem {
            system: "a",
            call: "every_ticks",
        },
        ScheduleError::DuplicateSystem { system: "a" },
        ScheduleError::ZeroStride { system: "a" },
        ScheduleError::ZeroThreads,
    ];
    for e in errors {
        assert_eq!(format!("{e:?}"), format!("{e}"));
    }
    assert_eq!(
        format!("{:?}", ScheduleError::ZeroThreads),
        "a schedule needs at least one thread; 0 were requested"
    );
}

#[test]
fn the_thread_pool_error_keeps_rayons_error_as_its_source() {
    // A second `build_global` always fails, whoever built the global pool first.
    let _ = rayon::ThreadPoolBuilder::new().build_global();
    let rayon_error = rayon::ThreadPoolBuilder::new()
        .build_global()
        .expect_err("the global pool exists");
    let rayon_text = rayon_error.to_string();
    let e = ScheduleError::ThreadPool {
        workers: 3,
        source: ThreadPoolError::from(rayon_error),
    };
    assert_eq!(
        e.to_string(),
        "could not start the schedule's pool of 3 worker thread(s)"
    );
    assert_eq!(e.source().map(|s| s.to_string()), Some(rayon_text.clone()));
    // Debug: the sentence, then the chain of causes.
    assert_eq!(
        format!("{e:?}"),
        format!("could not start the schedule's pool of 3 worker thread(s): {rayon_text}")
    );
    assert_eq!(e.clone(), e);
}
