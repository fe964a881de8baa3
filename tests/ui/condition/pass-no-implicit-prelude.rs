#![no_implicit_prelude]

#[derive(::rota::Resource, Clone)]
struct Clock(u32);
#[derive(::rota::Component, Clone)]
struct Prey;

#[::rota::condition(reads(Clock, Prey))]
fn is_day(clock: ::rota::Res<Clock>, prey: ::rota::Query<&Prey>) -> bool {
    clock.0 < 12 && ::std::iter::Iterator::next(&mut prey.iter()).is_some()
}

#[::rota::system(reads(Clock), run_if(is_day, ::rota::condition::not(is_day)))]
fn never() {
    ::std::panic!("`is_day and not(is_day)` never holds");
}

#[::rota::system(run_if(is_day))]
fn forage() {}

pub fn main() {
    let mut schedule = ::rota::Schedule::builder()
        .add(never)
        .add(forage)
        .build()
        .unwrap();
    let mut world = ::rota::World::new();
    world.insert_resource(Clock(6));
    world.spawn_with((Prey,));
    let report = schedule.run(&mut world);
    ::std::assert_eq!(report.ran, ["forage"]);
    ::std::assert_eq!(report.skipped, ["never"]);
}
