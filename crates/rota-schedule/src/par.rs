//! `par_for_each`, `par_for_each_chunk`, `par_map_chunks` and `par_map_segments`: parallel
//! iteration over a query, in chunks (or segments) whose boundaries do not depend on the
//! thread count, on the running schedule's threads.
//!
//! How the work is shared (no `unsafe`, no `Vec` of every item):
//!
//! * **One thread** (`threads(1)`): `par_for_each` is a plain loop over the query (its closure
//!   sees one item at a time, so that is the same walk); `par_for_each_chunk` cuts the items
//!   into chunks of [`PAR_CHUNK`] on the calling thread.
//! * **More threads**, `par_for_each_chunk` and `par_map_chunks` (and `par_for_each` over a
//!   query that cannot be cut into segments, below): the thread that calls walks the query's
//!   *join* in ascending slot order and hands out its runs, not its items ([`Piece`]s: a run
//!   is a zip of slice iterators that has not made a single item yet). It cuts them into
//!   chunks of exactly [`PAR_CHUNK`] items, numbered in walk order, splitting a run where a
//!   chunk ends; so the walker's cost is per run and per chunk, and the items are made by
//!   whichever thread runs the chunk. Consecutive chunks are grouped into *tasks* (one chunk
//!   at first, up to [`MAX_TASK_CHUNKS`] later; see [`task_chunks`]) that go into a short
//!   shared queue; helpers on the schedule's pool take tasks from its front, and the walking
//!   thread runs one itself whenever the queue is long, then drains what is left. At most
//!   about twice the thread count of tasks are buffered, and their buffers are reused. Helpers
//!   never wait: one that finds the queue empty ends, and the walker starts a new one when the
//!   next task arrives — so a helper can never block a thread the walker needs. (A helper's
//!   *thread* then lingers, awake but taking any new job at once, and the walker waits awake
//!   for the helpers still running: `workers.rs`.)
//!
//! A run handed out is stamped changed as a whole when the walker takes the next run (see
//! `QueryIter::pieces`): every item of it reaches the closure unless the closure panics.
//! Measured: `docs/benchmarks.md`, "Parallel loops: runs and segments".
//!
//! **Segments** (`par_map_segments`, and `par_for_each` on more threads): the query is cut,
//! before it starts, into stretches of slots every so many entities of its driving store
//! (`QueryIter::segments`; exclusive columns are split at the same places, each cut found
//! through the store's sparse array where the store holds the cut's slot), and each thread
//! takes whole segments and runs their join itself. No thread walks for the others: not the
//! join's per-run cost of a scattered query (runs of a few entities), nor the item-by-item
//! merge of an `Option<&T>`. Measured: `docs/benchmarks.md`, "Parallel loops: runs and
//! segments".

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use std::sync::Arc;

use rota_core::query::{Piece, QueryData, QueryIter};
use rota_core::system::Query;

use crate::workers::{Helpers, Workers};

/// `Iterator`, `ExactSizeIterator` and `Debug` for a numbered batch of items handed to a
/// closure ([`ParChunk`], [`ParSegment`]): its `index` and the `items` it drains.
macro_rules! numbered_items {
    ($name:ident) => {
        impl<T> Iterator for $name<'_, T> {
            type Item = T;

            fn next(&mut self) -> Option<T> {
                self.items.next()
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.items.size_hint()
            }
        }

        impl<T> ExactSizeIterator for $name<'_, T> {}

        impl<T> std::fmt::Debug for $name<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("index", &self.index)
                    .field("remaining", &self.items.len())
                    .finish()
            }
        }
    };
}

/// Items per chunk in [`ParallelQuery::par_for_each`] and [`ParallelQuery::par_for_each_chunk`].
/// Chunk `k` holds the matches at positions `k * PAR_CHUNK ..` of the query's walk, whatever
/// the number of threads, so per-chunk work is the same on any machine.
pub const PAR_CHUNK: usize = 256;

/// One chunk of a [`ParallelQuery::par_for_each_chunk`] walk: an iterator over at most
/// [`PAR_CHUNK`] items, with its place in the walk.
pub struct ParChunk<'c, T> {
    index: usize,
    items: std::vec::Drain<'c, T>,
}

impl<T> ParChunk<'_, T> {
    /// The chunk's number: 0 for the first [`PAR_CHUNK`] matches in ascending slot order, 1 for
    /// the next, and so on — the same on any thread count.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The position of the chunk's first item in the query's walk (`index() * PAR_CHUNK`).
    pub fn start(&self) -> usize {
        self.index * PAR_CHUNK
    }
}

numbered_items!(ParChunk);

/// Entities of the driving store per segment in [`ParallelQuery::par_map_segments`]: segment
/// `k` holds the matches among that store's entities `k * PAR_SEGMENT ..` (in ascending slot
/// order), whatever the number of threads.
pub const PAR_SEGMENT: usize = 2048;

/// One segment of a [`ParallelQuery::par_map_segments`] walk: an iterator over the query's
/// matches in one stretch of slots, with its place among the segments. The thread that runs
/// the segment also ran its part of the query's join: no thread walks the query for the others.
pub struct ParSegment<'c, T> {
    index: usize,
    items: std::vec::Drain<'c, T>,
}

impl<T> ParSegment<'_, T> {
    /// The segment's number: 0 for the stretch of the lowest slots, and so on — the same on
    /// any thread count.
    pub fn index(&self) -> usize {
        self.index
    }
}

numbered_items!(ParSegment);

/// Parallel iteration for queries (in `rota-schedule`, because `rota-core` spawns no thread).
///
/// Inside a [`crate::Schedule`] the work runs on that schedule's threads: with `threads(1)`
/// every chunk runs on the calling thread, in chunk order; with `threads(N)` on at most N
/// threads (the one running the system and the schedule's N - 1 workers). Outside a schedule
/// (e.g. `World::run`) it runs on rayon's current pool, the global one unless the caller is
/// inside `ThreadPool::install`.
pub trait ParallelQuery<Q: QueryData> {
    /// Calls `f` on every match, in parallel. `f` sees one item at a time, so the result cannot
    /// depend on which thread ran which item. The walk is cut into segments (stretches of
    /// slots, several per thread) that each thread joins itself, as
    /// [`par_map_segments`](ParallelQuery::par_map_segments) does; a query that cannot be cut
    /// (a store not settled, or no required component, as in `(Entity, Option<&T>)`) is
    /// shared out in chunks of [`PAR_CHUNK`] matches taken in ascending slot order by the
    /// calling thread.
    ///
    /// # Panics
    ///
    /// If `f` panics, with `f`'s payload, after the chunks (or segments) already started have
    /// finished; none starts after the panic. The `&mut` values of every run the walk had
    /// taken by then count as handed out (stamped changed), whether or not `f` saw them.
    fn par_for_each<Fun>(&mut self, f: Fun)
    where
        Fun: Fn(Q::Item<'_>) + Send + Sync,
        for<'a> Q::Item<'a>: Send;

    /// Calls `f` once per chunk of [`PAR_CHUNK`] matches, chunks in parallel. A chunk's
    /// [`ParChunk::index`] and items are the same on any thread count, so a per-chunk result
    /// stored by index (a partial sum, say) is deterministic; combine such results in index
    /// order.
    ///
    /// # Panics
    ///
    /// If `f` panics, with `f`'s payload, after the chunks already started have finished; no
    /// chunk starts after the panic, and the `&mut` values of the runs taken count as handed
    /// out, as for `par_for_each`.
    fn par_for_each_chunk<Fun>(&mut self, f: Fun)
    where
        Fun: Fn(ParChunk<'_, Q::Item<'_>>) + Send + Sync,
        for<'a> Q::Item<'a>: Send;

    /// Calls `f` once per chunk, as [`par_for_each_chunk`](ParallelQuery::par_for_each_chunk)
    /// does, and returns what it returned, **in chunk order** (chunk 0's result first). Chunks
    /// and their items are the same on any thread count, so the vector is too: the
    /// deterministic way to gather per-chunk results (candidates, partial counts, fates) for a
    /// sequential step that follows.
    ///
    /// ```
    /// use rota::{Component, ParallelQuery, Query, World, system};
    ///
    /// #[derive(Component, Clone)]
    /// struct Health(i32);
    ///
    /// #[system(reads(Health))]
    /// fn wounded(mut q: Query<(rota::Entity, &Health)>) {
    ///     // Each chunk lists its wounded; the lists come back in chunk order.
    ///     let lists: Vec<Vec<rota::Entity>> = q.par_map_chunks(|chunk| {
    ///         chunk.filter(|(_, h)| h.0 < 10).map(|(e, _)| e).collect()
    ///     });
    ///     let wounded: Vec<rota::Entity> = lists.into_iter().flatten().collect();
    ///     assert!(wounded.windows(2).all(|w| w[0].slot() < w[1].slot()));
    ///     assert_eq!(wounded.len(), 100);
    /// }
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..1000).map(|i| (Health(i % 100),)));
    /// assert!(world.run(wounded).is_clean());
    /// ```
    ///
    /// # Panics
    ///
    /// As [`par_for_each_chunk`](ParallelQuery::par_for_each_chunk).
    fn par_map_chunks<R, Fun>(&mut self, f: Fun) -> Vec<R>
    where
        R: Send,
        Fun: Fn(ParChunk<'_, Q::Item<'_>>) -> R + Send + Sync,
        for<'a> Q::Item<'a>: Send,
    {
        let results = Mutex::new(Vec::new());
        self.par_for_each_chunk(|chunk| {
            let index = chunk.index();
            let result = f(chunk);
            results
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((index, result));
        });
        in_index_order(results)
    }

    /// Calls `f` once per **segment** — the matches in one stretch of slots, cut every
    /// [`PAR_SEGMENT`] entities of the query's driving store (its shortest required
    /// component) — segments in parallel, and returns what it returned, **in segment order**.
    ///
    /// Unlike [`par_map_chunks`](ParallelQuery::par_map_chunks), whose chunks hold exactly
    /// [`PAR_CHUNK`] matches and so are cut by one thread walking the query's join for all,
    /// each segment runs its own part of the join on the thread that takes it: a query whose
    /// matches are scattered (one component every few entities: runs of one or two) scales
    /// with the threads. Where segments are cut depends on the stores (and a change filter's
    /// window) alone, so segments, their items and the returned vector are the same on any
    /// thread count; a segment may hold fewer than `PAR_SEGMENT` matches, or none (`f` still
    /// sees it). A query that cannot be cut (a store not settled, as through `&World` after
    /// changes, or no required component) is one segment, and so is one that cannot match: a
    /// `Changed<T>`/`Added<T>` filter whose store had no change in the window (one empty
    /// segment).
    ///
    /// ```
    /// use rota::{Component, Entity, ParallelQuery, Query, World, With, system};
    ///
    /// #[derive(Component, Clone)]
    /// struct Hp(i32);
    /// #[derive(Component, Clone)]
    /// struct Boss;
    ///
    /// #[system(reads(Hp, Boss))]
    /// fn weak_bosses(mut q: Query<(Entity, &Hp), With<Boss>>) {
    ///     let lists: Vec<Vec<Entity>> = q.par_map_segments(|segment| {
    ///         segment.filter(|(_, hp)| hp.0 < 50).map(|(e, _)| e).collect()
    ///     });
    ///     let weak: Vec<Entity> = lists.into_iter().flatten().collect();
    ///     assert!(weak.windows(2).all(|w| w[0].slot() < w[1].slot()));
    ///     assert_eq!(weak.len(), 100); // the bosses at Hp(0), not those at Hp(50)
    /// }
    ///
    /// let mut world = World::new();
    /// for i in 0..10_000 {
    ///     let e = world.spawn_with((Hp(i % 100),));
    ///     if i % 50 == 0 {
    ///         world.insert(e, Boss).unwrap();
    ///     }
    /// }
    /// assert!(world.run(weak_bosses).is_clean());
    /// ```
    ///
    /// # Panics
    ///
    /// If `f` panics, with `f`'s payload, after the segments already started have finished; no
    /// segment starts after the panic. A segment's items are made before `f` sees the first,
    /// so the `&mut` values of every started segment count as handed out (stamped changed),
    /// whether or not `f` saw them.
    fn par_map_segments<R, Fun>(&mut self, f: Fun) -> Vec<R>
    where
        R: Send,
        Fun: Fn(ParSegment<'_, Q::Item<'_>>) -> R + Send + Sync,
        for<'a> Q::Item<'a>: Send;
}

impl<Q: QueryData, F: QueryData> ParallelQuery<Q> for Query<'_, Q, F> {
    fn par_for_each<Fun>(&mut self, f: Fun)
    where
        Fun: Fn(Q::Item<'_>) + Send + Sync,
        for<'a> Q::Item<'a>: Send,
    {
        let Some(threads) = Threads::current() else {
            // One thread: `f` sees one item at a time, so a plain loop is the same walk.
            return self.iter_mut().for_each(f);
        };
        // Not started, so that it can be cut into segments before its first run: each thread
        // joins its own segments, and no thread walks (or splits optional runs) for the
        // others. `f` sees one item at a time, so how the walk is cut is invisible: cut it so
        // that each thread gets several segments to balance.
        let iter = self.unstarted_mut();
        let per =
            |driver: usize| (driver / (threads.count() * SEGMENTS_PER_THREAD)).max(MIN_SEGMENT);
        match iter.segments(per) {
            Ok(segments) => threads.run_segments(segments, &|_, segment| segment.for_each(&f)),
            Err(iter) => each_shared(iter, threads, &f),
        }
    }

    fn par_map_segments<R, Fun>(&mut self, f: Fun) -> Vec<R>
    where
        R: Send,
        Fun: Fn(ParSegment<'_, Q::Item<'_>>) -> R + Send + Sync,
        for<'a> Q::Item<'a>: Send,
    {
        let segments = match self.unstarted_mut().segments(|_| PAR_SEGMENT) {
            Ok(segments) => segments,
            Err(whole) => vec![whole],
        };
        map_segments(segments, Threads::current(), &f)
    }
    fn par_for_each_chunk<Fun>(&mut self, f: Fun)
    where
        Fun: Fn(ParChunk<'_, Q::Item<'_>>) + Send + Sync,
        for<'a> Q::Item<'a>: Send,
    {
        match Threads::current() {
            None => sequential(self.iter_mut(), &f),
            Some(threads) => chunks_shared(self.iter_mut(), threads, &f),
        }
    }
}

/// `par_map_segments`: each segment's items are made (its join walked) on the thread that runs
/// it, into a reused buffer, then handed to `f`; the results come back in segment order.
fn map_segments<'w, Q: QueryData, F: QueryData, R: Send>(
    segments: Vec<QueryIter<'w, Q, F>>,
    threads: Option<Threads>,
    f: &(dyn Fn(ParSegment<'_, Q::Item<'w>>) -> R + Sync),
) -> Vec<R>
where
    Q::Item<'w>: Send,
{
    let spare: Mutex<Vec<Vec<Q::Item<'w>>>> = Mutex::new(Vec::new());
    let run = |index: usize, segment: QueryIter<'w, Q, F>| {
        // Room for a whole segment up front (it has at most `PAR_SEGMENT` matches, unless the
        // query could not be cut): a buffer grown item by item reallocates on the worker
        // threads, and allocation is what scales worst (docs/benchmarks.md, "Result lists made with room").
        let mut items = lock_spare(&spare)
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(PAR_SEGMENT));
        segment.for_each(|item| items.push(item));
        let result = f(ParSegment {
            index,
            items: items.drain(..),
        });
        lock_spare(&spare).push(items);
        result
    };
    let Some(threads) = threads else {
        return segments
            .into_iter()
            .enumerate()
            .map(|(index, segment)| run(index, segment))
            .collect();
    };
    let results = Mutex::new(Vec::with_capacity(segments.len()));
    threads.run_segments(segments, &|index, segment| {
        let result = run(index, segment);
        results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((index, result));
    });
    in_index_order(results)
}

/// Results gathered as `(index, result)` by the threads that made them, in index order (the
/// indices are distinct, so the order is total).
fn in_index_order<R>(results: Mutex<Vec<(usize, R)>>) -> Vec<R> {
    let mut results = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    results.sort_unstable_by_key(|&(index, _)| index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// `par_for_each` on more than one thread: the pieces are walked where their chunk runs.
fn each_shared<'w, Q: QueryData, F: QueryData>(
    iter: QueryIter<'w, Q, F>,
    threads: Threads,
    f: &(impl Fn(Q::Item<'w>) + Sync),
) where
    Q::Item<'w>: Send,
{
    let run = |_: usize, pieces: &mut Vec<Piece<'w, Q>>, _: &[usize]| {
        for piece in pieces.drain(..) {
            piece.for_each(f);
        }
    };
    threads.share(iter.pieces(), &run);
}

/// `par_for_each_chunk` on more than one thread: each chunk's items are made on the thread that
/// runs it, into reused buffers.
fn chunks_shared<'w, Q: QueryData, F: QueryData>(
    iter: QueryIter<'w, Q, F>,
    threads: Threads,
    f: &(dyn Fn(ParChunk<'_, Q::Item<'w>>) + Sync),
) where
    Q::Item<'w>: Send,
{
    let spare: Mutex<Vec<Vec<Q::Item<'w>>>> = Mutex::new(Vec::new());
    let run = |first: usize, pieces: &mut Vec<Piece<'w, Q>>, ends: &[usize]| {
        let mut items = lock_spare(&spare)
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(PAR_CHUNK));
        let mut pieces = pieces.drain(..);
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            for piece in pieces.by_ref().take(end - start) {
                piece.push_into(&mut items);
            }
            start = end;
            f(ParChunk {
                index: first + i,
                items: items.drain(..),
            });
        }
        lock_spare(&spare).push(items);
    };
    threads.share(iter.pieces(), &run);
}

/// Segments each thread of a `par_for_each` gets, on average: several, so that a thread that
/// finishes early takes another rather than idling (segments differ in matches and work).
const SEGMENTS_PER_THREAD: usize = 8;

/// The fewest driving entities a `par_for_each` segment is cut at: below that, cutting and
/// planning a segment costs more than sharing it saves.
const MIN_SEGMENT: usize = 64;

/// The segments of a walk no thread has taken yet, and whether a segment's closure panicked
/// (then no segment starts any more). One lock for both: a segment taken after the panic was
/// recorded sees it.
struct SegmentsLeft<I> {
    failed: bool,
    segments: I,
}

/// Marks a segmented walk failed if dropped while its segment's closure unwinds (it is
/// forgotten when the closure returns).
struct FailOnUnwind<'a, I>(&'a Mutex<SegmentsLeft<I>>);

impl<I> Drop for FailOnUnwind<'_, I> {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).failed = true;
    }
}

fn lock_spare<T>(spare: &Mutex<Vec<T>>) -> MutexGuard<'_, Vec<T>> {
    // Held only to push or pop a buffer, never while user code runs.
    spare.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where the chunks of a parallel walk run: a pool with this many helper threads besides the
/// calling one.
enum Threads {
    Schedule(Arc<rayon::ThreadPool>),
    Rayon(usize),
}

impl Threads {
    /// The threads to share a walk with, or `None` for one thread (the schedule's `threads(1)`,
    /// or a one-thread rayon pool outside a schedule).
    fn current() -> Option<Threads> {
        match Workers::current() {
            Some(Workers::Calling) => None,
            Some(Workers::Pool(pool)) => Some(Threads::Schedule(pool)),
            None => match rayon::current_num_threads() {
                ..=1 => None,
                n => Some(Threads::Rayon(n)),
            },
        }
    }

    /// The threads a walk is shared with: the calling one and the helpers.
    fn count(&self) -> usize {
        match self {
            Threads::Schedule(pool) => pool.current_num_threads() + 1,
            Threads::Rayon(n) => *n,
        }
    }

    /// Runs `run(index, segment)` on every segment, on these threads: each thread takes the
    /// lowest-numbered segment left until none is. Once a run panics no segment starts (the
    /// ones left are dropped unwalked, so nothing of theirs is stamped), and the panic is
    /// raised again when the running ones have finished.
    fn run_segments<'w, Q: QueryData, F: QueryData>(
        self,
        segments: Vec<QueryIter<'w, Q, F>>,
        run: &(dyn Fn(usize, QueryIter<'w, Q, F>) + Sync),
    ) {
        let helpers = (self.count() - 1).min(segments.len().saturating_sub(1));
        let left = Mutex::new(SegmentsLeft {
            failed: false,
            segments: segments.into_iter().enumerate(),
        });
        let take_and_run = || {
            loop {
                let next = {
                    let mut left = left.lock().unwrap_or_else(PoisonError::into_inner);
                    if left.failed {
                        return;
                    }
                    left.segments.next()
                };
                let Some((index, segment)) = next else {
                    return;
                };
                let guard = FailOnUnwind(&left);
                run(index, segment);
                std::mem::forget(guard);
            }
        };
        let running = Helpers::new(matches!(self, Threads::Schedule(_)));
        match self {
            Threads::Schedule(pool) => {
                pool.in_place_scope(|scope| running.share(scope, helpers, &take_and_run));
            }
            Threads::Rayon(_) => {
                rayon::in_place_scope(|scope| running.share(scope, helpers, &take_and_run));
            }
        }
    }

    /// Cuts `pieces` into chunks of [`PAR_CHUNK`] items, groups consecutive chunks into tasks
    /// and runs `run(first chunk index, task pieces, chunk ends)` on each, on these threads.
    fn share<'w, Q: QueryData>(
        self,
        pieces: impl Iterator<Item = Piece<'w, Q>>,
        run: Run<'_, Piece<'w, Q>>,
    ) where
        Q::Item<'w>: Send,
    {
        let mut chunker = Chunker {
            pieces,
            pending: None,
        };
        let queue = Queue::new();
        let running = Helpers::new(matches!(self, Threads::Schedule(_)));
        let work = (&mut chunker, run, &queue, &running);
        match self {
            Threads::Schedule(pool) => {
                let helpers = pool.current_num_threads();
                pool.in_place_scope(|scope| shared(work, scope, helpers));
            }
            Threads::Rayon(helpers) => {
                rayon::in_place_scope(|scope| shared(work, scope, helpers));
            }
        }
    }
}

/// Cuts a walk's pieces into chunks of exactly [`PAR_CHUNK`] items (the last may be shorter),
/// splitting a run where a chunk ends. The walking thread only moves runs; their items are made
/// on the thread that runs the chunk.
struct Chunker<'w, Q: QueryData, I> {
    pieces: I,
    /// What the last chunk left of a run it cut.
    pending: Option<Piece<'w, Q>>,
}

impl<'w, Q: QueryData, I: Iterator<Item = Piece<'w, Q>>> Chunker<'w, Q, I> {
    /// Appends the next chunk's pieces to `pieces` (a task's list, which may already hold
    /// earlier chunks); `false`, with nothing appended, when the walk is over.
    fn fill(&mut self, pieces: &mut Vec<Piece<'w, Q>>) -> bool {
        let mut room = PAR_CHUNK;
        while room > 0 {
            let Some(piece) = self.pending.take().or_else(|| self.pieces.next()) else {
                break;
            };
            let len = piece.len();
            if len <= room {
                room -= len;
                if len > 0 {
                    pieces.push(piece);
                }
            } else {
                let (head, tail) = piece.split(room);
                pieces.push(head);
                self.pending = Some(tail);
                room = 0;
            }
        }
        room < PAR_CHUNK
    }
}

/// Cuts the walk into [`PAR_CHUNK`]-sized chunks and runs `f` on each, in order, on this
/// thread. The chunks are cut from the walk's pieces, as on more threads, so each run's items
/// are made in one go (`Piece::push_into`) rather than one `next` at a time.
fn sequential<'w, Q: QueryData, F: QueryData>(
    iter: QueryIter<'w, Q, F>,
    f: &dyn Fn(ParChunk<'_, Q::Item<'w>>),
) {
    let mut chunker = Chunker {
        pieces: iter.pieces(),
        pending: None,
    };
    let mut pieces = Vec::new();
    let mut items = Vec::with_capacity(PAR_CHUNK);
    for index in 0.. {
        if !chunker.fill(&mut pieces) {
            return;
        }
        for piece in pieces.drain(..) {
            piece.push_into(&mut items);
        }
        f(ParChunk {
            index,
            items: items.drain(..),
        });
    }
}

/// Consecutive chunks of a walk, run by one thread: `pieces` cut at `ends` (chunk `first + i`
/// is `pieces[ends[i - 1]..ends[i]]`).
struct Task<P> {
    first: usize,
    pieces: Vec<P>,
    ends: Vec<usize>,
}

/// How many chunks the `made`-th task of a walk holds. One at first, so a short walk of heavy
/// items (a few chunks) is spread over every thread; then more, up to [`MAX_TASK_CHUNKS`], so a
/// long walk of cheap items does not spend its time handing chunks between threads (each hand-
/// out moves the queue's cache line between cores twice). A function of the count alone, so
/// what a task holds never depends on timing; and a task's chunks are the same chunks a
/// one-thread walk makes, so nothing a closure sees depends on it either.
fn task_chunks(made: usize, threads: usize) -> usize {
    (1 + made / (4 * threads)).min(MAX_TASK_CHUNKS)
}

/// The most chunks one task holds (see [`task_chunks`]).
const MAX_TASK_CHUNKS: usize = 8;

/// Tasks waiting for a thread, oldest first, and emptied tasks for reuse.
struct Queue<P> {
    tasks: VecDeque<Task<P>>,
    spare: Vec<Task<P>>,
    /// Helper tasks started and not yet ended.
    helpers: usize,
    /// A task panicked: no task starts any more (the walk stops; tasks already running finish).
    failed: bool,
}

impl<P> Queue<P> {
    fn new() -> Mutex<Queue<P>> {
        Mutex::new(Queue {
            tasks: VecDeque::new(),
            spare: Vec::new(),
            helpers: 0,
            failed: false,
        })
    }

    /// The oldest waiting task, unless a task panicked.
    fn next_task(&mut self) -> Option<Task<P>> {
        if self.failed {
            return None;
        }
        self.tasks.pop_front()
    }
}

/// Set while a task runs: if it unwinds, marks the walk failed and, for a helper, gives its
/// place back (so the count of running helpers stays true).
struct Running<'q, P> {
    queue: &'q Mutex<Queue<P>>,
    helper: bool,
}

impl<P> Drop for Running<'_, P> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut q = lock(self.queue);
            q.failed = true;
            if self.helper {
                q.helpers -= 1;
            }
        }
    }
}

fn lock<P>(queue: &Mutex<Queue<P>>) -> MutexGuard<'_, Queue<P>> {
    // The lock is never held while user code runs, so poisoning cannot leave a half-updated
    // queue; recover rather than turn one panic into two.
    queue.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A task's runner: the index of its first chunk, its pieces (to be drained) and where each of
/// its chunks ends among them.
type Run<'r, P> = &'r (dyn Fn(usize, &mut Vec<P>, &[usize]) + Sync);

/// Runs `task` (on a helper if `helper`) and recycles it.
fn run_task<P>(queue: &Mutex<Queue<P>>, run: Run<'_, P>, mut task: Task<P>, helper: bool) {
    let running = Running { queue, helper };
    run(task.first, &mut task.pieces, &task.ends);
    drop(running);
    task.pieces.clear();
    task.ends.clear();
    lock(queue).spare.push(task);
}

/// Takes the oldest waiting task and runs it on the walking thread. `false` when none was
/// waiting (or a task panicked).
fn run_one<P>(queue: &Mutex<Queue<P>>, run: Run<'_, P>) -> bool {
    let Some(task) = lock(queue).next_task() else {
        return false;
    };
    run_task(queue, run, task, false);
    true
}

/// A helper: runs waiting tasks until there are none, then ends (never waits).
fn help<P>(queue: &Mutex<Queue<P>>, run: Run<'_, P>) {
    loop {
        let next = {
            let mut q = lock(queue);
            let next = q.next_task();
            if next.is_none() {
                // Under the lock that the walker holds when it counts helpers, so a task pushed
                // after this point sees one helper fewer and starts another.
                q.helpers -= 1;
            }
            next
        };
        let Some(task) = next else {
            return;
        };
        run_task(queue, run, task, true);
    }
}

/// What [`shared`] works with: the walk's chunker, the task runner, the task queue and the
/// count of running helpers.
type Shared<'c, 'scope, 'w, Q, I> = (
    &'c mut Chunker<'w, Q, I>,
    Run<'scope, Piece<'w, Q>>,
    &'scope Mutex<Queue<Piece<'w, Q>>>,
    &'scope Helpers,
);

/// The walk on this thread, tasks shared with up to `max_helpers` helpers on `scope`; returns
/// once every task has run (waiting awake a short while for the helpers, see [`Helpers`]).
fn shared<'scope, 'w, Q: QueryData + 'scope, I: Iterator<Item = Piece<'w, Q>>>(
    (chunker, run, queue, running): Shared<'_, 'scope, 'w, Q, I>,
    scope: &rayon::Scope<'scope>,
    max_helpers: usize,
) where
    'w: 'scope,
    Q::Item<'w>: Send,
{
    // Long enough that helpers rarely find it empty, short enough to bound buffering.
    let backlog_limit = 2 * (max_helpers + 1);
    let mut next_chunk = 0;
    for made in 0.. {
        let spare = {
            let mut q = lock(queue);
            if q.failed {
                break; // a task panicked: the scope re-raises it once the running ones end
            }
            q.spare.pop()
        };
        let mut task = spare.unwrap_or_else(|| Task {
            first: 0,
            pieces: Vec::new(),
            ends: Vec::new(),
        });
        task.first = next_chunk;
        for _ in 0..task_chunks(made, max_helpers + 1) {
            if !chunker.fill(&mut task.pieces) {
                break;
            }
            task.ends.push(task.pieces.len());
        }
        if task.ends.is_empty() {
            break;
        }
        next_chunk += task.ends.len();
        let (backlog, start_helper) = {
            let mut q = lock(queue);
            q.tasks.push_back(task);
            let start_helper = q.helpers < max_helpers;
            if start_helper {
                q.helpers += 1;
            }
            (q.tasks.len(), start_helper)
        };
        if start_helper {
            running.start();
            scope.spawn(move |_| running.run(|| help(queue, run)));
        }
        if backlog > backlog_limit {
            run_one(queue, run);
        }
    }
    while run_one(queue, run) {}
    running.wait_awake();
}
