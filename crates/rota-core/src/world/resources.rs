//! Resources: at most one value of each `Resource` type per world.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;

use crate::component::Resource;
use crate::error::ResourceError;
use crate::world::World;

pub(crate) struct ResourceEntry {
    pub(crate) type_id: TypeId,
    pub(crate) name: &'static str,
    pub(crate) value: Option<Box<dyn Any + Send + Sync>>,
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
        "rota internal invariant violated: the resource registered for `{}` has another type",
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
