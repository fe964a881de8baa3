//! sparsey 0.13: `extend`, `for_each`, `par_for_each` (feature `parallel`). sparsey 0.13 has
//! no scheduler, so schedule runs its three systems as a sequential loop.

use sparsey::{Entity, World};

use crate::common::*;

fn sum_of<T: sparsey::component::Component>(w: &World, f: impl Fn(&T) -> f64) -> f64 {
    let mut s = 0.0;
    w.for_each::<&T>(|x| s += f(x));
    s
}

fn sched_digest(w: &mut World) -> f64 {
    sum_of::<A>(w, |x| super::common::w(1.0, x.0))
        + sum_of::<B>(w, |x| super::common::w(2.0, x.0))
        + sum_of::<C>(w, |x| super::common::w(3.0, x.0))
        + sum_of::<D>(w, |x| super::common::w(4.0, x.0))
        + sum_of::<E>(w, |x| super::common::w(5.0, x.0))
}

fn bundle_world() -> World {
    World::builder()
        .register::<Transform>()
        .register::<Position>()
        .register::<Rotation>()
        .register::<Velocity>()
        .build()
}

pub fn make(wl: Workload) -> Box<dyn Bench> {
    match wl {
        Workload::SimpleInsert => case(
            None::<World>,
            |s| {
                let mut w = bundle_world();
                w.extend((0..N).map(bundle));
                *s = Some(w);
            },
            |s| {
                let mut sum = 0.0;
                s.as_mut()
                    .expect("ran")
                    .for_each::<(&Transform, &Position, &Rotation, &Velocity)>(|(t, p, r, v)| {
                        sum += sum_bundle(t, p, r, v)
                    });
                sum
            },
        ),
        Workload::SimpleIter => {
            let mut w = bundle_world();
            w.extend((0..N).map(bundle));
            case(
                w,
                |w| {
                    w.for_each::<(&mut Position, &Velocity)>(|(p, v)| {
                        p.0[0] += v.0[0];
                        p.0[1] += v.0[1];
                        p.0[2] += v.0[2];
                    })
                },
                |w| sum_of::<Position>(w, |p| sum3(&p.0)),
            )
        }
        Workload::FragmentedIter => {
            let mut b = World::builder();
            b.register::<Data>();
            macro_rules! reg {
                ($b:expr, $t:ident) => {
                    $b.register::<frag::$t>();
                };
            }
            frag_all!(reg, b);
            let mut w = b.build();
            macro_rules! sp {
                ($w:expr, $t:ident) => {
                    $w.extend((0..FRAG_PER_TYPE).map(|_| (frag::$t(0.0), Data(1.0))));
                };
            }
            frag_all!(sp, w);
            case(
                w,
                |w| w.for_each::<&mut Data>(|d| d.0 *= 2.0),
                |w| sum_of::<Data>(w, |d| d.0 as f64),
            )
        }
        Workload::AddRemove => {
            let mut w = World::builder()
                .register::<AddA>()
                .register::<AddB>()
                .build();
            let es: Vec<Entity> = w.extend((0..N).map(|_| (AddA(1.0),))).to_vec();
            case(
                (w, es),
                |(w, es)| {
                    for &e in es.iter() {
                        assert!(w.insert(e, (AddB(0.0),)));
                    }
                    for &e in es.iter() {
                        w.delete::<(AddB,)>(e);
                    }
                },
                |(w, _)| sum_of::<AddA>(w, |a| a.0 as f64) + sum_of::<AddB>(w, |_| 1000.0),
            )
        }
        Workload::Schedule => {
            let mut w = World::builder()
                .register::<A>()
                .register::<B>()
                .register::<C>()
                .register::<D>()
                .register::<E>()
                .build();
            w.extend((0..N).map(sched_ab));
            w.extend((0..N).map(sched_abc));
            w.extend((0..N).map(sched_abcd));
            w.extend((0..N).map(sched_abce));
            case(
                w,
                |w| {
                    w.for_each::<(&mut A, &mut B)>(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
                    w.for_each::<(&mut C, &mut D)>(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
                    w.for_each::<(&mut C, &mut E)>(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
                },
                sched_digest,
            )
        }
        Workload::Despawn => prepared_case(
            (bundle_world(), Vec::<Entity>::new(), despawn_order()),
            |(w, es, order)| {
                let spawned: Vec<Entity> = w.extend((0..N).map(bundle)).to_vec();
                es.clear();
                es.extend(order.iter().map(|&i| spawned[i]));
            },
            |(w, es, _)| {
                for &e in es.iter() {
                    assert!(w.destroy(e));
                }
            },
            |(w, _, _)| sum_of::<Position>(w, |_| 1.0),
        ),
        Workload::HeavyCompute => {
            let mut w = bundle_world();
            w.extend((0..HEAVY_N).map(heavy_bundle));
            case(
                w,
                |w| w.par_for_each::<(&mut Transform, &mut Position)>(|(t, p)| heavy(t, p)),
                |w| {
                    let mut s = 0.0;
                    w.for_each::<(&Transform, &Position)>(|(t, p)| s += sum_heavy(t, p));
                    s
                },
            )
        }
    }
}

/// Runs the churn `History`; returns `(Entity.index, label)` in query visit order.
pub fn probe(h: &History) -> Vec<(u64, u32)> {
    let mut w = World::builder().register::<Label>().build();
    let mut es: Vec<Entity> = (0..PROBE_FIRST).map(|l| w.create((Label(l),))).collect();
    for &l in &h.despawn {
        assert!(w.destroy(es[l as usize]));
    }
    es.extend((PROBE_FIRST..PROBE_FIRST + PROBE_MORE).map(|l| w.create((Label(l),))));
    for &l in &h.remove {
        w.delete::<(Label,)>(es[l as usize]);
    }
    for &l in &h.readd {
        assert!(w.insert(es[l as usize], (Label(l),)));
    }
    let mut out = Vec::new();
    w.for_each::<(Entity, &Label)>(|(e, l)| out.push((e.index as u64, l.0)));
    out
}
