//! Saving: every live entity, in ascending slot order, with the set's components and its
//! parent; and the value checksum, which hashes exactly what a save writes.

use rota_core::World;
use rota_core::checksum::{StableHash, StableHasher};

use crate::error::SaveError;
use crate::format::{EntityRecord, Entries, FORMAT_VERSION, SceneFile};
use crate::ids::EntityIds;
use crate::set::{SceneSet, checked_columns};
use crate::value::Value;

/// The file model of `world`: record `i` is the `i`-th live entity in ascending slot order.
pub(crate) fn model<S: SceneSet>(world: &World) -> Result<SceneFile, SaveError> {
    let columns = checked_columns::<S, _>(|key, first, second| SaveError::DuplicateKey {
        key,
        first,
        second,
    })?
    .columns;
    let ids = EntityIds::new(world.entities());
    let mut records: Vec<EntityRecord> = world
        .entities()
        .iter()
        .enumerate()
        .map(|(id, e)| EntityRecord {
            id: id as u64,
            // Parents are alive (a hierarchy invariant), so they have ids.
            parent: world.parent(e).and_then(|p| ids.id_of(p)),
            components: Entries(Vec::new()),
        })
        .collect();
    for column in &columns {
        column.save(world, &ids, &mut records)?;
    }
    Ok(SceneFile {
        format: FORMAT_VERSION,
        entities: records,
    })
}

fn pretty() -> ron::ser::PrettyConfig {
    // One entity per line: diffs of two saves read entity by entity.
    ron::ser::PrettyConfig::new().depth_limit(2)
}

/// Saves every live entity of `world` with the components of the set `S` (a tuple of
/// [`SceneComponent`](crate::SceneComponent) types) and the hierarchy, as a RON string.
///
/// Entities get scene ids 0, 1, 2, ... in ascending slot order; entity references are written
/// as scene ids. An entity holding none of `S` is still saved (it may be a parent or a
/// reference target).
///
/// # Errors
///
/// [`SaveError::ReferenceOutsideScene`] if an `Entity` field names a dead entity;
/// [`SaveError::DuplicateKey`] if two types of `S` share a key.
pub fn save<S: SceneSet>(world: &World) -> Result<String, SaveError> {
    let file = model::<S>(world)?;
    ron::ser::to_string_pretty(&file, pretty()).map_err(|e| SaveError::Write(e.to_string()))
}

/// As [`save`], writing to `out` (a file, a socket, a buffer).
///
/// # Errors
///
/// As [`save`], plus [`SaveError::Write`] if `out` fails (part of the file may be written).
pub fn save_to<S: SceneSet>(world: &World, out: impl std::io::Write) -> Result<(), SaveError> {
    let file = model::<S>(world)?;
    let mut out = std::io::BufWriter::new(out);
    ron::Options::default()
        .to_io_writer_pretty(&mut out, &file, pretty())
        .map_err(|e| SaveError::Write(e.to_string()))?;
    std::io::Write::flush(&mut out).map_err(|e| SaveError::Write(e.to_string()))
}

/// A checksum of the scene `S` of `world` that ignores entity bits: it hashes what [`save`]
/// would write (scene ids in ascending slot order, parents and references as scene ids, each
/// field's id and typed value). Two worlds with the same values and hierarchy in the same
/// relative order have the same value checksum, wherever their slots and generations differ
/// — so `value_checksum` before a save equals `value_checksum` after loading the file into an
/// empty world.
///
/// # Errors
///
/// As [`save`].
pub fn value_checksum<S: SceneSet>(world: &World) -> Result<u64, SaveError> {
    let file = model::<S>(world)?;
    let mut h = StableHasher::new();
    file.format.stable_hash(&mut h);
    file.entities.len().stable_hash(&mut h);
    for record in &file.entities {
        record.id.stable_hash(&mut h);
        record.parent.stable_hash(&mut h);
        record.components.0.len().stable_hash(&mut h);
        for (key, fields) in &record.components.0 {
            key.stable_hash(&mut h);
            fields.0.len().stable_hash(&mut h);
            for (id, value) in &fields.0 {
                id.stable_hash(&mut h);
                hash_value(value, &mut h);
            }
        }
    }
    Ok(h.finish())
}

fn hash_value(value: &Value, h: &mut StableHasher) {
    value.type_name().stable_hash(h);
    match value {
        Value::Bool(v) => v.stable_hash(h),
        Value::U8(v) => v.stable_hash(h),
        Value::U16(v) => v.stable_hash(h),
        Value::U32(v) => v.stable_hash(h),
        Value::U64(v) => v.stable_hash(h),
        Value::I8(v) => v.stable_hash(h),
        Value::I16(v) => v.stable_hash(h),
        Value::I32(v) => v.stable_hash(h),
        Value::I64(v) => v.stable_hash(h),
        Value::F32(v) => v.stable_hash(h),
        Value::F64(v) => v.stable_hash(h),
        Value::Str(v) => v.stable_hash(h),
        Value::Entity(v) => v.stable_hash(h),
        Value::OptEntity(v) => v.stable_hash(h),
    }
}
