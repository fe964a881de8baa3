//! Resources: at most one value of each `Resource` type per world.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;

use crate::component::Resource;
use crate::error::ResourceError;
use crate::sequence::NumberedStream;
use crate::stable_hash::StableHasher;
use crate::world::World;

pub(crate) type ErasedValue = Box<dyn Any + Send + Sync>;

pub(crate) struct ResourceEntry {
    pub(crate) type_id: TypeId,
    pub(crate) name: &'static str,
    pub(crate) value: Option<ErasedValue>,
    /// The type's snapshot and hash functions, erased (`R::SNAPSHOT`, `R::stable_hash_fn`).
    pub(crate) fns: ResourceFns,
}

/// What the world can do with a resource value without knowing its type.
#[derive(Copy, Clone)]
pub(crate) struct ResourceFns {
    /// A copy of the value, or `None` if the type is excluded from snapshots.
    pub(crate) snapshot: fn(&(dyn Any + Send + Sync)) -> Option<ErasedValue>,
    /// Overwrites the first value with a copy of the second (same type, cloneable).
    pub(crate) restore: fn(&mut (dyn Any + Send + Sync), &(dyn Any + Send + Sync)),
    /// Hashes the value; `false` if the type has no stable hash.
    pub(crate) stable_hash: fn(&(dyn Any + Send + Sync), &mut StableHasher) -> bool,
    pub(crate) type_name: fn() -> &'static str,
    /// `SnapshotPolicy::EXCLUDED`: a present value blocks snapshots.
    pub(crate) excluded: bool,
    /// The value as a numbered stream (an event channel), if it is one (`R::as_stream`).
    pub(crate) stream: fn(&(dyn Any + Send + Sync)) -> Option<&dyn NumberedStream>,
    /// The same, mutably.
    pub(crate) stream_mut: fn(&mut (dyn Any + Send + Sync)) -> Option<&mut dyn NumberedStream>,
}

impl ResourceFns {
    fn of<R: Resource>() -> ResourceFns {
        ResourceFns {
            snapshot: |value| {
                let cloning = R::SNAPSHOT.cloning?;
                Some(Box::new((cloning.value)(downcast_resource::<R>(value))))
            },
            restore: |to, from| {
                if let Some(cloning) = R::SNAPSHOT.cloning {
                    (cloning.value_from)(
                        downcast_resource_mut::<R>(to),
                        downcast_resource::<R>(from),
                    );
                }
            },
            stable_hash: |value, h| match R::stable_hash_fn() {
                Some(hash) => {
                    hash(downcast_resource::<R>(value), h);
                    true
                }
                None => false,
            },
            type_name: std::any::type_name::<R>,
            excluded: !R::SNAPSHOT.is_cloned(),
            stream: |value| downcast_resource::<R>(value).as_stream(),
            stream_mut: |value| downcast_resource_mut::<R>(value).as_stream_mut(),
        }
    }
}

/// Resources in registration order; the map is for lookup only, never iterated.
#[derive(Default)]
pub(crate) struct Resources {
    pub(crate) entries: Vec<ResourceEntry>,
    index: BTreeMap<TypeId, usize>,
}

impl Resources {
    pub(crate) fn names(&self) -> Vec<&'static str> {
        self.entries
            .iter()
            .filter(|e| e.value.is_some())
            .map(|e| e.name)
            .collect()
    }

    /// A copy of every entry for a snapshot, or the name of a present resource that is
    /// excluded from snapshots.
    ///
    /// Exhaustive on purpose (here and in `restore_from`): a field added to `Resources` or
    /// `ResourceEntry` is a compile error until snapshots copy it.
    pub(crate) fn snapshot(&self) -> Result<Resources, &'static str> {
        let Resources { entries, index } = self;
        let mut copies = Vec::with_capacity(entries.len());
        for entry in entries {
            let ResourceEntry {
                type_id,
                name,
                value,
                fns,
            } = entry;
            let value = match value {
                None => None,
                Some(v) => Some((fns.snapshot)(&**v).ok_or(*name)?),
            };
            copies.push(ResourceEntry {
                type_id: *type_id,
                name,
                value,
                fns: *fns,
            });
        }
        Ok(Resources {
            entries: copies,
            index: index.clone(),
        })
    }

    /// The name of the first present resource excluded from snapshots, if any.
    pub(crate) fn first_excluded(&self) -> Option<&'static str> {
        self.entries
            .iter()
            .find(|e| e.fns.excluded && e.value.is_some())
            .map(|e| e.name)
    }

    /// Makes these resources a copy of `source` (a snapshot's), reusing the boxes of values
    /// present on both sides.
    ///
    /// A resource's `Drop` or `Clone` may panic: every entry is still restored to the
    /// snapshot's type — a value whose copy panicked is absent, one whose own `clone_from`
    /// panicked is as that left it —, the values replaced are dropped last, and the first
    /// panic is returned for the caller to resume once its own state is whole.
    pub(crate) fn restore_from(&mut self, source: &Resources) -> crate::unwind::Unwound {
        use std::panic::{AssertUnwindSafe, catch_unwind};
        let Resources { entries, index } = self;
        let mut first_panic = Ok(());
        let mut keep = |result: crate::unwind::Unwound| {
            if first_panic.is_ok() {
                first_panic = result;
            }
        };
        let mut gone: Vec<Option<ErasedValue>> = entries
            .split_off(source.entries.len().min(entries.len()))
            .into_iter()
            .map(|entry| entry.value)
            .collect();
        for (i, from) in source.entries.iter().enumerate() {
            let mut copy_of = |from_value: &Option<ErasedValue>| {
                let value = from_value.as_ref()?;
                match catch_unwind(AssertUnwindSafe(|| (from.fns.snapshot)(&**value))) {
                    Ok(copy) => copy,
                    Err(panic) => {
                        keep(Err(panic));
                        None
                    }
                }
            };
            match entries.get_mut(i) {
                Some(to) if to.type_id == from.type_id => match (&mut to.value, &from.value) {
                    (Some(to), Some(from_value)) => keep(catch_unwind(AssertUnwindSafe(|| {
                        (from.fns.restore)(&mut **to, &**from_value)
                    }))),
                    (to, from_value) => {
                        let copy = copy_of(from_value);
                        gone.push(std::mem::replace(to, copy));
                    }
                },
                slot => {
                    let entry = ResourceEntry {
                        type_id: from.type_id,
                        name: from.name,
                        value: copy_of(&from.value),
                        fns: from.fns,
                    };
                    match slot {
                        Some(to) => gone.push(std::mem::replace(to, entry).value),
                        None => entries.push(entry),
                    }
                }
            }
        }
        index.clone_from(&source.index);
        keep(crate::unwind::drop_one_by_one(gone));
        first_panic
    }

    /// Every present numbered stream (event channel), with its type, in registration order.
    pub(crate) fn streams(&self) -> impl Iterator<Item = (TypeId, &dyn NumberedStream)> {
        self.entries.iter().filter_map(|e| {
            let value = e.value.as_deref()?;
            Some((e.type_id, (e.fns.stream)(value)?))
        })
    }

    /// [`Resources::streams`], mutably.
    pub(crate) fn streams_mut(
        &mut self,
    ) -> impl Iterator<Item = (TypeId, &mut dyn NumberedStream)> {
        self.entries.iter_mut().filter_map(|e| {
            let stream_mut = e.fns.stream_mut;
            let value = e.value.as_deref_mut()?;
            Some((e.type_id, stream_mut(value)?))
        })
    }

    pub(crate) fn position(&self, type_id: TypeId) -> Option<usize> {
        self.index.get(&type_id).copied()
    }

    fn position_or_register<R: Resource>(&mut self) -> usize {
        let next = self.entries.len();
        let i = *self.index.entry(TypeId::of::<R>()).or_insert(next);
        if i == next {
            self.entries.push(ResourceEntry {
                type_id: TypeId::of::<R>(),
                name: R::NAME,
                value: None,
                fns: ResourceFns::of::<R>(),
            });
        }
        i
    }
}

pub(crate) fn downcast_resource<R: Resource>(value: &(dyn Any + Send + Sync)) -> &R {
    value
        .downcast_ref::<R>()
        .unwrap_or_else(|| resource_mismatch::<R>())
}

pub(crate) fn downcast_resource_mut<R: Resource>(value: &mut (dyn Any + Send + Sync)) -> &mut R {
    value
        .downcast_mut::<R>()
        .unwrap_or_else(|| resource_mismatch::<R>())
}

#[cold]
fn resource_mismatch<R: Resource>() -> ! {
    panic!(
        "rota internal invariant violated: the resource registered for `{}` has another type (resources are keyed by `TypeId`)",
        std::any::type_name::<R>()
    )
}

impl World {
    /// Stores `resource`, returning the value of the same type it replaces.
    pub fn insert_resource<R: Resource>(&mut self, resource: R) -> Option<R> {
        let i = self.resources.position_or_register::<R>();
        let old = self.resources.entries[i].value.replace(Box::new(resource));
        old.map(|b| match b.downcast::<R>() {
            Ok(r) => *r,
            Err(_) => resource_mismatch::<R>(),
        })
    }

    /// The resource of type `R`.
    ///
    /// # Errors
    ///
    /// [`ResourceError::Missing`] naming `R` if none is stored.
    pub fn resource<R: Resource>(&self) -> Result<&R, ResourceError> {
        self.resources
            .position(TypeId::of::<R>())
            .and_then(|i| self.resources.entries[i].value.as_deref())
            .map(downcast_resource::<R>)
            .ok_or(ResourceError::Missing { resource: R::NAME })
    }

    /// The resource of type `R`, mutably.
    ///
    /// # Errors
    ///
    /// [`ResourceError::Missing`] naming `R` if none is stored.
    pub fn resource_mut<R: Resource>(&mut self) -> Result<&mut R, ResourceError> {
        self.resources
            .position(TypeId::of::<R>())
            .and_then(|i| self.resources.entries[i].value.as_deref_mut())
            .map(downcast_resource_mut::<R>)
            .ok_or(ResourceError::Missing { resource: R::NAME })
    }

    /// Removes and returns the resource of type `R`, if stored.
    pub fn remove_resource<R: Resource>(&mut self) -> Option<R> {
        let i = self.resources.position(TypeId::of::<R>())?;
        let b = self.resources.entries[i].value.take()?;
        Some(match b.downcast::<R>() {
            Ok(r) => *r,
            Err(_) => resource_mismatch::<R>(),
        })
    }

    /// Whether a resource of type `R` is stored.
    pub fn has_resource<R: Resource>(&self) -> bool {
        self.resource::<R>().is_ok()
    }
}
