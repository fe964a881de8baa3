//! Unit tests of `membership.rs`.

use super::*;

#[test]
fn crossing_64_stores_keeps_every_bit() {
    let mut m = Membership::default();
    m.ensure_stores(3);
    m.set(5, 2);
    m.set(0, 0);
    m.ensure_stores(65);
    m.set(5, 64);
    assert!(m.contains(5, 2) && m.contains(0, 0) && m.contains(5, 64));
    assert!(!m.contains(5, 0) && !m.contains(6, 2));
    let mut seen = Vec::new();
    m.take(5, |s| seen.push(s));
    assert_eq!(seen, [2, 64]);
    assert!(!m.contains(5, 2) && !m.contains(5, 64) && m.contains(0, 0));
}

#[test]
fn clear_of_an_unseen_slot_is_a_no_op() {
    let mut m = Membership::default();
    m.ensure_stores(1);
    m.clear(100, 0);
    assert_eq!(m.slot_rows_for_tests(), 0);
}
