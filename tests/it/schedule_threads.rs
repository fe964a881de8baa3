//! Which threads a schedule runs code on, and `par_for_each`'s chunking: `threads(1)` runs every
//! system and every chunk on the calling thread; `threads(N)` uses at most N threads, all of
//! them the caller or the schedule's own workers (never rayon's global pool); chunk boundaries
//! are multiples of `PAR_CHUNK` and the same on any thread count.

use std::sync::Mutex;
use std::thread::{self, ThreadId};

use rota::rota_schedule::{PAR_CHUNK, ParChunk};
use rota::{Component, Entity, ParallelQuery, Query, Res, Resource, Schedule, World, system};

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Pos(i64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Vel(i64);

/// Where code ran: `(what, thread id, thread name)`.
#[derive(Resource, Default)]
#[resource(no_snapshot)] // a Mutex is not Clone; these tests never snapshot
struct Seen(Mutex<Vec<(&'static str, ThreadId, Option<String>)>>);

impl Seen {
    fn record(&self, what: &'static str) {
        let t = thread::current();
        self.0
            .lock()
            .unwrap()
            .push((what, t.id(), t.name().map(str::to_owned)));
    }
}

#[system(reads(Seen), writes(Pos))]
fn walk_pos(mut q: Query<&mut Pos>, seen: Res<Seen>) {
    seen.record("walk_pos");
    q.par_for_each_chunk(|chunk| {
        seen.record("walk_pos chunk");
        for p in chunk {
            p.0 += 1;
        }
    });
}

#[system(reads(Seen), writes(Vel))]
fn walk_vel(mut q: Query<&mut Vel>, seen: Res<Seen>) {
    seen.record("walk_vel");
    q.par_for_each(|v| {
        if v.0 % PAR_CHUNK as i64 == 0 {
            seen.record("walk_vel item");
        }
        v.0 += 1;
    });
}

#[system(reads(Seen, Pos), after(walk_pos))]
fn read_pos(q: Query<&Pos>, seen: Res<Seen>) {
    seen.record("read_pos");
    assert!(q.iter().count() > 0);
}

fn world(n: i64) -> World {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    world.spawn_batch((0..n).map(|i| (Pos(i), Vel(i))));
    world
}

fn schedule(threads: usize) -> Schedule {
    Schedule::builder()
        .add(walk_pos)
        .add(walk_vel)
        .add(read_pos)
        .threads(threads)
        .inline_below(0)
        .build()
        .unwrap()
}

#[test]
fn one_thread_runs_every_system_and_every_chunk_on_the_calling_thread() {
    let mut schedule = schedule(1);
    assert_eq!(
        schedule.batches(),
        [vec!["walk_pos", "walk_vel"], vec!["read_pos"]]
    );
    let mut world = world(5_000);
    for _ in 0..2 {
        schedule.run(&mut world);
    }
    let seen = world
        .remove_resource::<Seen>()
        .unwrap()
        .0
        .into_inner()
        .unwrap();
    let me = thread::current().id();
    let chunks = 5_000usize.div_ceil(PAR_CHUNK);
    let count = |what: &str| seen.iter().filter(|s| s.0 == what).count();
    assert_eq!(count("walk_pos"), 2);
    assert_eq!(count("walk_vel"), 2);
    assert_eq!(count("read_pos"), 2);
    assert_eq!(count("walk_pos chunk"), 2 * chunks);
    assert!(count("walk_vel item") > 0);
    for (what, id, name) in &seen {
        assert_eq!(*id, me, "`{what}` ran on thread {name:?}, not the caller");
    }
}

#[test]
fn n_threads_means_the_caller_and_the_schedules_own_workers() {
    for threads in [2, 3] {
        let mut schedule = schedule(threads);
        let mut world = world(20_000);
        for _ in 0..3 {
            schedule.run(&mut world);
        }
        let seen = world
            .remove_resource::<Seen>()
            .unwrap()
            .0
            .into_inner()
            .unwrap();
        let me = thread::current().id();
        let mut ids: Vec<ThreadId> = Vec::new();
        for (what, id, name) in &seen {
            let ours = *id == me
                || name
                    .as_deref()
                    .is_some_and(|n| n.starts_with("rota-worker-"));
            assert!(
                ours,
                "`{what}` ran on a thread that is not the schedule's: {name:?}"
            );
            if !ids.contains(id) {
                ids.push(*id);
            }
        }
        assert!(
            ids.len() <= threads,
            "{} threads ran code for threads({threads})",
            ids.len()
        );
    }
}

/// The chunks of one `par_for_each_chunk` walk: `(index, start, entities)`, sorted by index.
#[derive(Resource, Default)]
#[resource(no_snapshot)] // a Mutex is not Clone; these tests never snapshot
struct Chunks(Mutex<Vec<(usize, usize, Vec<Entity>)>>);

#[system(reads(Chunks, Vel), writes(Pos))]
fn record_chunks(mut q: Query<(Entity, &mut Pos, &Vel)>, chunks: Res<Chunks>) {
    q.par_for_each_chunk(|chunk: ParChunk<'_, (Entity, &mut Pos, &Vel)>| {
        let (index, start) = (chunk.index(), chunk.start());
        let entities: Vec<Entity> = chunk
            .map(|(e, p, v)| {
                p.0 = p.0.wrapping_mul(3) + v.0;
                e
            })
            .collect();
        chunks.0.lock().unwrap().push((index, start, entities));
    });
}

/// A world whose query walk is not a multiple of any thread count's share: 2,501 of 5,000
/// entities have `Vel`, so `len / threads` would give chunks of 2501, 1250, 625 items.
fn chunk_world() -> World {
    let mut world = World::new();
    world.insert_resource(Chunks::default());
    for i in 0..5_000i64 {
        let e = world.spawn_with((Pos(i),));
        if i % 2 == 0 {
            world.insert(e, Vel(i)).unwrap();
        }
    }
    world
}

#[test]
fn chunk_boundaries_are_multiples_of_par_chunk_on_any_thread_count() {
    let walk: Vec<Entity> = chunk_world()
        .query::<(Entity, &Vel)>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(walk.len(), 2_500);
    let mut by_threads = Vec::new();
    for threads in [1, 2, 4] {
        let mut schedule = Schedule::builder()
            .add(record_chunks)
            .threads(threads)
            .build()
            .unwrap();
        let mut world = chunk_world();
        schedule.run(&mut world);
        let mut chunks = world
            .remove_resource::<Chunks>()
            .unwrap()
            .0
            .into_inner()
            .unwrap();
        chunks.sort_by_key(|c| c.0);
        // Chunk k is exactly the walk's items k * PAR_CHUNK .., full except the last.
        assert_eq!(
            chunks.len(),
            walk.len().div_ceil(PAR_CHUNK),
            "{threads} threads"
        );
        for (k, (index, start, entities)) in chunks.iter().enumerate() {
            assert_eq!(*index, k);
            assert_eq!(*start, k * PAR_CHUNK);
            let end = (start + PAR_CHUNK).min(walk.len());
            assert_eq!(
                entities[..],
                walk[*start..end],
                "{threads} threads, chunk {k}"
            );
        }
        let positions: Vec<i64> = world.query::<&Pos>().map(|p| p.0).collect();
        by_threads.push((chunks, positions));
    }
    assert_eq!(by_threads[0], by_threads[1]);
    assert_eq!(by_threads[0], by_threads[2]);
}

/// A per-chunk reduction whose result depends on the chunk boundaries (a float sum, rounded
/// per chunk), combined in chunk order: the same on any thread count.
#[derive(Resource, Default)]
#[resource(no_snapshot)] // a Mutex is not Clone; these tests never snapshot
struct Partial(Mutex<Vec<(usize, f32)>>);

#[system(reads(Pos, Partial))]
fn partial_sums(mut q: Query<&Pos>, partial: Res<Partial>) {
    q.par_for_each_chunk(|chunk| {
        let index = chunk.index();
        let sum: f32 = chunk.map(|p| 1.0 / (1.0 + p.0 as f32)).sum();
        partial.0.lock().unwrap().push((index, sum));
    });
}

#[test]
fn per_chunk_reductions_are_the_same_on_any_thread_count() {
    let total = |threads: usize| {
        let mut schedule = Schedule::builder()
            .add(partial_sums)
            .threads(threads)
            .build()
            .unwrap();
        let mut world = World::new();
        world.insert_resource(Partial::default());
        world.spawn_batch((0..10_000).map(|i| (Pos(i),)));
        schedule.run(&mut world);
        let mut parts = world
            .remove_resource::<Partial>()
            .unwrap()
            .0
            .into_inner()
            .unwrap();
        parts.sort_by_key(|p| p.0);
        assert_eq!(parts.len(), 10_000usize.div_ceil(PAR_CHUNK));
        parts
            .iter()
            .map(|p| p.1)
            .fold(0.0f32, |a, b| a + b)
            .to_bits()
    };
    let one = total(1);
    assert_eq!(total(2), one);
    assert_eq!(total(4), one);
}

#[test]
fn par_for_each_outside_a_schedule_visits_every_match_once() {
    #[system(writes(Pos))]
    fn bump_all(mut q: Query<&mut Pos>) {
        q.par_for_each(|p| p.0 += 1);
    }
    let mut world = World::new();
    world.spawn_batch((0..3_000).map(|i| (Pos(i),)));
    let _ = world.run(bump_all);
    assert!(
        world
            .query::<&Pos>()
            .enumerate()
            .all(|(i, p)| p.0 == i as i64 + 1)
    );
}

// A batch with more systems than threads: the ones left after each thread's first are pulled
// by whichever thread is free. `hold` (the worker's fixed job) waits until `late_a` and
// `late_b` have run; with a fixed hand-out they would queue behind it on the worker.

#[system(reads(Seen))]
fn lead(seen: Res<Seen>) {
    seen.record("lead");
}

#[system(reads(Seen))]
fn hold(seen: Res<Seen>) {
    // Bounded, so a regression fails the test instead of hanging it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let late_ran = || {
        let seen = seen.0.lock().unwrap();
        seen.iter()
            .filter(|(what, ..)| what.starts_with("late"))
            .count()
            == 2
    };
    while !late_ran() {
        if std::time::Instant::now() > deadline {
            seen.record("hold gave up");
            return;
        }
        thread::yield_now();
    }
    seen.record("hold");
}

#[system(reads(Seen))]
fn late_a(seen: Res<Seen>) {
    seen.record("late_a");
}

#[system(reads(Seen))]
fn late_b(seen: Res<Seen>) {
    seen.record("late_b");
}

#[test]
fn systems_beyond_one_per_thread_go_to_whichever_thread_is_free() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let mut schedule = Schedule::builder()
        .add(lead)
        .add(hold)
        .add(late_a)
        .add(late_b)
        .threads(2)
        .inline_below(0)
        .build()
        .unwrap();
    assert_eq!(schedule.batches().len(), 1, "{}", schedule.describe());
    let report = schedule.run(&mut world);
    assert_eq!(report.ran.len(), 4);
    assert!(report.profile.batches[0].parallel);
    let seen = world.resource::<Seen>().unwrap().0.lock().unwrap().clone();
    let thread_of = |what: &str| {
        seen.iter()
            .find(|(w, ..)| *w == what)
            .map(|(_, id, _)| *id)
            .unwrap_or_else(|| panic!("{what} did not run: {seen:?}"))
    };
    // `hold` saw both late systems run (it records "hold gave up" otherwise).
    thread_of("hold");
    assert_ne!(thread_of("lead"), thread_of("hold"));
    // The worker was held, so the calling thread (which ran `lead`) pulled both.
    assert_eq!(thread_of("late_a"), thread_of("lead"));
    assert_eq!(thread_of("late_b"), thread_of("lead"));
}
