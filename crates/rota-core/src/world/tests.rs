//! Unit tests of `World` internals: the change clock's clamping (`world/mod.rs`, `tick.rs`).

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
}
