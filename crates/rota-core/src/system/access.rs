//! The access markers a system's type carries: `Reads<T>` and `Writes<T>`, implemented by
//! `#[system]` for exactly the declared types, and the bounds that hold every accessor to them.

use crate::bundle::Bundle;
use crate::component::Component;
use crate::entity::Entity;
use crate::query::{QueryData, With, Without};

/// Implemented by `#[system]` for a system's marker type, for each type it declares in
/// `reads(..)` or `writes(..)` (writes imply reads). Every read accessor a system parameter
/// offers is bounded on it, so reading an undeclared type does not compile.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` reads `{T}` but does not declare it",
    label = "`{T}` is read here",
    note = "add `{T}` to `reads(..)` (or `writes(..)`) in the `#[system(..)]` attribute of `{Self}`"
)]
pub trait Reads<T: ?Sized> {}

/// Implemented by `#[system]` for each type a system declares in `writes(..)`. Every mutable
/// accessor is bounded on it, so writing an undeclared type does not compile.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` writes `{T}` but does not declare it",
    label = "`{T}` is written here",
    note = "add `{T}` to `writes(..)` in the `#[system(..)]` attribute of `{Self}`"
)]
pub trait Writes<T: ?Sized>: Reads<T> {}

/// `T: WrittenBy<S>` is `S: Writes<T>` seen from `T`: bounding a method's own type parameter
/// this way lets the compiler infer `T` from the argument before checking the declaration, so
/// its message names the component instead of `_`.
pub trait WrittenBy<S>: Component {}
impl<S: Writes<T>, T: Component> WrittenBy<S> for T {}

/// The marker of code that is not a system (a `World` used directly): it may access anything.
#[derive(Copy, Clone, Debug, Default)]
pub struct Unrestricted;

impl<T: ?Sized> Reads<T> for Unrestricted {}
impl<T: ?Sized> Writes<T> for Unrestricted {}

/// Whether a declared type is a component or a resource.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessKind {
    /// A `Component` store.
    Component,
    /// A `Resource`.
    Resource,
}

/// A type that can appear in `reads(..)`/`writes(..)`: implemented by `#[derive(Component)]`
/// and `#[derive(Resource)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be declared in `reads(..)`/`writes(..)`: it is neither a Component nor a Resource",
    label = "not a Component or Resource",
    note = "derive `Component` (per-entity data) or `Resource` (one per world) for `{Self}`"
)]
pub trait Declarable: 'static {
    /// Component or resource.
    const KIND: AccessKind;
    /// The type's name, for descriptors and messages.
    const NAME: &'static str;
}

/// A query type whose every access system `S` declared: `&T`, `Option<&T>`, `With<T>` and
/// `Without<T>` need `S: Reads<T>` (a filter reads the store's index to test presence, so a
/// parallel writer of `T` would conflict with it); `&mut T` and `Option<&mut T>` need
/// `S: Writes<T>`. `Entity` needs nothing.
pub trait QueryAccess<S>: QueryData {}

impl<S: Reads<T>, T: Component> QueryAccess<S> for &T {}
impl<S: Writes<T>, T: Component> QueryAccess<S> for &mut T {}
impl<S: Reads<T>, T: Component> QueryAccess<S> for Option<&T> {}
impl<S: Writes<T>, T: Component> QueryAccess<S> for Option<&mut T> {}
impl<S> QueryAccess<S> for Entity {}
impl<S> QueryAccess<S> for () {}
impl<S: Reads<T>, T: Component> QueryAccess<S> for With<T> {}
impl<S: Reads<T>, T: Component> QueryAccess<S> for Without<T> {}

macro_rules! impl_query_access_tuple {
    ($($Q:ident),+) => {
        impl<S, $($Q: QueryAccess<S>),+> QueryAccess<S> for ($($Q,)+) {}
    };
}
impl_query_access_tuple!(A);
impl_query_access_tuple!(A, B);
impl_query_access_tuple!(A, B, C);
impl_query_access_tuple!(A, B, C, D);
impl_query_access_tuple!(A, B, C, D, E);
impl_query_access_tuple!(A, B, C, D, E, F);
impl_query_access_tuple!(A, B, C, D, E, F, G);
impl_query_access_tuple!(A, B, C, D, E, F, G, H);
impl_query_access_tuple!(A, B, C, D, E, F, G, H, I);
impl_query_access_tuple!(A, B, C, D, E, F, G, H, I, J);
impl_query_access_tuple!(A, B, C, D, E, F, G, H, I, J, K);
impl_query_access_tuple!(A, B, C, D, E, F, G, H, I, J, K, L);

/// A bundle whose every component system `S` declared in `writes(..)` (for `Commands::spawn`).
pub trait BundleWrites<S>: Bundle {}

impl<S> BundleWrites<S> for () {}
macro_rules! impl_bundle_writes_all {
    ($($T:ident),+) => {
        impl<S, $($T: Component),+> BundleWrites<S> for ($($T,)+) where $(S: Writes<$T>),+ {}
    };
}
impl_bundle_writes_all!(A);
impl_bundle_writes_all!(A, B);
impl_bundle_writes_all!(A, B, C);
impl_bundle_writes_all!(A, B, C, D);
impl_bundle_writes_all!(A, B, C, D, E);
impl_bundle_writes_all!(A, B, C, D, E, F);
impl_bundle_writes_all!(A, B, C, D, E, F, G);
impl_bundle_writes_all!(A, B, C, D, E, F, G, H);
impl_bundle_writes_all!(A, B, C, D, E, F, G, H, I);
impl_bundle_writes_all!(A, B, C, D, E, F, G, H, I, J);
impl_bundle_writes_all!(A, B, C, D, E, F, G, H, I, J, K);
impl_bundle_writes_all!(A, B, C, D, E, F, G, H, I, J, K, L);
