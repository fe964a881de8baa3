//! `par_for_each` and `par_for_each_chunk`: parallel iteration over a query, in chunks whose
//! boundaries do not depend on the thread count, on the running schedule's threads.
//!
//! How the work is shared (no `unsafe`, no `Vec` of every item): the thread that calls
//! `par_for_each` walks the query in ascending slot order and cuts it into chunks of
//! [`PAR_CHUNK`] items, numbered in walk order. Each chunk goes into a short shared queue;
//! helper tasks on the schedule's pool take chunks from its front, and the walking thread itself
//! runs a chunk whenever the queue is long, then drains what is left. At most about twice the
//! thread count of chunks are buffered at any time, and buffers are reused. Helpers never wait
//! for chunks: one that finds the queue empty ends, and the walker starts a new one when the
//! next chunk arrives — so a helper can never block a thread the walker needs.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rota_core::query::QueryData;
use rota_core::system::Query;

use crate::workers::Workers;

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

impl<T> Iterator for ParChunk<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.items.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl<T> ExactSizeIterator for ParChunk<'_, T> {}

impl<T> std::fmt::Debug for ParChunk<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParChunk")
            .field("index", &self.index)
            .field("remaining", &self.items.len())
            .finish()
    }
}

/// Parallel iteration for queries (in `rota-schedule`, because `rota-core` spawns no thread).
///
/// Inside a [`crate::Schedule`] the work runs on that schedule's threads: with `threads(1)`
/// every chunk runs on the calling thread, in chunk order; with `threads(N)` on at most N
/// threads (the one running the system and the schedule's N - 1 workers). Outside a schedule
/// (e.g. `World::run`) it runs on rayon's current pool, the global one unless the caller is
/// inside `ThreadPool::install`.
pub trait ParallelQuery<Q: QueryData> {
    /// Calls `f` on every match, in parallel over fixed chunks of [`PAR_CHUNK`] matches taken in
    /// ascending slot order. `f` sees one item at a time, so the result cannot depend on which
    /// thread ran which chunk.
    ///
    /// # Panics
    ///
    /// If `f` panics, with `f`'s payload, after the chunks already started have finished.
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
    /// If `f` panics, with `f`'s payload, after the chunks already started have finished.
    fn par_for_each_chunk<Fun>(&mut self, f: Fun)
    where
        Fun: Fn(ParChunk<'_, Q::Item<'_>>) + Send + Sync,
        for<'a> Q::Item<'a>: Send;
}

impl<Q: QueryData, F: QueryData> ParallelQuery<Q> for Query<'_, Q, F> {
    fn par_for_each<Fun>(&mut self, f: Fun)
    where
        Fun: Fn(Q::Item<'_>) + Send + Sync,
        for<'a> Q::Item<'a>: Send,
    {
        self.par_for_each_chunk(|chunk| chunk.for_each(&f));
    }

    fn par_for_each_chunk<Fun>(&mut self, f: Fun)
    where
        Fun: Fn(ParChunk<'_, Q::Item<'_>>) + Send + Sync,
        for<'a> Q::Item<'a>: Send,
    {
        for_each_chunk(self.iter_mut(), &f);
    }
}

/// Cuts `items` into [`PAR_CHUNK`]-sized chunks and runs `f` on each, on the current schedule's
/// threads (see [`ParallelQuery`]).
pub(crate) fn for_each_chunk<T: Send>(
    items: impl Iterator<Item = T>,
    f: &(dyn Fn(ParChunk<'_, T>) + Sync),
) {
    match Workers::current() {
        Some(Workers::Calling) => sequential(items, f),
        Some(Workers::Pool(pool)) => {
            let queue = Queue::new();
            let helpers = pool.current_num_threads();
            pool.in_place_scope(|scope| shared(items, f, &queue, scope, helpers));
        }
        None => {
            let queue = Queue::new();
            let helpers = rayon::current_num_threads();
            rayon::in_place_scope(|scope| shared(items, f, &queue, scope, helpers));
        }
    }
}

/// Every chunk on this thread, in chunk order, through one reused buffer.
fn sequential<T>(mut items: impl Iterator<Item = T>, f: &dyn Fn(ParChunk<'_, T>)) {
    let mut buffer = Vec::with_capacity(PAR_CHUNK);
    for index in 0.. {
        buffer.extend(items.by_ref().take(PAR_CHUNK));
        if buffer.is_empty() {
            return;
        }
        f(ParChunk {
            index,
            items: buffer.drain(..),
        });
    }
}

/// Chunks waiting for a thread, oldest first, and emptied buffers for reuse.
struct Queue<T> {
    chunks: VecDeque<(usize, Vec<T>)>,
    spare: Vec<Vec<T>>,
    /// Helper tasks started and not yet ended.
    helpers: usize,
}

impl<T> Queue<T> {
    fn new() -> Mutex<Queue<T>> {
        Mutex::new(Queue {
            chunks: VecDeque::new(),
            spare: Vec::new(),
            helpers: 0,
        })
    }
}

fn lock<T>(queue: &Mutex<Queue<T>>) -> MutexGuard<'_, Queue<T>> {
    // The lock is never held while user code runs, so poisoning cannot leave a half-updated
    // queue; recover rather than turn one panic into two.
    queue.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Takes the oldest waiting chunk, runs it, recycles its buffer. `false` when none was waiting.
fn run_one<T>(queue: &Mutex<Queue<T>>, f: &dyn Fn(ParChunk<'_, T>)) -> bool {
    let Some((index, mut buffer)) = lock(queue).chunks.pop_front() else {
        return false;
    };
    f(ParChunk {
        index,
        items: buffer.drain(..),
    });
    lock(queue).spare.push(buffer);
    true
}

/// A helper task: runs waiting chunks until there are none, then ends (never waits).
fn help<T>(queue: &Mutex<Queue<T>>, f: &dyn Fn(ParChunk<'_, T>)) {
    loop {
        let next = {
            let mut q = lock(queue);
            let next = q.chunks.pop_front();
            if next.is_none() {
                // Under the lock that the walker holds when it counts helpers, so a chunk pushed
                // after this point sees one helper fewer and starts another.
                q.helpers -= 1;
            }
            next
        };
        let Some((index, mut buffer)) = next else {
            return;
        };
        f(ParChunk {
            index,
            items: buffer.drain(..),
        });
        lock(queue).spare.push(buffer);
    }
}

/// The walk on this thread, chunks shared with up to `max_helpers` helper tasks on `scope`.
fn shared<'scope, T: Send + 'scope>(
    mut items: impl Iterator<Item = T>,
    f: &'scope (dyn Fn(ParChunk<'_, T>) + Sync),
    queue: &'scope Mutex<Queue<T>>,
    scope: &rayon::Scope<'scope>,
    max_helpers: usize,
) {
    // Long enough that helpers rarely find it empty, short enough to bound buffering.
    let backlog_limit = 2 * (max_helpers + 1);
    for index in 0.. {
        let mut buffer = lock(queue)
            .spare
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(PAR_CHUNK));
        buffer.extend(items.by_ref().take(PAR_CHUNK));
        if buffer.is_empty() {
            break;
        }
        let (backlog, start_helper) = {
            let mut q = lock(queue);
            q.chunks.push_back((index, buffer));
            let start_helper = q.helpers < max_helpers;
            if start_helper {
                q.helpers += 1;
            }
            (q.chunks.len(), start_helper)
        };
        if start_helper {
            scope.spawn(move |_| help(queue, f));
        }
        if backlog > backlog_limit {
            run_one(queue, f);
        }
    }
    while run_one(queue, f) {}
}
