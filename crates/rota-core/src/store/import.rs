//! `Store::push_with_ticks`: a value appended with the change ticks a saved world gave it
//! (`World::import_column`).

use super::*;

impl<T> Store<T> {
    /// Stores `value` for `entity` (which the store must not hold) with the given ticks, and
    /// returns whether it was stored (not when the store already held the entity or could
    /// not grow). The caller sets the high-water mark afterwards.
    pub(crate) fn push_with_ticks(
        &mut self,
        entity: Entity,
        value: T,
        ticks: ComponentTicks,
    ) -> bool {
        if self.contains(entity) || self.try_insert(entity, value).is_err() {
            return false;
        }
        let Some(d) = self.dense_index(entity) else {
            return false;
        };
        self.index_mut().added[d] = ticks.added;
        self.values_mut().changed[d] = ticks.changed;
        true
    }

    /// Sets the high-water mark (`World::import_column`: the saved one, checked by the caller
    /// to be no older than any value's change tick).
    pub(crate) fn set_last_changed(&mut self, last_changed: Tick) {
        self.last_changed = last_changed;
    }
}
