//! Looking at one entity from outside: which components it holds, by name (for debugging and
//! inspectors).

use crate::entity::{Entity, EntityNotAlive};
use crate::world::World;

impl World {
    /// The names of the components `entity` holds, in name order (the order does not depend
    /// on the order the types were registered in, so two worlds that agree list alike).
    ///
    /// ```
    /// # use rota::{Component, World};
    /// # #[derive(Component, Clone)] struct Pos(f32);
    /// # #[derive(Component, Clone)] struct Hp(u32);
    /// let mut world = World::new();
    /// let e = world.spawn_with((Pos(0.0), Hp(3)));
    /// assert_eq!(world.components_of(e)?, ["Hp", "Pos"]);
    /// world.despawn(e)?;
    /// assert!(world.components_of(e).is_err());
    /// # Ok::<(), rota::EntityNotAlive>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] if `entity` is not alive in this world.
    pub fn components_of(&self, entity: Entity) -> Result<Vec<&'static str>, EntityNotAlive> {
        if !self.entities.is_alive(entity) {
            return Err(EntityNotAlive(entity));
        }
        let mut names = Vec::new();
        self.membership.for_each(entity.slot(), |i| {
            names.push(self.stores[i].name);
        });
        names.sort_unstable();
        Ok(names)
    }
}
