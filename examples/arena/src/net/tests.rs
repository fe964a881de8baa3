//! The link model's determinism: the same seed drops and delays the same packets.

use super::*;

const BAD: LinkConditions = LinkConditions {
    latency: Duration::from_millis(40),
    jitter: Duration::from_millis(20),
    loss: 0.05,
};

fn fates(seed: u64, n: usize) -> Vec<Fate> {
    let mut link = LinkModel::new(BAD, seed);
    (0..n).map(|_| link.next_fate()).collect()
}

#[test]
fn the_same_seed_drops_and_delays_the_same_packets() {
    assert_eq!(fates(7, 2000), fates(7, 2000));
}

#[test]
fn another_seed_drops_other_packets() {
    assert_ne!(fates(7, 2000), fates(8, 2000));
}

#[test]
fn the_drop_rate_and_delays_follow_the_conditions() {
    let all = fates(42, 10_000);
    let dropped = all.iter().filter(|f| **f == Fate::Dropped).count();
    assert!((300..700).contains(&dropped), "{dropped} of 10000 dropped");
    for fate in all {
        if let Fate::Delayed(d) = fate {
            assert!(d >= BAD.latency && d <= BAD.latency + BAD.jitter, "{d:?}");
        }
    }
}

#[test]
fn a_perfect_link_sends_everything_at_once() {
    let mut link = LinkModel::new(LinkConditions::PERFECT, 1);
    assert!((0..1000).all(|_| link.next_fate() == Fate::Delayed(Duration::ZERO)));
}
