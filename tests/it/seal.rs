//! The seal at run time: whatever parameters systems use — plain, renamed, derived, nested —
//! every system's parameters touch only what it declared, and two systems the schedule puts in
//! one batch (to run in parallel) never touch the same store with a write. The compile-time half
//! is `tests/ui/seal/`.

use rota::query::Mode;
use rota::{
    Commands, Component, Entity, Query, Res, ResMut, Resource, Schedule, SystemDescriptor,
    SystemParam, With, Without, World, system,
};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(u64);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Vel(u64);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Hp(u64);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Frozen;
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Marked;
#[derive(Resource, Clone, Debug, Default)]
struct Tally(u64);
#[derive(Resource, Clone, Debug)]
struct Gain(u64);

#[derive(SystemParam)]
struct Movers<'w> {
    bodies: Query<'w, (&'static mut Pos, &'static Vel), Without<Frozen>>,
    gain: Res<'w, Gain>,
}

#[derive(SystemParam)]
struct Healers<'w, S = ()> {
    hp: Query<'w, (Entity, &'static mut Hp), With<Frozen>>,
    commands: Commands<'w, S>,
}

#[derive(SystemParam)]
struct Nested<'w, S = ()> {
    inner: Healers<'w, S>,
}

use rota::Query as Q;

#[system(reads(Vel, Frozen, Gain), writes(Pos))]
fn movement(mut m: Movers) {
    let g = m.gain.0;
    for (p, v) in &mut m.bodies {
        p.0 = p.0.wrapping_mul(31).wrapping_add(v.0 * g);
    }
}

#[system(reads(Frozen), writes(Hp), defers(Marked))]
fn heal(mut n: Nested) {
    for (e, h) in &mut n.inner.hp {
        h.0 += 1;
        if h.0 % 3 == 0 {
            n.inner.commands.insert(e, Marked);
        }
    }
}

#[system(reads(Pos), writes(Tally))]
fn tally(q: Q<&Pos>, mut t: ResMut<Tally>) {
    t.0 = q
        .iter()
        .fold(t.0, |acc, p| acc.wrapping_mul(7).wrapping_add(p.0));
}

#[system(writes(Vel), reads(Marked))]
fn drag(mut q: Query<&mut Vel, With<Vel>>, marked: Query<Entity, With<Marked>>) {
    let n = marked.iter().count() as u64;
    for v in &mut q {
        v.0 = v.0 / 2 + n;
    }
}

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Tally::default());
    world.insert_resource(Gain(3));
    for i in 0..2_000u64 {
        let e = world.spawn_with((Pos(i), Vel(i % 17)));
        if i % 5 == 0 {
            world.insert(e, Frozen).unwrap();
            world.insert(e, Hp(i)).unwrap();
        }
    }
    world
}

/// Whether `d`'s parameters can touch store or resource `a` with the given modes.
fn touches(d: &SystemDescriptor, id: std::any::TypeId, modes: &[Mode]) -> bool {
    d.param_accesses
        .iter()
        .any(|a| a.type_id == id && modes.contains(&a.mode))
}

#[test]
fn parameters_touch_only_what_was_declared() {
    let schedule = Schedule::builder()
        .add(movement)
        .add(heal)
        .add(tally)
        .add(drag)
        .build()
        .unwrap();
    for d in schedule.descriptors() {
        assert!(!d.param_accesses.is_empty(), "{} declares nothing", d.name);
        for a in &d.param_accesses {
            let declared = match a.mode {
                Mode::Write => d.writes_type(a.type_id),
                Mode::Read | Mode::Membership => {
                    d.writes_type(a.type_id) || d.reads_type(a.type_id)
                }
            };
            assert!(
                declared,
                "system `{}` touches undeclared `{}`",
                d.name, a.name
            );
        }
    }
    // Derived parameters contribute their fields' accesses, nested ones too.
    let heal = schedule
        .descriptors()
        .iter()
        .find(|d| d.name == "heal")
        .unwrap();
    assert!(heal.uses_commands);
    assert!(
        heal.param_accesses
            .iter()
            .any(|a| a.name == "Hp" && a.mode == Mode::Write)
    );
    assert!(
        heal.param_accesses
            .iter()
            .any(|a| a.name == "Frozen" && a.mode == Mode::Membership)
    );
}

#[test]
fn systems_sharing_a_batch_never_touch_a_store_one_of_them_writes() {
    let schedule = Schedule::builder()
        .add(movement)
        .add(heal)
        .add(tally)
        .add(drag)
        .threads(2)
        .build()
        .unwrap();
    let by_name = |n: &str| schedule.descriptors().iter().find(|d| d.name == n).unwrap();
    let mut parallel_pairs = 0;
    for batch in schedule.batches() {
        for (i, a) in batch.iter().enumerate() {
            for b in &batch[i + 1..] {
                parallel_pairs += 1;
                let (a, b) = (by_name(a), by_name(b));
                for w in a.param_accesses.iter().filter(|x| x.mode == Mode::Write) {
                    let all = [Mode::Read, Mode::Write, Mode::Membership];
                    assert!(
                        !touches(b, w.type_id, &all),
                        "`{}` writes `{}` while `{}` in the same batch touches it",
                        a.name,
                        w.name,
                        b.name
                    );
                }
                for w in b.param_accesses.iter().filter(|x| x.mode == Mode::Write) {
                    let all = [Mode::Read, Mode::Write, Mode::Membership];
                    assert!(!touches(a, w.type_id, &all), "`{}` vs `{}`", b.name, a.name);
                }
            }
        }
    }
    assert!(
        parallel_pairs > 0,
        "the test needs at least one parallel batch"
    );
}

#[test]
fn the_same_result_on_one_and_two_threads_with_derived_parameters() {
    let run = |threads: usize| {
        let mut schedule = Schedule::builder()
            .add(movement)
            .add(heal)
            .add(tally)
            .add(drag)
            .threads(threads)
            .inline_below(0)
            .build()
            .unwrap();
        let mut world = world();
        for _ in 0..20 {
            schedule.run(&mut world);
        }
        world.check_invariants().unwrap();
        (
            world.resource::<Tally>().unwrap().0,
            world.query::<&Marked>().count(),
            world.query::<&Hp>().map(|h| h.0).sum::<u64>(),
        )
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert!(one.0 != 0 && one.1 > 0, "the systems did work: {one:?}");
}
