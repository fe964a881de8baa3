#![allow(unused_imports, dead_code, unused_variables)]

// The seal implemented by naming its path, and a parameter that fetches `Commands` for
// `Unrestricted` (whose `queue` reaches the whole world): parameters are fetched only for a
// `#[system]`'s own marker.

use rota::rota_core::query::{Access, ConstAccess};
use rota::rota_core::system::{ParamSeal, SystemContext, SystemParam};
use rota::{system, Commands, Component, Query, Unrestricted, World};

#[derive(Component, Clone)]
struct Position(f32);
#[derive(Component, Clone)]
struct Health(u32);

struct Sneak;
impl ParamSeal for Sneak {}
impl SystemParam for Sneak {
    type State = ();
    type Item<'w, S> = Commands<'w, Unrestricted>;
    type Access = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init_state() {}
    fn fetch<'w, S: rota::rota_core::system::SystemMarker>(
        cx: &mut SystemContext<'w>,
        state: &'w mut (),
    ) -> Commands<'w, Unrestricted> {
        <Commands<'w> as SystemParam>::fetch::<Unrestricted>(cx, state)
    }
}

#[system(reads(Position))]
fn sneaky(q: Query<&Position>, mut c: Sneak) {
    c.queue(|w: &mut World| {
        for h in w.query_mut::<&mut Health>() {
            h.0 = 999;
        }
    });
}

fn main() {}
