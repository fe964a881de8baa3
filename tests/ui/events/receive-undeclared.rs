// Receiving an event the system did not declare in `receives(..)` is refused at the parameter.
use rota::{Event, EventReader, system};

#[derive(Event, Clone)]
struct Hit(u32);

#[system()]
fn count(mut hits: EventReader<Hit>) {
    let _ = hits.read().count();
}

fn main() {
    let _ = count;
}
