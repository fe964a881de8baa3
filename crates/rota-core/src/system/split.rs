//! Splitting a `&mut World` into per-system borrows: exclusive for writes, shared for reads.
//! This is how systems run in parallel without `unsafe`: the borrow checker sees one `&mut` per
//! store, handed to at most one system.

use std::any::{Any, TypeId};

use super::{Grant, SystemDescriptor};
use crate::component::Resource;
pub use crate::error::SplitError;
use crate::query::Borrows;
use crate::world::World;
use crate::world::resources::{downcast_resource, downcast_resource_mut};

type AnyResource = dyn Any + Send + Sync + 'static;

enum ResBorrowed<'w> {
    Shared(&'w AnyResource),
    Exclusive(&'w mut AnyResource),
    Taken,
}

/// The resources one system borrowed.
pub struct ResourceBorrows<'w> {
    entries: Vec<(TypeId, ResBorrowed<'w>)>,
}

impl<'w> ResourceBorrows<'w> {
    /// Shared access to `R`, if it is in the world and was borrowed.
    pub fn shared<R: Resource>(&mut self) -> Option<&'w R> {
        let id = TypeId::of::<R>();
        let (_, slot) = self.entries.iter_mut().find(|(t, _)| *t == id)?;
        match std::mem::replace(slot, ResBorrowed::Taken) {
            ResBorrowed::Shared(r) => {
                *slot = ResBorrowed::Shared(r);
                Some(downcast_resource::<R>(r))
            }
            ResBorrowed::Exclusive(r) => {
                let r: &'w AnyResource = r;
                *slot = ResBorrowed::Shared(r);
                Some(downcast_resource::<R>(r))
            }
            ResBorrowed::Taken => None,
        }
    }

    /// Exclusive access to `R`, if it is in the world, was borrowed exclusively and not yet
    /// taken.
    pub fn exclusive<R: Resource>(&mut self) -> Option<&'w mut R> {
        let id = TypeId::of::<R>();
        let (_, slot) = self.entries.iter_mut().find(|(t, _)| *t == id)?;
        match std::mem::replace(slot, ResBorrowed::Taken) {
            ResBorrowed::Exclusive(r) => Some(downcast_resource_mut::<R>(r)),
            other => {
                *slot = other;
                None
            }
        }
    }
}

/// Everything one system borrowed from a world.
pub struct SystemBorrows<'w> {
    pub(crate) stores: Borrows<'w>,
    pub(crate) resources: ResourceBorrows<'w>,
    pub(crate) system_id: TypeId,
    /// What the system's deferred parameters may do (see [`Grant`]).
    pub(crate) grant: Grant,
}

fn users(
    systems: &[&SystemDescriptor],
    id: TypeId,
    name: &'static str,
) -> Result<(Option<usize>, Vec<usize>), SplitError> {
    let mut writer: Option<usize> = None;
    let mut readers: Vec<usize> = Vec::new();
    for (i, d) in systems.iter().enumerate() {
        if d.writes_type(id) {
            if let Some(w) = writer {
                return Err(SplitError {
                    first: systems[w].name,
                    second: d.name,
                    name,
                });
            }
            writer = Some(i);
        } else if d.reads_type(id) || d.receives_type(id) {
            readers.push(i);
        }
    }
    if let (Some(w), Some(&r)) = (writer, readers.first()) {
        let (a, b) = if w < r { (w, r) } else { (r, w) };
        return Err(SplitError {
            first: systems[a].name,
            second: systems[b].name,
            name,
        });
    }
    Ok((writer, readers))
}

impl World {
    /// Splits this world among `systems`, which must not conflict: each gets exclusive borrows
    /// of the stores and resources it writes and shared borrows of those it reads (and of the
    /// channels of the events it receives). Settles the stores first.
    ///
    /// This is the start of the systems' runs on the change clock: each system, in the order
    /// given, gets its own tick and the window `(its last run, this tick]` its `Changed`/`Added`
    /// filters see, and this tick is recorded as its last run (see [`crate::tick`]).
    ///
    /// # Errors
    ///
    /// [`SplitError`] naming two systems and the type they both access with a write.
    pub fn split_for_systems<'w>(
        &'w mut self,
        systems: &[&SystemDescriptor],
    ) -> Result<Vec<SystemBorrows<'w>>, SplitError> {
        // Decide from the declarations alone, whatever stores this world happens to hold.
        for (i, a) in systems.iter().enumerate() {
            for b in &systems[i + 1..] {
                if let Some(name) = a.conflict_with(b) {
                    return Err(SplitError {
                        first: a.name,
                        second: b.name,
                        name,
                    });
                }
            }
        }
        let ids: Vec<TypeId> = systems.iter().map(|d| d.id).collect();
        // Named first: a system's first run takes its last run and its readers' cursors from
        // a loaded image before its window is computed.
        for d in systems {
            self.name_system(d.id, d.name);
        }
        let windows = self.begin_system_runs(&ids);
        let (entities, all_stores, all_resources) = self.split_parts_mut();
        let mut stores: Vec<Borrows<'w>> = windows
            .into_iter()
            .map(|w| Borrows::from_parts(entities, w))
            .collect();
        let mut resources: Vec<Vec<_>> = (0..systems.len()).map(|_| Vec::new()).collect();
        for entry in all_stores.iter_mut() {
            let (writer, readers) = users(systems, entry.type_id, entry.name)?;
            if writer.is_none() && readers.is_empty() {
                continue;
            }
            entry.store.settle();
            match writer {
                Some(w) => stores[w].push(entry.type_id, entry.name, &mut *entry.store, true),
                None => {
                    let shared: &'w _ = &*entry.store;
                    for &r in &readers {
                        stores[r].push_shared(entry.type_id, entry.name, shared);
                    }
                }
            }
        }
        for entry in all_resources.entries.iter_mut() {
            let (writer, readers) = users(systems, entry.type_id, entry.name)?;
            let Some(value) = entry.value.as_deref_mut() else {
                continue;
            };
            match writer {
                Some(w) => resources[w].push((entry.type_id, ResBorrowed::Exclusive(value))),
                None => {
                    let shared: &AnyResource = value;
                    for &r in &readers {
                        resources[r].push((entry.type_id, ResBorrowed::Shared(shared)));
                    }
                }
            }
        }
        Ok(stores
            .into_iter()
            .zip(resources)
            .zip(systems)
            .map(|((stores, r), descriptor)| SystemBorrows {
                stores,
                resources: ResourceBorrows { entries: r },
                system_id: descriptor.id,
                grant: Grant::of(descriptor),
            })
            .collect())
    }
}
