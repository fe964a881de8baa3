// Declared senders and receivers compile and deliver each event once per reader.
use rota::{Event, EventReader, EventWriter, Schedule, World, system};

#[derive(Event, Clone, Debug, PartialEq)]
struct Hit(u32);

#[system(sends(Hit))]
fn shoot(mut hits: EventWriter<Hit>) {
    hits.send(Hit(2));
}

#[derive(rota::Resource, Default, Clone)]
struct Total(u32);

#[system(receives(Hit), writes(Total))]
fn count(mut hits: EventReader<Hit>, mut total: rota::ResMut<Total>) {
    total.0 += hits.read().map(|h| h.0).sum::<u32>();
}

pub fn main() {
    let mut world = World::new();
    world.insert_resource(Total::default());
    let mut schedule = Schedule::builder()
        .add(shoot)
        .add(count)
        .build()
        .expect("valid");
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Total>().unwrap().0, 6);
}
