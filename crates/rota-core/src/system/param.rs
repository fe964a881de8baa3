//! System parameters: `Query`, `Res`, `ResMut`, `Local`, `Commands` and `&Entities`.
//!
//! Each carries the system's marker type `S` (added by `#[system]`), and each accessor is
//! bounded on `S: Reads<T>` / `S: Writes<T>` — the compile-time half of the access contract.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use super::SystemContext;
use super::access::{QueryAccess, Reads, Unrestricted, Writes};
use crate::commands::Commands;
use crate::component::Resource;
use crate::entity::{Entities, Entity};
use crate::error::QueryGetError;
use crate::query::{Access, Borrows, QueryData, QueryIter, ReadOnlyQueryData, find_alias_runtime};

/// A value a system can take as a parameter.
///
/// `#[system]` adds the system's marker to `Query`, `Res`, `ResMut` and `Commands` written in the
/// signature; a type alias or wrapper hides them from it, so such a parameter does not implement
/// `SystemParam` for the system and is refused at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a parameter rota can check for system `{S}`",
    label = "not a checked system parameter",
    note = "write `Query<..>`, `Res<..>`, `ResMut<..>`, `Commands`, `Local<..>` or `&Entities` directly in the signature: `#[system]` tags them with the system's marker, which it cannot do through a type alias or a wrapper type"
)]
pub trait SystemParam<S>: Sized {
    /// State kept between runs (only `Local` has any).
    type State: Send + 'static;
    /// The parameter as the system body receives it.
    type Item<'w>;
    /// Fresh state.
    fn init_state() -> Self::State;
    /// Builds the parameter from what the system borrowed.
    fn fetch<'w>(context: &mut SystemContext<'w>, state: &'w mut Self::State) -> Self::Item<'w>;
    /// Whether this parameter records commands.
    const USES_COMMANDS: bool = false;
}

/// The query's type parameters, held without owning anything.
type QueryTypes<Q, F, S> = PhantomData<fn() -> (Q, F, S)>;

/// A system's query over the components it declared, in ascending slot order.
///
/// `Q` is the fetched data (`(&mut Position, &Velocity)`), `F` a filter (`With<T>`), `S` the
/// system marker `#[system]` fills in. Constructing it (only `SystemParam::fetch` can) requires
/// `Q: QueryAccess<S>`: every `&T` declared read, every `&mut T` declared written. The bound sits
/// on construction alone so an undeclared access is reported once, at the parameter.
pub struct Query<'w, Q: QueryData, F: QueryData = (), S = Unrestricted> {
    borrows: Borrows<'w>,
    _types: QueryTypes<Q, F, S>,
}

impl<'w, Q: QueryData, F: QueryData, S> Query<'w, Q, F, S> {
    /// Iterates the matches, mutably, in ascending slot order.
    pub fn iter_mut(&mut self) -> QueryIter<'_, Q, F> {
        QueryIter::new(self.borrows.reborrow())
    }

    /// Calls `f` on every match in ascending slot order.
    pub fn for_each(&mut self, f: impl FnMut(Q::Item<'_>)) {
        self.iter_mut().for_each(f)
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

impl<'w, Q: ReadOnlyQueryData, F: QueryData, S> Query<'w, Q, F, S> {
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

impl<'a, 'w, Q: QueryData, F: QueryData, S> IntoIterator for &'a mut Query<'w, Q, F, S> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, Q, F>;
    fn into_iter(self) -> QueryIter<'a, Q, F> {
        self.iter_mut()
    }
}

impl<Q, F, S> SystemParam<S> for Query<'static, Q, F, S>
where
    Q: QueryAccess<S>,
    F: QueryAccess<S>,
{
    type State = ();
    type Item<'w> = Query<'w, Q, F, S>;
    fn init_state() {}
    fn fetch<'w>(context: &mut SystemContext<'w>, _: &'w mut ()) -> Query<'w, Q, F, S> {
        let mut access: Vec<Access> = Vec::new();
        Q::access(&mut access);
        F::access(&mut access);
        if let Some(component) = find_alias_runtime(&access) {
            panic!(
                "system `{}`: a query names component `{component}` twice with a mutable access",
                context.system
            );
        }
        Query {
            borrows: context.stores.take(&access, context.system),
            _types: PhantomData,
        }
    }
}

/// Shared access to a resource the system declared in `reads(..)` (or `writes(..)`).
pub struct Res<'w, R: Resource, S = Unrestricted> {
    value: &'w R,
    _system: PhantomData<fn() -> S>,
}

impl<R: Resource, S> Deref for Res<'_, R, S> {
    type Target = R;
    fn deref(&self) -> &R {
        self.value
    }
}

impl<R: Resource, S: Reads<R>> SystemParam<S> for Res<'static, R, S> {
    type State = ();
    type Item<'w> = Res<'w, R, S>;
    fn init_state() {}
    fn fetch<'w>(context: &mut SystemContext<'w>, _: &'w mut ()) -> Res<'w, R, S> {
        match context.resources.shared::<R>() {
            Some(value) => Res {
                value,
                _system: PhantomData,
            },
            None => panic!(
                "system `{}` reads resource `{}`, which is not in the world",
                context.system,
                R::NAME
            ),
        }
    }
}

/// Exclusive access to a resource the system declared in `writes(..)`.
pub struct ResMut<'w, R: Resource, S = Unrestricted> {
    value: &'w mut R,
    _system: PhantomData<fn() -> S>,
}

impl<R: Resource, S> Deref for ResMut<'_, R, S> {
    type Target = R;
    fn deref(&self) -> &R {
        self.value
    }
}

impl<R: Resource, S> DerefMut for ResMut<'_, R, S> {
    fn deref_mut(&mut self) -> &mut R {
        self.value
    }
}

impl<R: Resource, S: Writes<R>> SystemParam<S> for ResMut<'static, R, S> {
    type State = ();
    type Item<'w> = ResMut<'w, R, S>;
    fn init_state() {}
    fn fetch<'w>(context: &mut SystemContext<'w>, _: &'w mut ()) -> ResMut<'w, R, S> {
        match context.resources.exclusive::<R>() {
            Some(value) => ResMut {
                value,
                _system: PhantomData,
            },
            None => panic!(
                "system `{}` writes resource `{}`, which is not in the world or is already borrowed by another parameter",
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

impl<S, T: Default + Send + 'static> SystemParam<S> for Local<'static, T> {
    type State = T;
    type Item<'w> = Local<'w, T>;
    fn init_state() -> T {
        T::default()
    }
    fn fetch<'w>(_: &mut SystemContext<'w>, state: &'w mut T) -> Local<'w, T> {
        Local { value: state }
    }
}

impl<S> SystemParam<S> for &'static Entities {
    type State = ();
    type Item<'w> = &'w Entities;
    fn init_state() {}
    fn fetch<'w>(context: &mut SystemContext<'w>, _: &'w mut ()) -> &'w Entities {
        context.stores.entities()
    }
}

impl<S: 'static> SystemParam<S> for Commands<'static, S> {
    type State = ();
    type Item<'w> = Commands<'w, S>;
    const USES_COMMANDS: bool = true;
    fn init_state() {}
    fn fetch<'w>(context: &mut SystemContext<'w>, _: &'w mut ()) -> Commands<'w, S> {
        Commands::for_system(context.stores.entities(), context.sink)
    }
}
