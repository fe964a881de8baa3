//! The paged sparse array: slot → dense index, `u32::MAX` meaning absent.

/// Slots per page. 4096 slots × 4 bytes = one 16 KiB page, allocated on first use.
pub(crate) const PAGE_BITS: u32 = 12;
pub(crate) const PAGE_LEN: usize = 1 << PAGE_BITS;
const PAGE_MASK: u32 = (PAGE_LEN as u32) - 1;

/// The sentinel stored for "this slot has no value here". Slot `u32::MAX` is never handed out
/// (see `Entities::MAX_SLOTS`) and a store never holds `u32::MAX` values, so it cannot collide.
pub(crate) const ABSENT: u32 = u32::MAX;

/// An entry at or above this (other than [`ABSENT`]) is *dead-tagged*: the slot has no value
/// here, but its element at `entry - DEAD_TAG` was left dead (`dead.rs`) and may be revived in
/// place. Every lookup ([`SparsePages::get`], [`SparsePages::iter`]) reads a tagged entry as
/// absent; only [`SparsePages::entry`] sees the position, as a hint its caller verifies.
pub(crate) const DEAD_TAG: u32 = 1 << 31;

/// The most elements a store's dense columns may hold: every dense position is below
/// `DEAD_TAG - 1`, so a tagged position never reads as [`ABSENT`].
pub(crate) const MAX_DENSE: usize = (DEAD_TAG - 1) as usize;

/// A sparse array of dense indices, paged so that a store holding a few values at high slots
/// costs one 16 KiB page per 4096-slot range touched, not memory proportional to the highest slot.
///
/// Cost: 8 bytes per page pointer for every 4096-slot range below the highest slot, plus
/// 16 KiB per range that holds at least one value.
#[derive(Debug, Default)]
pub(crate) struct SparsePages {
    pages: Vec<Option<Page>>,
}

/// One page: a fixed-size array, so the masked in-page index needs no bounds check and a page
/// pointer is one word.
type Page = Box<[u32; PAGE_LEN]>;

impl Clone for SparsePages {
    fn clone(&self) -> Self {
        SparsePages {
            pages: self.pages.clone(),
        }
    }

    /// Reuses pages (a page both sides have is overwritten in place): restoring a snapshot
    /// allocates no page the world already has.
    fn clone_from(&mut self, source: &Self) {
        self.pages.truncate(source.pages.len());
        for (mine, theirs) in self.pages.iter_mut().zip(&source.pages) {
            match (mine, theirs) {
                (Some(mine), Some(theirs)) => mine.copy_from_slice(&theirs[..]),
                (mine, theirs) => mine.clone_from(theirs),
            }
        }
        let have = self.pages.len();
        self.pages.extend_from_slice(&source.pages[have..]);
    }
}

/// A slot's sparse entry (see [`SparsePages::entry`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// The store holds a value for the slot, at this dense index.
    Held(usize),
    /// The slot's last element was left dead, at this dense index (a hint: check it).
    Dead(usize),
    /// Nothing.
    Absent,
}

impl Entry {
    /// The entry a stored value stands for.
    #[inline]
    pub(crate) fn of(raw: u32) -> Entry {
        match raw {
            ABSENT => Entry::Absent,
            d if d >= DEAD_TAG => Entry::Dead((d - DEAD_TAG) as usize),
            d => Entry::Held(d as usize),
        }
    }
}

/// The entry of a slot whose element was left dead at dense position `at`.
#[inline]
pub(crate) fn dead_tagged(at: usize) -> u32 {
    debug_assert!(at < MAX_DENSE, "dense position {at} out of range");
    at as u32 | DEAD_TAG
}

/// Allocation failed while growing the sparse array; nothing was changed.
#[derive(Debug)]
pub(crate) struct SparseAllocError;

impl SparsePages {
    pub(crate) const fn new() -> SparsePages {
        SparsePages { pages: Vec::new() }
    }

    /// `slot`'s dense index, or [`ABSENT`] (a dead-tagged entry reads as absent).
    #[inline]
    pub(crate) fn get(&self, slot: u32) -> u32 {
        match self.get_raw(slot) {
            d if d >= DEAD_TAG => ABSENT,
            d => d,
        }
    }

    /// `slot`'s entry as stored: a dense index, a dead-tagged position, or [`ABSENT`].
    #[inline]
    pub(crate) fn get_raw(&self, slot: u32) -> u32 {
        match self.pages.get((slot >> PAGE_BITS) as usize) {
            Some(Some(page)) => page[(slot & PAGE_MASK) as usize],
            _ => ABSENT,
        }
    }

    /// `slot`'s entry, read once: held at a dense index, dead-tagged, or absent. A dead-tagged
    /// position is a hint: the element may have been compacted or settled away since, so the
    /// caller checks that the position is dead and holds its entity before using it.
    #[inline]
    pub(crate) fn entry(&self, slot: u32) -> Entry {
        Entry::of(self.get_raw(slot))
    }

    /// `slot`'s entry as stored, writable in place, if its page exists (else the slot is
    /// absent): a caller that reads an entry and then rewrites it — a removal tagging it dead,
    /// an insert reviving it — finds the page once.
    #[inline]
    pub(crate) fn cell_mut(&mut self, slot: u32) -> Option<&mut u32> {
        match self.pages.get_mut((slot >> PAGE_BITS) as usize) {
            Some(Some(page)) => Some(&mut page[(slot & PAGE_MASK) as usize]),
            _ => None,
        }
    }

    /// Tags `slot`'s entry (its page exists: the slot held a value) with the position `at` of
    /// the element just left dead there.
    #[inline]
    pub(crate) fn set_dead(&mut self, slot: u32, at: usize) {
        self.set_existing(slot, dead_tagged(at));
    }

    /// Sets `slot`'s entry, allocating its page if needed. Only fails before changing anything.
    #[inline]
    pub(crate) fn try_set(&mut self, slot: u32, index: u32) -> Result<(), SparseAllocError> {
        if let Some(Some(page)) = self.pages.get_mut((slot >> PAGE_BITS) as usize) {
            page[(slot & PAGE_MASK) as usize] = index;
            return Ok(());
        }
        self.try_set_new_page(slot, index)
    }

    /// `try_set` for a slot whose page does not exist yet (once per 4096 slots).
    #[cold]
    fn try_set_new_page(&mut self, slot: u32, index: u32) -> Result<(), SparseAllocError> {
        let page = self.try_page(slot >> PAGE_BITS)?;
        page[(slot & PAGE_MASK) as usize] = index;
        Ok(())
    }

    /// Page `page_no`, allocated (every entry absent) if it does not exist yet. Only fails
    /// before changing anything.
    fn try_page(&mut self, page_no: u32) -> Result<&mut Page, SparseAllocError> {
        let page = page_no as usize;
        if page >= self.pages.len() {
            self.pages
                .try_reserve(page + 1 - self.pages.len())
                .map_err(|_| SparseAllocError)?;
            self.pages.resize_with(page + 1, || None);
        }
        let entry = &mut self.pages[page];
        if entry.is_none() {
            let mut fresh = Vec::new();
            fresh
                .try_reserve_exact(PAGE_LEN)
                .map_err(|_| SparseAllocError)?;
            fresh.resize(PAGE_LEN, ABSENT);
            // A boxed slice of `PAGE_LEN` entries converts to the array type (no copy).
            *entry = Page::try_from(fresh.into_boxed_slice()).ok();
        }
        match entry {
            Some(p) => Ok(p),
            None => Err(SparseAllocError),
        }
    }

    /// Makes sure the page of every slot of `ascending` (slots strictly ascending) and of
    /// `rest` (any order) exists, so that their entries can then be set without failing
    /// ([`SparsePages::set_ascending`], [`SparsePages::set_existing`]). On failure no entry
    /// has changed (pages made before it stay, every entry absent).
    pub(crate) fn try_reserve_pages(
        &mut self,
        ascending: &[crate::entity::Entity],
        rest: &[crate::entity::Entity],
    ) -> Result<(), SparseAllocError> {
        let pages = page_runs(ascending, 0)
            .map(|(page_no, _, _)| page_no)
            .chain(rest.iter().map(|e| e.slot() >> PAGE_BITS));
        for page_no in pages {
            if !matches!(self.pages.get(page_no as usize), Some(Some(_))) {
                self.try_page(page_no)?;
            }
        }
        Ok(())
    }

    /// Overwrites an entry whose page is known to exist (the slot currently holds a value).
    #[inline]
    pub(crate) fn set_existing(&mut self, slot: u32, index: u32) {
        match self.pages.get_mut((slot >> PAGE_BITS) as usize) {
            Some(Some(page)) => page[(slot & PAGE_MASK) as usize] = index,
            _ => debug_assert!(false, "set_existing on slot {slot} without a page"),
        }
    }

    /// Points the entries of `entities` — ascending slots, each present — at `first`,
    /// `first + 1`, …: what a block of a settled column moved as one needs. Page by page: the
    /// page is found once for the entities it holds (a prefix, since slots ascend), and each
    /// entry is then one masked store.
    pub(crate) fn set_ascending(&mut self, entities: &[crate::entity::Entity], first: u32) {
        for (page_no, here, at) in page_runs(entities, first) {
            match self.pages.get_mut(page_no as usize) {
                Some(Some(page)) => fill(page, here, at),
                _ => debug_assert!(false, "set_ascending on page {page_no} without a page"),
            }
        }
    }

    /// Keeps the pages (they will likely be needed again) but marks every slot absent.
    pub(crate) fn clear(&mut self) {
        for page in self.pages.iter_mut().flatten() {
            page.fill(ABSENT);
        }
    }

    /// Walks present entries in ascending slot order: `(slot, dense index)`.
    pub(crate) fn iter(&self) -> SparseIter<'_> {
        SparseIter {
            pages: self.pages.iter().enumerate(),
            page: None,
        }
    }

    /// Number of allocated pages (for the documented memory cost: 16 KiB each).
    pub(crate) fn allocated_pages(&self) -> usize {
        self.pages.iter().filter(|p| p.is_some()).count()
    }
}

/// Splits `entities` (ascending slots) into the runs that share a page: `(page number, run,
/// dense index of the run's first entity)`, the first run's first entity at `first`.
fn page_runs(
    entities: &[crate::entity::Entity],
    first: u32,
) -> impl Iterator<Item = (u32, &[crate::entity::Entity], u32)> {
    let mut rest = entities;
    let mut at = first;
    std::iter::from_fn(move || {
        let (head, last) = (rest.first()?, rest.last()?);
        let page_no = head.slot() >> PAGE_BITS;
        // The slots of this page end below `next`; past the last page, every slot is in it.
        let held = match (page_no + 1).checked_mul(PAGE_LEN as u32) {
            Some(next) if last.slot() >= next => rest.partition_point(|e| e.slot() < next),
            _ => rest.len(),
        };
        let (here, after) = rest.split_at(held);
        let run = (page_no, here, at);
        at += held as u32;
        rest = after;
        Some(run)
    })
}

/// Points the entries of `here` (slots of this one page) at `at`, `at + 1`, ….
#[inline]
fn fill(page: &mut [u32; PAGE_LEN], here: &[crate::entity::Entity], at: u32) {
    for (e, at) in here.iter().zip(at..) {
        page[(e.slot() & PAGE_MASK) as usize] = at;
    }
}

/// The present entries of a [`SparsePages`], in ascending slot order: `(slot, dense index)`.
pub(crate) struct SparseIter<'a> {
    pages: std::iter::Enumerate<std::slice::Iter<'a, Option<Page>>>,
    /// The page being walked: its first slot and its remaining entries.
    page: Option<(u32, std::iter::Enumerate<std::slice::Iter<'a, u32>>)>,
}

impl Iterator for SparseIter<'_> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        loop {
            if let Some((base, entries)) = &mut self.page {
                for (i, &d) in entries.by_ref() {
                    if d < DEAD_TAG {
                        return Some((*base | i as u32, d));
                    }
                }
            }
            let (p, page) = self.pages.next()?;
            self.page = page
                .as_deref()
                .map(|page| (((p as u32) << PAGE_BITS), page.iter().enumerate()));
        }
    }
}

#[cfg(test)]
mod tests;
