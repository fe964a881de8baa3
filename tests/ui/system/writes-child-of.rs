#![allow(unused_imports, dead_code, unused_variables)]

// `writes(ChildOf)` would hand out `&mut ChildOf`, and two links swapped through it make a node
// its own parent: the hierarchy changes only through `set_parent`/`remove_parent`.

use rota::{system, ChildOf, Query};

#[system(writes(ChildOf))]
fn rewire(q: Query<&mut ChildOf>) {}

fn main() {}
