//! rota's compile-time guarantees, as tests (this package has no API).
//!
//! * `rejections.rs` — one file per rejected construct, named after what it rejects, with its
//!   `.stderr` beside it, checked by trybuild under `cargo check` (`bundle/` under `cargo
//!   build`: its refusals are post-monomorphization errors).
//! * `pass.rs` — every `pass-*.rs` case compiled as a module of one test crate and run.
#![forbid(unsafe_code)]
