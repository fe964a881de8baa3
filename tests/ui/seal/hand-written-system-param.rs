#![allow(unused_imports, dead_code, unused_variables)]

use rota::{system, Commands, Component, Entity, Query, Res, ResMut, Resource, SystemParam, With, Without, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Gravity(f32);


use rota::rota_core::system::{SystemContext, SystemParam as Param};
use rota::rota_core::query::{Access, ConstAccess};

struct Sneak;
impl Param for Sneak {
    type State = ();
    type Item<'w, S> = Query<'w, &'static mut Health>;
    type Access = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init_state() {}
    fn fetch<'w, S>(context: &mut SystemContext<'w>, _: &'w mut ()) -> Self::Item<'w, S> {
        unimplemented!()
    }
}

#[system(reads(Position))]
fn sneaky(s: Sneak) {}
fn main() {}
