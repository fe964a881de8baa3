//! `World::full_checksum`: a stable hash of the whole world state, with no list of types.

use crate::error::ChecksumError;
use crate::stable_hash::{StableHash, StableHasher};
use crate::tick::MAX_AGE;
use crate::world::World;

impl World {
    /// A stable checksum of the **whole** world, with no type list: everything that decides
    /// the next tick. That is the tick and each schedule's own tick (strides), the entity
    /// allocator's full state (every slot's generation and whether it is alive, free or
    /// retired — so it also covers which handles future spawns get), every non-empty store as
    /// `(slot, value, added age, changed age)` in ascending slot order, each system's last run
    /// (by name, as an age: its next `Changed` window), and every resource present, event
    /// channels included (their events, and where each system reader and the retention marks
    /// stand among them).
    ///
    /// Ticks and sequence numbers are hashed **relative** to the world (a change tick as its
    /// age on the change clock, clamped to [`MAX_AGE`]; a reader's cursor as its place among
    /// the retained events): two worlds that agree hash alike whatever their clocks read and
    /// whatever restores numbered their events. The structural log (a record of the past) is
    /// not hashed.
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
            // Hashed through the ages of what was stamped with it (component ticks, systems'
            // last runs): two worlds that agree hash alike whatever their clocks read.
            change_tick,
            last_clamp: _, // when ticks were last clamped: bookkeeping, no effect on results
            system_runs,
            system_names,
            unbound_system_runs,
            schedule_ticks,
            log: _,    // a record of past changes, read by consumers; copied, not hashed
            issued: _, // how far numbers went, across restores: not state (see `issued.rs`)
            shares_columns: _, // whether despawns copy shared columns first; no effect on results
        } = self;
        let mut h = StableHasher::new();
        tick.stable_hash(&mut h);
        entities.stable_hash_state(&mut h);

        // Each schedule's own tick decides which strided systems run next.
        schedule_ticks.len().stable_hash(&mut h);
        for (label, tick) in schedule_ticks {
            (**label).stable_hash(&mut h);
            tick.stable_hash(&mut h);
        }
        // Each system's last run decides what its `Changed`/`Added` filters see next: hashed
        // as its age, by the system's name (the map's `TypeId` keys differ between builds).
        let mut runs: Vec<(&str, u32)> = system_runs
            .iter()
            .map(|(id, last)| {
                let name = system_names.get(id).copied().unwrap_or("");
                (name, last.age(*change_tick).min(MAX_AGE))
            })
            .chain(
                unbound_system_runs
                    .iter()
                    .map(|(name, last)| (&**name, last.age(*change_tick).min(MAX_AGE))),
            )
            .collect();
        runs.sort_unstable();
        runs.len().stable_hash(&mut h);
        for (name, age) in runs {
            name.stable_hash(&mut h);
            age.stable_hash(&mut h);
        }

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
        // An event channel that holds nothing that decides the future (no event, no reader)
        // hashes like an absent one: a restore may leave one where the other world has none.
        let mut present: Vec<usize> = (0..entries.len())
            .filter(|&i| {
                entries[i].value.as_deref().is_some_and(|v| {
                    !(entries[i].fns.stream)(v).is_some_and(|stream| stream.is_vacant())
                })
            })
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
