//! `tracing` spans behind the `trace` feature (the bevy convention): one span per tick
//! (`rota.tick`), per batch (`rota.batch`), per system run (`rota.system`, on the thread that ran
//! it), per command application (`rota.commands`) and per settle (`rota.settle`).
//!
//! Without the feature the macro expands to `()`: no `tracing` dependency, no code in the hot
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

/// Without the `trace` feature: nothing.
#[cfg(not(feature = "trace"))]
macro_rules! span {
    ($name:literal $(, $($field:tt)*)?) => {
        ()
    };
}

pub(crate) use span;
