#![allow(unused_imports, dead_code, unused_variables)]

use rota::{condition, system, Commands, Component, Query, Res, ResMut, Resource};

#[derive(Resource, Clone)]
struct Clock(u32);
#[derive(Component, Clone)]
struct Prey;

#[system()]
fn tick() {}

#[system(run_if(tick))]
fn forage() {}

fn main() {}
