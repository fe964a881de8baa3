//! Reading ahead: overlapping the cache misses of work scattered over a big world.
//!
//! Applying one despawn or one spawn of a reused slot is a chain of dependent loads — the
//! entity's slot, its membership row, a sparse entry per store — each a likely cache miss when
//! the entities are scattered over a world larger than the cache, and each chain too long for
//! the processor to start the next entity's loads while it waits. So a loop over such items
//! first reads, every [`READ_AHEAD`] items, what the next [`READ_AHEAD`] will read first, in
//! one tight loop of independent loads: their misses then overlap, and the work that follows
//! finds the lines in the cache. Nothing is decided by what is read; the values are folded
//! into one word kept opaque (`std::hint::black_box`) so the reads are not optimized away.
//!
//! Measured: `cargo bench --bench workloads -- commands/` (docs/benchmarks.md, "Column-wise
//! batches and command runs").

/// How many items are read ahead at a time: enough misses in flight to fill the processor's
/// miss buffers, few enough lines (two for a despawn, two and one per store for a spawn) to
/// stay in the first-level cache.
pub(crate) const READ_AHEAD: usize = 32;

/// The read-ahead state of one loop: call [`ReadAhead::step`] before taking each item.
pub(crate) struct ReadAhead {
    /// Items read ahead and not yet taken.
    left: usize,
    /// What was read, folded (see the module docs).
    touched: u64,
}

impl ReadAhead {
    pub(crate) fn new() -> ReadAhead {
        ReadAhead {
            left: 0,
            touched: 0,
        }
    }

    /// Before the next item of `rest` (the items not yet taken) is taken: when every item read
    /// ahead has been taken, reads ahead the next [`READ_AHEAD`] with `touch`, which returns a
    /// value made of what it read.
    #[inline]
    pub(crate) fn step<T>(&mut self, rest: &[T], mut touch: impl FnMut(&T) -> u64) {
        if self.left == 0 {
            self.touch_all(&rest[..rest.len().min(READ_AHEAD)], &mut touch);
            self.left = READ_AHEAD;
        }
        self.left -= 1;
    }

    /// Reads ahead every item of `items` with `touch` (for callers that take items in chunks).
    #[inline]
    pub(crate) fn touch_all<T>(&mut self, items: &[T], mut touch: impl FnMut(&T) -> u64) {
        for item in items {
            self.touched ^= touch(item);
        }
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        std::hint::black_box(self.touched);
    }
}
