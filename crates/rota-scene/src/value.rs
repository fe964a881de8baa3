//! Field values as the file holds them: a [`Value`] tagged with its type, and [`SceneField`],
//! the types a scene field may have.
//!
//! The tag is what makes a retyped field detectable: a value saved as `U32(3)` loaded into an
//! `f32` field is refused, naming both types, instead of being reinterpreted. Entity references
//! have their own tags (`Entity`, `OptEntity`), so only they are remapped on load: a `U64` that
//! happens to hold an entity's bits is a number.

use rota_core::Entity;
use serde::{Deserialize, Serialize};

use crate::ids::{EntityIds, EntityMap};

/// One field's value in a scene file, tagged with its type (`F32(1.5)`, `Entity(3)`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// `u8`.
    U8(u8),
    /// `u16`.
    U16(u16),
    /// `u32`.
    U32(u32),
    /// `u64`.
    U64(u64),
    /// `i8`.
    I8(i8),
    /// `i16`.
    I16(i16),
    /// `i32`.
    I32(i32),
    /// `i64`.
    I64(i64),
    /// `f32` (NaN loads as the canonical NaN; every other value round-trips bit for bit).
    F32(f32),
    /// `f64` (as `F32`).
    F64(f64),
    /// `String`.
    Str(String),
    /// `Entity`: the scene id of an entity of the same scene.
    Entity(u64),
    /// `Option<Entity>`: a scene id or nothing.
    OptEntity(Option<u64>),
}

impl Value {
    /// The Rust type this value was saved from (`"f32"`, `"Entity"`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::U8(_) => "u8",
            Value::U16(_) => "u16",
            Value::U32(_) => "u32",
            Value::U64(_) => "u64",
            Value::I8(_) => "i8",
            Value::I16(_) => "i16",
            Value::I32(_) => "i32",
            Value::I64(_) => "i64",
            Value::F32(_) => "f32",
            Value::F64(_) => "f64",
            Value::Str(_) => "String",
            Value::Entity(_) => "Entity",
            Value::OptEntity(_) => "Option<Entity>",
        }
    }
}

/// Why a field value could not become a field (the loader adds the entity, component and
/// field to make a [`LoadError`](crate::LoadError)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldError {
    /// The file holds a value of another type.
    WrongType {
        /// The type the file holds.
        found: &'static str,
    },
    /// An entity reference names a scene id that is not in the scene.
    UnknownEntity(u64),
}

/// A type a `#[derive(Scene)]` field may have: it has a [`Value`] tag of its own.
///
/// Implemented for `bool`, the integer types up to 64 bits, `f32`, `f64`, `String`, [`Entity`]
/// and `Option<Entity>`. Entity references are written as scene ids and remapped on load.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a scene field",
    label = "not a scene field type",
    note = "scene fields are `bool`, integers up to 64 bits, `f32`, `f64`, `String`, `Entity` and `Option<Entity>`; store `{Self}` as one of them, or leave the component out of the scene"
)]
pub trait SceneField: Sized {
    /// The type's name as errors print it; equal to [`Value::type_name`] of its values.
    const TYPE: &'static str;

    /// The value to write. `ids` turns entities into scene ids.
    ///
    /// # Errors
    ///
    /// The entity referenced, if it is not in the scene (`Entity` refuses; `Option<Entity>`
    /// writes nothing instead).
    fn to_value(&self, ids: &EntityIds<'_>) -> Result<Value, Entity>;

    /// The field read back. `map` turns scene ids into the new entities.
    ///
    /// # Errors
    ///
    /// [`FieldError`] if the value has another type or names an entity not in the scene.
    fn from_value(value: Value, map: &EntityMap) -> Result<Self, FieldError>;

    /// The value a field added since the save gets, if the type has one (its `Default`).
    /// `Entity` has none, so an added `Entity` field is refused as missing.
    fn added_default() -> Option<Self>;
}

macro_rules! plain_field {
    ($($t:ty => $variant:ident, $name:literal;)*) => {$(
        impl SceneField for $t {
            const TYPE: &'static str = $name;
            fn to_value(&self, _: &EntityIds<'_>) -> Result<Value, Entity> {
                Ok(Value::$variant(self.clone()))
            }
            fn from_value(value: Value, _: &EntityMap) -> Result<Self, FieldError> {
                match value {
                    Value::$variant(v) => Ok(v),
                    other => Err(FieldError::WrongType { found: other.type_name() }),
                }
            }
            fn added_default() -> Option<Self> {
                Some(<$t>::default())
            }
        }
    )*};
}

plain_field! {
    bool => Bool, "bool";
    u8 => U8, "u8";
    u16 => U16, "u16";
    u32 => U32, "u32";
    u64 => U64, "u64";
    i8 => I8, "i8";
    i16 => I16, "i16";
    i32 => I32, "i32";
    i64 => I64, "i64";
    f32 => F32, "f32";
    f64 => F64, "f64";
    String => Str, "String";
}

impl SceneField for Entity {
    const TYPE: &'static str = "Entity";
    fn to_value(&self, ids: &EntityIds<'_>) -> Result<Value, Entity> {
        ids.id_of(*self).map(Value::Entity).ok_or(*self)
    }
    fn from_value(value: Value, map: &EntityMap) -> Result<Self, FieldError> {
        match value {
            Value::Entity(id) => map.entity(id).ok_or(FieldError::UnknownEntity(id)),
            other => Err(FieldError::WrongType {
                found: other.type_name(),
            }),
        }
    }
    fn added_default() -> Option<Self> {
        None
    }
}

impl SceneField for Option<Entity> {
    const TYPE: &'static str = "Option<Entity>";
    fn to_value(&self, ids: &EntityIds<'_>) -> Result<Value, Entity> {
        // A reference to an entity outside the scene (dead, or despawned since) is cleared.
        Ok(Value::OptEntity(self.and_then(|e| ids.id_of(e))))
    }
    fn from_value(value: Value, map: &EntityMap) -> Result<Self, FieldError> {
        match value {
            Value::OptEntity(None) => Ok(None),
            Value::OptEntity(Some(id)) => map
                .entity(id)
                .map(Some)
                .ok_or(FieldError::UnknownEntity(id)),
            other => Err(FieldError::WrongType {
                found: other.type_name(),
            }),
        }
    }
    fn added_default() -> Option<Self> {
        Some(None)
    }
}
