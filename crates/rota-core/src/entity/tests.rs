//! Unit tests of `entity.rs`.

use super::*;

#[test]
fn entity_is_eight_bytes_and_orders_by_slot() {
    assert_eq!(std::mem::size_of::<Entity>(), 8);
    assert!(Entity::new(1, 9) < Entity::new(2, 0));
    assert!(Entity::new(1, 0) < Entity::new(1, 1));
    assert_eq!(format!("{}", Entity::new(7, 2)), "7v2");
    assert_eq!(format!("{:?}", Entity::new(7, 2)), "7v2");
}

#[test]
fn bits_round_trip() {
    let e = Entity::new(0xDEAD, 0xBEEF);
    assert_eq!(e.to_bits(), 0xBEEF_0000_DEAD);
    assert_eq!(Entity::from_bits(e.to_bits()), e);
}

#[test]
fn reuse_takes_lowest_free_slot_and_bumps_generation() {
    let mut es = Entities::new();
    let v: Vec<_> = (0..5).map(|_| es.spawn().unwrap()).collect();
    es.despawn(v[3]).unwrap();
    es.despawn(v[1]).unwrap();
    es.despawn(v[4]).unwrap();
    let a = es.spawn().unwrap();
    let b = es.spawn().unwrap();
    let c = es.spawn().unwrap();
    assert_eq!((a.slot(), a.generation()), (1, 1));
    assert_eq!((b.slot(), b.generation()), (3, 1));
    assert_eq!((c.slot(), c.generation()), (4, 1));
    assert!(!es.is_alive(v[1]));
    assert!(es.is_alive(a));
    es.check_invariants().unwrap();
}

#[test]
fn double_despawn_is_an_error_and_keeps_the_free_list_sound() {
    let mut es = Entities::new();
    let e = es.spawn().unwrap();
    es.despawn(e).unwrap();
    assert_eq!(es.despawn(e), Err(EntityNotAlive(e)));
    es.check_invariants().unwrap();
    // If the double despawn had pushed slot 0 twice, two spawns would share it.
    let a = es.spawn().unwrap();
    let b = es.spawn().unwrap();
    assert_ne!(a.slot(), b.slot());
    assert_eq!(es.len(), 2);
}

#[test]
fn despawn_of_never_allocated_handle_is_an_error() {
    let mut es = Entities::new();
    let ghost = Entity::new(42, 0);
    assert_eq!(es.despawn(ghost), Err(EntityNotAlive(ghost)));
    assert!(!es.is_alive(ghost));
}

#[test]
fn generation_overflow_retires_the_slot_forever() {
    let mut es = Entities::with_first_generation(u32::MAX - 1);
    let e = es.spawn().unwrap();
    es.despawn(e).unwrap(); // generation MAX-1 -> MAX, slot free
    let e2 = es.spawn().unwrap();
    assert_eq!((e2.slot(), e2.generation()), (0, u32::MAX));
    es.despawn(e2).unwrap(); // would wrap: retired
    assert_eq!(es.retired_count(), 1);
    for _ in 0..3 {
        let f = es.spawn().unwrap();
        assert_ne!(f.slot(), 0, "a retired slot was handed out again");
    }
    assert!(!es.is_alive(e2));
    assert!(
        !es.is_alive(Entity::new(0, 0)),
        "wrapped handle must not be alive"
    );
    es.check_invariants().unwrap();
}

#[test]
fn slot_exhaustion_is_a_typed_error() {
    let mut es = Entities::with_slot_limit(2);
    es.spawn().unwrap();
    let b = es.spawn().unwrap();
    assert_eq!(es.spawn(), Err(SpawnError::SlotsExhausted { limit: 2 }));
    es.despawn(b).unwrap();
    assert_eq!(es.spawn().unwrap().slot(), 1);
}

#[test]
fn foreign_handle_with_same_bits_reports_alive() {
    // The documented limit: handles do not carry their world.
    let mut a = Entities::new();
    let mut b = Entities::new();
    let from_a = a.spawn().unwrap();
    b.spawn().unwrap();
    assert!(b.is_alive(from_a));
}

#[test]
fn iter_is_ascending_and_exact() {
    let mut es = Entities::new();
    let v: Vec<_> = (0..6).map(|_| es.spawn().unwrap()).collect();
    es.despawn(v[0]).unwrap();
    es.despawn(v[4]).unwrap();
    let it = es.iter();
    assert_eq!(it.len(), 4);
    assert_eq!(it.collect::<Vec<_>>(), vec![v[1], v[2], v[3], v[5]]);
}

#[test]
fn free_slots_find_the_lowest_at_or_above_across_words_and_groups() {
    let mut f = FreeSlots::default();
    for slot in [5000, 3, 64, 70, 4095, 4096] {
        assert!(f.insert(slot));
    }
    assert!(!f.insert(70));
    assert_eq!(f.first_from(0), Some(3));
    assert_eq!(f.first_from(4), Some(64));
    assert_eq!(f.first_from(71), Some(4095));
    assert_eq!(f.first_from(4097), Some(5000));
    assert_eq!(f.first_from(5001), None);
    assert_eq!(f.iter().collect::<Vec<_>>(), [3, 64, 70, 4095, 4096, 5000]);
    assert!(f.remove(64) && !f.remove(64) && !f.remove(1_000_000));
    assert_eq!(f.first_from(4), Some(70));
    assert_eq!(f.pop_first(), Some(3));
    assert!(f.remove(70) && f.remove(4095) && f.remove(4096));
    assert_eq!(f.first_from(0), Some(5000));
    assert_eq!(f.pop_first(), Some(5000));
    assert_eq!(f.pop_first(), None);
}

#[test]
fn invariant_checker_catches_a_corrupted_free_set() {
    let mut es = Entities::new();
    let e = es.spawn().unwrap();
    es.spawn().unwrap();
    es.despawn(e).unwrap();
    es.free.insert(1); // slot 1 is alive
    assert!(es.check_invariants().unwrap_err().contains("state Alive"));
    es.free.clear();
    assert!(es.check_invariants().unwrap_err().contains("missing"));
}

#[test]
fn reservations_take_free_slots_ascending_then_fresh_ones() {
    let mut es = Entities::new();
    let v: Vec<_> = (0..4).map(|_| es.spawn().unwrap()).collect();
    es.despawn(v[2]).unwrap();
    es.despawn(v[0]).unwrap();
    let mut cursor = ReserveCursor::default();
    let r: Vec<_> = (0..3).map(|_| es.reserve(&mut cursor).unwrap()).collect();
    assert_eq!(
        r,
        vec![Entity::new(0, 1), Entity::new(2, 1), Entity::new(4, 0)]
    );
    assert!(
        !es.is_alive(r[0]),
        "a reservation is not alive until applied"
    );
    for &e in &r {
        es.spawn_reserved(e).unwrap();
    }
    assert!(r.iter().all(|&e| es.is_alive(e)));
    es.check_invariants().unwrap();
}

#[test]
fn applying_a_reservation_twice_or_out_of_order_is_refused() {
    let mut es = Entities::new();
    let mut cursor = ReserveCursor::default();
    let a = es.reserve(&mut cursor).unwrap();
    let b = es.reserve(&mut cursor).unwrap();
    assert_eq!(es.spawn_reserved(b), Err(EntityNotAlive(b)));
    es.spawn_reserved(a).unwrap();
    assert_eq!(es.spawn_reserved(a), Err(EntityNotAlive(a)));
    es.check_invariants().unwrap();
}
