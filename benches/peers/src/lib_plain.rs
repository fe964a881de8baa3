//! Plain Rust, no ECS: the lower bound for the structural workloads. The same values move
//! through plain `Vec`s indexed by entity number — what any ECS must do at least.
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
        _ => None,
    }
}
