//! Unit tests of `hierarchy.rs`: the invariant checker on hierarchies no public method can
//! make (consistent cycles), built here from the private constructors.

use super::{ChildOf, Children};
use crate::world::World;

#[test]
fn a_cycle_whose_lists_agree_is_found_and_so_is_a_chain_hanging_from_it() {
    let mut world = World::new();
    let [a, b, c] = [(); 3].map(|_| world.spawn());
    // a <- b <- a, each listing the other; c hangs from b.
    world.insert(a, ChildOf(b)).unwrap();
    world.insert(b, ChildOf(a)).unwrap();
    world.insert(c, ChildOf(b)).unwrap();
    world.insert(a, Children(vec![b])).unwrap();
    world.insert(b, Children(vec![a, c])).unwrap();
    let error = world.check_hierarchy().unwrap_err();
    assert!(error.contains("is on a parent cycle"), "{error}");
    // Walked from `c` first (the cycle's entities are slots 0 and 1 either way).
    world.remove::<ChildOf>(a).unwrap();
    world.remove::<Children>(b).unwrap();
    world.insert(b, Children(vec![c])).unwrap();
    world.insert(a, Children(vec![b])).unwrap();
    world.check_hierarchy().unwrap();
}

#[test]
fn deep_and_wide_hierarchies_pass_and_a_late_cycle_is_still_found() {
    let mut world = World::new();
    let chain: Vec<_> = (0..2000).map(|_| world.spawn()).collect();
    // Built from the bottom up, as `set_parent`'s docs advise for long chains.
    for pair in chain.windows(2).rev() {
        world.set_parent(pair[1], pair[0]).unwrap();
    }
    let root = chain[0];
    let wide: Vec<_> = (0..2000).map(|_| world.spawn()).collect();
    for &leaf in &wide {
        world.set_parent(leaf, root).unwrap();
    }
    world.check_hierarchy().unwrap();
    assert_eq!(world.children(root).len(), 2001);
    // Close the chain into a loop behind the hierarchy's back: root's parent is the
    // deepest entity, which lists it. Every walk so far ended at `root`; now none does.
    let deepest = *chain.last().unwrap();
    world.insert(root, ChildOf(deepest)).unwrap();
    world.insert(deepest, Children(vec![root])).unwrap();
    let error = world.check_hierarchy().unwrap_err();
    assert!(error.contains("is on a parent cycle"), "{error}");
}
