//! A store's change ticks: `added` per element, `changed` per value, and the `changed_floor`
//! an exclusive walk over every value stamps in O(1).
//!
//! Invariants: no tick of the store (the floor included) is newer than `last_changed`, its
//! high-water mark; a value's change tick is the newer of its own and the floor
//! (`effective_changed`); `clamp_ticks` keeps every tick within `MAX_AGE` of now without
//! changing which ticks are newer than which.

use super::*;

/// A value's change tick: its own, or the store's floor if that is newer. Ages are taken from
/// `last_changed`, the store's high-water mark, which no tick of the store (the floor
/// included) is newer than.
#[inline]
pub(crate) fn effective_changed(own: Tick, floor: Option<Tick>, last_changed: Tick) -> Tick {
    match floor {
        Some(floor) if floor.age(last_changed) < own.age(last_changed) => floor,
        _ => own,
    }
}

impl<T> Store<T> {
    /// The tick that inserts and `&mut` access through this store's methods stamp. A `World`
    /// keeps it equal to its own change tick; a free-standing store stays at tick 0 unless set.
    ///
    /// The clock may be set back (a free-standing store's caller decides): the store's floor
    /// (see [`Store::dense_changed_ticks`]) is then first written into the values' own ticks,
    /// since which of a value's tick and the floor is newer is judged from the store's newest
    /// tick, which a write at an older tick no longer is.
    #[inline]
    pub fn set_change_tick(&mut self, now: Tick) {
        self.now = now;
        // `now` behind the high-water mark (a wrapping difference past half the range).
        if self.values.changed_floor.is_some() && self.last_changed.age(now) >= 1 << 31 {
            self.fold_changed_floor();
        }
    }

    /// Writes the floor into every value's own tick where it is newer, and drops it.
    #[cold]
    pub(super) fn fold_changed_floor(&mut self) {
        let last_changed = self.last_changed;
        let columns = self.values_mut();
        if let Some(floor) = columns.changed_floor.take() {
            for t in &mut columns.changed {
                *t = effective_changed(*t, Some(floor), last_changed);
            }
        }
    }

    /// The tick writes are stamped with (see [`Store::set_change_tick`]).
    #[inline]
    pub fn change_tick(&self) -> Tick {
        self.now
    }

    /// No value's `changed` tick is newer than this high-water mark.
    #[inline]
    pub fn last_changed(&self) -> Tick {
        self.last_changed
    }

    /// When `entity`'s value was added and last changed, if the store holds one.
    #[inline]
    pub fn ticks(&self, entity: Entity) -> Option<ComponentTicks> {
        self.dense_index(entity).map(|d| ComponentTicks {
            added: self.index.added[d],
            changed: effective_changed(
                self.values.changed[d],
                self.values.changed_floor,
                self.last_changed,
            ),
        })
    }

    /// When each value last changed, parallel to [`Store::dense_values`]. Borrowed as stored;
    /// a copy when a `&mut` walk over the whole store stamped it in one go (the store keeps
    /// one tick for that walk, its *floor*, not one per value): take it once, not once per
    /// index. [`Store::ticks`] answers for one entity without copying.
    pub fn dense_changed_ticks(&self) -> Cow<'_, [Tick]> {
        let columns = &*self.values;
        match columns.changed_floor {
            None => Cow::Borrowed(&columns.changed),
            Some(floor) => Cow::Owned(
                columns
                    .changed
                    .iter()
                    .map(|&own| effective_changed(own, Some(floor), self.last_changed))
                    .collect(),
            ),
        }
    }

    /// The tick a walk over every value stamped, if one did (see `ValueColumns::changed_floor`).
    #[cfg(test)]
    pub(crate) fn changed_floor(&self) -> Option<Tick> {
        self.values.changed_floor
    }

    /// Calls `f` with every held value and its ticks, in ascending slot order: over the dense
    /// columns side by side when the store is settled (no lookup per value), through
    /// [`Store::ticks`] otherwise.
    pub(crate) fn for_each_with_ticks(&self, mut f: impl FnMut(Entity, &T, ComponentTicks)) {
        if self.is_settled() {
            let changed = self.dense_changed_ticks();
            let columns = self
                .index
                .entities
                .iter()
                .zip(&self.values.values)
                .zip(&self.index.added)
                .zip(changed.iter());
            for (((&e, v), &added), &changed) in columns {
                f(e, v, ComponentTicks { added, changed });
            }
        } else {
            for (e, v) in self.iter() {
                // Every entity `iter` yields is held, so it has ticks.
                if let Some(ticks) = self.ticks(e) {
                    f(e, v, ticks);
                }
            }
        }
    }

    /// When each value was added, parallel to [`Store::dense_values`].
    #[inline]
    pub fn dense_added_ticks(&self) -> &[Tick] {
        &self.index.added
    }

    /// Clamps every tick to at most [`MAX_AGE`](crate::tick::MAX_AGE) old at `now`.
    pub(crate) fn clamp_ticks(&mut self, now: Tick) {
        // Only a column holding a tick older than the clamp point is written (and so copied,
        // if a snapshot shares it).
        let stale = |ticks: &[Tick]| ticks.iter().any(|t| t.needs_clamp(now));
        if stale(&self.index.added) {
            for t in &mut self.index_mut().added {
                t.clamp(now);
            }
        }
        if stale(&self.values.changed)
            || self
                .values
                .changed_floor
                .is_some_and(|f| f.needs_clamp(now))
        {
            let columns = self.values_mut();
            for t in &mut columns.changed {
                t.clamp(now);
            }
            if let Some(floor) = &mut columns.changed_floor {
                floor.clamp(now);
            }
        }
        self.last_changed.clamp(now);
    }
}
