//! Parameters are recognised by type, never by spelling: a renamed import, a type alias and a
//! `macro_rules!` `$t:ty` are ordinary parameters.
use rota::{Component, Query as Q, Res as R, Resource, World, system};

#[derive(Component, Clone)]
struct Health(u32);
#[derive(Resource, Clone)]
struct Bonus(u32);

type Healthy<'w> = Q<'w, &'static mut Health>;

#[system(writes(Health), reads(Bonus))]
fn renamed(mut q: Q<&mut Health>, bonus: R<Bonus>) {
    for h in &mut q {
        h.0 += bonus.0;
    }
}

#[system(writes(Health))]
fn aliased(mut q: Healthy) {
    for h in &mut q {
        h.0 *= 2;
    }
}

macro_rules! system_with {
    ($name:ident, $t:ty) => {
        #[system(writes(Health))]
        fn $name(mut q: $t) {
            for h in &mut q {
                h.0 += 100;
            }
        }
    };
}
system_with!(from_macro, Q<&mut Health>);

pub fn main() {
    let mut world = World::new();
    world.insert_resource(Bonus(1));
    world.spawn_with((Health(1),));
    let _ = world.run(renamed);
    let _ = world.run(aliased);
    let _ = world.run(from_macro);
    assert_eq!(world.query::<&Health>().next().unwrap().0, 104);
}
