//! `World::full_checksum`: a stable hash of the whole world state, with no list of types.

use crate::error::ChecksumError;
use crate::stable_hash::{StableHash, StableHasher};
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
    /// age on the change clock, clamped to [`MAX_AGE`](crate::tick::MAX_AGE); a reader's cursor as its place among
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
            stores: _,     // hashed_store_order, hash_store
            registry: _,   // lookup only: derived from `stores`
            membership: _, // derived from the stores' contents
            resources: _,  // hashed_resource_order, hash_resource
            tick,
            // Hashed through the ages of what was stamped with it (component ticks, systems'
            // last runs): two worlds that agree hash alike whatever their clocks read.
            change_tick: _,
            last_clamp: _, // when ticks were last clamped: bookkeeping, no effect on results
            system_runs: _, // system_ages
            system_names: _, // system_ages
            unbound_system_runs: _, // system_ages
            schedule_ticks: _, // hash_schedule_ticks
            log: _,        // a record of past changes, read by consumers; copied, not hashed
            issued: _,     // how far numbers went, across restores: not state (see `issued.rs`)
            shares_columns: _, // whether despawns copy shared columns first; no effect on results
        } = self;
        let mut h = StableHasher::new();
        tick.stable_hash(&mut h);
        entities.stable_hash_state(&mut h);
        // Each schedule's own tick decides which strided systems run next.
        self.hash_schedule_ticks(&mut h);
        // Each system's last run decides what its `Changed`/`Added` filters see next: hashed
        // as its age, by the system's name (the map's `TypeId` keys differ between builds).
        self.system_ages().stable_hash(&mut h);

        let order = self.hashed_store_order();
        order.len().stable_hash(&mut h);
        for i in order {
            self.stores[i].name.stable_hash(&mut h);
            self.hash_store(i, &mut h)?;
        }

        let present = self.hashed_resource_order();
        present.len().stable_hash(&mut h);
        for i in present {
            self.resources.entries[i].name.stable_hash(&mut h);
            self.hash_resource(i, &mut h)?;
        }
        Ok(h.finish())
    }
}

impl World {
    /// [`World::full_checksum`] in parts, so two peers can compare cheaply and see where they
    /// differ: `("world", ..)` (the tick, each schedule's tick, each system's last run),
    /// `("entities", ..)` (the allocator), then `("component <name>", ..)` per non-empty store
    /// and `("resource <name>", ..)` per present resource (event channels included), each
    /// hashed as `full_checksum` hashes it and in its order.
    ///
    /// # Errors
    ///
    /// As [`World::full_checksum`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rota::{Component, StableHash, World};
    /// #[derive(Component, StableHash, Clone)]
    /// struct Hp(u32);
    /// let mut a = World::new();
    /// let e = a.spawn_with((Hp(3),));
    /// let mut b = World::new();
    /// b.spawn_with((Hp(4),));
    /// let (pa, pb) = (a.checksum_parts()?, b.checksum_parts()?);
    /// let differing: Vec<&str> = pa.iter().zip(&pb)
    ///     .filter(|(x, y)| x != y)
    ///     .map(|(x, _)| x.0.as_str())
    ///     .collect();
    /// assert_eq!(differing, ["component Hp"]);
    /// # let _ = e;
    /// # Ok::<(), rota::ChecksumError>(())
    /// ```
    pub fn checksum_parts(&self) -> Result<Vec<(String, u64)>, ChecksumError> {
        let mut parts = Vec::new();
        let mut h = StableHasher::new();
        self.tick.stable_hash(&mut h);
        self.hash_schedule_ticks(&mut h);
        self.system_ages().stable_hash(&mut h);
        parts.push(("world".to_owned(), h.finish()));
        let mut h = StableHasher::new();
        self.entities.stable_hash_state(&mut h);
        parts.push(("entities".to_owned(), h.finish()));
        for i in self.hashed_store_order() {
            let mut h = StableHasher::new();
            self.hash_store(i, &mut h)?;
            parts.push((format!("component {}", self.stores[i].name), h.finish()));
        }
        for i in self.hashed_resource_order() {
            let mut h = StableHasher::new();
            self.hash_resource(i, &mut h)?;
            let name = self.resources.entries[i].name;
            parts.push((format!("resource {name}"), h.finish()));
        }
        Ok(parts)
    }

    /// Each schedule's tick, in label order.
    fn hash_schedule_ticks(&self, h: &mut StableHasher) {
        self.schedule_ticks.len().stable_hash(h);
        for (label, tick) in &self.schedule_ticks {
            (**label).stable_hash(h);
            tick.stable_hash(h);
        }
    }

    /// Store `i`'s length and values (with their ticks' ages).
    fn hash_store(&self, i: usize, h: &mut StableHasher) -> Result<(), ChecksumError> {
        let entry = &self.stores[i];
        entry.store.len().stable_hash(h);
        if entry.store.stable_hash_values(h) {
            Ok(())
        } else {
            Err(ChecksumError::ComponentNotHashable {
                component: entry.name,
            })
        }
    }

    /// Resource `i`'s value.
    fn hash_resource(&self, i: usize, h: &mut StableHasher) -> Result<(), ChecksumError> {
        let entry = &self.resources.entries[i];
        let hashed = entry
            .value
            .as_deref()
            .is_some_and(|v| (entry.fns.stable_hash)(v, h));
        if hashed {
            Ok(())
        } else {
            Err(ChecksumError::ResourceNotHashable {
                resource: entry.name,
            })
        }
    }

    /// Each system's last run as `(name, age)`, sorted: what `full_checksum` hashes.
    pub(crate) fn system_ages(&self) -> Vec<(&str, u32)> {
        let now = self.change_tick;
        let mut runs: Vec<(&str, u32)> = self
            .system_runs
            .iter()
            .map(|(id, last)| {
                let name = self.system_names.get(id).copied().unwrap_or("");
                (name, last.clamped_age(now))
            })
            .chain(
                self.unbound_system_runs
                    .iter()
                    .map(|(name, last)| (&**name, last.clamped_age(now))),
            )
            .collect();
        runs.sort_unstable();
        runs
    }

    /// The non-empty stores in `full_checksum`'s order (by type name).
    pub(crate) fn hashed_store_order(&self) -> Vec<usize> {
        let stores = &self.stores;
        let mut order: Vec<usize> = (0..stores.len())
            .filter(|&i| stores[i].store.len() > 0)
            .collect();
        order.sort_by_key(|&i| stores[i].store.type_name());
        order
    }

    /// The present resources in `full_checksum`'s order (vacant event channels left out).
    pub(crate) fn hashed_resource_order(&self) -> Vec<usize> {
        let entries = &self.resources.entries;
        let mut present: Vec<usize> = (0..entries.len())
            .filter(|&i| {
                entries[i].value.as_deref().is_some_and(|v| {
                    !(entries[i].fns.stream)(v).is_some_and(|stream| stream.is_vacant())
                })
            })
            .collect();
        present.sort_by_key(|&i| (entries[i].fns.type_name)());
        present
    }
}
