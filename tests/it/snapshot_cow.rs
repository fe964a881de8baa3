//! Copy-on-write snapshots: a snapshot shares the world's columns, so every path that writes a
//! column must copy it first. Each test writes through one mutation path, after a snapshot and
//! again after a restore, and checks that the snapshot still hashes as it did when taken (a
//! missing copy would let the write show through), that the world did change, and that a
//! restore brings the snapshotted state back.
//!
//! Paths: `get_mut`; a `&mut T` query as a `for` loop, `for_each`, `for_each_run` and, in a
//! schedule, `par_for_each`; `insert` (new and replacing), `remove`, `despawn`,
//! `despawn_batch`, `spawn`, `spawn_batch`, commands, `settle`, a writing system run by
//! `World::run`. (The change clock's periodic clamp, which
//! also writes tick columns, is covered by a unit test in `rota-core`'s `store/tests.rs`.)
//!
//! `a_write_copies_only_while_a_snapshot_holds_the_column` counts the clones: a write copies a
//! shared column only while a snapshot still holds it (added for a survivor of the second
//! mutation run).

use rota::rota_core::snapshot::SharedColumns;
use rota::{Component, Entity, ParallelQuery, Query, Schedule, StableHash, World, system};

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
struct Pos(i64);

#[derive(Component, StableHash, Clone, Copy, Debug, PartialEq)]
struct Vel(i64);

/// Heap-owning: the copy must clone the strings.
#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Label(String);

/// 300 entities (several `PAR_CHUNK`s), every third without `Vel`, every fifth labelled.
fn world() -> World {
    let mut world = World::new();
    for i in 0..300 {
        let e = world.spawn_with((Pos(i),));
        if i % 3 != 0 {
            world.insert(e, Vel(i % 7 - 3)).unwrap();
        }
        if i % 5 == 0 {
            world.insert(e, Label(format!("e{i}"))).unwrap();
        }
    }
    world
}

fn nth(world: &World, n: usize) -> Entity {
    world.entities().iter().nth(n).unwrap()
}

/// Writes through one path, first on a world just snapshotted, then on the world restored
/// from that snapshot; after each write the snapshot must be unchanged and the world not.
fn check(path: &str, write: impl Fn(&mut World)) {
    let mut world = world();
    let snapshot = world.snapshot().unwrap();
    let taken = snapshot.world().full_checksum().unwrap();
    assert_eq!(world.full_checksum().unwrap(), taken);
    for round in [
        "after the snapshot",
        "after a restore",
        "after a second restore",
    ] {
        write(&mut world);
        world.check_invariants().unwrap();
        snapshot.world().check_invariants().unwrap();
        assert_eq!(
            snapshot.world().full_checksum().unwrap(),
            taken,
            "{path} {round}: the write showed in the snapshot"
        );
        assert_ne!(
            world.full_checksum().unwrap(),
            taken,
            "{path} {round}: the write did not happen"
        );
        world.restore(&snapshot);
        assert_eq!(
            world.full_checksum().unwrap(),
            taken,
            "{path} {round}: restore"
        );
    }
    // A snapshot of a snapshot (`Snapshot::clone` shares too) is just as immutable.
    let copy = snapshot.clone();
    write(&mut world);
    assert_eq!(
        copy.world().full_checksum().unwrap(),
        taken,
        "{path}: clone"
    );
    assert_eq!(
        snapshot.world().full_checksum().unwrap(),
        taken,
        "{path}: original"
    );
}

#[test]
fn get_mut() {
    check("get_mut", |w| {
        let e = nth(w, 4);
        w.get_mut::<Pos>(e).unwrap().0 += 100;
        let e = nth(w, 5);
        w.get_mut::<Label>(e).unwrap().0.push('!');
    });
}

#[test]
fn query_for_loop() {
    check("query for loop", |w| {
        for (p, v) in w.query_mut::<(&mut Pos, &Vel)>() {
            p.0 += v.0 + 1;
        }
    });
}

#[test]
fn query_for_each() {
    check("query for_each", |w| {
        w.query_mut::<&mut Label>().for_each(|l| l.0.push('x'));
    });
}

#[test]
fn query_for_each_run() {
    check("query for_each_run", |w| {
        w.query_mut::<(&mut Vel, &Pos)>()
            .for_each_run(|_, (vel, pos)| {
                for (v, p) in vel.iter_mut().zip(pos) {
                    v.0 = v.0 * 2 + p.0;
                }
            });
    });
}

#[system(reads(Vel), writes(Pos))]
fn par_step(mut q: Query<(&mut Pos, &Vel)>) {
    q.par_for_each(|(p, v)| p.0 = p.0.wrapping_mul(31).wrapping_add(v.0));
}

#[test]
fn par_for_each_in_a_schedule() {
    for threads in [1, 2] {
        let schedule = std::cell::RefCell::new(
            Schedule::builder()
                .add(par_step)
                .threads(threads)
                .build()
                .unwrap(),
        );
        check("par_for_each", |w| {
            schedule.borrow_mut().run(w);
        });
    }
}

#[system(writes(Vel))]
fn halve(mut q: Query<&mut Vel>) {
    for v in &mut q {
        v.0 /= 2;
        v.0 += 1;
    }
}

#[test]
fn world_run_writing_system() {
    check("World::run", |w| {
        assert!(w.run(halve).is_clean());
    });
}

#[test]
fn insert_new_and_replacing() {
    check("insert (new)", |w| {
        let e = nth(w, 3); // no Vel
        w.insert(e, Vel(9)).unwrap();
    });
    check("insert (replacing)", |w| {
        let e = nth(w, 10);
        w.insert(e, Label("replaced".into())).unwrap();
    });
}

#[test]
fn remove() {
    check("remove", |w| {
        let e = nth(w, 1);
        w.remove::<Vel>(e).unwrap().unwrap();
    });
}

#[test]
fn despawn_and_despawn_batch() {
    check("despawn", |w| w.despawn(nth(w, 0)).unwrap());
    check("despawn_batch", |w| {
        let es: Vec<Entity> = w.entities().iter().step_by(2).collect();
        assert_eq!(w.despawn_batch(es), 150);
    });
}

#[test]
fn spawn_and_spawn_batch() {
    check("spawn", |w| {
        w.spawn_with((Pos(-1), Vel(-1), Label("new".into())));
    });
    check("spawn_batch", |w| {
        w.spawn_batch((0..50).map(|i| (Pos(i), Vel(i))));
    });
}

#[test]
fn commands() {
    check("commands", |w| {
        let victim = nth(w, 7);
        let target = nth(w, 8);
        let mut commands = w.commands();
        commands.spawn((Pos(5), Label("cmd".into())));
        commands.despawn(victim);
        commands.insert(target, Vel(77));
        let queue = commands.finish();
        assert!(w.apply(queue).is_clean());
    });
}

#[test]
fn settle_after_unordered_removes() {
    // Swap-removes leave the stores unsettled; settling reorders every column in place.
    check("settle", |w| {
        for n in [0, 10, 20] {
            let e = nth(w, n);
            w.remove::<Pos>(e).unwrap();
        }
        w.settle();
    });
}

#[test]
fn settle_a_store_snapshotted_unsettled() {
    // The snapshot shares an unsettled store; the world's settle must copy, not sort the
    // snapshot's columns under it (a snapshot iterates through its sparse pages instead).
    let mut world = world();
    for n in [0, 10, 20] {
        let e = nth(&world, n);
        world.remove::<Pos>(e).unwrap();
    }
    let snapshot = world.snapshot().unwrap();
    let taken = snapshot.world().full_checksum().unwrap();
    let order: Vec<(Entity, i64)> = snapshot
        .world()
        .store::<Pos>()
        .unwrap()
        .iter_unordered()
        .map(|(e, p)| (e, p.0))
        .collect();
    world.settle();
    world.query_mut::<&mut Pos>().for_each(|p| p.0 += 1);
    let after: Vec<(Entity, i64)> = snapshot
        .world()
        .store::<Pos>()
        .unwrap()
        .iter_unordered()
        .map(|(e, p)| (e, p.0))
        .collect();
    assert_eq!(order, after, "the snapshot's dense order moved");
    assert_eq!(snapshot.world().full_checksum().unwrap(), taken);
    world.restore(&snapshot);
    assert_eq!(world.full_checksum().unwrap(), taken);
}

#[test]
fn a_value_write_leaves_the_index_shared_and_other_stores_untouched() {
    // The granularity: writing values copies that store's value half only.
    let mut world = world();
    let snapshot = world.snapshot().unwrap();
    world.query_mut::<&mut Pos>().for_each(|p| p.0 += 1);
    let both = SharedColumns {
        index: true,
        values: true,
    };
    assert_eq!(
        world.shares_columns_with::<Pos>(&snapshot),
        Some(SharedColumns {
            index: true,
            values: false
        }),
        "Pos: index shared, values copied"
    );
    assert_eq!(world.shares_columns_with::<Vel>(&snapshot), Some(both));
    world.restore(&snapshot);
    assert_eq!(world.shares_columns_with::<Pos>(&snapshot), Some(both));
    world.insert(nth(&world, 3), Vel(1)).unwrap();
    assert_eq!(
        world.shares_columns_with::<Vel>(&snapshot),
        Some(SharedColumns {
            index: false,
            values: false
        }),
        "a new Vel copies both halves"
    );
    assert_eq!(world.shares_columns_with::<Label>(&snapshot), Some(both));
}

/// Armed by the tests below that make `Fragile::clone` panic, each holding [`FRAGILE_LOCK`]
/// meanwhile (tests run in parallel; another one must not find it armed).
static FRAGILE_ARMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static FRAGILE_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `write` on `world` with `Fragile::clone` armed, and returns whether it panicked.
fn armed(world: &mut World, write: impl FnOnce(&mut World)) -> bool {
    armed_panic(world, write).is_some()
}

/// [`armed`], returning the message of the panic that came out, if one did.
fn armed_panic(world: &mut World, write: impl FnOnce(&mut World)) -> Option<String> {
    FRAGILE_ARMED.store(true, std::sync::atomic::Ordering::SeqCst);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write(world)));
    FRAGILE_ARMED.store(false, std::sync::atomic::Ordering::SeqCst);
    let payload = caught.err()?;
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()));
    Some(message.unwrap_or_default())
}

/// A component whose `Clone` panics on value 3 while armed.
#[derive(Component, StableHash, Debug, PartialEq)]
struct Fragile(u32);

impl Clone for Fragile {
    fn clone(&self) -> Self {
        if FRAGILE_ARMED.load(std::sync::atomic::Ordering::SeqCst) && self.0 == 3 {
            panic!("Fragile::clone refuses 3");
        }
        Fragile(self.0)
    }
}

/// The first write after a snapshot copies the shared values with the component's `Clone`. If
/// that `Clone` panics, the store must stay whole (still shared, every value readable), the
/// snapshot untouched, and the next write (once `Clone` works) must copy and go through.
#[test]
fn a_panicking_clone_during_a_copy_on_write_leaves_the_store_whole() {
    let _serial = FRAGILE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut world = World::new();
    let es = world.spawn_batch((0..6).map(|i| (Fragile(i),)));
    let snapshot = world.snapshot().unwrap();
    let before = snapshot.world().full_checksum().unwrap();
    FRAGILE_ARMED.store(true, std::sync::atomic::Ordering::SeqCst);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        *world.get_mut::<Fragile>(es[0]).unwrap() = Fragile(100);
    }));
    FRAGILE_ARMED.store(false, std::sync::atomic::Ordering::SeqCst);
    assert!(caught.is_err(), "the copy-on-write ran the panicking Clone");
    world.check_invariants().unwrap();
    let values: Vec<u32> = es
        .iter()
        .map(|&e| world.get::<Fragile>(e).unwrap().0)
        .collect();
    assert_eq!(values, [0, 1, 2, 3, 4, 5]);
    assert_eq!(world.full_checksum().unwrap(), before);
    // Clone works again: the write copies and lands; the snapshot still has the old value.
    *world.get_mut::<Fragile>(es[0]).unwrap() = Fragile(100);
    assert_eq!(world.get::<Fragile>(es[0]), Some(&Fragile(100)));
    world.check_invariants().unwrap();
    snapshot.world().check_invariants().unwrap();
    assert_eq!(snapshot.world().full_checksum().unwrap(), before);
    assert_eq!(snapshot.world().get::<Fragile>(es[0]), Some(&Fragile(0)));
}

/// An insert that would revive a deleted value in place (the index already copied by the
/// delete, or still shared) copies the values first: if that `Clone` panics, the deleted value
/// stays deleted and the world's books agree (found by an adversarial review: the revive used
/// to change the index before the copy).
#[test]
fn a_revive_whose_value_copy_panics_leaves_the_deleted_value_deleted() {
    let _serial = FRAGILE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for delete_before_the_snapshot in [false, true] {
        let mut world = World::new();
        let es = world.spawn_batch((0..6).map(|i| (Fragile(i),)));
        if delete_before_the_snapshot {
            assert_eq!(world.delete::<Fragile>(es[0]), Ok(true));
        }
        let snapshot = world.snapshot().unwrap();
        if !delete_before_the_snapshot {
            assert_eq!(world.delete::<Fragile>(es[0]), Ok(true));
        }
        let panicked = armed(&mut world, |w| {
            w.insert(es[0], Fragile(100)).unwrap();
        });
        assert!(panicked, "the copy-on-write ran the panicking Clone");
        let case = if delete_before_the_snapshot {
            "shared index"
        } else {
            "copied index"
        };
        assert_eq!(world.get::<Fragile>(es[0]), None, "{case}");
        assert!(!world.has::<Fragile>(es[0]), "{case}");
        world.check_invariants().unwrap();
        assert_eq!(world.query::<&Fragile>().count(), 5, "{case}");
        // Clone works again: the insert goes through.
        world.insert(es[0], Fragile(100)).unwrap();
        assert_eq!(world.get::<Fragile>(es[0]), Some(&Fragile(100)), "{case}");
        world.check_invariants().unwrap();
        assert_eq!(
            snapshot.world().get::<Fragile>(es[0]).is_some(),
            !delete_before_the_snapshot
        );
    }
}

/// A batched removal from a store whose values a snapshot shares copies them before it changes
/// the index: if that `Clone` panics, the store is as it was (`Store::remove_many`; found by an
/// adversarial review, which saw the index detached before the copy), driven through
/// `World::despawn_batch`; and since the despawn copies before it frees anything, the world's
/// books agree too: nothing was despawned.
#[test]
fn a_batched_removal_whose_value_copy_panics_leaves_the_store_as_it_was() {
    let _serial = FRAGILE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut world = World::new();
    let es = world.spawn_batch((0..32).map(|i| (Fragile(i), Pos(i64::from(i)))));
    let snapshot = world.snapshot().unwrap();
    let panicked = armed(&mut world, |w| {
        w.despawn_batch(es[10..20].iter().copied());
    });
    assert!(panicked, "the copy-on-write ran the panicking Clone");
    let store = world.store::<Fragile>().unwrap();
    store.check_invariants().unwrap();
    let held = store.len();
    assert_eq!(held, 32);
    assert_eq!(store.iter().count(), held);
    assert_eq!(store.iter_unordered().count(), held);
    assert_eq!(store.iter_unordered().len(), held);
    world.check_invariants().unwrap();
    assert!(es.iter().all(|&e| world.is_alive(e)));
    drop(snapshot);
}

/// Like `Fragile`, with drop glue: a single despawn swap-removes such a value (copying the
/// shared values first), where a value without drop glue is only marked dead (no copy of the
/// values at all). Its `Clone` panics on `"3"` while armed.
#[derive(Component, StableHash, Debug, PartialEq)]
struct FragileName(String);

impl Clone for FragileName {
    fn clone(&self) -> Self {
        if FRAGILE_ARMED.load(std::sync::atomic::Ordering::SeqCst) && self.0 == "3" {
            panic!("FragileName::clone refuses \"3\"");
        }
        FragileName(self.0.clone())
    }
}

/// What an entity of [`despawn_world`] holds, read back.
type Held = (Option<Pos>, Option<Fragile>, Option<FragileName>);

fn held(world: &World, e: Entity) -> Held {
    (
        world.get::<Pos>(e).copied(),
        world.get::<Fragile>(e).cloned(),
        world.get::<FragileName>(e).cloned(),
    )
}

/// 80 entities, every one with a `Pos`: 40 with nothing else, then 20 with a `Fragile` (0 to
/// 19), then 20 with a `FragileName` ("0" to "19"), so either kind of store can be the one whose
/// copy panics, after despawns that copy nothing. With `hierarchy`, every fifth entity is a
/// child of the one before it (a batch then takes the path that detaches first).
fn despawn_world(hierarchy: bool) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let es: Vec<Entity> = (0..80u32)
        .map(|i| {
            let e = world.spawn_with((Pos(i64::from(i)),));
            match i {
                40..60 => drop(world.insert(e, Fragile(i - 40)).unwrap()),
                60.. => drop(world.insert(e, FragileName((i - 60).to_string())).unwrap()),
                _ => {}
            }
            e
        })
        .collect();
    if hierarchy {
        for i in (5..80).step_by(5) {
            world.set_parent(es[i], es[i - 1]).unwrap();
        }
    }
    (world, es)
}

/// How a test despawns the entities of a request.
type Despawn = fn(&mut World, &[Entity]);

/// Every despawn path, on a world whose columns a snapshot shares (taken, or restored), with a
/// component `Clone` that panics in the copy: the despawn copies what it will change before it
/// changes anything, so the world it unwinds out of is whole (`check_invariants`), the entities
/// despawned are a prefix of the request (none for a single or a recursive despawn, whose
/// copies all come first), every other entity is alive with everything it held, and the
/// snapshot is unchanged. Once `Clone` works, the same despawn goes through.
#[test]
fn a_despawn_whose_value_copy_panics_leaves_the_world_whole() {
    let _serial = FRAGILE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let paths: [(&str, Despawn); 5] = [
        // (Once `es[0]` is gone, the retry below finds it dead.)
        ("despawn", |w, es| {
            let _ = w.despawn(es[0]);
        }),
        ("despawn_recursive", |w, es| {
            let _ = w.despawn_recursive(es[0]);
        }),
        ("despawn_batch", |w, es| {
            w.despawn_batch(es.iter().copied());
        }),
        ("commands", |w, es| {
            let mut commands = w.commands();
            for &e in es {
                commands.despawn(e);
            }
            let queue = commands.finish();
            let _ = w.apply(queue);
        }),
        // The caller's iterator panics on its fifth handle (before or after a copy panicked).
        ("despawn_batch, iterator panics", |w, es| {
            w.despawn_batch(es.iter().copied().enumerate().map(|(k, e)| {
                assert!(k < 4, "the caller's iterator panics");
                e
            }));
        }),
    ];
    // Requests, as positions in `despawn_world`: ten with a `Pos` only, then ten whose store's
    // copy panics (`Fragile`'s value 3, `FragileName`'s "3"); and such a store first.
    let requests: [Vec<usize>; 4] = [
        (30..50).collect(),
        (30..40).chain(60..70).collect(),
        (40..50).chain(30..40).collect(),
        (60..70).chain(30..40).collect(),
    ];
    let mut prefixes = std::collections::BTreeSet::new();
    for (path, despawn) in paths {
        for request in &requests {
            for (hierarchy, restored) in [(false, false), (false, true), (true, false)] {
                let case = format!(
                    "{path}, request {request:?}, hierarchy {hierarchy}, restored {restored}"
                );
                let (mut world, es) = despawn_world(hierarchy);
                let snapshot = world.snapshot().unwrap();
                if restored {
                    world.despawn(es[79]).unwrap();
                    world.restore(&snapshot);
                }
                let taken = snapshot.world().full_checksum().unwrap();
                let before: Vec<Held> = es.iter().map(|&e| held(&world, e)).collect();
                let first = request[0];
                let request: Vec<Entity> = request.iter().map(|&k| es[k]).collect();
                let panic = armed_panic(&mut world, |w| despawn(w, &request));
                let panicked = panic.is_some();
                let iterator_panics = path.ends_with("iterator panics");
                if iterator_panics {
                    // The caller's panic goes on, whether or not a copy panicked too.
                    assert_eq!(
                        panic.as_deref(),
                        Some("the caller's iterator panics"),
                        "{case}"
                    );
                }
                world
                    .check_invariants()
                    .unwrap_or_else(|e| panic!("{case}: {e}"));
                assert_eq!(snapshot.world().full_checksum().unwrap(), taken, "{case}");
                let gone: Vec<bool> = request.iter().map(|&e| !world.is_alive(e)).collect();
                let despawned = gone.iter().take_while(|&&g| g).count();
                assert!(
                    gone[despawned..].iter().all(|&g| !g),
                    "{case}: the despawned entities are a prefix of the request: {gone:?}"
                );
                for (k, &e) in es.iter().enumerate() {
                    let expected = if world.is_alive(e) {
                        before[k].clone()
                    } else {
                        (None, None, None)
                    };
                    assert_eq!(held(&world, e), expected, "{case}: entity {k}");
                }
                // A single despawn copies the values of a store with drop glue alone (it marks
                // others dead, which copies the index, no `Clone`); a recursive one and the
                // batches copy every store they remove from.
                let copies = match path {
                    "despawn" => first >= 60,
                    "despawn_recursive" => first >= 40,
                    _ => true,
                };
                assert_eq!(panicked, copies, "{case}");
                if copies && !path.contains("batch") && path != "commands" {
                    assert_eq!(despawned, 0, "{case}");
                    assert_eq!(world.full_checksum().unwrap(), taken, "{case}");
                }
                prefixes.insert((path, despawned));
                // `Clone` works again: the despawn goes through.
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    despawn(&mut world, &request)
                }));
                assert_eq!(caught.is_err(), iterator_panics, "{case}");
                world
                    .check_invariants()
                    .unwrap_or_else(|e| panic!("{case}: {e}"));
                let gone = request.iter().filter(|&&e| !world.is_alive(e)).count();
                let expected = match path {
                    "despawn" | "despawn_recursive" => gone.max(1),
                    _ if iterator_panics => 4,
                    _ => request.len(),
                };
                assert_eq!(gone, expected, "{case}");
                assert!(!world.is_alive(request[0]), "{case}");
                assert_eq!(snapshot.world().full_checksum().unwrap(), taken, "{case}");
            }
        }
    }
    // The cases reach both outcomes of a batch: nothing despawned, and a prefix.
    assert!(prefixes.contains(&("despawn_batch", 0)), "{prefixes:?}");
    assert!(prefixes.contains(&("despawn_batch", 10)), "{prefixes:?}");
    assert!(prefixes.contains(&("commands", 10)), "{prefixes:?}");
    assert!(
        prefixes.contains(&("despawn_batch, iterator panics", 4)),
        "{prefixes:?}"
    );
}

/// Clones of `Counted` values, counted by `Counted::clone` (only
/// `a_write_copies_only_while_a_snapshot_holds_the_column` uses the type).
static COUNTED_CLONES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[derive(Component, StableHash, Debug, PartialEq)]
struct Counted(u32);

impl Clone for Counted {
    fn clone(&self) -> Self {
        COUNTED_CLONES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Counted(self.0)
    }
}

/// The copy in copy-on-write happens only while a snapshot still holds the column: a write
/// with the snapshot alive clones every value of the half once; a write after the snapshot is
/// dropped takes the column back without cloning anything.
#[test]
fn a_write_copies_only_while_a_snapshot_holds_the_column() {
    let clones = || COUNTED_CLONES.load(std::sync::atomic::Ordering::SeqCst);
    let mut world = World::new();
    let es = world.spawn_batch((0..10).map(|i| (Counted(i),)));
    let snapshot = world.snapshot().unwrap();
    let before = clones();
    world.get_mut::<Counted>(es[0]).unwrap().0 = 100;
    assert_eq!(clones() - before, 10, "one clone per value while shared");
    assert_eq!(snapshot.world().get::<Counted>(es[0]), Some(&Counted(0)));
    drop(snapshot);
    let snapshot = world.snapshot().unwrap();
    drop(snapshot);
    let before = clones();
    world.get_mut::<Counted>(es[1]).unwrap().0 = 101;
    assert_eq!(clones(), before, "nothing else holds the column: no clone");
    assert_eq!(world.get::<Counted>(es[0]), Some(&Counted(100)));
    assert_eq!(world.get::<Counted>(es[1]), Some(&Counted(101)));
    world.check_invariants().unwrap();
}
