//! Dropping values whose `Drop` may panic: each under its own `catch_unwind`, so a second
//! panic cannot abort the process while the first unwinds. Used by the world (despawns,
//! restores) and by command application alike.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Drops removed values after a panic, each store's on its own: a second panic from a
/// component's `Drop` is caught and discarded (the first one goes on), so every value is
/// dropped — the same values whichever thread count settled the stores before the panic.
pub(crate) fn drop_each(removed: Vec<Box<dyn Any + Send>>) {
    let _ = drop_one_by_one(removed);
}

/// How a piece of work ended: `Err` holds the payload of the panic it caught (what
/// `catch_unwind` returns), for the caller to resume once its own state is whole.
pub(crate) type Unwound = Result<(), Box<dyn Any + Send>>;

/// Drops each of `values` under its own `catch_unwind` and returns the first panic: a second
/// panicking `Drop` (of another store's values, another resource) would otherwise abort the
/// process while the first unwinds. (Two panicking values inside one `Vec` still abort: its
/// drop glue runs them in one unwind.)
pub(crate) fn drop_one_by_one<T>(values: impl IntoIterator<Item = T>) -> Unwound {
    let mut first = Ok(());
    for value in values {
        let dropped = catch_unwind(AssertUnwindSafe(|| drop(value)));
        if first.is_ok() {
            first = dropped;
        }
    }
    first
}
