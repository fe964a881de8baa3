//! The hierarchy as plain data, for save files: [`HierarchyImage`], exported by
//! [`World::hierarchy_image`] and stored by [`World::import_hierarchy`]. The parent links are
//! the data; each parent's `Children` list is rebuilt from them (ascending slot), keeping the
//! saved change ticks of both components.

use crate::entity::Entity;
use crate::hierarchy::{ChildOf, Children};
use crate::tick::{ComponentTicks, Tick};
use crate::world::World;
use crate::world::image::ImageError;

/// The hierarchy's two stores as plain data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HierarchyImage {
    /// `(child, parent, the child's ChildOf ticks)`, ascending by the child's slot.
    pub links: Vec<(Entity, Entity, ComponentTicks)>,
    /// The `ChildOf` store's high-water mark.
    pub links_last_changed: Tick,
    /// `(parent, its Children ticks)`, ascending by slot: every parent of `links` once.
    pub parents: Vec<(Entity, ComponentTicks)>,
    /// The `Children` store's high-water mark.
    pub parents_last_changed: Tick,
}

impl World {
    /// The hierarchy as plain data (empty when no entity has a parent).
    pub fn hierarchy_image(&self) -> HierarchyImage {
        let mut image = HierarchyImage {
            links_last_changed: self.change_tick(),
            parents_last_changed: self.change_tick(),
            ..HierarchyImage::default()
        };
        if let Some(links) = self.store::<ChildOf>() {
            image.links_last_changed = links.last_changed();
            for (child, link) in links.iter() {
                let ticks = links.ticks(child).expect("held");
                image.links.push((child, link.parent(), ticks));
            }
        }
        if let Some(parents) = self.store::<Children>() {
            image.parents_last_changed = parents.last_changed();
            for (parent, _) in parents.iter() {
                image
                    .parents
                    .push((parent, parents.ticks(parent).expect("held")));
            }
        }
        image
    }

    /// Stores a hierarchy from an image into a world that has none.
    ///
    /// # Errors
    ///
    /// [`ImageError::BadRow`] naming the entity when a parent is not alive, when a parent of
    /// a link is missing from `parents` or a parent there has no child, and the errors of
    /// [`World::import_column`]. A cycle is found by `World::check_invariants`.
    pub fn import_hierarchy(&mut self, image: HierarchyImage) -> Result<(), ImageError> {
        let HierarchyImage {
            links,
            links_last_changed,
            parents,
            parents_last_changed,
        } = image;
        let mut lists: Vec<(Entity, Children, ComponentTicks)> = parents
            .into_iter()
            .map(|(p, ticks)| (p, Children(Vec::new()), ticks))
            .collect();
        let mut rows = Vec::with_capacity(links.len());
        for (child, parent, ticks) in links {
            let bad = |entity, rule| ImageError::BadRow {
                component: "ChildOf",
                entity,
                rule,
            };
            if !self.is_alive(parent) {
                return Err(bad(child, "its parent is not alive"));
            }
            let Ok(at) = lists.binary_search_by_key(&parent.slot(), |(p, _, _)| p.slot()) else {
                return Err(bad(parent, "a parent without Children"));
            };
            if lists[at].0 != parent {
                return Err(bad(parent, "a parent without Children"));
            }
            // Links ascend by the child's slot, so each list is built in ascending order.
            lists[at].1.0.push(child);
            rows.push((child, ChildOf(parent), ticks));
        }
        if let Some((p, _, _)) = lists.iter().find(|(_, c, _)| c.0.is_empty()) {
            return Err(ImageError::BadRow {
                component: "Children",
                entity: *p,
                rule: "a Children list with no child",
            });
        }
        self.import_column(rows, links_last_changed)?;
        self.import_column::<Children>(lists, parents_last_changed)
    }
}
