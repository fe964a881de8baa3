//! Sequence numbers that never repeat for different content: the numbering shared by the
//! structural log and the event channels, and what a restore leaves in it.
//!
//! # Why numbers are never reused
//!
//! A consumer of a numbered stream keeps a cursor (the next number it wants) outside the world.
//! If a restore simply put the stream's counter back, the numbers of the abandoned future would
//! be handed out again to different content, and a consumer that had read them would skip the
//! new entries believing it had seen them (and never learn that what it saw was undone).
//!
//! So a restore never moves a counter back. The world remembers the highest number each stream
//! ever issued (`World`'s `issued` table, which a restore keeps); after a restore to a moment
//! when the stream was at `to`, if numbers up to `from - 1` had been issued since, the stream
//! records a [`Rewind`] `{ to, from }` and goes on at `from + 1`:
//!
//! ```text
//!   issued before the restore:   ... to-1 | to ... from-1 |            (abandoned)
//!   after the restore:           ... to-1 |  (never again: to ..= from) | from+1 ...
//! ```
//!
//! A cursor `c` with `to < c <= from` can only belong to a consumer that read abandoned
//! entries (a consumer that read after the restore is at `<= to` or `> from`; the number
//! `from` itself is skipped so that "read everything before the restore" and "read everything
//! after it" never share a cursor). Reads report it as [`Rewind`]: the consumer resyncs.
//! Monotonic numbering was chosen over an epoch in every cursor because it keeps cursors plain
//! `u64`s and makes "was I rewound" a pure function of the cursor and the stream.

use std::collections::VecDeque;

/// How many rewinds a stream remembers. A cursor older than the oldest remembered rewind is
/// still told it fell behind (its read reports `missed`); it is just not told why.
pub const REMEMBERED_REWINDS: usize = 256;

/// Numbers a restore abandoned: the stream was put back to `to` (its next number in the
/// restored snapshot) after numbers up to `from - 1` had been issued; `to..=from` are never
/// issued again.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rewind {
    /// The next number of the stream in the restored snapshot.
    pub to: u64,
    /// The stream's next number before the restore (skipped too; the stream goes on at
    /// `from + 1`).
    pub from: u64,
}

impl Rewind {
    /// Whether a consumer at `cursor` had read entries this rewind abandoned.
    #[inline]
    pub fn strands(&self, cursor: u64) -> bool {
        self.to < cursor && cursor <= self.from
    }
}

/// A stream's counter and the rewinds it remembers.
///
/// Invariants: `next` only grows; `rewinds` are in the order they happened, each with
/// `from < next`, at most [`REMEMBERED_REWINDS`] of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Numbering {
    next: u64,
    rewinds: VecDeque<Rewind>,
}

impl Numbering {
    /// The number the next entry gets.
    #[inline]
    pub fn next(&self) -> u64 {
        self.next
    }

    /// Hands out the next number.
    #[inline]
    pub(crate) fn issue(&mut self) -> u64 {
        let n = self.next;
        self.next += 1;
        n
    }

    /// After a restore: `issued` is the highest `next` this stream had in the world before
    /// (across every restore). If it is ahead, records the rewind and skips past it.
    pub(crate) fn rejoin(&mut self, issued: u64) {
        if issued <= self.next {
            return;
        }
        if self.rewinds.len() == REMEMBERED_REWINDS {
            self.rewinds.pop_front();
        }
        self.rewinds.push_back(Rewind {
            to: self.next,
            from: issued,
        });
        self.next = issued + 1;
    }

    /// The latest rewind that stranded a consumer at `cursor`, if any.
    pub fn rewound(&self, cursor: u64) -> Option<Rewind> {
        self.rewinds
            .iter()
            .rev()
            .find(|r| r.strands(cursor))
            .copied()
    }

    /// A numbering that goes on at `next` and remembers `rewinds` (oldest first), as a saved
    /// world holds them; `None` unless every rewind is `to < from < next`, they are at most
    /// [`REMEMBERED_REWINDS`].
    ///
    /// ```
    /// use rota::rota_core::sequence::{Numbering, Rewind};
    /// let n = Numbering::from_parts(9, vec![Rewind { to: 1, from: 4 }]).unwrap();
    /// assert_eq!(n.next(), 9);
    /// assert!(Numbering::from_parts(3, vec![Rewind { to: 1, from: 4 }]).is_none());
    /// ```
    pub fn from_parts(next: u64, rewinds: Vec<Rewind>) -> Option<Numbering> {
        let valid = rewinds.len() <= REMEMBERED_REWINDS
            && rewinds.iter().all(|r| r.to < r.from && r.from < next);
        valid.then(|| Numbering {
            next,
            rewinds: rewinds.into(),
        })
    }

    /// A saved stream's numbering, checked with what it holds: at most `capacity` (at least 1)
    /// entries whose `sequences` ascend below `next`, and valid `rewinds`; the rule broken
    /// otherwise (the structural log's and an event channel's images share it).
    pub(crate) fn restored(
        next: u64,
        rewinds: Vec<Rewind>,
        capacity: usize,
        sequences: &[u64],
    ) -> Result<Numbering, &'static str> {
        if capacity == 0 || sequences.len() > capacity {
            return Err("holds more entries than its capacity (or capacity 0)");
        }
        if !sequences.windows(2).all(|w| w[0] < w[1])
            || sequences.last().is_some_and(|&s| s >= next)
        {
            return Err("sequence numbers must ascend below the next number");
        }
        Numbering::from_parts(next, rewinds)
            .ok_or("a rewind must satisfy to < from < next, at most 256 of them")
    }

    /// The rewinds remembered, oldest first.
    pub fn rewinds(&self) -> impl ExactSizeIterator<Item = &Rewind> {
        self.rewinds.iter()
    }

    /// How many numbers in `start..end` were really issued (not abandoned by a remembered
    /// rewind): what a reader at `start` missed when the oldest retained entry is `end`.
    pub(crate) fn issued_between(&self, start: u64, end: u64) -> u64 {
        if end <= start {
            return 0;
        }
        // Abandoned ranges can overlap (a later restore to an earlier moment covers an earlier
        // rewind's numbers): count the union, walking the ranges in order of their start.
        let mut ranges: Vec<(u64, u64)> = self
            .rewinds
            .iter()
            .map(|r| (r.to.max(start), r.from.saturating_add(1).min(end)))
            .filter(|(a, b)| a < b)
            .collect();
        ranges.sort_unstable();
        let mut abandoned = 0;
        let mut covered_to = start;
        for (a, b) in ranges {
            let a = a.max(covered_to);
            if a < b {
                abandoned += b - a;
                covered_to = b;
            }
        }
        (end - start) - abandoned
    }
}

/// A numbered stream the world keeps across restores and ticks: an event channel. Implemented
/// by `Events<E>` only; reached through the hidden `Resource::as_stream` hooks.
#[doc(hidden)]
pub trait NumberedStream {
    /// The stream's counter and rewinds.
    fn numbering(&self) -> &Numbering;
    /// After a restore: see [`Numbering::rejoin`].
    fn rejoin(&mut self, issued: u64);
    /// The end of a world tick: drops what retention no longer keeps.
    fn end_tick(&mut self);
    /// Whether the stream holds nothing that decides the future (no entry, no reader): such a
    /// channel hashes like an absent one.
    fn is_vacant(&self) -> bool;
    /// A system named `name` runs for the first time on this world, as `system`: readers a
    /// loaded image left under its name become its readers (event channels; others ignore it).
    fn bind_reader(&mut self, _name: &str, _system: std::any::TypeId) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejoin_behind_the_counter_changes_nothing() {
        let mut n = Numbering::default();
        n.issue();
        n.issue();
        n.rejoin(1);
        n.rejoin(2);
        assert_eq!(n.next(), 2);
        assert_eq!(n.rewinds().len(), 0);
    }

    #[test]
    fn a_rejoin_ahead_records_the_rewind_and_skips_its_last_number() {
        let mut n = Numbering::default();
        n.issue(); // 0; the snapshot is at 1
        n.rejoin(4); // 1, 2, 3 were issued before the restore
        assert_eq!(n.next(), 5);
        assert_eq!(n.rewound(1), None); // read nothing abandoned
        assert_eq!(n.rewound(2), Some(Rewind { to: 1, from: 4 }));
        assert_eq!(n.rewound(4), Some(Rewind { to: 1, from: 4 }));
        assert_eq!(n.rewound(5), None); // read after the restore
        assert_eq!(n.issued_between(0, 5), 1);
        assert_eq!(n.issued_between(0, 1), 1);
        assert_eq!(n.issued_between(5, 7), 2);
    }

    #[test]
    fn overlapping_rewinds_are_counted_once() {
        let mut n = Numbering::default();
        n.rejoin(3); // restored to 0 after 0, 1, 2 were issued: next 4
        let snapshot = n.clone(); // remembers the rewind 0..=3
        n.issue(); // 4
        n.issue(); // 5
        let issued = n.next();
        n = snapshot.clone(); // a second restore of the same snapshot
        n.rejoin(issued); // to 4, from 6: next 7
        assert_eq!(n.rewinds().len(), 2);
        assert_eq!(n.issued_between(0, 7), 0);
        assert_eq!(n.issued_between(0, 9), 2);
        assert_eq!(n.rewound(5), Some(Rewind { to: 4, from: 6 }));
        assert_eq!(n.rewound(2), Some(Rewind { to: 0, from: 3 }));
    }

    #[test]
    fn only_the_latest_rewinds_are_remembered() {
        let mut n = Numbering::default();
        for _ in 0..REMEMBERED_REWINDS + 3 {
            let next = n.next();
            n.rejoin(next + 2);
        }
        assert_eq!(n.rewinds().len(), REMEMBERED_REWINDS);
    }
}
