//! `field_diff`: which scene fields of one entity's component differ between two worlds — the
//! field-id step of the desync locator after [`World::diff`] named the store and the entity.

use rota_core::{Entity, World};

use crate::component::{FieldsOut, SceneComponent};
use crate::ids::EntityIds;
use crate::value::Value;

/// The ids of `T`'s fields whose values differ between `ours` and `theirs` for `entity`
/// (entity references compared by their bits), ascending; `None` when either world holds no
/// `T` for `entity`.
///
/// # Examples
///
/// ```
/// use rota::{Component, Scene, StableHash, World};
/// use rota::scene::field_diff;
///
/// #[derive(Component, Scene, StableHash, Clone)]
/// #[scene(key = "demo.Unit")]
/// struct Unit {
///     #[scene(id = 1)]
///     hp: u32,
///     #[scene(id = 2)]
///     speed: f32,
/// }
/// let mut ours = World::new();
/// let e = ours.spawn_with((Unit { hp: 3, speed: 1.0 },));
/// let mut theirs = World::new();
/// theirs.spawn_with((Unit { hp: 3, speed: 1.5 },));
/// let diff = ours.diff(&theirs);
/// let entity = diff.store("Unit").unwrap().first_differing.as_ref().unwrap().entity;
/// assert_eq!(field_diff::<Unit>(&ours, &theirs, entity), Some(vec![2]));
/// ```
pub fn field_diff<T: SceneComponent>(
    ours: &World,
    theirs: &World,
    entity: Entity,
) -> Option<Vec<u32>> {
    let a = fields::<T>(ours, entity)?;
    let b = fields::<T>(theirs, entity)?;
    let mut ids: Vec<u32> = a.iter().chain(&b).map(|(id, _)| *id).collect();
    ids.sort_unstable();
    ids.dedup();
    let value = |fields: &[(u32, Value)], id: u32| {
        fields
            .iter()
            .find(|(f, _)| *f == id)
            .map(|(_, v)| v.clone())
    };
    // Floats compare by bits: a NaN that did not change is not a difference.
    let same = |x: Option<Value>, y: Option<Value>| match (x, y) {
        (Some(Value::F32(x)), Some(Value::F32(y))) => x.to_bits() == y.to_bits(),
        (Some(Value::F64(x)), Some(Value::F64(y))) => x.to_bits() == y.to_bits(),
        (x, y) => x == y,
    };
    Some(
        ids.into_iter()
            .filter(|&id| !same(value(&a, id), value(&b, id)))
            .collect(),
    )
}

fn fields<T: SceneComponent>(world: &World, entity: Entity) -> Option<Vec<(u32, Value)>> {
    let value = world.get::<T>(entity)?;
    let ids = EntityIds::exact(world.entities());
    let mut out = FieldsOut {
        ids: &ids,
        entity,
        component: T::KEY,
        fields: Vec::with_capacity(T::FIELDS.len()),
    };
    // Exact ids write every reference as its bits: saving fields cannot fail.
    value.save_fields(&mut out).ok()?;
    Some(out.fields)
}
