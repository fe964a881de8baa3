//! Runs of commands and `despawn_batch` across the read-ahead's 32-item chunks
//! (`read_ahead.rs`): failures (dead, repeated, forged handles, taken reservations) at every
//! position around the chunk boundaries are reported at their own index and skipped, exactly as
//! the one-call-at-a-time API would; a `despawn_batch` whose iterator panics despawns what it
//! yielded. Written by an adversarial review of the read-ahead (five injected index bugs past
//! the first chunk survived the suite before these tests).

use std::panic::{AssertUnwindSafe, catch_unwind};

use rota::{CommandError, CommandKind, Component, Entity, World};

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct A(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct B(u32);

/// Zero-sized.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Z;

/// Run lengths around the chunk boundaries.
const LENGTHS: [usize; 14] = [1, 2, 3, 31, 32, 33, 34, 63, 64, 65, 66, 96, 97, 130];

#[derive(Clone, Copy, Debug)]
enum Cmd {
    Despawn(Entity),
    InsertA(Entity, u32),
    InsertZ(Entity),
    RemoveA(Entity),
    RemoveZ(Entity),
}

/// A buffer made of one run per kind, each with dead, repeated and forged handles at
/// positions 0, 1, 31, 32, 33, 64 and others; compared with the direct calls.
#[test]
fn run_errors_match_direct_calls_at_chunk_boundaries() {
    for len in LENGTHS {
        for kind in 0..5 {
            for bad_at in [0usize, 1, 2, 30, 31, 32, 33, 63, 64, 65, 96, 129] {
                if bad_at >= len {
                    continue;
                }
                let mut world = World::new();
                let es = world.spawn_batch((0..200).map(|i| (A(i), Z)));
                let dead = world.spawn_with((A(999),));
                world.despawn(dead).unwrap();
                let mut oracle = World::new();
                oracle.spawn_batch((0..200).map(|i| (A(i), Z)));
                let d2 = oracle.spawn_with((A(999),));
                oracle.despawn(d2).unwrap();
                let mut cmds = Vec::new();
                for j in 0..len {
                    let e = if j == bad_at {
                        dead
                    } else if j == bad_at + 1 {
                        Entity::from_bits(u64::MAX - j as u64) // forged
                    } else if j > 0 && j % 33 == 0 {
                        es[(j * 7 - 7) % 200] // repeats an earlier one
                    } else {
                        es[(j * 7) % 200]
                    };
                    cmds.push(match kind {
                        0 => Cmd::Despawn(e),
                        1 => Cmd::InsertA(e, j as u32),
                        2 => Cmd::InsertZ(e),
                        3 => Cmd::RemoveA(e),
                        _ => Cmd::RemoveZ(e),
                    });
                }
                let mut commands = world.commands();
                for &c in &cmds {
                    match c {
                        Cmd::Despawn(e) => commands.despawn(e),
                        Cmd::InsertA(e, v) => commands.insert(e, A(v)),
                        Cmd::InsertZ(e) => commands.insert(e, Z),
                        Cmd::RemoveA(e) => commands.remove::<A>(e),
                        Cmd::RemoveZ(e) => commands.remove::<Z>(e),
                    }
                }
                let report = world.apply(commands.finish());
                let mut applied = 0;
                let mut errors = Vec::new();
                for (index, &c) in cmds.iter().enumerate() {
                    let (result, command, component, entity) = match c {
                        Cmd::Despawn(e) => {
                            (oracle.despawn(e).map(|_| ()), CommandKind::Despawn, None, e)
                        }
                        Cmd::InsertA(e, v) => (
                            oracle.insert(e, A(v)).map(|_| ()),
                            CommandKind::Insert,
                            Some("A"),
                            e,
                        ),
                        Cmd::InsertZ(e) => (
                            oracle.insert(e, Z).map(|_| ()),
                            CommandKind::Insert,
                            Some("Z"),
                            e,
                        ),
                        Cmd::RemoveA(e) => (
                            oracle.remove::<A>(e).map(|_| ()),
                            CommandKind::Remove,
                            Some("A"),
                            e,
                        ),
                        Cmd::RemoveZ(e) => (
                            oracle.remove::<Z>(e).map(|_| ()),
                            CommandKind::Remove,
                            Some("Z"),
                            e,
                        ),
                    };
                    match result {
                        Ok(()) => applied += 1,
                        Err(_) => errors.push(CommandError::EntityNotAlive {
                            index,
                            command,
                            component,
                            entity,
                        }),
                    }
                }
                let ctx = format!("len {len} kind {kind} bad_at {bad_at}");
                assert_eq!(report.applied, applied, "{ctx}");
                assert_eq!(report.errors, errors, "{ctx}");
                world.check_invariants().unwrap();
                let got: Vec<(Entity, A, bool)> = world
                    .query::<(Entity, &A)>()
                    .map(|(e, a)| (e, *a, false))
                    .collect();
                let want: Vec<(Entity, A, bool)> = oracle
                    .query::<(Entity, &A)>()
                    .map(|(e, a)| (e, *a, false))
                    .collect();
                assert_eq!(got, want, "{ctx}");
                let gz: Vec<Entity> = world.query::<(Entity, &Z)>().map(|(e, _)| e).collect();
                let wz: Vec<Entity> = oracle.query::<(Entity, &Z)>().map(|(e, _)| e).collect();
                assert_eq!(gz, wz, "{ctx}");
            }
        }
    }
}

/// A run of spawns whose reservations at given positions were taken (the slot is occupied
/// again by a restore): each is reported at its own index, the rest spawn.
#[test]
fn taken_reservations_in_long_spawn_runs() {
    for len in LENGTHS {
        for taken_at in [
            vec![0usize],
            vec![1],
            vec![31],
            vec![32],
            vec![33],
            vec![64],
            vec![0, 1, 31, 32, 33, 64],
            (0..len).collect(),
            (0..len).filter(|k| k % 2 == 0).collect(),
        ] {
            let taken_at: Vec<usize> = taken_at.into_iter().filter(|&k| k < len).collect();
            if taken_at.is_empty() {
                continue;
            }
            for zst in [false, true] {
                let mut world = World::new();
                let es = world.spawn_batch((0..len as u32 + 10).map(|i| (A(i),)));
                // Free slot 2k+1 for every k < len (so the reservations take those slots in
                // order): the ones to be taken are freed only after the snapshot.
                let mut kill_now = Vec::new();
                let mut kill_later = Vec::new();
                let es2 = world.spawn_batch((0..2 * len as u32).map(|i| (A(100_000 + i),)));
                let all: Vec<Entity> = es.iter().chain(&es2).copied().collect();
                let mut slots: Vec<Entity> = all.clone();
                slots.sort_by_key(|e| e.slot());
                for k in 0..len {
                    let e = slots[2 * k + 1];
                    if taken_at.contains(&k) {
                        kill_later.push(e);
                    } else {
                        kill_now.push(e);
                    }
                }
                world.despawn_batch(kill_now);
                let before = world.snapshot().unwrap();
                world.despawn_batch(kill_later.clone());
                let mut commands = world.commands();
                let reserved: Vec<Entity> = (0..len)
                    .map(|k| {
                        if zst {
                            commands.spawn((A(7000 + k as u32), Z))
                        } else {
                            commands.spawn((A(7000 + k as u32),))
                        }
                    })
                    .collect();
                // Then inserts on every reserved handle: those of taken reservations fail.
                for &r in &reserved {
                    commands.insert(r, B(1));
                }
                let queue = commands.finish();
                world.restore(&before);
                let report = world.apply(queue);
                let mut want = Vec::new();
                for &k in &taken_at {
                    want.push(CommandError::ReservationTaken {
                        index: k,
                        entity: reserved[k],
                    });
                }
                for &k in &taken_at {
                    want.push(CommandError::ReservationFailed {
                        index: len + k,
                        command: CommandKind::Insert,
                        component: Some("B"),
                        entity: reserved[k],
                    });
                }
                let ctx = format!("len {len} taken {taken_at:?} zst {zst}");
                assert_eq!(report.errors, want, "{ctx}");
                assert_eq!(report.applied, 2 * (len - taken_at.len()), "{ctx}");
                for (k, &r) in reserved.iter().enumerate() {
                    if taken_at.contains(&k) {
                        assert!(!world.is_alive(r), "{ctx}");
                        let holder = world.entities().alive_at(r.slot()).expect("restored");
                        assert!(
                            !(7000..8000).contains(&world.get::<A>(holder).unwrap().0),
                            "{ctx}"
                        );
                        assert_eq!(world.get::<B>(holder), None, "{ctx}");
                    } else {
                        assert_eq!(world.get::<A>(r), Some(&A(7000 + k as u32)), "{ctx}");
                        assert_eq!(world.get::<B>(r), Some(&B(1)), "{ctx}");
                        assert_eq!(world.has::<Z>(r), zst, "{ctx}");
                    }
                }
                world.check_invariants().unwrap();
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// despawn_batch with a panicking iterator

/// Panics when dropped if `.0` (unless already unwinding).
#[derive(Component, Clone)]
struct Loud(bool);

impl Drop for Loud {
    fn drop(&mut self) {
        if self.0 && !std::thread::panicking() {
            panic!("Loud drop");
        }
    }
}

/// The iterator panics after `after` items; the handles include repeats, dead and forged
/// ones; every live one yielded before the panic must be despawned whole (no hierarchy), the
/// rest alive, whatever the store kinds (zero-sized, panicking Drop).
#[test]
fn despawn_batch_panicking_iterator_at_chunk_boundaries() {
    for after in [0usize, 1, 2, 31, 32, 33, 34, 63, 64, 65, 96, 100] {
        for loud in [false, true] {
            for gen_ahead in [false, true] {
                let mut world = World::new();
                let es: Vec<Entity> = (0..120u32)
                    .map(|i| {
                        if loud {
                            world.spawn_with((A(i), Z, Loud(i == 5)))
                        } else {
                            world.spawn_with((A(i), Z))
                        }
                    })
                    .collect();
                let dead = world.spawn_with((A(999),));
                world.despawn(dead).unwrap();
                // The yielded handles: mostly distinct live ones, with a repeat every 10, a
                // dead one every 13 and a forged one every 17.
                let handles: Vec<Entity> = (0..120)
                    .map(|k| {
                        if k % 17 == 16 {
                            Entity::from_bits(u64::MAX - k as u64)
                        } else if k % 13 == 12 {
                            dead
                        } else if k % 10 == 9 {
                            es[k - 1]
                        } else {
                            es[k]
                        }
                    })
                    .collect();
                let yielded: Vec<Entity> = handles[..after.min(handles.len())].to_vec();
                let h = handles.clone();
                let result = catch_unwind(AssertUnwindSafe(|| {
                    if gen_ahead {
                        // A non-TrustedLen iterator (filter).
                        world.despawn_batch(h.iter().copied().enumerate().filter(|_| true).map(
                            |(k, e)| {
                                assert!(k < after, "the iterator gives up");
                                e
                            },
                        ))
                    } else {
                        world.despawn_batch(h.iter().copied().enumerate().map(|(k, e)| {
                            assert!(k < after, "the iterator gives up");
                            e
                        }))
                    }
                }));
                let ctx = format!("after {after} loud {loud} gen_ahead {gen_ahead}");
                assert!(result.is_err() || after >= 120, "{ctx}");
                world
                    .check_invariants()
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                for &e in &es {
                    let gone = yielded.contains(&e);
                    assert_eq!(world.is_alive(e), !gone, "{ctx} {e:?}");
                    assert_eq!(world.get::<A>(e).is_some(), !gone, "{ctx} {e:?}");
                    assert_eq!(world.has::<Z>(e), !gone, "{ctx} {e:?}");
                }
                let left = world.query::<&A>().count();
                assert_eq!(
                    left,
                    es.iter().filter(|e| !yielded.contains(e)).count(),
                    "{ctx}"
                );
                // The world goes on: spawns reuse the freed slots cleanly.
                let again = world.spawn_batch((0..40u32).map(|i| (A(500 + i),)));
                for &e in &again {
                    assert!(!world.has::<Z>(e), "{ctx}");
                }
                world
                    .check_invariants()
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                // Entity 5's `Loud` panics when dropped: do not drop what is left.
                std::mem::forget(world);
            }
        }
    }
}

/// The same with a hierarchy in the world (the handles are collected first, to detach them):
/// every live entity the iterator yielded before its panic is despawned whole.
#[test]
fn despawn_batch_panicking_iterator_with_a_hierarchy() {
    for after in [0usize, 1, 31, 32, 33, 64] {
        let mut world = World::new();
        let es = world.spawn_batch((0..100u32).map(|i| (A(i),)));
        world.set_parent(es[50], es[51]).unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            world.despawn_batch(es.iter().copied().enumerate().map(|(k, e)| {
                assert!(k < after, "the iterator gives up");
                e
            }))
        }));
        assert!(result.is_err());
        world.check_invariants().unwrap();
        for (k, &e) in es.iter().enumerate() {
            assert_eq!(world.is_alive(e), k >= after, "after {after}: entity {k}");
        }
    }
}

/// Forged handles with huge slots through every read-ahead path.
#[test]
fn forged_handles_do_not_panic() {
    let mut world = World::new();
    let es = world.spawn_batch((0..70u32).map(|i| (A(i), Z)));
    let forged: Vec<Entity> = [
        u64::MAX,
        u64::MAX - 1,
        (u32::MAX as u64) << 32,
        u32::MAX as u64,
    ]
    .into_iter()
    .map(Entity::from_bits)
    .collect();
    let mut commands = world.commands();
    for _ in 0..40 {
        for &f in &forged {
            commands.despawn(f);
        }
    }
    for &f in forged.iter().cycle().take(70) {
        commands.insert(f, A(1));
    }
    for &f in forged.iter().cycle().take(70) {
        commands.remove::<Z>(f);
    }
    let report = world.apply(commands.finish());
    assert_eq!(report.applied, 0);
    assert_eq!(report.errors.len(), 160 + 140);
    assert_eq!(
        world.despawn_batch(forged.iter().copied().cycle().take(100)),
        0
    );
    assert_eq!(world.len(), es.len());
    world.check_invariants().unwrap();
}
