//! The structural change log: spawns, despawns, and components added or removed, in the order
//! the world made them, each with a sequence number.
//!
//! # Contract
//!
//! * Off by default (it costs an entry per change); [`World::enable_structural_log`] turns it
//!   on with a capacity.
//! * Entries are numbered from 0, consecutively except across a restore: numbers are never
//!   reused (see [`crate::sequence`]). Consumers keep their own cursor (the next sequence
//!   number they want) and read [`StructuralLog::changes_since`]; nothing a consumer does
//!   changes what another sees.
//! * After [`World::restore`], a consumer whose cursor had read entries the restore undid is
//!   told by its next read ([`LogRead::rewound`]) and resyncs (e.g. rescans the world). A log
//!   that is on stays on across a restore, even to a snapshot taken before it was enabled.
//! * Bounded: past its capacity the oldest entries are dropped and a reader behind them is told
//!   how many it missed. [`World::trim_structural_log`] drops entries every consumer has read
//!   (pass the minimum of their cursors).
//! * A spawn is one `Spawned` entry followed by one `Added` per component, in the bundle's
//!   registration order; a despawn is **one** `Despawned` entry, whatever the entity held; an
//!   insert that replaces a value and a remove of an absent component log nothing.
//! * Tags (zero-sized components) are logged like any component. Adding or removing one is
//!   O(1) and touches only the tag's own store — its entity column and sparse page; a
//!   `Vec` of a zero-sized type allocates nothing for values — and never moves another store's
//!   data (`tests/it/structural_log.rs`, `tags_store_nothing_move_nothing_and_are_logged`).

use std::any::TypeId;
use std::collections::VecDeque;

use crate::entity::Entity;
use crate::sequence::{Numbering, Rewind};
use crate::world::{StoreEntry, World};

/// One structural change.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StructuralChange {
    /// An entity was spawned (its components follow as `Added` entries).
    Spawned(Entity),
    /// An entity was despawned, with everything it held.
    Despawned(Entity),
    /// A component was added to an entity that did not have one of its type.
    Added {
        /// The entity.
        entity: Entity,
        /// The component's name.
        component: &'static str,
        /// The component's `TypeId`.
        type_id: TypeId,
    },
    /// A component was removed from a live entity.
    Removed {
        /// The entity.
        entity: Entity,
        /// The component's name.
        component: &'static str,
        /// The component's `TypeId`.
        type_id: TypeId,
    },
}

/// A logged change and its sequence number.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// From 0, per world; consecutive but across a restore, never reused.
    pub sequence: u64,
    /// What changed.
    pub change: StructuralChange,
}

/// The log itself; see the [module docs](self).
///
/// Invariants: `entries` in ascending sequence order, each below `numbering.next()`;
/// `entries.len() <= capacity`; `trimmed_to <= ` the oldest retained sequence.
#[derive(Clone, Debug)]
pub struct StructuralLog {
    entries: VecDeque<LogEntry>,
    numbering: Numbering,
    /// Everything below this was dropped (capacity or trimming), even when no entry is left.
    trimmed_to: u64,
    capacity: usize,
}

/// What one read of the log returns: the entries from the cursor on, and how many the reader
/// missed because they were dropped (capacity or trimming) before it read them.
#[derive(Debug)]
pub struct LogRead<'a> {
    /// Entries dropped between the reader's cursor and the oldest retained one.
    pub missed: u64,
    /// The sequence number the reader should pass next time.
    pub next: u64,
    /// `Some` if a [`World::restore`] undid entries this reader had read (its cursor lies in
    /// the rewind's abandoned numbers): the world no longer holds what they described, so the
    /// reader resyncs. The entries yielded are those after the restore.
    pub rewound: Option<Rewind>,
    entries: std::collections::vec_deque::Iter<'a, LogEntry>,
}

impl<'a> Iterator for LogRead<'a> {
    type Item = &'a LogEntry;
    fn next(&mut self) -> Option<&'a LogEntry> {
        self.entries.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl ExactSizeIterator for LogRead<'_> {}

impl StructuralLog {
    pub(crate) fn with_capacity(capacity: usize) -> StructuralLog {
        StructuralLog {
            entries: VecDeque::new(),
            numbering: Numbering::default(),
            trimmed_to: 0,
            capacity: capacity.max(1),
        }
    }

    /// The sequence number the next entry will get.
    pub fn next_sequence(&self) -> u64 {
        self.numbering.next()
    }

    /// The sequence number of the oldest retained entry (`next_sequence` when none is).
    pub fn oldest_sequence(&self) -> u64 {
        self.entries
            .front()
            .map_or(self.numbering.next(), |e| e.sequence)
    }

    /// The log's numbering: its next number and the restores' [`Rewind`]s it remembers.
    pub fn numbering(&self) -> &Numbering {
        &self.numbering
    }

    /// Retained entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is retained.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The most entries retained.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Every retained entry with a sequence number `>= cursor`, oldest first, with how many
    /// the reader missed and whether a restore stranded it.
    pub fn changes_since(&self, cursor: u64) -> LogRead<'_> {
        let skip = self.entries.partition_point(|e| e.sequence < cursor);
        let dropped_to = self.trimmed_to.max(cursor);
        LogRead {
            missed: self.numbering.issued_between(cursor, dropped_to),
            next: self.next_sequence().max(cursor),
            rewound: self.numbering.rewound(cursor),
            entries: self.entries.range(skip..),
        }
    }

    pub(crate) fn push(&mut self, change: StructuralChange) {
        let sequence = self.numbering.issue();
        if self.entries.len() == self.capacity
            && let Some(oldest) = self.entries.pop_front()
        {
            self.trimmed_to = oldest.sequence + 1;
        }
        self.entries.push_back(LogEntry { sequence, change });
    }

    /// After a restore: see [`Numbering::rejoin`].
    pub(crate) fn rejoin(&mut self, issued: u64) {
        self.numbering.rejoin(issued);
    }

    /// The log as plain data (`world/image.rs`).
    pub(crate) fn image(&self) -> crate::world::image::LogImage {
        crate::world::image::LogImage {
            capacity: self.capacity,
            next_sequence: self.numbering.next(),
            rewinds: self.numbering.rewinds().copied().collect(),
            trimmed_to: self.trimmed_to,
            entries: self.entries.iter().copied().collect(),
        }
    }

    /// The log an image describes, or the rule it breaks.
    pub(crate) fn from_image(
        image: crate::world::image::LogImage,
    ) -> Result<StructuralLog, &'static str> {
        let crate::world::image::LogImage {
            capacity,
            next_sequence,
            rewinds,
            trimmed_to,
            entries,
        } = image;
        let sequences: Vec<u64> = entries.iter().map(|e| e.sequence).collect();
        let numbering = Numbering::restored(next_sequence, rewinds, capacity, &sequences)?;
        if trimmed_to > next_sequence {
            return Err("entries were trimmed past the next number");
        }
        Ok(StructuralLog {
            entries: entries.into(),
            numbering,
            trimmed_to,
            capacity,
        })
    }

    /// Logs a spawn: `Spawned`, then `Added` for each store in `indices`.
    pub(crate) fn spawned(&mut self, entity: Entity, indices: &[usize], stores: &[StoreEntry]) {
        self.push(StructuralChange::Spawned(entity));
        for &i in indices {
            self.added(entity, stores[i].name, stores[i].type_id);
        }
    }

    pub(crate) fn added(&mut self, entity: Entity, component: &'static str, type_id: TypeId) {
        self.push(StructuralChange::Added {
            entity,
            component,
            type_id,
        });
    }

    pub(crate) fn removed(&mut self, entity: Entity, component: &'static str, type_id: TypeId) {
        self.push(StructuralChange::Removed {
            entity,
            component,
            type_id,
        });
    }

    fn trim(&mut self, up_to: u64) {
        let up_to = up_to.min(self.numbering.next());
        let n = self.entries.partition_point(|e| e.sequence < up_to);
        self.entries.drain(..n);
        self.trimmed_to = self.trimmed_to.max(up_to);
    }
}

impl World {
    /// Turns the structural change log on, retaining at most `capacity` entries (at least 1);
    /// if it is on, changes its capacity (dropping the oldest entries beyond it).
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # use rota::rota_core::log::StructuralChange;
    /// # #[derive(Component, Clone)] struct Tag;
    /// let mut world = World::new();
    /// world.enable_structural_log(1024);
    /// let e = world.spawn();
    /// world.insert(e, Tag).unwrap();
    /// world.despawn(e).unwrap();
    /// let log = world.structural_log().unwrap();
    /// let kinds: Vec<_> = log.changes_since(0).map(|entry| entry.change).collect();
    /// assert!(matches!(kinds[..], [
    ///     StructuralChange::Spawned(_),
    ///     StructuralChange::Added { component: "Tag", .. },
    ///     StructuralChange::Despawned(_),
    /// ]));
    /// ```
    pub fn enable_structural_log(&mut self, capacity: usize) {
        match &mut self.log {
            Some(log) => {
                log.capacity = capacity.max(1);
                let excess = log.entries.len().saturating_sub(log.capacity);
                let up_to = log
                    .entries
                    .get(excess)
                    .map_or(log.next_sequence(), |e| e.sequence);
                log.trim(up_to);
            }
            None => self.log = Some(StructuralLog::with_capacity(capacity)),
        }
    }

    /// The structural change log, if it is on.
    pub fn structural_log(&self) -> Option<&StructuralLog> {
        self.log.as_ref()
    }

    /// Drops every logged entry with a sequence number below `up_to` (the minimum of the
    /// consumers' cursors). Does nothing if the log is off.
    pub fn trim_structural_log(&mut self, up_to: u64) {
        if let Some(log) = &mut self.log {
            log.trim(up_to);
        }
    }
}
