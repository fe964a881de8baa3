//! Plain Rust, no ECS: the lower bound for every workload. The same values move through plain
//! `Vec`s — what any ECS must do at least.
//!
//! * simple_iter / fragmented_iter: the matching values already packed in vectors, one loop.
//! * schedule: the four entity groups as columns, each swap over the groups that have both.
//! * heavy_compute: a vector of rows under rayon's `par_iter_mut`.
//!
//! * simple_insert: four columns, `Vec::with_capacity(N)` and `push`, a fresh set per iteration.
//! * add_remove: an `Option<AddB>` column; insert = `col[i] = Some(..)`, remove = `col[i].take()`.
//! * despawn: a liveness column and four `Option` columns; despawn clears the entity's five
//!   entries, in the same shuffled order as every library.

use std::hint::black_box;

use crate::common::*;

struct Columns {
    t: Vec<Transform>,
    p: Vec<Position>,
    r: Vec<Rotation>,
    v: Vec<Velocity>,
}

struct OptionColumns {
    alive: Vec<bool>,
    t: Vec<Option<Transform>>,
    p: Vec<Option<Position>>,
    r: Vec<Option<Rotation>>,
    v: Vec<Option<Velocity>>,
    order: Vec<usize>,
}

/// simple_iter's two columns, `Position` and `Velocity`.
fn simple_columns() -> (Vec<Position>, Vec<Velocity>) {
    (0..N).map(|i| (bundle(i).1, bundle(i).3)).unzip()
}

fn simple_digest((p, _): &mut (Vec<Position>, Vec<Velocity>)) -> f64 {
    p.iter().map(|p| sum3(&p.0)).sum()
}

/// Other plain-Rust loop styles, reported beside the lower bound: simple_iter's body in
/// `for_each`'s closure (`plain for_each`). The same zip and the same body as the `for` loop;
/// what differs is that the closure's parameters are `noalias` to LLVM, which then adds `x`
/// and `y` as one pair (docs/benchmarks.md, "simple_iter: no `for` loop reaches `for_each`").
pub fn variants(wl: Workload) -> Vec<(&'static str, Box<dyn Bench>)> {
    match wl {
        Workload::SimpleIter => vec![(
            "plain for_each",
            case(
                simple_columns(),
                |(p, v)| {
                    p.iter_mut().zip(v.iter()).for_each(|(p, v)| {
                        p.0[0] += v.0[0];
                        p.0[1] += v.0[1];
                        p.0[2] += v.0[2];
                    })
                },
                simple_digest,
            ),
        )],
        _ => Vec::new(),
    }
}

/// The plain-Rust case for `wl`, if it has one.
pub fn make(wl: Workload) -> Option<Box<dyn Bench>> {
    match wl {
        Workload::SimpleInsert => Some(case(
            None::<Columns>,
            |s| {
                let mut c = Columns {
                    t: Vec::with_capacity(N),
                    p: Vec::with_capacity(N),
                    r: Vec::with_capacity(N),
                    v: Vec::with_capacity(N),
                };
                for i in 0..N {
                    let (t, p, r, v) = bundle(i);
                    c.t.push(t);
                    c.p.push(p);
                    c.r.push(r);
                    c.v.push(v);
                }
                *s = Some(black_box(c));
            },
            |s| {
                let c = s.as_ref().expect("ran");
                (0..N)
                    .map(|i| sum_bundle(&c.t[i], &c.p[i], &c.r[i], &c.v[i]))
                    .sum()
            },
        )),
        Workload::AddRemove => Some(case(
            (
                vec![AddA(1.0); N],
                vec![None::<AddB>; N],
                (0..N).collect::<Vec<usize>>(),
            ),
            |(_, b, es)| {
                for &e in es.iter() {
                    b[e] = Some(AddB(0.0));
                }
                for &e in es.iter() {
                    black_box(b[e].take());
                }
            },
            |(a, b, _)| {
                a.iter().map(|x| x.0 as f64).sum::<f64>()
                    + 1000.0 * b.iter().filter(|x| x.is_some()).count() as f64
            },
        )),
        Workload::Despawn => Some(prepared_case(
            OptionColumns {
                alive: vec![false; N],
                t: vec![None; N],
                p: vec![None; N],
                r: vec![None; N],
                v: vec![None; N],
                order: despawn_order(),
            },
            |c| {
                for i in 0..N {
                    let (t, p, r, v) = bundle(i);
                    c.alive[i] = true;
                    c.t[i] = Some(t);
                    c.p[i] = Some(p);
                    c.r[i] = Some(r);
                    c.v[i] = Some(v);
                }
            },
            |c| {
                for &i in c.order.iter() {
                    assert!(std::mem::replace(&mut c.alive[i], false));
                    c.t[i] = None;
                    c.p[i] = None;
                    c.r[i] = None;
                    c.v[i] = None;
                }
                black_box(&mut *c);
            },
            |c| {
                c.alive.iter().filter(|&&a| a).count() as f64
                    + c.p.iter().filter(|p| p.is_some()).count() as f64
            },
        )),
        Workload::SimpleIter => Some(case(
            simple_columns(),
            |(p, v)| {
                for (p, v) in p.iter_mut().zip(v.iter()) {
                    p.0[0] += v.0[0];
                    p.0[1] += v.0[1];
                    p.0[2] += v.0[2];
                }
            },
            simple_digest,
        )),
        // The 26 fragments' `Data` packed in one vector: what iterating `Data` must touch.
        Workload::FragmentedIter => Some(case(
            vec![Data(1.0); 26 * FRAG_PER_TYPE],
            |d| {
                for d in d.iter_mut() {
                    d.0 *= 2.0;
                }
            },
            |d| d.iter().map(|d| d.0 as f64).sum(),
        )),
        // Four groups of rows (ab, abc, abcd, abce) as columns; the three swaps touch only the
        // groups that have both components.
        Workload::Schedule => {
            let mut g: [[Vec<f32>; 5]; 4] = Default::default();
            for i in 0..N {
                let (a, b) = sched_ab(i);
                g[0][0].push(a.0);
                g[0][1].push(b.0);
                let (a, b, c) = sched_abc(i);
                g[1][0].push(a.0);
                g[1][1].push(b.0);
                g[1][2].push(c.0);
                let (a, b, c, d) = sched_abcd(i);
                g[2][0].push(a.0);
                g[2][1].push(b.0);
                g[2][2].push(c.0);
                g[2][3].push(d.0);
                let (a, b, c, e) = sched_abce(i);
                g[3][0].push(a.0);
                g[3][1].push(b.0);
                g[3][2].push(c.0);
                g[3][4].push(e.0);
            }
            Some(case(
                g,
                |g| {
                    for group in g.iter_mut() {
                        let [a, b, ..] = group;
                        for (x, y) in a.iter_mut().zip(b.iter_mut()) {
                            std::mem::swap(x, y);
                        }
                    }
                    for (group, other) in [(2, 3), (3, 4)] {
                        let [_, _, c, d, e] = &mut g[group];
                        let y = if other == 3 { d } else { e };
                        for (x, y) in c.iter_mut().zip(y.iter_mut()) {
                            std::mem::swap(x, y);
                        }
                    }
                },
                |g| {
                    g.iter()
                        .flat_map(|group| group.iter().enumerate())
                        .flat_map(|(k, col)| col.iter().map(move |&v| w(k as f64 + 1.0, v)))
                        .sum()
                },
            ))
        }
        // The same work as every library's heavy_compute, over rayon, no ECS.
        Workload::HeavyCompute => {
            let rows: Vec<(Transform, Position)> = (0..HEAVY_N)
                .map(|i| {
                    let (t, p, _, _) = heavy_bundle(i);
                    (t, p)
                })
                .collect();
            Some(case(
                rows,
                |rows| {
                    use rayon::prelude::*;
                    rows.par_iter_mut().for_each(|(t, p)| heavy(t, p));
                },
                |rows| rows.iter().map(|(t, p)| sum_heavy(t, p)).sum(),
            ))
        }
    }
}
