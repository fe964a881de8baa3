//! Plain queries take their first run when their iterator is built (`QueryIter::STARTS`:
//! `&T`, `&mut T`, `Entity`, `With` filters and tuples of them), so that a `for` loop over a
//! query of one run is a loop over that run alone (a tuple's advancing every element before
//! testing any, `QueryData::next_in_last`). Against an oracle (`world.get` of
//! every live entity in slot order) over random worlds, and against the same walk of an
//! iterator that has not started (`World::unstarted_query_mut`): the items, the run partition
//! of `for_each_run`, and what `&mut A` stamped changed (exactly what was handed out), for
//! fifteen ways to walk — `break`, `take`, `for_each`, runs, a partial walk then runs or
//! `for_each` or `pieces`, `nth`, `count`, `last`, a panicking body, a drop, `next` after the
//! end, `skip`/`step_by`. Then `par_for_each`, `par_for_each_chunk`, `par_map_segments` and a
//! plain loop over such queries in systems, on 1, 2 and 3 threads. (From the review of the
//! started iterators; it found no bug.)

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

use proptest::prelude::*;
use rota::{
    Changed, Component, Entity, ParallelQuery, Query, Res, Resource, Schedule, With, World, system,
};

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct A(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct B(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct C(u32);

#[derive(Clone, Debug)]
enum Op {
    Spawn(u8),
    Insert(usize, u8),
    Remove(usize, u8),
    Despawn(usize),
    Settle,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => any::<u8>().prop_map(Op::Spawn),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(i, m)| Op::Insert(i, m)),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(i, m)| Op::Remove(i, m)),
        1 => any::<usize>().prop_map(Op::Despawn),
        1 => Just(Op::Settle),
    ]
}

fn insert_mask(world: &mut World, e: Entity, mask: u8, value: u32) {
    if mask & 1 != 0 {
        world.insert(e, A(value)).unwrap();
    }
    if mask & 2 != 0 {
        world.insert(e, B(value)).unwrap();
    }
    if mask & 4 != 0 {
        world.insert(e, C(value)).unwrap();
    }
}

fn build(ops: &[Op]) -> World {
    let mut world = World::new();
    let mut alive: Vec<Entity> = Vec::new();
    for (n, op) in ops.iter().enumerate() {
        let n = n as u32 + 1;
        match *op {
            Op::Spawn(mask) => {
                let e = world.spawn();
                insert_mask(&mut world, e, mask, n);
                alive.push(e);
            }
            Op::Insert(i, mask) if !alive.is_empty() => {
                let e = alive[i % alive.len()];
                insert_mask(&mut world, e, mask, n);
            }
            Op::Remove(i, mask) if !alive.is_empty() => {
                let e = alive[i % alive.len()];
                if mask & 1 != 0 {
                    world.remove::<A>(e).unwrap();
                }
                if mask & 2 != 0 {
                    world.remove::<B>(e).unwrap();
                }
                if mask & 4 != 0 {
                    world.remove::<C>(e).unwrap();
                }
            }
            Op::Despawn(i) if !alive.is_empty() => {
                let e = alive.swap_remove(i % alive.len());
                world.despawn(e).unwrap();
            }
            Op::Settle => {
                let _ = world.query_mut::<(&mut A, &mut B, &mut C)>().count();
            }
            _ => {}
        }
    }
    world
}

/// A live entity and its A, B and C values.
type Row = (Entity, Option<u32>, Option<u32>, Option<u32>);

/// Live entities in slot order (oracle), with (A, B, C).
fn oracle(world: &World) -> Vec<Row> {
    let mut rows: BTreeMap<u32, Row> = BTreeMap::new();
    for e in world.query::<Entity>() {
        rows.insert(
            e.slot(),
            (
                e,
                world.get::<A>(e).map(|a| a.0),
                world.get::<B>(e).map(|b| b.0),
                world.get::<C>(e).map(|c| c.0),
            ),
        );
    }
    rows.into_values().collect()
}

#[derive(Clone, Copy, Debug)]
enum Walk {
    ForBreak,
    Take,
    ForEach,
    Runs,
    TakeThenRuns,
    TakeThenForEach,
    Nth,
    Count,
    Last,
    PanicFor,
    Drop,
    TakeThenPieces,
    NextAfterEnd,
    NthThenNext,
    Chunks,
}

fn walk() -> impl Strategy<Value = Walk> {
    prop_oneof![
        Just(Walk::ForBreak),
        Just(Walk::Take),
        Just(Walk::ForEach),
        Just(Walk::Runs),
        Just(Walk::TakeThenRuns),
        Just(Walk::TakeThenForEach),
        Just(Walk::Nth),
        Just(Walk::Count),
        Just(Walk::Last),
        Just(Walk::PanicFor),
        Just(Walk::Drop),
        Just(Walk::TakeThenPieces),
        Just(Walk::NextAfterEnd),
        Just(Walk::NthThenNext),
        Just(Walk::Chunks),
    ]
}

/// (values seen, how many handed out, runs' lengths if runs walked)
type Outcome = (Vec<u32>, usize, Vec<usize>);

/// Walks `$iter` whose items map to a `u32` via `$val`, and whose slices map to lengths/values via `$sl`.
macro_rules! walk_it {
    ($iter:expr, $walk:expr, $k:expr, $val:expr, $sl:expr) => {{
        let k: usize = $k;
        let val = $val;
        let sl = $sl;
        let mut seen: Vec<u32> = Vec::new();
        let mut runs: Vec<usize> = Vec::new();
        let handed: usize;
        match $walk {
            Walk::ForBreak => {
                let mut n = 0;
                for item in $iter {
                    n += 1;
                    if n > k {
                        break;
                    }
                    seen.push(val(item));
                }
                handed = n;
            }
            Walk::Take => {
                $iter.take(k).for_each(|item| seen.push(val(item)));
                handed = seen.len();
            }
            Walk::ForEach => {
                $iter.for_each(|item| seen.push(val(item)));
                handed = seen.len();
            }
            Walk::Runs => {
                $iter.for_each_run(|entities: &[Entity], s| {
                    let vals: Vec<u32> = sl(entities, s);
                    assert_eq!(vals.len(), entities.len());
                    runs.push(entities.len());
                    seen.extend(vals);
                });
                handed = seen.len();
            }
            Walk::TakeThenRuns => {
                let mut it = $iter;
                it.by_ref().take(k).for_each(|item| seen.push(val(item)));
                it.for_each_run(|entities: &[Entity], s| {
                    let vals: Vec<u32> = sl(entities, s);
                    assert_eq!(vals.len(), entities.len());
                    runs.push(entities.len());
                    seen.extend(vals);
                });
                handed = seen.len();
            }
            Walk::TakeThenForEach => {
                let mut it = $iter;
                for item in it.by_ref().take(k) {
                    seen.push(val(item));
                }
                it.for_each(|item| seen.push(val(item)));
                handed = seen.len();
            }
            Walk::Nth => {
                let mut it = $iter;
                let got = it.nth(k).map(val);
                seen.extend(got);
                // nth hands out the k+1 first (all are fetched)
                handed = usize::MAX; // computed by caller: min(k+1, n)
            }
            Walk::Count => {
                handed = $iter.count();
                seen.push(handed as u32);
            }
            Walk::Last => {
                let l = $iter.last().map(val);
                seen.extend(l);
                handed = usize::MAX - 1; // all
            }
            Walk::PanicFor => {
                let mut n = 0;
                let r = catch_unwind(AssertUnwindSafe(|| {
                    for item in $iter {
                        n += 1;
                        seen.push(val(item));
                        if n > k {
                            panic!("stop");
                        }
                    }
                }));
                let _ = r;
                handed = n;
            }
            Walk::Drop => {
                let it = $iter;
                drop(it);
                handed = 0;
            }
            Walk::TakeThenPieces => {
                let mut it = $iter;
                it.by_ref().take(k).for_each(|item| seen.push(val(item)));
                let mut items = Vec::new();
                for p in it.pieces() {
                    p.push_into(&mut items);
                }
                seen.extend(items.into_iter().map(val));
                handed = seen.len();
            }
            Walk::NextAfterEnd => {
                let mut it = $iter;
                while let Some(x) = it.next() {
                    seen.push(val(x));
                }
                for _ in 0..3 {
                    assert!(it.next().is_none(), "fused");
                }
                handed = seen.len();
            }
            Walk::NthThenNext => {
                let mut it = $iter;
                if let Some(x) = it.nth(k) {
                    seen.push(val(x));
                    if let Some(y) = it.next() {
                        seen.push(val(y));
                    }
                }
                handed = usize::MAX - 2;
            }
            Walk::Chunks => {
                // skip(k) then step_by(2)
                let mut it = $iter.skip(k).step_by(2);
                while let Some(x) = it.next() {
                    seen.push(val(x));
                }
                handed = usize::MAX - 3;
            }
        }
        (seen, handed, runs)
    }};
}

/// Expected values seen and the number handed out, given the oracle's matches `m`.
fn expect(walk: Walk, k: usize, m: &[u32]) -> (Vec<u32>, usize) {
    let n = m.len();
    match walk {
        Walk::ForBreak => (m[..k.min(n)].to_vec(), (k + 1).min(n)),
        Walk::Take => (m[..k.min(n)].to_vec(), k.min(n)),
        Walk::ForEach
        | Walk::Runs
        | Walk::TakeThenRuns
        | Walk::TakeThenForEach
        | Walk::TakeThenPieces
        | Walk::NextAfterEnd => (m.to_vec(), n),
        Walk::Nth => (m.get(k).copied().into_iter().collect(), (k + 1).min(n)),
        Walk::Count => (vec![n as u32], n),
        Walk::Last => (m.last().copied().into_iter().collect(), n),
        Walk::PanicFor => (m[..(k + 1).min(n)].to_vec(), (k + 1).min(n)),
        Walk::Drop => (vec![], 0),
        Walk::NthThenNext => (m[k.min(n)..(k + 2).min(n)].to_vec(), (k + 2).min(n)),
        Walk::Chunks => (m[k.min(n)..].iter().step_by(2).copied().collect(), n),
    }
}

fn changed_a(world: &World, since: rota::Tick) -> Vec<Entity> {
    world.query_since::<Entity, Changed<A>>(since).collect()
}

fn check_a_query<FA: Fn(&World, Entity) -> bool>(
    world: &mut World,
    keep: FA,
    walk: Walk,
    k: usize,
    started: Outcome,
    since: rota::Tick,
    writes: bool,
) -> Result<(), TestCaseError> {
    let rows: Vec<(Entity, u32)> = oracle(world)
        .into_iter()
        .filter(|r| r.1.is_some() && keep(world, r.0))
        .map(|r| (r.0, r.1.unwrap()))
        .collect();
    let m: Vec<u32> = rows.iter().map(|r| r.1).collect();
    let (want, handed) = expect(walk, k, &m);
    prop_assert_eq!(&started.0, &want, "values, walk {:?}", walk);
    let changed = changed_a(world, since);
    if writes {
        let expected: Vec<Entity> = rows[..handed].iter().map(|r| r.0).collect();
        prop_assert_eq!(changed, expected, "stamps, walk {:?} k {}", walk, k);
    } else {
        prop_assert!(changed.is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(64)))]

    #[test]
    fn started_queries_match_oracle(ops in proptest::collection::vec(op(), 0..120), walk in walk(), k in 0usize..20, shape in 0usize..11) {
        let mut world = build(&ops);
        let since = world.change_checkpoint();
        let vals_a = |s: &mut [A]| s.iter().map(|a| a.0).collect::<Vec<u32>>();
        match shape {
            0 => {
                let out = walk_it!(world.query_mut::<&mut A>(), walk, k, |a: &mut A| a.0, |_: &[Entity], s: &mut [A]| vals_a(s));
                check_a_query(&mut world, |_, _| true, walk, k, out, since, true)?;
            }
            1 => {
                let out = walk_it!(world.query_filtered_mut::<&mut A, With<B>>(), walk, k, |a: &mut A| a.0, |_: &[Entity], s: &mut [A]| vals_a(s));
                check_a_query(&mut world, |w, e| w.has::<B>(e), walk, k, out, since, true)?;
            }
            2 => {
                let out = walk_it!(world.query_filtered_mut::<&mut A, (With<B>, With<C>)>(), walk, k, |a: &mut A| a.0, |_: &[Entity], s: &mut [A]| vals_a(s));
                check_a_query(&mut world, |w, e| w.has::<B>(e) && w.has::<C>(e), walk, k, out, since, true)?;
            }
            3 => {
                let out = walk_it!(world.query_mut::<(&mut A,)>(), walk, k, |a: (&mut A,)| a.0.0, |_: &[Entity], s: (&mut [A],)| vals_a(s.0));
                check_a_query(&mut world, |_, _| true, walk, k, out, since, true)?;
            }
            4 => {
                let out = walk_it!(world.query_mut::<&A>(), walk, k, |a: &A| a.0, |_: &[Entity], s: &[A]| s.iter().map(|a| a.0).collect::<Vec<u32>>());
                check_a_query(&mut world, |_, _| true, walk, k, out, since, false)?;
            }
            5 => {
                // Entity with With<A>: map entity to its A value via a lookup table
                let table: BTreeMap<Entity, u32> = oracle(&world).into_iter().filter_map(|r| r.1.map(|a| (r.0, a))).collect();
                let out = walk_it!(world.query_filtered_mut::<Entity, With<A>>(), walk, k, |e: Entity| table[&e], |es: &[Entity], _s: ()| es.iter().map(|e| table[e]).collect::<Vec<u32>>());
                check_a_query(&mut world, |_, _| true, walk, k, out, since, false)?;
            }
            7 | 8 => {
                // Tuples (they start too, and their last run takes `next_in_last`): each item's
                // elements must come from one entity, checked against the oracle's values.
                let table: BTreeMap<Entity, (Option<u32>, Option<u32>)> = oracle(&world).into_iter().map(|r| (r.0, (r.1, r.2))).collect();
                let pair = |e: Entity, a: u32, b: u32| if table[&e] == (Some(a), Some(b)) { a } else { u32::MAX };
                if shape == 7 {
                    let out = walk_it!(world.query_mut::<(Entity, &mut A, &B)>(), walk, k, |(e, a, b): (Entity, &mut A, &B)| pair(e, a.0, b.0), |es: &[Entity], s: ((), &mut [A], &[B])| (0..es.len()).map(|i| pair(es[i], s.1[i].0, s.2[i].0)).collect::<Vec<u32>>());
                    check_a_query(&mut world, |w, e| w.has::<B>(e), walk, k, out, since, true)?;
                } else {
                    let out = walk_it!(world.query_filtered_mut::<(&B, Entity, &mut A), With<C>>(), walk, k, |(b, e, a): (&B, Entity, &mut A)| pair(e, a.0, b.0), |es: &[Entity], s: (&[B], (), &mut [A])| (0..es.len()).map(|i| pair(es[i], s.2[i].0, s.0[i].0)).collect::<Vec<u32>>());
                    check_a_query(&mut world, |w, e| w.has::<B>(e) && w.has::<C>(e), walk, k, out, since, true)?;
                }
            }
            9 | 10 => {
                // One store with its entities (`QueryIter::ONE_STORE`: the store's whole
                // column, no join), through `&mut World` and through `&World` (settled or
                // not): each item's entity must be the one holding its value.
                let table: BTreeMap<Entity, u32> = oracle(&world).into_iter().filter_map(|r| r.1.map(|a| (r.0, a))).collect();
                let own = |e: Entity, a: u32| if table.get(&e) == Some(&a) { a } else { u32::MAX };
                if shape == 9 {
                    let out = walk_it!(world.query_mut::<(Entity, &mut A)>(), walk, k, |(e, a): (Entity, &mut A)| own(e, a.0), |es: &[Entity], s: ((), &mut [A])| es.iter().zip(s.1.iter()).map(|(&e, a)| own(e, a.0)).collect::<Vec<u32>>());
                    check_a_query(&mut world, |_, _| true, walk, k, out, since, true)?;
                } else {
                    let out = walk_it!(world.query::<(Entity, &A)>(), walk, k, |(e, a): (Entity, &A)| own(e, a.0), |es: &[Entity], s: ((), &[A])| es.iter().zip(s.1.iter()).map(|(&e, a)| own(e, a.0)).collect::<Vec<u32>>());
                    check_a_query(&mut world, |_, _| true, walk, k, out, since, false)?;
                }
            }
            _ => {
                // &World (possibly unsettled) &A query
                let out = walk_it!(world.query::<&A>(), walk, k, |a: &A| a.0, |_: &[Entity], s: &[A]| s.iter().map(|a| a.0).collect::<Vec<u32>>());
                check_a_query(&mut world, |_, _| true, walk, k, out, since, false)?;
            }
        }
    }

    /// Started and unstarted iterators walked the same way: same values, same runs, same stamps.
    #[test]
    fn started_equals_unstarted(ops in proptest::collection::vec(op(), 0..120), walk in walk(), k in 0usize..20, shape in 0usize..4) {
        let mut w1 = build(&ops);
        let mut w2 = build(&ops);
        let s1 = w1.change_checkpoint();
        let s2 = w2.change_checkpoint();
        let vals_a = |s: &mut [A]| s.iter().map(|a| a.0).collect::<Vec<u32>>();
        let (o1, o2) = match shape {
            0 => (
                walk_it!(w1.query_mut::<&mut A>(), walk, k, |a: &mut A| a.0, |_: &[Entity], s: &mut [A]| vals_a(s)),
                walk_it!(w2.unstarted_query_mut::<&mut A, ()>(), walk, k, |a: &mut A| a.0, |_: &[Entity], s: &mut [A]| vals_a(s)),
            ),
            1 => (
                walk_it!(w1.query_filtered_mut::<&mut A, With<B>>(), walk, k, |a: &mut A| a.0, |_: &[Entity], s: &mut [A]| vals_a(s)),
                walk_it!(w2.unstarted_query_mut::<&mut A, With<B>>(), walk, k, |a: &mut A| a.0, |_: &[Entity], s: &mut [A]| vals_a(s)),
            ),
            2 => (
                walk_it!(w1.query_filtered_mut::<&mut A, (With<B>, With<C>)>(), walk, k, |a: &mut A| a.0, |_: &[Entity], s: &mut [A]| vals_a(s)),
                walk_it!(w2.unstarted_query_mut::<&mut A, (With<B>, With<C>)>(), walk, k, |a: &mut A| a.0, |_: &[Entity], s: &mut [A]| vals_a(s)),
            ),
            _ => (
                walk_it!(w1.query_mut::<(&mut A, &B)>(), walk, k, |(a, b): (&mut A, &B)| a.0 ^ b.0.rotate_left(16), |_: &[Entity], s: (&mut [A], &[B])| s.0.iter().zip(s.1).map(|(a, b)| a.0 ^ b.0.rotate_left(16)).collect::<Vec<u32>>()),
                walk_it!(w2.unstarted_query_mut::<(&mut A, &B), ()>(), walk, k, |(a, b): (&mut A, &B)| a.0 ^ b.0.rotate_left(16), |_: &[Entity], s: (&mut [A], &[B])| s.0.iter().zip(s.1).map(|(a, b)| a.0 ^ b.0.rotate_left(16)).collect::<Vec<u32>>()),
            ),
        };
        prop_assert_eq!(&o1.0, &o2.0);
        prop_assert_eq!(o1.1, o2.1);
        prop_assert_eq!(&o1.2, &o2.2, "runs");
        let c1: Vec<u32> = changed_a(&w1, s1).iter().map(|e| e.slot()).collect();
        let c2: Vec<u32> = changed_a(&w2, s2).iter().map(|e| e.slot()).collect();
        prop_assert_eq!(c1, c2, "stamps");
    }
}

// ---------- parallel ----------

/// What a walk recorded: (chunk or segment index, values).
type Recorded = Vec<(usize, Vec<u32>)>;

#[derive(Resource, Default)]
#[resource(no_snapshot)]
struct Seen(Mutex<Recorded>);

/// Records `a`'s value and bumps it (so the writes can be checked).
fn bump(a: &mut A) -> u32 {
    let v = a.0;
    a.0 += 1_000_000;
    v
}

/// The three parallel walks, over any filter of `&mut A`: one item at a time, chunks, segments.
fn each<F: rota::query::QueryData>(q: &mut Query<'_, &mut A, F>, rec: &Seen) {
    q.par_for_each(|a| {
        let v = bump(a);
        rec.0.lock().unwrap().push((0, vec![v]));
    });
}

fn chunks<F: rota::query::QueryData>(q: &mut Query<'_, &mut A, F>, rec: &Seen) {
    q.par_for_each_chunk(|chunk| {
        let i = chunk.index();
        let v = chunk.map(bump).collect();
        rec.0.lock().unwrap().push((i, v));
    });
}

fn segments<F: rota::query::QueryData>(q: &mut Query<'_, &mut A, F>, rec: &Seen) {
    let r: Vec<Vec<u32>> = q.par_map_segments(|seg| seg.map(bump).collect());
    for (i, v) in r.into_iter().enumerate() {
        rec.0.lock().unwrap().push((i, v));
    }
}

#[system(reads(Seen), writes(A))]
fn par_each_a(mut q: Query<&mut A>, rec: Res<Seen>) {
    each(&mut q, &rec);
}
#[system(reads(Seen), writes(A))]
fn par_chunk_a(mut q: Query<&mut A>, rec: Res<Seen>) {
    chunks(&mut q, &rec);
}
#[system(reads(Seen), writes(A))]
fn par_seg_a(mut q: Query<&mut A>, rec: Res<Seen>) {
    segments(&mut q, &rec);
}
#[system(reads(Seen, B), writes(A))]
fn par_each_ab(mut q: Query<&mut A, With<B>>, rec: Res<Seen>) {
    each(&mut q, &rec);
}
#[system(reads(Seen, B), writes(A))]
fn par_chunk_ab(mut q: Query<&mut A, With<B>>, rec: Res<Seen>) {
    chunks(&mut q, &rec);
}
#[system(reads(Seen, B), writes(A))]
fn par_seg_ab(mut q: Query<&mut A, With<B>>, rec: Res<Seen>) {
    segments(&mut q, &rec);
}
/// A `for` loop over the query that bumps every value, then a second walk of the same query,
/// which must see all of them bumped.
fn plain_loop<F: rota::query::QueryData>(q: &mut Query<'_, &mut A, F>, rec: &Seen) {
    let mut v = Vec::new();
    for a in q.iter_mut() {
        v.push(a.0);
        a.0 += 1_000_000;
    }
    let again: Vec<u32> = q.iter_mut().map(|a| a.0).collect();
    assert_eq!(again, v.iter().map(|x| x + 1_000_000).collect::<Vec<_>>());
    rec.0.lock().unwrap().push((0, v));
}

#[system(reads(Seen), writes(A))]
fn plain_loop_a(mut q: Query<&mut A>, rec: Res<Seen>) {
    plain_loop(&mut q, &rec);
}
#[system(reads(Seen, B), writes(A))]
fn plain_loop_ab(mut q: Query<&mut A, With<B>>, rec: Res<Seen>) {
    plain_loop(&mut q, &rec);
}

fn sched(system: impl rota::IntoSystem, threads: usize) -> Schedule {
    Schedule::builder()
        .add(system)
        .threads(threads)
        .build()
        .unwrap()
}

fn par_world(kind: usize) -> World {
    let mut world = World::new();
    let n = 9000u32;
    let es: Vec<Entity> = (0..n).map(|i| world.spawn_with((A(i + 1),))).collect();
    for (i, &e) in es.iter().enumerate() {
        let put_b = match kind {
            0 => true,
            1 => i % 3 == 0,
            2 => i % 17 < 9,
            _ => i % 5 == 0 || (2000..6000).contains(&i),
        };
        if put_b {
            world.insert(e, B(0)).unwrap();
        }
        if kind >= 2 && i % 11 == 0 {
            world.despawn(e).unwrap();
        }
    }
    world
}

#[test]
fn par_walks_of_plain_queries_match_oracle() {
    for kind in 0..4 {
        for (name, filt, which) in [
            ("each_a", false, 0),
            ("chunk_a", false, 1),
            ("seg_a", false, 2),
            ("each_ab", true, 0),
            ("chunk_ab", true, 1),
            ("seg_ab", true, 2),
            ("loop_ab", true, 3),
            ("loop_a", false, 3),
        ] {
            let mut reference: Option<(Recorded, Vec<u32>)> = None;
            for threads in [1, 2, 3] {
                let mut world = par_world(kind);
                world.insert_resource(Seen::default());
                let _ = world.query_mut::<&mut A>().count();
                let since = world.change_checkpoint();
                let rows: Vec<(Entity, u32, bool)> = oracle(&world)
                    .into_iter()
                    .filter_map(|r| r.1.map(|a| (r.0, a, r.2.is_some())))
                    .filter(|r| !filt || r.2)
                    .collect();
                let mut s = match (filt, which) {
                    (false, 0) => sched(par_each_a, threads),
                    (false, 1) => sched(par_chunk_a, threads),
                    (false, 2) => sched(par_seg_a, threads),
                    (true, 0) => sched(par_each_ab, threads),
                    (true, 1) => sched(par_chunk_ab, threads),
                    (true, 2) => sched(par_seg_ab, threads),
                    (false, _) => sched(plain_loop_a, threads),
                    _ => sched(plain_loop_ab, threads),
                };
                s.run(&mut world);
                let seen = world
                    .remove_resource::<Seen>()
                    .unwrap()
                    .0
                    .into_inner()
                    .unwrap();
                let mut seen = seen;
                let mut all: Vec<u32> = seen.iter().flat_map(|(_, v)| v.clone()).collect();
                all.sort();
                let want: Vec<u32> = rows.iter().map(|r| r.1).collect();
                assert_eq!(all, want, "{name} kind {kind} threads {threads}: items");
                if which == 1 {
                    seen.sort_by_key(|(i, _)| *i);
                    for (i, (idx, v)) in seen.iter().enumerate() {
                        assert_eq!(*idx, i);
                        let lo = i * rota::rota_schedule::PAR_CHUNK;
                        assert_eq!(
                            v[..],
                            want[lo..(lo + rota::rota_schedule::PAR_CHUNK).min(want.len())],
                            "{name} chunk {i}"
                        );
                    }
                }
                // writes landed on exactly the matches
                for r in &rows {
                    assert_eq!(
                        world.get::<A>(r.0).unwrap().0,
                        r.1 + 1_000_000,
                        "{name} write"
                    );
                }
                let changed = changed_a(&world, since);
                let expected: Vec<Entity> = rows.iter().map(|r| r.0).collect();
                assert_eq!(
                    changed, expected,
                    "{name} kind {kind} threads {threads}: stamps"
                );
                if which != 0 {
                    seen.sort_by_key(|(i, _)| *i);
                    let vals: Vec<u32> = world.query::<&A>().map(|a| a.0).collect();
                    match &reference {
                        None => reference = Some((seen, vals)),
                        Some(r) => {
                            assert_eq!(
                                r.0, seen,
                                "{name} kind {kind} threads {threads}: per-index differs from 1 thread"
                            );
                            assert_eq!(r.1, vals);
                        }
                    }
                }
            }
        }
    }
}

/// Which shapes start: a started, non-empty iterator cannot be cut into segments. A plain
/// query — every element required, tuples of them included — starts; a query with a
/// `Without` or an `Option` does not.
#[test]
fn plain_queries_start_and_others_do_not() {
    let mut world = World::new();
    world.spawn_batch((0..10u32).map(|i| (A(i), B(i))));
    fn started<T, E>(cut: Result<T, E>) -> bool {
        cut.is_err()
    }
    assert!(started(world.query_mut::<&mut A>().segments(|_| 3)));
    assert!(started(world.query_mut::<&A>().segments(|_| 3)));
    assert!(started(world.query_mut::<(&mut A,)>().segments(|_| 3)));
    assert!(started(
        world
            .query_filtered_mut::<Entity, With<B>>()
            .segments(|_| 3)
    ));
    assert!(started(
        world.query_mut::<(Entity, &mut A)>().segments(|_| 3)
    ));
    assert!(started(
        world.query_mut::<((&mut A, &B),)>().segments(|_| 3)
    ));
    assert!(started(
        world.query_mut::<((Entity, &mut A),)>().segments(|_| 3)
    ));
    assert!(started(
        world
            .query_filtered_mut::<&mut A, (With<B>, With<A>)>()
            .segments(|_| 3)
    ));
    assert!(!started(
        world
            .query_filtered_mut::<&mut A, rota::Without<C>>()
            .segments(|_| 3)
    ));
    assert!(!started(
        world.query_mut::<(&mut A, Option<&B>)>().segments(|_| 3)
    ));
    // Unstarted iterators of the same shapes are cut.
    assert!(
        world
            .unstarted_query_mut::<&mut A, ()>()
            .segments(|_| 3)
            .is_ok()
    );
    assert!(
        world
            .unstarted_query_mut::<(&mut A,), ()>()
            .segments(|_| 3)
            .is_ok()
    );
}

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Tag;

/// A tuple query of one run (the iterator holds its last run from the start, the path of
/// `QueryData::next_in_last`), zero-sized element included: a `for` loop stopped after `k`
/// items stamps exactly what it fetched, pairs each item's elements from one entity, and a
/// whole walk stamps everything. (From the review of the tuple start, which found no bug.)
#[test]
fn a_one_run_tuple_walk_stopped_early_stamps_what_it_fetched() {
    let changed =
        |w: &World, since| -> Vec<Entity> { w.query_since::<Entity, Changed<A>>(since).collect() };
    let changed_tag = |w: &World, since| -> Vec<Entity> {
        w.query_since::<Entity, Changed<Tag>>(since).collect()
    };
    for n in [0usize, 1, 2, 31, 32, 33, 1000] {
        for k in [0usize, 1, 2, 31, 999, 1000, 5000] {
            let mut world = World::new();
            let es = world.spawn_batch((0..n as u32).map(|i| (A(i), B(i), Tag)));
            let since = world.change_checkpoint();
            let mut seen = Vec::new();
            let mut it = world.query_mut::<(Entity, &mut Tag, &mut A, &B)>();
            for (e, _tag, a, b) in it.by_ref() {
                if seen.len() == k {
                    break;
                }
                assert_eq!((a.0, e.slot()), (b.0, b.0), "one entity per item");
                seen.push(e);
            }
            drop(it);
            let handed = (k + 1).min(n);
            assert_eq!(seen, es[..k.min(n)]);
            assert_eq!(changed(&world, since), es[..handed], "n {n} k {k}");
            assert_eq!(changed_tag(&world, since), es[..handed], "n {n} k {k}");
            let since = world.change_checkpoint();
            let all: Vec<Entity> = world
                .query_mut::<(Entity, &mut Tag, &mut A)>()
                .map(|(e, _, _)| e)
                .collect();
            assert_eq!(all, es);
            assert_eq!(changed(&world, since), es);
            assert_eq!(changed_tag(&world, since), es);
        }
    }
}
