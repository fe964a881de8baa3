//! `SceneSet`: the tuple of component types a scene holds, and the typed column each becomes
//! while saving and loading.

use std::borrow::Cow;
use std::collections::BTreeMap;

use std::any::TypeId;

use rota_core::image::ImageError;
use rota_core::{Commands, ComponentTicks, Entity, Tick, World};

use crate::component::{FieldsIn, FieldsOut, SceneComponent};
use crate::error::{LoadError, SaveError};
use crate::format::{EntityRecord, Entries};
use crate::ids::{EntityIds, EntityMap};
use crate::value::Value;
use crate::world_file::bytes::Writer;

/// A tuple of up to 12 [`SceneComponent`] types: what [`save`](crate::save) writes and
/// [`load`](crate::load) accepts. A component in the file but not in the set is refused.
///
/// Implemented for tuples only: its method returns a type outside code cannot build.
pub trait SceneSet {
    /// One empty column per type, in tuple order (rota's plumbing).
    #[doc(hidden)]
    fn columns() -> Columns;
}

/// The columns of a [`SceneSet`] (opaque: rota's plumbing).
#[doc(hidden)]
pub struct Columns(pub(crate) Vec<Box<dyn Column>>);

/// Counts of what migration did while reading.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Migrated {
    pub(crate) defaulted: usize,
    pub(crate) dropped: usize,
}

/// One component type's part of a save or load (type-erased so a set is a `Vec` of them).
pub(crate) trait Column {
    /// The component's scene key.
    fn key(&self) -> &'static str;
    /// The component's Rust name.
    fn type_name(&self) -> &'static str;
    /// Appends this component of every entity holding it to its record.
    fn save(
        &self,
        world: &World,
        ids: &EntityIds<'_>,
        records: &mut [EntityRecord],
    ) -> Result<(), SaveError>;
    /// Reads one entity's component (the entity at `index` in file order) and keeps it.
    fn decode(
        &mut self,
        index: usize,
        entity: u64,
        fields: Entries<u32, Value>,
        map: &EntityMap,
        migrated: &mut Migrated,
    ) -> Result<(), LoadError>;
    /// Records inserting every kept value into the entity spawned for it.
    fn record(self: Box<Self>, commands: &mut Commands<'_>, spawned: &[Entity]);
    /// The component's `TypeId` (world saves check coverage by it).
    fn type_id(&self) -> TypeId;
    /// World saves: the store's high-water mark and every value with its entity's bits and
    /// change ticks, fields by ascending id.
    fn save_rows(
        &self,
        world: &World,
        ids: &EntityIds<'_>,
        out: &mut Writer,
    ) -> Result<(), SaveError>;
    /// World loads: the values `decode` gathered (index = row), stored with their ticks.
    fn import_rows(
        self: Box<Self>,
        world: &mut World,
        rows: Vec<(Entity, ComponentTicks)>,
        last_changed: Tick,
    ) -> Result<(), ImageError>;
}

pub(crate) struct TypedColumn<T>(Vec<(usize, T)>);

impl<T: SceneComponent> Column for TypedColumn<T> {
    fn key(&self) -> &'static str {
        T::KEY
    }
    fn type_name(&self) -> &'static str {
        T::NAME
    }
    fn save(
        &self,
        world: &World,
        ids: &EntityIds<'_>,
        records: &mut [EntityRecord],
    ) -> Result<(), SaveError> {
        let Some(store) = world.store::<T>() else {
            return Ok(());
        };
        for (entity, value) in store.iter() {
            let mut out = FieldsOut {
                ids,
                entity,
                component: T::KEY,
                fields: Vec::with_capacity(T::FIELDS.len()),
            };
            value.save_fields(&mut out)?;
            // Ascending id, not declaration order: reordering a struct's fields leaves its
            // file unchanged.
            out.fields.sort_unstable_by_key(|(id, _)| *id);
            // Stores hold only live entities, and every live entity has a record.
            if let Some(id) = ids.id_of(entity) {
                records[id as usize]
                    .components
                    .0
                    .push((Cow::Borrowed(T::KEY), Entries(out.fields)));
            }
        }
        Ok(())
    }
    fn decode(
        &mut self,
        index: usize,
        entity: u64,
        fields: Entries<u32, Value>,
        map: &EntityMap,
        migrated: &mut Migrated,
    ) -> Result<(), LoadError> {
        let mut kept = Vec::with_capacity(fields.0.len());
        let mut seen = Vec::with_capacity(fields.0.len());
        for (field, value) in fields.0 {
            if seen.contains(&field) {
                return Err(LoadError::DuplicateField {
                    entity,
                    component: T::KEY,
                    field,
                });
            }
            seen.push(field);
            if T::FIELDS.iter().any(|f| f.id == field) {
                kept.push((field, value));
            } else if T::RETIRED.contains(&field) {
                migrated.dropped += 1;
            } else {
                return Err(LoadError::UnknownField {
                    entity,
                    component: T::KEY,
                    field,
                });
            }
        }
        let mut input = FieldsIn {
            map,
            entity,
            component: T::KEY,
            fields: kept,
            defaulted: 0,
        };
        let value = T::load_fields(&mut input)?;
        migrated.defaulted += input.defaulted;
        self.0.push((index, value));
        Ok(())
    }
    fn record(self: Box<Self>, commands: &mut Commands<'_>, spawned: &[Entity]) {
        for (index, value) in self.0 {
            commands.insert(spawned[index], value);
        }
    }
    fn type_id(&self) -> TypeId {
        TypeId::of::<T>()
    }
    fn save_rows(
        &self,
        world: &World,
        ids: &EntityIds<'_>,
        out: &mut Writer,
    ) -> Result<(), SaveError> {
        let Some(store) = world.store::<T>() else {
            out.u32(world.change_tick().get());
            out.len(0);
            return Ok(());
        };
        out.u32(store.last_changed().get());
        out.len(store.len());
        for (entity, value) in store.iter() {
            let mut fields = FieldsOut {
                ids,
                entity,
                component: T::KEY,
                fields: Vec::with_capacity(T::FIELDS.len()),
            };
            value.save_fields(&mut fields)?;
            fields.fields.sort_unstable_by_key(|(id, _)| *id);
            let ticks = store.ticks(entity).unwrap_or_default();
            out.u64(entity.to_bits());
            out.u32(ticks.added.get());
            out.u32(ticks.changed.get());
            out.len(fields.fields.len());
            for (id, value) in &fields.fields {
                out.u32(*id);
                out.value(value);
            }
        }
        Ok(())
    }
    fn import_rows(
        self: Box<Self>,
        world: &mut World,
        rows: Vec<(Entity, ComponentTicks)>,
        last_changed: Tick,
    ) -> Result<(), ImageError> {
        let values = self
            .0
            .into_iter()
            .zip(rows)
            .map(|((_, value), (entity, ticks))| (entity, value, ticks))
            .collect();
        world.import_column::<T>(values, last_changed)
    }
}

/// A set's columns and, for lookup only, each key's position among them.
pub(crate) struct Checked {
    pub(crate) columns: Vec<Box<dyn Column>>,
    pub(crate) by_key: BTreeMap<&'static str, usize>,
}

/// The set's columns, refusing two types with one key (`on_duplicate` builds the error).
pub(crate) fn checked_columns<S: SceneSet, E>(
    on_duplicate: impl Fn(&'static str, &'static str, &'static str) -> E,
) -> Result<Checked, E> {
    let columns = S::columns().0;
    let mut by_key: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (i, column) in columns.iter().enumerate() {
        if let Some(&first) = by_key.get(column.key()) {
            return Err(on_duplicate(
                column.key(),
                columns[first].type_name(),
                column.type_name(),
            ));
        }
        by_key.insert(column.key(), i);
    }
    Ok(Checked { columns, by_key })
}

impl SceneSet for () {
    fn columns() -> Columns {
        Columns(Vec::new())
    }
}

macro_rules! scene_set_tuple {
    ($($T:ident),+) => {
        impl<$($T: SceneComponent),+> SceneSet for ($($T,)+) {
            fn columns() -> Columns {
                Columns(vec![$(Box::new(TypedColumn::<$T>(Vec::new()))),+])
            }
        }
    };
}
scene_set_tuple!(A);
scene_set_tuple!(A, B);
scene_set_tuple!(A, B, C);
scene_set_tuple!(A, B, C, D);
scene_set_tuple!(A, B, C, D, E);
scene_set_tuple!(A, B, C, D, E, F);
scene_set_tuple!(A, B, C, D, E, F, G);
scene_set_tuple!(A, B, C, D, E, F, G, H);
scene_set_tuple!(A, B, C, D, E, F, G, H, I);
scene_set_tuple!(A, B, C, D, E, F, G, H, I, J);
scene_set_tuple!(A, B, C, D, E, F, G, H, I, J, K);
scene_set_tuple!(A, B, C, D, E, F, G, H, I, J, K, L);
