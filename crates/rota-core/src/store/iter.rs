//! Walking a store: `iter` / `iter_mut` in ascending slot order (a slice walk when settled,
//! the sparse pages otherwise), `iter_unordered` in dense order, and `join` of two stores.
//!
//! Invariant (the order contract): `iter` and `iter_mut` yield ascending slots in every state of
//! the store; `iter_mut` settles first, so it is always a slice walk.

use super::*;

/// The dense columns in dense order, dead elements skipped; see [`Store::iter_unordered`].
struct Unordered<'a, T> {
    inner: std::iter::Zip<std::slice::Iter<'a, Entity>, std::slice::Iter<'a, T>>,
    /// The back-pointers, which tell a live element (its entry holds its position) from a
    /// dead one (`dead.rs`).
    sparse: &'a SparsePages,
    /// The dense position `inner` yields next.
    at: usize,
    /// Live elements not yet yielded.
    remaining: usize,
}

impl<'a, T> Iterator for Unordered<'a, T> {
    type Item = (Entity, &'a T);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (e, v) = self.inner.next()?;
            self.at += 1;
            if self.sparse.get_raw(e.slot()) == self.at as u32 - 1 {
                self.remaining -= 1;
                return Some((*e, v));
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<T> ExactSizeIterator for Unordered<'_, T> {}

/// Ordered iterator over a [`Store`]; see [`Store::iter`].
pub struct Iter<'a, T> {
    inner: IterInner<'a, T>,
}

type SparseWalk<'a> = Box<dyn Iterator<Item = (u32, u32)> + 'a>;

enum IterInner<'a, T> {
    Dense(std::iter::Zip<std::slice::Iter<'a, Entity>, std::slice::Iter<'a, T>>),
    Walk {
        sparse: SparseWalk<'a>,
        entities: &'a [Entity],
        values: &'a [T],
        remaining: usize,
    },
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = (Entity, &'a T);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.inner {
            IterInner::Dense(it) => it.next().map(|(e, v)| (*e, v)),
            IterInner::Walk {
                sparse,
                entities,
                values,
                remaining,
            } => {
                if *remaining == 0 {
                    return None;
                }
                let (_, d) = sparse.next()?;
                *remaining -= 1;
                Some((entities[d as usize], &values[d as usize]))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.inner {
            IterInner::Dense(it) => it.len(),
            IterInner::Walk { remaining, .. } => *remaining,
        };
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}

/// Ordered mutable iterator over a [`Store`]; see [`Store::iter_mut`].
pub struct IterMut<'a, T> {
    inner: std::iter::Zip<std::slice::Iter<'a, Entity>, std::slice::IterMut<'a, T>>,
}

impl<'a, T> Iterator for IterMut<'a, T> {
    type Item = (Entity, &'a mut T);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|(e, v)| (*e, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> ExactSizeIterator for IterMut<'_, T> {}

impl<'a, T> IntoIterator for &'a Store<T> {
    type Item = (Entity, &'a T);
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Store<T> {
    type Item = (Entity, &'a mut T);
    type IntoIter = IterMut<'a, T>;
    fn into_iter(self) -> IterMut<'a, T> {
        self.iter_mut()
    }
}

/// Entities present in both stores, with both values, in ascending slot order.
///
/// Walks the smaller store in order and probes the other, so the cost is
/// O(min(len) + probes) — plus the unsettled fallback cost if the smaller store is unsettled.
///
/// ```
/// use rota::{join, Entities, Store};
///
/// let mut entities = Entities::new();
/// let [a, b, c] = [(); 3].map(|_| entities.spawn().unwrap());
/// let mut pos = Store::new();
/// let mut vel = Store::new();
/// for e in [c, a, b] { pos.insert(e, e.slot() as f32); }
/// vel.insert(c, 1.0f32);
/// vel.insert(a, 2.0f32);
/// let joined: Vec<_> = join(&pos, &vel).map(|(e, p, v)| (e, *p, *v)).collect();
/// assert_eq!(joined, vec![(a, 0.0, 2.0), (c, 2.0, 1.0)]);
/// ```
pub fn join<'a, A, B>(
    a: &'a Store<A>,
    b: &'a Store<B>,
) -> Box<dyn Iterator<Item = (Entity, &'a A, &'a B)> + 'a> {
    if a.len() <= b.len() {
        Box::new(
            a.iter()
                .filter_map(move |(e, va)| b.get(e).map(|vb| (e, va, vb))),
        )
    } else {
        Box::new(
            b.iter()
                .filter_map(move |(e, vb)| a.get(e).map(|va| (e, va, vb))),
        )
    }
}

impl<T> Store<T> {
    /// `(Entity, &T)` in ascending slot order.
    pub fn iter(&self) -> Iter<'_, T> {
        let (index, values) = (&*self.index, &self.values.values);
        if self.is_settled() {
            Iter {
                inner: IterInner::Dense(index.entities.iter().zip(values.iter())),
            }
        } else {
            Iter {
                inner: IterInner::Walk {
                    sparse: Box::new(index.sparse.iter()),
                    entities: &index.entities,
                    values,
                    remaining: self.len(),
                },
            }
        }
    }

    /// `(Entity, &mut T)` in ascending slot order. Settles the store first, and stamps every
    /// value changed at the store's change tick.
    pub fn iter_mut(&mut self) -> IterMut<'_, T> {
        let (entities, values) = self.dense_mut();
        IterMut {
            inner: entities.iter().zip(values.iter_mut()),
        }
    }

    /// `(Entity, &T)` in dense order, which depends on the insert/remove history. Use it only
    /// where order cannot matter (e.g. a commutative sum of integers); prefer [`Store::iter`].
    pub fn iter_unordered(&self) -> impl ExactSizeIterator<Item = (Entity, &T)> + '_ {
        Unordered {
            inner: self.index.entities.iter().zip(&self.values.values),
            sparse: &self.index.sparse,
            at: 0,
            remaining: self.len(),
        }
    }

    /// The dense entity column. In ascending slot order iff [`Store::is_settled`].
    ///
    /// A store inside a [`World`](crate::World) may also hold *dead* elements here, left by
    /// despawns and [`World::delete`](crate::World::delete)s of components with no drop glue
    /// (removing them in place would cost a random write per column): they are not held
    /// ([`Store::len`] does not count them; no lookup reaches them) and go at the store's next
    /// settle. A settled store has none. A deleted entity given the component again before
    /// then gets its element back in place ([`Store::insert`]); [`Store::dense_index`] names
    /// the position that holds an entity's live value.
    #[inline]
    pub fn dense_entities(&self) -> &[Entity] {
        &self.index.entities
    }

    /// The dense value column, parallel to [`Store::dense_entities`] (dead elements included).
    #[inline]
    pub fn dense_values(&self) -> &[T] {
        &self.values.values
    }

    /// Both dense columns, values mutable. Settles first, so both are in ascending slot order;
    /// stamps every value changed at the store's change tick.
    #[inline]
    pub fn dense_mut(&mut self) -> (&[Entity], &mut [T]) {
        self.settle();
        let now = self.now;
        let columns = values_mut(&mut self.values, self.copy_values);
        if !columns.changed.is_empty() {
            // Every value: one tick for all of them (see `ValueColumns::changed_floor`).
            columns.changed_floor = Some(now);
            self.last_changed = now;
        }
        (&self.index.entities, &mut columns.values)
    }
}
