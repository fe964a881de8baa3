//! # rota-schedule
//!
//! The scheduler of rota (not yet implemented: see the schedule issue).
//!
//! ## Contract
//!
//! * Systems run in an order fixed by `after` constraints and declaration order, never by timing.
//! * Strides are whole ticks (`every_ticks`), never seconds.
//! * Running on 1 thread or N gives the same world.
//!
//! ## Non-goals
//!
//! * Wall-clock scheduling: a rate in seconds would break determinism at the first dropped frame.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
