//! `QueryData` for each query element: `&T`, `&mut T`, `Entity`, `Option`, `With`, `Without`,
//! and tuples.

use std::marker::PhantomData;

use super::{Access, Borrows, ConstAccess, Driver, QueryData, ReadOnlyQueryData};
use crate::component::Component;
use crate::entity::Entity;
use crate::store::Store;
use crate::store::sparse::{ABSENT, SparsePages};

/// Filter: the entity must have a `T` (its value is not fetched).
///
/// ```
/// # use rota_core::{Component, World, With};
/// # struct Player; impl Component for Player { const NAME: &'static str = "Player"; }
/// # struct Hp(u32); impl Component for Hp { const NAME: &'static str = "Hp"; }
/// let mut world = World::new();
/// world.spawn_with((Hp(3), Player));
/// world.spawn_with((Hp(5),));
/// let players: Vec<u32> = world.query_filtered::<&Hp, With<Player>>().map(|h| h.0).collect();
/// assert_eq!(players, [3]);
/// ```
pub struct With<T>(PhantomData<fn() -> T>);

/// Filter: the entity must not have a `T`.
///
/// ```
/// # use rota_core::{Component, World, Without};
/// # struct Dead; impl Component for Dead { const NAME: &'static str = "Dead"; }
/// # struct Hp(u32); impl Component for Hp { const NAME: &'static str = "Hp"; }
/// let mut world = World::new();
/// world.spawn_with((Hp(0), Dead));
/// world.spawn_with((Hp(5),));
/// let living: Vec<u32> = world.query_filtered::<&Hp, Without<Dead>>().map(|h| h.0).collect();
/// assert_eq!(living, [5]);
/// ```
pub struct Without<T>(PhantomData<fn() -> T>);

/// A cursor handing out `&mut T` for ascending dense indices of a settled store, by splitting
/// the value slice: the safe way to make a mutable query an `Iterator`.
pub struct MutCursor<'w, T> {
    sparse: &'w SparsePages,
    entities: &'w [Entity],
    rest: &'w mut [T],
    offset: usize,
}

impl<'w, T> MutCursor<'w, T> {
    fn new(store: &'w mut Store<T>) -> MutCursor<'w, T> {
        let (sparse, entities, values) = store.split_settled();
        MutCursor {
            sparse,
            entities,
            rest: values,
            offset: 0,
        }
    }

    #[inline]
    fn index_of(&self, entity: Entity, hint: usize) -> Option<usize> {
        if self.entities.get(hint) == Some(&entity) {
            return Some(hint);
        }
        let d = self.sparse.get(entity.slot());
        (d != ABSENT && self.entities[d as usize] == entity).then_some(d as usize)
    }

    #[inline]
    fn get(&mut self, entity: Entity, hint: usize) -> Option<&'w mut T> {
        let d = self.index_of(entity, hint)?;
        // Entities arrive in ascending slot order and the store is settled, so `d` only grows.
        if d < self.offset {
            debug_assert!(false, "query entities arrived out of order");
            return None;
        }
        let rest = std::mem::take(&mut self.rest);
        let (_, tail) = rest.split_at_mut(d - self.offset);
        let (item, tail) = tail.split_first_mut()?;
        self.rest = tail;
        self.offset = d + 1;
        Some(item)
    }

    /// The value at dense `index` (ascending calls only).
    #[inline]
    fn take_at(&mut self, index: usize) -> &'w mut T {
        let mut rest = std::mem::take(&mut self.rest);
        if index != self.offset {
            rest = rest.split_at_mut(index - self.offset).1;
        }
        let tail = rest;
        let (item, tail) = tail
            .split_first_mut()
            .expect("an aligned block lies inside the store");
        self.rest = tail;
        self.offset = index + 1;
        item
    }

    fn contains(&self, entity: Entity) -> bool {
        self.index_of(entity, usize::MAX).is_some()
    }

    fn driver(&self) -> Driver<'w> {
        Driver {
            len: self.entities.len(),
            entities: self.entities,
            sparse: self.sparse,
            // A cursor's store is settled by construction (`split_settled`).
            sorted: true,
        }
    }
}

/// Whether `entities[start..]` begins with exactly `block`. Branch-free over the block (an OR
/// of XORs) so it vectorizes; `Entity`'s derived `==` on slices compares element by element.
#[inline]
fn same_block(entities: &[Entity], block: &[Entity], start: usize) -> bool {
    match entities.get(start..start + block.len()) {
        // Reject misaligned stores at the first and last entity before comparing the block.
        Some(mine) if mine.first() != block.first() || mine.last() != block.last() => false,
        Some(mine) => {
            mine.iter()
                .zip(block)
                .fold(0u64, |acc, (a, b)| acc | (a.to_bits() ^ b.to_bits()))
                == 0
        }
        None => false,
    }
}

const fn leaf<T: Component>(write: bool) -> ConstAccess {
    ConstAccess::Leaf {
        name: T::NAME,
        key: T::UNIQUE_KEY,
        write,
    }
}

fn lacks<T: Component>(has: bool) -> Option<(&'static str, &'static str)> {
    (!has).then_some(("lacks", T::NAME))
}

impl<T: Component> QueryData for &T {
    type Item<'w> = &'w T;
    type Fetch<'w> = Option<&'w Store<T>>;
    const ACCESS: ConstAccess = leaf::<T>(false);
    fn access(out: &mut Vec<Access>) {
        out.push(Access::read::<T>());
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        b.shared::<T>()
    }
    fn driver<'w>(f: &Self::Fetch<'w>, best: &mut Option<Driver<'w>>) {
        Driver::of(*f).offer(best);
    }
    #[inline]
    fn fetch<'w>(f: &mut Self::Fetch<'w>, e: Entity, hint: usize) -> Option<&'w T> {
        let s = (*f)?;
        s.dense_index_hinted(e, hint).map(|d| &s.dense_values()[d])
    }
    fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(&'static str, &'static str)> {
        lacks::<T>(f.is_some_and(|s| s.contains(e)))
    }
    fn aligned(f: &Self::Fetch<'_>, block: &[Entity], start: usize) -> bool {
        f.is_some_and(|s| same_block(s.dense_entities(), block, start))
    }
    #[inline]
    fn fetch_at<'w>(f: &mut Self::Fetch<'w>, _: Entity, index: usize) -> &'w T {
        let s = f.expect("aligned implies the store exists");
        &s.dense_values()[index]
    }
}
impl<T: Component> ReadOnlyQueryData for &T {}

impl<T: Component> QueryData for &mut T {
    type Item<'w> = &'w mut T;
    type Fetch<'w> = Option<MutCursor<'w, T>>;
    const ACCESS: ConstAccess = leaf::<T>(true);
    fn access(out: &mut Vec<Access>) {
        out.push(Access::write::<T>());
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        b.exclusive::<T>().map(MutCursor::new)
    }
    fn driver<'w>(f: &Self::Fetch<'w>, best: &mut Option<Driver<'w>>) {
        match f {
            Some(c) => c.driver().offer(best),
            None => Driver::empty().offer(best),
        }
    }
    #[inline]
    fn fetch<'w>(f: &mut Self::Fetch<'w>, e: Entity, hint: usize) -> Option<&'w mut T> {
        f.as_mut()?.get(e, hint)
    }
    fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(&'static str, &'static str)> {
        lacks::<T>(f.as_ref().is_some_and(|c| c.contains(e)))
    }
    fn aligned(f: &Self::Fetch<'_>, block: &[Entity], start: usize) -> bool {
        f.as_ref()
            .is_some_and(|c| same_block(c.entities, block, start))
    }
    #[inline]
    fn fetch_at<'w>(f: &mut Self::Fetch<'w>, _: Entity, index: usize) -> &'w mut T {
        f.as_mut()
            .expect("aligned implies the store exists")
            .take_at(index)
    }
}

impl<T: Component> QueryData for Option<&T> {
    type Item<'w> = Option<&'w T>;
    type Fetch<'w> = Option<&'w Store<T>>;
    const ACCESS: ConstAccess = leaf::<T>(false);
    fn access(out: &mut Vec<Access>) {
        out.push(Access::read::<T>());
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        b.shared::<T>()
    }
    fn driver<'w>(_: &Self::Fetch<'w>, _: &mut Option<Driver<'w>>) {}
    #[inline]
    fn fetch<'w>(f: &mut Self::Fetch<'w>, e: Entity, hint: usize) -> Option<Option<&'w T>> {
        Some(<&T as QueryData>::fetch(f, e, hint))
    }
    fn mismatch(_: &Self::Fetch<'_>, _: Entity) -> Option<(&'static str, &'static str)> {
        None
    }
    fn aligned(f: &Self::Fetch<'_>, block: &[Entity], start: usize) -> bool {
        f.is_none_or(|s| same_block(s.dense_entities(), block, start))
    }
    #[inline]
    fn fetch_at<'w>(f: &mut Self::Fetch<'w>, _: Entity, index: usize) -> Option<&'w T> {
        f.map(|s| &s.dense_values()[index])
    }
}
impl<T: Component> ReadOnlyQueryData for Option<&T> {}

impl<T: Component> QueryData for Option<&mut T> {
    type Item<'w> = Option<&'w mut T>;
    type Fetch<'w> = Option<MutCursor<'w, T>>;
    const ACCESS: ConstAccess = leaf::<T>(true);
    fn access(out: &mut Vec<Access>) {
        out.push(Access::write::<T>());
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        b.exclusive::<T>().map(MutCursor::new)
    }
    fn driver<'w>(_: &Self::Fetch<'w>, _: &mut Option<Driver<'w>>) {}
    #[inline]
    fn fetch<'w>(f: &mut Self::Fetch<'w>, e: Entity, hint: usize) -> Option<Option<&'w mut T>> {
        Some(f.as_mut().and_then(|c| c.get(e, hint)))
    }
    fn mismatch(_: &Self::Fetch<'_>, _: Entity) -> Option<(&'static str, &'static str)> {
        None
    }
    fn aligned(f: &Self::Fetch<'_>, block: &[Entity], start: usize) -> bool {
        f.as_ref()
            .is_none_or(|c| same_block(c.entities, block, start))
    }
    #[inline]
    fn fetch_at<'w>(f: &mut Self::Fetch<'w>, _: Entity, index: usize) -> Option<&'w mut T> {
        f.as_mut().map(|c| c.take_at(index))
    }
}

impl QueryData for Entity {
    type Item<'w> = Entity;
    type Fetch<'w> = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init<'w>(_: &mut Borrows<'w>) -> Self::Fetch<'w> {}
    fn driver<'w>(_: &Self::Fetch<'w>, _: &mut Option<Driver<'w>>) {}
    #[inline]
    fn fetch<'w>(_: &mut Self::Fetch<'w>, e: Entity, _: usize) -> Option<Self::Item<'w>> {
        Some(e)
    }
    fn mismatch(_: &Self::Fetch<'_>, _: Entity) -> Option<(&'static str, &'static str)> {
        None
    }
    fn aligned(_: &Self::Fetch<'_>, _: &[Entity], _: usize) -> bool {
        true
    }
    #[inline]
    fn fetch_at<'w>(_: &mut Self::Fetch<'w>, e: Entity, _: usize) -> Self::Item<'w> {
        e
    }
}
impl ReadOnlyQueryData for Entity {}

impl<T: Component> QueryData for With<T> {
    type Item<'w> = ();
    type Fetch<'w> = Option<&'w Store<T>>;
    const ACCESS: ConstAccess = leaf::<T>(false);
    fn access(out: &mut Vec<Access>) {
        out.push(Access::read::<T>());
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        b.shared::<T>()
    }
    fn driver<'w>(f: &Self::Fetch<'w>, best: &mut Option<Driver<'w>>) {
        Driver::of(*f).offer(best);
    }
    #[inline]
    fn fetch<'w>(f: &mut Self::Fetch<'w>, e: Entity, hint: usize) -> Option<Self::Item<'w>> {
        f.and_then(|s| s.dense_index_hinted(e, hint)).map(|_| ())
    }
    fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(&'static str, &'static str)> {
        lacks::<T>(f.is_some_and(|s| s.contains(e)))
    }
    fn aligned(f: &Self::Fetch<'_>, block: &[Entity], start: usize) -> bool {
        f.is_some_and(|s| same_block(s.dense_entities(), block, start))
    }
    #[inline]
    fn fetch_at<'w>(_: &mut Self::Fetch<'w>, _: Entity, _: usize) -> Self::Item<'w> {}
}
impl<T: Component> ReadOnlyQueryData for With<T> {}

impl<T: Component> QueryData for Without<T> {
    type Item<'w> = ();
    type Fetch<'w> = Option<&'w Store<T>>;
    const ACCESS: ConstAccess = leaf::<T>(false);
    fn access(out: &mut Vec<Access>) {
        out.push(Access::read::<T>());
    }
    fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
        b.shared::<T>()
    }
    fn driver<'w>(_: &Self::Fetch<'w>, _: &mut Option<Driver<'w>>) {}
    #[inline]
    fn fetch<'w>(f: &mut Self::Fetch<'w>, e: Entity, hint: usize) -> Option<Self::Item<'w>> {
        match f {
            Some(s) if s.dense_index_hinted(e, hint).is_some() => None,
            _ => Some(()),
        }
    }
    fn mismatch(f: &Self::Fetch<'_>, e: Entity) -> Option<(&'static str, &'static str)> {
        f.is_some_and(|s| s.contains(e))
            .then_some(("has excluded", T::NAME))
    }
    fn aligned(f: &Self::Fetch<'_>, _: &[Entity], _: usize) -> bool {
        // Only an absent or empty store excludes nobody in a whole block.
        f.is_none_or(|s| s.is_empty())
    }
    #[inline]
    fn fetch_at<'w>(_: &mut Self::Fetch<'w>, _: Entity, _: usize) -> Self::Item<'w> {}
}
impl<T: Component> ReadOnlyQueryData for Without<T> {}

impl QueryData for () {
    type Item<'w> = ();
    type Fetch<'w> = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init<'w>(_: &mut Borrows<'w>) -> Self::Fetch<'w> {}
    fn driver<'w>(_: &Self::Fetch<'w>, _: &mut Option<Driver<'w>>) {}
    #[inline]
    fn fetch<'w>(_: &mut Self::Fetch<'w>, _: Entity, _: usize) -> Option<Self::Item<'w>> {
        Some(())
    }
    fn mismatch(_: &Self::Fetch<'_>, _: Entity) -> Option<(&'static str, &'static str)> {
        None
    }
    fn aligned(_: &Self::Fetch<'_>, _: &[Entity], _: usize) -> bool {
        true
    }
    #[inline]
    fn fetch_at<'w>(_: &mut Self::Fetch<'w>, _: Entity, _: usize) -> Self::Item<'w> {}
}
impl ReadOnlyQueryData for () {}

macro_rules! impl_query_tuple {
    ($(($Q:ident, $i:tt)),+) => {
        impl<$($Q: QueryData),+> QueryData for ($($Q,)+) {
            type Item<'w> = ($($Q::Item<'w>,)+);
            type Fetch<'w> = ($($Q::Fetch<'w>,)+);
            const ACCESS: ConstAccess = ConstAccess::List(&[$($Q::ACCESS),+]);
            fn access(out: &mut Vec<Access>) {
                $($Q::access(out);)+
            }
            fn init<'w>(b: &mut Borrows<'w>) -> Self::Fetch<'w> {
                ($($Q::init(b),)+)
            }
            fn driver<'w>(f: &Self::Fetch<'w>, best: &mut Option<Driver<'w>>) {
                $($Q::driver(&f.$i, best);)+
            }
            #[inline]
            fn fetch<'w>(f: &mut Self::Fetch<'w>, e: Entity, hint: usize)
                -> Option<Self::Item<'w>> {
                Some(($($Q::fetch(&mut f.$i, e, hint)?,)+))
            }
            fn mismatch(f: &Self::Fetch<'_>, e: Entity)
                -> Option<(&'static str, &'static str)> {
                None$(.or_else(|| $Q::mismatch(&f.$i, e)))+
            }
            fn aligned(f: &Self::Fetch<'_>, block: &[Entity], start: usize) -> bool {
                true $(&& $Q::aligned(&f.$i, block, start))+
            }
            #[inline]
            fn fetch_at<'w>(f: &mut Self::Fetch<'w>, e: Entity, index: usize)
                -> Self::Item<'w> {
                ($($Q::fetch_at(&mut f.$i, e, index),)+)
            }
        }
        impl<$($Q: ReadOnlyQueryData),+> ReadOnlyQueryData for ($($Q,)+) {}
    };
}

impl_query_tuple!((A, 0));
impl_query_tuple!((A, 0), (B, 1));
impl_query_tuple!((A, 0), (B, 1), (C, 2));
impl_query_tuple!((A, 0), (B, 1), (C, 2), (D, 3));
impl_query_tuple!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4));
impl_query_tuple!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4), (F, 5));
impl_query_tuple!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4), (F, 5), (G, 6));
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7)
);
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8)
);
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9)
);
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9),
    (K, 10)
);
impl_query_tuple!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9),
    (K, 10),
    (L, 11)
);
