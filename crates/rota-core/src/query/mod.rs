//! Typed queries: which components to read or write, visited in ascending slot order.
//!
//! A query type is a [`QueryData`]: `&T`, `&mut T`, [`Entity`], `Option<&T>`, `Option<&mut T>`,
//! the filters [`With<T>`] and [`Without<T>`], `()`, and tuples of those (up to 12 elements).
//! The trait is sealed: rota implements it for exactly these, so what a query touches is always
//! what its type says.
//!
//! # How a query runs
//!
//! 1. **Borrow** ([`Borrows`]): the stores the query names are borrowed from the world — values
//!    shared for reads, exclusive for writes, the index (membership) always shared. Through
//!    `&mut World` (and in systems) every touched store is settled first.
//! 2. **Join** (`join.rs`): over settled stores, a merge join of the sorted entity columns yields
//!    *runs* — stretches where every required store holds exactly the same entities — and each
//!    run is a zip of plain slices ([`QueryIter::for_each_run`] hands them out as they are).
//! 3. **Fallback**: through `&World` a store may be unsettled (insertions since the last sync
//!    point); then the smallest required store drives a walk in slot order and the others are
//!    probed through their sparse arrays, entity by entity. Same order, slower.
//!
//! Queries make no structural change and allocate nothing per entity.

mod access;
mod borrow;
mod column;
mod fetch;
mod filter;
mod iter;
mod join;
mod tuple;
mod world_api;

use crate::entity::Entity;
use crate::error::MismatchReason;

pub use access::{
    Access, AccessSink, ConstAccess, Mode, Space, check_condition_parameter, check_one_commands,
    check_parameter_aliasing, find_alias, find_alias_between, find_alias_runtime,
};
pub use borrow::{Borrows, WholeWorld};
pub use column::Pending;
pub use filter::{Added, Changed, With, Without};
pub use iter::QueryIter;
pub use iter::pieces::{Piece, Pieces};
pub use join::JoinPlan;

pub(crate) use join::Role;

use crate::store::index::StoreIndex;

mod sealed {
    /// Only rota's own query elements implement [`QueryData`](super::QueryData).
    pub trait Sealed {}
    /// Only rota's read-only query elements implement
    /// [`ReadOnlyQueryData`](super::ReadOnlyQueryData) (`&mut T` is a local type wherever `T`
    /// is, so without this a crate could declare its own `&mut T` read-only).
    pub trait ReadOnly {}
}
pub(crate) use sealed::{ReadOnly, Sealed};

/// A type that describes what a query fetches for each entity.
///
/// Change filters ([`Changed<T>`], [`Added<T>`]) compare per-value change ticks with the
/// query's window (see `crate::tick`); `&mut T` stamps what it hands out.
///
/// Implemented for `&T`, `&mut T`, [`Entity`], `Option<&T>`, `Option<&mut T>`, [`With<T>`],
/// [`Without<T>`], `()` and tuples of up to 12 of these — and sealed: no other type can be a
/// query element, so a query's type is exactly what it touches. The hidden items are rota's
/// plumbing; use queries through `World::query`, `World::query_mut` and system `Query`
/// parameters.
pub trait QueryData: Sealed {
    /// What the query yields for one entity.
    type Item<'w>;
    /// What the query yields for one run of entities (see [`QueryIter::for_each_run`]):
    /// `&[T]` for `&T`, `&mut [T]` for `&mut T`, `Option<&[T]>` for `Option<&T>`, `()` for
    /// `Entity` and filters (the run's entities come as their own argument), tuples for tuples.
    type Slices<'w>;
    /// A run as the join found it; made into items by `run` or into slices by `hand_out`.
    #[doc(hidden)]
    type Raw<'w>;
    /// The borrowed state a running query keeps. `Send`, so a query cut into segments can run
    /// each on its own thread (`QueryIter::segments`).
    #[doc(hidden)]
    type Fetch<'w>: Send;
    /// The iterator over one run's items. `Send` (components are `Send + Sync`), so a run can
    /// be handed to another thread (`par_for_each`).
    #[doc(hidden)]
    type Run<'w>: Iterator<Item = Self::Item<'w>> + Send;
    /// A run as `fold` (`for_each`, `sum`…) and a `par_for_each` piece walk it: the same items
    /// through an iterator with **one exit**. A tuple's [`Run`](QueryData::Run) advances each
    /// element's slice iterator and tests each one's end, which is what `next` wants between
    /// runs (a `for` loop refills there, and pointers that step keep that loop in registers;
    /// in the query's last run `next` takes [`QueryData::next_in_last`]); its
    /// walk is a `std::iter::Zip` of its elements' walks, which over slice iterators (`&T`,
    /// `&mut T`, `Entity`, filters) keeps one index and tests it once per item (measured:
    /// `docs/benchmarks.md`, "A `for` loop over one run is a plain slice loop"). A leaf's
    /// walk is its run, or a `std` slice iterator over the same items.
    #[doc(hidden)]
    type Walk<'w>: Iterator<Item = Self::Item<'w>> + Send;
    /// Whether every join this element takes part in can be plain (see `JoinPlan::is_plain`):
    /// every column it registers is required and it sets no change filter. Only decides
    /// whether an iterator takes its first run when built (`QueryIter::STARTS`); the join
    /// itself checks again.
    #[doc(hidden)]
    const PLAIN: bool = false;
    /// The accesses as types, checked against a system's declarations
    /// (`ReadOf<T>`, `WriteOf<T>`, tuples).
    #[doc(hidden)]
    type Access;
    /// The accesses, as data a `const` can inspect (compile-time aliasing checks).
    #[doc(hidden)]
    const ACCESS: ConstAccess;
    /// Appends this query's accesses.
    #[doc(hidden)]
    fn access(out: &mut impl AccessSink);
    /// Takes the stores this query needs from `borrows`.
    #[doc(hidden)]
    fn init<'w>(borrows: &mut Borrows<'w>) -> Self::Fetch<'w>;
    /// Registers this element's columns with the join.
    #[doc(hidden)]
    fn plan<'w>(fetch: &mut Self::Fetch<'w>, plan: &mut JoinPlan<'w>);
    /// The smallest store this element requires, to drive an entity-by-entity walk.
    #[doc(hidden)]
    fn required<'w>(fetch: &Self::Fetch<'w>, best: &mut Option<StoreIndex<'w>>);
    /// The current run (runs come in ascending order).
    #[doc(hidden)]
    fn raw<'w>(fetch: &mut Self::Fetch<'w>, plan: &JoinPlan<'w>) -> Self::Raw<'w>;
    /// The items of one run, from its raw parts and its entities.
    #[doc(hidden)]
    fn run<'w>(raw: Self::Raw<'w>, entities: &'w [Entity]) -> Self::Run<'w>;
    /// A whole run handed out as slices (`&mut T` values are stamped changed when the next run
    /// is taken or the query ends).
    #[doc(hidden)]
    fn hand_out<'w>(raw: Self::Raw<'w>) -> Self::Slices<'w>;
    /// The one run of a query that names a single settled store (see `QueryIter::from_world`),
    /// whose entity column is `entities`: every element's whole column. Only `PLAIN` elements
    /// are ever asked (a query of one store has no other way to join); the others' runs here
    /// are empty.
    #[doc(hidden)]
    #[inline(always)]
    fn whole<'w>(fetch: &mut Self::Fetch<'w>, entities: &'w [Entity]) -> Self::Run<'w> {
        let _ = (fetch, entities);
        debug_assert!(!Self::PLAIN, "a plain query element without `whole`");
        Self::empty_run()
    }
    /// The walk of a run (see [`Walk`](QueryData::Walk)).
    #[doc(hidden)]
    fn walk<'w>(run: Self::Run<'w>) -> Self::Walk<'w>;
    /// A run with no items (where an iterator starts).
    #[doc(hidden)]
    fn empty_run<'w>() -> Self::Run<'w>;
    /// A run cut in two: the items of its first `at` entities (all, if it has fewer) and the
    /// rest, each yielding exactly what the whole run would have yielded there.
    #[doc(hidden)]
    fn split_run<'w>(run: Self::Run<'w>, at: usize) -> (Self::Run<'w>, Self::Run<'w>);
    /// The next item of the query's **last** run (`QueryIter::next` when it holds it): a
    /// tuple advances every element before it tests any, so the loop has one exit condition
    /// whose count LLVM can compute, and a `for` loop over a one-run query vectorizes where
    /// its body allows (measured: docs/benchmarks.md, "A `for` loop over one run is a plain
    /// slice loop"). In the runs before the last, `next` takes the run's own `next`, which
    /// stops at the first element that ends (measured faster there, where the loop also
    /// refills). Both yield the same items because every element's run is exactly as long as
    /// the run's entities (the join hands each element the same stretch), which this relies on.
    #[doc(hidden)]
    #[inline(always)]
    fn next_in_last<'w>(run: &mut Self::Run<'w>) -> Option<Self::Item<'w>> {
        run.next()
    }
    /// One item as one-entity slices (what a partly consumed run has left is handed to
    /// `for_each_run` item by item: a merged optional column's run is not one slice).
    #[doc(hidden)]
    fn one_slices<'w>(item: Self::Item<'w>) -> Self::Slices<'w>;
    /// A run no item was taken from, of a plain join (every column required: no optional or
    /// merged part), as slices: what `for_each_run` hands out for the run an iterator took
    /// when it was built.
    #[doc(hidden)]
    fn run_slices<'w>(run: Self::Run<'w>) -> Self::Slices<'w>;
    /// One-entity slices for `entity`, or `None` if it does not match (calls ascend).
    #[doc(hidden)]
    fn slices_one<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity) -> Option<Self::Slices<'w>>;
    /// The item for `entity`, or `None` if it does not match. Calls come in ascending slot
    /// order.
    #[doc(hidden)]
    fn fetch_one<'w>(fetch: &mut Self::Fetch<'w>, entity: Entity) -> Option<Self::Item<'w>>;
    /// Why `entity` does not match: `(reason, component)`.
    #[doc(hidden)]
    fn mismatch(fetch: &Self::Fetch<'_>, entity: Entity) -> Option<(MismatchReason, &'static str)>;
    /// The fetch cut where slot `slot` begins, before any run was taken: the first part may
    /// hand out only entities of lower slots, the second only the rest (shared columns are
    /// copied, exclusive ones split). See `QueryIter::segments`.
    #[doc(hidden)]
    fn split_fetch<'w>(fetch: Self::Fetch<'w>, slot: u32) -> (Self::Fetch<'w>, Self::Fetch<'w>);
    /// The query is over, and its current run has `left` items not handed out: stamps the
    /// `&mut` values that were (see `WriteColumn`). Nothing for elements that write nothing.
    #[doc(hidden)]
    #[inline(always)]
    fn flush<'w>(fetch: &mut Self::Fetch<'w>, left: usize) {
        let _ = (fetch, left);
    }
    /// The fetch of an element of a query of one store (`QueryIter::ONE_STORE`, only `PLAIN`
    /// elements), out of a world lent whole: the element that names the store takes the
    /// world and records the store's entities; the others take nothing. By default through a
    /// borrow list of the element's one access.
    #[doc(hidden)]
    #[inline]
    fn init_whole<'w>(world: &mut WholeWorld<'w>) -> Self::Fetch<'w>
    where
        Self: Sized,
    {
        world.borrow_one::<Self>()
    }
    /// What the fetch still owes once its last run is taken (see `Pending`), the fetch given
    /// up: a query of one store keeps only this (`QueryIter::from_world`). Nothing for
    /// elements that write nothing.
    #[doc(hidden)]
    #[inline(always)]
    fn into_pending<'w>(fetch: Self::Fetch<'w>) -> Pending<'w> {
        let _ = fetch;
        Pending::default()
    }
}

/// A [`QueryData`] that only reads, so it can run through `&World` and share stores. Sealed, as
/// `QueryData` is.
pub trait ReadOnlyQueryData: QueryData + ReadOnly {}
