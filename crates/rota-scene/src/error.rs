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

/// Why a world could not be saved ([`save_world`](crate::save_world)). Nothing is written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorldSaveError {
    /// The world holds values of a component type the save does not list.
    #[error("component `{component}` holds {held} values but is not in the save's component types")]
    ComponentNotCovered {
        /// The component type.
        component: &'static str,
        /// How many values the world holds.
        held: usize,
    },
    /// The world holds a resource (or a non-empty event channel) the save does not list.
    #[error("resource `{resource}` is present but not in the save's resource or event types")]
    ResourceNotCovered {
        /// The resource type (an event channel is named by its event type).
        resource: &'static str,
    },
    /// The structural log names a component type the save does not list.
    #[error("the structural log names component `{component}`, which is not in the save's types")]
    LogComponentNotCovered {
        /// The component type.
        component: &'static str,
    },
    /// Two types of the save share a key.
    #[error("types `{first}` and `{second}` share the key `{key}`")]
    DuplicateKey {
        /// The key.
        key: &'static str,
        /// The first type.
        first: &'static str,
        /// The second type.
        second: &'static str,
    },
    /// A component's fields could not be written.
    #[error(transparent)]
    Component(#[from] SaveError),
    /// The world's bookkeeping cannot be exported (two systems share a name, …).
    #[error(transparent)]
    Image(#[from] rota_core::image::ImageError),
    /// serde refused a resource or event value.
    #[error("`{key}`: encoding failed: {message}")]
    Payload {
        /// The resource or event type.
        key: &'static str,
        /// serde's message.
        message: String,
    },
    /// The writer failed.
    #[error("writing the save failed: {0}")]
    Write(#[from] std::io::Error),
}

/// Why bytes are not a world save this build can load ([`load_world`](crate::load_world)).
/// Each names where: the byte offset, and the type, entity and field where there is one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WorldLoadError {
    /// The bytes do not start with the world-save magic.
    #[error("not a rota world save (bad magic at offset 0)")]
    NotAWorldSave,
    /// A version this build does not read.
    #[error(
        "world save format version {found} is not supported (this build reads version {supported})"
    )]
    UnsupportedVersion {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The bytes end (or a length runs) past the end of the file.
    #[error("offset {offset}: truncated while reading {what}")]
    Truncated {
        /// Where.
        offset: usize,
        /// What was being read.
        what: &'static str,
    },
    /// A string is not UTF-8.
    #[error("offset {offset}: {what} is not UTF-8")]
    BadText {
        /// Where.
        offset: usize,
        /// What was being read.
        what: &'static str,
    },
    /// A tag byte with no meaning.
    #[error("offset {offset}: tag {tag} is not valid for {what}")]
    BadTag {
        /// Where.
        offset: usize,
        /// What was being read.
        what: &'static str,
        /// The byte.
        tag: u8,
    },
    /// Bytes after the end of the save.
    #[error("offset {offset}: bytes after the end of the save")]
    TrailingBytes {
        /// Where the save ended.
        offset: usize,
    },
    /// A component, resource or event key the load's types do not list.
    #[error("offset {offset}: unknown {kind} `{key}` (not in the types this load lists)")]
    UnknownType {
        /// Where.
        offset: usize,
        /// "component", "resource" or "event".
        kind: &'static str,
        /// The key in the file.
        key: String,
    },
    /// A key appears twice.
    #[error("offset {offset}: {kind} `{key}` appears twice")]
    DuplicateType {
        /// Where.
        offset: usize,
        /// "component", "resource" or "event".
        kind: &'static str,
        /// The key.
        key: String,
    },
    /// A component value was refused (the entity is named by its bits).
    #[error("offset {offset}: {source}")]
    Component {
        /// Where the value starts.
        offset: usize,
        /// What is wrong, naming the entity, the component and the field.
        source: LoadError,
    },
    /// A resource or event value could not be decoded.
    #[error("offset {offset}: `{key}`: {message}")]
    Payload {
        /// The resource or event type.
        key: &'static str,
        /// Where the value starts.
        offset: usize,
        /// serde's message.
        message: String,
    },
    /// The decoded state breaks a rule of the world.
    #[error("offset {offset}: {source}")]
    Invalid {
        /// Where the part at fault starts.
        offset: usize,
        /// The rule, naming the type and entity.
        source: rota_core::image::ImageError,
    },
}
