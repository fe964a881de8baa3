//! World saves: a whole world — allocator, clocks, schedules' ticks, systems' last runs (by
//! name), every store with its change ticks, resources, event channels, the hierarchy and the
//! structural log — as versioned bytes that load into a fresh [`World`] with the same
//! [`full_checksum`](World::full_checksum), handing out the same handles and running the same
//! future.
//!
//! # The format (version [`WORLD_FORMAT_VERSION`])
//!
//! Our own little-endian encoding, chosen over a serde format for the envelope because it
//! keeps component values in the scene's field-id records (so migrations — added fields
//! defaulted, retired ones dropped — work exactly as for scenes) and lets every error name
//! its byte offset. Integers are fixed-width little-endian, strings and blobs carry a `u32`
//! length; resource and event values are serde values encoded with bincode 1 (a documented,
//! stable varint format) inside a length-prefixed blob. In order:
//!
//! ```text
//! "ROTAWRLD" version:u32
//! tick:u64 change_tick:u32 last_clamp:u32
//! allocator   slot_limit:u32 first_generation:u32 n:u32 (generation:u32 status:u8)*n
//! schedules   n:u32 (label:str tick:u64)*n
//! systems     n:u32 (name:str last_run:u32)*n
//! log         0:u8 | 1:u8 capacity:u64 next:u64 trimmed_to:u64 rewinds entries
//! hierarchy   last:u32 n:u32 (child:u64 parent:u64 added:u32 changed:u32)*n
//!             last:u32 n:u32 (parent:u64 added:u32 changed:u32)*n
//! stores      n:u32 (key:str last_changed:u32 rows:u32
//!                    (entity:u64 added:u32 changed:u32 fields:u32 (id:u32 value)*)*)*
//! resources   n:u32 (key:str value:blob)*
//! channels    n:u32 (key:str capacity:u64 next:u64 this_tick:u64 previous_tick:u64
//!                    rewinds readers:(system:str index:u32 cursor:u64)* events:(seq:u64 blob)*)*
//! ```
//!
//! Entities are their bits (`Entity::to_bits`): the allocator is saved exactly, so entity
//! references need no remapping. Ticks are the raw clock values.

pub(crate) mod bytes;
pub mod sets;

use std::any::TypeId;
use std::collections::BTreeMap;

use rota_core::image::{
    AllocatorImage, HierarchyImage, ImageError, LogImage, SlotStatus, WorldImage,
};
use rota_core::log::{LogEntry, StructuralChange};
use rota_core::sequence::Rewind;
use rota_core::{ChildOf, Children, Component, ComponentTicks, Entity, Tick, World};

use crate::error::{WorldLoadError, WorldSaveError};
use crate::format::Entries;
use crate::ids::{EntityIds, EntityMap};
use crate::set::{Migrated, SceneSet, checked_columns};
use bytes::{Reader, Writer};
use sets::{EventSet, ResourceSet};

/// The world-save format this build writes and reads.
pub const WORLD_FORMAT_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"ROTAWRLD";

/// The keys the structural log names the hierarchy's components by (other components: their
/// scene key).
const CHILD_OF_KEY: &str = "rota.ChildOf";
const CHILDREN_KEY: &str = "rota.Children";

/// Saves the whole world: components `C` (scene components: `#[derive(Scene)]`), resources
/// `R` and event channels `E` (serde types), plus everything that is not a type (see the
/// [module docs](self)). The hierarchy (`ChildOf`, `Children`) is always saved.
///
/// # Errors
///
/// [`WorldSaveError`] naming a non-empty store, a present resource or a non-empty event
/// channel whose type is not listed (a save never silently lacks state), a component the
/// structural log names but the save does not list, and encoding failures.
///
/// # Examples
///
/// ```
/// use rota::{Component, Resource, Scene, StableHash, World};
/// use rota::scene::{load_world, save_world};
///
/// #[derive(Component, Clone, Scene, StableHash)]
/// #[scene(key = "demo.Pos")]
/// struct Pos(#[scene(id = 1)] f32);
/// #[derive(Resource, Clone, StableHash, serde::Serialize, serde::Deserialize)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// let a = world.spawn_with((Pos(1.0),));
/// world.insert_resource(Score(7));
/// let bytes = save_world::<(Pos,), (Score,), ()>(&world)?;
/// let mut loaded = load_world::<(Pos,), (Score,), ()>(&bytes)?;
/// assert_eq!(loaded.full_checksum()?, world.full_checksum()?);
/// assert_eq!(loaded.get::<Pos>(a).unwrap().0, 1.0);
/// assert_eq!(loaded.spawn(), world.spawn()); // the same next handle
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn save_world<C: SceneSet, R: ResourceSet, E: EventSet>(
    world: &World,
) -> Result<Vec<u8>, WorldSaveError> {
    let columns = checked_columns::<C, _>(|key, first, second| WorldSaveError::DuplicateKey {
        key,
        first,
        second,
    })?
    .columns;
    let resources = R::codecs().0;
    let channels = E::codecs().0;

    // Coverage first: a save never silently lacks a type.
    let mut keys: BTreeMap<TypeId, &'static str> =
        columns.iter().map(|c| (c.type_id(), c.key())).collect();
    keys.insert(TypeId::of::<ChildOf>(), CHILD_OF_KEY);
    keys.insert(TypeId::of::<Children>(), CHILDREN_KEY);
    let covered = |id: TypeId| keys.contains_key(&id);
    for (id, component, held) in world.component_types() {
        if held > 0 && !covered(id) {
            return Err(WorldSaveError::ComponentNotCovered { component, held });
        }
    }
    for (id, resource) in world.resource_types() {
        if !resources.iter().any(|r| r.type_id() == id)
            && !channels.iter().any(|c| c.type_id() == id)
        {
            return Err(WorldSaveError::ResourceNotCovered { resource });
        }
    }

    let image = world.image()?;
    let mut out = Writer::default();
    out.bytes.extend_from_slice(MAGIC);
    out.u32(WORLD_FORMAT_VERSION);
    write_image(&image, &mut out, &keys)?;
    write_hierarchy(&world.hierarchy_image(), &mut out);

    let ids = EntityIds::exact(world.entities());
    out.len(columns.len());
    for column in &columns {
        out.str(column.key());
        column.save_rows(world, &ids, &mut out)?;
    }
    let mut present = Vec::new();
    for codec in &resources {
        if let Some(bytes) = codec.save(world)? {
            present.push((codec.key(), bytes));
        }
    }
    out.len(present.len());
    for (key, bytes) in present {
        out.str(key);
        out.blob(&bytes);
    }
    let mut channel_bytes = Writer::default();
    let mut count = 0;
    for codec in &channels {
        let mut one = Writer::default();
        one.str(codec.key());
        if codec.save(world, &mut one)? {
            channel_bytes.bytes.extend_from_slice(&one.bytes);
            count += 1;
        }
    }
    out.len(count);
    out.bytes.extend_from_slice(&channel_bytes.bytes);
    Ok(out.bytes)
}

/// [`save_world`] into any writer (a file, a socket); rota-core itself opens no file.
///
/// # Errors
///
/// As [`save_world`], and [`WorldSaveError::Write`] when the writer fails.
pub fn save_world_to<C: SceneSet, R: ResourceSet, E: EventSet>(
    world: &World,
    mut out: impl std::io::Write,
) -> Result<(), WorldSaveError> {
    let bytes = save_world::<C, R, E>(world)?;
    out.write_all(&bytes)?;
    out.flush()?;
    Ok(())
}

/// Loads a world save into a fresh [`World`], listing the same kinds of types as
/// [`save_world`]. Component values go through the scene migration rules (an added field
/// gets its default, a retired one is dropped).
///
/// # Errors
///
/// [`WorldLoadError`] naming where (byte offset) and what: bad magic, an unsupported
/// version, truncation, an unknown or repeated type key, a component value refused (entity,
/// component, field), a resource or event value serde refuses, state that breaks a rule of
/// the world (a dead entity holding a component, a tick out of range, a hierarchy cycle),
/// trailing bytes. Never panics on any input; on error no world is returned.
pub fn load_world<C: SceneSet, R: ResourceSet, E: EventSet>(
    bytes: &[u8],
) -> Result<World, WorldLoadError> {
    let duplicate =
        |key: &'static str, _: &'static str, _: &'static str| WorldLoadError::DuplicateType {
            offset: 0,
            kind: "component key in the load's types",
            key: key.to_owned(),
        };
    let checked = checked_columns::<C, _>(duplicate)?;
    let mut input = Reader::new(bytes);
    if input.take(8, "the magic").ok() != Some(&MAGIC[..]) {
        return Err(WorldLoadError::NotAWorldSave);
    }
    let found = input.u32("the format version")?;
    if found != WORLD_FORMAT_VERSION {
        return Err(WorldLoadError::UnsupportedVersion {
            found,
            supported: WORLD_FORMAT_VERSION,
        });
    }
    // Component keys the log may hold: the listed types' and the hierarchy's.
    let mut names: BTreeMap<&'static str, (&'static str, TypeId)> = checked
        .columns
        .iter()
        .map(|c| (c.key(), (c.type_name(), c.type_id())))
        .collect();
    names.insert(CHILD_OF_KEY, (ChildOf::NAME, TypeId::of::<ChildOf>()));
    names.insert(CHILDREN_KEY, (Children::NAME, TypeId::of::<Children>()));
    let image = read_image(&mut input, &names)?;
    let mut world = World::from_image(image)
        .map_err(|source| WorldLoadError::Invalid { offset: 12, source })?;

    let at = input.offset;
    let hierarchy = read_hierarchy(&mut input)?;
    world
        .import_hierarchy(hierarchy)
        .map_err(|source| WorldLoadError::Invalid { offset: at, source })?;

    let mut columns: Vec<Option<Box<dyn crate::set::Column>>> =
        checked.columns.into_iter().map(Some).collect();
    let map = EntityMap::exact();
    let stores = input.count(12, "the stores")?;
    for _ in 0..stores {
        let at = input.offset;
        let key = input.str("a component key")?;
        let Some(&i) = checked.by_key.get(key) else {
            return Err(unknown(at, "component", key));
        };
        let Some(mut column) = columns[i].take() else {
            return Err(WorldLoadError::DuplicateType {
                offset: at,
                kind: "component",
                key: key.to_owned(),
            });
        };
        let last_changed = Tick::new(input.u32("a store's last change")?);
        let n = input.count(20, "a store's rows")?;
        let mut rows = Vec::with_capacity(n);
        let mut migrated = Migrated::default();
        for index in 0..n {
            let row_at = input.offset;
            let bits = input.u64("an entity")?;
            let added = Tick::new(input.u32("a tick")?);
            let changed = Tick::new(input.u32("a tick")?);
            let fields = input.count(5, "a value's fields")?;
            let mut values = Vec::with_capacity(fields);
            for _ in 0..fields {
                let id = input.u32("a field id")?;
                values.push((id, input.value()?));
            }
            column
                .decode(index, bits, Entries(values), &map, &mut migrated)
                .map_err(|source| WorldLoadError::Component {
                    offset: row_at,
                    source,
                })?;
            rows.push((Entity::from_bits(bits), ComponentTicks { added, changed }));
        }
        column
            .import_rows(&mut world, rows, last_changed)
            .map_err(|source| WorldLoadError::Invalid { offset: at, source })?;
    }

    let resources = R::codecs().0;
    let mut seen = Vec::new();
    let n = input.count(8, "the resources")?;
    for _ in 0..n {
        let at = input.offset;
        let key = input.str("a resource key")?;
        let Some(codec) = resources.iter().find(|c| c.key() == key) else {
            return Err(unknown(at, "resource", key));
        };
        if seen.contains(&codec.key()) {
            return Err(WorldLoadError::DuplicateType {
                offset: at,
                kind: "resource",
                key: key.to_owned(),
            });
        }
        seen.push(codec.key());
        let offset = input.offset + 4;
        let value = input.blob("a resource value")?;
        codec.load(&mut world, value, offset)?;
    }

    let channels = E::codecs().0;
    let mut seen = Vec::new();
    let n = input.count(40, "the event channels")?;
    for _ in 0..n {
        let at = input.offset;
        let key = input.str("an event key")?;
        let Some(codec) = channels.iter().find(|c| c.key() == key) else {
            return Err(unknown(at, "event", key));
        };
        if seen.contains(&codec.key()) {
            return Err(WorldLoadError::DuplicateType {
                offset: at,
                kind: "event",
                key: key.to_owned(),
            });
        }
        seen.push(codec.key());
        codec.load(&mut world, &mut input)?;
    }
    if input.remaining() > 0 {
        return Err(WorldLoadError::TrailingBytes {
            offset: input.offset,
        });
    }
    world
        .check_invariants()
        .map_err(|e| WorldLoadError::Invalid {
            offset: 0,
            source: ImageError::Inconsistent(e),
        })?;
    Ok(world)
}

fn unknown(offset: usize, kind: &'static str, key: &str) -> WorldLoadError {
    WorldLoadError::UnknownType {
        offset,
        kind,
        key: key.to_owned(),
    }
}

fn write_rewinds(rewinds: &[Rewind], out: &mut Writer) {
    out.len(rewinds.len());
    for r in rewinds {
        out.u64(r.to);
        out.u64(r.from);
    }
}

fn read_rewinds(input: &mut Reader<'_>) -> Result<Vec<Rewind>, WorldLoadError> {
    let n = input.count(16, "rewinds")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let to = input.u64("a rewind")?;
        let from = input.u64("a rewind")?;
        out.push(Rewind { to, from });
    }
    Ok(out)
}

fn write_image(
    image: &WorldImage,
    out: &mut Writer,
    keys: &BTreeMap<TypeId, &'static str>,
) -> Result<(), WorldSaveError> {
    out.u64(image.tick);
    out.u32(image.change_tick.get());
    out.u32(image.last_clamp.get());
    let allocator = &image.allocator;
    out.u32(allocator.slot_limit);
    out.u32(allocator.first_generation);
    out.len(allocator.slots.len());
    for &(generation, status) in &allocator.slots {
        out.u32(generation);
        out.u8(match status {
            SlotStatus::Alive => 0,
            SlotStatus::Free => 1,
            SlotStatus::Retired => 2,
        });
    }
    out.len(image.schedule_ticks.len());
    for (label, tick) in &image.schedule_ticks {
        out.str(label);
        out.u64(*tick);
    }
    out.len(image.system_runs.len());
    for (name, last) in &image.system_runs {
        out.str(name);
        out.u32(last.get());
    }
    match &image.log {
        None => out.u8(0),
        Some(log) => {
            out.u8(1);
            out.u64(log.capacity as u64);
            out.u64(log.next_sequence);
            out.u64(log.trimmed_to);
            write_rewinds(&log.rewinds, out);
            out.len(log.entries.len());
            for entry in &log.entries {
                out.u64(entry.sequence);
                match entry.change {
                    StructuralChange::Spawned(e) => {
                        out.u8(0);
                        out.u64(e.to_bits());
                    }
                    StructuralChange::Despawned(e) => {
                        out.u8(1);
                        out.u64(e.to_bits());
                    }
                    StructuralChange::Added {
                        entity,
                        component,
                        type_id,
                    }
                    | StructuralChange::Removed {
                        entity,
                        component,
                        type_id,
                    } => {
                        let Some(key) = keys.get(&type_id) else {
                            return Err(WorldSaveError::LogComponentNotCovered { component });
                        };
                        let added = matches!(entry.change, StructuralChange::Added { .. });
                        out.u8(if added { 2 } else { 3 });
                        out.u64(entity.to_bits());
                        out.str(key);
                    }
                    _ => {
                        return Err(WorldSaveError::LogComponentNotCovered {
                            component: "an unknown log entry",
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

fn read_image(
    input: &mut Reader<'_>,
    names: &BTreeMap<&'static str, (&'static str, TypeId)>,
) -> Result<WorldImage, WorldLoadError> {
    let tick = input.u64("the world tick")?;
    let change_tick = Tick::new(input.u32("the change clock")?);
    let last_clamp = Tick::new(input.u32("the last clamp")?);
    let slot_limit = input.u32("the allocator")?;
    let first_generation = input.u32("the allocator")?;
    let n = input.count(5, "the allocator's slots")?;
    let mut slots = Vec::with_capacity(n);
    for _ in 0..n {
        let generation = input.u32("a slot")?;
        let at = input.offset;
        let status = match input.u8("a slot")? {
            0 => SlotStatus::Alive,
            1 => SlotStatus::Free,
            2 => SlotStatus::Retired,
            tag => {
                return Err(WorldLoadError::BadTag {
                    offset: at,
                    what: "a slot's status",
                    tag,
                });
            }
        };
        slots.push((generation, status));
    }
    let n = input.count(12, "the schedules")?;
    let mut schedule_ticks = Vec::with_capacity(n);
    for _ in 0..n {
        let label = input.str("a schedule label")?.to_owned();
        schedule_ticks.push((label, input.u64("a schedule tick")?));
    }
    let n = input.count(8, "the systems")?;
    let mut system_runs = Vec::with_capacity(n);
    for _ in 0..n {
        let name = input.str("a system name")?.to_owned();
        system_runs.push((name, Tick::new(input.u32("a system's last run")?)));
    }
    let at = input.offset;
    let log = match input.u8("the log flag")? {
        0 => None,
        1 => {
            let capacity = usize::try_from(input.u64("the log")?).unwrap_or(usize::MAX);
            let next_sequence = input.u64("the log")?;
            let trimmed_to = input.u64("the log")?;
            let rewinds = read_rewinds(input)?;
            let n = input.count(17, "the log's entries")?;
            let mut entries = Vec::with_capacity(n);
            for _ in 0..n {
                let sequence = input.u64("a log entry")?;
                let kind_at = input.offset;
                let kind = input.u8("a log entry")?;
                let entity = Entity::from_bits(input.u64("a log entry")?);
                let change = match kind {
                    0 => StructuralChange::Spawned(entity),
                    1 => StructuralChange::Despawned(entity),
                    2 | 3 => {
                        let name_at = input.offset;
                        let name = input.str("a log entry's component")?;
                        let Some(&(component, type_id)) = names.get(name) else {
                            return Err(unknown(name_at, "component", name));
                        };
                        if kind == 2 {
                            StructuralChange::Added {
                                entity,
                                component,
                                type_id,
                            }
                        } else {
                            StructuralChange::Removed {
                                entity,
                                component,
                                type_id,
                            }
                        }
                    }
                    tag => {
                        return Err(WorldLoadError::BadTag {
                            offset: kind_at,
                            what: "a log entry",
                            tag,
                        });
                    }
                };
                entries.push(LogEntry { sequence, change });
            }
            Some(LogImage {
                capacity,
                next_sequence,
                rewinds,
                trimmed_to,
                entries,
            })
        }
        tag => {
            return Err(WorldLoadError::BadTag {
                offset: at,
                what: "the log flag",
                tag,
            });
        }
    };
    Ok(WorldImage {
        tick,
        change_tick,
        last_clamp,
        allocator: AllocatorImage {
            slot_limit,
            first_generation,
            slots,
        },
        schedule_ticks,
        system_runs,
        log,
    })
}

fn write_hierarchy(image: &HierarchyImage, out: &mut Writer) {
    out.u32(image.links_last_changed.get());
    out.len(image.links.len());
    for (child, parent, ticks) in &image.links {
        out.u64(child.to_bits());
        out.u64(parent.to_bits());
        out.u32(ticks.added.get());
        out.u32(ticks.changed.get());
    }
    out.u32(image.parents_last_changed.get());
    out.len(image.parents.len());
    for (parent, ticks) in &image.parents {
        out.u64(parent.to_bits());
        out.u32(ticks.added.get());
        out.u32(ticks.changed.get());
    }
}

fn read_hierarchy(input: &mut Reader<'_>) -> Result<HierarchyImage, WorldLoadError> {
    let what = "the hierarchy";
    let links_last_changed = Tick::new(input.u32(what)?);
    let n = input.count(24, what)?;
    let mut links = Vec::with_capacity(n);
    for _ in 0..n {
        let child = Entity::from_bits(input.u64(what)?);
        let parent = Entity::from_bits(input.u64(what)?);
        let added = Tick::new(input.u32(what)?);
        let changed = Tick::new(input.u32(what)?);
        links.push((child, parent, ComponentTicks { added, changed }));
    }
    let parents_last_changed = Tick::new(input.u32(what)?);
    let n = input.count(16, what)?;
    let mut parents = Vec::with_capacity(n);
    for _ in 0..n {
        let parent = Entity::from_bits(input.u64(what)?);
        let added = Tick::new(input.u32(what)?);
        let changed = Tick::new(input.u32(what)?);
        parents.push((parent, ComponentTicks { added, changed }));
    }
    Ok(HierarchyImage {
        links,
        links_last_changed,
        parents,
        parents_last_changed,
    })
}
