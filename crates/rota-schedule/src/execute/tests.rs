use std::sync::atomic::{AtomicUsize, Ordering};

use super::Rendezvous;

/// Every party returns once all have arrived, whichever thread arrives last.
#[test]
fn a_rendezvous_releases_every_party_once_all_arrived() {
    for parties in [1, 2, 4] {
        let rendezvous = Rendezvous::new(parties);
        let returned = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..parties {
                s.spawn(|| {
                    rendezvous.arrive_and_wait();
                    returned.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        assert_eq!(returned.load(Ordering::SeqCst), parties);
        assert_eq!(rendezvous.pending.load(Ordering::SeqCst), 0);
    }
}

/// The wait is bounded: a party whose partner never arrives (as when a pool runs a batch's jobs
/// one after another on one thread) still returns, so the batch cannot deadlock.
#[test]
fn a_rendezvous_wait_ends_even_if_a_party_never_arrives() {
    let rendezvous = Rendezvous::new(2);
    rendezvous.arrive_and_wait();
    assert_eq!(rendezvous.pending.load(Ordering::SeqCst), 1);
    // The late party arrives afterwards and does not wait at all.
    rendezvous.arrive_and_wait();
    assert_eq!(rendezvous.pending.load(Ordering::SeqCst), 0);
}
