//! The rollback proof, in the test suite: the game of `game.rs` under GGRS's
//! `SyncTestSession` (check distance 7) passes on 1 and 2 threads, and the same harness
//! **catches a planted nondeterminism** — a system reading a counter outside the world — so a
//! passing run means something. `examples/rollback.rs` runs the long version.

pub mod game;

use game::{RunConfig, RunError, run_sync_test};

fn config(threads: usize, plant: bool) -> RunConfig {
    RunConfig {
        frames: 60,
        threads,
        check_distance: 7,
        seed: 0x5eed,
        drones: 200,
        plant_nondeterminism: plant,
    }
}

#[test]
fn ggrs_sync_test_finds_no_mismatch_on_one_and_two_threads() {
    let one = run_sync_test(&config(1, false)).unwrap_or_else(|e| panic!("1 thread: {e}"));
    let two = run_sync_test(&config(2, false)).unwrap_or_else(|e| panic!("2 threads: {e}"));
    // GGRS really rolled back: 7 re-simulated frames per frame once past the check distance.
    assert_eq!(one.frames, 60);
    // GGRS rolls back once the current frame passes the check distance: frames 8..60.
    assert_eq!(one.loads, 60 - 8, "{one:?}");
    assert_eq!(one.advances, 60 + 7 * one.loads, "{one:?}");
    assert!(
        one.score != [0, 0],
        "the game should see some action: {one:?}"
    );
    // The thread count changes nothing.
    assert_eq!(one, two);
}

#[test]
fn ggrs_sync_test_catches_a_planted_nondeterminism() {
    match run_sync_test(&config(1, true)) {
        Err(RunError::Mismatch {
            current_frame,
            mismatched_frames,
        }) => {
            assert!(!mismatched_frames.is_empty());
            // Found as soon as GGRS can compare: right after the first check window.
            assert!(current_frame <= 9, "found late, at frame {current_frame}");
        }
        Err(other) => panic!("expected a checksum mismatch, got another error: {other}"),
        Ok(outcome) => panic!("the planted nondeterminism went unnoticed: {outcome:?}"),
    }
}
