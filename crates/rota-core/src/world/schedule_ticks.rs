//! Each schedule's own tick: strides (`every_ticks`) count the runs of the schedule they
//! belong to, so two schedules on one world (an update and a fixed step) never starve each
//! other's strides.
//!
//! A schedule is known to the world by its label (`rota-schedule` gives every schedule one:
//! its own, or the list of its systems). Its tick starts at the world's tick when it first runs
//! on the world — so a world with one schedule sees the same strides as before schedules had
//! ticks of their own — and goes up by one per completed run of that schedule. The ticks are
//! state: snapshotted, restored (strides resume in phase after a rollback) and hashed by
//! `full_checksum`.

use crate::world::World;

impl World {
    /// The tick schedule `label`'s next run is: how many runs it has completed on this world,
    /// counted from the world's tick at its first run (which is what this returns before it).
    ///
    /// ```
    /// use rota::World;
    /// let mut world = World::new();
    /// world.advance_tick();
    /// assert_eq!(world.schedule_tick("fixed"), 1); // never ran: the world's tick
    /// world.advance_schedule_tick("fixed");
    /// world.advance_schedule_tick("update");
    /// assert_eq!(world.schedule_tick("fixed"), 2);
    /// assert_eq!(world.schedule_tick("update"), 3);
    /// assert_eq!(world.tick(), 3); // every run advances the world's tick too
    /// ```
    pub fn schedule_tick(&self, label: &str) -> u64 {
        self.schedule_ticks.get(label).copied().unwrap_or(self.tick)
    }

    /// Ends a run of schedule `label`: its own tick and the world's tick advance by one
    /// (the latter through [`World::advance_tick`], with everything that does).
    pub fn advance_schedule_tick(&mut self, label: &str) {
        let next = self.schedule_tick(label) + 1;
        match self.schedule_ticks.get_mut(label) {
            Some(tick) => *tick = next,
            None => {
                self.schedule_ticks.insert(label.into(), next);
            }
        }
        self.advance_tick();
    }

    /// Every schedule's tick, in label order.
    pub fn schedule_ticks(&self) -> impl Iterator<Item = (&str, u64)> {
        self.schedule_ticks
            .iter()
            .map(|(label, &tick)| (&**label, tick))
    }
}
