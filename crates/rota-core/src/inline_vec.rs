//! `InlineVec<T, N>`: a list that keeps up to `N` items in place and moves to the heap past that.
//!
//! A world-level query's access list and its store positions are built per query and hold a
//! few small `Copy` items, so they live here rather than on the heap. The borrowed-store list
//! keeps one store in place (a query of one store borrows without allocating) and spills the
//! rest; the join's columns stay a `Vec`: inline, they measured slower, since moving them
//! cost more than the allocation (docs/benchmarks.md, "A `for` loop over one run is a plain
//! slice loop").
//!
//! Invariant: either `spill` is empty and the items are `inline[..len]`, or every item is in
//! `spill` (and `inline` holds only placeholders). Slots past `len` hold `T::default()`
//! placeholders, which is why `T: Default`: without `unsafe` there is no uninitialized slot.

use std::ops::{Deref, DerefMut};

pub(crate) struct InlineVec<T, const N: usize> {
    inline: [T; N],
    len: usize,
    spill: Vec<T>,
}

impl<T: Default, const N: usize> InlineVec<T, N> {
    #[inline]
    pub(crate) fn new() -> Self {
        InlineVec {
            inline: std::array::from_fn(|_| T::default()),
            len: 0,
            spill: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, item: T) {
        if !self.spill.is_empty() {
            self.spill.push(item);
        } else if self.len < N {
            self.inline[self.len] = item;
            self.len += 1;
        } else {
            self.spill_and_push(item);
        }
    }

    #[cold]
    fn spill_and_push(&mut self, item: T) {
        let mut spill = Vec::with_capacity(N * 2 + 1);
        spill.extend(self.inline.iter_mut().map(std::mem::take));
        spill.push(item);
        self.spill = spill;
        self.len = 0;
    }
}

impl<T, const N: usize> Deref for InlineVec<T, N> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        if self.spill.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spill
        }
    }
}

impl<T, const N: usize> DerefMut for InlineVec<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        if self.spill.is_empty() {
            &mut self.inline[..self.len]
        } else {
            &mut self.spill
        }
    }
}

impl<T: Default, const N: usize> FromIterator<T> for InlineVec<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut list = InlineVec::new();
        for item in iter {
            list.push(item);
        }
        list
    }
}

impl<T: Default, const N: usize> Default for InlineVec<T, N> {
    fn default() -> Self {
        InlineVec::new()
    }
}

#[cfg(test)]
mod tests;
