// `Added<T>` reads `T`'s change ticks: `T` must be declared like any read.
use rota::{Added, Component, Entity, Query, system};

#[derive(Component, Clone)]
struct Health(u32);

#[system()]
fn greet(q: Query<Entity, Added<Health>>) {
    let _ = q.iter().count();
}

fn main() {
    let _ = greet;
}
