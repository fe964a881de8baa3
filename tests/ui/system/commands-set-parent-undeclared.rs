#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query};

#[derive(Component, Clone)]
struct Rider;

// Changing the hierarchy changes `ChildOf` (and `Children`): declare `defers(ChildOf)`.
#[system(reads(Rider))]
fn mount(riders: Query<Entity, rota::With<Rider>>, mut commands: Commands) {
    let all: Vec<Entity> = riders.iter().collect();
    commands.set_parent(all[0], all[1]);
}

fn main() {}
