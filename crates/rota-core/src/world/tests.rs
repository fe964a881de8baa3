//! Unit tests of `World` internals: the change clock's clamping (`world/mod.rs`, `tick.rs`) and
//! what `World::delete` leaves in a store.

mod change_clock {
    use super::super::World;
    use crate::tick::{CHECK_INTERVAL, MAX_AGE, Tick};
    use crate::{Changed, Component, Entity};

    struct Hp(#[allow(dead_code)] u32);
    impl Component for Hp {
        const NAME: &'static str = "Hp";
        const UNIQUE_KEY: Option<&'static str> = Some("world::tests::change_clock::Hp");
    }

    /// Jumps the clock `by` ticks as `advance_change_tick` would have seen it, without running
    /// half a billion advances: the clamp is due once `by >= CHECK_INTERVAL`.
    fn jump(world: &mut World, by: u32) {
        let target = Tick::new(world.change_tick.get().wrapping_add(by - 1));
        world.change_tick = target;
        world.advance_change_tick();
    }

    #[test]
    fn old_ticks_are_clamped_so_ages_never_wrap() {
        let mut world = World::new();
        world.set_change_tick(Tick::new(u32::MAX - 10));
        let old = world.spawn_with((Hp(1),));
        // Three quarters of the u32 range later, without the clamp `old` would look brand new
        // again once the clock came round; with it, it stays older than any recent window.
        for _ in 0..6 {
            jump(&mut world, CHECK_INTERVAL);
        }
        let now = world.change_tick();
        let ticks = world.store::<Hp>().unwrap().ticks(old).unwrap();
        assert_eq!(ticks.changed.age(now), MAX_AGE, "clamped to the horizon");
        let recent = world.change_checkpoint();
        let fresh = world.spawn_with((Hp(2),));
        let changed: Vec<Entity> = world.query_since::<Entity, Changed<Hp>>(recent).collect();
        assert_eq!(changed, [fresh]);
        assert!(world.check_invariants().is_ok());
    }

    /// A walk that hands out every value stamps the store's floor (one tick for all of them);
    /// the clamp ages it like every other tick.
    #[test]
    fn a_floor_stamped_by_a_whole_walk_is_clamped_too() {
        let mut world = World::new();
        world.set_change_tick(Tick::new(u32::MAX - 10));
        let es: Vec<Entity> = (0..3).map(|i| world.spawn_with((Hp(i),))).collect();
        world.change_checkpoint();
        world.query_mut::<&mut Hp>().for_each(|hp| hp.0 += 1);
        assert!(world.store::<Hp>().unwrap().changed_floor().is_some());
        // Eight jumps bring the clock round to where the floor was: unclamped, it would look
        // newer than a checkpoint taken one jump before.
        for _ in 0..7 {
            jump(&mut world, CHECK_INTERVAL);
        }
        let recent = world.change_checkpoint();
        jump(&mut world, CHECK_INTERVAL);
        let now = world.change_tick();
        let store = world.store::<Hp>().unwrap();
        for &e in &es {
            assert_eq!(store.ticks(e).unwrap().changed.age(now), MAX_AGE, "clamped");
        }
        assert!(
            store
                .dense_changed_ticks()
                .iter()
                .all(|t| t.age(now) == MAX_AGE)
        );
        let changed: Vec<Entity> = world.query_since::<Entity, Changed<Hp>>(recent).collect();
        assert!(changed.is_empty(), "{changed:?}");
        world.get_mut::<Hp>(es[1]).unwrap().0 += 1;
        let changed: Vec<Entity> = world.query_since::<Entity, Changed<Hp>>(recent).collect();
        assert_eq!(changed, [es[1]]);
        assert!(world.check_invariants().is_ok());
    }

    /// A clock set back after a whole walk (outside `set_change_tick`'s contract for a world,
    /// but what a free-standing store allows): each value keeps the tick it was written at.
    #[test]
    fn a_clock_set_back_after_a_whole_walk_keeps_each_values_tick() {
        let mut world = World::new();
        world.set_change_tick(Tick::new(100));
        let es: Vec<Entity> = (0..3).map(|i| world.spawn_with((Hp(i),))).collect();
        world.change_checkpoint(); // now 101
        world.query_mut::<&mut Hp>().for_each(|hp| hp.0 += 1);
        world.change_checkpoint(); // now 102
        world.get_mut::<Hp>(es[0]).unwrap().0 += 1;
        world.set_change_tick(Tick::new(101));
        world.get_mut::<Hp>(es[2]).unwrap().0 += 1;
        let store = world.store::<Hp>().unwrap();
        let ticks: Vec<u32> = es
            .iter()
            .map(|&e| store.ticks(e).unwrap().changed.get())
            .collect();
        assert_eq!(ticks, [102, 101, 101]);
        let changed: Vec<Entity> = world
            .query_since::<Entity, Changed<Hp>>(Tick::new(100))
            .collect();
        assert_eq!(changed, [es[1], es[2]]);
    }

    #[test]
    fn a_systems_last_run_is_clamped_too() {
        let mut world = World::new();
        let id = std::any::TypeId::of::<Hp>(); // any TypeId stands for a system here
        world.begin_system_runs(&[id]);
        for _ in 0..4 {
            jump(&mut world, CHECK_INTERVAL);
        }
        let last = world.system_last_run(id).unwrap();
        assert_eq!(last.age(world.change_tick()), MAX_AGE);
    }

    std::thread_local! {
        static ARMED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// A component whose `Clone` panics while `ARMED` (on this thread).
    #[derive(Debug)]
    struct Fragile(u32);
    impl Clone for Fragile {
        fn clone(&self) -> Self {
            assert!(!ARMED.with(std::cell::Cell::get), "Fragile::clone refuses");
            Fragile(self.0)
        }
    }
    impl Component for Fragile {
        const NAME: &'static str = "Fragile";
        const UNIQUE_KEY: Option<&'static str> = Some("world::tests::change_clock::Fragile");
        const SNAPSHOT: crate::snapshot::SnapshotPolicy<Self> =
            crate::snapshot::SnapshotPolicy::CLONE;
    }

    /// A plain component that snapshots copy.
    #[derive(Clone, Debug)]
    struct Tally(u32);
    impl Component for Tally {
        const NAME: &'static str = "Tally";
        const UNIQUE_KEY: Option<&'static str> = Some("world::tests::change_clock::Tally");
        const SNAPSHOT: crate::snapshot::SnapshotPolicy<Self> =
            crate::snapshot::SnapshotPolicy::CLONE;
    }

    /// The clamp writes tick columns that a snapshot may share, so it copies them (running the
    /// component's `Clone`) before the clock moves: a `Clone` that panics there leaves the
    /// clock, the systems' last runs and every store's tick as they were, so a write after it is
    /// still seen as new. Found by two adversarial reviews: the clock had moved and the stores
    /// had not — first in `change_checkpoint`, then when the clamp fell on a later one of the
    /// moves `begin_system_runs` makes (one per system, then one more).
    #[test]
    fn a_clamp_whose_copy_panics_leaves_the_clock_where_it_was() {
        let systems = [
            std::any::TypeId::of::<Tally>(),
            std::any::TypeId::of::<Hp>(),
        ];
        // (how the clock moves, after how many of its moves the clamp is due)
        let cases = [
            ("change_checkpoint", 1),
            ("begin_system_runs", 1),
            ("begin_system_runs", 2),
            ("begin_system_runs", 3),
        ];
        for (path, due_at) in cases {
            let case = format!("{path}, the clamp due at move {due_at}");
            let mut world = World::new();
            let e = world.spawn_with((Fragile(1), Tally(1)));
            let _snapshot = world.snapshot().unwrap();
            let start = Tick::new(world.last_clamp.get().wrapping_add(CHECK_INTERVAL - due_at));
            world.change_tick = start;
            let state = |w: &World| {
                (
                    w.change_tick(),
                    w.store::<Tally>().unwrap().change_tick(),
                    w.store::<Fragile>().unwrap().change_tick(),
                    w.system_last_run(systems[0]),
                    w.system_last_run(systems[1]),
                )
            };
            let before = state(&world);
            let moved = |w: &mut World| match path {
                "change_checkpoint" => drop(w.change_checkpoint()),
                _ => drop(w.begin_system_runs(&systems)),
            };
            ARMED.with(|a| a.set(true));
            let caught =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| moved(&mut world)));
            ARMED.with(|a| a.set(false));
            assert!(
                caught.is_err(),
                "{case}: the clamp copied the shared values"
            );
            assert_eq!(state(&world), before, "{case}: nothing moved");
            for entry in &world.stores {
                entry.store.check_invariants().unwrap();
            }
            // `Clone` works again: the clock moves on through the clamp, and a write is seen.
            moved(&mut world);
            let since = world.change_checkpoint();
            world.get_mut::<Tally>(e).unwrap().0 = 2;
            let changed: Vec<Entity> = world.query_since::<Entity, Changed<Tally>>(since).collect();
            assert_eq!(changed, [e], "{case}");
            let now = world.change_tick();
            let (_, tally, fragile, ..) = state(&world);
            assert_eq!((tally, fragile), (now, now), "{case}");
        }
    }
}

/// `World::delete` leaves a value with no drop glue dead in place (`store/dead.rs`).
mod delete {
    use super::super::World;
    use crate::{Component, Entity};

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Hp(u32);
    impl Component for Hp {
        const NAME: &'static str = "Hp";
        const UNIQUE_KEY: Option<&'static str> = Some("world::tests::delete::Hp");
        const SNAPSHOT: crate::SnapshotPolicy<Self> = crate::SnapshotPolicy::CLONE;
    }

    /// Excluded from snapshots (a hand-written impl's default): its store is never all dead.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Cold(u32);
    impl Component for Cold {
        const NAME: &'static str = "Cold";
        const UNIQUE_KEY: Option<&'static str> = Some("world::tests::delete::Cold");
    }

    /// A value with drop glue: removed, not left dead.
    #[derive(Clone, Debug, PartialEq)]
    struct Name(String);
    impl Component for Name {
        const NAME: &'static str = "Name";
        const UNIQUE_KEY: Option<&'static str> = Some("world::tests::delete::Name");
    }

    #[test]
    fn a_deleted_then_reinserted_entity_is_revived_in_place() {
        let mut world = World::new();
        let es = world.spawn_batch((0..3).map(|i| (Hp(i),)));
        let before = world.store::<Hp>().unwrap().ticks(es[1]).unwrap();
        let since = world.change_checkpoint();
        assert_eq!(world.delete::<Hp>(es[1]), Ok(true));
        assert_eq!(world.get::<Hp>(es[1]), None);
        assert_eq!(world.store::<Hp>().unwrap().dense_entities(), es);
        world.insert(es[1], Hp(99)).unwrap();
        let store = world.store::<Hp>().unwrap();
        // Back at its place: nothing appended, nothing out of order.
        assert_eq!(store.dense_entities(), es);
        assert!(store.is_settled());
        assert_eq!(store.dense_index(es[1]), Some(1));
        let after = store.ticks(es[1]).unwrap();
        assert!(after.added.is_newer_than(since, world.change_tick()));
        assert!(!before.added.is_newer_than(since, world.change_tick()));
        assert_eq!(after.added, after.changed);
        assert_eq!(world.get::<Hp>(es[1]), Some(&Hp(99)));
        assert!(world.check_invariants().is_ok());
        let values: Vec<Hp> = world.query::<&Hp>().copied().collect();
        assert_eq!(values, [Hp(0), Hp(99), Hp(2)]);
        // Despawned with its value live again: nothing is left of it.
        world.despawn(es[1]).unwrap();
        world.settle();
        assert_eq!(
            world.store::<Hp>().unwrap().dense_entities(),
            [es[0], es[2]]
        );
        assert!(world.check_invariants().is_ok());
    }

    #[test]
    fn a_new_entity_in_a_dead_elements_slot_is_appended_not_revived() {
        let mut world = World::new();
        let es = world.spawn_batch((0..3).map(|i| (Hp(i),)));
        world.despawn(es[1]).unwrap(); // left dead, its slot's entry tagged
        let reborn = world.spawn_with(());
        assert_eq!(reborn.slot(), es[1].slot());
        world.insert(reborn, Hp(7)).unwrap();
        let store = world.store::<Hp>().unwrap();
        // The dead element belongs to the despawned generation: the new one is appended.
        assert_eq!(store.dense_entities(), [es[0], es[1], es[2], reborn]);
        assert_eq!(world.get::<Hp>(reborn), Some(&Hp(7)));
        assert_eq!(world.get::<Hp>(es[1]), None);
        assert!(world.check_invariants().is_ok());
        let values: Vec<Hp> = world.query::<&Hp>().copied().collect();
        assert_eq!(values, [Hp(0), Hp(7), Hp(2)]);
    }

    #[test]
    fn a_store_left_all_dead_revives_every_element() {
        let mut world = World::new();
        let es = world.spawn_batch((0..4).map(|i| (Hp(i),)));
        for &e in &es {
            assert_eq!(world.delete::<Hp>(e), Ok(true));
        }
        let store = world.store::<Hp>().unwrap();
        assert_eq!((store.len(), store.dense_entities().len()), (0, 4));
        assert!(world.check_invariants().is_ok());
        assert_eq!(world.query::<&Hp>().count(), 0);
        // Reinserted in another order: every element comes back in place.
        for &e in es.iter().rev() {
            world.insert(e, Hp(e.slot() + 10)).unwrap();
        }
        let store = world.store::<Hp>().unwrap();
        assert_eq!(store.dense_entities(), es);
        assert!(store.is_settled());
        let values: Vec<Hp> = world.query::<&Hp>().copied().collect();
        assert_eq!(values, [Hp(10), Hp(11), Hp(12), Hp(13)]);
        assert!(world.check_invariants().is_ok());
    }

    /// Memory running out while the second store of a batch takes its entities: the first
    /// store holds them, the second none, and the membership index, the structural log and
    /// every store agree before the panic goes on.
    #[test]
    fn spawn_batch_out_of_memory_in_a_store_leaves_a_consistent_world() {
        use crate::store::FAIL_ATTACH_AFTER;
        let mut world = World::new();
        world.enable_structural_log(1000);
        let first = world.spawn_batch((0..3).map(|i| (Hp(i), Cold(i))));
        world.despawn(first[1]).unwrap(); // a free slot the next batch reuses first
        let logged = world.structural_log().unwrap().len();
        FAIL_ATTACH_AFTER.set(Some(1));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            world.spawn_batch((10..13).map(|i| (Hp(i), Cold(i))))
        }));
        FAIL_ATTACH_AFTER.set(None);
        let message = caught.unwrap_err();
        let message = message.downcast_ref::<String>().map(String::as_str);
        assert!(
            message.is_some_and(|m| m.contains("out of memory")),
            "{message:?}"
        );
        world.check_invariants().unwrap();
        assert_eq!(world.len(), 5);
        let hp: Vec<(u32, u32)> = world
            .query::<(Entity, &Hp)>()
            .map(|(e, h)| (e.slot(), h.0))
            .collect();
        assert_eq!(hp, [(0, 0), (1, 10), (2, 2), (3, 11), (4, 12)]);
        let cold: Vec<u32> = world.query::<&Cold>().map(|c| c.0).collect();
        assert_eq!(cold, [0, 2]);
        // One `Spawned` and one `Added` (for `Hp`) per entity of the batch.
        assert_eq!(world.structural_log().unwrap().len(), logged + 6);
        // The world goes on: a later batch spawns whole.
        let later = world.spawn_batch([(Hp(20), Cold(20))]);
        assert_eq!(world.get::<Cold>(later[0]), Some(&Cold(20)));
        world.check_invariants().unwrap();
    }

    #[test]
    fn a_store_excluded_from_snapshots_is_emptied_when_all_dead() {
        let mut world = World::new();
        let es = world.spawn_batch((0..3).map(|i| (Cold(i),)));
        for &e in &es {
            assert_eq!(world.delete::<Cold>(e), Ok(true));
        }
        // Emptied at once, so a snapshot may copy it without copying values.
        assert!(world.store::<Cold>().unwrap().dense_entities().is_empty());
        assert!(world.snapshot().is_ok());
        world.insert(es[2], Cold(5)).unwrap();
        world.insert(es[0], Cold(4)).unwrap();
        assert_eq!(
            world.store::<Cold>().unwrap().dense_entities(),
            [es[2], es[0]]
        );
        let values: Vec<Cold> = world.query::<&Cold>().copied().collect();
        assert_eq!(values, [Cold(4), Cold(5)]);
        assert!(world.check_invariants().is_ok());
    }

    #[test]
    fn a_value_with_drop_glue_is_removed_not_left_dead() {
        let mut world = World::new();
        let es = world.spawn_batch((0..3).map(|i| (Name(i.to_string()),)));
        assert_eq!(world.delete::<Name>(es[0]), Ok(true));
        // Swap-removed: the last element filled the hole, nothing is dead.
        assert_eq!(
            world.store::<Name>().unwrap().dense_entities(),
            [es[2], es[1]]
        );
        assert_eq!(world.delete::<Name>(es[0]), Ok(false));
        assert!(world.check_invariants().is_ok());
    }
}

/// A component numbered past the registry's dense table (`registry::DENSE_LIMIT`, reached only
/// by a process with 65,536 numbered types) is looked up through the `TypeId` tree: every
/// world operation still finds its one store.
mod numbered_past_the_table {
    use super::super::World;
    use crate::Component;
    use std::sync::atomic::AtomicU32;

    /// Already numbered 70,000, as if 70,000 types had been met first.
    static FAR_CELL: AtomicU32 = AtomicU32::new(70_000);

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Far(u32);
    impl Component for Far {
        const NAME: &'static str = "Far";
        const UNIQUE_KEY: Option<&'static str> = Some("world::tests::numbered_past_the_table::Far");
        fn __registry_cell() -> Option<&'static AtomicU32> {
            Some(&FAR_CELL)
        }
    }

    #[test]
    fn a_type_numbered_past_the_table_keeps_one_store() {
        let mut world = World::new();
        let es = world.spawn_batch((0..4).map(|i| (Far(i),)));
        assert_eq!(world.insert(es[0], Far(10)), Ok(Some(Far(0))));
        assert_eq!(world.get::<Far>(es[1]), Some(&Far(1)));
        assert_eq!(world.remove::<Far>(es[1]), Ok(Some(Far(1))));
        assert_eq!(world.delete::<Far>(es[2]), Ok(true));
        assert!(!world.has::<Far>(es[2]) && world.has::<Far>(es[3]));
        let values: Vec<u32> = world.query::<&Far>().map(|f| f.0).collect();
        assert_eq!(values, [10, 3]);
        assert_eq!(world.store::<Far>().map(|s| s.len()), Some(2));
        world.check_invariants().unwrap();
    }
}
