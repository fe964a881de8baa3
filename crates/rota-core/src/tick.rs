//! Change ticks: when a component was added and last changed, compared wrapping-safely.
//!
//! # The clock
//!
//! The world keeps a 32-bit *change tick*. It advances at **moments**: once for every system
//! run (each system, in plan order, gets its own tick before its batch starts), once after each
//! batch (for the commands applied at its end and anything the caller does next), and once per
//! [`World::change_checkpoint`](crate::World::change_checkpoint). Everything written in one
//! moment is stamped with that moment's tick.
//!
//! # Wrapping
//!
//! Ticks are compared by **age**, `now - tick` in wrapping arithmetic: a tick `t` is newer than
//! `since` (as seen at `now`) when `now - t < now - since`. That is exact while every tick the
//! world holds is less than 2^32 ticks old. The world keeps it so: every [`CHECK_INTERVAL`]
//! ticks it clamps every stored tick (component ticks, store high-water marks, systems' last
//! runs) to at most [`MAX_AGE`] old. A component unchanged for longer than `MAX_AGE` ticks looks
//! `MAX_AGE` old — still older than any system's last run, which is clamped the same way.

/// How old a stored tick may get before it is clamped (2^30 ticks).
pub const MAX_AGE: u32 = 1 << 30;

/// How often (in ticks) the world clamps every stored tick to [`MAX_AGE`] (2^29 ticks). Between
/// two clamps a tick ages at most `MAX_AGE + CHECK_INTERVAL` < 2^31, so ages never wrap.
pub const CHECK_INTERVAL: u32 = 1 << 29;

/// A point on the world's change clock (see the [module docs](self)).
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct Tick(u32);

impl Tick {
    /// The tick with raw value `raw` (tests start the clock near `u32::MAX` with it).
    pub const fn new(raw: u32) -> Tick {
        Tick(raw)
    }

    /// The raw counter value.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// How many ticks before `now` this tick is (wrapping).
    #[inline]
    pub const fn age(self, now: Tick) -> u32 {
        now.0.wrapping_sub(self.0)
    }

    /// [`Tick::age`], clamped to [`MAX_AGE`] as the world clamps stored ticks: how a checksum
    /// compares ticks of two worlds whose clocks read differently.
    #[inline]
    pub(crate) const fn clamped_age(self, now: Tick) -> u32 {
        let age = self.age(now);
        if age > MAX_AGE { MAX_AGE } else { age }
    }

    /// Whether this tick lies in the window `(since, now]`: after `since`, at or before `now`.
    ///
    /// ```
    /// use rota::Tick;
    /// let (since, now) = (Tick::new(u32::MAX - 1), Tick::new(3)); // the clock wrapped
    /// assert!(Tick::new(u32::MAX).is_newer_than(since, now));
    /// assert!(Tick::new(2).is_newer_than(since, now));
    /// assert!(!Tick::new(u32::MAX - 1).is_newer_than(since, now));
    /// ```
    #[inline]
    pub const fn is_newer_than(self, since: Tick, now: Tick) -> bool {
        self.age(now) < since.age(now)
    }

    /// The next tick (wrapping).
    #[inline]
    pub(crate) const fn next(self) -> Tick {
        Tick(self.0.wrapping_add(1))
    }

    /// The oldest tick still distinguishable at `now`: `now - MAX_AGE`.
    #[inline]
    pub const fn horizon(now: Tick) -> Tick {
        Tick(now.0.wrapping_sub(MAX_AGE))
    }

    /// Whether [`Tick::clamp`] would change this tick.
    #[inline]
    pub(crate) fn needs_clamp(self, now: Tick) -> bool {
        self.age(now) > MAX_AGE
    }

    /// Clamps this tick to at most [`MAX_AGE`] old at `now`.
    #[inline]
    pub(crate) fn clamp(&mut self, now: Tick) {
        if self.needs_clamp(now) {
            *self = Tick::horizon(now);
        }
    }
}

/// When one component value was added and last changed.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct ComponentTicks {
    /// The moment the value was inserted (a replacing insert keeps it).
    pub added: Tick,
    /// The moment the value was last written (insert, replace, `&mut` fetch).
    pub changed: Tick,
}

/// The window a query compares change ticks against, and the tick its writes stamp.
///
/// A system's window is `(its last run, this run]`; a world-level query's is
/// `(since, the world's tick]` for [`World::query_since`](crate::World::query_since), or
/// everything the clock still distinguishes for plain queries.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ChangeWindow {
    /// Changes at or before this tick are old.
    pub since: Tick,
    /// The current tick: writes are stamped with it.
    pub now: Tick,
}

impl ChangeWindow {
    /// The window that sees every change the clock still distinguishes.
    pub const fn everything(now: Tick) -> ChangeWindow {
        ChangeWindow {
            since: Tick::horizon(now),
            now,
        }
    }

    /// Whether `tick` is in the window.
    #[inline]
    pub const fn contains(&self, tick: Tick) -> bool {
        tick.is_newer_than(self.since, self.now)
    }
}

#[cfg(test)]
mod tests;
