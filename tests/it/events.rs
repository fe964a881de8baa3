//! Events against an oracle.
//!
//! * `events_are_delivered_exactly_once_per_reader` (proptest) — random sends (from the world
//!   and from a sending system), reads by three readers (two world-level cursors, one system
//!   reader run with `World::run`) and skips, on a channel with a small random capacity. After
//!   every read, the reader got exactly the oracle's events (every event sent since its last
//!   read that is still retained, in order), the oracle's `missed` count, and — for the
//!   world-level readers — the read's length, size hint, first sequence number and, through
//!   `with_sequence`, each event's sequence number.
//! * System readers on a schedule catch up on skipped ticks, two readers do not steal from each
//!   other, and a panicking reader reads the same events again.

use proptest::prelude::*;
use rota::{
    Event, EventCursor, EventReader, EventWriter, ResMut, Resource, Schedule, World, system,
};

#[derive(Event, Clone, Debug, PartialEq)]
struct Ping(u64);

#[derive(Resource, Default, Clone)]
struct Got {
    events: Vec<u64>,
    missed: u64,
}

#[derive(Resource, Default, Clone)]
struct ToSend(Vec<u64>);

#[system(reads(ToSend), sends(Ping))]
fn sender(to_send: rota::Res<ToSend>, mut pings: EventWriter<Ping>) {
    pings.send_batch(to_send.0.iter().map(|&v| Ping(v)));
}

#[system(receives(Ping), writes(Got))]
fn receiver(mut pings: EventReader<Ping>, mut got: ResMut<Got>) {
    let read = pings.read();
    got.missed += read.missed();
    got.events.extend(read.map(|p| p.0));
}

#[derive(Clone, Debug)]
enum Op {
    WorldSend(u8),
    SystemSend(u8),
    Read(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (0u8..6).prop_map(Op::WorldSend),
        2 => (0u8..6).prop_map(Op::SystemSend),
        3 => (0usize..3).prop_map(Op::Read),
    ]
}

/// The oracle's view of one reader: the next sequence number it wants.
struct Model {
    sent: Vec<u64>,
    capacity: usize,
}

impl Model {
    /// What a reader at `cursor` should get: (missed, events), and its next cursor.
    fn read(&self, cursor: u64) -> (u64, Vec<u64>, u64) {
        let total = self.sent.len() as u64;
        let oldest = total.saturating_sub(self.capacity as u64);
        let start = cursor.max(oldest);
        let events = self.sent[start as usize..].to_vec();
        (start - cursor, events, total)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(256)))]

    #[test]
    fn events_are_delivered_exactly_once_per_reader(
        capacity in 1usize..12,
        ops in proptest::collection::vec(op(), 1..80),
    ) {
        let mut world = World::new();
        world.init_events::<Ping>(capacity);
        world.insert_resource(Got::default());
        world.insert_resource(ToSend::default());
        let mut model = Model { sent: Vec::new(), capacity };
        let mut next_value = 0u64;
        let mut cursors = [EventCursor::default(); 2];
        let mut model_cursors = [0u64; 3];
        // A world-level cursor that never read asks for what is retained: it missed nothing.
        let mut read_yet = [false; 3];
        for op in ops {
            match op {
                Op::WorldSend(n) => {
                    let batch: Vec<u64> = (0..n).map(|_| { next_value += 1; next_value }).collect();
                    world.send_events(batch.iter().map(|&v| Ping(v)));
                    model.sent.extend(batch);
                }
                Op::SystemSend(n) => {
                    let batch: Vec<u64> = (0..n).map(|_| { next_value += 1; next_value }).collect();
                    world.resource_mut::<ToSend>().unwrap().0 = batch.clone();
                    prop_assert!(world.run(sender).is_clean());
                    model.sent.extend(batch);
                }
                Op::Read(r) => {
                    let (missed, want, next) = model.read(model_cursors[r]);
                    let missed = if r < 2 && !read_yet[r] { 0 } else { missed };
                    read_yet[r] = true;
                    model_cursors[r] = next;
                    if r < 2 {
                        let read = world.read_events::<Ping>(&mut cursors[r]);
                        prop_assert_eq!(read.missed(), missed);
                        // The first event read is the oldest one the reader has not seen.
                        let first = next - want.len() as u64;
                        prop_assert_eq!(read.first_sequence(), first);
                        prop_assert_eq!(read.len(), want.len());
                        prop_assert_eq!(read.size_hint(), (want.len(), Some(want.len())));
                        let got: Vec<u64> = if r == 0 {
                            // Each event's sequence number is its place in the oracle's history.
                            let mut got = Vec::new();
                            for (sequence, p) in read.with_sequence() {
                                prop_assert_eq!(model.sent[sequence as usize], p.0);
                                got.push(p.0);
                            }
                            got
                        } else {
                            read.map(|p| p.0).collect()
                        };
                        prop_assert_eq!(got, want);
                        prop_assert_eq!(cursors[r].next_sequence(), Some(next));
                    } else {
                        let before = world.resource::<Got>().unwrap().events.len();
                        let missed_before = world.resource::<Got>().unwrap().missed;
                        prop_assert!(world.run(receiver).is_clean());
                        let got = world.resource::<Got>().unwrap();
                        prop_assert_eq!(&got.events[before..], &want[..]);
                        prop_assert_eq!(got.missed - missed_before, missed);
                    }
                }
            }
            let channel = world.events::<Ping>().unwrap();
            prop_assert!(channel.len() <= capacity, "bounded");
            prop_assert_eq!(channel.next_sequence(), model.sent.len() as u64);
        }
    }
}

#[derive(Resource, Default, Clone)]
struct GotB(Vec<u64>);

#[system(receives(Ping), writes(GotB))]
fn receiver_b(mut pings: EventReader<Ping>, mut got: ResMut<GotB>) {
    got.0.extend(pings.read().map(|p| p.0));
}

#[derive(Resource, Default, Clone)]
struct Counter(u64);

#[system(writes(Counter), sends(Ping))]
fn ticker(mut counter: ResMut<Counter>, mut pings: EventWriter<Ping>) {
    counter.0 += 1;
    pings.send(Ping(counter.0));
    pings.send(Ping(counter.0 * 1000));
}

#[test]
fn strided_readers_catch_up_and_readers_do_not_steal_from_each_other() {
    for threads in [1, 2, 4] {
        let mut world = World::new();
        world.insert_resource(Counter::default());
        world.insert_resource(Got::default());
        world.insert_resource(GotB::default());
        let mut schedule = Schedule::builder()
            .add(ticker)
            .add(receiver)
            .add(receiver_b)
            .every_ticks(receiver_b, 4)
            .threads(threads)
            .build()
            .unwrap();
        for _ in 0..9 {
            schedule.run(&mut world);
        }
        let all: Vec<u64> = (1..=9).flat_map(|t| [t, t * 1000]).collect();
        assert_eq!(
            world.resource::<Got>().unwrap().events,
            all,
            "threads {threads}"
        );
        // `receiver_b` ran on ticks 0, 4 and 8, each time catching up on everything since.
        assert_eq!(
            world.resource::<GotB>().unwrap().0,
            all,
            "threads {threads}"
        );
    }
}

#[derive(Resource, Default, Clone)]
struct Fail(bool);

#[system(receives(Ping), reads(Fail), writes(Got))]
fn fragile(mut pings: EventReader<Ping>, fail: rota::Res<Fail>, mut got: ResMut<Got>) {
    let read: Vec<u64> = pings.read().map(|p| p.0).collect();
    assert!(!fail.0, "fragile fails on purpose");
    got.events.extend(read);
}

#[test]
fn a_reader_that_panics_reads_the_same_events_again() {
    let mut world = World::new();
    world.insert_resource(Got::default());
    world.insert_resource(Fail(true));
    world.send_events([Ping(1), Ping(2)]);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = world.run(fragile);
    }));
    assert!(panicked.is_err());
    world.resource_mut::<Fail>().unwrap().0 = false;
    world.send_event(Ping(3));
    assert!(world.run(fragile).is_clean());
    assert_eq!(world.resource::<Got>().unwrap().events, [1, 2, 3]);
}

#[test]
fn a_channel_nobody_reads_stays_within_its_capacity() {
    let mut world = World::new();
    world.init_events::<Ping>(100);
    for i in 0..10_000 {
        world.send_event(Ping(i));
    }
    let channel = world.events::<Ping>().unwrap();
    assert_eq!(channel.len(), 100);
    assert_eq!(channel.oldest_sequence(), 9_900);
    // A new cursor asks for what is retained: it missed nothing.
    let mut late = EventCursor::default();
    let read = world.read_events::<Ping>(&mut late);
    assert_eq!(read.missed(), 0);
    assert_eq!(
        read.map(|p| p.0).collect::<Vec<_>>(),
        (9_900..10_000).collect::<Vec<_>>()
    );
    // A cursor that stood at the first event missed everything dropped since.
    let mut from_the_start = EventCursor::at(0);
    let read = world.read_events::<Ping>(&mut from_the_start);
    assert_eq!((read.missed(), read.len()), (9_900, 100));
}

#[derive(rota::Component, Clone, Copy, Debug, PartialEq)]
struct Val(u32);

#[derive(Resource, Default, Clone, Debug, PartialEq)]
struct ChangedSeen(Vec<u32>);

#[system(reads(Val), writes(ChangedSeen))]
fn watch_val(q: rota::Query<&Val, rota::Changed<Val>>, mut seen: ResMut<ChangedSeen>) {
    seen.0.extend(q.iter().map(|v| v.0));
}

/// What a restored world must reproduce: the same reads, the same change windows, the same log.
/// The log is compared by its changes: a restore numbers on past the abandoned future.
fn future(
    world: &mut World,
) -> (
    Vec<u64>,
    u64,
    Vec<u32>,
    Vec<rota::rota_core::log::StructuralChange>,
) {
    let es: Vec<rota::Entity> = world.query::<rota::Entity>().collect();
    world.get_mut::<Val>(es[1]).unwrap().0 += 10;
    world.send_events([Ping(100), Ping(101)]);
    assert!(world.run(receiver).is_clean());
    assert!(world.run(watch_val).is_clean());
    let e = world.spawn_with((Val(7),));
    world.despawn(e).unwrap();
    let got = world.resource::<Got>().unwrap();
    let log: Vec<_> = world
        .structural_log()
        .unwrap()
        .changes_since(0)
        .map(|entry| entry.change)
        .collect();
    (
        got.events.clone(),
        got.missed,
        world.resource::<ChangedSeen>().unwrap().0.clone(),
        log,
    )
}

#[test]
fn a_snapshot_carries_change_ticks_event_cursors_and_the_structural_log() {
    let mut world = World::new();
    world.enable_structural_log(64);
    world.init_events::<Ping>(4);
    world.insert_resource(Got::default());
    world.insert_resource(ChangedSeen::default());
    world.spawn_batch((0..3).map(|i| (Val(i),)));
    world.send_events([Ping(1), Ping(2), Ping(3)]);
    assert!(world.run(receiver).is_clean()); // cursor at 3
    assert!(world.run(watch_val).is_clean()); // last run recorded
    world.send_events([Ping(4), Ping(5), Ping(6), Ping(7), Ping(8)]); // one dropped for it
    let snapshot = world.snapshot().expect("every type is Clone");
    let expected = future(&mut world);
    // The same future from the snapshot, in the same world and in a fresh one.
    world.restore(&snapshot);
    assert_eq!(future(&mut world), expected);
    let mut other = World::new();
    other.restore(&snapshot);
    assert_eq!(future(&mut other), expected);
    // And the future really depended on the restored state.
    let (events, missed, changed, _) = &expected;
    // Capacity 4: of 4..=8, 100, 101 only 7, 8, 100, 101 are retained when it reads.
    assert_eq!(events[3..], [7, 8, 100, 101]);
    assert_eq!(*missed, 3);
    assert_eq!(changed[3..], [11]);
}

/// Counts its live values: `Drop` lowers the count its clone raised.
#[derive(Event, Debug)]
struct Counted(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Clone for Counted {
    fn clone(&self) -> Self {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Counted(self.0.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn a_send_of_many_events_never_holds_more_than_the_capacity() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let live = std::sync::Arc::new(AtomicUsize::new(0));
    let mut channel = rota::Events::<Counted>::with_capacity(3);
    assert!(channel.is_empty());
    let mut most_live_before_a_new_one = 0;
    channel.extend((0..1000).map(|_| {
        // Every event made so far is either in the channel or dropped.
        most_live_before_a_new_one = most_live_before_a_new_one.max(live.load(Ordering::SeqCst));
        live.fetch_add(1, Ordering::SeqCst);
        Counted(live.clone())
    }));
    assert_eq!(
        most_live_before_a_new_one, 3,
        "the oldest go as new ones come"
    );
    assert_eq!(live.load(Ordering::SeqCst), 3);
    assert_eq!((channel.len(), channel.next_sequence()), (3, 1000));
    assert!(!channel.is_empty());
    let read = channel.read_from(0);
    assert_eq!(
        (read.missed(), read.first_sequence(), read.len()),
        (997, 997, 3)
    );
    let sequences: Vec<u64> = read.with_sequence().map(|(s, _)| s).collect();
    assert_eq!(sequences, [997, 998, 999]);
}

#[test]
fn a_cursor_past_every_sequence_number_reads_nothing_and_does_not_overflow() {
    let mut world = World::new();
    // No channel yet: the read starts at the cursor itself.
    let mut cursor = EventCursor::at(u64::MAX);
    let read = world.read_events::<Ping>(&mut cursor);
    assert_eq!((read.first_sequence(), read.len()), (u64::MAX, 0));
    assert_eq!(read.with_sequence().count(), 0);
    world.send_events([Ping(1), Ping(2)]);
    let mut cursor = EventCursor::at(u64::MAX);
    let read = world.read_events::<Ping>(&mut cursor);
    assert_eq!((read.missed(), read.len()), (0, 0));
    assert_eq!(read.with_sequence().count(), 0);
    // The cursor comes back to the channel's next number: later events are read.
    assert_eq!(cursor, EventCursor::at(2));
    world.send_event(Ping(3));
    let read: Vec<(u64, u64)> = world
        .read_events::<Ping>(&mut cursor)
        .with_sequence()
        .map(|(s, p)| (s, p.0))
        .collect();
    assert_eq!(read, [(2, 3)]);
}

/// What `peek` and `count_sends` saw: (len, is_empty) before and after.
#[derive(Resource, Default, Clone)]
struct Peeked(Vec<(usize, bool)>);

#[system(receives(Ping), writes(Peeked))]
fn peek(mut pings: EventReader<Ping>, mut peeked: ResMut<Peeked>) {
    peeked.0.push((pings.len(), pings.is_empty()));
    let _ = pings.read().count();
    peeked.0.push((pings.len(), pings.is_empty()));
}

#[system(writes(Peeked), sends(Ping))]
fn count_sends(mut pings: EventWriter<Ping>, mut peeked: ResMut<Peeked>) {
    peeked.0.push((pings.len(), pings.is_empty()));
    pings.send(Ping(7));
    pings.send_batch([Ping(8), Ping(9)]);
    peeked.0.push((pings.len(), pings.is_empty()));
}

#[test]
fn readers_and_writers_say_how_many_events_wait_or_were_sent() {
    let mut world = World::new();
    world.init_events::<Ping>(4);
    world.insert_resource(Peeked::default());
    // No event yet: nothing waits.
    assert!(world.run(peek).is_clean());
    // Six sent into a channel of four: four wait (two were dropped before this reader came).
    world.send_events((0..6).map(Ping));
    assert!(world.run(peek).is_clean());
    assert!(world.run(count_sends).is_clean());
    assert!(world.run(peek).is_clean());
    assert_eq!(
        world.resource::<Peeked>().unwrap().0,
        [
            (0, true),
            (0, true),
            (4, false),
            (0, true),
            (0, true),
            (3, false),
            (3, false),
            (0, true),
        ]
    );
}
