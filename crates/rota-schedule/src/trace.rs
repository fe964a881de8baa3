//! `tracing` spans behind the `trace` feature (the bevy convention): one span per tick
//! (`rota.tick`), per batch (`rota.batch`), per system run (`rota.system`, on the thread that ran
//! it), per command application (`rota.commands`) and per settle (`rota.settle`).
//!
//! Without the feature the macro expands to an empty guard: no `tracing` dependency, no code in the hot
//! path. With it, a span costs what the installed subscriber makes it cost (nothing when none is
//! installed). Spans are for reading, like [`crate::RunReport::profile`]: nothing the schedule
//! decides depends on them.

/// Enters an info-level span for the rest of the enclosing scope: `let _s = span!("name", k = v);`.
#[cfg(feature = "trace")]
macro_rules! span {
    ($name:literal $(, $($field:tt)*)?) => {
        ::tracing::info_span!($name $(, $($field)*)?).entered()
    };
}

/// Without the `trace` feature: a guard that does nothing (its fields are not evaluated).
#[cfg(not(feature = "trace"))]
macro_rules! span {
    ($name:literal $(, $($field:tt)*)?) => {
        $crate::trace::NoSpan
    };
}

/// What [`span!`] gives without the `trace` feature: a guard with nothing to close. It has a
/// (no-op) `Drop` so that code ending a span early with `drop(guard)` reads the same with and
/// without the feature.
#[cfg(not(feature = "trace"))]
pub(crate) struct NoSpan;

#[cfg(not(feature = "trace"))]
impl Drop for NoSpan {
    fn drop(&mut self) {}
}

pub(crate) use span;
