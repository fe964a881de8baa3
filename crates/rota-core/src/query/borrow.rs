//! `Borrows`: the stores a query or a system has borrowed from a world.
//!
//! Every borrowed store is a [`StoreIndex`] (which entities, where — always shared, because
//! membership cannot change while anything is borrowed) plus its value column in one of three
//! states:
//!
//! ```text
//!   Shared(&Vec<T>)          readers copy it
//!   Exclusive(&mut Vec<T>)   the one writer takes it (-> Taken); a reader downgrades it (-> Shared)
//!   Taken                    a writer has it; only membership (filters) may still use the index
//! ```
//!
//! Access lists are checked for aliasing before they get here (at compile time for keyed types,
//! when a system is set up for the rest), so the panics below are internal-invariant guards.

use std::any::{Any, TypeId};

use super::QueryData;
use super::access::{Access, Mode, OneAccess};
use crate::component::Component;
use crate::entity::{Entities, Entity};
use crate::inline_vec::InlineVec;
use crate::store::Store;
use crate::store::index::{StoreIndex, ValuesMut, ValuesRef};
use crate::tick::{ChangeWindow, Tick};
use crate::world::{AnyValues, ErasedStore, StoreEntry, World};

enum Values<'w> {
    Shared(ValuesRef<'w, AnyValues>),
    Exclusive(ValuesMut<'w, AnyValues>),
    Taken,
}

/// `T`'s values and change ticks, shared, as a query reads them.
pub(crate) struct ReadParts<'w, T> {
    pub(crate) index: StoreIndex<'w>,
    pub(crate) values: &'w [T],
    pub(crate) added: &'w [Tick],
    pub(crate) changed: &'w [Tick],
    /// Every value changed at this tick or later (see `store::effective_changed`).
    pub(crate) changed_floor: Option<Tick>,
    pub(crate) last_changed: Tick,
}

/// `T`'s values and change ticks, exclusive.
pub(crate) struct WriteParts<'w, T> {
    pub(crate) index: StoreIndex<'w>,
    pub(crate) values: &'w mut [T],
    pub(crate) changed: &'w mut [Tick],
    /// Set instead of filling `changed` by a walk that hands out every value.
    pub(crate) changed_floor: &'w mut Option<Tick>,
}

/// One borrowed store.
struct Column<'w> {
    type_id: TypeId,
    name: &'static str,
    index: StoreIndex<'w>,
    values: Values<'w>,
}

/// A placeholder for the empty slot of a borrow list (`inline_vec.rs`): never a store anything
/// finds (no component is `()`).
impl Default for Column<'_> {
    fn default() -> Self {
        Column {
            type_id: TypeId::of::<()>(),
            name: "",
            index: StoreIndex::empty(),
            values: Values::Taken,
        }
    }
}

/// A world lent whole to a query of one store (`QueryIter::ONE_STORE`) while its fetches are
/// made, with no borrow list: the one element that names the store takes the world
/// (`QueryData::init_whole`; `&T` and `&mut T` borrow their typed store straight, others go
/// through [`Borrows::one`]) and records the store's entity column, the query's one run.
#[doc(hidden)]
pub struct WholeWorld<'w> {
    world: Option<&'w mut World>,
    window: ChangeWindow,
    entities: &'w [Entity],
}

impl<'w> WholeWorld<'w> {
    /// Lends `world`; writes will stamp its current tick.
    #[inline]
    pub(crate) fn new(world: &'w mut World) -> Self {
        WholeWorld {
            window: ChangeWindow::everything(world.change_tick()),
            world: Some(world),
            entities: &[],
        }
    }

    /// The world, for the element that names the store.
    ///
    /// # Panics
    ///
    /// If an element took it already: a query of one store has one element that names a store
    /// (an internal invariant, `QueryIter::ONE_STORE`).
    #[inline]
    fn take(&mut self) -> &'w mut World {
        self.world
            .take()
            .expect("a query of one store has one element that names a store")
    }

    /// `T`'s store (`None` if the world never had one), for the element that names it.
    #[inline]
    pub(crate) fn store<T: Component>(&mut self) -> Option<&'w mut Store<T>> {
        self.take().store_mut::<T>()
    }

    /// The tick writes stamp.
    #[inline]
    pub(crate) fn now(&self) -> Tick {
        self.window.now
    }

    /// Records the store's entity column (settled): the query's one run.
    #[inline]
    pub(crate) fn set_entities(&mut self, entities: &'w [Entity]) {
        self.entities = entities;
    }

    /// The entity column recorded, empty if no element found its store.
    #[inline]
    pub(crate) fn entities(&self) -> &'w [Entity] {
        self.entities
    }

    /// The fetch of an element with one access, through a borrow list of that one store
    /// (`QueryData::init_whole`'s default).
    pub(crate) fn borrow_one<Q: QueryData>(&mut self) -> Q::Fetch<'w> {
        let mut access = OneAccess(None);
        Q::access(&mut access);
        let access = access
            .0
            .expect("an element of a query of one store names one store");
        let mut borrows = Borrows::one(self.take(), &access, self.window);
        if let Some(entities) = borrows.settled_entities(access.type_id) {
            self.entities = entities;
        }
        Q::init(&mut borrows)
    }
}

/// The stores a query (or a system) has borrowed from a world: shared for reads, exclusive for
/// writes; the index of each is always readable. Built by the world.
pub struct Borrows<'w> {
    entities: &'w Entities,
    /// One store in place: a one-store query borrows without allocating (more spill to the
    /// heap).
    columns: InlineVec<Column<'w>, 1>,
    /// What `Changed`/`Added` compare against; writes stamp `window.now`.
    window: ChangeWindow,
}

impl<'w> Borrows<'w> {
    /// Shared borrows of the stores `accesses` name, through `&World` (they may be unsettled).
    pub(crate) fn shared(
        world: &'w World,
        accesses: &[Access],
        window: ChangeWindow,
    ) -> Borrows<'w> {
        let mut columns: InlineVec<Column<'w>, 1> = InlineVec::new();
        for a in accesses {
            if columns.iter().any(|c| c.type_id == a.type_id) {
                continue;
            }
            if let Some(store) = world.erased_store_by_key(a.registry_key, a.type_id) {
                columns.push(Column {
                    type_id: a.type_id,
                    name: a.name,
                    index: store.index(),
                    values: Values::Shared(store.values_any()),
                });
            }
        }
        Borrows {
            entities: world.entities(),
            columns,
            window,
        }
    }

    /// Borrows the stores named in `accesses` out of `world`: exclusive for writes, shared
    /// otherwise. Settles each of them first. `accesses` must be alias-free.
    pub(crate) fn split(
        world: &'w mut World,
        accesses: &[Access],
        window: ChangeWindow,
    ) -> Borrows<'w> {
        // Each access's store position (one registry index each), merged per store, then
        // borrowed in registration order by splitting the store list: no walk over the stores
        // the query does not name.
        let mut wanted: InlineVec<(usize, bool), 4> = InlineVec::new();
        for a in accesses {
            let Some(position) = world.registry_position(a.registry_key, a.type_id) else {
                continue; // no such store: the query finds nothing
            };
            match wanted.iter_mut().find(|(p, _)| *p == position) {
                Some((_, write)) => *write |= a.writes(),
                None => wanted.push((position, a.writes())),
            }
        }
        wanted.sort_unstable_by_key(|&(position, _)| position);
        let mut columns = InlineVec::new();
        let (stores, entities) = world.stores_and_entities_mut();
        let mut rest: &mut [StoreEntry] = stores;
        let mut offset = 0;
        for &(position, write) in wanted.iter() {
            let (entry, tail) = std::mem::take(&mut rest)[position - offset..]
                .split_first_mut()
                .expect("the registry's positions index World::stores");
            rest = tail;
            offset = position + 1;
            columns.push(Column::of(
                entry.type_id,
                entry.name,
                &mut *entry.store,
                write,
            ));
        }
        Borrows {
            entities,
            columns,
            window,
        }
    }

    /// Borrows the one store `access` names out of `world` (settled; exclusive if `access`
    /// writes): [`Borrows::split`] for a query that names one store, with no list to build.
    pub(crate) fn one(world: &'w mut World, access: &Access, window: ChangeWindow) -> Borrows<'w> {
        let mut columns = InlineVec::new();
        let position = world.registry_position(access.registry_key, access.type_id);
        let (stores, entities) = world.stores_and_entities_mut();
        if let Some(position) = position {
            let entry = &mut stores[position];
            columns.push(Column::of(
                entry.type_id,
                entry.name,
                &mut *entry.store,
                access.writes(),
            ));
        }
        Borrows {
            entities,
            columns,
            window,
        }
    }

    /// The entity column of the store of `type_id` if it is settled (ascending by slot), empty
    /// if the world has no such store, `None` if it is unsettled: for a query of that one
    /// store, the entities of its one run.
    pub(crate) fn settled_entities(&self, type_id: TypeId) -> Option<&'w [Entity]> {
        match self.columns.iter().find(|c| c.type_id == type_id) {
            Some(c) => c.index.settled.then_some(c.index.entities),
            None => Some(&[]),
        }
    }

    pub(crate) fn from_parts(entities: &'w Entities, window: ChangeWindow) -> Borrows<'w> {
        Borrows {
            entities,
            columns: InlineVec::new(),
            window,
        }
    }

    /// The change window: what `Changed`/`Added` compare against, and the tick writes stamp.
    pub fn window(&self) -> ChangeWindow {
        self.window
    }

    /// Adds a store: exclusive (settled) if `write`, else shared (settled too: systems always
    /// see settled stores).
    pub(crate) fn push(
        &mut self,
        type_id: TypeId,
        name: &'static str,
        store: &'w mut dyn ErasedStore,
        write: bool,
    ) {
        self.columns.push(Column::of(type_id, name, store, write));
    }

    /// Adds a store shared with other systems (already settled by the caller).
    pub(crate) fn push_shared(
        &mut self,
        type_id: TypeId,
        name: &'static str,
        store: &'w dyn ErasedStore,
    ) {
        self.columns.push(Column {
            type_id,
            name,
            index: store.index(),
            values: Values::Shared(store.values_any()),
        });
    }

    /// Moves what `accesses` need into a new set of borrows: writes take the exclusive value
    /// column (leaving it taken here), reads share it, membership copies the index only.
    ///
    /// # Panics
    ///
    /// If `accesses` conflicts with what was already taken — an access list that escaped the
    /// aliasing checks, which is a bug in rota.
    pub(crate) fn take(&mut self, accesses: &[Access], system: &'static str) -> Borrows<'w> {
        let mut columns: InlineVec<Column<'w>, 1> = InlineVec::new();
        for a in accesses {
            let Some(column) = self.columns.iter_mut().find(|c| c.type_id == a.type_id) else {
                continue; // no such store: the query finds nothing
            };
            let values = match (a.mode, &mut column.values) {
                (Mode::Membership, _) => Values::Taken,
                (Mode::Write, Values::Exclusive(_)) => {
                    std::mem::replace(&mut column.values, Values::Taken)
                }
                (Mode::Read, _) => match column.shared() {
                    Some(v) => Values::Shared(v),
                    None => borrow_conflict(system, a.name),
                },
                (Mode::Write, _) => borrow_conflict(system, a.name),
            };
            match columns.iter_mut().find(|c| c.type_id == a.type_id) {
                // A second access to the same store within one parameter: keep the stronger.
                Some(existing) => {
                    if !matches!(values, Values::Taken) {
                        existing.values = values;
                    }
                }
                None => columns.push(Column {
                    type_id: column.type_id,
                    name: column.name,
                    index: column.index,
                    values,
                }),
            }
        }
        Borrows {
            entities: self.entities,
            columns,
            window: self.window,
        }
    }

    /// A shorter-lived copy: shared columns copied, exclusive ones reborrowed.
    pub fn reborrow(&mut self) -> Borrows<'_> {
        Borrows {
            entities: self.entities,
            columns: self
                .columns
                .iter_mut()
                .map(|c| Column {
                    type_id: c.type_id,
                    name: c.name,
                    index: c.index,
                    values: match &mut c.values {
                        Values::Shared(v) => Values::Shared(*v),
                        Values::Exclusive(v) => Values::Exclusive(v.reborrow()),
                        Values::Taken => Values::Taken,
                    },
                })
                .collect(),
            window: self.window,
        }
    }

    /// A shared copy, for read-only iteration through `&self`.
    pub(crate) fn reborrow_shared(&self) -> Borrows<'_> {
        Borrows {
            entities: self.entities,
            columns: self
                .columns
                .iter()
                .map(|c| Column {
                    type_id: c.type_id,
                    name: c.name,
                    index: c.index,
                    values: match &c.values {
                        Values::Shared(v) => Values::Shared(*v),
                        Values::Exclusive(v) => Values::Shared(v.as_shared()),
                        Values::Taken => Values::Taken,
                    },
                })
                .collect(),
            window: self.window,
        }
    }

    /// The entity allocator.
    pub fn entities(&self) -> &'w Entities {
        self.entities
    }

    /// `T`'s index, or `None` if the world has no `T` store.
    pub(crate) fn index<T: Component>(&self) -> Option<StoreIndex<'w>> {
        let id = TypeId::of::<T>();
        self.columns
            .iter()
            .find(|c| c.type_id == id)
            .map(|c| c.index)
    }

    /// `T`'s index and values, shared.
    ///
    /// # Panics
    ///
    /// If a writer already took `T`'s values (an alias that escaped the checks).
    pub(crate) fn read<T: Component>(&mut self) -> Option<ReadParts<'w, T>> {
        let id = TypeId::of::<T>();
        let column = self.columns.iter_mut().find(|c| c.type_id == id)?;
        let v = column
            .shared()
            .unwrap_or_else(|| borrow_conflict("query", T::NAME));
        Some(ReadParts {
            index: column.index,
            values: downcast::<T>(v.values),
            added: v.added,
            changed: v.changed,
            changed_floor: v.changed_floor,
            last_changed: v.last_changed,
        })
    }

    /// `T`'s index and values, exclusive (settled: the entity column ascends).
    ///
    /// # Panics
    ///
    /// If `T` is only shared or already taken (an alias that escaped the checks).
    /// Raises the store's high-water mark to `window.now` (the writer may stamp any value).
    pub(crate) fn write<T: Component>(&mut self) -> Option<WriteParts<'w, T>> {
        let id = TypeId::of::<T>();
        let now = self.window.now;
        let column = self.columns.iter_mut().find(|c| c.type_id == id)?;
        match std::mem::replace(&mut column.values, Values::Taken) {
            Values::Exclusive(v) => {
                if !v.changed.is_empty() {
                    *v.last_changed = now;
                }
                Some(WriteParts {
                    index: column.index,
                    values: downcast_mut::<T>(v.values),
                    changed: v.changed,
                    changed_floor: v.changed_floor,
                })
            }
            other => {
                column.values = other;
                borrow_conflict("query", T::NAME)
            }
        }
    }
}

impl<'w> Column<'w> {
    fn of(
        type_id: TypeId,
        name: &'static str,
        store: &'w mut dyn ErasedStore,
        write: bool,
    ) -> Self {
        if write {
            // Copy-on-write happens here, once per borrow: values a snapshot still shares are
            // copied before the writer gets them.
            let (index, values) = store.parts_mut_any();
            return Column {
                type_id,
                name,
                index,
                values: Values::Exclusive(values),
            };
        }
        // A reader settles (a structural copy if a snapshot shares an unsettled store) but
        // leaves the values shared.
        store.settle();
        let store: &'w dyn ErasedStore = store;
        Column {
            type_id,
            name,
            index: store.index(),
            values: Values::Shared(store.values_any()),
        }
    }

    /// The values, shared; an exclusive column is downgraded for good (a reader and a writer
    /// in one system alias, which the checks refuse, so nobody will want it exclusive again).
    fn shared(&mut self) -> Option<ValuesRef<'w, AnyValues>> {
        match std::mem::replace(&mut self.values, Values::Taken) {
            Values::Shared(v) => {
                self.values = Values::Shared(v);
                Some(v)
            }
            Values::Exclusive(v) => {
                let v = v.into_shared();
                self.values = Values::Shared(v);
                Some(v)
            }
            Values::Taken => None,
        }
    }
}

fn downcast<T: Component>(values: &AnyValues) -> &[T] {
    let values: &dyn Any = values;
    values
        .downcast_ref::<Vec<T>>()
        .unwrap_or_else(|| type_mismatch::<T>())
}

fn downcast_mut<T: Component>(values: &mut AnyValues) -> &mut [T] {
    let values: &mut dyn Any = values;
    values
        .downcast_mut::<Vec<T>>()
        .unwrap_or_else(|| type_mismatch::<T>())
}

#[cold]
fn type_mismatch<T: Component>() -> ! {
    panic!(
        "the store registered for component `{}` holds another type: two component types share one registry number or unique key (a hand-written `Component` impl? derive it instead)",
        T::NAME
    )
}

#[cold]
fn borrow_conflict(system: &str, component: &str) -> ! {
    panic!(
        "system `{system}` borrows component `{component}` twice and one borrow writes it: an access the compile-time aliasing checks did not see (a hand-written `SystemParam`, `System` or query impl?)"
    )
}
