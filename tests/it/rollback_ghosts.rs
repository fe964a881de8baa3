//! What a rollback user trips over, tried through the public API: strides of several schedules
//! on one world, sequence numbers across a restore (the structural log and event cursors),
//! event retention, and what `full_checksum` covers. Each test names the case it pins.
//!
//! * Strides: `two_schedules_on_one_world_each_see_their_strides`,
//!   `three_schedules_each_see_their_strides`, `a_restore_puts_every_schedule_tick_back`.
//! * Numbers never repeat: `a_log_consumer_from_an_abandoned_future_is_told`,
//!   `an_event_cursor_from_an_abandoned_future_is_told`,
//!   `a_log_consumer_that_read_nothing_abandoned_reads_on`,
//!   `restoring_a_snapshot_from_before_the_log_keeps_the_log_on`,
//!   `a_channel_a_restore_removed_numbers_on`.
//! * Retention: `read_events_are_dropped_at_the_end_of_the_next_tick`,
//!   `an_unread_event_stays_until_every_system_reader_read_it`,
//!   `a_new_outside_reader_misses_nothing`, `a_system_reader_added_later_starts_now`,
//!   `snapshot_and_checksum_cost_what_is_unread`.
//! * The checksum: `one_get_mut_changes_the_full_checksum`,
//!   `a_system_that_ran_changes_the_full_checksum`,
//!   `equal_worlds_built_by_different_routes_hash_alike`,
//!   `a_reader_position_alone_changes_the_full_checksum`,
//!   `restored_and_never_restored_worlds_hash_alike`.
//! * Event bookkeeping: `a_reader_that_reads_twice_in_one_run_gets_each_event_once`,
//!   `a_sender_declared_first_is_seen_in_the_same_tick`,
//!   `a_receiver_declared_first_sees_the_event_on_the_next_tick`.

use rota::rota_core::log::StructuralChange;
use rota::{
    Component, Event, EventCursor, EventReader, EventWriter, Res, ResMut, Resource, Schedule,
    StableHash, World, system,
};

#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Hp(u32);

#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Pos(i32);

#[derive(Resource, StableHash, Clone, Default, Debug)]
struct RunsA(u32);

#[derive(Resource, StableHash, Clone, Default, Debug)]
struct RunsB(u32);

#[derive(Resource, StableHash, Clone, Default, Debug)]
struct RunsC(u32);

#[system(writes(RunsA), every_ticks = 2)]
fn every_other_a(mut runs: ResMut<RunsA>) {
    runs.0 += 1;
}

#[system(writes(RunsB), every_ticks = 2)]
fn every_other_b(mut runs: ResMut<RunsB>) {
    runs.0 += 1;
}

#[system(writes(RunsC), every_ticks = 3)]
fn every_third_c(mut runs: ResMut<RunsC>) {
    runs.0 += 1;
}

fn runs_world() -> World {
    let mut world = World::new();
    world.insert_resource(RunsA::default());
    world.insert_resource(RunsB::default());
    world.insert_resource(RunsC::default());
    world
}

// ---------------------------------------------------------------------------------------------
// Strides of several schedules

#[test]
fn two_schedules_on_one_world_each_see_their_strides() {
    let mut a = Schedule::builder().add(every_other_a).build().unwrap();
    let mut b = Schedule::builder().add(every_other_b).build().unwrap();
    let mut world = runs_world();
    for _ in 0..10 {
        a.run(&mut world);
        b.run(&mut world);
    }
    assert_eq!(world.resource::<RunsA>().unwrap().0, 5);
    assert_eq!(world.resource::<RunsB>().unwrap().0, 5);
    assert_eq!(world.tick(), 20);
    assert_eq!(world.schedule_tick(a.label()), 10);
    // `b` first ran at world tick 1: its count started there.
    assert_eq!(world.schedule_tick(b.label()), 11);
}

#[test]
fn three_schedules_each_see_their_strides() {
    let mut a = Schedule::builder().add(every_other_a).build().unwrap();
    let mut b = Schedule::builder()
        .add(every_other_b)
        .label("fixed")
        .build()
        .unwrap();
    let mut c = Schedule::builder().add(every_third_c).build().unwrap();
    let mut world = runs_world();
    let mut ran_c = Vec::new();
    for round in 0..12 {
        a.run(&mut world);
        // `b` runs twice per round, like a fixed step catching up.
        b.run(&mut world);
        b.run(&mut world);
        let report = c.run(&mut world);
        if !report.ran.is_empty() {
            ran_c.push(round);
        }
    }
    assert_eq!(world.resource::<RunsA>().unwrap().0, 6);
    assert_eq!(world.resource::<RunsB>().unwrap().0, 12);
    assert_eq!(world.resource::<RunsC>().unwrap().0, 4);
    // `c` first ran at world tick 3 (0 mod 3): rounds 0, 3, 6, 9.
    assert_eq!(ran_c, [0, 3, 6, 9]);
    assert_eq!(world.schedule_tick("fixed"), 1 + 24);
}

#[test]
fn a_restore_puts_every_schedule_tick_back() {
    let mut a = Schedule::builder().add(every_other_a).build().unwrap();
    let mut b = Schedule::builder().add(every_other_b).build().unwrap();
    let mut world = runs_world();
    a.run(&mut world);
    b.run(&mut world);
    a.run(&mut world);
    let saved = world.snapshot().unwrap();
    let first: Vec<(Vec<&str>, Vec<&str>)> = (0..4)
        .map(|_| (a.run(&mut world).ran, b.run(&mut world).ran))
        .collect();
    let ticks = (
        world.schedule_tick(a.label()),
        world.schedule_tick(b.label()),
    );
    world.restore(&saved);
    let again: Vec<(Vec<&str>, Vec<&str>)> = (0..4)
        .map(|_| (a.run(&mut world).ran, b.run(&mut world).ran))
        .collect();
    assert_eq!(first, again);
    assert_eq!(
        ticks,
        (
            world.schedule_tick(a.label()),
            world.schedule_tick(b.label())
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Sequence numbers across a restore

#[test]
fn a_log_consumer_from_an_abandoned_future_is_told() {
    let mut world = World::new();
    world.enable_structural_log(64);
    let saved = world.snapshot().unwrap();
    let a = world.spawn_with((Hp(1),));
    let log = world.structural_log().unwrap();
    let read = log.changes_since(0);
    let cursor = read.next;
    assert_eq!(cursor, 2); // Spawned a, Added Hp
    assert!(read.rewound.is_none());
    world.restore(&saved);
    let b = world.spawn_with((Pos(5),));
    assert_eq!(a, b, "the same handle, so only the log can tell");
    let log = world.structural_log().unwrap();
    let read = log.changes_since(cursor);
    let rewound = read
        .rewound
        .expect("the consumer read entries the restore undid");
    assert_eq!((rewound.to, rewound.from), (0, 2));
    let changes: Vec<StructuralChange> = read.map(|e| e.change).collect();
    assert!(matches!(
        changes[..],
        [
            StructuralChange::Spawned(e),
            StructuralChange::Added {
                component: "Pos",
                ..
            }
        ] if e == b
    ));
    // Nothing after the restore repeats a number handed out before it.
    let sequences: Vec<u64> = log.changes_since(0).map(|e| e.sequence).collect();
    assert_eq!(sequences, [3, 4]);
}

#[test]
fn a_log_consumer_that_read_nothing_abandoned_reads_on() {
    let mut world = World::new();
    world.enable_structural_log(64);
    world.spawn_with((Hp(1),)); // 0, 1
    let cursor = world.structural_log().unwrap().changes_since(0).next;
    let saved = world.snapshot().unwrap();
    world.spawn_with((Hp(2),)); // 2, 3: abandoned, never read
    world.restore(&saved);
    world.spawn_with((Pos(3),));
    let read = world.structural_log().unwrap().changes_since(cursor);
    assert!(read.rewound.is_none());
    assert_eq!(read.missed, 0);
    assert_eq!(read.len(), 2);
}

#[derive(Event, StableHash, Clone, Debug, PartialEq)]
struct Ping(u32);

fn pings(world: &World, cursor: &mut EventCursor) -> (Vec<u32>, u64, bool) {
    let read = world.read_events::<Ping>(cursor);
    let (missed, rewound) = (read.missed(), read.rewound().is_some());
    (read.map(|p| p.0).collect(), missed, rewound)
}

#[test]
fn an_event_cursor_from_an_abandoned_future_is_told() {
    let mut world = World::new();
    world.send_events([Ping(1), Ping(2)]);
    let mut cursor = EventCursor::default();
    assert_eq!(pings(&world, &mut cursor), (vec![1, 2], 0, false));
    let saved = world.snapshot().unwrap();
    world.send_events([Ping(3), Ping(4)]);
    assert_eq!(pings(&world, &mut cursor), (vec![3, 4], 0, false));
    world.restore(&saved);
    world.send_events([Ping(20), Ping(30), Ping(40)]);
    assert_eq!(pings(&world, &mut cursor), (vec![20, 30, 40], 0, true));
    // Read on after resyncing: nothing is reported twice.
    world.send_event(Ping(50));
    assert_eq!(pings(&world, &mut cursor), (vec![50], 0, false));
}

#[test]
fn a_channel_a_restore_removed_numbers_on() {
    let mut world = World::new();
    let saved = world.snapshot().unwrap(); // no channel yet
    world.send_events([Ping(1), Ping(2)]);
    let mut cursor = EventCursor::default();
    assert_eq!(pings(&world, &mut cursor).0, [1, 2]);
    world.restore(&saved);
    assert!(world.events::<Ping>().is_none());
    world.send_events([Ping(20), Ping(30), Ping(40)]);
    assert_eq!(pings(&world, &mut cursor), (vec![20, 30, 40], 0, true));
}

#[test]
fn a_cursor_told_while_the_channel_is_gone_reads_on_when_a_later_snapshot_brings_it_back() {
    let mut world = World::new();
    let before = world.snapshot().unwrap(); // no channel
    world.send_event(Ping(1));
    let mut cursor = EventCursor::default();
    assert_eq!(pings(&world, &mut cursor), (vec![1], 0, false));
    let after = world.snapshot().unwrap();
    world.restore(&before);
    assert_eq!(pings(&world, &mut cursor), (vec![], 0, true));
    world.restore(&after); // the timeline where the cursor read `Ping(1)`
    world.send_event(Ping(2));
    assert_eq!(pings(&world, &mut cursor), (vec![2], 0, false));
}

#[test]
fn restoring_a_snapshot_from_before_the_log_keeps_the_log_on() {
    let mut world = World::new();
    let saved = world.snapshot().unwrap();
    world.enable_structural_log(16);
    world.spawn_with((Hp(1),));
    let cursor = world.structural_log().unwrap().changes_since(0).next;
    world.restore(&saved);
    let log = world.structural_log().expect("a log that was on stays on");
    assert_eq!(log.capacity(), 16);
    assert!(log.is_empty());
    assert!(log.changes_since(cursor).rewound.is_some());
    assert!(log.changes_since(0).rewound.is_none());
}

// ---------------------------------------------------------------------------------------------
// Retention

#[derive(Resource, StableHash, Clone, Default, Debug)]
struct Received(Vec<u32>);

#[derive(Resource, StableHash, Clone, Default, Debug)]
struct ToSend(Vec<u32>);

#[system(reads(ToSend), sends(Ping))]
fn send_pings(to_send: Res<ToSend>, mut out: EventWriter<Ping>) {
    out.send_batch(to_send.0.iter().map(|&v| Ping(v)));
}

#[system(receives(Ping), writes(Received))]
fn receive_pings(mut input: EventReader<Ping>, mut got: ResMut<Received>) {
    let read = input.read();
    assert_eq!(read.missed(), 0);
    got.0.extend(read.map(|p| p.0));
}

#[system(receives(Ping), writes(Received))]
fn receive_pings_late(mut input: EventReader<Ping>, mut got: ResMut<Received>) {
    let read = input.read();
    assert_eq!(read.missed(), 0);
    got.0.extend(read.map(|p| p.0));
}

#[system(receives(Ping), writes(Received), every_ticks = 4)]
fn receive_pings_slowly(mut input: EventReader<Ping>, mut got: ResMut<Received>) {
    got.0.extend(input.read().map(|p| p.0));
}

fn ping_world(to_send: &[u32]) -> World {
    let mut world = World::new();
    world.insert_resource(ToSend(to_send.to_vec()));
    world.insert_resource(Received::default());
    world
}

#[test]
fn read_events_are_dropped_at_the_end_of_the_tick_after_the_one_they_were_sent_in() {
    let mut schedule = Schedule::builder()
        .add(send_pings)
        .add(receive_pings)
        .build()
        .unwrap();
    let mut world = ping_world(&[7, 8]);
    schedule.run(&mut world); // tick 0 sends 7, 8; the receiver reads them
    let mut outside = EventCursor::default();
    assert_eq!(pings(&world, &mut outside).0, [7, 8]);
    world.resource_mut::<ToSend>().unwrap().0.clear();
    world.send_event(Ping(9)); // between ticks: part of tick 1
    schedule.run(&mut world); // the end of tick 1 drops tick 0's events
    let channel = world.events::<Ping>().unwrap();
    assert_eq!(channel.len(), 1);
    assert_eq!(pings(&world, &mut outside).0, [9]);
    schedule.run(&mut world);
    assert_eq!(world.events::<Ping>().unwrap().len(), 0);
    assert_eq!(world.resource::<Received>().unwrap().0, [7, 8, 9]);
}

#[test]
fn an_unread_event_stays_until_every_system_reader_read_it() {
    let mut schedule = Schedule::builder()
        .add(send_pings)
        .add(receive_pings_slowly)
        .build()
        .unwrap();
    let mut world = ping_world(&[1]);
    let mut held = Vec::new();
    for _ in 0..9 {
        schedule.run(&mut world);
        held.push(world.events::<Ping>().unwrap().len());
    }
    // The slow reader runs on ticks 0, 4, 8 and reads everything since its last run.
    assert_eq!(world.resource::<Received>().unwrap().0, [1; 9]);
    // Never more than what it has not read plus the two-tick buffer.
    assert!(held.iter().all(|&n| n <= 5), "{held:?}");
    assert_eq!(held[8], 1); // after tick 8: only tick 8's event (tick 7's went at its end)
}

#[test]
fn a_new_outside_reader_misses_nothing() {
    let mut schedule = Schedule::builder()
        .add(send_pings)
        .add(receive_pings)
        .build()
        .unwrap();
    let mut world = ping_world(&[1, 2]);
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    let mut fresh = EventCursor::default();
    let (seen, missed, rewound) = pings(&world, &mut fresh);
    assert_eq!(missed, 0, "dropped before it existed is not missed");
    assert!(!rewound);
    assert_eq!(
        seen,
        [1, 2],
        "the last tick's, which the channel keeps one tick more"
    );
    let mut now = world.event_cursor::<Ping>();
    assert_eq!(pings(&world, &mut now), (vec![], 0, false));
}

#[test]
fn a_system_reader_added_later_starts_now() {
    let mut early = Schedule::builder()
        .add(send_pings)
        .add(receive_pings)
        .build()
        .unwrap();
    let mut world = ping_world(&[1, 2]);
    for _ in 0..3 {
        early.run(&mut world);
    }
    let mut late = Schedule::builder()
        .add(receive_pings_late)
        .label("late")
        .build()
        .unwrap();
    world.resource_mut::<Received>().unwrap().0.clear();
    world.send_event(Ping(9)); // sent in the late reader's first tick, before it runs
    late.run(&mut world);
    assert_eq!(world.resource::<Received>().unwrap().0, [9]);
}

#[test]
fn snapshot_and_checksum_cost_what_is_unread() {
    let mut schedule = Schedule::builder()
        .add(send_pings)
        .add(receive_pings)
        .build()
        .unwrap();
    let mut world = ping_world(&(0..700).collect::<Vec<_>>());
    for _ in 0..100 {
        schedule.run(&mut world); // 70,000 events, all read
    }
    // The last tick's (kept one tick more for outside readers), not 65,536 (the capacity).
    assert_eq!(world.events::<Ping>().unwrap().len(), 700);
    let saved = world.snapshot().unwrap();
    assert_eq!(saved.world().events::<Ping>().unwrap().len(), 700);
}

// ---------------------------------------------------------------------------------------------
// What full_checksum covers

#[test]
fn one_get_mut_changes_the_full_checksum() {
    let build = || {
        let mut world = World::new();
        world.spawn_with((Hp(1),));
        let e = world.spawn_with((Hp(2),));
        world.change_checkpoint();
        (world, e)
    };
    let (a, _) = build();
    let (mut b, e) = build();
    assert_eq!(a.full_checksum().unwrap(), b.full_checksum().unwrap());
    let _ = b.get_mut::<Hp>(e).unwrap(); // no value changes, its change tick does
    assert_ne!(a.full_checksum().unwrap(), b.full_checksum().unwrap());
}

#[derive(Resource, StableHash, Clone, Default, Debug)]
struct Seen(u32);

#[system(reads(Hp), writes(Seen))]
fn count_changed(q: rota::Query<&Hp, rota::Changed<Hp>>, mut seen: ResMut<Seen>) {
    seen.0 += q.iter().count() as u32;
}

#[test]
fn a_system_that_ran_changes_the_full_checksum() {
    let build = || {
        let mut world = World::new();
        world.spawn_with((Hp(1),));
        world.insert_resource(Seen(0));
        world
    };
    let mut a = build();
    let b = build();
    // Run it, then put its output back: only its last run differs.
    assert!(a.run(count_changed).is_clean());
    a.insert_resource(Seen(0));
    assert_ne!(a.full_checksum().unwrap(), b.full_checksum().unwrap());
}

#[test]
fn equal_worlds_built_by_different_routes_hash_alike() {
    let mut a = World::new();
    let e = a.spawn_with((Hp(1), Pos(2)));
    a.change_checkpoint();
    a.get_mut::<Pos>(e).unwrap().0 = 3;
    a.send_event(Ping(1));

    let mut b = World::new();
    for _ in 0..1_000 {
        b.change_checkpoint(); // the clock reads differently; nothing's age does
    }
    let f = b.spawn_with((Hp(1),));
    b.insert(f, Pos(2)).unwrap();
    b.change_checkpoint();
    *b.get_mut::<Pos>(f).unwrap() = Pos(3);
    b.send_event(Ping(1));
    assert_eq!(a.full_checksum().unwrap(), b.full_checksum().unwrap());
}

#[test]
fn a_reader_position_alone_changes_the_full_checksum() {
    // `World::run` moves no tick mark: the two worlds differ only by where the reader stands.
    let mut a = ping_world(&[]);
    a.send_event(Ping(1));
    assert!(a.run(receive_pings).is_clean());
    a.send_event(Ping(2));
    a.resource_mut::<Received>().unwrap().0.push(2);

    let mut b = ping_world(&[]);
    b.send_events([Ping(1), Ping(2)]);
    assert!(b.run(receive_pings).is_clean());

    assert_eq!(a.resource::<Received>().unwrap().0, [1, 2]);
    assert_eq!(b.resource::<Received>().unwrap().0, [1, 2]);
    assert_eq!(a.events::<Ping>().unwrap().len(), 2);
    assert_eq!(b.events::<Ping>().unwrap().len(), 2);
    assert_ne!(a.full_checksum().unwrap(), b.full_checksum().unwrap());
    // Once `a`'s reader catches up, they agree.
    assert!(a.run(receive_pings).is_clean());
    a.resource_mut::<Received>().unwrap().0.pop();
    assert_eq!(a.full_checksum().unwrap(), b.full_checksum().unwrap());
}

#[test]
fn restored_and_never_restored_worlds_hash_alike() {
    let mut schedule = Schedule::builder()
        .add(send_pings)
        .add(receive_pings)
        .build()
        .unwrap();
    let mut straight = ping_world(&[1, 2, 3]);
    let mut rolled = ping_world(&[1, 2, 3]);
    rolled.enable_structural_log(8);
    straight.enable_structural_log(8);
    for tick in 0..6 {
        schedule.run(&mut straight);
        let saved = rolled.snapshot().unwrap();
        schedule.run(&mut rolled);
        rolled.spawn_with((Hp(tick),));
        rolled.restore(&saved); // numbers go on past the abandoned future
        schedule.run(&mut rolled);
        assert_eq!(
            straight.full_checksum().unwrap(),
            rolled.full_checksum().unwrap(),
            "tick {tick}"
        );
    }
    assert!(
        rolled.events::<Ping>().unwrap().next_sequence()
            > straight.events::<Ping>().unwrap().next_sequence()
    );
}

// ---------------------------------------------------------------------------------------------
// Event bookkeeping

#[system(receives(Ping), writes(Received))]
fn read_twice(mut input: EventReader<Ping>, mut got: ResMut<Received>) {
    got.0.extend(input.read().map(|p| p.0));
    assert_eq!(input.len(), 0);
    got.0.extend(input.read().map(|p| p.0 + 100));
}

#[test]
fn a_reader_that_reads_twice_in_one_run_gets_each_event_once() {
    let mut world = ping_world(&[]);
    world.send_events([Ping(1), Ping(2)]);
    assert!(world.run(read_twice).is_clean());
    world.send_event(Ping(3));
    assert!(world.run(read_twice).is_clean());
    assert_eq!(world.resource::<Received>().unwrap().0, [1, 2, 3]);
}

#[test]
fn a_sender_declared_first_is_seen_in_the_same_tick() {
    let mut schedule = Schedule::builder()
        .add(send_pings)
        .add(receive_pings)
        .build()
        .unwrap();
    assert_eq!(
        schedule.batches(),
        [vec!["send_pings"], vec!["receive_pings"]]
    );
    let mut world = ping_world(&[5]);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Received>().unwrap().0, [5]);
}

#[test]
fn a_receiver_declared_first_sees_the_event_on_the_next_tick() {
    let mut schedule = Schedule::builder()
        .add(receive_pings)
        .add(send_pings)
        .build()
        .unwrap();
    assert_eq!(
        schedule.batches(),
        [vec!["receive_pings"], vec!["send_pings"]]
    );
    let mut world = ping_world(&[5]);
    schedule.run(&mut world);
    assert!(world.resource::<Received>().unwrap().0.is_empty());
    world.resource_mut::<ToSend>().unwrap().0.clear();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Received>().unwrap().0, [5]);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Received>().unwrap().0, [5]);
}

#[test]
fn settling_does_not_change_the_full_checksum() {
    let mut world = World::new();
    let es: Vec<_> = (0..40)
        .map(|i| world.spawn_with((Hp(i), Pos(i as i32))))
        .collect();
    world.change_checkpoint();
    for (k, &e) in es.iter().enumerate().rev() {
        match k % 3 {
            0 => {
                world.remove::<Hp>(e).unwrap();
            }
            1 => world.get_mut::<Pos>(e).unwrap().0 += 1,
            _ => {
                world.insert(e, Hp(100)).unwrap();
            }
        }
    }
    world.despawn(es[7]).unwrap();
    world.insert(es[3], Hp(9)).unwrap(); // re-inserted after its removal: out of slot order
    let unsettled = world.full_checksum().unwrap();
    world.settle();
    assert_eq!(world.full_checksum().unwrap(), unsettled);
    // A `&mut` walk over a whole store stamps one floor tick instead of each value's.
    world.query_mut::<&mut Pos>().for_each(|p| p.0 += 0);
    let floored = world.full_checksum().unwrap();
    assert_ne!(floored, unsettled);
    world.insert(es[5], Hp(1)).unwrap();
    world.remove::<Hp>(es[5]).unwrap();
    let churned = world.full_checksum().unwrap();
    world.settle();
    assert_eq!(world.full_checksum().unwrap(), churned);
}
