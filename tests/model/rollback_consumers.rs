//! Consumers across restores, against an oracle: random interleavings of spawns, inserts,
//! removes, despawns, event sends, two schedules with strides (one of them sending and
//! receiving events), snapshots, restores, structural-log reads and event-cursor reads.
//!
//! The property, after every step: **no consumer believes something the world no longer holds
//! without being told.**
//!
//! * Two log consumers keep a belief (which entities are alive and which components each has)
//!   built only from the log; a read that reports `rewound` or `missed` makes them rescan the
//!   world. After every read the belief equals the world.
//! * Two outside event readers keep the events they got since they were last told (`rewound`
//!   or `missed`); after every untold read, that is exactly the oracle's history of the current
//!   timeline from the reader's first read on, or, once it was told, the newest events of
//!   that history (every sent value is unique, so an abandoned event cannot pass).
//! * System readers (one every tick on the "update" schedule, one every third tick of the
//!   "fixed" schedule) must get every event of the timeline exactly once from their first run
//!   on; the strided systems must run exactly on their own schedule's ticks; the channel must
//!   hold exactly what retention keeps. All of it is state the oracle snapshots and restores.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use rota::{
    Component, Entity, Event, EventCursor, EventReader, EventWriter, Res, ResMut, Resource,
    Schedule, Snapshot, World, system,
};

#[derive(Component, Clone, Debug)]
struct Hp(#[allow(dead_code)] u32);

#[derive(Component, Clone, Debug)]
struct Pos(#[allow(dead_code)] i32);

#[derive(Event, Clone, Debug)]
struct Ping(u32);

#[derive(Resource, Clone, Default, Debug)]
struct ToSend(Vec<u32>);

#[derive(Resource, Clone, Default, Debug)]
struct Got(Vec<u32>);

#[derive(Resource, Clone, Default, Debug)]
struct GotSlowly(Vec<u32>);

#[derive(Resource, Clone, Default, Debug)]
struct Strides(u32, u32);

#[system(reads(ToSend), sends(Ping))]
fn send(to_send: Res<ToSend>, mut out: EventWriter<Ping>) {
    out.send_batch(to_send.0.iter().map(|&v| Ping(v)));
}

#[system(receives(Ping), writes(Got))]
fn receive(mut input: EventReader<Ping>, mut got: ResMut<Got>) {
    got.0.extend(input.read().map(|p| p.0));
}

#[system(writes(Strides), every_ticks = 2)]
fn every_other(mut strides: ResMut<Strides>) {
    strides.0 += 1;
}

#[system(receives(Ping), writes(GotSlowly), every_ticks = 3)]
fn receive_slowly(mut input: EventReader<Ping>, mut got: ResMut<GotSlowly>) {
    got.0.extend(input.read().map(|p| p.0));
}

#[system(writes(Strides), every_ticks = 3)]
fn every_third(mut strides: ResMut<Strides>) {
    strides.1 += 1;
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(bool, bool),
    Insert(usize, bool),
    Remove(usize, bool),
    Despawn(usize),
    SendOutside(u8),
    RunUpdate(u8),
    RunFixed,
    Snapshot,
    Restore(usize),
    ReadLog(usize),
    ReadEvents(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (any::<bool>(), any::<bool>()).prop_map(|(h, p)| Op::Spawn(h, p)),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(k, h)| Op::Insert(k, h)),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(k, h)| Op::Remove(k, h)),
        2 => any::<usize>().prop_map(Op::Despawn),
        2 => (0u8..4).prop_map(Op::SendOutside),
        3 => (0u8..4).prop_map(Op::RunUpdate),
        2 => Just(Op::RunFixed),
        2 => Just(Op::Snapshot),
        2 => any::<usize>().prop_map(Op::Restore),
        3 => (0usize..2).prop_map(Op::ReadLog),
        3 => (0usize..2).prop_map(Op::ReadEvents),
    ]
}

/// A system reader in the oracle: where it stands in the timeline's events, once it ran.
type ReaderPos = Option<usize>;

/// The part of the oracle a snapshot captures: the current timeline.
#[derive(Clone, Debug, Default)]
struct Timeline {
    /// Every event sent in this timeline, in order.
    events: Vec<u32>,
    world_tick: u64,
    /// Each schedule's own tick, once it ran.
    update_tick: Option<u64>,
    fixed_tick: Option<u64>,
    /// The timeline's length at the start of the current and of the previous world tick.
    this_tick_start: usize,
    previous_tick_start: usize,
    /// The channel keeps the timeline's events from here on.
    retained_from: usize,
    receiver: ReaderPos,
    slow_receiver: ReaderPos,
    got: Vec<u32>,
    got_slowly: Vec<u32>,
    strides: (u32, u32),
}

impl Timeline {
    fn end_tick(&mut self) {
        self.world_tick += 1;
        self.previous_tick_start = self.this_tick_start;
        self.this_tick_start = self.events.len();
        let readers = [self.receiver, self.slow_receiver];
        self.retained_from = readers
            .into_iter()
            .flatten()
            .fold(self.previous_tick_start, usize::min);
    }

    fn deliver(&self, reader: &mut ReaderPos, into: &mut Vec<u32>) {
        let from = reader.unwrap_or(self.this_tick_start);
        into.extend_from_slice(&self.events[from..]);
        *reader = Some(self.events.len());
    }
}

/// An outside event reader: what it got since it was last told it lost track.
#[derive(Default)]
struct EventConsumer {
    cursor: EventCursor,
    /// Where in the timeline its first read started; `None` once it was told it lost track
    /// (its place in a timeline a later restore brings back is then its cursor's business).
    base: Option<usize>,
    seen: Vec<u32>,
}

/// A log consumer: which entities it believes alive, with which components.
#[derive(Default)]
struct LogConsumer {
    cursor: u64,
    belief: BTreeMap<Entity, BTreeSet<&'static str>>,
}

fn truth(world: &World) -> BTreeMap<Entity, BTreeSet<&'static str>> {
    world
        .entities()
        .iter()
        .map(|e| {
            let mut has = BTreeSet::new();
            if world.get::<Hp>(e).is_some() {
                has.insert("Hp");
            }
            if world.get::<Pos>(e).is_some() {
                has.insert("Pos");
            }
            (e, has)
        })
        .collect()
}

fn nth_alive(world: &World, k: usize) -> Option<Entity> {
    let alive: Vec<Entity> = world.entities().iter().collect();
    (!alive.is_empty()).then(|| alive[k % alive.len()])
}

fn run(world: &mut World, schedule: &mut Schedule) {
    let report = schedule.run(world);
    assert!(report.commands.is_clean());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(64)))]

    #[test]
    fn no_consumer_believes_what_the_world_no_longer_holds(
        ops in proptest::collection::vec(op(), 1..120),
    ) {
        let mut update = Schedule::builder()
            .add(send)
            .add(receive)
            .add(every_other)
            .label("update")
            .build()
            .unwrap();
        let mut fixed = Schedule::builder()
            .add(receive_slowly)
            .add(every_third)
            .label("fixed")
            .build()
            .unwrap();
        let mut world = World::new();
        world.enable_structural_log(24);
        world.insert_resource(ToSend::default());
        world.insert_resource(Got::default());
        world.insert_resource(GotSlowly::default());
        world.insert_resource(Strides::default());
        let mut oracle = Timeline::default();
        let mut saved: Vec<(Snapshot, Timeline)> = Vec::new();
        let mut logs = [LogConsumer::default(), LogConsumer::default()];
        let mut readers = [EventConsumer::default(), EventConsumer::default()];
        let mut next_value = 0u32;
        let mut fresh = |n: u8| -> Vec<u32> {
            (0..n).map(|_| { next_value += 1; next_value }).collect()
        };

        for op in ops {
            match op {
                Op::Spawn(hp, pos) => {
                    let e = world.spawn();
                    if hp { world.insert(e, Hp(1)).unwrap(); }
                    if pos { world.insert(e, Pos(2)).unwrap(); }
                }
                Op::Insert(k, hp) => if let Some(e) = nth_alive(&world, k) {
                    if hp { world.insert(e, Hp(3)).unwrap(); } else { world.insert(e, Pos(4)).unwrap(); }
                },
                Op::Remove(k, hp) => if let Some(e) = nth_alive(&world, k) {
                    if hp { world.remove::<Hp>(e).unwrap(); } else { world.remove::<Pos>(e).unwrap(); }
                },
                Op::Despawn(k) => if let Some(e) = nth_alive(&world, k) {
                    world.despawn(e).unwrap();
                },
                Op::SendOutside(n) => {
                    let values = fresh(n);
                    world.send_events(values.iter().map(|&v| Ping(v)));
                    oracle.events.extend(values);
                }
                Op::RunUpdate(n) => {
                    let values = fresh(n);
                    world.resource_mut::<ToSend>().unwrap().0 = values.clone();
                    let tick = *oracle.update_tick.get_or_insert(oracle.world_tick);
                    run(&mut world, &mut update);
                    oracle.events.extend(values);
                    let mut got = std::mem::take(&mut oracle.got);
                    let mut reader = oracle.receiver;
                    oracle.deliver(&mut reader, &mut got);
                    (oracle.receiver, oracle.got) = (reader, got);
                    if tick % 2 == 0 { oracle.strides.0 += 1; }
                    oracle.update_tick = Some(tick + 1);
                    oracle.end_tick();
                }
                Op::RunFixed => {
                    let tick = *oracle.fixed_tick.get_or_insert(oracle.world_tick);
                    run(&mut world, &mut fixed);
                    if tick % 3 == 0 {
                        let mut got = std::mem::take(&mut oracle.got_slowly);
                        let mut reader = oracle.slow_receiver;
                        oracle.deliver(&mut reader, &mut got);
                        (oracle.slow_receiver, oracle.got_slowly) = (reader, got);
                        oracle.strides.1 += 1;
                    }
                    oracle.fixed_tick = Some(tick + 1);
                    oracle.end_tick();
                }
                Op::Snapshot => {
                    saved.push((world.snapshot().unwrap(), oracle.clone()));
                    if saved.len() > 4 { saved.remove(0); }
                }
                Op::Restore(k) => if !saved.is_empty() {
                    let (snapshot, timeline) = &saved[k % saved.len()];
                    world.restore(snapshot);
                    oracle = timeline.clone();
                },
                Op::ReadLog(c) => {
                    let consumer = &mut logs[c];
                    let log = world.structural_log().expect("the log stays on");
                    let read = log.changes_since(consumer.cursor);
                    consumer.cursor = read.next;
                    if read.rewound.is_some() || read.missed > 0 {
                        consumer.belief = truth(&world);
                    } else {
                        for entry in read {
                            use rota::rota_core::log::StructuralChange::*;
                            match entry.change {
                                Spawned(e) => { consumer.belief.insert(e, BTreeSet::new()); }
                                Despawned(e) => { consumer.belief.remove(&e); }
                                Added { entity, component, .. } => {
                                    consumer.belief.get_mut(&entity).expect("added to a live entity").insert(component);
                                }
                                Removed { entity, component, .. } => {
                                    consumer.belief.get_mut(&entity).expect("removed from a live entity").remove(component);
                                }
                                other => panic!("unexpected change {other:?}"),
                            }
                        }
                    }
                    prop_assert_eq!(&consumer.belief, &truth(&world), "log consumer {}", c);
                }
                Op::ReadEvents(c) => {
                    let consumer = &mut readers[c];
                    if consumer.cursor.next_sequence().is_none() {
                        // A first read asks for what the channel retains.
                        consumer.base = Some(oracle.retained_from);
                    }
                    let read = world.read_events::<Ping>(&mut consumer.cursor);
                    let told = read.rewound().is_some() || read.missed() > 0;
                    let got: Vec<u32> = read.map(|p| p.0).collect();
                    if told {
                        consumer.seen.clear();
                        consumer.base = None;
                    } else {
                        consumer.seen.extend(got);
                        let events = &oracle.events;
                        // Since its first read, exactly the timeline; since it was last told,
                        // the timeline's newest events, in order, with nothing left out.
                        let from = match consumer.base {
                            Some(base) => base,
                            None => events.len().saturating_sub(consumer.seen.len()),
                        };
                        prop_assert_eq!(
                            &consumer.seen[..],
                            &events[from.min(events.len())..],
                            "event reader {}", c
                        );
                    }
                }
            }
            // The state the oracle snapshots: system readers, strides, retention.
            prop_assert_eq!(world.tick(), oracle.world_tick);
            prop_assert_eq!(&world.resource::<Got>().unwrap().0, &oracle.got);
            prop_assert_eq!(&world.resource::<GotSlowly>().unwrap().0, &oracle.got_slowly);
            let strides = world.resource::<Strides>().unwrap();
            prop_assert_eq!((strides.0, strides.1), oracle.strides);
            if let Some(channel) = world.events::<Ping>() {
                prop_assert_eq!(channel.len(), oracle.events.len() - oracle.retained_from);
            }
        }
    }
}
