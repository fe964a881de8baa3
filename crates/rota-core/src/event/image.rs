//! An event channel as plain data, for save files: [`ChannelImage`], [`World::channel_image`]
//! and [`World::import_channel`].
//!
//! System readers are keyed by system **name** and parameter index in an image (a marker's
//! `TypeId` differs between builds). A loaded reader waits under its name until the system
//! first runs on the world, and meanwhile holds events and hashes exactly like a bound one.

use std::any::TypeId;
use std::collections::{BTreeMap, VecDeque};

use crate::event::{Event, Events};
use crate::sequence::{Numbering, Rewind};
use crate::world::World;
use crate::world::image::ImageError;

/// One event channel as plain data: what [`World::channel_image`] exports and
/// [`World::import_channel`] checks and stores.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelImage<E> {
    /// The most events the channel retains (at least 1).
    pub capacity: usize,
    /// The sequence number the next event will get.
    pub next_sequence: u64,
    /// The restores' rewinds the numbering remembers, oldest first.
    pub rewinds: Vec<Rewind>,
    /// The retained events with their sequence numbers, ascending.
    pub events: Vec<(u64, E)>,
    /// Each system reader's cursor: `(system name, parameter index, cursor)`, sorted.
    pub readers: Vec<(String, u32, u64)>,
    /// The next sequence number when the current world tick began.
    pub this_tick_start: u64,
    /// The same for the previous tick.
    pub previous_tick_start: u64,
}

impl World {
    /// `E`'s channel as plain data, or `None` when the world has none.
    ///
    /// # Errors
    ///
    /// [`ImageError::UnnamedSystem`] for a reader whose system the world never named (only a
    /// system run through a schedule or [`World::run`](crate::World::run) reads a channel, and
    /// both name it), and [`ImageError::DuplicateReader`] when two systems share a name.
    ///
    /// # Examples
    ///
    /// ```
    /// use rota::{Event, World};
    /// #[derive(Event, Clone, Debug, PartialEq)]
    /// struct Hit(u32);
    /// let mut world = World::new();
    /// world.send_event(Hit(3));
    /// let image = world.channel_image::<Hit>()?.unwrap();
    /// let mut fresh = World::new();
    /// fresh.import_channel(image.clone())?;
    /// assert_eq!(fresh.channel_image::<Hit>()?, Some(image));
    /// # Ok::<(), rota::image::ImageError>(())
    /// ```
    pub fn channel_image<E: Event>(&self) -> Result<Option<ChannelImage<E>>, ImageError> {
        let Ok(channel) = self.resource::<Events<E>>() else {
            return Ok(None);
        };
        let mut readers = Vec::with_capacity(channel.cursors.len() + channel.unbound.len());
        for (&(system, index), &cursor) in &channel.cursors {
            let name = self
                .system_name(system)
                .ok_or(ImageError::UnnamedSystem { channel: E::NAME })?;
            readers.push((name.to_owned(), index, cursor));
        }
        for ((name, index), &cursor) in &channel.unbound {
            readers.push((name.to_string(), *index, cursor));
        }
        readers.sort();
        if let Some(w) = readers
            .windows(2)
            .find(|w| (&w[0].0, w[0].1) == (&w[1].0, w[1].1))
        {
            return Err(ImageError::DuplicateReader {
                channel: E::NAME,
                system: w[0].0.clone(),
            });
        }
        Ok(Some(ChannelImage {
            capacity: channel.capacity,
            next_sequence: channel.numbering.next(),
            rewinds: channel.numbering.rewinds().copied().collect(),
            events: channel.queue.iter().cloned().collect(),
            readers,
            this_tick_start: channel.this_tick_start,
            previous_tick_start: channel.previous_tick_start,
        }))
    }

    /// Stores `E`'s channel from an image, replacing none: the world must not have one yet.
    ///
    /// # Errors
    ///
    /// [`ImageError::BadChannel`] naming the channel and the broken rule (capacity, sequence
    /// order, a cursor or tick mark past the next number, a reader listed twice);
    /// [`ImageError::ChannelExists`] if the world already has `E`'s channel. Nothing changes
    /// on error.
    pub fn import_channel<E: Event>(&mut self, image: ChannelImage<E>) -> Result<(), ImageError> {
        let channel = E::NAME;
        let bad = |rule: &'static str| ImageError::BadChannel { channel, rule };
        if self.has_resource::<Events<E>>() {
            return Err(ImageError::ChannelExists { channel });
        }
        let ChannelImage {
            capacity,
            next_sequence,
            rewinds,
            events,
            readers,
            this_tick_start,
            previous_tick_start,
        } = image;
        let sequences: Vec<u64> = events.iter().map(|(s, _)| *s).collect();
        let numbering =
            Numbering::restored(next_sequence, rewinds, capacity, &sequences).map_err(bad)?;
        if previous_tick_start > this_tick_start || this_tick_start > next_sequence {
            return Err(bad(
                "tick marks must be ordered and not past the next number",
            ));
        }
        let mut unbound = BTreeMap::new();
        for (name, index, cursor) in readers {
            if cursor > next_sequence {
                return Err(bad("a reader's cursor is past the next number"));
            }
            if unbound
                .insert((name.into_boxed_str(), index), cursor)
                .is_some()
            {
                return Err(bad("a reader is listed twice"));
            }
        }
        let queue: VecDeque<(u64, E)> = events.into();
        self.insert_resource(Events {
            queue,
            numbering,
            capacity,
            cursors: BTreeMap::<(TypeId, u32), u64>::new(),
            unbound,
            this_tick_start,
            previous_tick_start,
        });
        Ok(())
    }
}
