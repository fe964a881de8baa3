//! `Entity` handles and the `Entities` allocator that alone creates live ones.
//!
//! # Invariants (checked by [`Entities::check_invariants`])
//!
//! ```text
//!   slot:        0     1     2     3     4
//!   state:     Alive  Free  Alive Retired Free
//!   generation:  3     5     0   u32::MAX  1
//!   free set:  {1, 4}   (a bitset: the lowest free slot is reused first)
//! ```
//!
//! * Every slot is in exactly one state. A `Free` slot is in the free set exactly once; `Alive`
//!   and `Retired` slots never are.
//! * `alive` equals the number of `Alive` slots.
//! * A slot's generation only grows. Despawning bumps it, so every handle to the previous
//!   incarnation reports dead from that moment on. A slot whose generation is already
//!   `u32::MAX` cannot be bumped without wrapping — a wrapped handle could alias its first
//!   incarnation — so it becomes `Retired` and is never handed out again.

use std::fmt;

use crate::stable_hash::{StableHash, StableHasher};

/// A handle to an entity: a 32-bit slot and a 32-bit generation, 8 bytes, `Copy`.
///
/// Handles are ordered by slot first, then generation, which is the order every query visits
/// entities in. Only an [`Entities`] allocator (usually inside a `World`) creates handles to live
/// entities; a handle outlives its entity harmlessly: once the entity is despawned the handle
/// reports dead, even after the slot is reused (the reuse has a higher generation).
///
/// # Known limit: handles do not record their world
///
/// A handle is two numbers. A handle from one allocator, used with another allocator that happens
/// to have a live entity with the same slot and generation, reports alive there. Keep handles with
/// the world that made them. (Pinned by the test `foreign_handle_with_same_bits_reports_alive`.)
///
/// # Examples
///
/// ```
/// use rota::Entities;
///
/// let mut entities = Entities::new();
/// let e = entities.spawn().unwrap();
/// assert_eq!(e.slot(), 0);
/// assert_eq!(e.generation(), 0);
/// assert_eq!(e.to_string(), "0v0");
/// ```
#[derive(Copy, Clone, Eq, PartialOrd, Ord)]
pub struct Entity {
    // Field order matters: the derived `Ord` compares `slot` first.
    slot: u32,
    generation: u32,
}

/// Field by field, as a derive would, but as one 64-bit comparison: stores compare a handle
/// with the element they find on every lookup.
impl PartialEq for Entity {
    #[inline]
    fn eq(&self, other: &Entity) -> bool {
        self.to_bits() == other.to_bits()
    }
}

/// The derived hash (slot, then generation), written out beside the hand-written `PartialEq`
/// it agrees with.
impl std::hash::Hash for Entity {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.slot.hash(state);
        self.generation.hash(state);
    }
}

impl Entity {
    /// The slot: the entity's index in every store's sparse array. Queries visit ascending slots.
    #[inline]
    pub const fn slot(self) -> u32 {
        self.slot
    }

    /// The generation: how many earlier incarnations this slot had.
    #[inline]
    pub const fn generation(self) -> u32 {
        self.generation
    }

    /// Packs the handle into 64 bits (`generation << 32 | slot`), e.g. to send it over a network.
    ///
    /// ```
    /// # use rota::{Entities, Entity};
    /// let mut entities = Entities::new();
    /// let e = entities.spawn().unwrap();
    /// assert_eq!(Entity::from_bits(e.to_bits()), e);
    /// ```
    #[inline]
    pub const fn to_bits(self) -> u64 {
        ((self.generation as u64) << 32) | self.slot as u64
    }

    /// Rebuilds a handle from [`Entity::to_bits`]. The result is only a name: whether it is alive
    /// is for the allocator to say.
    #[inline]
    pub const fn from_bits(bits: u64) -> Entity {
        Entity {
            slot: bits as u32,
            generation: (bits >> 32) as u32,
        }
    }

    #[inline]
    pub(crate) const fn new(slot: u32, generation: u32) -> Entity {
        Entity { slot, generation }
    }

    /// A handle no allocator ever makes alive: slot `u32::MAX` is never handed out (see
    /// [`Entities::MAX_SLOTS`]). `Commands::spawn` returns it for a spawn it refused.
    pub(crate) const NEVER_ALIVE: Entity = Entity::new(u32::MAX, 0);
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.width().is_some() {
            // Honour `{:>6}` and friends; the common path below does not allocate.
            return f.pad(&format!("{}v{}", self.slot, self.generation));
        }
        write!(f, "{}v{}", self.slot, self.generation)
    }
}

impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.slot, self.generation)
    }
}

/// How far a command buffer's reservations have got (see [`Entities::reserve`]).
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct ReserveCursor {
    last_free: Option<u32>,
    free_exhausted: bool,
    fresh: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum SlotState {
    Alive,
    Free,
    Retired,
}

#[derive(Copy, Clone, Debug)]
struct Slot {
    generation: u32,
    state: SlotState,
}

/// The free set: an ordered set of slots as a two-level bitset. `bits` has one bit per slot;
/// `summary` one bit per non-zero word of `bits`, so the lowest free slot at or above any slot
/// is found by scanning one `u64` per 4096 slots. Insert and remove are O(1).
///
/// Measured: the `BTreeSet<u32>` it replaces spent ~40% of a 10k-entity shuffled despawn in
/// its inserts (`perf record` on `cargo bench --bench workloads -- despawn/loop`, see
/// docs/benchmarks.md).
#[derive(Debug, Default)]
struct FreeSlots {
    bits: Vec<u64>,
    summary: Vec<u64>,
    len: usize,
}

impl Clone for FreeSlots {
    fn clone(&self) -> Self {
        let mut copy = FreeSlots::default();
        copy.clone_from(self);
        copy
    }

    /// Exhaustive on purpose: a new field must be copied here (snapshots restore through this).
    fn clone_from(&mut self, source: &Self) {
        let FreeSlots { bits, summary, len } = self;
        bits.clone_from(&source.bits);
        summary.clone_from(&source.summary);
        *len = source.len;
    }
}

impl FreeSlots {
    /// Adds `slot`; returns whether it was absent.
    fn insert(&mut self, slot: u32) -> bool {
        let (word, bit) = ((slot / 64) as usize, slot % 64);
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
            self.summary.resize(word / 64 + 1, 0);
        }
        let absent = self.bits[word] & (1 << bit) == 0;
        self.bits[word] |= 1 << bit;
        self.summary[word / 64] |= 1 << (word % 64);
        self.len += usize::from(absent);
        absent
    }

    /// Removes `slot`; returns whether it was present.
    fn remove(&mut self, slot: u32) -> bool {
        let (word, bit) = ((slot / 64) as usize, slot % 64);
        let Some(w) = self.bits.get_mut(word) else {
            return false;
        };
        let present = *w & (1 << bit) != 0;
        *w &= !(1 << bit);
        if *w == 0 {
            self.summary[word / 64] &= !(1 << (word % 64));
        }
        self.len -= usize::from(present);
        present
    }

    /// The lowest slot in the set that is `>= from`.
    fn first_from(&self, from: u32) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let word = (from / 64) as usize;
        let here = self.bits.get(word)? & (!0u64 << (from % 64));
        if here != 0 {
            return Some(word as u32 * 64 + here.trailing_zeros());
        }
        let next = word + 1;
        let start = next / 64;
        for (i, &group) in self.summary.iter().enumerate().skip(start) {
            let group = if i == start {
                group & (!0u64 << (next % 64))
            } else {
                group
            };
            if group != 0 {
                let w = i * 64 + group.trailing_zeros() as usize;
                return Some(w as u32 * 64 + self.bits[w].trailing_zeros());
            }
        }
        None
    }

    /// Removes and returns the lowest slot.
    fn pop_first(&mut self) -> Option<u32> {
        let slot = self.first_from(0)?;
        self.remove(slot);
        Some(slot)
    }

    /// Slots in ascending order.
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                Some(w as u32 * 64 + b)
            })
        })
    }

    #[cfg(test)]
    fn clear(&mut self) {
        self.bits.clear();
        self.summary.clear();
        self.len = 0;
    }
}

/// The length of the longest prefix of `entities` whose slots strictly ascend (0 for none).
pub(crate) fn ascending_prefix(entities: &[Entity]) -> usize {
    entities.len().min(
        1 + entities
            .windows(2)
            .take_while(|w| w[0].slot() < w[1].slot())
            .count(),
    )
}

/// The entity allocator: hands out [`Entity`] handles, frees them, and says which are alive.
///
/// * Freed slots are reused **lowest slot first**, which keeps live entities packed at low slots
///   and ordered iteration tight.
/// * Reusing a slot bumps its generation, so stale handles report dead.
/// * A slot whose generation would pass `u32::MAX` is retired forever rather than wrapped.
/// * Running out of slots is [`SpawnError::SlotsExhausted`], never a panic.
///
/// Memory: 8 bytes per slot ever used, plus one bit per slot (and one per 64 slots) for the
/// free set.
///
/// # Examples
///
/// ```
/// use rota::Entities;
///
/// let mut entities = Entities::new();
/// let a = entities.spawn().unwrap();
/// let b = entities.spawn().unwrap();
/// entities.despawn(a).unwrap();
/// assert!(!entities.is_alive(a));
/// let c = entities.spawn().unwrap(); // reuses slot 0 with a new generation
/// assert_eq!((c.slot(), c.generation()), (0, 1));
/// assert_eq!(entities.iter().collect::<Vec<_>>(), vec![c, b]);
/// ```
#[derive(Debug)]
pub struct Entities {
    slots: Vec<Slot>,
    free: FreeSlots,
    alive: u32,
    first_generation: u32,
    slot_limit: u32,
}

/// A copy of the whole allocator: every slot's generation and state, the free set, the limit.
/// `clone_from` reuses allocations (world snapshots restore through it).
impl Clone for Entities {
    fn clone(&self) -> Self {
        let mut copy = Entities::new();
        copy.clone_from(self);
        copy
    }

    /// Exhaustive on purpose: a field added to `Entities` is a compile error here until it is
    /// copied, so a restored world can never hand out different handles than the original.
    fn clone_from(&mut self, source: &Self) {
        let Entities {
            slots,
            free,
            alive,
            first_generation,
            slot_limit,
        } = self;
        slots.clone_from(&source.slots);
        free.clone_from(&source.free);
        *alive = source.alive;
        *first_generation = source.first_generation;
        *slot_limit = source.slot_limit;
    }
}

impl Default for Entities {
    fn default() -> Self {
        Entities::new()
    }
}

impl Entities {
    /// The most slots an allocator can hand out: `u32::MAX` (slot `u32::MAX` is never used, so
    /// stores can use it as their "absent" sentinel).
    pub const MAX_SLOTS: u32 = u32::MAX;

    /// An empty allocator.
    pub fn new() -> Entities {
        Entities {
            slots: Vec::new(),
            free: FreeSlots::default(),
            alive: 0,
            first_generation: 0,
            slot_limit: Self::MAX_SLOTS,
        }
    }

    /// An allocator whose fresh slots start at `generation` instead of 0.
    ///
    /// This exists so tests (yours and ours) can reach generation overflow without 2³²
    /// spawn/despawn cycles.
    ///
    /// ```
    /// # use rota::Entities;
    /// let mut entities = Entities::with_first_generation(u32::MAX);
    /// let e = entities.spawn().unwrap();
    /// entities.despawn(e).unwrap();          // generation cannot be bumped: slot 0 retires
    /// let f = entities.spawn().unwrap();
    /// assert_eq!(f.slot(), 1);
    /// assert_eq!(entities.retired_count(), 1);
    /// ```
    pub fn with_first_generation(generation: u32) -> Entities {
        Entities {
            first_generation: generation,
            ..Entities::new()
        }
    }

    /// An allocator that hands out at most `limit` slots (every `u32` is a valid limit: slot
    /// `u32::MAX` itself is never handed out), so slot exhaustion can be tested and budgets
    /// enforced.
    ///
    /// ```
    /// # use rota::{Entities, SpawnError};
    /// let mut entities = Entities::with_slot_limit(1);
    /// entities.spawn().unwrap();
    /// assert_eq!(entities.spawn(), Err(SpawnError::SlotsExhausted { limit: 1 }));
    /// ```
    pub fn with_slot_limit(limit: u32) -> Entities {
        Entities {
            slot_limit: limit,
            ..Entities::new()
        }
    }

    /// Allocates a live entity: the lowest free slot if there is one, else a new slot.
    ///
    /// # Errors
    ///
    /// [`SpawnError::SlotsExhausted`] when every slot below the limit is alive or retired.
    /// [`SpawnError::OutOfMemory`] when the slot table cannot grow.
    pub fn spawn(&mut self) -> Result<Entity, SpawnError> {
        if let Some(slot) = self.free.pop_first() {
            let s = &mut self.slots[slot as usize];
            debug_assert_eq!(s.state, SlotState::Free, "free set held a non-free slot");
            s.state = SlotState::Alive;
            self.alive += 1;
            return Ok(Entity::new(slot, s.generation));
        }
        let slot = self.slots.len();
        if slot >= self.slot_limit as usize {
            return Err(SpawnError::SlotsExhausted {
                limit: self.slot_limit,
            });
        }
        self.slots
            .try_reserve(1)
            .map_err(|_| SpawnError::OutOfMemory)?;
        self.slots.push(Slot {
            generation: self.first_generation,
            state: SlotState::Alive,
        });
        self.alive += 1;
        Ok(Entity::new(slot as u32, self.first_generation))
    }

    /// How many entities [`Entities::spawn`] can still hand out before slots run out: the free
    /// slots plus the fresh ones below the limit (memory aside).
    pub(crate) fn spawnable(&self) -> usize {
        self.free.len + (self.slot_limit as usize).saturating_sub(self.slots.len())
    }

    /// Allocates `n` live entities onto `out`: the same entities, in the same order, as `n`
    /// calls of [`Entities::spawn`], but fresh slots are made as one range. On an error, `out`
    /// holds the entities allocated before it.
    pub(crate) fn spawn_many(&mut self, n: usize, out: &mut Vec<Entity>) -> Result<(), SpawnError> {
        let mut left = n;
        while left > 0 && self.free.len > 0 {
            out.push(self.spawn()?);
            left -= 1;
        }
        if left == 0 {
            return Ok(());
        }
        let first = self.slots.len();
        let fresh = left.min((self.slot_limit as usize).saturating_sub(first));
        self.slots
            .try_reserve(fresh)
            .map_err(|_| SpawnError::OutOfMemory)?;
        out.try_reserve(fresh)
            .map_err(|_| SpawnError::OutOfMemory)?;
        let generation = self.first_generation;
        self.slots.resize(
            first + fresh,
            Slot {
                generation,
                state: SlotState::Alive,
            },
        );
        // `first + fresh <= slot_limit <= u32::MAX`: every slot and the count fit a `u32`.
        self.alive += fresh as u32;
        out.extend(
            (first as u32..(first + fresh) as u32).map(|slot| Entity::new(slot, generation)),
        );
        if fresh < left {
            return Err(SpawnError::SlotsExhausted {
                limit: self.slot_limit,
            });
        }
        Ok(())
    }

    /// Frees a live entity. Its slot becomes reusable with the next generation, or is retired if
    /// the generation is already `u32::MAX`.
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] if `entity` is dead, stale or was never handed out; nothing changes.
    ///
    /// ```
    /// # use rota::{Entities, EntityNotAlive};
    /// let mut entities = Entities::new();
    /// let e = entities.spawn().unwrap();
    /// entities.despawn(e).unwrap();
    /// assert_eq!(entities.despawn(e), Err(EntityNotAlive(e)));
    /// ```
    pub fn despawn(&mut self, entity: Entity) -> Result<(), EntityNotAlive> {
        self.check_alive(entity)?;
        let s = &mut self.slots[entity.slot as usize];
        self.alive -= 1;
        match s.generation.checked_add(1) {
            Some(next) => {
                s.generation = next;
                s.state = SlotState::Free;
                self.free.insert(entity.slot);
            }
            None => s.state = SlotState::Retired,
        }
        Ok(())
    }

    /// Whether `entity` is alive in this allocator (see the cross-allocator limit on [`Entity`]).
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        match self.slots.get(entity.slot as usize) {
            Some(s) => s.state == SlotState::Alive && s.generation == entity.generation,
            None => false,
        }
    }

    /// [`Entities::is_alive`] as a `Result`: the error names `entity`.
    #[inline]
    pub(crate) fn check_alive(&self, entity: Entity) -> Result<(), EntityNotAlive> {
        if self.is_alive(entity) {
            Ok(())
        } else {
            Err(EntityNotAlive(entity))
        }
    }

    /// The live entity currently occupying `slot`, if any.
    #[inline]
    pub fn alive_at(&self, slot: u32) -> Option<Entity> {
        match self.slots.get(slot as usize) {
            Some(s) if s.state == SlotState::Alive => Some(Entity::new(slot, s.generation)),
            _ => None,
        }
    }

    /// Number of live entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.alive as usize
    }

    /// Whether no entity is alive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.alive == 0
    }

    /// Number of slots ever handed out (live, free and retired): one more than the highest slot.
    #[inline]
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Number of slots retired because their generation reached `u32::MAX`.
    pub fn retired_count(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.state == SlotState::Retired)
            .count()
    }

    /// Live entities in ascending slot order.
    pub fn iter(&self) -> EntitiesIter<'_> {
        EntitiesIter {
            slots: self.slots.iter().enumerate(),
            remaining: self.alive as usize,
        }
    }

    /// Reserves the next entity for a command buffer without changing the allocator: the lowest
    /// free slot above the cursor's last one, then fresh slots past the end. The handle becomes
    /// alive when [`Entities::spawn_reserved`] applies it.
    pub(crate) fn reserve(&self, cursor: &mut ReserveCursor) -> Result<Entity, SpawnError> {
        if !cursor.free_exhausted {
            let next = match cursor.last_free {
                None => self.free.first_from(0),
                Some(last) => last
                    .checked_add(1)
                    .and_then(|from| self.free.first_from(from)),
            };
            match next {
                Some(slot) => {
                    cursor.last_free = Some(slot);
                    return Ok(Entity::new(slot, self.slots[slot as usize].generation));
                }
                None => cursor.free_exhausted = true,
            }
        }
        let slot = self.slots.len() as u64 + cursor.fresh as u64;
        if slot >= self.slot_limit as u64 {
            return Err(SpawnError::SlotsExhausted {
                limit: self.slot_limit,
            });
        }
        cursor.fresh += 1;
        Ok(Entity::new(slot as u32, self.first_generation))
    }

    /// Reads `slot`'s entry and returns a value made of it (0 past the table): a read that
    /// brings the entry into the cache (see `read_ahead.rs`).
    #[inline]
    pub(crate) fn touch(&self, slot: u32) -> u64 {
        self.slots
            .get(slot as usize)
            .map_or(0, |s| u64::from(s.generation))
    }

    /// Makes a reserved handle alive, if its slot is still exactly as it was reserved: free with
    /// that generation, or the next fresh slot.
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] (naming the reservation) if the slot was taken meanwhile; nothing
    /// changes.
    pub(crate) fn spawn_reserved(&mut self, entity: Entity) -> Result<(), EntityNotAlive> {
        let slot = entity.slot as usize;
        if slot == self.slots.len() && entity.generation == self.first_generation {
            self.slots
                .try_reserve(1)
                .map_err(|_| EntityNotAlive(entity))?;
            self.slots.push(Slot {
                generation: entity.generation,
                state: SlotState::Alive,
            });
            self.alive += 1;
            return Ok(());
        }
        match self.slots.get_mut(slot) {
            Some(s) if s.state == SlotState::Free && s.generation == entity.generation => {
                s.state = SlotState::Alive;
                self.free.remove(entity.slot);
                self.alive += 1;
                Ok(())
            }
            _ => Err(EntityNotAlive(entity)),
        }
    }

    /// Feeds the allocator's whole state to `h`: the limit, the first generation, and every
    /// slot's generation and state (alive, free or retired), in slot order. The free set is a
    /// function of the states, so two allocators that hash alike hand out the same handles.
    pub(crate) fn stable_hash_state(&self, h: &mut StableHasher) {
        self.slot_limit.stable_hash(h);
        self.first_generation.stable_hash(h);
        self.slots.len().stable_hash(h);
        for slot in &self.slots {
            slot.generation.stable_hash(h);
            let state: u8 = match slot.state {
                SlotState::Alive => 0,
                SlotState::Free => 1,
                SlotState::Retired => 2,
            };
            state.stable_hash(h);
        }
    }

    /// Checks every invariant in this module's documentation, naming the first one broken.
    ///
    /// Used by tests and debug builds; costs O(slots).
    ///
    /// # Errors
    ///
    /// A description of the broken invariant.
    pub fn check_invariants(&self) -> Result<(), String> {
        // A set cannot hold a slot twice; what can go wrong is a free slot missing from it or a
        // non-free slot in it.
        let mut in_set = vec![false; self.slots.len()];
        for slot in self.free.iter() {
            let Some(s) = self.slots.get(slot as usize) else {
                return Err(format!("free set holds slot {slot} beyond the slot table"));
            };
            if s.state != SlotState::Free {
                return Err(format!("free set holds slot {slot} in state {:?}", s.state));
            }
            in_set[slot as usize] = true;
        }
        let mut alive = 0u32;
        for (slot, s) in self.slots.iter().enumerate() {
            match s.state {
                SlotState::Alive => alive += 1,
                SlotState::Free if !in_set[slot] => {
                    return Err(format!("free slot {slot} is missing from the free set"));
                }
                SlotState::Retired if s.generation != u32::MAX => {
                    return Err(format!(
                        "slot {slot} retired at generation {} < u32::MAX",
                        s.generation
                    ));
                }
                _ => {}
            }
        }
        if alive != self.alive {
            return Err(format!(
                "alive count {} but {alive} slots are alive",
                self.alive
            ));
        }
        Ok(())
    }
}

/// What a slot of the allocator is, in an [`AllocatorImage`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SlotStatus {
    /// Holds a live entity of the slot's generation.
    Alive,
    /// Free: the next spawns take free slots lowest first, at the slot's generation.
    Free,
    /// Retired at generation `u32::MAX`: never handed out again.
    Retired,
}

/// The entity allocator as plain data ([`Entities::image`], [`Entities::from_image`]): every
/// slot's generation and status. The free order is a function of the statuses (lowest free
/// slot first), so equal images hand out equal handles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocatorImage {
    /// The most slots the allocator hands out.
    pub slot_limit: u32,
    /// The generation fresh slots start at.
    pub first_generation: u32,
    /// Every slot ever used, by slot: `(generation, status)`.
    pub slots: Vec<(u32, SlotStatus)>,
}

impl Entities {
    /// The allocator as plain data.
    ///
    /// ```
    /// use rota::Entities;
    /// let mut entities = Entities::new();
    /// let a = entities.spawn().unwrap();
    /// entities.spawn().unwrap();
    /// entities.despawn(a).unwrap();
    /// let mut copy = Entities::from_image(&entities.image()).unwrap();
    /// assert_eq!(copy.spawn(), entities.spawn());
    /// ```
    pub fn image(&self) -> AllocatorImage {
        AllocatorImage {
            slot_limit: self.slot_limit,
            first_generation: self.first_generation,
            slots: self
                .slots
                .iter()
                .map(|s| {
                    let status = match s.state {
                        SlotState::Alive => SlotStatus::Alive,
                        SlotState::Free => SlotStatus::Free,
                        SlotState::Retired => SlotStatus::Retired,
                    };
                    (s.generation, status)
                })
                .collect(),
        }
    }

    /// The allocator an image describes.
    ///
    /// # Errors
    ///
    /// A description naming the first slot at fault: more slots than the limit (or slot
    /// `u32::MAX`), or a retired slot below generation `u32::MAX`.
    pub fn from_image(image: &AllocatorImage) -> Result<Entities, String> {
        if image.slots.len() > image.slot_limit as usize || image.slots.len() >= u32::MAX as usize {
            return Err(format!(
                "{} slots but the limit is {}",
                image.slots.len(),
                image.slot_limit
            ));
        }
        let mut entities = Entities {
            slots: Vec::new(),
            free: FreeSlots::default(),
            alive: 0,
            first_generation: image.first_generation,
            slot_limit: image.slot_limit,
        };
        entities
            .slots
            .try_reserve_exact(image.slots.len())
            .map_err(|_| "out of memory for the slot table".to_owned())?;
        for (slot, &(generation, status)) in image.slots.iter().enumerate() {
            let state = match status {
                SlotStatus::Alive => {
                    entities.alive += 1;
                    SlotState::Alive
                }
                SlotStatus::Free => {
                    entities.free.insert(slot as u32);
                    SlotState::Free
                }
                SlotStatus::Retired if generation != u32::MAX => {
                    return Err(format!(
                        "slot {slot} retired at generation {generation} < u32::MAX"
                    ));
                }
                SlotStatus::Retired => SlotState::Retired,
            };
            entities.slots.push(Slot { generation, state });
        }
        entities.check_invariants()?;
        Ok(entities)
    }
}

/// Iterator over live entities in ascending slot order; see [`Entities::iter`].
#[derive(Clone, Debug)]
pub struct EntitiesIter<'a> {
    slots: std::iter::Enumerate<std::slice::Iter<'a, Slot>>,
    remaining: usize,
}

impl Iterator for EntitiesIter<'_> {
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        if self.remaining == 0 {
            return None;
        }
        for (slot, s) in self.slots.by_ref() {
            if s.state == SlotState::Alive {
                self.remaining -= 1;
                return Some(Entity::new(slot as u32, s.generation));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for EntitiesIter<'_> {}

impl<'a> IntoIterator for &'a Entities {
    type Item = Entity;
    type IntoIter = EntitiesIter<'a>;
    fn into_iter(self) -> EntitiesIter<'a> {
        self.iter()
    }
}

/// The entity handle is dead: despawned, stale (its slot was reused) or never handed out.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("entity {0} is not alive (despawned, stale, or from another world)")]
pub struct EntityNotAlive(pub Entity);

/// Why an entity could not be spawned.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpawnError {
    /// Every slot below the limit is alive or retired.
    #[error("no entity slot left: all {limit} slots are alive or retired")]
    SlotsExhausted {
        /// The allocator's slot limit.
        limit: u32,
    },
    /// The slot table could not grow.
    #[error("out of memory while growing the entity slot table")]
    OutOfMemory,
    /// The bundle names one component type twice; an entity holds one value per type, so
    /// one of the two would be lost. Only a generic component type (one without a
    /// `UNIQUE_KEY`) gets this far: for any other, the bundle does not build.
    #[error("a bundle names component `{component}` twice; an entity holds one value per type")]
    DuplicateComponent {
        /// The component named twice.
        component: &'static str,
    },
}

/// A handle feeds its slot, then its generation.
impl StableHash for Entity {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.slot().stable_hash(h);
        self.generation().stable_hash(h);
    }
}

#[cfg(test)]
mod tests;
