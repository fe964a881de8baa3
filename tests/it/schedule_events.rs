//! Events and change detection under the parallel scheduler: 8 systems that send and receive
//! events, react to `Changed<T>`/`Added<T>`, and spawn through `Commands`, declared in a random
//! order with random strides over a random world. After every tick the world checksum and every
//! system's log must be identical on 1, 2, 4 and 8 threads.

use proptest::prelude::*;
use rota::{
    Added, Changed, Commands, Component, Entity, Event, EventReader, EventWriter, Query, ResMut,
    Resource, Schedule, ScheduleBuilder, StableHash, World, system,
};

#[derive(Component, StableHash, Clone, Copy, Debug)]
struct Pos(i64);
#[derive(Component, StableHash, Clone, Copy, Debug)]
struct Vel(i64);
#[derive(Component, StableHash, Clone, Copy, Debug)]
struct Hp(i64);

#[derive(Event, Clone, Debug)]
struct Hit {
    target: Entity,
    damage: i64,
}

#[derive(Event, Clone, Debug)]
struct Born(Entity);

/// One log per system that keeps one, so loggers do not conflict with each other.
macro_rules! logs {
    ($($name:ident),*) => {$(
        #[derive(Resource, Default, Clone, Debug, PartialEq)]
        struct $name(Vec<i64>);
    )*};
}
logs!(HpLog, BornLog, AddedLog, HitLog, FlipLog);

fn bits(e: Entity) -> i64 {
    e.to_bits() as i64
}

#[system(reads(Vel), writes(Pos))]
fn mover(mut q: Query<(&mut Pos, &Vel)>) {
    for (p, v) in &mut q {
        p.0 += v.0;
    }
}

#[system(reads(Pos), sends(Hit))]
fn sensor(q: Query<(Entity, &Pos), Changed<Pos>>, mut hits: EventWriter<Hit>) {
    for (e, p) in q.iter() {
        if p.0.rem_euclid(3) == 0 {
            hits.send(Hit {
                target: e,
                damage: p.0.rem_euclid(5) + 1,
            });
        }
    }
}

#[system(receives(Hit), writes(Hp, HitLog))]
fn damage(mut hits: EventReader<Hit>, mut q: Query<&mut Hp>, mut log: ResMut<HitLog>) {
    for hit in hits.read() {
        if let Ok(hp) = q.get_mut(hit.target) {
            hp.0 -= hit.damage;
            log.0.push(bits(hit.target) ^ hp.0);
        }
    }
}

#[system(reads(Hp), writes(HpLog))]
fn hp_watch(q: Query<(Entity, &Hp), Changed<Hp>>, mut log: ResMut<HpLog>) {
    for (e, hp) in q.iter() {
        log.0.push(bits(e).wrapping_mul(31) + hp.0);
    }
}

#[system(reads(Hp), defers(Pos, Vel, Hp), sends(Born))]
fn breeder(q: Query<(Entity, &Hp)>, mut commands: Commands, mut born: EventWriter<Born>) {
    for (e, hp) in q.iter() {
        if hp.0 < 0 {
            commands.insert(e, Hp(50));
            let child = commands.spawn((Pos(hp.0), Vel(1 - hp.0 % 3), Hp(20)));
            born.send(Born(child));
        }
    }
}

#[system(receives(Born), writes(BornLog))]
fn born_counter(mut born: EventReader<Born>, mut log: ResMut<BornLog>) {
    let read = born.read();
    log.0.push(read.missed() as i64);
    log.0.extend(read.map(|b| bits(b.0)));
}

#[system(reads(Vel), writes(AddedLog))]
fn added_watch(q: Query<Entity, Added<Vel>>, mut log: ResMut<AddedLog>) {
    log.0.extend(q.iter().map(bits));
}

#[system(reads(Hp), writes(Vel, FlipLog))]
fn flipper(
    changed: Query<Entity, Changed<Hp>>,
    mut vel: Query<&mut Vel>,
    mut log: ResMut<FlipLog>,
) {
    let hit: Vec<Entity> = changed.iter().collect();
    for e in hit {
        if let Ok(v) = vel.get_mut(e) {
            v.0 = -v.0;
            log.0.push(bits(e));
        }
    }
}

/// Adds system `k` (0..8) to `b`, with stride `stride`.
fn add(b: ScheduleBuilder, k: usize, stride: u64) -> ScheduleBuilder {
    macro_rules! with {
        ($s:ident) => {
            b.add($s).every_ticks($s, stride)
        };
    }
    match k {
        0 => with!(mover),
        1 => with!(sensor),
        2 => with!(damage),
        3 => with!(hp_watch),
        4 => with!(breeder),
        5 => with!(born_counter),
        6 => with!(added_watch),
        _ => with!(flipper),
    }
}

#[derive(Debug, PartialEq)]
struct Observed {
    checksum: u64,
    logs: (HpLog, BornLog, AddedLog, HitLog, FlipLog),
}

fn observe(world: &World) -> Observed {
    Observed {
        checksum: world.checksum::<(Pos, Vel, Hp)>(),
        logs: (
            world.resource::<HpLog>().unwrap().clone(),
            world.resource::<BornLog>().unwrap().clone(),
            world.resource::<AddedLog>().unwrap().clone(),
            world.resource::<HitLog>().unwrap().clone(),
            world.resource::<FlipLog>().unwrap().clone(),
        ),
    }
}

fn run(
    order: &[usize],
    strides: &[u64],
    start: &[(i64, i64, i64)],
    threads: usize,
) -> Vec<Observed> {
    let mut world = World::new();
    world.insert_resource(HpLog::default());
    world.insert_resource(BornLog::default());
    world.insert_resource(AddedLog::default());
    world.insert_resource(HitLog::default());
    world.insert_resource(FlipLog::default());
    world.spawn_batch(start.iter().map(|&(p, v, h)| (Pos(p), Vel(v), Hp(h))));
    let mut b = Schedule::builder().threads(threads).inline_below(0);
    for &k in order {
        b = add(b, k, strides[k]);
    }
    let mut schedule = b.build().expect("no cycle: no `after` edges");
    (0..8)
        .map(|_| {
            schedule.run(&mut world);
            observe(&world)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(24)))]

    #[test]
    fn events_and_change_filters_are_identical_on_any_thread_count(
        order in Just((0..8usize).collect::<Vec<_>>()).prop_shuffle(),
        strides in proptest::collection::vec(1u64..4, 8),
        start in proptest::collection::vec((-20i64..20, -3i64..4, -5i64..30), 1..60),
    ) {
        let one = run(&order, &strides, &start, 1);
        // The comparison is not vacuous: something happened.
        prop_assert!(one.last().is_some_and(|o| !o.logs.0 .0.is_empty() || !o.logs.3 .0.is_empty()));
        for threads in [2, 4, 8] {
            let n = run(&order, &strides, &start, threads);
            prop_assert_eq!(&one, &n, "threads {}", threads);
        }
    }
}

#[test]
fn the_random_systems_really_send_receive_spawn_and_react() {
    let start: Vec<(i64, i64, i64)> = (0..40).map(|i| (i, i % 4 - 1, i % 7 - 2)).collect();
    let ticks = run(&(0..8).collect::<Vec<_>>(), &[1; 8], &start, 2);
    let last = ticks.last().unwrap();
    let (hp, born, added, hits, flips) = &last.logs;
    assert!(!hits.0.is_empty(), "hits were received and applied");
    assert!(
        hp.0.len() > start.len(),
        "hp changes were seen after the first run"
    );
    assert!(born.0.iter().any(|&b| b != 0), "births were received");
    assert!(
        added.0.len() > start.len(),
        "spawned children were seen as added"
    );
    assert!(!flips.0.is_empty(), "changed hp flipped velocities");
}
