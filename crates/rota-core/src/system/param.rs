//! System parameters: `Query`, `Res`, `ResMut`, `Local`, `Commands` and `&Entities`, and the
//! sealed [`SystemParam`] trait that describes what each one touches.
//!
//! # How a parameter is checked
//!
//! Every parameter type states its accesses twice: as a type-level list
//! ([`SystemParam::Access`], e.g. `(WriteOf<Position>, ReadOf<Velocity>)`) and as a `const`
//! tree ([`SystemParam::ACCESS`]). `#[system]` requires `Access: AllowedBy<marker>` once per
//! parameter — so an undeclared access is one error, at the parameter, naming the system and the
//! type — and evaluates one `const` per parameter that refuses aliasing with the earlier ones.
//! Both are found **by type**, through aliases, `use .. as`, and macros. The trait is sealed:
//! the only parameters are rota's own and `#[derive(SystemParam)]` structs composing them.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::SystemContext;
use crate::access_markers::{ReadOf, ReceiveOf, SendOf, SystemMarker, WriteOf};
use crate::commands::Commands;
use crate::component::Resource;
use crate::entity::{Entities, Entity};
use crate::error::QueryGetError;
use crate::event::{Event, EventReader, EventWriter, Events};
use crate::query::{
    Access, Borrows, ConstAccess, Mode, QueryData, QueryIter, ReadOnlyQueryData, Space,
};

#[doc(hidden)]
pub mod sealed {
    /// Seals [`SystemParam`](super::SystemParam): implemented by rota's parameters and by
    /// `#[derive(SystemParam)]` (through `rota::__private`). Not an API.
    pub trait ParamSeal {}
}
use sealed::ParamSeal;

/// A value a system can take as a parameter: rota's own (`Query`, `Res`, `ResMut`, `Local`,
/// `Commands`, `&Entities`) or a `#[derive(SystemParam)]` struct of them.
///
/// Sealed: a parameter cannot be implemented by hand, so every parameter's access is a
/// composition of accesses rota checks.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system parameter",
    label = "not a system parameter",
    note = "system parameters are `Query<..>`, `Res<..>`, `ResMut<..>`, `Commands`, `Local<..>`, `&Entities`, or a struct with `#[derive(SystemParam)]` composing them"
)]
pub trait SystemParam: ParamSeal + Sized {
    /// State kept between runs (`Local` values, a query's access list).
    type State: Send + 'static;
    /// The parameter as the body of system `S` receives it.
    type Item<'w, S>;
    /// The accesses as a type-level list, checked against the system's declarations.
    type Access;
    /// The accesses as a tree a `const` can inspect (compile-time aliasing checks).
    const ACCESS: ConstAccess;
    /// How many `Commands` buffers this parameter holds (a system may hold at most one: two
    /// would reserve the same entities).
    const COMMANDS: u32 = 0;
    /// Appends this parameter's accesses (for checks by `TypeId`).
    fn access(out: &mut Vec<Access>);
    /// Fresh state.
    fn init_state() -> Self::State;
    /// Builds the parameter from what the system borrowed, for the system whose marker is `S`
    /// (only `#[system]` markers are [`SystemMarker`]s).
    fn fetch<'w, S: SystemMarker>(
        context: &mut SystemContext<'w>,
        state: &'w mut Self::State,
    ) -> Self::Item<'w, S>;
}

/// A system's query over the components it declared, in ascending slot order.
///
/// `Q` is the fetched data (`(&mut Position, &Velocity)`), `F` a filter (`With<T>`). In a
/// system, every `&T` must be declared read and every `&mut T` written — checked once, at the
/// parameter.
pub struct Query<'w, Q, F = ()> {
    borrows: Borrows<'w>,
    _types: PhantomData<fn() -> (Q, F)>,
}

impl<'w, Q: QueryData, F: QueryData> Query<'w, Q, F> {
    /// Iterates the matches, mutably, in ascending slot order.
    pub fn iter_mut(&mut self) -> QueryIter<'_, Q, F> {
        QueryIter::new(self.borrows.reborrow())
    }

    /// [`Query::iter_mut`] before its first run, so that it can be cut into
    /// [`segments`](QueryIter::segments) (see [`QueryIter::unstarted`]).
    #[doc(hidden)]
    pub fn unstarted_mut(&mut self) -> QueryIter<'_, Q, F> {
        QueryIter::unstarted(self.borrows.reborrow())
    }

    /// Calls `f` on every match in ascending slot order.
    pub fn for_each(&mut self, f: impl FnMut(Q::Item<'_>)) {
        self.iter_mut().for_each(f)
    }

    /// Calls `f` on every run of matches as plain slices; see [`QueryIter::for_each_run`].
    pub fn for_each_run(&mut self, f: impl FnMut(&[Entity], Q::Slices<'_>)) {
        self.iter_mut().for_each_run(f)
    }

    /// The item for one entity, mutably.
    ///
    /// # Errors
    ///
    /// [`QueryGetError`]: dead entity, or the component it lacks.
    pub fn get_mut(&mut self, entity: Entity) -> Result<Q::Item<'_>, QueryGetError> {
        QueryIter::<Q, F>::get_one(self.borrows.reborrow(), entity)
    }

    /// The entity allocator (read-only), e.g. to check liveness of stored handles.
    pub fn entities(&self) -> &Entities {
        self.borrows.entities()
    }
}

impl<'w, Q: ReadOnlyQueryData, F: QueryData> Query<'w, Q, F> {
    /// Iterates the matches in ascending slot order.
    pub fn iter(&self) -> QueryIter<'_, Q, F> {
        QueryIter::new(self.borrows.reborrow_shared())
    }

    /// The item for one entity.
    ///
    /// # Errors
    ///
    /// [`QueryGetError`]: dead entity, or the component it lacks.
    pub fn get(&self, entity: Entity) -> Result<Q::Item<'_>, QueryGetError> {
        QueryIter::<Q, F>::get_one(self.borrows.reborrow_shared(), entity)
    }
}

impl<'a, 'w, Q: QueryData, F: QueryData> IntoIterator for &'a mut Query<'w, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, Q, F>;
    fn into_iter(self) -> QueryIter<'a, Q, F> {
        self.iter_mut()
    }
}

impl<'a, 'w, Q: ReadOnlyQueryData, F: QueryData> IntoIterator for &'a Query<'w, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, Q, F>;
    fn into_iter(self) -> QueryIter<'a, Q, F> {
        self.iter()
    }
}

impl<Q: QueryData, F: QueryData> ParamSeal for Query<'_, Q, F> {}
impl<Q: QueryData, F: QueryData> SystemParam for Query<'_, Q, F> {
    /// The query's access list, computed once.
    type State = Box<[Access]>;
    type Item<'w, S> = Query<'w, Q, F>;
    type Access = (Q::Access, F::Access);
    const ACCESS: ConstAccess = ConstAccess::List(&[Q::ACCESS, F::ACCESS]);
    fn access(out: &mut Vec<Access>) {
        Q::access(out);
        F::access(out);
    }
    fn init_state() -> Box<[Access]> {
        let mut access = Vec::new();
        Self::access(&mut access);
        access.into_boxed_slice()
    }
    fn fetch<'w, S: SystemMarker>(
        context: &mut SystemContext<'w>,
        access: &'w mut Box<[Access]>,
    ) -> Query<'w, Q, F> {
        Query {
            borrows: context.stores.take(access, context.system),
            _types: PhantomData,
        }
    }
}

const fn resource_leaf<R: Resource>(mode: Mode) -> ConstAccess {
    ConstAccess::Leaf {
        name: R::NAME,
        key: R::UNIQUE_KEY,
        space: Space::Resource,
        mode,
    }
}

fn resource_access<R: Resource>(mode: Mode) -> Access {
    Access {
        type_id: std::any::TypeId::of::<R>(),
        name: R::NAME,
        space: Space::Resource,
        mode,
        registry_key: 0,
    }
}

/// Shared access to a resource the system declared in `reads(..)` (or `writes(..)`).
pub struct Res<'w, R: Resource> {
    value: &'w R,
}

impl<R: Resource> Deref for Res<'_, R> {
    type Target = R;
    fn deref(&self) -> &R {
        self.value
    }
}

impl<R: Resource> ParamSeal for Res<'_, R> {}
impl<R: Resource> SystemParam for Res<'_, R> {
    type State = ();
    type Item<'w, S> = Res<'w, R>;
    type Access = ReadOf<R>;
    const ACCESS: ConstAccess = resource_leaf::<R>(Mode::Read);
    fn access(out: &mut Vec<Access>) {
        out.push(resource_access::<R>(Mode::Read));
    }
    fn init_state() {}
    fn fetch<'w, S: SystemMarker>(context: &mut SystemContext<'w>, _: &'w mut ()) -> Res<'w, R> {
        match context.resources.shared::<R>() {
            Some(value) => Res { value },
            None => panic!(
                "system `{}` reads resource `{}`, which is not in the world (insert it with `World::insert_resource` before running the system)",
                context.system,
                R::NAME
            ),
        }
    }
}

/// Exclusive access to a resource the system declared in `writes(..)`.
pub struct ResMut<'w, R: Resource> {
    value: &'w mut R,
}

impl<R: Resource> Deref for ResMut<'_, R> {
    type Target = R;
    fn deref(&self) -> &R {
        self.value
    }
}

impl<R: Resource> DerefMut for ResMut<'_, R> {
    fn deref_mut(&mut self) -> &mut R {
        self.value
    }
}

impl<R: Resource> ParamSeal for ResMut<'_, R> {}
impl<R: Resource> SystemParam for ResMut<'_, R> {
    type State = ();
    type Item<'w, S> = ResMut<'w, R>;
    type Access = WriteOf<R>;
    const ACCESS: ConstAccess = resource_leaf::<R>(Mode::Write);
    fn access(out: &mut Vec<Access>) {
        out.push(resource_access::<R>(Mode::Write));
    }
    fn init_state() {}
    fn fetch<'w, S: SystemMarker>(context: &mut SystemContext<'w>, _: &'w mut ()) -> ResMut<'w, R> {
        match context.resources.exclusive::<R>() {
            Some(value) => ResMut { value },
            None => panic!(
                "system `{}` writes resource `{}`, which is not in the world (insert it with `World::insert_resource` before running the system)",
                context.system,
                R::NAME
            ),
        }
    }
}

/// Per-system state that persists between runs of a schedule (starts as `T::default()`).
/// It belongs to the system alone, so it needs no declaration.
pub struct Local<'s, T> {
    value: &'s mut T,
}

impl<T> Deref for Local<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> DerefMut for Local<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value
    }
}

impl<T: Default + Send + 'static> ParamSeal for Local<'_, T> {}
impl<T: Default + Send + 'static> SystemParam for Local<'_, T> {
    type State = T;
    type Item<'w, S> = Local<'w, T>;
    type Access = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init_state() -> T {
        T::default()
    }
    fn fetch<'w, S: SystemMarker>(_: &mut SystemContext<'w>, state: &'w mut T) -> Local<'w, T> {
        Local { value: state }
    }
}

impl ParamSeal for &Entities {}
impl SystemParam for &Entities {
    type State = ();
    type Item<'w, S> = &'w Entities;
    type Access = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init_state() {}
    fn fetch<'w, S: SystemMarker>(context: &mut SystemContext<'w>, _: &'w mut ()) -> &'w Entities {
        context.stores.entities()
    }
}

impl<M> ParamSeal for Commands<'_, M> {}
/// A system's `Commands` are typed by the system: `insert`, `remove` and `spawn` compile only
/// for components it declares in `defers(..)` or `writes(..)`, and `queue` (arbitrary world
/// access) is not offered.
impl<M> SystemParam for Commands<'_, M> {
    type State = ();
    type Item<'w, S> = Commands<'w, S>;
    type Access = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    const COMMANDS: u32 = 1;
    fn access(_: &mut Vec<Access>) {}
    fn init_state() {}
    fn fetch<'w, S: SystemMarker>(
        context: &mut SystemContext<'w>,
        _: &'w mut (),
    ) -> Commands<'w, S> {
        // `#[system]` records a `Commands` in the descriptor it orders the system by (two
        // systems that record them never share a batch); a hand-built system may not.
        let Some(defers) = &context.grant.defers else {
            panic!(
                "system `{}` fetched a `Commands` that its descriptor does not record",
                context.system
            );
        };
        Commands::for_system(
            context.stores.entities(),
            context.sink,
            context.grant.system,
            Arc::clone(defers),
        )
    }
}

impl<E: Event> ParamSeal for EventWriter<'_, E> {}
/// Sends `E` (declared in `sends(..)`); buffered until the batch ends. Two writers never alias.
impl<E: Event> SystemParam for EventWriter<'_, E> {
    type State = ();
    type Item<'w, S> = EventWriter<'w, E>;
    type Access = SendOf<E>;
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init_state() {}
    fn fetch<'w, S: SystemMarker>(
        context: &mut SystemContext<'w>,
        _: &'w mut (),
    ) -> EventWriter<'w, E> {
        if !context
            .grant
            .sends
            .contains(&std::any::TypeId::of::<Events<E>>())
        {
            panic!(
                "system `{}` sends event `{}` but its descriptor does not declare it in `sends(..)`",
                context.system,
                E::NAME
            );
        }
        EventWriter::new(context.sink)
    }
}

impl<E: Event> ParamSeal for EventReader<'_, E> {}
/// Receives `E` (declared in `receives(..)`) through the system's own cursor.
impl<E: Event> SystemParam for EventReader<'_, E> {
    type State = ();
    type Item<'w, S> = EventReader<'w, E>;
    type Access = ReceiveOf<E>;
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init_state() {}
    fn fetch<'w, S: SystemMarker>(
        context: &mut SystemContext<'w>,
        _: &'w mut (),
    ) -> EventReader<'w, E> {
        let key = context.next_reader(std::any::TypeId::of::<Events<E>>());
        let channel = context.resources.shared::<Events<E>>();
        EventReader::new(channel, key, context.sink)
    }
}
