// `sends(E)` does not allow receiving `E`: the two are separate declarations.
use rota::{Event, EventReader, system};

#[derive(Event, Clone)]
struct Hit(u32);

#[system(sends(Hit))]
fn count(mut hits: EventReader<Hit>) {
    let _ = hits.read().count();
}

fn main() {
    let _ = count;
}
