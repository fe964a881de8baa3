//! Events: a sequence-numbered, bounded channel per event type, read through cursors.
//!
//! # Delivery
//!
//! * Every event gets the next **sequence number** of its channel when it is appended.
//! * A reader owns a **cursor** (the next sequence number it will read). Reading returns every
//!   retained event from the cursor on and moves the cursor past them, so each reader receives
//!   each event **exactly once**, whatever other readers do, and a reader that skipped ticks
//!   catches up on its next read.
//! * A channel is **bounded**: it retains the newest `capacity` events
//!   ([`DEFAULT_CAPACITY`] unless set with [`World::init_events`]). Older ones are dropped — so
//!   a channel nobody reads never grows past its capacity — and a reader whose cursor fell
//!   behind the oldest retained event is told how many it missed ([`EventRead::missed`]).
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

use std::any::TypeId;
use std::collections::{BTreeMap, VecDeque};
use std::marker::PhantomData;
use std::sync::{Mutex, PoisonError};

use crate::commands::{CommandQueue, EventOp};
use crate::component::Resource;
use crate::snapshot_policy::SnapshotPolicy;
use crate::stable_hash::{StableHash, StableHashFn};
use crate::world::World;

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
/// `EventReader`, [`World::send_event`] and [`World::read_events`].
///
/// # Invariants
///
/// * `queue[i]` has sequence number `first + i`; `next()` = `first + queue.len()`.
/// * `queue.len() <= capacity`.
/// * Every stored cursor is `<= next()`.
#[derive(Clone, Debug)]
pub struct Events<E> {
    queue: VecDeque<E>,
    first: u64,
    capacity: usize,
    cursors: BTreeMap<ReaderKey, u64>,
}

impl<E: Event> Resource for Events<E> {
    const NAME: &'static str = E::NAME;
    // Generic: no `const` identity. Systems never declare the channel itself (they declare
    // `sends(E)` / `receives(E)`), so nothing compares this key.
    const UNIQUE_KEY: Option<&'static str> = None;
    /// Events are `Clone`: a snapshot copies the retained events and every reader's cursor.
    const SNAPSHOT: SnapshotPolicy<Self> = SnapshotPolicy::CLONE;

    /// The channel's positions — sequence numbers, capacity, and the readers' cursors (as a
    /// sorted list: their keys hold `TypeId`s, which differ between builds) — and every
    /// retained event, oldest first, by [`Event::stable_hash_fn`] when the event type has one.
    /// An event type without one (not `StableHash`, or generic) leaves its payloads out: a
    /// payload that differs then shows up in the checksum once a reader acts on it. (Making
    /// that an error would make `full_checksum` fail or not depending on whether a channel
    /// happens to hold events at that tick.)
    fn stable_hash_fn() -> Option<StableHashFn<Self>> {
        Some(|events, h| {
            events.first.stable_hash(h);
            (events.queue.len() as u64).stable_hash(h);
            (events.capacity as u64).stable_hash(h);
            let mut cursors: Vec<u64> = events.cursors.values().copied().collect();
            cursors.sort_unstable();
            cursors.stable_hash(h);
            if let Some(hash) = E::stable_hash_fn() {
                for event in &events.queue {
                    hash(event, h);
                }
            }
        })
    }
}

impl<E> Events<E> {
    /// An empty channel retaining at most `capacity` events (at least 1).
    pub fn with_capacity(capacity: usize) -> Events<E> {
        Events {
            queue: VecDeque::new(),
            first: 0,
            capacity: capacity.max(1),
            cursors: BTreeMap::new(),
        }
    }

    /// The sequence number the next event will get.
    pub fn next_sequence(&self) -> u64 {
        self.first + self.queue.len() as u64
    }

    /// The sequence number of the oldest retained event (= `next_sequence` when empty).
    pub fn oldest_sequence(&self) -> u64 {
        self.first
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

    /// Appends `events` in order, dropping the oldest beyond the capacity. The oldest go as
    /// the new ones come, so the channel never holds more than its capacity, however many
    /// events the iterator yields.
    pub fn extend(&mut self, events: impl IntoIterator<Item = E>) {
        for event in events {
            if self.queue.len() >= self.capacity {
                let oldest = self.queue.pop_front();
                // Counted before the drop: a panicking `Drop` leaves the books right.
                self.first += 1;
                drop(oldest);
            }
            self.queue.push_back(event);
        }
    }

    /// What a reader at `cursor` (a sequence number; older than the oldest retained event
    /// means it missed some) reads: the events from there on, and its next cursor.
    pub fn read_from(&self, cursor: u64) -> EventRead<'_, E> {
        let start = cursor.max(self.first);
        let skip = usize::try_from(start - self.first).unwrap_or(usize::MAX);
        EventRead {
            missed: start - cursor.min(start),
            first_sequence: start,
            events: Some(self.queue.range(skip.min(self.queue.len())..)),
        }
    }

    /// A system reader's cursor: where it stopped, or 0 for a reader that never read (like
    /// `EventCursor::default()`: it reads everything retained and is told what was dropped).
    pub(crate) fn cursor(&self, key: ReaderKey) -> u64 {
        self.cursors.get(&key).copied().unwrap_or(0)
    }

    pub(crate) fn set_cursor(&mut self, key: ReaderKey, cursor: u64) {
        self.cursors.insert(key, cursor.min(self.next_sequence()));
    }
}

/// What one read of a channel returns: the events (oldest first) and how many the reader
/// missed because they were dropped before it read them.
#[derive(Debug)]
pub struct EventRead<'a, E> {
    missed: u64,
    first_sequence: u64,
    /// `None`: the channel does not exist (nothing was ever sent).
    events: Option<std::collections::vec_deque::Iter<'a, E>>,
}

impl<'a, E> EventRead<'a, E> {
    /// Events dropped (capacity) between the reader's cursor and the oldest retained one.
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// The sequence number of the first event this read yields.
    pub fn first_sequence(&self) -> u64 {
        self.first_sequence
    }

    /// The events with their sequence numbers.
    pub fn with_sequence(self) -> impl Iterator<Item = (u64, &'a E)> {
        // Numbered from the events, not zipped with `first_sequence..`: a read with nothing
        // to yield may start at `u64::MAX` (a cursor from the caller), where a range would
        // overflow on its first step. An event's own number always fits.
        let first = self.first_sequence;
        self.events
            .into_iter()
            .flatten()
            .enumerate()
            .map(move |(i, event)| (first + i as u64, event))
    }
}

impl<'a, E> Iterator for EventRead<'a, E> {
    type Item = &'a E;
    fn next(&mut self) -> Option<&'a E> {
        self.events.as_mut()?.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.events.as_ref().map_or((0, Some(0)), |e| e.size_hint())
    }
}

impl<E> ExactSizeIterator for EventRead<'_, E> {}

/// A reader's position outside systems: the next sequence number it will read. Start with
/// `EventCursor::default()` (reads everything retained) and pass it to [`World::read_events`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct EventCursor(pub u64);

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
    sink: &'w Mutex<CommandQueue>,
}

impl<'w, E: Event> EventReader<'w, E> {
    pub(crate) fn new(
        channel: Option<&'w Events<E>>,
        key: ReaderKey,
        sink: &'w Mutex<CommandQueue>,
    ) -> Self {
        let cursor = channel.map_or(0, |c| c.cursor(key));
        EventReader {
            channel,
            key,
            cursor,
            start: cursor,
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
            None => EventRead {
                missed: 0,
                first_sequence: 0,
                events: None,
            },
        }
    }

    /// How many unread events are waiting (without reading them).
    pub fn len(&self) -> usize {
        self.channel.map_or(0, |c| {
            usize::try_from(c.next_sequence() - self.cursor.max(c.oldest_sequence()))
                .unwrap_or(usize::MAX)
        })
    }

    /// Whether no unread event is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<E: Event> Drop for EventReader<'_, E> {
    fn drop(&mut self) {
        if self.cursor == self.start {
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
        self.insert_resource(Events::<E>::with_capacity(capacity));
        true
    }

    /// `E`'s channel, created with the default capacity if needed.
    pub(crate) fn events_mut<E: Event>(&mut self) -> &mut Events<E> {
        if !self.has_resource::<Events<E>>() {
            self.insert_resource(Events::<E>::with_capacity(DEFAULT_CAPACITY));
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
                let read = c.read_from(cursor.0);
                cursor.0 = c.next_sequence();
                read
            }
            None => EventRead {
                missed: 0,
                first_sequence: cursor.0,
                events: None,
            },
        }
    }
}
