//! A world as plain data, for save files: [`WorldImage`] (the allocator, the clocks, each
//! schedule's tick, each system's last run by name, the structural log), exported by
//! [`World::image`] and checked by [`World::from_image`]; stores are added one type at a time
//! with [`World::import_column`], event channels with
//! [`World::import_channel`](crate::World::import_channel).
//!
//! No serde, no bytes: the codecs and the file format live in `rota-scene`. Everything an
//! image holds is checked on the way in; a bad image is an [`ImageError`] naming what is at
//! fault, never a panic, and never a world that breaks an invariant.
//!
//! Systems are named, not keyed by `TypeId` (which differs between builds): a loaded last run
//! waits under its system's name until that system first runs on the world (`name_system`).

use std::collections::BTreeMap;

use crate::component::Component;
use crate::entity::{AllocatorImage, Entities, Entity};
use crate::sequence::Rewind;
use crate::tick::{CHECK_INTERVAL, ComponentTicks, MAX_AGE, Tick};
use crate::world::World;
use crate::world::log::{LogEntry, StructuralLog};

/// The oldest a stored tick may be, in ticks before the change clock: what clamping keeps.
const OLDEST_AGE: u32 = MAX_AGE + CHECK_INTERVAL;

/// The structural log as plain data (see [`World::structural_log`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogImage {
    /// The most entries the log retains.
    pub capacity: usize,
    /// The number the next entry will get.
    pub next_sequence: u64,
    /// The restores' rewinds the numbering remembers, oldest first.
    pub rewinds: Vec<Rewind>,
    /// Entries below this number were dropped (read as missed).
    pub trimmed_to: u64,
    /// The retained entries, ascending.
    pub entries: Vec<LogEntry>,
}

/// Everything of a world that is not a store or a resource, as plain data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldImage {
    /// The world's tick ([`World::tick`]).
    pub tick: u64,
    /// The change clock ([`World::change_tick`]).
    pub change_tick: Tick,
    /// When stored ticks were last clamped.
    pub last_clamp: Tick,
    /// The entity allocator.
    pub allocator: AllocatorImage,
    /// Each schedule's tick, by label, sorted.
    pub schedule_ticks: Vec<(String, u64)>,
    /// Each system's last run, by name, sorted.
    pub system_runs: Vec<(String, Tick)>,
    /// The structural log, when enabled.
    pub log: Option<LogImage>,
}

/// Why an image (or a save made from one) cannot become a world.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// The allocator's slot table breaks an invariant.
    #[error("entity allocator: {0}")]
    BadAllocator(String),
    /// A tick is older than clamping allows or newer than the change clock.
    #[error("{what}: tick {tick} is out of range of the change clock {now}")]
    TickOutOfRange {
        /// What holds the tick.
        what: String,
        /// The tick.
        tick: u32,
        /// The change clock.
        now: u32,
    },
    /// A name (system, schedule) is listed twice.
    #[error("{what} `{name}` is listed twice")]
    Duplicate {
        /// What kind of name.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// The structural log breaks a rule.
    #[error("structural log: {0}")]
    BadLog(&'static str),
    /// A store's rows are not valid.
    #[error("component `{component}`, entity {entity:?}: {rule}")]
    BadRow {
        /// The component type.
        component: &'static str,
        /// The entity at fault.
        entity: Entity,
        /// The rule broken.
        rule: &'static str,
    },
    /// The world already holds values of the component.
    #[error("component `{component}`: the world already holds values of it")]
    StoreNotEmpty {
        /// The component type.
        component: &'static str,
    },
    /// An event channel breaks a rule.
    #[error("event channel `{channel}`: {rule}")]
    BadChannel {
        /// The event type.
        channel: &'static str,
        /// The rule broken.
        rule: &'static str,
    },
    /// The world already has the channel.
    #[error("event channel `{channel}` already exists in the world")]
    ChannelExists {
        /// The event type.
        channel: &'static str,
    },
    /// A channel's reader belongs to a system the world never named.
    #[error("event channel `{channel}`: a reader's system has no name in this world")]
    UnnamedSystem {
        /// The event type.
        channel: &'static str,
    },
    /// Two systems with one name read a channel.
    #[error("event channel `{channel}`: two systems named `{system}` read it")]
    DuplicateReader {
        /// The event type.
        channel: &'static str,
        /// The shared name.
        system: String,
    },
    /// The loaded world fails its invariant check (a hierarchy that does not agree, …).
    #[error("the loaded world is inconsistent: {0}")]
    Inconsistent(String),
}

impl World {
    /// The world's allocator, clocks, schedule ticks, systems' last runs and log as plain
    /// data (stores, resources and channels are exported by type: [`World::store`],
    /// [`World::resource`], [`World::channel_image`](crate::World::channel_image)).
    ///
    /// # Errors
    ///
    /// [`ImageError::Duplicate`] when two systems that ran on this world share a name.
    ///
    /// # Examples
    ///
    /// ```
    /// use rota::World;
    /// let mut world = World::new();
    /// let a = world.spawn();
    /// world.despawn(a)?;
    /// let mut copy = World::from_image(world.image()?)?;
    /// assert_eq!(copy.full_checksum()?, world.full_checksum()?);
    /// assert_eq!(copy.spawn(), world.spawn());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn image(&self) -> Result<WorldImage, ImageError> {
        let mut system_runs: Vec<(String, Tick)> = self
            .system_runs
            .iter()
            .map(|(id, &last)| (self.system_names.get(id).copied().unwrap_or(""), last))
            .map(|(name, last)| (name.to_owned(), last))
            .chain(
                self.unbound_system_runs
                    .iter()
                    .map(|(name, &last)| (name.to_string(), last)),
            )
            .collect();
        system_runs.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(w) = system_runs.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(ImageError::Duplicate {
                what: "system",
                name: w[0].0.clone(),
            });
        }
        Ok(WorldImage {
            tick: self.tick,
            change_tick: self.change_tick,
            last_clamp: self.last_clamp,
            allocator: self.entities.image(),
            schedule_ticks: self
                .schedule_ticks
                .iter()
                .map(|(label, &tick)| (label.to_string(), tick))
                .collect(),
            system_runs,
            log: self.log.as_ref().map(StructuralLog::image),
        })
    }

    /// A world with no store and no resource, in the state an image describes.
    ///
    /// # Errors
    ///
    /// [`ImageError`] naming the part at fault: the allocator, a tick out of the clock's
    /// range, a name listed twice, the log.
    pub fn from_image(image: WorldImage) -> Result<World, ImageError> {
        let WorldImage {
            tick,
            change_tick,
            last_clamp,
            allocator,
            schedule_ticks,
            system_runs,
            log,
        } = image;
        check_tick("the last clamp", last_clamp, change_tick)?;
        let entities = Entities::from_image(&allocator).map_err(ImageError::BadAllocator)?;
        let mut world = World::with_entities(entities);
        world.tick = tick;
        world.change_tick = change_tick;
        world.last_clamp = last_clamp;
        let mut labels = BTreeMap::new();
        for (label, tick) in schedule_ticks {
            if labels.contains_key(label.as_str()) {
                return Err(ImageError::Duplicate {
                    what: "schedule",
                    name: label,
                });
            }
            labels.insert(label.into_boxed_str(), tick);
        }
        world.schedule_ticks = labels;
        for (name, last) in system_runs {
            check_tick(&format!("system `{name}`'s last run"), last, change_tick)?;
            if world.unbound_system_runs.contains_key(name.as_str()) {
                return Err(ImageError::Duplicate {
                    what: "system",
                    name,
                });
            }
            world
                .unbound_system_runs
                .insert(name.into_boxed_str(), last);
        }
        world.log = log
            .map(StructuralLog::from_image)
            .transpose()
            .map_err(ImageError::BadLog)?;
        Ok(world)
    }

    /// Stores `T`'s values with their change ticks, in ascending slot order, and the store's
    /// high-water mark (`last_changed`: no value's change tick may be newer).
    ///
    /// # Errors
    ///
    /// [`ImageError::StoreNotEmpty`] if the world holds a `T`; [`ImageError::BadRow`] naming
    /// the entity for a dead entity, a slot not above the previous row's, or a tick newer
    /// than `last_changed`; [`ImageError::TickOutOfRange`]. The world is unchanged on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rota::{Component, World};
    /// #[derive(Component, Clone)]
    /// struct Hp(u32);
    /// let mut world = World::new();
    /// let a = world.spawn_with((Hp(3),));
    /// let store = world.store::<Hp>().unwrap();
    /// let rows = vec![(a, Hp(3), store.ticks(a).unwrap())];
    /// let mut copy = World::from_image(world.image()?)?;
    /// copy.import_column(rows, store.last_changed())?;
    /// assert_eq!(copy.get::<Hp>(a).unwrap().0, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn import_column<T: Component>(
        &mut self,
        rows: Vec<(Entity, T, ComponentTicks)>,
        last_changed: Tick,
    ) -> Result<(), ImageError> {
        let component = T::NAME;
        if self.store::<T>().is_some_and(|s| !s.is_empty()) {
            return Err(ImageError::StoreNotEmpty { component });
        }
        let now = self.change_tick;
        check_tick(&format!("component `{component}`"), last_changed, now)?;
        let mut previous: Option<u32> = None;
        for (entity, _, ticks) in &rows {
            let bad = |rule| ImageError::BadRow {
                component,
                entity: *entity,
                rule,
            };
            if !self.entities.is_alive(*entity) {
                return Err(bad("the entity is not alive"));
            }
            if previous.is_some_and(|p| p >= entity.slot()) {
                return Err(bad("slots must ascend"));
            }
            previous = Some(entity.slot());
            for tick in [ticks.added, ticks.changed] {
                check_tick(&format!("component `{component}`"), tick, now)?;
            }
            if ticks.changed.age(now) < last_changed.age(now) {
                return Err(bad("changed after the store's last change"));
            }
        }
        if rows.is_empty() {
            return Ok(());
        }
        let i = self.register::<T>();
        self.membership.reserve_slots(self.entities.slot_count());
        let store = self.store_mut::<T>().expect("registered above");
        for (entity, value, ticks) in rows {
            if !store.push_with_ticks(entity, value, ticks) {
                return Err(ImageError::BadRow {
                    component,
                    entity,
                    rule: "the store cannot grow",
                });
            }
        }
        store.set_last_changed(last_changed);
        let entities: Vec<Entity> = store.iter().map(|(e, _)| e).collect();
        for entity in entities {
            self.membership.set(entity.slot(), i);
        }
        Ok(())
    }

    /// Every registered store as `(type, name, values held)`, in registration order: what a
    /// save checks its list of types against.
    pub fn component_types(&self) -> Vec<(std::any::TypeId, &'static str, usize)> {
        self.stores
            .iter()
            .map(|e| (e.type_id, e.name, e.store.len()))
            .collect()
    }

    /// Every present resource as `(type, name)`, in registration order, leaving out event
    /// channels that hold nothing deciding the future (no event, no reader: they hash like
    /// absent ones).
    pub fn resource_types(&self) -> Vec<(std::any::TypeId, &'static str)> {
        self.resources
            .entries
            .iter()
            .filter(|e| {
                e.value
                    .as_deref()
                    .is_some_and(|v| !(e.fns.stream)(v).is_some_and(|s| s.is_vacant()))
            })
            .map(|e| (e.type_id, e.name))
            .collect()
    }

    /// The name of the system whose marker is `id`, if the world knows it.
    pub(crate) fn system_name(&self, id: std::any::TypeId) -> Option<&'static str> {
        self.system_names.get(&id).copied()
    }
}

/// Checks that `tick` is no newer than `now` and no older than clamping allows.
fn check_tick(what: &str, tick: Tick, now: Tick) -> Result<(), ImageError> {
    if tick.age(now) > OLDEST_AGE {
        return Err(ImageError::TickOutOfRange {
            what: what.to_owned(),
            tick: tick.get(),
            now: now.get(),
        });
    }
    Ok(())
}
