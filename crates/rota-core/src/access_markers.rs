//! The access markers a system's type carries — `Reads<T>`, `Writes<T>`, `Defers<T>`, implemented
//! by `#[system]` for exactly the declared types — and the type-level access lists
//! (`ReadOf<T>`, `WriteOf<T>`) every parameter's access is checked against.

use std::marker::PhantomData;

use crate::bundle::Bundle;
use crate::component::Component;

mod sealed {
    /// Implemented by `#[system]`'s marker types (through `rota::__private`) and [`Unrestricted`](super::Unrestricted).
    pub trait Marker {}
}
#[doc(hidden)]
pub use sealed::Marker;

/// Implemented by `#[system]` for its marker types (through `rota::__private`), and by no type
/// rota defines: every system parameter is fetched for a system's own marker
/// ([`SystemParam::fetch`](crate::system::SystemParam::fetch) requires it). In particular not for
/// [`Unrestricted`], whose `Commands` may `queue` arbitrary world access: a trait and a type
/// both foreign to every other crate, so no other crate can add that impl. Not an API.
#[diagnostic::on_unimplemented(
    message = "system parameters are fetched only for a `#[system]`'s own marker, not for `{Self}`",
    label = "not a system's marker"
)]
pub trait SystemMarker: Marker {}

/// Implemented by `#[system]` for a system's marker type, for each type it declares in
/// `reads(..)` or `writes(..)` (writes imply reads).
#[diagnostic::on_unimplemented(
    message = "system `{Self}` reads `{T}` but does not declare it",
    label = "`{T}` is read here",
    note = "add `{T}` to `reads(..)` (or `writes(..)`) in the `#[system(..)]` attribute of `{Self}`"
)]
pub trait Reads<T: ?Sized>: Marker {}

/// Implemented by `#[system]` for each type a system declares in `writes(..)`.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` writes `{T}` but does not declare it",
    label = "`{T}` is written here",
    note = "add `{T}` to `writes(..)` in the `#[system(..)]` attribute of `{Self}`"
)]
pub trait Writes<T: ?Sized>: Reads<T> {}

/// Implemented by `#[system]` for each component a system declares in `defers(..)` or
/// `writes(..)`: its `Commands` may insert, remove and spawn it.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` inserts, removes or spawns `{T}` through `Commands` but does not declare it",
    label = "`{T}` is changed through `Commands` here",
    note = "add `{T}` to `defers(..)` (applied at the batch end; no conflict with readers) or `writes(..)` in the `#[system(..)]` attribute of `{Self}`"
)]
pub trait Defers<T: ?Sized>: Marker {}

/// Implemented by `#[system]` for each event type a system declares in `sends(..)`.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` sends event `{E}` but does not declare it",
    label = "`{E}` is sent here",
    note = "add `{E}` to `sends(..)` in the `#[system(..)]` attribute of `{Self}`"
)]
pub trait Sends<E: ?Sized>: Marker {}

/// Implemented by `#[system]` for each event type a system declares in `receives(..)`.
#[diagnostic::on_unimplemented(
    message = "system `{Self}` receives event `{E}` but does not declare it",
    label = "`{E}` is received here",
    note = "add `{E}` to `receives(..)` in the `#[system(..)]` attribute of `{Self}`"
)]
pub trait Receives<E: ?Sized>: Marker {}

/// `T: DeferredBy<S>` is `S: Defers<T>` seen from `T`: bounding a method's own type parameter
/// this way lets the compiler infer `T` from the argument before checking the declaration, so
/// its message names the component instead of `_`.
pub trait DeferredBy<S>: Component {}
impl<S: Defers<T>, T: Component> DeferredBy<S> for T {}

/// The marker of code that is not a system (a `World` used directly): it may access anything.
#[derive(Copy, Clone, Debug, Default)]
pub struct Unrestricted;

impl Marker for Unrestricted {}
#[diagnostic::do_not_recommend]
impl<T: ?Sized> Reads<T> for Unrestricted {}
#[diagnostic::do_not_recommend]
impl<T: ?Sized> Writes<T> for Unrestricted {}
#[diagnostic::do_not_recommend]
impl<T: ?Sized> Defers<T> for Unrestricted {}
#[diagnostic::do_not_recommend]
impl<E: ?Sized> Sends<E> for Unrestricted {}
#[diagnostic::do_not_recommend]
impl<E: ?Sized> Receives<E> for Unrestricted {}

/// Whether a declared type is a component or a resource.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessKind {
    /// A `Component` store.
    Component,
    /// A `Resource`.
    Resource,
    /// An `Event` channel (`sends(..)` / `receives(..)`).
    Event,
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
    /// rota's own code only: `ChildOf` (1) and `Children` (2), which only the hierarchy's
    /// methods change — so neither can be declared in `writes(..)`, nor `Children` in
    /// `defers(..)` (`defers(ChildOf)` is what `Commands::set_parent` needs).
    #[doc(hidden)]
    const __HIERARCHY: u8 = 0;
}

/// Type-level access: reads `T` (values, or membership for filters).
pub struct ReadOf<T: ?Sized>(PhantomData<fn() -> PhantomData<T>>);

/// Type-level access: writes `T`.
pub struct WriteOf<T: ?Sized>(PhantomData<fn() -> PhantomData<T>>);

/// Type-level access: sends events `E`.
pub struct SendOf<E: ?Sized>(PhantomData<fn() -> PhantomData<E>>);

/// Type-level access: receives events `E`.
pub struct ReceiveOf<E: ?Sized>(PhantomData<fn() -> PhantomData<E>>);

/// A type-level access list (`ReadOf<T>`, `WriteOf<T>`, `()`, tuples) every part of which the
/// system marker `S` declared. `#[system]` checks each parameter's list once, at the parameter.
pub trait AllowedBy<S> {}

impl<S: Reads<T>, T: ?Sized> AllowedBy<S> for ReadOf<T> {}
impl<S: Writes<T>, T: ?Sized> AllowedBy<S> for WriteOf<T> {}
impl<S: Sends<E>, E: ?Sized> AllowedBy<S> for SendOf<E> {}
impl<S: Receives<E>, E: ?Sized> AllowedBy<S> for ReceiveOf<E> {}
impl<S> AllowedBy<S> for () {}

macro_rules! impl_allowed_by_tuple {
    ($($A:ident),+) => {
        impl<S, $($A: AllowedBy<S>),+> AllowedBy<S> for ($($A,)+) {}
    };
}
impl_allowed_by_tuple!(A);
impl_allowed_by_tuple!(A, B);
impl_allowed_by_tuple!(A, B, C);
impl_allowed_by_tuple!(A, B, C, D);
impl_allowed_by_tuple!(A, B, C, D, E);
impl_allowed_by_tuple!(A, B, C, D, E, F);
impl_allowed_by_tuple!(A, B, C, D, E, F, G);
impl_allowed_by_tuple!(A, B, C, D, E, F, G, H);
impl_allowed_by_tuple!(A, B, C, D, E, F, G, H, I);
impl_allowed_by_tuple!(A, B, C, D, E, F, G, H, I, J);
impl_allowed_by_tuple!(A, B, C, D, E, F, G, H, I, J, K);
impl_allowed_by_tuple!(A, B, C, D, E, F, G, H, I, J, K, L);

/// A bundle every component of which system `S` may spawn through `Commands` (declared in
/// `defers(..)` or `writes(..)`).
pub trait BundleDefers<S>: Bundle {}

impl<S> BundleDefers<S> for () {}
macro_rules! impl_bundle_defers {
    ($($T:ident),+) => {
        impl<S, $($T: Component),+> BundleDefers<S> for ($($T,)+) where $(S: Defers<$T>),+ {}
    };
}
impl_bundle_defers!(A);
impl_bundle_defers!(A, B);
impl_bundle_defers!(A, B, C);
impl_bundle_defers!(A, B, C, D);
impl_bundle_defers!(A, B, C, D, E);
impl_bundle_defers!(A, B, C, D, E, F);
impl_bundle_defers!(A, B, C, D, E, F, G);
impl_bundle_defers!(A, B, C, D, E, F, G, H);
impl_bundle_defers!(A, B, C, D, E, F, G, H, I);
impl_bundle_defers!(A, B, C, D, E, F, G, H, I, J);
impl_bundle_defers!(A, B, C, D, E, F, G, H, I, J, K);
impl_bundle_defers!(A, B, C, D, E, F, G, H, I, J, K, L);
