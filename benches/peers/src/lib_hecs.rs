//! hecs 0.11: `spawn_batch`, `query_mut`; no scheduler (schedule = sequential loop);
//! heavy_compute = `iter_batched` batches spread over rayon (hecs has no parallel iterator).

use hecs::{Entity, World};
use rayon::prelude::*;

use crate::common::*;

fn sched_digest(w: &mut World) -> f64 {
    let mut s = 0.0;
    s += w
        .query_mut::<&A>()
        .into_iter()
        .map(|x| super::common::w(1.0, x.0))
        .sum::<f64>();
    s += w
        .query_mut::<&B>()
        .into_iter()
        .map(|x| super::common::w(2.0, x.0))
        .sum::<f64>();
    s += w
        .query_mut::<&C>()
        .into_iter()
        .map(|x| super::common::w(3.0, x.0))
        .sum::<f64>();
    s += w
        .query_mut::<&D>()
        .into_iter()
        .map(|x| super::common::w(4.0, x.0))
        .sum::<f64>();
    s += w
        .query_mut::<&E>()
        .into_iter()
        .map(|x| super::common::w(5.0, x.0))
        .sum::<f64>();
    s
}

fn simple_world() -> World {
    let mut w = World::new();
    w.spawn_batch((0..N).map(bundle));
    w
}

fn simple_digest(w: &mut World) -> f64 {
    w.query_mut::<&Position>()
        .into_iter()
        .map(|p| sum3(&p.0))
        .sum()
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

fn fragmented_digest(w: &mut World) -> f64 {
    w.query_mut::<&Data>().into_iter().map(|d| d.0 as f64).sum()
}

/// hecs's iteration loops written as `for` loops over `query_mut` (its measured column uses
/// `for_each`, its fastest): timed beside rota's `for` loop, the same loop style.
pub fn variants(wl: Workload) -> Vec<(&'static str, Box<dyn Bench>)> {
    match wl {
        Workload::SimpleIter => vec![(
            "hecs for",
            case(
                simple_world(),
                |w| {
                    for (p, v) in w.query_mut::<(&mut Position, &Velocity)>() {
                        step(p, v);
                    }
                },
                simple_digest,
            ),
        )],
        Workload::FragmentedIter => vec![(
            "hecs for",
            case(
                fragmented_world(),
                |w| {
                    for d in w.query_mut::<&mut Data>() {
                        d.0 *= 2.0;
                    }
                },
                fragmented_digest,
            ),
        )],
        _ => Vec::new(),
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
            |s| {
                s.as_mut()
                    .expect("ran")
                    .query_mut::<(&Transform, &Position, &Rotation, &Velocity)>()
                    .into_iter()
                    .map(|(t, p, r, v)| sum_bundle(t, p, r, v))
                    .sum()
            },
        ),
        Workload::SimpleIter => case(
            simple_world(),
            |w| {
                w.query_mut::<(&mut Position, &Velocity)>()
                    .into_iter()
                    .for_each(|(p, v)| step(p, v))
            },
            simple_digest,
        ),
        Workload::FragmentedIter => case(
            fragmented_world(),
            |w| {
                w.query_mut::<&mut Data>()
                    .into_iter()
                    .for_each(|d| d.0 *= 2.0)
            },
            fragmented_digest,
        ),
        Workload::AddRemove => {
            let mut w = World::new();
            let es: Vec<Entity> = w.spawn_batch((0..N).map(|_| (AddA(1.0),))).collect();
            case(
                (w, es),
                |(w, es)| {
                    for &e in es.iter() {
                        w.insert_one(e, AddB(0.0)).expect("alive");
                    }
                    for &e in es.iter() {
                        w.remove_one::<AddB>(e).expect("alive");
                    }
                },
                |(w, _)| {
                    w.query_mut::<&AddA>()
                        .into_iter()
                        .map(|a| a.0 as f64)
                        .sum::<f64>()
                        + 1000.0 * w.query_mut::<&AddB>().into_iter().count() as f64
                },
            )
        }
        Workload::Schedule => {
            let mut w = World::new();
            w.spawn_batch((0..N).map(sched_ab));
            w.spawn_batch((0..N).map(sched_abc));
            w.spawn_batch((0..N).map(sched_abcd));
            w.spawn_batch((0..N).map(sched_abce));
            case(
                w,
                |w| {
                    for (a, b) in w.query_mut::<(&mut A, &mut B)>() {
                        std::mem::swap(&mut a.0, &mut b.0);
                    }
                    for (c, d) in w.query_mut::<(&mut C, &mut D)>() {
                        std::mem::swap(&mut c.0, &mut d.0);
                    }
                    for (c, e) in w.query_mut::<(&mut C, &mut E)>() {
                        std::mem::swap(&mut c.0, &mut e.0);
                    }
                },
                sched_digest,
            )
        }
        Workload::Despawn => prepared_case(
            (World::new(), Vec::<Entity>::new(), despawn_order()),
            |(w, es, order)| {
                let spawned: Vec<Entity> = w.spawn_batch((0..N).map(bundle)).collect();
                es.clear();
                es.extend(order.iter().map(|&i| spawned[i]));
            },
            |(w, es, _)| {
                for &e in es.iter() {
                    w.despawn(e).expect("alive");
                }
            },
            |(w, _, _)| w.len() as f64 + w.query_mut::<&Position>().into_iter().count() as f64,
        ),
        Workload::HeavyCompute => {
            let mut w = World::new();
            w.spawn_batch((0..HEAVY_N).map(heavy_bundle));
            case(
                w,
                |w| {
                    w.query::<(&mut Transform, &mut Position)>()
                        .iter_batched(64)
                        .par_bridge()
                        .for_each(|batch| batch.for_each(|(t, p)| heavy(t, p)))
                },
                |w| {
                    w.query_mut::<(&Transform, &Position)>()
                        .into_iter()
                        .map(|(t, p)| sum_heavy(t, p))
                        .sum()
                },
            )
        }
    }
}

/// Runs the churn `History`; returns `(Entity::id(), label)` in query visit order.
pub fn probe(h: &History) -> Vec<(u64, u32)> {
    let mut w = World::new();
    let mut es: Vec<Entity> = (0..PROBE_FIRST).map(|l| w.spawn((Label(l),))).collect();
    for &l in &h.despawn {
        w.despawn(es[l as usize]).expect("alive");
    }
    es.extend((PROBE_FIRST..PROBE_FIRST + PROBE_MORE).map(|l| w.spawn((Label(l),))));
    for &l in &h.remove {
        w.remove_one::<Label>(es[l as usize]).expect("alive");
    }
    for &l in &h.readd {
        w.insert_one(es[l as usize], Label(l)).expect("alive");
    }
    w.query_mut::<(Entity, &Label)>()
        .into_iter()
        .map(|(e, l)| (e.id() as u64, l.0))
        .collect()
}
