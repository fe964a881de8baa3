//! bevy_ecs 0.20 (`multi_threaded`): `spawn_batch`, `QueryState`, `Schedule` (multi-threaded
//! executor) for schedule, `QueryState::par_iter_mut` on the ComputeTaskPool for heavy_compute.

use bevy_ecs::prelude::{Entity, Query, Schedule, World};
use bevy_ecs::query::QueryState;

use crate::common::*;

fn ab(mut q: Query<(&mut A, &mut B)>) {
    for (mut a, mut b) in &mut q {
        std::mem::swap(&mut a.0, &mut b.0);
    }
}

fn cd(mut q: Query<(&mut C, &mut D)>) {
    for (mut c, mut d) in &mut q {
        std::mem::swap(&mut c.0, &mut d.0);
    }
}

fn ce(mut q: Query<(&mut C, &mut E)>) {
    for (mut c, mut e) in &mut q {
        std::mem::swap(&mut c.0, &mut e.0);
    }
}

/// The ComputeTaskPool must exist before `par_iter_mut` or the multi-threaded executor runs.
pub fn init_pools() {
    bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
}

fn sum_of<T: bevy_ecs::component::Component>(w: &mut World, f: impl Fn(&T) -> f64) -> f64 {
    let mut q = w.query::<&T>();
    q.iter(w).map(f).sum()
}

fn sched_digest(w: &mut World) -> f64 {
    sum_of::<A>(w, |x| super::common::w(1.0, x.0))
        + sum_of::<B>(w, |x| super::common::w(2.0, x.0))
        + sum_of::<C>(w, |x| super::common::w(3.0, x.0))
        + sum_of::<D>(w, |x| super::common::w(4.0, x.0))
        + sum_of::<E>(w, |x| super::common::w(5.0, x.0))
}

type IterQ = QueryState<(&'static mut Position, &'static Velocity)>;
type HeavyQ = QueryState<(&'static mut Transform, &'static mut Position)>;

pub fn make(wl: Workload) -> Box<dyn Bench> {
    init_pools();
    match wl {
        Workload::SimpleInsert => case(
            None::<World>,
            |s| {
                let mut w = World::new();
                w.spawn_batch((0..N).map(bundle));
                *s = Some(w);
            },
            |s| {
                let w = s.as_mut().expect("ran");
                let mut q = w.query::<(&Transform, &Position, &Rotation, &Velocity)>();
                q.iter(w).map(|(t, p, r, v)| sum_bundle(t, p, r, v)).sum()
            },
        ),
        Workload::SimpleIter => {
            let mut w = World::new();
            w.spawn_batch((0..N).map(bundle));
            let q: IterQ = w.query();
            case(
                (w, q),
                |(w, q)| {
                    q.iter_mut(w).for_each(|(mut p, v)| {
                        p.0[0] += v.0[0];
                        p.0[1] += v.0[1];
                        p.0[2] += v.0[2];
                    })
                },
                |(w, _)| sum_of::<Position>(w, |p| sum3(&p.0)),
            )
        }
        Workload::FragmentedIter => {
            let mut w = World::new();
            macro_rules! sp {
                ($w:expr, $t:ident) => {
                    $w.spawn_batch((0..FRAG_PER_TYPE).map(|_| (frag::$t(0.0), Data(1.0))));
                };
            }
            frag_all!(sp, w);
            let q: QueryState<&'static mut Data> = w.query();
            case(
                (w, q),
                |(w, q)| q.iter_mut(w).for_each(|mut d| d.0 *= 2.0),
                |(w, _)| sum_of::<Data>(w, |d| d.0 as f64),
            )
        }
        Workload::AddRemove => {
            let mut w = World::new();
            let es: Vec<Entity> = w.spawn_batch((0..N).map(|_| AddA(1.0))).collect();
            case(
                (w, es),
                |(w, es)| {
                    for &e in es.iter() {
                        w.entity_mut(e).insert(AddB(0.0));
                    }
                    for &e in es.iter() {
                        w.entity_mut(e).remove::<AddB>();
                    }
                },
                |(w, _)| sum_of::<AddA>(w, |a| a.0 as f64) + sum_of::<AddB>(w, |_| 1000.0),
            )
        }
        Workload::Schedule => {
            let mut w = World::new();
            w.spawn_batch((0..N).map(sched_ab));
            w.spawn_batch((0..N).map(sched_abc));
            w.spawn_batch((0..N).map(sched_abcd));
            w.spawn_batch((0..N).map(sched_abce));
            let mut s = Schedule::default();
            s.add_systems((ab, cd, ce));
            case((w, s), |(w, s)| s.run(w), |(w, _)| sched_digest(w))
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
                    assert!(w.despawn(e));
                }
            },
            |(w, _, _)| sum_of::<Position>(w, |_| 1.0),
        ),
        Workload::HeavyCompute => {
            let mut w = World::new();
            w.spawn_batch((0..HEAVY_N).map(heavy_bundle));
            let q: HeavyQ = w.query();
            case(
                (w, q),
                |(w, q)| {
                    q.par_iter_mut(w)
                        .for_each(|(mut t, mut p)| heavy(&mut t, &mut p))
                },
                |(w, _)| {
                    let mut q = w.query::<(&Transform, &Position)>();
                    q.iter(w).map(|(t, p)| sum_heavy(t, p)).sum()
                },
            )
        }
    }
}

/// Runs the churn `History`; returns `(Entity::index_u32(), label)` in query visit order.
pub fn probe(h: &History) -> Vec<(u64, u32)> {
    let mut w = World::new();
    let mut es: Vec<Entity> = (0..PROBE_FIRST).map(|l| w.spawn(Label(l)).id()).collect();
    for &l in &h.despawn {
        assert!(w.despawn(es[l as usize]));
    }
    es.extend((PROBE_FIRST..PROBE_FIRST + PROBE_MORE).map(|l| w.spawn(Label(l)).id()));
    for &l in &h.remove {
        w.entity_mut(es[l as usize]).remove::<Label>();
    }
    for &l in &h.readd {
        w.entity_mut(es[l as usize]).insert(Label(l));
    }
    let mut q = w.query::<(Entity, &Label)>();
    q.iter(&w)
        .map(|(e, l)| (e.index_u32() as u64, l.0))
        .collect()
}
