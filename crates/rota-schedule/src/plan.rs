//! The plan: a total order of systems and its batches, computed from declarations alone.
//!
//! 1. **Edges.** `after` edges come first. Then every pair of systems that conflict (one writes
//!    what the other reads or writes, or both record commands) is ordered: in declaration order,
//!    unless that would close a cycle with the edges already placed (then the other way). Pairs
//!    are visited in declaration order, so the result depends on nothing but the declarations.
//! 2. **Order.** Kahn's algorithm over those edges; among systems free to run, the earliest
//!    declared goes first.
//! 3. **Batches.** A system's batch is one more than the latest batch of anything it must follow.
//!    Systems in one batch have no edge between them — no conflict, no `after` — so running them
//!    in parallel cannot change the result.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rota_core::system::SystemDescriptor;

use crate::error::ScheduleError;

/// Why one system runs before another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EdgeReason {
    /// Declared with `after`.
    After,
    /// Both access this type (or `"Commands"`) and at least one writes it.
    Conflict(&'static str),
}

/// A computed plan over systems indexed by declaration order.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// Declaration indices in plan order (the Kahn order). Execution goes batch by batch, which
    /// may interleave differently, but only among systems with no edge between them.
    pub(crate) order: Vec<usize>,
    /// `position[i]`: where declaration index `i` stands in `order`.
    pub(crate) position: Vec<usize>,
    /// Batches of declaration indices; each batch in run order.
    pub(crate) batches: Vec<Vec<usize>>,
    /// `(before, after, why)` for every edge.
    pub(crate) edges: Vec<(usize, usize, EdgeReason)>,
}

fn reaches(adj: &[Vec<usize>], from: usize, to: usize) -> bool {
    let mut seen = vec![false; adj.len()];
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        if std::mem::replace(&mut seen[n], true) {
            continue;
        }
        stack.extend(adj[n].iter().copied());
    }
    false
}

/// The systems on a cycle through `adj`, in edge order (used only when Kahn stalls). Every node
/// Kahn could not order still has an unordered predecessor, so walking predecessors from any of
/// them must revisit a node; the revisited stretch, reversed, is a cycle.
fn find_cycle(adj: &[Vec<usize>], stuck: &[bool]) -> Vec<usize> {
    let n = adj.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (from, succ) in adj.iter().enumerate() {
        for &to in succ {
            if stuck[from] && stuck[to] {
                preds[to].push(from);
            }
        }
    }
    let start = stuck.iter().position(|&s| s).unwrap_or(0);
    let mut path = vec![start];
    let mut pos = vec![usize::MAX; n];
    pos[start] = 0;
    let mut cur = start;
    loop {
        let Some(&prev) = preds[cur].iter().min() else {
            return path; // unreachable for a real stall; keeps the error informative anyway
        };
        if pos[prev] != usize::MAX {
            let mut cycle: Vec<usize> = path[pos[prev]..].to_vec();
            cycle.reverse();
            // `cycle` now runs prev -> ... in edge order, ending just before `prev` again.
            cycle.rotate_right(1);
            let first = cycle[0];
            cycle.push(first);
            return cycle;
        }
        pos[prev] = path.len();
        path.push(prev);
        cur = prev;
    }
}

impl Plan {
    /// Builds the plan. `after[i]` lists declaration indices system `i` runs after.
    /// `order_override` replaces declaration order as the tie-break and conflict direction
    /// (used by the ordering audit); `None` means declaration order.
    pub(crate) fn build(
        descriptors: &[SystemDescriptor],
        after: &[Vec<usize>],
        priority: Option<&[usize]>,
    ) -> Result<Plan, ScheduleError> {
        let n = descriptors.len();
        let rank = |i: usize| priority.map_or(i, |p| p[i]);
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut edges = Vec::new();
        for (i, deps) in after.iter().enumerate() {
            for &d in deps {
                if !adj[d].contains(&i) {
                    adj[d].push(i);
                    edges.push((d, i, EdgeReason::After));
                }
            }
        }
        // Cycles among `after` edges alone are the user's to fix: report them before adding
        // conflict edges (which never close a cycle).
        Self::kahn(&adj, &rank, descriptors)?;
        let mut by_rank: Vec<usize> = (0..n).collect();
        by_rank.sort_by_key(|&i| rank(i));
        for (x, &a) in by_rank.iter().enumerate() {
            for &b in &by_rank[x + 1..] {
                let Some(why) = descriptors[a].conflict_with(&descriptors[b]) else {
                    continue;
                };
                if reaches(&adj, a, b) || reaches(&adj, b, a) {
                    continue; // already ordered
                }
                adj[a].push(b);
                edges.push((a, b, EdgeReason::Conflict(why)));
            }
        }
        let order = Self::kahn(&adj, &rank, descriptors)?;
        let mut batch_of = vec![0usize; n];
        for &i in &order {
            for &j in &adj[i] {
                batch_of[j] = batch_of[j].max(batch_of[i] + 1);
            }
        }
        let count = batch_of.iter().copied().max().map_or(0, |m| m + 1);
        let mut batches = vec![Vec::new(); count];
        for &i in &order {
            batches[batch_of[i]].push(i);
        }
        let mut position = vec![0; n];
        for (p, &i) in order.iter().enumerate() {
            position[i] = p;
        }
        Ok(Plan {
            order,
            position,
            batches,
            edges,
        })
    }

    fn kahn(
        adj: &[Vec<usize>],
        rank: &dyn Fn(usize) -> usize,
        descriptors: &[SystemDescriptor],
    ) -> Result<Vec<usize>, ScheduleError> {
        let n = adj.len();
        let mut indegree = vec![0usize; n];
        for succ in adj {
            for &s in succ {
                indegree[s] += 1;
            }
        }
        let mut ready: BinaryHeap<Reverse<(usize, usize)>> = (0..n)
            .filter(|&i| indegree[i] == 0)
            .map(|i| Reverse((rank(i), i)))
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse((_, i))) = ready.pop() {
            order.push(i);
            for &s in &adj[i] {
                indegree[s] -= 1;
                if indegree[s] == 0 {
                    ready.push(Reverse((rank(s), s)));
                }
            }
        }
        if order.len() < n {
            let stuck: Vec<bool> = indegree.iter().map(|&d| d > 0).collect();
            let cycle = find_cycle(adj, &stuck);
            return Err(ScheduleError::Cycle {
                systems: cycle.iter().map(|&i| descriptors[i].name).collect(),
            });
        }
        Ok(order)
    }
}

#[cfg(test)]
mod tests;
