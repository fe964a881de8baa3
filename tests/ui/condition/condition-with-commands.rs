#![allow(unused_imports, dead_code, unused_variables)]

use rota::{condition, system, Commands, Component, Query, Res, ResMut, Resource};

#[derive(Resource, Clone)]
struct Clock(u32);
#[derive(Component, Clone)]
struct Prey;

#[condition()]
fn spawns(commands: Commands) -> bool {
    true
}

fn main() {}
