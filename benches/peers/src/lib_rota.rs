//! rota: `spawn_batch`, `query_mut`, `#[system]` + `Schedule`, `ParallelQuery::par_for_each`.

use rota::{Entity, ParallelQuery, Query, Schedule, World, system};

use crate::common::*;

#[system(writes(A, B))]
fn ab(mut q: Query<(&mut A, &mut B)>) {
    for (a, b) in &mut q {
        std::mem::swap(&mut a.0, &mut b.0);
    }
}

#[system(writes(C, D))]
fn cd(mut q: Query<(&mut C, &mut D)>) {
    for (c, d) in &mut q {
        std::mem::swap(&mut c.0, &mut d.0);
    }
}

#[system(writes(C, E))]
fn ce(mut q: Query<(&mut C, &mut E)>) {
    for (c, e) in &mut q {
        std::mem::swap(&mut c.0, &mut e.0);
    }
}

#[system(writes(Transform, Position))]
fn heavy_sys(mut q: Query<(&mut Transform, &mut Position)>) {
    q.par_for_each(|(t, p)| heavy(t, p));
}

fn bundle_digest(w: &mut World) -> f64 {
    w.query_mut::<(&Transform, &Position, &Rotation, &Velocity)>()
        .map(|(t, p, r, v)| sum_bundle(t, p, r, v))
        .sum()
}

fn sched_digest(w: &mut World) -> f64 {
    let mut s = 0.0;
    s += w
        .query_mut::<&A>()
        .map(|x| super::common::w(1.0, x.0))
        .sum::<f64>();
    s += w
        .query_mut::<&B>()
        .map(|x| super::common::w(2.0, x.0))
        .sum::<f64>();
    s += w
        .query_mut::<&C>()
        .map(|x| super::common::w(3.0, x.0))
        .sum::<f64>();
    s += w
        .query_mut::<&D>()
        .map(|x| super::common::w(4.0, x.0))
        .sum::<f64>();
    s += w
        .query_mut::<&E>()
        .map(|x| super::common::w(5.0, x.0))
        .sum::<f64>();
    s
}

fn simple_world() -> World {
    let mut w = World::new();
    w.spawn_batch((0..N).map(bundle));
    w
}

/// The way users write it: a `for` loop over `query_mut` (the measured `rota` column).
fn simple_for(w: &mut World) {
    for (p, v) in w.query_mut::<(&mut Position, &Velocity)>() {
        step(p, v);
    }
}

fn simple_each(w: &mut World) {
    w.query_mut::<(&mut Position, &Velocity)>()
        .for_each(|(p, v)| step(p, v));
}

fn simple_runs(w: &mut World) {
    w.query_mut::<(&mut Position, &Velocity)>()
        .for_each_run(|_, (p, v)| {
            for (p, v) in p.iter_mut().zip(v) {
                step(p, v);
            }
        });
}

fn simple_digest(w: &mut World) -> f64 {
    w.query_mut::<&Position>().map(|p| sum3(&p.0)).sum()
}

fn fragmented_world() -> World {
    let mut w = World::new();
    macro_rules! sp {
        ($w:expr, $t:ident) => {
            $w.spawn_batch((0..FRAG_PER_TYPE).map(|_| (frag::$t(0.0), Data(1.0))));
        };
    }
    frag_all!(sp, w);
    w
}

fn fragmented_for(w: &mut World) {
    for d in w.query_mut::<&mut Data>() {
        d.0 *= 2.0;
    }
}

fn fragmented_each(w: &mut World) {
    w.query_mut::<&mut Data>().for_each(|d| d.0 *= 2.0);
}

fn fragmented_runs(w: &mut World) {
    w.query_mut::<&mut Data>().for_each_run(|_, d| {
        for d in d {
            d.0 *= 2.0;
        }
    });
}

fn fragmented_digest(w: &mut World) -> f64 {
    w.query_mut::<&Data>().map(|d| d.0 as f64).sum()
}

/// The other ways to write rota's iteration loops, timed beside the `for` loop: `for_each`
/// (the iterator's `fold`) and `for_each_run` (the run slices).
pub fn variants(wl: Workload) -> Vec<(&'static str, Box<dyn Bench>)> {
    match wl {
        Workload::SimpleIter => vec![
            (
                "rota for_each",
                case(simple_world(), simple_each, simple_digest),
            ),
            (
                "rota runs",
                case(simple_world(), simple_runs, simple_digest),
            ),
        ],
        Workload::FragmentedIter => vec![
            (
                "rota for_each",
                case(fragmented_world(), fragmented_each, fragmented_digest),
            ),
            (
                "rota runs",
                case(fragmented_world(), fragmented_runs, fragmented_digest),
            ),
        ],
        Workload::AddRemove => vec![("rota column", add_remove_case(true))],
        _ => Vec::new(),
    }
}

/// add_remove: 10k inserts of `AddB`, then 10k deletes — through `World::insert`/`delete`, or
/// (`column`) through one `World::column_mut` handle held for the round.
fn add_remove_case(column: bool) -> Box<dyn Bench> {
    let mut w = World::new();
    let es: Vec<Entity> = w.spawn_batch((0..N).map(|_| (AddA(1.0),)));
    let run: fn(&mut (World, Vec<Entity>)) = if column {
        add_remove_column
    } else {
        add_remove_world
    };
    case((w, es), run, |(w, _)| {
        w.query_mut::<&AddA>().map(|a| a.0 as f64).sum::<f64>()
            + 1000.0 * w.query_mut::<&AddB>().count() as f64
    })
}

fn add_remove_world((w, es): &mut (World, Vec<Entity>)) {
    for &e in es.iter() {
        w.insert(e, AddB(0.0)).expect("alive");
    }
    // `delete` drops the value, as sparsey's `delete`, shipyard's `delete_component` and
    // bevy's `remove` do (hecs's `remove_one` returns it).
    for &e in es.iter() {
        w.delete::<AddB>(e).expect("alive");
    }
}

fn add_remove_column((w, es): &mut (World, Vec<Entity>)) {
    let mut b = w.column_mut::<AddB>();
    for &e in es.iter() {
        b.insert(e, AddB(0.0)).expect("alive");
    }
    for &e in es.iter() {
        b.delete(e).expect("alive");
    }
}

pub fn make(wl: Workload) -> Box<dyn Bench> {
    match wl {
        Workload::SimpleInsert => case(
            None::<World>,
            |s| {
                let mut w = World::new();
                w.spawn_batch((0..N).map(bundle));
                *s = Some(w);
            },
            |s| bundle_digest(s.as_mut().expect("ran")),
        ),
        Workload::SimpleIter => case(simple_world(), simple_for, simple_digest),
        Workload::FragmentedIter => case(fragmented_world(), fragmented_for, fragmented_digest),
        Workload::AddRemove => add_remove_case(false),
        Workload::Schedule => {
            let mut w = World::new();
            w.spawn_batch((0..N).map(sched_ab));
            w.spawn_batch((0..N).map(sched_abc));
            w.spawn_batch((0..N).map(sched_abcd));
            w.spawn_batch((0..N).map(sched_abce));
            let s = Schedule::builder()
                .add(ab)
                .add(cd)
                .add(ce)
                .build()
                .expect("valid schedule");
            case(
                (w, s),
                |(w, s)| {
                    std::hint::black_box(s.run(w));
                },
                |(w, _)| sched_digest(w),
            )
        }
        Workload::Despawn => prepared_case(
            (World::new(), Vec::<Entity>::new(), despawn_order()),
            |(w, es, order)| {
                let spawned = w.spawn_batch((0..N).map(bundle));
                es.clear();
                es.extend(order.iter().map(|&i| spawned[i]));
            },
            |(w, es, _)| {
                for &e in es.iter() {
                    w.despawn(e).expect("alive");
                }
            },
            |(w, _, _)| w.len() as f64 + w.query_mut::<&Position>().count() as f64,
        ),
        Workload::HeavyCompute => {
            let mut w = World::new();
            w.spawn_batch((0..HEAVY_N).map(heavy_bundle));
            case(
                w,
                |w| {
                    let report = std::hint::black_box(w.run(heavy_sys));
                    debug_assert!(report.is_clean());
                },
                |w| {
                    w.query_mut::<(&Transform, &Position)>()
                        .map(|(t, p)| sum_heavy(t, p))
                        .sum()
                },
            )
        }
    }
}

/// Runs the churn `History`; returns `(entity slot, label)` in query visit order.
pub fn probe(h: &History) -> Vec<(u64, u32)> {
    let mut w = World::new();
    let mut es: Vec<Entity> = (0..PROBE_FIRST)
        .map(|l| w.spawn_with((Label(l),)))
        .collect();
    for &l in &h.despawn {
        w.despawn(es[l as usize]).expect("alive");
    }
    es.extend((PROBE_FIRST..PROBE_FIRST + PROBE_MORE).map(|l| w.spawn_with((Label(l),))));
    for &l in &h.remove {
        w.remove::<Label>(es[l as usize]).expect("alive");
    }
    for &l in &h.readd {
        w.insert(es[l as usize], Label(l)).expect("alive");
    }
    w.query_mut::<(Entity, &Label)>()
        .map(|(e, l)| (e.slot() as u64, l.0))
        .collect()
}
