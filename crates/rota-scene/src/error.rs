//! Errors of saving and loading, each naming the place at fault: the entity (by scene id when
//! loading), the component (by key), the field (by id), and the line where the file has one.

use rota_core::{Entity, SpawnError};

/// Why a world could not be saved. Nothing was written to the output when it is returned by
/// [`save`](crate::save); [`save_to`](crate::save_to) may have written part of a file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// An `Entity` field names an entity that is not alive, so the scene cannot hold it.
    #[error(
        "entity {entity}: component `{component}` field {field} references {target}, which is not alive (only `Option<Entity>` fields are cleared instead)"
    )]
    ReferenceOutsideScene {
        /// The entity holding the reference.
        entity: Entity,
        /// The component's scene key.
        component: &'static str,
        /// The field's scene id.
        field: u32,
        /// The entity referenced.
        target: Entity,
    },
    /// Two component types of the scene set share a key.
    #[error("components `{first}` and `{second}` share the scene key `{key}`")]
    DuplicateKey {
        /// The key.
        key: &'static str,
        /// The first type's name.
        first: &'static str,
        /// The second type's name.
        second: &'static str,
    },
    /// The output could not be written.
    #[error("writing the scene failed: {0}")]
    Write(String),
}

/// Why a scene was refused. **The world is unchanged**: loading writes nothing until every
/// entity has been read, migrated and validated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file is not a scene: RON syntax, a missing or mistyped part, or a truncation.
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// The file's layout version is not one this build reads.
    #[error("scene format version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// Two records have the same scene id.
    #[error("entity #{entity} appears twice in the scene")]
    DuplicateEntity {
        /// The scene id.
        entity: u64,
    },
    /// A component key no type of the scene set has.
    #[error(
        "entity #{entity}: unknown component `{component}` (not in the scene set this game loads with)"
    )]
    UnknownComponent {
        /// The scene id.
        entity: u64,
        /// The key as written.
        component: String,
    },
    /// One record lists a component twice.
    #[error("entity #{entity}: component `{component}` appears twice")]
    DuplicateComponent {
        /// The scene id.
        entity: u64,
        /// The key.
        component: &'static str,
    },
    /// One component lists a field id twice.
    #[error("entity #{entity}: component `{component}` lists field {field} twice")]
    DuplicateField {
        /// The scene id.
        entity: u64,
        /// The key.
        component: &'static str,
        /// The field id.
        field: u32,
    },
    /// A field id the type neither has nor retired (perhaps a file from a newer game).
    #[error(
        "entity #{entity}: component `{component}` has no field {field} (neither declared nor retired)"
    )]
    UnknownField {
        /// The scene id.
        entity: u64,
        /// The key.
        component: &'static str,
        /// The field id.
        field: u32,
    },
    /// The field's type changed since the file was written.
    #[error(
        "entity #{entity}: component `{component}` field {field} was saved as `{saved}` but is now `{expected}`"
    )]
    FieldTypeChanged {
        /// The scene id.
        entity: u64,
        /// The key.
        component: &'static str,
        /// The field id.
        field: u32,
        /// The type in the file.
        saved: &'static str,
        /// The type the component has now.
        expected: &'static str,
    },
    /// A field the file lacks and whose type has no default (an `Entity`).
    #[error(
        "entity #{entity}: component `{component}` field {field} is missing and `{ty}` has no default"
    )]
    MissingField {
        /// The scene id.
        entity: u64,
        /// The key.
        component: &'static str,
        /// The field id.
        field: u32,
        /// The field's type.
        ty: &'static str,
    },
    /// An entity reference names a scene id the file does not have.
    #[error(
        "entity #{entity}: component `{component}` field {field} references entity #{target}, which is not in the scene"
    )]
    UnknownEntity {
        /// The scene id.
        entity: u64,
        /// The key.
        component: &'static str,
        /// The field id.
        field: u32,
        /// The scene id referenced.
        target: u64,
    },
    /// A parent the file does not have.
    #[error("entity #{entity}: parent #{parent} is not in the scene")]
    UnknownParent {
        /// The scene id.
        entity: u64,
        /// The parent's scene id.
        parent: u64,
    },
    /// The parents in the file form a cycle.
    #[error("entity #{entity} is its own ancestor (a parent cycle)")]
    ParentCycle {
        /// A scene id on the cycle.
        entity: u64,
    },
    /// Two component types of the scene set share a key.
    #[error("components `{first}` and `{second}` share the scene key `{key}`")]
    DuplicateKey {
        /// The key.
        key: &'static str,
        /// The first type's name.
        first: &'static str,
        /// The second type's name.
        second: &'static str,
    },
    /// The world has no slot left for the scene's entities.
    #[error("the world cannot hold the scene's entities: {0}")]
    Spawn(#[from] SpawnError),
}
