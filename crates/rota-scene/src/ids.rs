//! Scene ids: how entity references are written and read back.
//!
//! A scene numbers its entities 0, 1, 2, ... in ascending slot order of the saved world; an
//! entity reference is saved as that number and loaded as the entity spawned for it. Entity
//! bits (slot, generation) never reach the file.

use std::collections::BTreeMap;

use rota_core::{Entities, Entity};

/// Saving: live entity -> scene id (its rank in ascending slot order).
#[derive(Debug)]
pub struct EntityIds<'w> {
    entities: &'w Entities,
    /// Indexed by slot; only read for live entities.
    id_by_slot: Vec<u64>,
    /// World saves (`world_file`): every reference is written as the entity's own bits, dead
    /// or alive, since the whole allocator is saved with it.
    exact: bool,
}

impl<'w> EntityIds<'w> {
    pub(crate) fn new(entities: &'w Entities) -> EntityIds<'w> {
        let mut id_by_slot = vec![u64::MAX; entities.slot_count()];
        for (id, e) in entities.iter().enumerate() {
            id_by_slot[e.slot() as usize] = id as u64;
        }
        EntityIds {
            entities,
            id_by_slot,
            exact: false,
        }
    }

    /// Ids that are the entities' own bits (`world_file`: the allocator is saved exactly).
    pub(crate) fn exact(entities: &'w Entities) -> EntityIds<'w> {
        EntityIds {
            entities,
            id_by_slot: Vec::new(),
            exact: true,
        }
    }

    /// The scene id of `entity`, if it is alive (every live entity is in the scene).
    pub fn id_of(&self, entity: Entity) -> Option<u64> {
        if self.exact {
            Some(entity.to_bits())
        } else if self.entities.is_alive(entity) {
            self.id_by_slot.get(entity.slot() as usize).copied()
        } else {
            None
        }
    }
}

/// Loading: scene id -> the entity spawned for it.
///
/// Saved files number entities 0..n, so ids below the record count are looked up in a `Vec`
/// (one index per reference: a 100k-entity load spent 4% of its time in the `BTreeMap`
/// before, `perf record` on `cargo bench --bench scene`); hand-written ids beyond it go to
/// the map.
#[derive(Debug, Default)]
pub struct EntityMap {
    dense: Vec<Option<Entity>>,
    sparse: BTreeMap<u64, Entity>,
    /// World loads (`world_file`): an id is the entity's bits.
    exact: bool,
}

impl EntityMap {
    /// A map for a file of `records` entities.
    pub(crate) fn with_records(records: usize) -> EntityMap {
        EntityMap {
            dense: vec![None; records],
            sparse: BTreeMap::new(),
            exact: false,
        }
    }

    /// The map of a world load: every id is the entity with those bits.
    pub(crate) fn exact() -> EntityMap {
        EntityMap {
            exact: true,
            ..EntityMap::default()
        }
    }

    /// Records that scene id `id` became `entity` (ids are unique: checked before).
    pub(crate) fn insert(&mut self, id: u64, entity: Entity) {
        match usize::try_from(id).ok().and_then(|i| self.dense.get_mut(i)) {
            Some(slot) => *slot = Some(entity),
            None => {
                self.sparse.insert(id, entity);
            }
        }
    }

    /// The entity spawned for scene id `id`, if the scene has it.
    pub fn entity(&self, id: u64) -> Option<Entity> {
        if self.exact {
            return Some(Entity::from_bits(id));
        }
        match usize::try_from(id).ok().and_then(|i| self.dense.get(i)) {
            Some(entity) => *entity,
            None => self.sparse.get(&id).copied(),
        }
    }
}
