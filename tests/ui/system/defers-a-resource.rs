#![allow(unused_imports, dead_code, unused_variables)]

// `defers(..)` is for components a system's `Commands` insert, remove or spawn; a resource is
// changed through `ResMut`, declared in `writes(..)`.

use rota::{system, Commands, Component, Entity, Query, Resource};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Resource, Clone)]
struct Score(u32);

#[system(reads(Position), defers(Score))]
fn scorer(q: Query<Entity>, commands: Commands) {}

fn main() {}
