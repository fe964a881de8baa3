//! Panicking systems: `Schedule::run` unwinds with `SystemPanics`, which names every system of
//! the batch that panicked (in plan order) and keeps each original payload; what survives is
//! exactly what `Schedule::run`'s `# Panics` section says.

use std::panic::{AssertUnwindSafe, catch_unwind, panic_any};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rota::rota_schedule::SystemPanics;
use rota::{Commands, Component, ParallelQuery, Query, Res, Resource, Schedule, World, system};

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Hp(i64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Mana(i64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Gold(i64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Marker;

/// A payload that is not text: it must reach the caller as itself.
#[derive(Debug, PartialEq, Eq)]
struct Fault {
    code: u32,
}

#[derive(Resource, Clone)]
struct Armed(bool);

/// Writes every `Hp`, then panics with a `Fault`.
#[system(reads(Armed), writes(Hp))]
fn hp_then_fault(mut q: Query<&mut Hp>, armed: Res<Armed>) {
    for h in &mut q {
        h.0 += 1;
    }
    if armed.0 {
        panic_any(Fault { code: 7 });
    }
}

/// Records a spawn, then panics with text.
#[system(reads(Armed), writes(Mana, Marker))]
fn mana_then_text(mut q: Query<&mut Mana>, armed: Res<Armed>, mut commands: Commands) {
    for m in &mut q {
        m.0 += 10;
    }
    commands.spawn((Marker,));
    if armed.0 {
        panic!("mana overflow at {}", 3);
    }
}

/// Does not panic; shares the batch with both.
#[system(writes(Gold))]
fn gold(mut q: Query<&mut Gold>) {
    for g in &mut q {
        g.0 += 100;
    }
}

/// Runs after the panicking batch: must not run when it panics.
#[system(writes(Gold), after(hp_then_fault))]
fn later(mut q: Query<&mut Gold>) {
    for g in &mut q {
        g.0 = -1;
    }
}

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Armed(true));
    world.spawn_batch((0..1_000).map(|i| (Hp(i), Mana(i), Gold(i))));
    world
}

fn values(world: &World) -> Vec<(i64, i64, i64)> {
    world
        .query::<(&Hp, &Mana, &Gold)>()
        .map(|(h, m, g)| (h.0, m.0, g.0))
        .collect()
}

#[test]
fn every_panicking_system_is_named_with_its_original_payload() {
    for (threads, inline_below) in [(1, usize::MAX), (4, 0)] {
        let mut schedule = Schedule::builder()
            .add(hp_then_fault)
            .add(mana_then_text)
            .add(gold)
            .add(later)
            .threads(threads)
            .inline_below(inline_below)
            .build()
            .unwrap();
        assert_eq!(
            schedule.batches(),
            [
                vec!["hp_then_fault", "mana_then_text", "gold"],
                vec!["later"]
            ]
        );
        let mut world = world();
        let payload = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)))
            .expect_err("two systems panic");
        let panics = payload
            .downcast::<SystemPanics>()
            .expect("the payload is SystemPanics");
        assert_eq!(panics.systems(), ["hp_then_fault", "mana_then_text"]);
        assert_eq!(
            panics.panics[0].payload.downcast_ref::<Fault>(),
            Some(&Fault { code: 7 }),
            "{threads} threads"
        );
        assert_eq!(panics.panics[0].message(), None);
        assert_eq!(panics.panics[1].message(), Some("mana overflow at 3"));
        assert_eq!(
            panics.to_string(),
            "system `hp_then_fault` panicked with a non-text payload; \
             system `mana_then_text` panicked: mana overflow at 3"
        );
        // The first payload can be re-raised as it was.
        let first = panics.into_first_payload();
        assert_eq!(first.downcast_ref::<Fault>(), Some(&Fault { code: 7 }));

        // What survives: every write of the batch (the panicking systems' writes up to their
        // panic, the batch-mate's); not the batch's commands; not the later batch; not the tick.
        assert_eq!(world.tick(), 0);
        assert_eq!(world.query::<&Marker>().count(), 0);
        assert!(
            values(&world)
                .iter()
                .enumerate()
                .all(|(i, v)| *v == (i as i64 + 1, i as i64 + 10, i as i64 + 100)),
            "{threads} threads"
        );
        world.check_invariants().unwrap();

        // Disarmed, the same schedule runs the whole tick.
        world.resource_mut::<Armed>().unwrap().0 = false;
        let report = schedule.run(&mut world);
        assert_eq!(report.tick, 0);
        assert_eq!(world.tick(), 1);
        assert_eq!(world.query::<&Marker>().count(), 1);
        assert!(values(&world).iter().all(|v| v.2 == -1));
    }
}

#[derive(Resource, Clone)]
struct FaultAt(i64);

#[system(reads(FaultAt), writes(Hp))]
fn faults_in_a_chunk(mut q: Query<&mut Hp>, at: Res<FaultAt>) {
    let at = at.0;
    q.par_for_each(|h| {
        if h.0 == at {
            panic_any(Fault { code: 99 });
        }
    });
}

#[test]
fn a_panic_inside_par_for_each_keeps_its_payload() {
    for threads in [1, 2, 4] {
        let mut schedule = Schedule::builder()
            .add(faults_in_a_chunk)
            .threads(threads)
            .build()
            .unwrap();
        let mut world = World::new();
        world.insert_resource(FaultAt(4_321));
        world.spawn_batch((0..5_000).map(|i| (Hp(i),)));
        let payload = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)))
            .expect_err("a chunk panics");
        let panics = payload.downcast::<SystemPanics>().unwrap();
        assert_eq!(panics.systems(), ["faults_in_a_chunk"]);
        assert_eq!(
            panics.panics[0].payload.downcast_ref::<Fault>(),
            Some(&Fault { code: 99 }),
            "{threads} threads"
        );
        world.check_invariants().unwrap();
    }
}

#[derive(Resource, Clone)]
struct Missing(u32);

#[system(reads(Missing))]
fn needs_missing(missing: Res<Missing>) {
    let _ = missing.0;
}

/// rota's own panic inside a system already names the system; the schedule's report says the
/// name once, not "system `x` panicked: system `x` reads ...".
#[test]
fn a_missing_resource_names_the_system_once() {
    let mut schedule = Schedule::builder()
        .add(needs_missing)
        .threads(1)
        .build()
        .unwrap();
    let mut world = World::new();
    let payload =
        catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).expect_err("no resource");
    let panics = payload.downcast::<SystemPanics>().unwrap();
    let text = panics.to_string();
    assert_eq!(panics.systems(), ["needs_missing"]);
    assert_eq!(text.matches("needs_missing").count(), 1, "{text}");
    assert!(
        text.starts_with("system `needs_missing` reads resource `"),
        "{text}"
    );
    assert!(text.contains("Missing"), "{text}");
}

/// What `faults_on_a_worker` saw: items in all, whether a worker panicked, and items whose call
/// began after that.
#[derive(Resource, Default)]
#[resource(no_snapshot)] // atomics are not Clone; this test never snapshots
struct AfterPanic {
    seen: AtomicUsize,
    panicked: AtomicBool,
    after: AtomicUsize,
}

/// Panics on the first item a pool worker (not the thread that walks) runs.
#[system(reads(AfterPanic), writes(Hp))]
fn faults_on_a_worker(mut q: Query<&mut Hp>, log: Res<AfterPanic>) {
    q.par_for_each(|h| {
        log.seen.fetch_add(1, Ordering::SeqCst);
        if log.panicked.load(Ordering::SeqCst) {
            log.after.fetch_add(1, Ordering::SeqCst);
        }
        let on_worker = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with("rota-worker"));
        if on_worker && !log.panicked.swap(true, Ordering::SeqCst) {
            panic_any(Fault { code: 7 });
        }
        h.0 += 1;
    });
}

/// A panic on a helper thread stops the walk: the tasks already running finish (at most one per
/// thread, each at most `8 * PAR_CHUNK` items), and no other starts — the walking thread does not
/// go on alone through the rest of the 200,000 items. (If no worker ever ran a task, nothing
/// panicked and there is nothing to check: the walker then did everything itself.)
#[test]
fn a_panic_on_a_helper_stops_the_walk() {
    // The default hook prints the panic (with a backtrace when RUST_BACKTRACE is set), which
    // takes milliseconds, and the walk rightly goes on until the panic unwinds into rota's
    // frames; so this test's own panic is not printed. Other panics still are.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<Fault>() != Some(&Fault { code: 7 }) {
                previous(info);
            }
        }));
    });
    for threads in [2, 4] {
        let mut schedule = Schedule::builder()
            .add(faults_on_a_worker)
            .threads(threads)
            .build()
            .unwrap();
        let mut world = World::new();
        world.insert_resource(AfterPanic::default());
        world.spawn_batch((0..200_000).map(|i| (Hp(i),)));
        let outcome = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
        let log = world.resource::<AfterPanic>().unwrap();
        if !log.panicked.load(Ordering::SeqCst) {
            assert!(
                outcome.is_ok(),
                "{threads} threads: no worker ran, nothing panicked"
            );
            continue;
        }
        let panics = outcome
            .expect_err("a worker panicked")
            .downcast::<SystemPanics>()
            .unwrap();
        assert_eq!(
            panics.panics[0].payload.downcast_ref::<Fault>(),
            Some(&Fault { code: 7 }),
            "{threads} threads"
        );
        // What may still run: the task each other thread had started (at most 8 chunks), plus
        // whatever the walker does while the panic unwinds into rota's frames. Without the stop
        // the walker goes on alone to the end (186k–199k items began after the panic when this
        // was written). Half the walk leaves a margin no descheduled thread can use up.
        let after = log.after.load(Ordering::SeqCst);
        assert!(
            after < 100_000,
            "{threads} threads: {after} items began after the panic, {} seen",
            log.seen.load(Ordering::SeqCst)
        );
        world.check_invariants().unwrap();
    }
}
