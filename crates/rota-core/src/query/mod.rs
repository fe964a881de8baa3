//! Typed queries: which components to read or write, visited in ascending slot order.
//!
//! A query type is a [`QueryData`]: `&T`, `&mut T`, [`Entity`], `Option<&T>`, `Option<&mut T>`,
//! the filters [`With<T>`] and [`Without<T>`], and tuples of those (up to 12 elements).
//!
//! # How a query runs
//!
//! 1. **Borrow** ([`Borrows`]): the stores the query names are borrowed from the world — shared
//!    for reads, exclusive for writes. Through `&mut World` every touched store is settled first.
//! 2. **Drive**: among the elements that *require* a component, the smallest store drives the
//!    walk; it yields its entities in ascending slot order (a slice walk when settled, a sparse
//!    walk otherwise). With no required element, the live entities drive.
//! 3. **Probe**: every other element looks the entity up — first at the driver's dense index
//!    (right whenever both stores hold the same entities, the common case, and then free), else
//!    through its sparse array.
//!
//! `&mut T` items come from splitting the settled value slice at ascending dense indices, which
//! is how a mutable query is an ordinary `Iterator` without `unsafe`.
//!
//! Queries make no structural change and allocate nothing per entity.

mod access;
mod fetch;
mod iter;

use std::any::TypeId;

use crate::component::Component;
use crate::entity::{Entities, Entity};
use crate::store::Store;
use crate::store::sparse::SparsePages;
use crate::world::{ErasedStore, World, downcast_mut, downcast_ref};

pub use access::{Access, ConstAccess, find_alias, find_alias_runtime, same_component};
pub use fetch::{MutCursor, With, Without};
pub use iter::QueryIter;

/// A type that describes what a query fetches for each entity.
///
/// Implemented for `&T`, `&mut T`, [`Entity`], `Option<&T>`, `Option<&mut T>`, [`With<T>`],
/// [`Without<T>`], `()` and tuples of up to 12 of these. The methods are rota's plumbing; use
/// queries through `World::query`, `World::query_mut` and friends.
pub trait QueryData {
    /// What the query yields for one entity.
    type Item<'w>;
    /// The borrowed state a running query keeps.
    #[doc(hidden)]
    type Fetch<'w>;
    /// The accesses, as data a `const` can inspect (for compile-time alias checks).
    #[doc(hidden)]
    const ACCESS: ConstAccess;
    /// Appends this query's accesses.
    #[doc(hidden)]
    fn access(out: &mut Vec<Access>);
    /// Takes the stores this query needs from `borrows`.
    #[doc(hidden)]
    fn init<'w>(borrows: &mut Borrows<'w>) -> Self::Fetch<'w>;
    /// Offers each required store as a driver; the smallest wins.
    #[doc(hidden)]
    fn driver<'w>(fetch: &Self::Fetch<'w>, best: &mut Option<Driver<'w>>);
    /// The item for `entity`, or `None` if it does not match. Calls must come in ascending slot
    /// order; `hint` is the driver's dense index for `entity`.
    #[doc(hidden)]
    fn fetch<'w>(
        fetch: &mut Self::Fetch<'w>,
        entity: Entity,
        hint: usize,
    ) -> Option<Self::Item<'w>>;
    /// Why `entity` does not match: `(reason, component)`.
    #[doc(hidden)]
    fn mismatch(fetch: &Self::Fetch<'_>, entity: Entity) -> Option<(&'static str, &'static str)>;
    /// Whether every entity of `block` (the driver's dense entities from index `start`) matches
    /// this element at the same dense index in its own store — the common case of stores filled
    /// by the same bundles. Then [`QueryData::fetch_at`] may index directly.
    #[doc(hidden)]
    fn aligned(fetch: &Self::Fetch<'_>, block: &[Entity], start: usize) -> bool;
    /// The item for `entity` at dense `index`, inside a block [`QueryData::aligned`] approved;
    /// indices must ascend.
    #[doc(hidden)]
    fn fetch_at<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity, index: usize) -> Self::Item<'w>;
}

/// A [`QueryData`] that only reads, so it can run through `&World` and share stores.
pub trait ReadOnlyQueryData: QueryData {}

/// A store offered to drive a query's walk.
pub struct Driver<'w> {
    len: usize,
    entities: &'w [Entity],
    sparse: &'w SparsePages,
    sorted: bool,
}

static EMPTY_SPARSE: SparsePages = SparsePages::new();

impl<'w> Driver<'w> {
    fn of<T>(store: Option<&'w Store<T>>) -> Driver<'w> {
        match store {
            Some(s) => Driver {
                len: s.len(),
                entities: s.dense_entities(),
                sparse: s.sparse(),
                sorted: s.is_settled(),
            },
            None => Driver::empty(),
        }
    }

    fn empty() -> Driver<'w> {
        Driver {
            len: 0,
            entities: &[],
            sparse: &EMPTY_SPARSE,
            sorted: true,
        }
    }

    fn offer(self, best: &mut Option<Driver<'w>>) {
        if best.as_ref().is_none_or(|b| self.len < b.len) {
            *best = Some(self);
        }
    }
}

pub(crate) enum Borrowed<'w> {
    Shared(&'w dyn ErasedStore),
    Exclusive(&'w mut (dyn ErasedStore + 'static)),
    Taken,
}

/// The stores a query (or a system) has borrowed from a world: shared for reads, exclusive for
/// writes. Built by the world; queries take their stores from it.
pub struct Borrows<'w> {
    entities: &'w Entities,
    world: Option<&'w World>,
    entries: Vec<(TypeId, &'static str, Borrowed<'w>)>,
}

impl<'w> Borrows<'w> {
    /// Read-only borrows of the whole world.
    pub(crate) fn read_only(world: &'w World) -> Borrows<'w> {
        Borrows {
            entities: &world.entities,
            world: Some(world),
            entries: Vec::new(),
        }
    }

    /// Borrows the stores named in `accesses` out of `world`: exclusive for writes, shared for
    /// reads. Settles each of them first. `accesses` must be alias-free (checked by callers).
    pub(crate) fn split(world: &'w mut World, accesses: &[Access]) -> Borrows<'w> {
        let mut entries = Vec::with_capacity(accesses.len());
        for entry in world.stores.iter_mut() {
            let mut wanted = accesses.iter().filter(|a| a.type_id == entry.type_id);
            let Some(first) = wanted.next() else { continue };
            let write = first.write || wanted.any(|a| a.write);
            entry.store.settle();
            let borrowed = if write {
                Borrowed::Exclusive(&mut *entry.store)
            } else {
                Borrowed::Shared(&*entry.store)
            };
            entries.push((entry.type_id, entry.name, borrowed));
        }
        Borrows {
            entities: &world.entities,
            world: None,
            entries,
        }
    }

    pub(crate) fn from_parts(
        entities: &'w Entities,
        entries: Vec<(TypeId, &'static str, Borrowed<'w>)>,
    ) -> Borrows<'w> {
        Borrows {
            entities,
            world: None,
            entries,
        }
    }

    /// Moves what `accesses` need into a new set of borrows: exclusive entries for writes
    /// (leaving them taken here), copies of shared ones for reads.
    ///
    /// # Panics
    ///
    /// If a write is requested for a type already taken or only shared — two parameters of one
    /// system writing the same component, which `#[system]` refuses at compile time for
    /// components with a unique key.
    pub(crate) fn take(&mut self, accesses: &[Access], system: &'static str) -> Borrows<'w> {
        if let Some(world) = self.world {
            return Borrows::read_only(world);
        }
        let mut entries = Vec::with_capacity(accesses.len());
        for a in accesses {
            let Some((_, _, slot)) = self.entries.iter_mut().find(|(t, _, _)| *t == a.type_id)
            else {
                continue; // no such store yet: the query finds nothing
            };
            if entries.iter().any(|(t, _, _)| *t == a.type_id) {
                continue;
            }
            let borrowed = match std::mem::replace(slot, Borrowed::Taken) {
                Borrowed::Exclusive(x) if a.write => Borrowed::Exclusive(x),
                Borrowed::Exclusive(x) => {
                    let s: &'w dyn ErasedStore = x;
                    *slot = Borrowed::Shared(s);
                    Borrowed::Shared(s)
                }
                Borrowed::Shared(s) if !a.write => {
                    *slot = Borrowed::Shared(s);
                    Borrowed::Shared(s)
                }
                other => {
                    *slot = other;
                    panic!(
                        "system `{system}`: component `{}` is borrowed by two parameters and one of them writes it",
                        a.name
                    )
                }
            };
            entries.push((a.type_id, a.name, borrowed));
        }
        Borrows {
            entities: self.entities,
            world: None,
            entries,
        }
    }

    /// A shared copy for read-only iteration through `&self`.
    pub(crate) fn reborrow_shared(&self) -> Borrows<'_> {
        Borrows {
            entities: self.entities,
            world: self.world,
            entries: self
                .entries
                .iter()
                .filter_map(|(t, n, b)| {
                    let s: &dyn ErasedStore = match b {
                        Borrowed::Shared(s) => *s,
                        Borrowed::Exclusive(x) => &**x,
                        Borrowed::Taken => return None,
                    };
                    Some((*t, *n, Borrowed::Shared(s)))
                })
                .collect(),
        }
    }

    /// A shorter-lived copy: shared borrows are copied, exclusive ones reborrowed.
    pub fn reborrow(&mut self) -> Borrows<'_> {
        Borrows {
            entities: self.entities,
            world: self.world,
            entries: self
                .entries
                .iter_mut()
                .map(|(t, n, b)| {
                    let b = match b {
                        Borrowed::Shared(s) => Borrowed::Shared(&**s),
                        Borrowed::Exclusive(x) => Borrowed::Exclusive(&mut **x),
                        Borrowed::Taken => Borrowed::Taken,
                    };
                    (*t, *n, b)
                })
                .collect(),
        }
    }

    /// The entity allocator.
    pub fn entities(&self) -> &'w Entities {
        self.entities
    }

    /// A shared borrow of `T`'s store, or `None` if the world has none.
    pub fn shared<T: Component>(&mut self) -> Option<&'w Store<T>> {
        if let Some(world) = self.world {
            return world.store::<T>();
        }
        let id = TypeId::of::<T>();
        let (_, _, slot) = self.entries.iter_mut().find(|(t, _, _)| *t == id)?;
        match std::mem::replace(slot, Borrowed::Taken) {
            Borrowed::Shared(s) => {
                *slot = Borrowed::Shared(s);
                Some(downcast_ref::<T>(s))
            }
            Borrowed::Exclusive(x) => {
                // Downgrade: from now on this store is shared by everyone who asks.
                let s: &'w dyn ErasedStore = x;
                *slot = Borrowed::Shared(s);
                Some(downcast_ref::<T>(s))
            }
            Borrowed::Taken => borrow_conflict::<T>(),
        }
    }

    /// The exclusive borrow of `T`'s store (settled), or `None` if the world has none.
    ///
    /// # Panics
    ///
    /// If `T` was borrowed shared or is already taken — an access list that was not checked for
    /// aliasing, which is a bug in the caller.
    pub fn exclusive<T: Component>(&mut self) -> Option<&'w mut Store<T>> {
        if self.world.is_some() {
            borrow_conflict::<T>()
        }
        let id = TypeId::of::<T>();
        let (_, _, slot) = self.entries.iter_mut().find(|(t, _, _)| *t == id)?;
        match std::mem::replace(slot, Borrowed::Taken) {
            Borrowed::Exclusive(x) => Some(downcast_mut::<T>(x)),
            _ => borrow_conflict::<T>(),
        }
    }
}

#[cold]
fn borrow_conflict<T: Component>() -> ! {
    panic!(
        "component `{}` is borrowed twice with a mutable access in one query or system",
        T::NAME
    )
}
