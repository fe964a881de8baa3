//! # rota-macros
//!
//! Procedural macros for rota. Use them through the `rota` facade crate.
//!
//! ## Contract
//!
//! * `#[derive(Component)]` marks a `'static + Send + Sync` type as a component.
//!
//! ## Non-goals
//!
//! * Runtime behaviour: everything here runs at compile time.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
