//! The desync locator: [`World::diff`] compares two worlds part by part — the clocks, the
//! allocator, every store entity by entity (by stable value hash and change-tick ages), every
//! resource (by stable hash) — and returns a typed [`WorldDiff`] whose `Display` reads as a
//! report. What it compares is what [`World::full_checksum`] hashes, so two worlds with equal
//! checksums have an empty diff, and a diff names where unequal checksums come from.
//!
//! Field ids are a `rota-scene` notion: here a value is named by its hash.

use std::fmt;

use crate::entity::{Entity, SlotStatus};
use crate::world::World;

/// How many entities a [`StoreDiff`] lists per side before it only counts them.
const LISTED: usize = 16;

/// A slot as an allocator holds it: `(generation, status)`, `None` where a world never used it.
pub type SlotState = Option<(u32, SlotStatus)>;

/// One difference between two worlds ("ours" is the world `diff` is called on).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Difference {
    /// The world ticks differ.
    Tick {
        /// Ours.
        ours: u64,
        /// Theirs.
        theirs: u64,
    },
    /// A schedule's tick differs (or one world has none for the label).
    ScheduleTick {
        /// The schedule's label.
        label: String,
        /// Ours.
        ours: Option<u64>,
        /// Theirs.
        theirs: Option<u64>,
    },
    /// A system's last run differs, as an age on each world's change clock.
    SystemRun {
        /// The system's name.
        system: String,
        /// Ours.
        ours: Option<u32>,
        /// Theirs.
        theirs: Option<u32>,
    },
    /// The allocators differ: the limit, the first generation, or the slots (the first slot
    /// that differs, and how many do).
    Allocator {
        /// The first differing slot: `(slot, ours, theirs)`, `None` where a world never used it.
        first_slot: Option<(u32, SlotState, SlotState)>,
        /// How many slots differ.
        slots_differing: usize,
        /// Whether the limits or first generations differ.
        settings_differ: bool,
    },
    /// A store's contents differ.
    Store(StoreDiff),
    /// A resource (an event channel is one) differs: its stable hash on each side, `None`
    /// where absent.
    Resource {
        /// The resource's name (an event channel's is its event type's).
        name: &'static str,
        /// Ours.
        ours: Option<u64>,
        /// Theirs.
        theirs: Option<u64>,
    },
}

/// How one component store differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreDiff {
    /// The component type.
    pub component: &'static str,
    /// Entities only our store holds (the first 16, ascending slot).
    pub only_ours: Vec<Entity>,
    /// Entities only their store holds (the first 16).
    pub only_theirs: Vec<Entity>,
    /// How many entities only one side holds, in all.
    pub one_side_count: usize,
    /// The first entity both hold whose value or change ticks differ.
    pub first_differing: Option<EntityDiff>,
    /// How many entities both hold with differing values or ticks.
    pub differing_count: usize,
    /// Whether the type has no stable hash (values then cannot be compared).
    pub unhashable: bool,
}

/// One entity's value in two stores: `(value hash, added age, changed age)` on each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityDiff {
    /// The entity.
    pub entity: Entity,
    /// Ours.
    pub ours: (u64, u32, u32),
    /// Theirs.
    pub theirs: (u64, u32, u32),
}

/// What [`World::diff`] found: every difference, clocks first, then the allocator, the
/// stores (by component name) and the resources (by name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorldDiff {
    /// The differences, in the order above.
    pub differences: Vec<Difference>,
}

impl WorldDiff {
    /// Whether the worlds agree on everything `full_checksum` hashes.
    pub fn is_empty(&self) -> bool {
        self.differences.is_empty()
    }

    /// The store difference for `component`, if its store differs.
    pub fn store(&self, component: &str) -> Option<&StoreDiff> {
        self.differences.iter().find_map(|d| match d {
            Difference::Store(s) if s.component == component => Some(s),
            _ => None,
        })
    }
}

impl World {
    /// Compares this world ("ours") with `other` ("theirs"): the desync locator. See
    /// [`WorldDiff`].
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
    /// b.spawn_with((Hp(3),));
    /// assert!(a.diff(&b).is_empty());
    /// b.get_mut::<Hp>(e).unwrap().0 = 4;
    /// let diff = a.diff(&b);
    /// assert_eq!(diff.store("Hp").unwrap().first_differing.as_ref().unwrap().entity, e);
    /// assert!(diff.to_string().contains("component Hp"));
    /// ```
    pub fn diff(&self, other: &World) -> WorldDiff {
        let mut out = Vec::new();
        if self.tick != other.tick {
            out.push(Difference::Tick {
                ours: self.tick,
                theirs: other.tick,
            });
        }
        let mut labels: Vec<&str> = self
            .schedule_ticks
            .keys()
            .chain(other.schedule_ticks.keys())
            .map(|l| &**l)
            .collect();
        labels.sort_unstable();
        labels.dedup();
        for label in labels {
            let (ours, theirs) = (
                self.schedule_ticks.get(label).copied(),
                other.schedule_ticks.get(label).copied(),
            );
            if ours != theirs {
                out.push(Difference::ScheduleTick {
                    label: label.to_owned(),
                    ours,
                    theirs,
                });
            }
        }
        let (ours, theirs) = (self.system_ages(), other.system_ages());
        let mut names: Vec<&str> = ours.iter().chain(&theirs).map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            let find = |runs: &[(&str, u32)]| runs.iter().find(|(n, _)| *n == name).map(|r| r.1);
            let (a, b) = (find(&ours), find(&theirs));
            if a != b {
                out.push(Difference::SystemRun {
                    system: name.to_owned(),
                    ours: a,
                    theirs: b,
                });
            }
        }
        self.diff_allocator(other, &mut out);
        self.diff_stores(other, &mut out);
        self.diff_resources(other, &mut out);
        WorldDiff { differences: out }
    }

    fn diff_allocator(&self, other: &World, out: &mut Vec<Difference>) {
        let (a, b) = (self.entities.image(), other.entities.image());
        let settings_differ =
            a.slot_limit != b.slot_limit || a.first_generation != b.first_generation;
        let n = a.slots.len().max(b.slots.len());
        let mut first_slot = None;
        let mut slots_differing = 0;
        for slot in 0..n {
            let (x, y) = (a.slots.get(slot).copied(), b.slots.get(slot).copied());
            if x != y {
                slots_differing += 1;
                first_slot.get_or_insert((slot as u32, x, y));
            }
        }
        if settings_differ || slots_differing > 0 {
            out.push(Difference::Allocator {
                first_slot,
                slots_differing,
                settings_differ,
            });
        }
    }

    fn diff_stores(&self, other: &World, out: &mut Vec<Difference>) {
        let mut types: Vec<(&'static str, std::any::TypeId)> = self
            .stores
            .iter()
            .chain(&other.stores)
            .filter(|e| e.store.len() > 0)
            .map(|e| (e.store.type_name(), e.type_id))
            .collect();
        types.sort_unstable();
        types.dedup();
        for (_, type_id) in types {
            fn find(w: &World, type_id: std::any::TypeId) -> Option<&super::StoreEntry> {
                w.stores
                    .iter()
                    .find(|e| e.type_id == type_id)
                    .filter(|e| e.store.len() > 0)
            }
            let (a, b) = (find(self, type_id), find(other, type_id));
            let component = a.or(b).map_or("", |e| e.name);
            let hashes = |e: Option<&super::StoreEntry>| match e {
                None => Some(Vec::new()),
                Some(e) => e.store.entry_hashes(),
            };
            let (Some(ha), Some(hb)) = (hashes(a), hashes(b)) else {
                out.push(Difference::Store(StoreDiff {
                    component,
                    only_ours: Vec::new(),
                    only_theirs: Vec::new(),
                    one_side_count: 0,
                    first_differing: None,
                    differing_count: 0,
                    unhashable: true,
                }));
                continue;
            };
            let mut diff = StoreDiff {
                component,
                only_ours: Vec::new(),
                only_theirs: Vec::new(),
                one_side_count: 0,
                first_differing: None,
                differing_count: 0,
                unhashable: false,
            };
            // Both ascend by slot: one merge.
            let (mut i, mut j) = (0, 0);
            while i < ha.len() || j < hb.len() {
                let x = ha.get(i);
                let y = hb.get(j);
                match (x, y) {
                    (Some(x), Some(y)) if x.0 == y.0 => {
                        if (x.1, x.2, x.3) != (y.1, y.2, y.3) {
                            diff.differing_count += 1;
                            diff.first_differing.get_or_insert(EntityDiff {
                                entity: x.0,
                                ours: (x.1, x.2, x.3),
                                theirs: (y.1, y.2, y.3),
                            });
                        }
                        i += 1;
                        j += 1;
                    }
                    (Some(x), y) if y.is_none_or(|y| x.0.slot() <= y.0.slot()) => {
                        diff.one_side_count += 1;
                        if diff.only_ours.len() < LISTED {
                            diff.only_ours.push(x.0);
                        }
                        i += 1;
                    }
                    (_, Some(y)) => {
                        diff.one_side_count += 1;
                        if diff.only_theirs.len() < LISTED {
                            diff.only_theirs.push(y.0);
                        }
                        j += 1;
                    }
                    (None, None) => break,
                    (Some(_), None) => unreachable!("matched above"),
                }
            }
            if diff.one_side_count > 0 || diff.differing_count > 0 {
                out.push(Difference::Store(diff));
            }
        }
    }

    fn diff_resources(&self, other: &World, out: &mut Vec<Difference>) {
        let hashes = |w: &World| -> Vec<(&'static str, std::any::TypeId, Option<u64>)> {
            w.hashed_resource_order()
                .into_iter()
                .map(|i| {
                    let entry = &w.resources.entries[i];
                    let mut h = crate::stable_hash::StableHasher::new();
                    let hashed = entry
                        .value
                        .as_deref()
                        .is_some_and(|v| (entry.fns.stable_hash)(v, &mut h));
                    (entry.name, entry.type_id, hashed.then(|| h.finish()))
                })
                .collect()
        };
        let (a, b) = (hashes(self), hashes(other));
        let mut types: Vec<(&'static str, std::any::TypeId)> =
            a.iter().chain(&b).map(|(n, t, _)| (*n, *t)).collect();
        types.sort_unstable();
        types.dedup();
        for (name, type_id) in types {
            let find = |v: &[(&'static str, std::any::TypeId, Option<u64>)]| {
                v.iter().find(|r| r.1 == type_id).map(|r| r.2)
            };
            let (x, y) = (find(&a), find(&b));
            // Unhashable on both sides compares as equal: nothing to compare with.
            if x != y {
                out.push(Difference::Resource {
                    name,
                    ours: x.flatten(),
                    theirs: y.flatten(),
                });
            }
        }
    }
}

impl fmt::Display for WorldDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return writeln!(f, "the worlds agree");
        }
        writeln!(f, "{} difference(s):", self.differences.len())?;
        for d in &self.differences {
            write!(f, "  ")?;
            match d {
                Difference::Tick { ours, theirs } => writeln!(f, "tick: {ours} vs {theirs}")?,
                Difference::ScheduleTick {
                    label,
                    ours,
                    theirs,
                } => writeln!(f, "schedule `{label}` tick: {ours:?} vs {theirs:?}")?,
                Difference::SystemRun {
                    system,
                    ours,
                    theirs,
                } => writeln!(
                    f,
                    "system `{system}` last run (age): {ours:?} vs {theirs:?}"
                )?,
                Difference::Allocator {
                    first_slot,
                    slots_differing,
                    settings_differ,
                } => {
                    write!(f, "entity allocator: {slots_differing} slot(s) differ")?;
                    if let Some((slot, a, b)) = first_slot {
                        write!(f, ", first slot {slot}: {a:?} vs {b:?}")?;
                    }
                    if *settings_differ {
                        write!(f, "; limit or first generation differ")?;
                    }
                    writeln!(f)?;
                }
                Difference::Store(s) => {
                    write!(f, "component {}:", s.component)?;
                    if s.unhashable {
                        write!(f, " values have no stable hash")?;
                    }
                    if s.one_side_count > 0 {
                        write!(
                            f,
                            " {} entit(ies) held by one world only (ours only: {:?}, theirs only: {:?})",
                            s.one_side_count, s.only_ours, s.only_theirs
                        )?;
                    }
                    if let Some(e) = &s.first_differing {
                        write!(
                            f,
                            " {} value(s) differ, first entity {:?}: (hash, added age, changed age) {:x?} vs {:x?}",
                            s.differing_count, e.entity, e.ours, e.theirs
                        )?;
                    }
                    writeln!(f)?;
                }
                Difference::Resource { name, ours, theirs } => {
                    writeln!(f, "resource {name}: {ours:x?} vs {theirs:x?}")?
                }
            }
        }
        Ok(())
    }
}
