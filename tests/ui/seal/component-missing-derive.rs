#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component)]
struct Position(f32);
#[derive(Component)]
struct Health(u32);
#[derive(Resource)]
struct Gravity(f32);


struct Mana(u32);

#[system(reads(Position))]
fn regen(q: Query<&Mana>) {}
fn main() {}
