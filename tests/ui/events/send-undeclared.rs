// Sending an event the system did not declare in `sends(..)` is refused at the parameter.
use rota::{Event, EventWriter, system};

#[derive(Event, Clone)]
struct Hit(u32);

#[system()]
fn shoot(mut hits: EventWriter<Hit>) {
    hits.send(Hit(1));
}

fn main() {
    let _ = shoot;
}
