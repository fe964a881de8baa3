//! `SceneComponent`: what `#[derive(Scene)]` implements — a stable key, fields addressed by
//! stable ids, retired ids — and the readers and writers its generated code calls.
//!
//! # Migration rules (applied per component of every entity, before anything is written)
//!
//! * A field the type declares but the file lacks (added since the save) gets
//!   [`SceneField::added_default`]; a type without one (`Entity`) is refused as missing.
//! * A field id the type lists in `retired(..)` (removed since the save) is dropped.
//! * A field id the type neither declares nor retired is refused ([`LoadError::UnknownField`]).
//! * A field whose saved type differs is refused, naming both ([`LoadError::FieldTypeChanged`]).

use rota_core::{Component, Entity};

use crate::error::{LoadError, SaveError};
use crate::ids::{EntityIds, EntityMap};
use crate::value::{FieldError, SceneField, Value};

/// One field of a scene component: its stable id, its Rust name (documentation only: the file
/// never holds it) and its type name.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FieldInfo {
    /// The stable id the file addresses the field by.
    pub id: u32,
    /// The field's Rust name, or its position for tuple structs.
    pub name: &'static str,
    /// [`SceneField::TYPE`] of the field.
    pub ty: &'static str,
}

/// A component that can be saved in scenes. Derive it: `#[derive(Component, Clone, Scene)]` with
/// `#[scene(key = "..")]` on the type and `#[scene(id = N)]` on every field; the derive refuses
/// missing, duplicate and retired ids at compile time.
///
/// ```
/// use rota::{Component, Scene};
///
/// #[derive(Component, Clone, Scene)]
/// #[scene(key = "game.Health", retired(2))] // field 2 (`regen`) was removed in version 2
/// struct Health {
///     #[scene(id = 1)]
///     current: u32,
///     #[scene(id = 3)]
///     max: u32,
/// }
/// # use rota::__private::scene::SceneComponent;
/// assert_eq!(Health::KEY, "game.Health");
/// assert_eq!(Health::RETIRED, [2]);
/// ```
pub trait SceneComponent: Component {
    /// The stable key the file names this component by. Keep it when the type is renamed or
    /// moved.
    const KEY: &'static str;
    /// The fields, in declaration order.
    const FIELDS: &'static [FieldInfo];
    /// Ids of removed fields: dropped on load, never to be used again.
    const RETIRED: &'static [u32];

    /// Writes every field (generated).
    ///
    /// # Errors
    ///
    /// [`SaveError::ReferenceOutsideScene`] for an `Entity` field naming a dead entity.
    fn save_fields(&self, out: &mut FieldsOut<'_, '_>) -> Result<(), SaveError>;

    /// Reads every field (generated), applying the migration rules.
    ///
    /// # Errors
    ///
    /// The [`LoadError`] naming the entity, the component and the field.
    fn load_fields(input: &mut FieldsIn<'_>) -> Result<Self, LoadError>;
}

/// Where a component's fields are written while saving.
#[derive(Debug)]
pub struct FieldsOut<'a, 'w> {
    pub(crate) ids: &'a EntityIds<'w>,
    pub(crate) entity: Entity,
    pub(crate) component: &'static str,
    pub(crate) fields: Vec<(u32, Value)>,
}

impl FieldsOut<'_, '_> {
    /// Writes field `id`.
    ///
    /// # Errors
    ///
    /// [`SaveError::ReferenceOutsideScene`] if the value references a dead entity.
    pub fn field<T: SceneField>(&mut self, id: u32, value: &T) -> Result<(), SaveError> {
        let value =
            value
                .to_value(self.ids)
                .map_err(|target| SaveError::ReferenceOutsideScene {
                    entity: self.entity,
                    component: self.component,
                    field: id,
                    target,
                })?;
        self.fields.push((id, value));
        Ok(())
    }
}

/// A component's fields as the file holds them, read by generated code.
#[derive(Debug)]
pub struct FieldsIn<'a> {
    pub(crate) map: &'a EntityMap,
    pub(crate) entity: u64,
    pub(crate) component: &'static str,
    /// Checked: no duplicate, every id declared or retired; retired ones already dropped.
    pub(crate) fields: Vec<(u32, Value)>,
    pub(crate) defaulted: usize,
}

impl FieldsIn<'_> {
    /// Reads field `id` as a `T`, or its default if the file lacks it.
    ///
    /// # Errors
    ///
    /// [`LoadError::FieldTypeChanged`], [`LoadError::UnknownEntity`] or
    /// [`LoadError::MissingField`], naming the entity, component and field.
    pub fn field<T: SceneField>(&mut self, id: u32) -> Result<T, LoadError> {
        let Some(at) = self.fields.iter().position(|(f, _)| *f == id) else {
            self.defaulted += 1;
            return T::added_default().ok_or(LoadError::MissingField {
                entity: self.entity,
                component: self.component,
                field: id,
                ty: T::TYPE,
            });
        };
        let (_, value) = self.fields.swap_remove(at);
        T::from_value(value, self.map).map_err(|e| match e {
            FieldError::WrongType { found } => LoadError::FieldTypeChanged {
                entity: self.entity,
                component: self.component,
                field: id,
                saved: found,
                expected: T::TYPE,
            },
            FieldError::UnknownEntity(target) => LoadError::UnknownEntity {
                entity: self.entity,
                component: self.component,
                field: id,
                target,
            },
        })
    }
}
