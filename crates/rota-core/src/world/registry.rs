//! Store lookup: component type → position in `World::stores`, one array index per call.
//!
//! Every derived, non-generic component type owns a static cell (`Component::__registry_cell`)
//! that receives a small number the first time any world looks the type up. Each world keeps a
//! `Vec` from that number to the store's position, so a lookup is a relaxed atomic load plus an
//! index: no hashing, no tree search. Generic and hand-written components have no cell and use
//! the `TypeId` map.
//!
//! The numbers depend on which type a process met first (and on thread timing), so they are
//! **lookup keys only**: neither structure here is ever iterated. Every walk over the stores
//! uses `World::stores`, in registration order, so results never depend on these numbers.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::component::Component;

/// The next number to hand out; 0 in a cell means "not numbered yet".
static NEXT_NUMBER: AtomicU32 = AtomicU32::new(1);

/// Numbers past this use the `TypeId` map, so a process with very many component types never
/// makes a world allocate a large table (4 bytes × this at most).
const DENSE_LIMIT: u32 = 1 << 16;

/// The process-wide number of the type owning `cell`, assigning one on first use.
#[inline]
fn number(cell: &AtomicU32) -> u32 {
    match cell.load(Ordering::Relaxed) {
        0 => assign(cell),
        n => n,
    }
}

#[cold]
fn assign(cell: &AtomicU32) -> u32 {
    // Two threads may race here; the loser's number is simply never used.
    let fresh = NEXT_NUMBER.fetch_add(1, Ordering::Relaxed);
    match cell.compare_exchange(0, fresh, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => fresh,
        Err(won) => won,
    }
}

/// `T`'s process-wide lookup key (0: none, use the `TypeId`), carried by a query's
/// [`Access`](crate::query::Access) so borrowing its store is one array index.
#[inline]
pub(crate) fn key<T: Component>() -> u32 {
    T::__registry_cell().map_or(0, number)
}

/// Finds a component type's position in `World::stores`. Lookup only: never iterated.
#[derive(Clone, Default)]
pub(crate) struct Registry {
    /// Every registered type (the fallback, and `World::component_len(TypeId)`).
    by_type_id: BTreeMap<TypeId, usize>,
    /// Process number → position + 1 (0 = not registered in this world).
    by_number: Vec<u32>,
}

impl Registry {
    /// `T`'s store position, if registered.
    #[inline]
    pub(crate) fn position<T: Component>(&self) -> Option<usize> {
        let Some(cell) = T::__registry_cell() else {
            return self.position_of(TypeId::of::<T>());
        };
        // No `number` call: a cell still 0 was never numbered, so no world registered the
        // type (registering numbers it), and `by_number[0]` is never set: it reads `None`.
        let n = cell.load(Ordering::Relaxed);
        match self.by_number.get(n as usize) {
            Some(&p) => p.checked_sub(1).map(|p| p as usize),
            // Past the table: unregistered, unless numbered past the limit (the tree).
            None if n < DENSE_LIMIT => None,
            None => self.position_past_limit::<T>(),
        }
    }

    /// [`Registry::position`] of a type numbered past the table's limit: the tree search.
    #[cold]
    #[inline(never)]
    fn position_past_limit<T: Component>(&self) -> Option<usize> {
        self.position_of(TypeId::of::<T>())
    }

    /// The position of the type whose [`key`] is `key` and whose id is `type_id`: one array
    /// index for a keyed type, the tree search otherwise.
    #[inline]
    pub(crate) fn position_by_key(&self, key: u32, type_id: TypeId) -> Option<usize> {
        if key != 0 && key < DENSE_LIMIT {
            return match self.by_number.get(key as usize) {
                Some(&p) if p != 0 => Some(p as usize - 1),
                _ => None,
            };
        }
        self.position_of(type_id)
    }

    /// The position registered for `type_id`, if any (the slow path: a tree search).
    pub(crate) fn position_of(&self, type_id: TypeId) -> Option<usize> {
        self.by_type_id.get(&type_id).copied()
    }

    /// Records `T` at `position` (which must be new).
    pub(crate) fn insert<T: Component>(&mut self, position: usize) {
        let previous = self.by_type_id.insert(TypeId::of::<T>(), position);
        debug_assert!(
            previous.is_none(),
            "component `{}` registered twice",
            T::NAME
        );
        if let Some(cell) = T::__registry_cell() {
            let n = number(cell) as usize;
            if n < DENSE_LIMIT as usize {
                if self.by_number.len() <= n {
                    self.by_number.resize(n + 1, 0);
                }
                self.by_number[n] = u32::try_from(position + 1).expect("fewer than 2^32 stores");
            }
        }
    }
}
