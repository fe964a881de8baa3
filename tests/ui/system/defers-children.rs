#![allow(unused_imports, dead_code, unused_variables)]

// `Commands::remove::<Children>` would orphan children that still name their parent: the
// hierarchy changes only through `set_parent`/`remove_parent`, which need `defers(ChildOf)`.

use rota::{system, Children, Commands, Entity, Query};

#[system(reads(Children), defers(Children))]
fn disown(q: Query<Entity>, commands: Commands) {}

fn main() {}
