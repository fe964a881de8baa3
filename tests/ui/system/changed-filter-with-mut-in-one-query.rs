// `&mut T` and `Changed<T>` in one query would read the ticks the query stamps: refused; query
// `(Entity, &T)` with `Changed<T>` and write through a second query instead.
use rota::{Changed, Component, Query, system};

#[derive(Component, Clone)]
struct Health(u32);

#[system(writes(Health))]
fn heal(mut q: Query<&mut Health, Changed<Health>>) {
    for h in &mut q {
        h.0 += 1;
    }
}

fn main() {
    let _ = heal;
}
