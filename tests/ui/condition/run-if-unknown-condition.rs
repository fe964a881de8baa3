#![allow(unused_imports, dead_code, unused_variables)]

use rota::{condition, system, Commands, Component, Query, Res, ResMut, Resource};

#[derive(Resource, Clone)]
struct Clock(u32);
#[derive(Component, Clone)]
struct Prey;

#[condition(reads(Clock))]
fn is_day(clock: Res<Clock>) -> bool {
    clock.0 < 12
}

#[system(run_if(is_dya))]
fn forage() {}

fn main() {}
