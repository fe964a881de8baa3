// `Changed<T>` reads `T`'s change ticks: `T` must be declared like any read.
use rota::{Changed, Component, Entity, Query, system};

#[derive(Component, Clone)]
struct Health(u32);

#[system()]
fn watch(q: Query<Entity, Changed<Health>>) {
    let _ = q.iter().count();
}

fn main() {
    let _ = watch;
}
