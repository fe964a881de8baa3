//! `Bundle`: a tuple of components spawned or inserted together, and the refusal of a bundle
//! that names one component type twice.
//!
//! # One value per type
//!
//! An entity holds at most one value of each component type, so a bundle naming a type twice
//! would lose one of its values. It is refused before anything changes, at two levels:
//!
//! * at compile time, for types with a [`Component::UNIQUE_KEY`] (every non-generic derived
//!   type): every public entry that takes a bundle evaluates
//!   [`Bundle::DISTINCT_KEYED_TYPES`], whose `const` panic names the type. It is evaluated
//!   when the entry is instantiated for the bundle's type, so `cargo build` and `cargo test`
//!   report it and `cargo check` does not (the same holds for every post-monomorphization
//!   error);
//! * at run time, by `TypeId`, for every type (a generic type has no key):
//!   [`refuse_duplicates`], once per call (per batch, not per entity), before the bundle
//!   reaches a store. Each entry turns it into its own error or panic.
//!
//! So the spawn paths below never see a repeated type, and each store of a bundle is a
//! different one ([`Bundle::columns`] borrows them all at once).

use std::any::TypeId;

use crate::component::Component;
use crate::const_text::{ConstMessage, str_eq};
use crate::entity::Entity;
use crate::error::{SpawnError, StoreError};
use crate::store::Appender;
use crate::world::{StoreEntry, World, downcast_mut};

/// A tuple of up to 12 components, spawned together by `World::spawn_with`, `spawn_batch` and
/// `Commands::spawn`. `()` is the empty bundle.
///
/// A bundle names each component type at most once. One that names a type twice is refused
/// before anything changes: the program does not build if the type has a `UNIQUE_KEY`
/// (every non-generic derived component), and the spawn fails naming the type otherwise
/// ([`SpawnError::DuplicateComponent`]; each entry point says how it reports it).
///
/// This trait is implemented for tuples only; its items are rota's plumbing.
pub trait Bundle: Send + 'static {
    /// Each component's `(NAME, UNIQUE_KEY)`, in bundle order.
    #[doc(hidden)]
    const KEYS: &'static [(&'static str, Option<&'static str>)];

    /// Fails the build if the bundle names a type with a [`Component::UNIQUE_KEY`] twice: a
    /// `const` panic naming the type, evaluated where an entry point taking the bundle is
    /// instantiated (`let () = B::DISTINCT_KEYED_TYPES;`). Written here, not in the tuple
    /// impls' macro, so that the compile error quotes this line rather than a macro expansion.
    #[doc(hidden)]
    const DISTINCT_KEYED_TYPES: () = if let Some(name) = first_repeated_key(Self::KEYS) {
        panic!("{}", named_twice(name).as_str())
    };

    /// The name of the first component type the bundle names twice, compared by `TypeId`
    /// (so generic types too), or `None`.
    #[doc(hidden)]
    fn duplicate_type() -> Option<&'static str>;

    /// The bundle's store positions in `World::stores`, in bundle order (`[usize; N]`).
    #[doc(hidden)]
    type Indices: AsRef<[usize]> + Copy;

    /// Each component's store, typed: looked up and downcast once per batch.
    #[doc(hidden)]
    type Columns<'s>;

    /// Registers every component's store and returns their positions in bundle order.
    #[doc(hidden)]
    fn register(world: &mut World) -> Self::Indices;

    /// Reserves room for `additional` values in every store of the bundle.
    #[doc(hidden)]
    fn reserve(stores: &mut [StoreEntry], indices: &Self::Indices, additional: usize);

    /// The typed stores, borrowed together.
    ///
    /// # Panics
    ///
    /// If two of `indices` are equal: a bundle naming a type twice, which every entry point
    /// refuses before it gets here (`refuse_duplicates`).
    #[doc(hidden)]
    fn columns<'s>(stores: &'s mut [StoreEntry], indices: &Self::Indices) -> Self::Columns<'s>;

    /// Appends the components for `entity`, whose slot no store holds (a fresh entity).
    #[doc(hidden)]
    fn push(self, columns: &mut Self::Columns<'_>, entity: Entity);

    /// Appends the components alone; `attach` gives them their entity later.
    #[doc(hidden)]
    fn push_values(self, columns: &mut Self::Columns<'_>);

    /// Gives the values appended by `push_values` their entities, in order, one column at a
    /// time; values beyond `entities` are dropped. No store may hold a slot of `entities`;
    /// the slots of `entities[..ascending]` strictly ascend. On an error, the columns before
    /// the one that failed (their number is returned with it) hold the entities, the others
    /// none.
    #[doc(hidden)]
    fn attach(
        columns: &mut Self::Columns<'_>,
        entities: &[Entity],
        ascending: usize,
    ) -> Result<(), (usize, StoreError)>;

    /// Reads the entries `push` will write for an entity at `slot` and returns a value made of
    /// them: a read ahead that brings them into the cache (see `read_ahead.rs`).
    #[doc(hidden)]
    fn touch(columns: &Self::Columns<'_>, slot: u32) -> u64;

    /// Makes both halves of each registered store of the bundle the world's own (copied, with
    /// the components' `Clone`, if a snapshot shares them), changing nothing else: called
    /// before a spawn changes anything, so that a `Clone` panicking in the copy leaves the world
    /// as it was. Types not registered yet have no store to copy.
    #[doc(hidden)]
    fn own_columns(world: &mut World);

    /// Calls `each` with every component's `TypeId` and name, in bundle order (what a
    /// system's `Commands` checks against its declarations).
    #[doc(hidden)]
    fn types(each: &mut dyn FnMut(TypeId, &'static str));
}

/// Refuses a bundle type that names one component type twice, by `TypeId`: the run-time half of
/// the check (see the module docs), the only one that sees generic types (they have no
/// `UNIQUE_KEY`). Called once per call of an entry point, before the bundle reaches a store;
/// the `TypeId`s compared are constants of the bundle type, so an optimized build folds the
/// whole check to its answer (seen in the assembly of a copy of `first_repeat` over three
/// distinct types, rustc 1.95 `--release --emit asm`: `mov $1, %al; ret`).
///
/// # Errors
///
/// [`SpawnError::DuplicateComponent`] naming the type.
pub(crate) fn refuse_duplicates<B: Bundle>() -> Result<(), SpawnError> {
    match B::duplicate_type() {
        Some(component) => Err(SpawnError::DuplicateComponent { component }),
        None => Ok(()),
    }
}

/// The name of the first type in `types` that appears twice (by `TypeId`).
fn first_repeat(types: &[(TypeId, &'static str)]) -> Option<&'static str> {
    types
        .iter()
        .enumerate()
        .find(|&(k, (id, _))| types[..k].iter().any(|(earlier, _)| earlier == id))
        .map(|(_, &(_, name))| name)
}

/// The compile-time refusal's message, naming the type.
const fn named_twice(name: &str) -> ConstMessage {
    ConstMessage::concat(&[
        "a bundle names the component type `",
        name,
        "` twice; an entity holds one value per type: name each type once",
    ])
}

/// The compile-time half of the check: the name of the first type of `types` (`(NAME,
/// UNIQUE_KEY)` in bundle order) whose key appears earlier too. Types without a key are left
/// to `refuse_duplicates`.
const fn first_repeated_key(
    types: &[(&'static str, Option<&'static str>)],
) -> Option<&'static str> {
    let mut later = 1;
    while later < types.len() {
        if let (name, Some(key)) = types[later] {
            let mut earlier = 0;
            while earlier < later {
                if let Some(other) = types[earlier].1
                    && str_eq(key, other)
                {
                    return Some(name);
                }
                earlier += 1;
            }
        }
        later += 1;
    }
    None
}

impl Bundle for () {
    const KEYS: &'static [(&'static str, Option<&'static str>)] = &[];
    fn duplicate_type() -> Option<&'static str> {
        None
    }
    type Indices = [usize; 0];
    type Columns<'s> = ();
    fn register(_: &mut World) -> [usize; 0] {
        []
    }
    fn reserve(_: &mut [StoreEntry], _: &[usize; 0], _: usize) {}
    fn columns(_: &mut [StoreEntry], _: &[usize; 0]) {}
    fn push(self, _: &mut (), _: Entity) {}
    fn push_values(self, _: &mut ()) {}
    fn attach(_: &mut (), _: &[Entity], _: usize) -> Result<(), (usize, StoreError)> {
        Ok(())
    }
    fn touch(_: &(), _: u32) -> u64 {
        0
    }
    fn own_columns(_: &mut World) {}
    fn types(_: &mut dyn FnMut(TypeId, &'static str)) {}
}

macro_rules! impl_bundle {
    ($(($T:ident, $i:tt)),+) => {
        impl<$($T: Component),+> Bundle for ($($T,)+) {
            const KEYS: &'static [(&'static str, Option<&'static str>)] =
                &[$(($T::NAME, $T::UNIQUE_KEY)),+];
            fn duplicate_type() -> Option<&'static str> {
                first_repeat(&[$((TypeId::of::<$T>(), $T::NAME)),+])
            }
            type Indices = [usize; [$($i),+].len()];
            type Columns<'s> = ($(Appender<'s, $T>,)+);

            fn register(world: &mut World) -> Self::Indices {
                [$(world.register::<$T>()),+]
            }
            fn types(each: &mut dyn FnMut(TypeId, &'static str)) {
                $(each(TypeId::of::<$T>(), $T::NAME);)+
            }
            fn reserve(stores: &mut [StoreEntry], indices: &Self::Indices, additional: usize) {
                // A failed reservation is not an error here: inserts grow as needed.
                $(
                    let _ = downcast_mut::<$T>(&mut *stores[indices[$i]].store)
                        .try_reserve(additional);
                )+
            }
            #[allow(non_snake_case)] // the bindings are named after the type they hold
            fn columns<'s>(
                stores: &'s mut [StoreEntry],
                indices: &Self::Indices,
            ) -> Self::Columns<'s> {
                let [$($T),+] = stores
                    .get_disjoint_mut(*indices)
                    .expect("a bundle's types are distinct: refused before any spawn");
                ($(downcast_mut::<$T>(&mut *$T.store).appender(),)+)
            }
            #[inline]
            fn push(self, columns: &mut Self::Columns<'_>, entity: Entity) {
                $(columns.$i.push(entity, self.$i);)+
            }
            #[inline]
            fn push_values(self, columns: &mut Self::Columns<'_>) {
                $(columns.$i.push_value(self.$i);)+
            }
            fn attach(
                columns: &mut Self::Columns<'_>,
                entities: &[Entity],
                ascending: usize,
            ) -> Result<(), (usize, StoreError)> {
                $(columns.$i.attach(entities, ascending).map_err(|e| ($i, e))?;)+
                Ok(())
            }
            #[inline]
            fn touch(columns: &Self::Columns<'_>, slot: u32) -> u64 {
                0 $(^ columns.$i.touch(slot))+
            }
            fn own_columns(world: &mut World) {
                $(
                    if let Some(store) = world.store_mut::<$T>() {
                        store.own_columns();
                    }
                )+
            }
        }
    };
}

impl_bundle!((A, 0));
impl_bundle!((A, 0), (B, 1));
impl_bundle!((A, 0), (B, 1), (C, 2));
impl_bundle!((A, 0), (B, 1), (C, 2), (D, 3));
impl_bundle!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4));
impl_bundle!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4), (F, 5));
impl_bundle!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4), (F, 5), (G, 6));
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7)
);
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8)
);
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9)
);
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9),
    (K, 10)
);
impl_bundle!(
    (A, 0),
    (B, 1),
    (C, 2),
    (D, 3),
    (E, 4),
    (F, 5),
    (G, 6),
    (H, 7),
    (I, 8),
    (J, 9),
    (K, 10),
    (L, 11)
);
