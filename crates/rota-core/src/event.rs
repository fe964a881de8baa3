//! Events: a sequence-numbered, bounded channel per event type, read through cursors.
//!
//! # Delivery
//!
//! * Every event gets the next **sequence number** of its channel when it is appended. Numbers
//!   are never reused, not even across [`World::restore`] (see [`crate::sequence`]).
//! * A reader owns a **cursor** (the next sequence number it will read). Reading returns every
//!   retained event from the cursor on and moves the cursor past them, so each reader receives
//!   each event **exactly once**, whatever other readers do, and a reader that skipped ticks
//!   catches up on its next read.
//!
//! # Retention
//!
//! A channel keeps an event while it may still be read by someone it knows of, and no longer:
//!
//! * until **every system reader** of the channel has read it (a strided or not-yet-due reader
//!   keeps what it has not read), and
//! * at least until the end of the world tick **after** the one it was sent in
//!   ([`World::advance_tick`], which every `Schedule::run` calls), so that code outside the
//!   systems that reads once per tick ([`World::read_events`]) never misses one — the two-tick
//!   buffer bevy users know.
//!
//! Events are dropped at the end of a tick, never in the middle of one. A snapshot and
//! [`World::full_checksum`] therefore cost what is unread (plus at most two ticks of events),
//! not what was ever sent. On top of that a channel is **bounded**: it retains the newest
//! `capacity` events ([`DEFAULT_CAPACITY`] unless set with [`World::init_events`]), and a reader
//! whose cursor fell behind the oldest retained event is told how many it missed
//! ([`EventRead::missed`]).
//!
//! A **new reader starts now**: a system reader that reads a channel for the first time starts
//! at the first event sent in the current tick (so a receiver declared after a sender in the
//! same tick sees the sender's events, and nothing older); an outside reader starts where its
//! [`EventCursor`] says: [`World::event_cursor`] is "from now on", `EventCursor::default()`
//! asks for the history the channel still retains. Neither reports as missed what was dropped
//! before it existed.
//!
//! # Order
//!
//! A system's `EventWriter` buffers what it sends; the buffer is appended at the end of the
//! system's batch, with its commands, **in plan order** — so readers see the same sequence on 1
//! or N threads. Systems that send `E` and systems that receive `E` never share a batch (the
//! scheduler orders them like a writer and a reader); senders may share one.
//!
//! System readers' cursors live in the channel, keyed by system and parameter, so they belong
//! to the world (a snapshot of the world includes them) and a system run with `World::run`
//! resumes where it stopped. A reader's new cursor is stored when its batch ends; a system that
//! panics keeps its old cursor and reads the same events again next time.
//!
//! # Restores
//!
//! After [`World::restore`], a cursor that had read events the restore undid is detected:
//! [`EventRead::rewound`] names the [`Rewind`]. The reader then knows that what it did with
//! those events belongs to an abandoned future, and resyncs.

use std::any::TypeId;
use std::collections::{BTreeMap, VecDeque};
use std::marker::PhantomData;
use std::sync::{Mutex, PoisonError};

use crate::commands::{CommandQueue, EventOp};
use crate::component::Resource;
use crate::sequence::{NumberedStream, Numbering, Rewind};
use crate::snapshot_policy::SnapshotPolicy;
use crate::stable_hash::{StableHash, StableHashFn};
use crate::world::World;

mod image;

pub use image::ChannelImage;

/// How many events a channel retains unless [`World::init_events`] says otherwise.
pub const DEFAULT_CAPACITY: usize = 65_536;

/// A type that can be sent as an event. Derive it with `#[derive(Event)]` (from `rota`).
///
/// Events are `Clone` so that a world holding them can be snapshotted.
///
/// ```
/// use rota::{Event, EventCursor, World};
///
/// #[derive(Event, Clone, Debug, PartialEq)]
/// struct Hit { damage: u32 }
///
/// let mut world = World::new();
/// world.send_event(Hit { damage: 3 });
/// let hits: Vec<Hit> = world.read_events::<Hit>(&mut EventCursor::default()).cloned().collect();
/// assert_eq!(hits, [Hit { damage: 3 }]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an event",
    label = "not an `Event`",
    note = "add `#[derive(Event)]` (and `Clone`) to the definition of `{Self}`"
)]
pub trait Event: Clone + Send + Sync + 'static {
    /// The name used in messages.
    const NAME: &'static str;
    /// A string no other event type shares (see `Component::UNIQUE_KEY`).
    const UNIQUE_KEY: Option<&'static str>;

    /// How [`World::full_checksum`](crate::World::full_checksum) hashes one event, if it can:
    /// the derive returns `Some` when the type implements
    /// [`StableHash`], as for components (and, as for them, not
    /// for a generic type). Without one, the checksum covers the channel's positions but not
    /// its payloads.
    fn stable_hash_fn() -> Option<StableHashFn<Self>> {
        None
    }
}

/// Identifies a system's reader: the system marker's `TypeId` and the reader's position among
/// the system's `EventReader` parameters of this event type.
pub(crate) type ReaderKey = (TypeId, u32);

/// The channel of event type `E`: a world resource, reached through `EventWriter`,
/// `EventReader`, [`World::send_event`] and [`World::read_events`]. See the
/// [module docs](self) for delivery, retention and restores.
///
/// # Invariants
///
/// * `queue` holds `(sequence, event)` in ascending sequence order, every sequence below
///   `numbering.next()` (consecutive except across a restore's [`Rewind`]).
/// * `queue.len() <= capacity`.
/// * Every stored cursor and both tick marks are `<= numbering.next()`, and
///   `previous_tick_start <= this_tick_start`.
#[derive(Clone, Debug)]
pub struct Events<E> {
    queue: VecDeque<(u64, E)>,
    numbering: Numbering,
    capacity: usize,
    cursors: BTreeMap<ReaderKey, u64>,
    /// Readers' cursors loaded from a saved channel (`event/image.rs`), keyed by system name
    /// and parameter index, for systems that have not run on this world yet: a system's first
    /// run moves its entries into `cursors` (`NumberedStream::bind_reader`). They hold events
    /// and hash exactly like bound cursors.
    unbound: BTreeMap<(Box<str>, u32), u64>,
    /// The next sequence number when the current world tick began: a new system reader starts
    /// here, and nothing from here on is dropped at the end of this tick.
    this_tick_start: u64,
    /// The same for the previous tick: the end of this tick drops only events below it that
    /// every system reader has read.
    previous_tick_start: u64,
}

impl<E: Event> Resource for Events<E> {
    const NAME: &'static str = E::NAME;
    // Generic: no `const` identity. Systems never declare the channel itself (they declare
    // `sends(E)` / `receives(E)`), so nothing compares this key.
    const UNIQUE_KEY: Option<&'static str> = None;
    /// Events are `Clone`: a snapshot copies the retained events and every reader's cursor.
    const SNAPSHOT: SnapshotPolicy<Self> = SnapshotPolicy::CLONE;

    /// What decides the channel's future, relative to the channel itself so that two worlds
    /// that agree hash alike whatever restores numbered their events: the capacity, the
    /// retained events (by [`Event::stable_hash_fn`] when the event type has one), where each
    /// system reader stands among them (as a sorted list: their keys hold `TypeId`s, which
    /// differ between builds) and where the two tick marks stand. Absolute sequence numbers
    /// are left out. An event type without a stable hash (not `StableHash`, or generic)
    /// leaves its payloads out: a payload that differs then shows up in the checksum once a
    /// reader acts on it. (Making that an error would make `full_checksum` fail or not
    /// depending on whether a channel happens to hold events at that tick.)
    fn stable_hash_fn() -> Option<StableHashFn<Self>> {
        Some(|events, h| {
            (events.capacity as u64).stable_hash(h);
            (events.queue.len() as u64).stable_hash(h);
            let mut cursors: Vec<(u64, u64)> = events
                .cursors
                .values()
                .chain(events.unbound.values())
                .map(|&c| events.relative(c))
                .collect();
            cursors.sort_unstable();
            cursors.stable_hash(h);
            events.relative(events.this_tick_start).stable_hash(h);
            events.relative(events.previous_tick_start).stable_hash(h);
            if let Some(hash) = E::stable_hash_fn() {
                for (_, event) in &events.queue {
                    hash(event, h);
                }
            }
        })
    }

    fn as_stream(&self) -> Option<&dyn NumberedStream> {
        Some(self)
    }

    fn as_stream_mut(&mut self) -> Option<&mut dyn NumberedStream> {
        Some(self)
    }
}

impl<E> NumberedStream for Events<E> {
    fn numbering(&self) -> &Numbering {
        &self.numbering
    }

    fn rejoin(&mut self, issued: u64) {
        self.numbering.rejoin(issued);
    }

    /// Drops every event older than the previous tick's start that every system reader has
    /// read, then moves the tick marks.
    fn end_tick(&mut self) {
        self.previous_tick_start = self.this_tick_start;
        self.this_tick_start = self.numbering.next();
        let keep_from = self
            .cursors
            .values()
            .chain(self.unbound.values())
            .copied()
            .fold(self.previous_tick_start, u64::min);
        let n = self.queue.partition_point(|(s, _)| *s < keep_from);
        // `drain` drops them one by one; a panicking `Drop` leaves the rest in the queue,
        // still consistent.
        self.queue.drain(..n);
    }

    fn is_vacant(&self) -> bool {
        self.queue.is_empty() && self.cursors.is_empty() && self.unbound.is_empty()
    }

    fn bind_reader(&mut self, name: &str, system: TypeId) {
        if self.unbound.is_empty() {
            return;
        }
        let keys: Vec<(Box<str>, u32)> = self
            .unbound
            .keys()
            .filter(|(n, _)| &**n == name)
            .cloned()
            .collect();
        for key in keys {
            if let Some(cursor) = self.unbound.remove(&key) {
                self.cursors.entry((system, key.1)).or_insert(cursor);
            }
        }
    }
}

impl<E> Events<E> {
    /// An empty channel retaining at most `capacity` events (at least 1).
    pub fn with_capacity(capacity: usize) -> Events<E> {
        Events {
            queue: VecDeque::new(),
            numbering: Numbering::default(),
            capacity: capacity.max(1),
            cursors: BTreeMap::new(),
            unbound: BTreeMap::new(),
            this_tick_start: 0,
            previous_tick_start: 0,
        }
    }

    /// The sequence number the next event will get.
    pub fn next_sequence(&self) -> u64 {
        self.numbering.next()
    }

    /// The sequence number of the oldest retained event (= `next_sequence` when empty).
    pub fn oldest_sequence(&self) -> u64 {
        self.queue
            .front()
            .map_or(self.numbering.next(), |(sequence, _)| *sequence)
    }

    /// How many events are retained.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no event is retained.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The most events this channel retains.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The channel's numbering: its next number and the restores' [`Rewind`]s it remembers.
    pub fn numbering(&self) -> &Numbering {
        &self.numbering
    }

    /// Appends `events` in order, dropping the oldest beyond the capacity. The oldest go as
    /// the new ones come, so the channel never holds more than its capacity, however many
    /// events the iterator yields.
    pub fn extend(&mut self, events: impl IntoIterator<Item = E>) {
        for event in events {
            if self.queue.len() >= self.capacity {
                drop(self.queue.pop_front());
            }
            let sequence = self.numbering.issue();
            self.queue.push_back((sequence, event));
        }
    }

    /// Where `cursor` stands among the retained events: how many retained events are before
    /// it, and how many events it missed (issued, dropped, not read by it).
    fn relative(&self, cursor: u64) -> (u64, u64) {
        let before = self.queue.partition_point(|(s, _)| *s < cursor) as u64;
        let missed = self
            .numbering
            .issued_between(cursor, self.oldest_sequence());
        (before, missed)
    }

    /// What a reader at `cursor` (a sequence number) reads: the events from there on, how
    /// many it missed, and whether a restore stranded it.
    pub fn read_from(&self, cursor: u64) -> EventRead<'_, E> {
        let skip = self.queue.partition_point(|(s, _)| *s < cursor);
        let oldest = self.oldest_sequence();
        EventRead {
            missed: self.numbering.issued_between(cursor, oldest),
            rewound: self.numbering.rewound(cursor),
            first_sequence: self
                .queue
                .get(skip)
                .map_or(self.numbering.next(), |(s, _)| *s),
            events: Some(self.queue.range(skip..)),
        }
    }

    /// What a reader with no history reads: every retained event, nothing missed.
    fn read_all(&self) -> EventRead<'_, E> {
        self.read_from(self.oldest_sequence())
    }

    /// A system reader's cursor, or `None` for a reader that never read this channel.
    pub(crate) fn cursor(&self, key: ReaderKey) -> Option<u64> {
        self.cursors.get(&key).copied()
    }

    /// Where a system reader that never read this channel starts: the current tick's first
    /// event.
    pub(crate) fn new_reader_start(&self) -> u64 {
        self.this_tick_start
    }

    /// How many retained events a reader at `cursor` has not read.
    pub(crate) fn unread_from(&self, cursor: u64) -> usize {
        self.queue.len() - self.queue.partition_point(|(s, _)| *s < cursor)
    }

    pub(crate) fn set_cursor(&mut self, key: ReaderKey, cursor: u64) {
        self.cursors.insert(key, cursor.min(self.next_sequence()));
    }
}

/// What one read of a channel returns: the events (oldest first), how many the reader missed
/// because they were dropped before it read them, and whether a restore stranded it.
#[derive(Debug)]
pub struct EventRead<'a, E> {
    missed: u64,
    rewound: Option<Rewind>,
    first_sequence: u64,
    /// `None`: the channel does not exist (nothing was ever sent).
    events: Option<std::collections::vec_deque::Iter<'a, (u64, E)>>,
}

impl<'a, E> EventRead<'a, E> {
    /// A read of a channel that does not exist.
    fn nothing(first_sequence: u64) -> Self {
        EventRead {
            missed: 0,
            rewound: None,
            first_sequence,
            events: None,
        }
    }

    /// Events the reader never got: issued after its cursor, dropped (capacity, or retention
    /// while it did not read for over a tick) before it read them.
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// `Some` if a [`World::restore`] undid events this reader had already read (its cursor
    /// lies in the rewind's abandoned numbers): what it did with them belongs to a future that
    /// no longer exists. The events yielded are those after the restore.
    pub fn rewound(&self) -> Option<Rewind> {
        self.rewound
    }

    /// The sequence number of the first event this read yields (the channel's next number
    /// when it yields none).
    pub fn first_sequence(&self) -> u64 {
        self.first_sequence
    }

    /// The events with their sequence numbers.
    pub fn with_sequence(self) -> impl Iterator<Item = (u64, &'a E)> {
        self.events
            .into_iter()
            .flatten()
            .map(|(sequence, event)| (*sequence, event))
    }
}

impl<'a, E> Iterator for EventRead<'a, E> {
    type Item = &'a E;
    fn next(&mut self) -> Option<&'a E> {
        self.events.as_mut()?.next().map(|(_, event)| event)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.events.as_ref().map_or((0, Some(0)), |e| e.size_hint())
    }
}

impl<E> ExactSizeIterator for EventRead<'_, E> {}

/// A reader's position outside systems, passed to [`World::read_events`].
///
/// `EventCursor::default()` has not read yet: its first read yields every event the channel
/// still retains (see the [module docs](self) on retention) and reports nothing as missed.
/// [`World::event_cursor`] starts "now": it yields only events sent after it was made.
/// After a read, the cursor is the next sequence number it will read ([`EventCursor::at`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct EventCursor {
    next: Option<u64>,
}

impl EventCursor {
    /// A cursor whose next read starts at sequence number `next`.
    pub fn at(next: u64) -> EventCursor {
        EventCursor { next: Some(next) }
    }

    /// The next sequence number this cursor reads, or `None` if it has not read yet.
    pub fn next_sequence(&self) -> Option<u64> {
        self.next
    }
}

/// Sends events of type `E` from a system that declares `sends(E)`. Buffered: the events are
/// appended to the channel at the end of the system's batch, in plan order.
pub struct EventWriter<'w, E: Event> {
    buffer: Vec<E>,
    sink: &'w Mutex<CommandQueue>,
}

impl<'w, E: Event> EventWriter<'w, E> {
    pub(crate) fn new(sink: &'w Mutex<CommandQueue>) -> Self {
        EventWriter {
            buffer: Vec::new(),
            sink,
        }
    }

    /// Sends one event.
    pub fn send(&mut self, event: E) {
        self.buffer.push(event);
    }

    /// Sends every event of `events`, in order.
    pub fn send_batch(&mut self, events: impl IntoIterator<Item = E>) {
        self.buffer.extend(events);
    }

    /// Events sent by this writer so far in this run.
    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    /// Whether this writer sent nothing yet in this run.
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }
}

impl<E: Event> Drop for EventWriter<'_, E> {
    fn drop(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let events = std::mem::take(&mut self.buffer);
        self.sink
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_event_op(Box::new(SendEvents(events)));
    }
}

/// Receives events of type `E` in a system that declares `receives(E)`: each event exactly once
/// per reader, in sequence order, including those sent while the system did not run.
pub struct EventReader<'w, E: Event> {
    channel: Option<&'w Events<E>>,
    key: ReaderKey,
    cursor: u64,
    start: u64,
    /// Whether the channel already holds this reader's cursor (a first run stores it even if
    /// nothing was read, so that retention keeps what this reader has not read yet).
    known: bool,
    sink: &'w Mutex<CommandQueue>,
}

impl<'w, E: Event> EventReader<'w, E> {
    pub(crate) fn new(
        channel: Option<&'w Events<E>>,
        key: ReaderKey,
        sink: &'w Mutex<CommandQueue>,
    ) -> Self {
        let stored = channel.and_then(|c| c.cursor(key));
        let cursor = match (stored, channel) {
            (Some(cursor), _) => cursor,
            (None, Some(c)) => c.new_reader_start(),
            (None, None) => 0,
        };
        EventReader {
            channel,
            key,
            cursor,
            start: cursor,
            known: stored.is_some(),
            sink,
        }
    }

    /// Every event this reader has not read yet, oldest first; afterwards they count as read.
    /// [`EventRead::missed`] says how many were dropped (capacity) before this reader got to
    /// them.
    pub fn read(&mut self) -> EventRead<'w, E> {
        match self.channel {
            Some(c) => {
                let read = c.read_from(self.cursor);
                self.cursor = c.next_sequence();
                read
            }
            None => EventRead::nothing(0),
        }
    }

    /// How many unread events are waiting (without reading them).
    pub fn len(&self) -> usize {
        self.channel.map_or(0, |c| c.unread_from(self.cursor))
    }

    /// Whether no unread event is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<E: Event> Drop for EventReader<'_, E> {
    fn drop(&mut self) {
        // A reader's first run stores its cursor even if it read nothing (creating the channel
        // if nothing was sent yet): from then on retention keeps what it has not read.
        if self.known && self.cursor == self.start {
            return;
        }
        self.sink
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_event_op(Box::new(AdvanceCursor::<E> {
                key: self.key,
                to: self.cursor,
                _event: PhantomData,
            }));
    }
}

struct SendEvents<E>(Vec<E>);

impl<E: Event> EventOp for SendEvents<E> {
    fn apply(self: Box<Self>, world: &mut World) {
        world.events_mut::<E>().extend(self.0);
    }
}

struct AdvanceCursor<E> {
    key: ReaderKey,
    to: u64,
    _event: PhantomData<fn() -> E>,
}

impl<E: Event> EventOp for AdvanceCursor<E> {
    fn apply(self: Box<Self>, world: &mut World) {
        world.events_mut::<E>().set_cursor(self.key, self.to);
    }
}

impl World {
    /// Creates `E`'s channel with room for `capacity` events if it does not exist yet (a
    /// channel is otherwise created with [`DEFAULT_CAPACITY`] by the first send). Returns
    /// whether it created it.
    pub fn init_events<E: Event>(&mut self, capacity: usize) -> bool {
        if self.has_resource::<Events<E>>() {
            return false;
        }
        self.insert_channel(Events::<E>::with_capacity(capacity));
        true
    }

    /// Stores a new channel, numbered on from what this world issued for `E` before a restore
    /// removed its channel (numbers are never reused).
    fn insert_channel<E: Event>(&mut self, mut channel: Events<E>) {
        if let Some(issued) = self.issued_for(std::any::TypeId::of::<Events<E>>()) {
            channel.rejoin(issued);
            channel.this_tick_start = channel.numbering.next();
            channel.previous_tick_start = channel.this_tick_start;
        }
        self.insert_resource(channel);
    }

    /// `E`'s channel, created with the default capacity if needed.
    pub(crate) fn events_mut<E: Event>(&mut self) -> &mut Events<E> {
        if !self.has_resource::<Events<E>>() {
            self.insert_channel(Events::<E>::with_capacity(DEFAULT_CAPACITY));
        }
        self.resource_mut::<Events<E>>()
            .expect("the channel was just created")
    }

    /// Sends one event now (outside systems).
    pub fn send_event<E: Event>(&mut self, event: E) {
        self.events_mut::<E>().extend([event]);
    }

    /// Sends every event of `events` now, in order.
    pub fn send_events<E: Event>(&mut self, events: impl IntoIterator<Item = E>) {
        self.events_mut::<E>().extend(events);
    }

    /// `E`'s channel, if any event was ever sent or it was initialised.
    pub fn events<E: Event>(&self) -> Option<&Events<E>> {
        self.resource::<Events<E>>().ok()
    }

    /// A cursor that reads only the `E` events sent from now on.
    ///
    /// ```
    /// # use rota::{Event, World};
    /// # #[derive(Event, Clone)] struct Ping(u32);
    /// let mut world = World::new();
    /// world.send_event(Ping(1));
    /// let mut cursor = world.event_cursor::<Ping>();
    /// world.send_event(Ping(2));
    /// let seen: Vec<u32> = world.read_events::<Ping>(&mut cursor).map(|p| p.0).collect();
    /// assert_eq!(seen, [2]);
    /// ```
    pub fn event_cursor<E: Event>(&self) -> EventCursor {
        EventCursor::at(self.events::<E>().map_or(0, Events::next_sequence))
    }

    /// Reads every `E` after `cursor` (outside systems) and moves the cursor past them.
    ///
    /// ```
    /// # use rota::{Event, EventCursor, World};
    /// # #[derive(Event, Clone)] struct Ping(u32);
    /// let mut world = World::new();
    /// let mut cursor = EventCursor::default();
    /// world.send_events([Ping(1), Ping(2)]);
    /// let seen: Vec<u32> = world.read_events::<Ping>(&mut cursor).map(|p| p.0).collect();
    /// assert_eq!(seen, [1, 2]);
    /// world.send_event(Ping(3));
    /// let seen: Vec<u32> = world.read_events::<Ping>(&mut cursor).map(|p| p.0).collect();
    /// assert_eq!(seen, [3]); // each event once per cursor
    /// ```
    pub fn read_events<E: Event>(&self, cursor: &mut EventCursor) -> EventRead<'_, E> {
        match self.events::<E>() {
            Some(c) => {
                let read = match cursor.next {
                    Some(next) => c.read_from(next),
                    None => c.read_all(),
                };
                cursor.next = Some(c.next_sequence());
                read
            }
            None => {
                // No channel: a restore may have removed one this cursor read from. The cursor
                // stays: the channel, when it comes back, numbers on past it.
                let issued = self.issued_for(std::any::TypeId::of::<Events<E>>());
                let mut read = EventRead::nothing(cursor.next.unwrap_or(0));
                if let (Some(next), Some(issued)) = (cursor.next, issued) {
                    read.rewound = Some(Rewind {
                        to: 0,
                        from: issued,
                    })
                    .filter(|r| r.strands(next));
                }
                read
            }
        }
    }
}
