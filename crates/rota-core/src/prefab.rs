//! `Prefab`: a named bundle of component values to stamp out entities from.
//!
//! A prefab is a plain value. Instances copy its components and keep no link back: changing or
//! dropping the prefab later changes no entity, and an entity made from it is like any other.
//! It is typed by its bundle, so instantiating one from a system goes through the same
//! `BundleDefers<S>` bound as `Commands::spawn`: a system can only stamp out components it
//! declared in `defers(..)` or `writes(..)`.

use crate::access_markers::BundleDefers;
use crate::bundle::{Bundle, refuse_duplicates};
use crate::commands::Commands;
use crate::entity::Entity;
use crate::error::SpawnError;
use crate::world::World;

/// A named set of component values (a bundle, `B`) to instantiate entities from, with
/// per-instance overrides of whole components or single fields.
///
/// ```
/// use rota::{Component, Prefab, World};
///
/// #[derive(Component, Clone)]
/// struct Hp(u32);
/// #[derive(Component, Clone)]
/// struct Speed { walk: f32, run: f32 }
///
/// let goblin = Prefab::new("goblin", (Hp(10), Speed { walk: 1.0, run: 3.0 }));
/// let mut world = World::new();
/// let plain = world.instantiate(&goblin, |_| {})?;
/// let boss = world.instantiate(&goblin, |(hp, speed)| {
///     *hp = Hp(50);        // a whole component
///     speed.run = 5.0;     // a single field
/// })?;
/// assert_eq!(world.get::<Hp>(plain).unwrap().0, 10);
/// assert_eq!(world.get::<Hp>(boss).unwrap().0, 50);
/// assert_eq!(world.get::<Speed>(boss).unwrap().walk, 1.0);
/// # Ok::<(), rota::SpawnError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Prefab<B> {
    name: String,
    bundle: B,
}

impl<B: Bundle + Clone> Prefab<B> {
    /// A prefab called `name` whose instances start as copies of `bundle`.
    ///
    /// A bundle naming a component type with a `UNIQUE_KEY` (any non-generic derived type)
    /// twice does not build (see [`Bundle`]).
    ///
    /// # Panics
    ///
    /// If `bundle` names a generic component type twice, naming the prefab and the type: a
    /// prefab is a definition, written once, so the mistake is reported where it is made rather
    /// than at every instance (and every prefab can then be instantiated, so
    /// [`World::instantiate`] fails only for lack of room).
    #[track_caller]
    pub fn new(name: impl Into<String>, bundle: B) -> Prefab<B> {
        let () = B::DISTINCT_KEYED_TYPES;
        let name = name.into();
        if let Err(err) = refuse_duplicates::<B>() {
            panic!("Prefab::new: prefab `{name}`: {err}");
        }
        Prefab { name, bundle }
    }

    /// The prefab's name (for tools and messages; instances do not record it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The component values instances start from.
    pub fn bundle(&self) -> &B {
        &self.bundle
    }

    /// A variant of this prefab: a copy with `overrides` applied, under a new name.
    pub fn variant(&self, name: impl Into<String>, overrides: impl FnOnce(&mut B)) -> Prefab<B> {
        Prefab {
            name: name.into(),
            bundle: self.build(overrides),
        }
    }

    /// The bundle one instance gets: a copy of the prefab's values with `overrides` applied.
    pub fn build(&self, overrides: impl FnOnce(&mut B)) -> B {
        let mut bundle = self.bundle.clone();
        overrides(&mut bundle);
        bundle
    }
}

impl World {
    /// Spawns an instance of `prefab` with `overrides` applied to its copy of the values.
    ///
    /// # Errors
    ///
    /// [`SpawnError`] if no slot is left or memory runs out; the world is unchanged. (Never
    /// [`SpawnError::DuplicateComponent`]: [`Prefab::new`] refuses such a bundle.)
    pub fn instantiate<B: Bundle + Clone>(
        &mut self,
        prefab: &Prefab<B>,
        overrides: impl FnOnce(&mut B),
    ) -> Result<Entity, SpawnError> {
        self.try_spawn_with(prefab.build(overrides))
    }
}

impl<S> Commands<'_, S> {
    /// Reserves an entity now and records spawning an instance of `prefab` with `overrides`
    /// applied. In a system, every component of the prefab must be declared in `defers(..)`
    /// or `writes(..)`, as for [`Commands::spawn`].
    ///
    /// # Errors
    ///
    /// [`SpawnError::SlotsExhausted`] if no slot is left; nothing is recorded.
    pub fn instantiate<B: Bundle + Clone + BundleDefers<S>>(
        &mut self,
        prefab: &Prefab<B>,
        overrides: impl FnOnce(&mut B),
    ) -> Result<Entity, SpawnError> {
        self.try_spawn(prefab.build(overrides))
    }
}
