//! Loading: parse, check, migrate and decode the whole file, and only then change the world.
//!
//! # Atomicity
//!
//! The world is borrowed shared until the last check has passed: entities are *reserved*
//! through a command buffer (which changes nothing), every component of every entity is
//! decoded into typed columns (migration and remapping included), and the hierarchy is checked
//! for unknown parents and cycles. Any refusal returns before [`World::apply`] is called, so a
//! refused scene leaves the world exactly as it was. The buffer then holds only commands that
//! cannot fail (spawns of slots reserved under the same `&mut World`, inserts into them, and
//! `set_parent` edges already proved acyclic).

use std::collections::BTreeMap;

use rota_core::{Entity, World};

use crate::error::LoadError;
use crate::format::{FORMAT_VERSION, Header, SceneFile};
use crate::ids::EntityMap;
use crate::set::{Checked, Migrated, SceneSet, checked_columns};

/// What loading did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadReport {
    /// The entity spawned for each record, in file order.
    pub entities: Vec<Entity>,
    /// Fields the file lacked that got their default (added since the save).
    pub defaulted_fields: usize,
    /// Fields of retired ids that were dropped (removed since the save).
    pub dropped_fields: usize,
}

/// Parses a scene file without loading it.
fn parse(text: &str) -> Result<SceneFile, LoadError> {
    match ron::from_str::<SceneFile>(text) {
        Ok(file) if file.format == FORMAT_VERSION => Ok(file),
        Ok(file) => Err(LoadError::UnsupportedVersion {
            found: file.format,
            supported: FORMAT_VERSION,
        }),
        Err(error) => {
            // A file of another layout version may not parse as this one: say so instead.
            if let Ok(header) = ron::from_str::<Header>(text)
                && header.format != FORMAT_VERSION
            {
                return Err(LoadError::UnsupportedVersion {
                    found: header.format,
                    supported: FORMAT_VERSION,
                });
            }
            Err(LoadError::Syntax {
                line: error.span.start.line,
                column: error.span.start.col,
                message: error.code.to_string(),
            })
        }
    }
}

/// Loads a scene saved with [`save`](crate::save) into `world`, spawning one new entity per
/// record, with the components of the set `S` and the hierarchy; entity references are
/// remapped to the new entities. Existing entities are untouched.
///
/// Fields migrate as [`SceneComponent`](crate::SceneComponent) documents (added: default;
/// retired: dropped; retyped or unknown: refused). References to scene ids the file does not
/// have are refused.
///
/// # Errors
///
/// A [`LoadError`] naming the place at fault. **The world is then unchanged.**
pub fn load<S: SceneSet>(world: &mut World, text: &str) -> Result<LoadReport, LoadError> {
    let Checked {
        mut columns,
        by_key,
    } = checked_columns::<S, _>(|key, first, second| LoadError::DuplicateKey {
        key,
        first,
        second,
    })?;
    let file = parse(text)?;

    // Scene id -> position in the file: a `Vec` for ids below the record count (what saves
    // write), a map for the rest.
    let n = file.entities.len();
    let mut dense = vec![usize::MAX; n];
    let mut sparse: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, record) in file.entities.iter().enumerate() {
        let repeated = match usize::try_from(record.id).ok().filter(|&d| d < n) {
            Some(d) => std::mem::replace(&mut dense[d], i) != usize::MAX,
            None => sparse.insert(record.id, i).is_some(),
        };
        if repeated {
            return Err(LoadError::DuplicateEntity { entity: record.id });
        }
    }
    let index_of = |id: u64| match usize::try_from(id).ok().filter(|&d| d < n) {
        // An id below the count that no record has is absent, not `usize::MAX`.
        Some(d) => Some(dense[d]).filter(|&i| i != usize::MAX),
        None => sparse.get(&id).copied(),
    };
    let parents = checked_parents(&file, index_of)?;

    // Reserve, decode: nothing is applied yet.
    let mut commands = world.commands();
    let mut spawned = Vec::with_capacity(file.entities.len());
    let mut map = EntityMap::with_records(file.entities.len());
    for record in &file.entities {
        let entity = commands.try_spawn(())?;
        spawned.push(entity);
        map.insert(record.id, entity);
    }
    let mut migrated = Migrated::default();
    let mut present: Vec<usize> = Vec::new();
    for (index, record) in file.entities.into_iter().enumerate() {
        present.clear();
        for (key, fields) in record.components.0 {
            let Some(&c) = by_key.get(key.as_ref()) else {
                return Err(LoadError::UnknownComponent {
                    entity: record.id,
                    component: key.into_owned(),
                });
            };
            if present.contains(&c) {
                return Err(LoadError::DuplicateComponent {
                    entity: record.id,
                    component: columns[c].key(),
                });
            }
            present.push(c);
            columns[c].decode(index, record.id, fields, &map, &mut migrated)?;
        }
    }
    for column in columns {
        column.record(&mut commands, &spawned);
    }
    for (child, parent) in parents {
        commands.set_parent(spawned[child], spawned[parent]);
    }
    let queue = commands.finish();

    // Every check has passed: now, and only now, the world changes.
    let report = world.apply(queue);
    debug_assert!(
        report.is_clean(),
        "a checked scene applies cleanly: {report:?}"
    );
    Ok(LoadReport {
        entities: spawned,
        defaulted_fields: migrated.defaulted,
        dropped_fields: migrated.dropped,
    })
}

/// `(child, parent)` file positions, after refusing unknown parents and cycles, deepest child
/// first (file order among equals). Applied in that order, every edge attaches a child to a
/// parent that has no parent yet, so `set_parent`'s walk up the ancestors (which refuses
/// cycles) is one step, and a deep chain loads in linear time instead of quadratic.
fn checked_parents(
    file: &SceneFile,
    index_of: impl Fn(u64) -> Option<usize>,
) -> Result<Vec<(usize, usize)>, LoadError> {
    let mut parent_of: Vec<Option<usize>> = vec![None; file.entities.len()];
    let mut edges = Vec::new();
    for (i, record) in file.entities.iter().enumerate() {
        if let Some(parent) = record.parent {
            let Some(p) = index_of(parent) else {
                return Err(LoadError::UnknownParent {
                    entity: record.id,
                    parent,
                });
            };
            parent_of[i] = Some(p);
            edges.push((i, p));
        }
    }
    // Walk up from each entity; 0 = unvisited, 1 = on the current walk, 2 = known to reach a
    // root, at `depth` steps. Each entity is walked over once in all, so this is linear.
    let mut state = vec![0u8; parent_of.len()];
    let mut depth = vec![0usize; parent_of.len()];
    let mut walk = Vec::new();
    for start in 0..parent_of.len() {
        let mut at = Some(start);
        // The depth of the walk's last entity: 0 for a root, one below a known entity.
        let mut base = 0;
        while let Some(i) = at {
            match state[i] {
                2 => {
                    base = depth[i] + 1;
                    break;
                }
                1 => {
                    return Err(LoadError::ParentCycle {
                        entity: file.entities[i].id,
                    });
                }
                _ => {
                    state[i] = 1;
                    walk.push(i);
                    at = parent_of[i];
                }
            }
        }
        for (up, i) in walk.drain(..).rev().enumerate() {
            state[i] = 2;
            depth[i] = base + up;
        }
    }
    edges.sort_by_key(|&(child, _)| std::cmp::Reverse(depth[child]));
    Ok(edges)
}
