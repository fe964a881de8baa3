//! The planner's internals: reachability, cycle extraction, conflict edges and their direction,
//! the Kahn tie-break, and batch invariants over random `after` graphs.

use proptest::prelude::*;
use rota::{Component, system};

use super::{EdgeReason, Plan, find_cycle, reaches};
use crate::ScheduleBuilder;
use crate::error::ScheduleError;
use rota_core::system::SystemDescriptor;

#[derive(Component, Clone)]
struct X;
#[derive(Component, Clone)]
struct Y;

#[system(writes(X))]
fn wx() {}
#[system(reads(X))]
fn rx() {}
#[system(writes(Y))]
fn wy() {}
#[system(reads(X), writes(Y))]
fn rx_wy() {}
#[system]
fn free() {}

/// Declaration order: wx = 0, rx = 1, wy = 2, rx_wy = 3, free = 4.
fn descriptors() -> Vec<SystemDescriptor> {
    let b = ScheduleBuilder::default()
        .add(wx)
        .add(rx)
        .add(wy)
        .add(rx_wy)
        .add(free);
    b.descriptors
}

fn no_after() -> Vec<Vec<usize>> {
    vec![Vec::new(); 5]
}

#[test]
fn reaches_follows_edges_forward_and_transitively() {
    let adj = vec![vec![1], vec![2], vec![], vec![0]];
    assert!(reaches(&adj, 0, 2));
    assert!(reaches(&adj, 3, 2));
    assert!(reaches(&adj, 1, 1), "a node reaches itself");
    assert!(!reaches(&adj, 2, 0));
    assert!(!reaches(&adj, 0, 3));
}

#[test]
fn find_cycle_lists_the_cycle_in_edge_order_first_repeated() {
    // 0 -> 1 -> 2 -> 0, and 3 -> 0 (3 is not on the cycle and Kahn could order it).
    let adj = vec![vec![1], vec![2], vec![0], vec![0]];
    let stuck = [true, true, true, false];
    assert_eq!(find_cycle(&adj, &stuck), [0, 1, 2, 0]);
}

#[test]
fn conflicts_become_edges_in_declaration_order() {
    let d = descriptors();
    let plan = Plan::build(&d, &no_after(), None).unwrap();
    assert_eq!(
        plan.edges,
        [
            (0, 1, EdgeReason::Conflict("X")),
            (0, 3, EdgeReason::Conflict("X")),
            (2, 3, EdgeReason::Conflict("Y")),
        ]
    );
    // Kahn: ready {wx, wy, free}; popping wx frees rx (declared before wy), so rx jumps ahead.
    assert_eq!(plan.order, [0, 1, 2, 3, 4]);
    assert_eq!(plan.position, [0, 1, 2, 3, 4]);
    assert_eq!(plan.batches, [vec![0, 2, 4], vec![1, 3]]);
}

#[test]
fn an_after_path_replaces_the_conflict_edge() {
    let d = descriptors();
    let mut after = no_after();
    after[0] = vec![1]; // wx after rx: the X conflict between them is already ordered
    let plan = Plan::build(&d, &after, None).unwrap();
    assert!(plan.edges.contains(&(1, 0, EdgeReason::After)));
    assert!(!plan.edges.iter().any(|&(a, b, _)| (a, b) == (0, 1)));
    assert_eq!(plan.batches, [vec![1, 2, 4], vec![0], vec![3]]);
}

#[test]
fn a_priority_reverses_tie_break_and_conflict_direction() {
    let d = descriptors();
    let reversed = [4, 3, 2, 1, 0];
    let plan = Plan::build(&d, &no_after(), Some(&reversed)).unwrap();
    assert_eq!(
        plan.edges,
        [
            (3, 2, EdgeReason::Conflict("Y")),
            (3, 0, EdgeReason::Conflict("X")),
            (1, 0, EdgeReason::Conflict("X")),
        ]
    );
    assert_eq!(plan.order, [4, 3, 2, 1, 0]);
    assert_eq!(plan.batches, [vec![4, 3, 1], vec![2, 0]]);
}

#[test]
fn a_cycle_of_after_edges_is_named() {
    let d = descriptors();
    let mut after = no_after();
    after[0] = vec![1];
    after[1] = vec![0];
    assert_eq!(
        Plan::build(&d, &after, None).unwrap_err(),
        ScheduleError::Cycle {
            systems: vec!["wx", "rx", "wx"]
        }
    );
}

proptest! {
    /// Over random acyclic `after` lists: `position` inverts `order`; every edge goes forward in
    /// the order and to a later batch; a batch holds no edge; and every system past batch 0
    /// has a predecessor in the batch just before (batches are as early as possible).
    #[test]
    fn plan_invariants_hold(edges in proptest::collection::vec((0usize..5, 0usize..5), 0..8)) {
        let d = descriptors();
        let mut after = no_after();
        for (i, j) in edges {
            if j < i {
                after[i].push(j);
            }
        }
        let plan = Plan::build(&d, &after, None).unwrap();
        let mut sorted = plan.order.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, vec![0, 1, 2, 3, 4]);
        for (p, &i) in plan.order.iter().enumerate() {
            prop_assert_eq!(plan.position[i], p);
        }
        let mut batch_of = [usize::MAX; 5];
        for (b, batch) in plan.batches.iter().enumerate() {
            for &i in batch {
                batch_of[i] = b;
            }
        }
        for &(a, b, _) in &plan.edges {
            prop_assert!(plan.position[a] < plan.position[b]);
            prop_assert!(batch_of[a] < batch_of[b]);
        }
        for (i, deps) in after.iter().enumerate() {
            for &j in deps {
                prop_assert!(plan.edges.iter().any(|&(a, b, _)| (a, b) == (j, i)));
            }
        }
        for i in 0..5 {
            if batch_of[i] > 0 {
                prop_assert!(plan
                    .edges
                    .iter()
                    .any(|&(a, b, _)| b == i && batch_of[a] + 1 == batch_of[i]));
            }
        }
    }
}
