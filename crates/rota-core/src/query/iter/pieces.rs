//! Cutting a query before its first item: into segments of slots (`QueryIter::segments`,
//! each a query of its own that a thread joins itself), or into pieces (`QueryIter::pieces`:
//! runs not yet made into items, for the chunk walks of `rota-schedule`'s `par` module).

use super::*;

impl<'w, Q: QueryData, F: QueryData> QueryIter<'w, Q, F> {
    /// The query cut into **segments**, before its first item: stretches of ascending slots
    /// cut every `per(n)` entities of the join's driving column (its shortest required store,
    /// of `n` entities),
    /// each a query of its own over only its stretch. The segments' items, in order, are the
    /// query's items; each segment runs its own join, so segments can run on different threads
    /// with no thread walking the join for the others (exclusive columns are split at the same
    /// places, `&mut` values stamped by the segment that hands them out). Where the cuts fall
    /// depends on the stores (and a change filter's window) alone, never on threads; a change
    /// filter whose store had no change in the window drives with an empty column, so its
    /// query, which matches nothing, is one segment.
    ///
    /// `Err(self)` when the query cannot be cut: it is walked entity by entity (a store not
    /// settled, or no required component), or it has started — iterators of plain queries
    /// (`QueryIter::STARTS`) from `World::query_mut`, `Query::iter_mut` and
    /// [`QueryIter::new`] take their first run when built; cut the ones from
    /// [`QueryIter::unstarted`], `World::unstarted_query_mut` and `Query::unstarted_mut`.
    #[doc(hidden)]
    pub fn segments(
        mut self,
        per: impl FnOnce(usize) -> usize,
    ) -> Result<Vec<QueryIter<'w, Q, F>>, QueryIter<'w, Q, F>> {
        let fresh = self.current.size_hint().0 == 0
            && matches!(self.state.as_deref(), Some(State { mode: Mode::Runs(plan), .. }) if plan.is_fresh());
        if !fresh {
            return Err(self);
        }
        let Some(state) = self.state.take() else {
            return Err(self);
        };
        let State {
            mut data,
            mut filter,
            mode,
        } = *state;
        let Mode::Runs(plan) = mode else {
            unreachable!("checked above: the join runs");
        };
        let driver = plan.driver_entities();
        let cuts: Vec<u32> = driver
            .iter()
            .step_by(per(driver.len()).max(1))
            .skip(1)
            .map(|e| e.slot())
            .collect();
        drop(plan);
        let mut segments = Vec::with_capacity(cuts.len() + 1);
        let mut lo = 0;
        for cut in cuts {
            let (head, tail) = Q::split_fetch(data, cut);
            let (head_filter, tail_filter) = F::split_fetch(filter, cut);
            segments.push(Self::segment(head, head_filter, lo, Some(cut)));
            (data, filter, lo) = (tail, tail_filter, cut);
        }
        segments.push(Self::segment(data, filter, lo, None));
        Ok(segments)
    }

    /// A segment of a cut query: its part of the fetches, joined over slots `lo..hi`.
    fn segment(
        mut data: Q::Fetch<'w>,
        mut filter: F::Fetch<'w>,
        lo: u32,
        hi: Option<u32>,
    ) -> QueryIter<'w, Q, F> {
        let mut plan = JoinPlan::new();
        Q::plan(&mut data, &mut plan);
        F::plan(&mut filter, &mut plan);
        // The same columns as the whole query's plan, which ran: this one runs too, with the
        // same driver (the shortest column, whole lengths compared).
        let runs = plan.finish();
        debug_assert!(runs, "a segment's columns are the whole query's");
        plan.restrict(lo, hi);
        Self::started(Box::new(State {
            data,
            filter,
            mode: Mode::Runs(plan),
        }))
    }

    /// The rest of the walk as [`Piece`]s, in order: whole runs (not yet made into items) and,
    /// entity by entity, single items. What `par_for_each` hands to other threads: cutting and
    /// passing on runs costs the walking thread next to nothing per item.
    ///
    /// Every piece taken counts as handed out: a `&mut` value is stamped changed once its run
    /// is taken, whether or not the piece is then walked.
    #[doc(hidden)]
    pub fn pieces(self) -> Pieces<'w, Q, F> {
        Pieces { iter: self }
    }
}

/// A stretch of a query's walk: a run of items, or one item. See [`QueryIter::pieces`].
#[doc(hidden)]
pub enum Piece<'w, Q: QueryData> {
    /// A run's items, all of them matches, in order.
    Run(Q::Run<'w>),
    /// One match (the entity-by-entity walk).
    Item(Q::Item<'w>),
}

impl<'w, Q: QueryData> Piece<'w, Q> {
    /// How many items the piece yields.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Piece::Run(run) => run.size_hint().0,
            Piece::Item(_) => 1,
        }
    }

    /// Whether the piece yields nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The piece cut in two: its first `at` items (all, if it has fewer) and the rest. An item
    /// cut at 0 is all rest; at 1 or more, all head.
    pub fn split(self, at: usize) -> (Self, Self) {
        match self {
            Piece::Run(run) => {
                let (head, tail) = Q::split_run(run, at);
                (Piece::Run(head), Piece::Run(tail))
            }
            Piece::Item(item) if at == 0 => (Piece::Run(Q::empty_run()), Piece::Item(item)),
            Piece::Item(item) => (Piece::Item(item), Piece::Run(Q::empty_run())),
        }
    }

    /// Calls `f` on every item, in order.
    #[inline]
    pub fn for_each(self, f: impl FnMut(Q::Item<'w>)) {
        match self {
            Piece::Run(run) => Q::walk(run).for_each(f),
            Piece::Item(item) => {
                let mut f = f;
                f(item);
            }
        }
    }

    /// Appends the items to `out`, in order.
    #[inline]
    pub fn push_into(self, out: &mut Vec<Q::Item<'w>>) {
        match self {
            Piece::Run(run) => out.extend(Q::walk(run)),
            Piece::Item(item) => out.push(item),
        }
    }
}

/// The pieces of a query's walk; see [`QueryIter::pieces`].
#[doc(hidden)]
pub struct Pieces<'w, Q: QueryData, F: QueryData> {
    iter: QueryIter<'w, Q, F>,
}

impl<'w, Q: QueryData, F: QueryData> Iterator for Pieces<'w, Q, F> {
    type Item = Piece<'w, Q>;

    fn next(&mut self) -> Option<Piece<'w, Q>> {
        // First what a started run has left, then one piece per run or item. Moving a run out
        // leaves `current` empty, so the query's end (`finish`, with nothing left) stamps every
        // run taken in full.
        let iter = &mut self.iter;
        if iter.current.size_hint().0 > 0 {
            return Some(Piece::Run(std::mem::replace(
                &mut iter.current,
                Q::empty_run(),
            )));
        }
        loop {
            match advance(iter.state.as_deref_mut()) {
                Step::Run(run, _) if run.size_hint().0 == 0 => {}
                Step::Run(run, _) => return Some(Piece::Run(run)),
                Step::Item(item) => return Some(Piece::Item(item)),
                Step::Done => return None,
            }
        }
    }
}
