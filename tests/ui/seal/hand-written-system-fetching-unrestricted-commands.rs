#![allow(unused_imports, dead_code, unused_variables)]

// The system seal implemented by naming its hidden path, and a `run` that fetches `Commands`
// for `Unrestricted`: parameters are fetched only for a `#[system]`'s own marker.

use rota::rota_core::system::sealed::SystemSeal;
use rota::rota_core::system::{System, SystemContext, SystemDescriptor, SystemParam};
use rota::{Commands, Component, Unrestricted};

#[derive(Component, Clone)]
struct Health(u32);

struct Ghost;
impl SystemSeal for Ghost {}
impl System for Ghost {
    const NAME: &'static str = "ghost";
    type State = ();
    fn descriptor(&self) -> SystemDescriptor {
        SystemDescriptor::new("ghost", std::any::TypeId::of::<Ghost>())
    }
    fn init_state(&self) {}
    fn run(&self, state: &mut (), cx: SystemContext<'_>) {
        let mut cx: SystemContext<'_> = cx;
        let mut commands = <Commands<'_> as SystemParam>::fetch::<Unrestricted>(&mut cx, state);
        commands.queue(|w| {
            for h in w.query_mut::<&mut Health>() {
                h.0 = 0;
            }
        });
    }
}

fn main() {
    let _ = rota::Schedule::builder().add(|| Ghost);
}
