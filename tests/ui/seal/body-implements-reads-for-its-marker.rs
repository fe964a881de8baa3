#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);


#[system(reads(Position))]
fn sneaky(mut q: Query<&mut Health>) {
    impl rota::rota_core::system::Reads<Health> for sneaky {}
    impl rota::rota_core::system::Writes<Health> for sneaky {}
    for h in &mut q {
        h.0 = 0;
    }
}
fn main() {}
