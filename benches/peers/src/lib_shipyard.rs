//! shipyard 0.11: `bulk_add_entity`, views, a `Workload` for schedule, rayon `par_iter` for
//! heavy_compute. add_remove uses `World::add_component` / `World::delete_component`.

use rayon::prelude::*;
use shipyard::{EntityId, IntoIter, View, ViewMut, Workload, World};

use crate::common::*;

fn ab(mut a: ViewMut<'_, A>, mut b: ViewMut<'_, B>) {
    for (a, b) in (&mut a, &mut b).iter() {
        std::mem::swap(&mut a.0, &mut b.0);
    }
}

fn cd(mut c: ViewMut<'_, C>, mut d: ViewMut<'_, D>) {
    for (c, d) in (&mut c, &mut d).iter() {
        std::mem::swap(&mut c.0, &mut d.0);
    }
}

fn ce(mut c: ViewMut<'_, C>, mut e: ViewMut<'_, E>) {
    for (c, e) in (&mut c, &mut e).iter() {
        std::mem::swap(&mut c.0, &mut e.0);
    }
}

fn sum_of<T: shipyard::Component + Send + Sync>(w: &World, f: impl Fn(&T) -> f64) -> f64 {
    w.run(|v: View<'_, T>| v.iter().map(&f).sum())
}

fn sched_digest(w: &mut World) -> f64 {
    sum_of::<A>(w, |x| super::common::w(1.0, x.0))
        + sum_of::<B>(w, |x| super::common::w(2.0, x.0))
        + sum_of::<C>(w, |x| super::common::w(3.0, x.0))
        + sum_of::<D>(w, |x| super::common::w(4.0, x.0))
        + sum_of::<E>(w, |x| super::common::w(5.0, x.0))
}

pub fn make(wl: Workload_) -> Box<dyn Bench> {
    match wl {
        Workload_::SimpleInsert => case(
            None::<World>,
            |s| {
                let mut w = World::new();
                w.bulk_add_entity((0..N).map(bundle));
                *s = Some(w);
            },
            |s| {
                s.as_mut().expect("ran").run(
                    |t: View<'_, Transform>,
                     p: View<'_, Position>,
                     r: View<'_, Rotation>,
                     v: View<'_, Velocity>| {
                        (&t, &p, &r, &v)
                            .iter()
                            .map(|(t, p, r, v)| sum_bundle(t, p, r, v))
                            .sum()
                    },
                )
            },
        ),
        Workload_::SimpleIter => {
            let mut w = World::new();
            w.bulk_add_entity((0..N).map(bundle));
            case(
                w,
                |w| {
                    w.run(|mut p: ViewMut<'_, Position>, v: View<'_, Velocity>| {
                        for (p, v) in (&mut p, &v).iter() {
                            p.0[0] += v.0[0];
                            p.0[1] += v.0[1];
                            p.0[2] += v.0[2];
                        }
                    })
                },
                |w| sum_of::<Position>(w, |p| sum3(&p.0)),
            )
        }
        Workload_::FragmentedIter => {
            let mut w = World::new();
            macro_rules! sp {
                ($w:expr, $t:ident) => {
                    $w.bulk_add_entity((0..FRAG_PER_TYPE).map(|_| (frag::$t(0.0), Data(1.0))));
                };
            }
            frag_all!(sp, w);
            case(
                w,
                |w| {
                    w.run(|mut d: ViewMut<'_, Data>| {
                        for d in (&mut d).iter() {
                            d.0 *= 2.0;
                        }
                    })
                },
                |w| sum_of::<Data>(w, |d| d.0 as f64),
            )
        }
        Workload_::AddRemove => {
            let mut w = World::new();
            let es: Vec<EntityId> = w.bulk_add_entity((0..N).map(|_| (AddA(1.0),))).collect();
            case(
                (w, es),
                |(w, es)| {
                    for &e in es.iter() {
                        w.add_component(e, (AddB(0.0),));
                    }
                    for &e in es.iter() {
                        w.delete_component::<(AddB,)>(e);
                    }
                },
                |(w, _)| sum_of::<AddA>(w, |a| a.0 as f64) + sum_of::<AddB>(w, |_| 1000.0),
            )
        }
        Workload_::Schedule => {
            let mut w = World::new();
            w.bulk_add_entity((0..N).map(sched_ab));
            w.bulk_add_entity((0..N).map(sched_abc));
            w.bulk_add_entity((0..N).map(sched_abcd));
            w.bulk_add_entity((0..N).map(sched_abce));
            Workload::new("schedule")
                .with_system(ab)
                .with_system(cd)
                .with_system(ce)
                .add_to_world(&w)
                .expect("valid workload");
            case(
                w,
                |w| w.run_workload("schedule").expect("workload runs"),
                sched_digest,
            )
        }
        Workload_::Despawn => prepared_case(
            (World::new(), Vec::<EntityId>::new(), despawn_order()),
            |(w, es, order)| {
                let spawned: Vec<EntityId> = w.bulk_add_entity((0..N).map(bundle)).collect();
                es.clear();
                es.extend(order.iter().map(|&i| spawned[i]));
            },
            |(w, es, _)| {
                for &e in es.iter() {
                    assert!(w.delete_entity(e));
                }
            },
            |(w, _, _)| sum_of::<Position>(w, |_| 1.0),
        ),
        Workload_::HeavyCompute => {
            let mut w = World::new();
            w.bulk_add_entity((0..HEAVY_N).map(heavy_bundle));
            case(
                w,
                |w| {
                    w.run(
                        |mut t: ViewMut<'_, Transform>, mut p: ViewMut<'_, Position>| {
                            (&mut t, &mut p).par_iter().for_each(|(t, p)| heavy(t, p))
                        },
                    )
                },
                |w| {
                    w.run(|t: View<'_, Transform>, p: View<'_, Position>| {
                        (&t, &p).iter().map(|(t, p)| sum_heavy(t, p)).sum()
                    })
                },
            )
        }
    }
}

use crate::common::Workload as Workload_;

/// Runs the churn `History`; returns `(EntityId::index(), label)` in query visit order.
pub fn probe(h: &History) -> Vec<(u64, u32)> {
    let mut w = World::new();
    let mut es: Vec<EntityId> = (0..PROBE_FIRST)
        .map(|l| w.add_entity((Label(l),)))
        .collect();
    for &l in &h.despawn {
        assert!(w.delete_entity(es[l as usize]));
    }
    es.extend((PROBE_FIRST..PROBE_FIRST + PROBE_MORE).map(|l| w.add_entity((Label(l),))));
    for &l in &h.remove {
        w.delete_component::<(Label,)>(es[l as usize]);
    }
    for &l in &h.readd {
        w.add_component(es[l as usize], (Label(l),));
    }
    w.run(|v: View<'_, Label>| v.iter().with_id().map(|(e, l)| (e.index(), l.0)).collect())
}
