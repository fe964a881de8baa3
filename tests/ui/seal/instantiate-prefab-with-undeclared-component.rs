#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Prefab, Query, Res, Resource};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Templates(Prefab<(Position, Health)>);

// A prefab is typed by its bundle: instantiating it is spawning its components, so the
// system must declare every one of them.
#[system(reads(Templates), defers(Position))]
fn breed(templates: Res<Templates>, mut commands: Commands) {
    let _ = commands.instantiate(&templates.0, |(p, _)| p.0 = 1.0);
}

fn main() {}
