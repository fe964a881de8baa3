//! Error types of rota-core, one enum or struct per failure, each naming what is at fault.

use crate::entity::Entity;

pub use crate::entity::{EntityNotAlive, SpawnError};

/// Why a store operation failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A dense column or sparse page could not grow; the store is unchanged.
    #[error("out of memory while growing a component store; the store is unchanged")]
    OutOfMemory,
    /// The store's dense columns hold as many elements as a dense index can address (live and
    /// dead, 2³¹ − 1); the store is unchanged.
    #[error("a component store is full ({max} elements, live and dead); the store is unchanged")]
    Full {
        /// The most elements a store holds.
        max: usize,
    },
}

/// Why a resource could not be provided.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// No resource of this type is stored in the world.
    #[error("resource `{resource}` is not in the world (insert it with World::insert_resource)")]
    Missing {
        /// The resource's name.
        resource: &'static str,
    },
}

/// Why a single-entity query lookup (`query_one`, `Query::get`) found nothing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryGetError {
    /// The entity is dead or the handle stale.
    #[error(transparent)]
    Dead(#[from] EntityNotAlive),
    /// The entity is alive but lacks a component the query requires (or has one it excludes).
    #[error("entity {entity} does not match the query: {reason} `{component}`")]
    Mismatch {
        /// The entity looked up.
        entity: Entity,
        /// The component at fault.
        component: &'static str,
        /// Whether it lacks a required component or has an excluded one.
        reason: MismatchReason,
    },
}

/// Why an entity does not match a query.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MismatchReason {
    /// It lacks a component the query requires (`&T`, `&mut T`, `With<T>`).
    Lacks,
    /// It has a component the query excludes (`Without<T>`).
    HasExcluded,
    /// Its component was not added (`Added<T>`) or changed (`Changed<T>`) in the query's window.
    Unchanged,
}

impl std::fmt::Display for MismatchReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MismatchReason::Lacks => "lacks",
            MismatchReason::HasExcluded => "has excluded",
            MismatchReason::Unchanged => "has no change in the window for",
        })
    }
}

/// A query's accesses conflict with each other: it names one component twice and at least one
/// of the two is mutable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "query accesses component `{component}` twice with a mutable access; this would alias a `&mut`. Split the query"
)]
pub struct QueryAliasError {
    /// The component named twice.
    pub component: &'static str,
}

/// Which recorded command a [`CommandError`] is about (spawns have their own variant).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CommandKind {
    /// `Commands::despawn`.
    Despawn,
    /// `Commands::insert`.
    Insert,
    /// `Commands::remove`.
    Remove,
    /// `Commands::set_parent`.
    SetParent,
    /// `Commands::remove_parent`.
    RemoveParent,
    /// `Commands::despawn_recursive`.
    DespawnRecursive,
}

impl CommandKind {
    /// The command's name as written in `Commands` (`"despawn"`, `"insert"`, `"remove"`).
    pub const fn name(self) -> &'static str {
        match self {
            CommandKind::Despawn => "despawn",
            CommandKind::Insert => "insert",
            CommandKind::Remove => "remove",
            CommandKind::SetParent => "set_parent",
            CommandKind::RemoveParent => "remove_parent",
            CommandKind::DespawnRecursive => "despawn_recursive",
        }
    }
}

impl std::fmt::Display for CommandKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A command skipped by `World::apply`; it changed nothing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// The command's entity was not alive when the command's turn came.
    #[error("command #{index} ({command}{}) skipped: entity {entity} is not alive", component.map(|c| format!(" {c}")).unwrap_or_default())]
    EntityNotAlive {
        /// Position of the command in its buffer.
        index: usize,
        /// Despawn, insert or remove.
        command: CommandKind,
        /// The component inserted or removed, if any.
        component: Option<&'static str>,
        /// The entity.
        entity: Entity,
    },
    /// The slot reserved for a spawn was taken before the buffer was applied (another buffer or
    /// a direct spawn got there first).
    #[error(
        "command #{index} (spawn) skipped: the slot reserved for {entity} was taken before the buffer was applied"
    )]
    ReservationTaken {
        /// Position of the command in its buffer.
        index: usize,
        /// The reserved handle.
        entity: Entity,
    },
    /// The command names an entity reserved by a spawn of the same buffer that was skipped
    /// ([`CommandError::ReservationTaken`]); the handle now belongs to whoever took the slot, so
    /// the command is skipped rather than applied to that other entity.
    #[error(
        "command #{index} ({command}{}) skipped: {entity} was reserved by a spawn of this buffer that was skipped", component.map(|c| format!(" {c}")).unwrap_or_default()
    )]
    ReservationFailed {
        /// Position of the command in its buffer.
        index: usize,
        /// Despawn, insert or remove.
        command: CommandKind,
        /// The component inserted or removed, if any.
        component: Option<&'static str>,
        /// The reserved handle.
        entity: Entity,
    },
    /// A spawn whose bundle names one component type twice (a generic one: for any other the
    /// bundle does not build); recorded by [`Commands::spawn`](crate::Commands::spawn), which
    /// reserved no entity for it and returned a handle that is never alive.
    #[error(
        "command #{index} (spawn) skipped: its bundle names component `{component}` twice; an entity holds one value per type"
    )]
    DuplicateComponent {
        /// Position of the command in its buffer.
        index: usize,
        /// The component named twice.
        component: &'static str,
    },
    /// A `set_parent` command was refused when its turn came (a parent that died meanwhile, or
    /// a cycle formed by earlier commands).
    #[error("command #{index} (set_parent) skipped: {error}")]
    Hierarchy {
        /// Position of the command in its buffer.
        index: usize,
        /// Why.
        error: HierarchyError,
    },
}

/// Why a hierarchy change was refused; nothing changed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HierarchyError {
    /// The would-be child is dead or stale.
    #[error("cannot set the parent of {0}: it is not alive")]
    ChildNotAlive(Entity),
    /// The would-be parent is dead or stale.
    #[error("cannot make {0} a parent: it is not alive")]
    ParentNotAlive(Entity),
    /// The parent is the child itself or one of its descendants.
    #[error(
        "cannot make {parent} the parent of {child}: {parent} is {child} or one of its descendants (a cycle)"
    )]
    Cycle {
        /// The would-be child.
        child: Entity,
        /// The would-be parent.
        parent: Entity,
    },
}

/// Two systems handed to [`World::split_for_systems`](crate::World::split_for_systems) may not share a type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "systems `{first}` and `{second}` cannot run together: both access `{name}` and one writes it (or both record commands)"
)]
pub struct SplitError {
    /// The earlier system.
    pub first: &'static str,
    /// The later system.
    pub second: &'static str,
    /// The type both access.
    pub name: &'static str,
}

/// Why [`World::snapshot`](crate::World::snapshot) could not copy the world. The world is
/// unchanged and no partial snapshot exists.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// A component excluded from snapshots (`#[component(no_snapshot)]`, or a hand-written
    /// impl left at `SnapshotPolicy::EXCLUDED`) is held by at least one entity.
    #[error(
        "component `{component}` is excluded from snapshots (no_snapshot) but {held} entities \
         hold one; remove them before snapshotting, or make `{component}` Clone and drop \
         no_snapshot"
    )]
    ComponentExcluded {
        /// The component's name.
        component: &'static str,
        /// How many entities hold it.
        held: usize,
    },
    /// A resource excluded from snapshots is in the world.
    #[error(
        "resource `{resource}` is excluded from snapshots (no_snapshot) but is in the world; \
         remove it before snapshotting, or make it Clone and drop no_snapshot"
    )]
    ResourceExcluded {
        /// The resource's name.
        resource: &'static str,
    },
}

/// Why [`World::full_checksum`](crate::World::full_checksum) could not hash the whole world.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChecksumError {
    /// A component held by at least one entity has no stable hash.
    #[error(
        "component `{component}` has no stable hash, so a whole-world checksum cannot cover it; \
         add #[derive(StableHash)] to `{component}`"
    )]
    ComponentNotHashable {
        /// The component's name.
        component: &'static str,
    },
    /// A resource in the world has no stable hash.
    #[error(
        "resource `{resource}` has no stable hash, so a whole-world checksum cannot cover it; \
         add #[derive(StableHash)] to `{resource}`"
    )]
    ResourceNotHashable {
        /// The resource's name.
        resource: &'static str,
    },
}
