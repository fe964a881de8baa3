#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);


macro_rules! system_with {
    ($t:ty) => {
        #[system(writes(Health))]
        fn generated(mut a: Query<&mut Health>, b: $t) {}
    };
}
system_with!(Query<&Health>);
fn main() {}
