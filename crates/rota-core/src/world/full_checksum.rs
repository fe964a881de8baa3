//! `World::full_checksum`: a stable hash of the whole world state, with no list of types.

use crate::error::ChecksumError;
use crate::stable_hash::{StableHash, StableHasher};
use crate::world::World;

impl World {
    /// A stable checksum of the **whole** world, with no type list: the tick, the entity
    /// allocator's full state (every slot's generation and whether it is alive, free or
    /// retired — so it also covers which handles future spawns get), every non-empty store as
    /// `(slot, value)` pairs in ascending slot order, and every resource present.
    ///
    /// Stores and resources are visited in order of their type's `std::any::type_name`
    /// (registration order breaks ties), not registration order: two worlds with equal
    /// contents hash alike whichever type each met first. Empty stores are skipped, so a
    /// registered but empty store equals an unregistered one. Deterministic: no hash map is
    /// walked, and the encoding is [`StableHash`]'s (fixed little-endian).
    ///
    /// This is the checksum to hand a rollback library (GGRS compares it across re-simulated
    /// frames): it cannot forget a component type added later.
    ///
    /// # Errors
    ///
    /// [`ChecksumError`] naming a non-empty component store or a present resource whose type
    /// has no stable hash (derive [`StableHash`] for it; the `Component`/`Resource` derives
    /// pick it up). An event channel is always covered: its positions, and its retained
    /// events when their type derives `StableHash` too (see [`Event::stable_hash_fn`](crate::Event::stable_hash_fn)). A checksum that silently skipped state would hide exactly the divergence
    /// it is for.
    ///
    /// ```
    /// use rota::World;
    /// let mut a = World::new();
    /// let b = World::new();
    /// assert_eq!(a.full_checksum(), b.full_checksum());
    /// a.spawn();
    /// assert_ne!(a.full_checksum(), b.full_checksum());
    /// ```
    pub fn full_checksum(&self) -> Result<u64, ChecksumError> {
        // Exhaustive on purpose: a field added to `World` is a compile error here until it is
        // hashed or listed as derived state (like the two below).
        let World {
            entities,
            stores,
            registry: _,   // lookup only: derived from `stores`
            membership: _, // derived from the stores' contents
            resources,
            tick,
            change_tick,
            last_clamp: _, // when ticks were last clamped: bookkeeping, no effect on results
            // Each system's last run affects what `Changed` shows it next, but it is keyed by
            // `TypeId`, which differs between builds; snapshots copy it, the hash leaves it out.
            system_runs: _,
            log: _, // a record of past changes, read by consumers; copied, not hashed
            shares_columns: _, // whether despawns copy shared columns first; no effect on results
        } = self;
        let mut h = StableHasher::new();
        tick.stable_hash(&mut h);
        change_tick.get().stable_hash(&mut h);
        entities.stable_hash_state(&mut h);

        let mut order: Vec<usize> = (0..stores.len())
            .filter(|&i| stores[i].store.len() > 0)
            .collect();
        order.sort_by_key(|&i| stores[i].store.type_name());
        order.len().stable_hash(&mut h);
        for i in order {
            let entry = &stores[i];
            entry.name.stable_hash(&mut h);
            entry.store.len().stable_hash(&mut h);
            if !entry.store.stable_hash_values(&mut h) {
                return Err(ChecksumError::ComponentNotHashable {
                    component: entry.name,
                });
            }
        }

        let entries = &resources.entries;
        let mut present: Vec<usize> = (0..entries.len())
            .filter(|&i| entries[i].value.is_some())
            .collect();
        present.sort_by_key(|&i| (entries[i].fns.type_name)());
        present.len().stable_hash(&mut h);
        for i in present {
            let entry = &entries[i];
            entry.name.stable_hash(&mut h);
            let hashed = entry
                .value
                .as_deref()
                .is_some_and(|v| (entry.fns.stable_hash)(v, &mut h));
            if !hashed {
                return Err(ChecksumError::ResourceNotHashable {
                    resource: entry.name,
                });
            }
        }
        Ok(h.finish())
    }
}
