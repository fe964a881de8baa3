//! Which stores hold a value for each entity slot: the index that makes `despawn` cost
//! proportional to the components an entity has, not to the number of registered types.
//!
//! ```text
//!   bits (slot-major, `words` u64 per slot; bit i = store i in registration order)
//!   slot 0: 0b0101   -> stores 0 and 2 hold slot 0
//!   slot 1: 0b0000   -> no component
//!   slot 2: 0b0011
//! ```
//!
//! Invariant (checked by `World::check_invariants`): bit `i` of slot `s` is set exactly when
//! `stores[i]` holds an entity at slot `s`. Every structural change in `World` goes through a
//! method that keeps both sides in step; stores are never handed out mutably for membership
//! changes (queries only write values).

/// Per-slot store bitsets. Never iterated across slots; per slot, bits are walked in ascending
/// store order (= registration order).
#[derive(Default)]
pub(crate) struct Membership {
    /// u64 words per slot: enough for every registered store.
    words: usize,
    bits: Vec<u64>,
}

impl Clone for Membership {
    fn clone(&self) -> Self {
        let mut copy = Membership::default();
        copy.clone_from(self);
        copy
    }

    /// Exhaustive on purpose: a field added here must be copied too (snapshots restore
    /// through this); reuses `self`'s table.
    fn clone_from(&mut self, source: &Self) {
        let Membership { words, bits } = self;
        *words = source.words;
        bits.clone_from(&source.bits);
    }
}

impl Membership {
    /// Makes room for `stores` stores (called on registration). Re-lays the table out only when
    /// a 64-store boundary is crossed.
    pub(crate) fn ensure_stores(&mut self, stores: usize) {
        let need = stores.div_ceil(64);
        if need <= self.words {
            return;
        }
        if self.words == 0 || self.bits.is_empty() {
            self.words = need;
            self.bits.clear();
            return;
        }
        let slots = self.bits.len() / self.words;
        let mut bits = vec![0u64; slots * need];
        for (old, new) in self.bits.chunks(self.words).zip(bits.chunks_mut(need)) {
            new[..old.len()].copy_from_slice(old);
        }
        self.words = need;
        self.bits = bits;
    }

    /// Makes room for slots below `slot_count` (a batch calls this once up front).
    pub(crate) fn reserve_slots(&mut self, slot_count: usize) {
        let len = slot_count * self.words;
        if self.bits.len() < len {
            self.bits.resize(len, 0);
        }
    }

    /// Records that `store` holds `slot`.
    #[inline]
    pub(crate) fn set(&mut self, slot: u32, store: usize) {
        let i = slot as usize * self.words + store / 64;
        if i >= self.bits.len() {
            self.reserve_slots(slot as usize + 1);
        }
        self.bits[i] |= 1 << (store % 64);
    }

    /// Records that each of `stores` holds each of `entities`' slots: the stores' bits made
    /// into one row mask once, then one `or` per word of each entity's row.
    pub(crate) fn set_many(&mut self, entities: &[crate::entity::Entity], stores: &[usize]) {
        let Some(highest) = entities.iter().map(|e| e.slot()).max() else {
            return;
        };
        if stores.is_empty() {
            return;
        }
        self.reserve_slots(highest as usize + 1);
        let words = self.words;
        let mut mask = vec![0u64; words];
        for &i in stores {
            mask[i / 64] |= 1 << (i % 64);
        }
        for e in entities {
            let at = e.slot() as usize * words;
            for (word, m) in self.bits[at..at + words].iter_mut().zip(&mask) {
                *word |= m;
            }
        }
    }

    /// The first word of `slot`'s row (0 past the table): a read that brings the row into the
    /// cache (see `World::touch_for_despawn`).
    #[inline]
    pub(crate) fn first_word(&self, slot: u32) -> u64 {
        self.bits
            .get(slot as usize * self.words)
            .copied()
            .unwrap_or(0)
    }

    /// Records that `store` no longer holds `slot`.
    #[inline]
    pub(crate) fn clear(&mut self, slot: u32, store: usize) {
        let i = slot as usize * self.words + store / 64;
        if let Some(word) = self.bits.get_mut(i) {
            *word &= !(1 << (store % 64));
        }
    }

    /// Whether `store` holds `slot`, per the index.
    #[inline]
    pub(crate) fn contains(&self, slot: u32, store: usize) -> bool {
        let i = slot as usize * self.words + store / 64;
        self.bits
            .get(i)
            .is_some_and(|w| w & (1 << (store % 64)) != 0)
    }

    /// Calls `f` with each store that holds `slot`, in ascending store order (nothing changes).
    #[inline]
    pub(crate) fn for_each(&self, slot: u32, mut f: impl FnMut(usize)) {
        let start = slot as usize * self.words;
        let Some(row) = self.bits.get(start..start + self.words) else {
            return;
        };
        for (w, &word) in row.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                f(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }

    /// Clears `slot`'s row, calling `f` with each store that held it, in ascending store order.
    #[inline]
    pub(crate) fn take(&mut self, slot: u32, mut f: impl FnMut(usize)) {
        let start = slot as usize * self.words;
        let Some(row) = self.bits.get_mut(start..start + self.words) else {
            return;
        };
        for (w, word) in row.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                f(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }

    /// Number of (slot, store) pairs recorded.
    pub(crate) fn count(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Number of slots with a row.
    #[cfg(test)]
    fn slot_rows_for_tests(&self) -> usize {
        self.bits.len().checked_div(self.words).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests;
