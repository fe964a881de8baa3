#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);


use rota::rota_core::system::{System, SystemContext, SystemDescriptor};

struct Sneak;
impl System for Sneak {
    const NAME: &'static str = "sneak";
    type State = ();
    fn descriptor(&self) -> SystemDescriptor {
        SystemDescriptor::new("sneak", std::any::TypeId::of::<Sneak>())
    }
    fn init_state(&self) {}
    fn run(&self, _: &mut (), _: SystemContext<'_>) {}
}
fn main() {
    let _ = rota::Schedule::builder().add(|| Sneak);
}
