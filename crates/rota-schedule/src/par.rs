//! `par_for_each`: parallel iteration over a query, chunked independently of the thread count.

use rayon::prelude::*;
use rota_core::query::QueryData;
use rota_core::system::Query;

/// Items per chunk in [`ParallelQuery::par_for_each`]. Chunk boundaries are multiples of this,
/// whatever the number of threads, so per-chunk work is the same on any machine.
pub const PAR_CHUNK: usize = 256;

/// Parallel iteration for queries (in `rota-schedule`, because `rota-core` spawns no thread).
pub trait ParallelQuery<Q: QueryData> {
    /// Calls `f` on every match, in parallel over fixed chunks of [`PAR_CHUNK`] matches taken in
    /// ascending slot order. `f` sees one item at a time, so the result cannot depend on which
    /// thread ran which chunk.
    fn par_for_each<Fun>(&mut self, f: Fun)
    where
        Fun: Fn(Q::Item<'_>) + Send + Sync,
        for<'a> Q::Item<'a>: Send;
}

impl<Q: QueryData, F: QueryData> ParallelQuery<Q> for Query<'_, Q, F> {
    fn par_for_each<Fun>(&mut self, f: Fun)
    where
        Fun: Fn(Q::Item<'_>) + Send + Sync,
        for<'a> Q::Item<'a>: Send,
    {
        let mut items: Vec<Option<Q::Item<'_>>> = self.iter_mut().map(Some).collect();
        items.par_chunks_mut(PAR_CHUNK).for_each(|chunk| {
            for item in chunk.iter_mut() {
                if let Some(item) = item.take() {
                    f(item);
                }
            }
        });
    }
}
