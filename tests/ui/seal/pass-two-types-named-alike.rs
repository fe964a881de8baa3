//! Two different types both named `Health` (one at module level, one inside `main`) are two
//! components: a system may write one and read the other.
use rota::{Component, Query, World, system};

#[derive(Component, Clone)]
struct Health(u32);

pub fn main() {
    #[derive(Component, Clone)]
    struct Health(u32);

    #[system(writes(Health), reads(self::Health))]
    fn copy(mut inner: Query<&mut Health>, outer: Query<&self::Health>) {
        let total: u32 = outer.iter().map(|h| h.0).sum();
        for h in &mut inner {
            h.0 = total;
        }
    }

    let mut world = World::new();
    world.spawn_with((Health(0), self::Health(7)));
    let _ = world.run(copy);
    assert_eq!(world.query::<&Health>().next().unwrap().0, 7);
}
