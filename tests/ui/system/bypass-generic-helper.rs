#![allow(unused_imports, dead_code, unused_variables)]

use rota::rota_core::system::Writes;
use rota::{system, Commands, Component, Entity, Query};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);

// A generic helper must state what it writes; the system that calls it must have declared it.
fn infect_all<S: Writes<Health> + 'static>(commands: &mut Commands<'_, S>, targets: &[Entity]) {
    for &e in targets {
        commands.insert(e, Health(1));
    }
}

#[system(reads(Position))]
fn sneaky(q: Query<(Entity, &Position)>, mut commands: Commands) {
    let targets: Vec<Entity> = q.iter().map(|(e, _)| e).collect();
    infect_all(&mut commands, &targets);
}

fn main() {}
