//! Unit tests of `tick.rs`.

use super::*;

#[test]
fn newer_is_exclusive_of_since_and_inclusive_of_now() {
    let w = ChangeWindow {
        since: Tick(10),
        now: Tick(20),
    };
    assert!(!w.contains(Tick(10)));
    assert!(w.contains(Tick(11)));
    assert!(w.contains(Tick(20)));
    assert!(!w.contains(Tick(5)));
    assert!(
        !w.contains(Tick(21)),
        "a tick after now is from the far past"
    );
}

#[test]
fn comparisons_survive_the_wrap() {
    let since = Tick(u32::MAX - 5);
    let now = Tick(4);
    let w = ChangeWindow { since, now };
    assert!(w.contains(Tick(u32::MAX)));
    assert!(w.contains(Tick(0)));
    assert!(w.contains(Tick(4)));
    assert!(!w.contains(Tick(u32::MAX - 5)));
    assert!(!w.contains(Tick(u32::MAX - 100)));
}

#[test]
fn clamp_caps_the_age() {
    let now = Tick(5);
    let mut t = Tick(now.0.wrapping_sub(MAX_AGE + 7));
    t.clamp(now);
    assert_eq!(t.age(now), MAX_AGE);
    let mut young = Tick(3);
    young.clamp(now);
    assert_eq!(young, Tick(3));
}
