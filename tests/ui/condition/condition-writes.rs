#![allow(unused_imports, dead_code, unused_variables)]

use rota::{condition, system, Commands, Component, Query, Res, ResMut, Resource};

#[derive(Resource, Clone)]
struct Clock(u32);
#[derive(Component, Clone)]
struct Prey;

#[condition(reads(Clock))]
fn is_day(mut clock: ResMut<Clock>) -> bool {
    clock.0 += 1;
    true
}

fn main() {}
