//! `par_for_each` and `par_for_each_chunk` against an obviously-correct oracle: a `BTreeMap`
//! from slot to the entity's components. The walking thread hands other threads whole runs of
//! the join, cut where a chunk ends (`Piece::split`), so every query shape whose runs are built
//! differently is covered — a merged `Option<&T>`, a cut `Option<&mut T>`, `With`/`Without`,
//! the entity-by-entity walk (no required store) and a change filter — on 1, 2 and 3 threads,
//! over worlds whose stores have gaps, interleavings and unsettled histories.
//!
//! Checked per shape and thread count: chunk `k` holds exactly the oracle's matches
//! `k * PAR_CHUNK ..` in slot order (with the values seen); `par_map_segments`' segment `k`
//! holds exactly the oracle's matches among the slots from the driving store's entity
//! `k * PAR_SEGMENT` to entity `(k + 1) * PAR_SEGMENT` (its shortest required store; one segment
//! if it has none); `par_for_each` sees every match once (over a scattered query too, which it
//! cuts into segments joined on each thread); the writes land on exactly the matches; and what
//! a `&mut` element handed out is stamped changed, nothing else. `QueryIter::segments` is
//! checked at every cut length against the plain walk (`segments_at_any_length_equal_the_walk`).

use std::collections::BTreeMap;
use std::sync::Mutex;

use proptest::prelude::*;
use rota::rota_schedule::{PAR_CHUNK, PAR_SEGMENT};
use rota::{
    Changed, Component, Entity, ParallelQuery, Query, Res, Resource, Schedule, With, Without,
    World, system,
};

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct A(i64);
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct B(i64);
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct C(i64);
/// Rare: a query `With<D>` matches a few entities scattered through `A`'s store.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct D;

/// One match as a closure saw it: the entity and up to two values.
type Seen = (Entity, Option<i64>, Option<i64>);

/// What a run recorded, sorted: `(chunk index, matches)`.
type Chunks = Vec<(usize, Vec<Seen>)>;

/// What the system saw: `(chunk index, matches)` per chunk, or one list for `par_for_each`.
#[derive(Resource, Default)]
#[resource(no_snapshot)] // a Mutex is not Clone; these tests never snapshot
struct Record(Mutex<Vec<(usize, Vec<Seen>)>>);

impl Record {
    fn push(&self, index: usize, seen: Vec<Seen>) {
        self.0.lock().unwrap().push((index, seen));
    }
}

/// What a closure saw of `(e, &mut A, Option<&B>)`, after which it adds 1 to `A`.
fn see_and_bump_a(e: Entity, a: &mut A, b: Option<&B>) -> Seen {
    let seen = (e, Some(a.0), b.map(|b| b.0));
    a.0 += 1;
    seen
}

/// What a closure saw of `(e, &A, Option<&mut B>)`, after which it adds 1 to `B` if any.
fn see_and_bump_b(e: Entity, a: &A, b: Option<&mut B>) -> Seen {
    let seen = (e, Some(a.0), b.as_ref().map(|b| b.0));
    if let Some(b) = b {
        b.0 += 1;
    }
    seen
}

// Each shape twice: per chunk (index and items) and per item.

#[system(reads(B, Record), writes(A))]
fn merged_chunks(mut q: Query<(Entity, &mut A, Option<&B>)>, rec: Res<Record>) {
    q.par_for_each_chunk(|chunk| {
        let index = chunk.index();
        let seen = chunk.map(|(e, a, b)| see_and_bump_a(e, a, b)).collect();
        rec.push(index, seen);
    });
}

#[system(reads(B, Record), writes(A))]
fn merged_items(mut q: Query<(Entity, &mut A, Option<&B>)>, rec: Res<Record>) {
    q.par_for_each(|(e, a, b)| {
        rec.push(0, vec![see_and_bump_a(e, a, b)]);
    });
}

#[system(reads(A, Record), writes(B))]
fn cut_chunks(mut q: Query<(Entity, &A, Option<&mut B>)>, rec: Res<Record>) {
    q.par_for_each_chunk(|chunk| {
        let index = chunk.index();
        let seen = chunk.map(|(e, a, b)| see_and_bump_b(e, a, b)).collect();
        rec.push(index, seen);
    });
}

#[system(reads(A, Record), writes(B))]
fn cut_items(mut q: Query<(Entity, &A, Option<&mut B>)>, rec: Res<Record>) {
    q.par_for_each(|(e, a, b)| {
        rec.push(0, vec![see_and_bump_b(e, a, b)]);
    });
}

#[system(reads(B, C, Record), writes(A))]
fn filtered_chunks(mut q: Query<(Entity, &mut A), (With<B>, Without<C>)>, rec: Res<Record>) {
    q.par_for_each_chunk(|chunk| {
        let index = chunk.index();
        let seen = chunk.map(|(e, a)| see_and_bump_a(e, a, None)).collect();
        rec.push(index, seen);
    });
}

#[system(reads(B, C, Record), writes(A))]
fn filtered_items(mut q: Query<(Entity, &mut A), (With<B>, Without<C>)>, rec: Res<Record>) {
    q.par_for_each(|(e, a)| {
        rec.push(0, vec![see_and_bump_a(e, a, None)]);
    });
}

// A plain join (every element required, no change filter). A tuple: its iterators do not take
// their first run when built (one-element queries do: `a_one_element_query_is_cut_into_segments`
// and `started_queries.rs`).
#[system(reads(Record), writes(A))]
fn plain_chunks(mut q: Query<(Entity, &mut A)>, rec: Res<Record>) {
    q.par_for_each_chunk(|chunk| {
        let index = chunk.index();
        let seen = chunk.map(|(e, a)| see_and_bump_a(e, a, None)).collect();
        rec.push(index, seen);
    });
}

#[system(reads(Record), writes(A))]
fn plain_items(mut q: Query<(Entity, &mut A)>, rec: Res<Record>) {
    q.par_for_each(|(e, a)| {
        rec.push(0, vec![see_and_bump_a(e, a, None)]);
    });
}

#[system(reads(Record), writes(A))]
fn plain_segments(mut q: Query<(Entity, &mut A)>, rec: Res<Record>) {
    q.par_map_segments(|segment| {
        let index = segment.index();
        let seen = segment.map(|(e, a)| see_and_bump_a(e, a, None)).collect();
        rec.push(index, seen);
    });
}

#[system(reads(A, Record))]
fn walked_chunks(mut q: Query<(Entity, Option<&A>)>, rec: Res<Record>) {
    q.par_for_each_chunk(|chunk| {
        let index = chunk.index();
        rec.push(
            index,
            chunk.map(|(e, a)| (e, a.map(|a| a.0), None)).collect(),
        );
    });
}

#[system(reads(A, Record))]
fn walked_items(mut q: Query<(Entity, Option<&A>)>, rec: Res<Record>) {
    q.par_for_each(|(e, a)| rec.push(0, vec![(e, a.map(|a| a.0), None)]));
}

#[system(reads(B, C, Record))]
fn changed_chunks(mut q: Query<(Entity, &C), Changed<B>>, rec: Res<Record>) {
    q.par_for_each_chunk(|chunk| {
        let index = chunk.index();
        rec.push(index, chunk.map(|(e, c)| (e, Some(c.0), None)).collect());
    });
}

#[system(reads(B, C, Record))]
fn changed_items(mut q: Query<(Entity, &C), Changed<B>>, rec: Res<Record>) {
    q.par_for_each(|(e, c)| rec.push(0, vec![(e, Some(c.0), None)]));
}

#[system(reads(B, D, Record), writes(A))]
fn scattered_chunks(mut q: Query<(Entity, &mut A, Option<&B>), With<D>>, rec: Res<Record>) {
    q.par_for_each_chunk(|chunk| {
        let index = chunk.index();
        let seen = chunk.map(|(e, a, b)| see_and_bump_a(e, a, b)).collect();
        rec.push(index, seen);
    });
}

#[system(reads(B, D, Record), writes(A))]
fn scattered_items(mut q: Query<(Entity, &mut A, Option<&B>), With<D>>, rec: Res<Record>) {
    q.par_for_each(|(e, a, b)| {
        rec.push(0, vec![see_and_bump_a(e, a, b)]);
    });
}

// `par_map_segments`, one system per shape: each segment records its index and what it saw.

#[system(reads(B, Record), writes(A))]
fn merged_segments(mut q: Query<(Entity, &mut A, Option<&B>)>, rec: Res<Record>) {
    q.par_map_segments(|segment| {
        let index = segment.index();
        let seen = segment.map(|(e, a, b)| see_and_bump_a(e, a, b)).collect();
        rec.push(index, seen);
    });
}

#[system(reads(A, Record), writes(B))]
fn cut_segments(mut q: Query<(Entity, &A, Option<&mut B>)>, rec: Res<Record>) {
    q.par_map_segments(|segment| {
        let index = segment.index();
        let seen = segment.map(|(e, a, b)| see_and_bump_b(e, a, b)).collect();
        rec.push(index, seen);
    });
}

#[system(reads(B, C, Record), writes(A))]
fn filtered_segments(mut q: Query<(Entity, &mut A), (With<B>, Without<C>)>, rec: Res<Record>) {
    q.par_map_segments(|segment| {
        let index = segment.index();
        let seen = segment.map(|(e, a)| see_and_bump_a(e, a, None)).collect();
        rec.push(index, seen);
    });
}

#[system(reads(A, Record))]
fn walked_segments(mut q: Query<(Entity, Option<&A>)>, rec: Res<Record>) {
    q.par_map_segments(|segment| {
        let index = segment.index();
        rec.push(
            index,
            segment.map(|(e, a)| (e, a.map(|a| a.0), None)).collect(),
        );
    });
}

#[system(reads(B, C, Record))]
fn changed_segments(mut q: Query<(Entity, &C), Changed<B>>, rec: Res<Record>) {
    q.par_map_segments(|segment| {
        let index = segment.index();
        rec.push(index, segment.map(|(e, c)| (e, Some(c.0), None)).collect());
    });
}

#[system(reads(B, D, Record), writes(A))]
fn scattered_segments(mut q: Query<(Entity, &mut A, Option<&B>), With<D>>, rec: Res<Record>) {
    q.par_map_segments(|segment| {
        let index = segment.index();
        let seen = segment.map(|(e, a, b)| see_and_bump_a(e, a, b)).collect();
        rec.push(index, seen);
    });
}

/// The oracle: every live entity by slot, with its components.
#[derive(Default, Clone, Debug)]
struct Model {
    live: BTreeMap<u32, Row>,
}

#[derive(Clone, Copy, Debug)]
struct Row {
    entity: Entity,
    a: Option<i64>,
    b: Option<i64>,
    c: Option<i64>,
    d: bool,
}

#[derive(Clone, Debug)]
enum Op {
    /// Spawn this many entities with A, B, C as bits of the mask.
    Spawn(u8, usize),
    /// Despawn the live entity at this position (modulo the live count).
    Despawn(usize),
    InsertB(usize),
    RemoveB(usize),
    InsertC(usize),
    RemoveC(usize),
    InsertD(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        // Mostly with A, in bursts: thousands of matches, so walks have many chunks and the
        // later tasks hold several.
        8 => ((0u8..8), (1usize..16)).prop_map(|(m, n)| Op::Spawn(m | u8::from(n % 4 != 0), n)),
        2 => any::<usize>().prop_map(Op::Despawn),
        2 => any::<usize>().prop_map(Op::InsertB),
        1 => any::<usize>().prop_map(Op::RemoveB),
        1 => any::<usize>().prop_map(Op::InsertC),
        1 => any::<usize>().prop_map(Op::RemoveC),
        1 => any::<usize>().prop_map(Op::InsertD),
    ]
}

/// Plays `ops` on a fresh world and on the model, checking they agree after every step.
fn build(ops: &[Op]) -> (World, Model) {
    let mut world = World::new();
    world.insert_resource(Record::default());
    let mut model = Model::default();
    let mut value = 0i64;
    let mut next = || {
        value += 1;
        value
    };
    let pick = |model: &Model, k: usize| -> Option<Entity> {
        let n = model.live.len();
        (n > 0).then(|| model.live.values().nth(k % n).unwrap().entity)
    };
    for op in ops {
        match *op {
            Op::Spawn(mask, n) => {
                for _ in 0..n {
                    let e = world.spawn();
                    let row = Row {
                        entity: e,
                        a: (mask & 1 != 0).then(&mut next),
                        b: (mask & 2 != 0).then(&mut next),
                        c: (mask & 4 != 0).then(&mut next),
                        d: false,
                    };
                    if let Some(v) = row.a {
                        world.insert(e, A(v)).unwrap();
                    }
                    if let Some(v) = row.b {
                        world.insert(e, B(v)).unwrap();
                    }
                    if let Some(v) = row.c {
                        world.insert(e, C(v)).unwrap();
                    }
                    model.live.insert(e.slot(), row);
                }
            }
            Op::Despawn(k) => {
                if let Some(e) = pick(&model, k) {
                    world.despawn(e).unwrap();
                    model.live.remove(&e.slot());
                }
            }
            Op::InsertB(k) | Op::InsertC(k) => {
                if let Some(e) = pick(&model, k) {
                    let v = next();
                    let row = model.live.get_mut(&e.slot()).unwrap();
                    if matches!(op, Op::InsertB(_)) {
                        world.insert(e, B(v)).unwrap();
                        row.b = Some(v);
                    } else {
                        world.insert(e, C(v)).unwrap();
                        row.c = Some(v);
                    }
                }
            }
            Op::InsertD(k) => {
                if let Some(e) = pick(&model, k) {
                    world.insert(e, D).unwrap();
                    model.live.get_mut(&e.slot()).unwrap().d = true;
                }
            }
            Op::RemoveB(k) | Op::RemoveC(k) => {
                if let Some(e) = pick(&model, k) {
                    let row = model.live.get_mut(&e.slot()).unwrap();
                    if matches!(op, Op::RemoveB(_)) {
                        world.remove::<B>(e).unwrap();
                        row.b = None;
                    } else {
                        world.remove::<C>(e).unwrap();
                        row.c = None;
                    }
                }
            }
        }
        assert_eq!(world.len(), model.live.len());
    }
    (world, model)
}

/// A query shape: its two systems, what the oracle says it matches and sees, and which
/// component it writes (and so stamps) for a match.
struct Shape {
    name: &'static str,
    chunks: fn(usize) -> Schedule,
    items: fn(usize) -> Schedule,
    segments: fn(usize) -> Schedule,
    matches: fn(&Row) -> Option<Seen>,
    /// The slots of the store that drives the join — the shortest required one, the first
    /// registered on a tie — or `None` if the query has no required store.
    driver: fn(&Model) -> Option<Vec<u32>>,
    writes: Writes,
}

/// The slots of the live entities `has` picks, ascending.
fn slots(model: &Model, has: impl Fn(&Row) -> bool) -> Vec<u32> {
    model
        .live
        .iter()
        .filter(|(_, r)| has(r))
        .map(|(&s, _)| s)
        .collect()
}

/// The shorter of two stores' slots, the first on a tie (how the join picks its driver).
fn shorter(first: Vec<u32>, second: Vec<u32>) -> Vec<u32> {
    if second.len() < first.len() {
        second
    } else {
        first
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Writes {
    Nothing,
    A,
    /// B, where the entity has one.
    B,
}

fn schedule(system: impl rota::IntoSystem, threads: usize) -> Schedule {
    Schedule::builder()
        .add(system)
        .threads(threads)
        .build()
        .unwrap()
}

fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "(Entity, &mut A, Option<&B>)",
            chunks: |t| schedule(merged_chunks, t),
            items: |t| schedule(merged_items, t),
            segments: |t| schedule(merged_segments, t),
            matches: |r| r.a.map(|a| (r.entity, Some(a), r.b)),
            driver: |m| Some(slots(m, |r| r.a.is_some())),
            writes: Writes::A,
        },
        Shape {
            name: "(Entity, &A, Option<&mut B>)",
            chunks: |t| schedule(cut_chunks, t),
            items: |t| schedule(cut_items, t),
            segments: |t| schedule(cut_segments, t),
            matches: |r| r.a.map(|a| (r.entity, Some(a), r.b)),
            driver: |m| Some(slots(m, |r| r.a.is_some())),
            writes: Writes::B,
        },
        Shape {
            name: "(Entity, &mut A), (With<B>, Without<C>)",
            chunks: |t| schedule(filtered_chunks, t),
            items: |t| schedule(filtered_items, t),
            segments: |t| schedule(filtered_segments, t),
            matches: |r| match (r.a, r.b, r.c) {
                (Some(a), Some(_), None) => Some((r.entity, Some(a), None)),
                _ => None,
            },
            driver: |m| {
                Some(shorter(
                    slots(m, |r| r.a.is_some()),
                    slots(m, |r| r.b.is_some()),
                ))
            },
            writes: Writes::A,
        },
        Shape {
            name: "(Entity, &mut A)",
            chunks: |t| schedule(plain_chunks, t),
            items: |t| schedule(plain_items, t),
            segments: |t| schedule(plain_segments, t),
            matches: |r| r.a.map(|a| (r.entity, Some(a), None)),
            driver: |m| Some(slots(m, |r| r.a.is_some())),
            writes: Writes::A,
        },
        Shape {
            name: "(Entity, Option<&A>)",
            chunks: |t| schedule(walked_chunks, t),
            items: |t| schedule(walked_items, t),
            segments: |t| schedule(walked_segments, t),
            matches: |r| Some((r.entity, r.a, None)),
            driver: |_| None,
            writes: Writes::Nothing,
        },
        Shape {
            name: "(Entity, &C), Changed<B>",
            chunks: |t| schedule(changed_chunks, t),
            items: |t| schedule(changed_items, t),
            segments: |t| schedule(changed_segments, t),
            matches: |r| match (r.b, r.c) {
                (Some(_), Some(c)) => Some((r.entity, Some(c), None)),
                _ => None,
            },
            driver: |m| {
                Some(shorter(
                    slots(m, |r| r.c.is_some()),
                    slots(m, |r| r.b.is_some()),
                ))
            },
            writes: Writes::Nothing,
        },
        Shape {
            name: "(Entity, &mut A, Option<&B>), With<D>",
            chunks: |t| schedule(scattered_chunks, t),
            items: |t| schedule(scattered_items, t),
            segments: |t| schedule(scattered_segments, t),
            matches: |r| match (r.a, r.d) {
                (Some(a), true) => Some((r.entity, Some(a), r.b)),
                _ => None,
            },
            driver: |m| Some(shorter(slots(m, |r| r.a.is_some()), slots(m, |r| r.d))),
            writes: Writes::A,
        },
    ]
}

/// Runs `schedule` once over a world built from `ops`; returns what it
/// recorded (sorted by chunk index, then slot), the world after, and the entities that a
/// change filter on A / B sees as changed by the run.
fn run(ops: &[Op], mut schedule: Schedule) -> (Chunks, World, Vec<Entity>, Vec<Entity>) {
    let (mut world, _) = build(ops);
    let since = world.change_checkpoint();
    schedule.run(&mut world);
    let mut recorded = world
        .remove_resource::<Record>()
        .unwrap()
        .0
        .into_inner()
        .unwrap();
    recorded.sort_by_key(|(index, seen)| (*index, seen.first().map(|s| s.0.slot())));
    let changed_a = world.query_since::<Entity, Changed<A>>(since).collect();
    let changed_b = world.query_since::<Entity, Changed<B>>(since).collect();
    (recorded, world, changed_a, changed_b)
}

fn check(ops: &[Op]) {
    let (_, model) = build(ops);
    for shape in shapes() {
        let walk: Vec<Seen> = model.live.values().filter_map(shape.matches).collect();
        let expected_chunks: Chunks = walk
            .chunks(PAR_CHUNK)
            .enumerate()
            .map(|(k, c)| (k, c.to_vec()))
            .collect();
        let written: Vec<Entity> = model
            .live
            .values()
            .filter(|r| (shape.matches)(r).is_some())
            .filter(|r| match shape.writes {
                Writes::Nothing => false,
                Writes::A => true,
                Writes::B => r.b.is_some(),
            })
            .map(|r| r.entity)
            .collect();
        // Segment `k`: the matches from the driver's entity `k * PAR_SEGMENT` on, up to the
        // next cut; one segment without a driver. Every segment is recorded, empty ones too.
        let cuts: Vec<u32> = match (shape.driver)(&model) {
            Some(driver) => driver
                .iter()
                .step_by(PAR_SEGMENT)
                .skip(1)
                .copied()
                .collect(),
            None => Vec::new(),
        };
        let mut expected_segments: Chunks = (0..=cuts.len()).map(|k| (k, Vec::new())).collect();
        for seen in &walk {
            let k = cuts.partition_point(|&cut| cut <= seen.0.slot());
            expected_segments[k].1.push(*seen);
        }
        for threads in [1, 2, 3] {
            let at = format!("{} on {threads} thread(s)", shape.name);
            let (chunks, world, changed_a, changed_b) = run(ops, (shape.chunks)(threads));
            assert_eq!(chunks, expected_chunks, "chunks of {at}");
            let (segments, in_segments, seg_a, seg_b) = run(ops, (shape.segments)(threads));
            assert_eq!(segments, expected_segments, "segments of {at}");
            let (items, after, _, _) = run(ops, (shape.items)(threads));
            let items: Vec<Seen> = items.into_iter().flat_map(|(_, s)| s).collect();
            assert_eq!(items, walk, "items of {at}");
            // Both walks wrote the same, and exactly the matches.
            for (w, what) in [
                (&world, "chunks"),
                (&after, "items"),
                (&in_segments, "segments"),
            ] {
                for row in model.live.values() {
                    let bump = |written: bool| if written { 1 } else { 0 };
                    let hit = written.contains(&row.entity);
                    let a = w.get::<A>(row.entity).map(|a| a.0);
                    let b = w.get::<B>(row.entity).map(|b| b.0);
                    let a_hit = hit && shape.writes == Writes::A;
                    let b_hit = hit && shape.writes == Writes::B;
                    assert_eq!(a, row.a.map(|v| v + bump(a_hit)), "A after {what} of {at}");
                    assert_eq!(b, row.b.map(|v| v + bump(b_hit)), "B after {what} of {at}");
                }
            }
            // What a `&mut` element handed out is stamped, nothing else.
            let (stamped_a, stamped_b) = match shape.writes {
                Writes::Nothing => (vec![], vec![]),
                Writes::A => (written.clone(), vec![]),
                Writes::B => (vec![], written.clone()),
            };
            assert_eq!(changed_a, stamped_a, "Changed<A> after {at}");
            assert_eq!(changed_b, stamped_b, "Changed<B> after {at}");
            assert_eq!(seg_a, stamped_a, "Changed<A> after the segments of {at}");
            assert_eq!(seg_b, stamped_b, "Changed<B> after the segments of {at}");
        }
    }
}

/// Each case runs 30 schedules over up to a few thousand entities (several chunks per walk);
/// walks long enough for tasks of several chunks are `long_runs_are_cut_into_exact_chunks` and
/// `exact_multiples_of_par_chunk`. (Cases of 300..1400 operations took 125 s of a debug build
/// at CI's 256 cases.)
///
/// At most 40 cases, even when `PROPTEST_CASES` asks for more: at CI's 256 this test alone took
/// 84 s, the longest pole of the README's test command (docs/testing.md, "Test time"); 48
/// until a seventh shape (the plain join) made each case a seventh longer. The `proptest!`
/// macro lets `PROPTEST_CASES` override any config, so this property drives its runner itself.
#[test]
fn par_walks_match_the_oracle() {
    let config = ProptestConfig {
        cases: crate::cases(12).min(40),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let result = runner.run(&prop::collection::vec(op(), 120..500), |ops| {
        check(&ops);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// One world large enough that every shape has many chunks and long runs (a few thousand
/// entities, no structural noise but gaps), checked outside proptest's size range.
#[test]
fn long_runs_are_cut_into_exact_chunks() {
    let ops: Vec<Op> = (0..4_000)
        .map(|i| match i % 13 {
            0 => Op::Despawn(i * 7),
            5 => Op::InsertB(i * 3),
            _ => Op::Spawn((i % 8) as u8 | 1, 1),
        })
        .collect();
    check(&ops);
}

/// Walks of exactly `k * PAR_CHUNK` matches (no short last chunk) chunk the same on any thread
/// count. (From the review of the run hand-out.)
#[test]
fn exact_multiples_of_par_chunk() {
    for k in [1usize, 2, 8, 9, 40, 513] {
        let chunks = |threads: usize| {
            let mut world = World::new();
            world.insert_resource(Record::default());
            world.spawn_batch((0..k * PAR_CHUNK).map(|i| (A(i as i64),)));
            schedule(merged_chunks, threads).run(&mut world);
            let mut recorded = world
                .remove_resource::<Record>()
                .unwrap()
                .0
                .into_inner()
                .unwrap();
            recorded.sort_by_key(|(index, _)| *index);
            recorded
        };
        let one = chunks(1);
        assert_eq!(one.len(), k);
        assert!(one.iter().all(|(_, seen)| seen.len() == PAR_CHUNK));
        for threads in [2, 3] {
            assert_eq!(chunks(threads), one, "k = {k}, {threads} threads");
        }
    }
}

/// Cuts every piece of a walk at pseudo-random places (0, the piece's length and past it
/// included); the halves have the lengths asked for and yield the plain walk's items.
fn split_all<'w, Q: rota::query::QueryData>(
    pieces: impl Iterator<Item = rota::query::Piece<'w, Q>>,
    seed: &mut u64,
) -> Vec<Q::Item<'w>> {
    let mut out = Vec::new();
    for piece in pieces {
        let mut rest = piece;
        loop {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (*seed >> 33) as usize % (rest.len() + 2);
            let n = rest.len();
            let (head, tail) = rest.split(at);
            assert_eq!(head.len(), at.min(n));
            assert_eq!(tail.len(), n - at.min(n));
            head.push_into(&mut out);
            if tail.is_empty() {
                break;
            }
            rest = tail;
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(24)))]

    /// `Piece::split` at any place, over every kind of run (merged and cut options, filters,
    /// the entity-by-entity walk), yields exactly the walk. (From the review of the run
    /// hand-out.)
    #[test]
    fn random_splits_equal_the_walk(ops in prop::collection::vec(op(), 100..600), seed in any::<u64>()) {
        let (mut world, _) = build(&ops);
        let mut seed = seed;
        let want: Vec<Seen> = world
            .query::<(Entity, &C, Option<&B>)>()
            .map(|(e, c, b)| (e, Some(c.0), b.map(|b| b.0)))
            .collect();
        // Through `&mut World`: the stores are settled, so the walk is runs.
        let got: Vec<Seen> = split_all(world.query_mut::<(Entity, &C, Option<&B>)>().pieces(), &mut seed)
            .into_iter()
            .map(|(e, c, b)| (e, Some(c.0), b.map(|b| b.0)))
            .collect();
        prop_assert_eq!(got, want);
        let want: Vec<Seen> = world
            .query_filtered::<(Entity, &A, Option<&B>), Without<C>>()
            .map(|(e, a, b)| (e, Some(a.0), b.map(|b| b.0)))
            .collect();
        let got: Vec<Seen> = split_all(
            world.query_filtered_mut::<(Entity, &A, Option<&mut B>), Without<C>>().pieces(),
            &mut seed,
        )
        .into_iter()
        .map(|(e, a, b)| (e, Some(a.0), b.map(|b| b.0)))
        .collect();
        prop_assert_eq!(got, want);
        let want: Vec<Seen> = world.query::<(Entity, Option<&A>)>().map(|(e, a)| (e, a.map(|a| a.0), None)).collect();
        let got: Vec<Seen> = split_all(world.query_mut::<(Entity, Option<&A>)>().pieces(), &mut seed)
            .into_iter()
            .map(|(e, a)| (e, a.map(|a| a.0), None))
            .collect();
        prop_assert_eq!(got, want);
    }
}

/// Cuts `iter` into segments of `per` driving entities and walks them on two threads (odd and
/// even segments), returning each segment's items in segment order; `None` if the query could
/// not be cut.
fn walk_segments<'w, Q, F, T>(
    iter: rota::QueryIter<'w, Q, F>,
    per: usize,
    see: impl Fn(Q::Item<'w>) -> T + Sync,
) -> Option<Vec<Vec<T>>>
where
    Q: rota::query::QueryData,
    F: rota::query::QueryData,
    T: Send,
{
    let segments = iter.segments(|_| per).ok()?;
    let n = segments.len();
    let (mut even, mut odd): (Vec<_>, Vec<_>) = (Vec::new(), Vec::new());
    for (k, segment) in segments.into_iter().enumerate() {
        if k % 2 == 0 {
            even.push((k, segment))
        } else {
            odd.push((k, segment))
        }
    }
    let see = &see;
    let walk = |part: Vec<(usize, rota::QueryIter<'w, Q, F>)>| {
        part.into_iter()
            .map(|(k, segment)| (k, segment.map(see).collect::<Vec<T>>()))
            .collect::<Vec<_>>()
    };
    let (a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| walk(odd));
        (walk(even), other.join().unwrap())
    });
    let mut all: Vec<(usize, Vec<T>)> = a.into_iter().chain(b).collect();
    all.sort_by_key(|(k, _)| *k);
    assert_eq!(all.len(), n);
    Some(all.into_iter().map(|(_, items)| items).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(32)))]

    /// `QueryIter::segments` at any cut length, walked on two threads: the segments' items,
    /// in order, are the plain walk's; each segment's slots lie between its cuts (every `per`
    /// entities of the driving store); the writes land on exactly the matches and are stamped
    /// changed, nothing else; and a query with no required store is not cut.
    #[test]
    fn segments_at_any_length_equal_the_walk(ops in prop::collection::vec(op(), 50..400), per in 1usize..40) {
        let (mut world, model) = build(&ops);
        // Merged option, `&mut`: the walk, the cuts, the writes and their stamps.
        let want: Vec<Seen> = model.live.values().filter_map(|r| r.a.map(|a| (r.entity, Some(a), r.b))).collect();
        let since = world.change_checkpoint();
        let got = walk_segments(world.unstarted_query_mut::<(Entity, &mut A, Option<&B>), ()>(), per, |(e, a, b)| {
            let seen = (e, Some(a.0), b.map(|b| b.0));
            a.0 += 1;
            seen
        })
        .expect("a settled query with a required store is cut");
        let driver = slots(&model, |r| r.a.is_some());
        let cuts: Vec<u32> = driver.iter().step_by(per).skip(1).copied().collect();
        prop_assert_eq!(got.len(), cuts.len() + 1);
        for (k, segment) in got.iter().enumerate() {
            for seen in segment {
                prop_assert_eq!(cuts.partition_point(|&c| c <= seen.0.slot()), k);
            }
        }
        prop_assert_eq!(got.concat(), want.clone());
        for r in model.live.values() {
            prop_assert_eq!(world.get::<A>(r.entity).map(|a| a.0), r.a.map(|a| a + 1));
        }
        let changed: Vec<Entity> = world.query_since::<Entity, Changed<A>>(since).collect();
        let matched: Vec<Entity> = want.iter().map(|s| s.0).collect();
        prop_assert_eq!(changed, matched);
        // Cut option, filters, a scattered intersection, a change filter.
        let want: Vec<Seen> = world
            .query_filtered::<(Entity, &A, Option<&B>), Without<C>>()
            .map(|(e, a, b)| (e, Some(a.0), b.map(|b| b.0)))
            .collect();
        let got = walk_segments(
            world.unstarted_query_mut::<(Entity, &A, Option<&mut B>), Without<C>>(),
            per,
            |(e, a, b)| (e, Some(a.0), b.map(|b| b.0)),
        )
        .expect("cut");
        prop_assert_eq!(got.concat(), want);
        let want: Vec<Entity> = world.query_filtered::<Entity, (With<A>, With<D>)>().collect();
        let got = walk_segments(world.unstarted_query_mut::<Entity, (With<A>, With<D>)>(), per, |e| e)
            .expect("cut");
        prop_assert_eq!(got.concat(), want);
        let want: Vec<(Entity, i64)> = world
            .query_filtered::<(Entity, &C), Changed<A>>()
            .map(|(e, c)| (e, c.0))
            .collect();
        let got = walk_segments(world.unstarted_query_mut::<(Entity, &C), Changed<A>>(), per, |(e, c)| (e, c.0))
            .expect("cut");
        prop_assert_eq!(got.concat(), want);
        // No required store: walked whole, entity by entity.
        prop_assert!(walk_segments(world.unstarted_query_mut::<(Entity, Option<&A>), ()>(), per, |(e, _)| e).is_none());
    }
}

/// What each run of `count_segments` saw: the segments' lengths.
#[derive(Resource, Default)]
#[resource(no_snapshot)]
struct SegmentLengths(Mutex<Vec<Vec<usize>>>);

#[system(reads(B, C, SegmentLengths))]
fn count_segments(mut q: Query<(Entity, &C), Changed<B>>, out: Res<SegmentLengths>) {
    let lengths = q.par_map_segments(|segment| segment.len());
    out.0.lock().unwrap().push(lengths);
}

#[system(reads(SegmentLengths), writes(A))]
fn count_plain_segments(mut q: Query<&mut A>, out: Res<SegmentLengths>) {
    let lengths = q.par_map_segments(|segment| segment.map(|a| a.0 += 1).count());
    out.0.lock().unwrap().push(lengths);
}

/// A query of one plain element takes its first run when its iterator is built (a `for` loop
/// over it is then a plain slice loop); `par_map_segments` must still cut it every
/// `PAR_SEGMENT` entities, on any thread count.
#[test]
fn a_one_element_query_is_cut_into_segments() {
    for threads in [1, 2, 3] {
        let mut world = World::new();
        world.insert_resource(SegmentLengths::default());
        world.spawn_batch((0..10_000).map(|i| (A(i),)));
        schedule(count_plain_segments, threads).run(&mut world);
        let seen = world.remove_resource::<SegmentLengths>().unwrap();
        let seen = seen.0.into_inner().unwrap();
        let full: Vec<usize> = vec![PAR_SEGMENT, PAR_SEGMENT, PAR_SEGMENT, PAR_SEGMENT, 1808];
        assert_eq!(seen, [full], "{threads} thread(s)");
        let values: Vec<i64> = world.query::<&A>().map(|a| a.0).collect();
        assert_eq!(values, (1..10_001).collect::<Vec<_>>());
    }
}

#[system(writes(B))]
fn touch_first_b(mut q: Query<&mut B>) {
    if let Some(b) = q.iter_mut().next() {
        b.0 += 1;
    }
}

/// Segments are cut by the stores and the change window: a `Changed<B>` filter whose store had
/// no change since the system last ran matches nothing and is one empty segment; once one `B`
/// changed, the cuts fall every `PAR_SEGMENT` entities again. (From the review of the segments.)
#[test]
fn a_stale_change_filter_is_one_empty_segment() {
    for threads in [1, 2, 3] {
        let mut world = World::new();
        world.insert_resource(SegmentLengths::default());
        world.spawn_batch((0..10_000).map(|i| (B(i), C(i))));
        let mut counting = schedule(count_segments, threads);
        counting.run(&mut world); // first run: everything is in the window
        counting.run(&mut world); // nothing written since: stale
        schedule(touch_first_b, 1).run(&mut world);
        counting.run(&mut world); // one B changed
        let seen = world.remove_resource::<SegmentLengths>().unwrap();
        let seen = seen.0.into_inner().unwrap();
        let full: Vec<usize> = vec![PAR_SEGMENT, PAR_SEGMENT, PAR_SEGMENT, PAR_SEGMENT, 1808];
        let mut one = vec![0; 5];
        one[0] = 1;
        assert_eq!(seen, [full, vec![0], one], "{threads} thread(s)");
    }
}
