//! The parent/child relation: [`ChildOf`] on a child, [`Children`] on its parent, written only by
//! the world's hierarchy methods ([`World::set_parent`], [`World::remove_parent`],
//! [`World::remove_children`], [`World::despawn_recursive`]) and their
//! [`Commands`](crate::Commands) twins.
//!
//! # Invariants (checked by [`World::check_invariants`])
//!
//! * Every `ChildOf(p)` names a live `p` whose `Children` lists the child exactly once.
//! * Every `Children` is non-empty, ascends strictly by slot, and lists only live entities whose
//!   `ChildOf` names its holder. An entity that loses its last child loses `Children`.
//! * No cycles: walking up `ChildOf` from any entity ends at a root.
//!
//! Children are kept in **ascending slot order**, not insertion order: like every other order
//! in rota it is a function of the contents, so two worlds with the same hierarchy list children
//! alike whatever order `set_parent` was called in, and a scene reloaded into fresh slots (which
//! keep their relative order) lists them as before.
//!
//! `World::despawn` (and `despawn_batch`, and `Commands::despawn`) keep the invariants too: the
//! despawned entity leaves its parent's `Children`, and its children become roots. Use
//! [`World::despawn_recursive`] to despawn a whole subtree.
//!
//! Neither component can be built outside rota-core, nor copied or cloned
//! (`tests/ui/seal/forge-*`), and a system cannot change them behind the hierarchy's back:
//! `writes(..)` of either and `defers(Children)` are compile errors, and what `defers(ChildOf)`
//! allows keeps the invariants (`Commands::set_parent`, `remove_parent`, and
//! `Commands::remove::<ChildOf>`, which is `remove_parent`). A world's own buffer
//! ([`World::commands`], which every component type may use) keeps them too:
//! `Commands::remove::<Children>` is [`World::remove_children`]. What types cannot prevent,
//! with a `&mut World`: `World::remove::<ChildOf>` or `::<Children>` (or `World::delete`)
//! bypasses the bookkeeping and returns an owned value that `World::insert` can put on another
//! entity, and a `query_mut::<&mut ChildOf>()` can swap two values. `check_invariants` reports
//! the damage, and the hierarchy's own walks stay finite on it — `set_parent` refuses an edge
//! into a parent cycle (as `HierarchyError::Cycle`), `despawn_recursive` visits each entity
//! once.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicU32;

use crate::access_markers::{AccessKind, Declarable};
use crate::component::Component;
use crate::entity::Entity;
use crate::error::{EntityNotAlive, HierarchyError};
use crate::snapshot_policy::{Cloning, SnapshotPolicy};
use crate::stable_hash::{StableHash, StableHashFn, StableHasher};
use crate::store::Store;
use crate::world::World;
use crate::world::despawn::Detach;

mod image;

pub use image::HierarchyImage;

/// The parent of the entity holding it. Read it in queries (`Query<&ChildOf>`); change it with
/// [`World::set_parent`] / [`World::remove_parent`] or their `Commands` twins.
///
/// Neither `Clone` nor `Copy`, and not constructible outside rota: a value cannot be taken from
/// one entity and inserted on another (which would make a parent link its parent does not list).
#[derive(Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChildOf(Entity);

impl ChildOf {
    /// The parent.
    pub fn parent(&self) -> Entity {
        self.0
    }
}

impl Component for ChildOf {
    const NAME: &'static str = "ChildOf";
    const UNIQUE_KEY: Option<&'static str> = Some("rota_core::hierarchy::ChildOf");
    /// Copied by snapshots like a `Clone` type, through functions private to rota (the type
    /// is not `Clone`, see its docs).
    const SNAPSHOT: SnapshotPolicy<Self> = SnapshotPolicy {
        cloning: Some(Cloning {
            column_from: |to, from| {
                to.clear();
                to.extend(from.iter().map(|c| ChildOf(c.0)));
            },
            value: |c| ChildOf(c.0),
            value_from: |to, from| to.0 = from.0,
        }),
    };
    fn stable_hash_fn() -> Option<StableHashFn<Self>> {
        Some(|c, h| c.0.stable_hash(h))
    }
    /// Its own registry number, as the derive gives every non-generic component: every
    /// `despawn` looks this store up (`World::has_relations`), and without a number that was a
    /// `TypeId` tree search (measured: 3.7% of `cargo bench --bench workloads -- despawn/loop`).
    fn __registry_cell() -> Option<&'static AtomicU32> {
        static CELL: AtomicU32 = AtomicU32::new(0);
        Some(&CELL)
    }
}

/// The children of the entity holding it, in ascending slot order (never empty).
///
/// Not `Clone` and not constructible outside rota, for the same reason as [`ChildOf`].
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Children(Vec<Entity>);

impl Children {
    /// The children, in ascending slot order.
    pub fn as_slice(&self) -> &[Entity] {
        &self.0
    }
}

/// So a system can declare the hierarchy: `defers(ChildOf)` for `Commands::set_parent` /
/// `remove_parent`, `reads(ChildOf)`/`reads(Children)` to query it. `writes(..)` of either
/// (a `&mut` that could swap two links) and `defers(Children)` are compile errors.
impl Declarable for ChildOf {
    const KIND: AccessKind = AccessKind::Component;
    const NAME: &'static str = "ChildOf";
    const __HIERARCHY: u8 = 1;
}

impl Declarable for Children {
    const KIND: AccessKind = AccessKind::Component;
    const NAME: &'static str = "Children";
    const __HIERARCHY: u8 = 2;
}

impl Component for Children {
    const NAME: &'static str = "Children";
    const UNIQUE_KEY: Option<&'static str> = Some("rota_core::hierarchy::Children");
    /// As for `ChildOf`.
    const SNAPSHOT: SnapshotPolicy<Self> = SnapshotPolicy {
        cloning: Some(Cloning {
            column_from: |to, from| {
                to.truncate(from.len());
                let kept = to.len();
                for (to, from) in to.iter_mut().zip(from) {
                    to.0.clone_from(&from.0);
                }
                to.extend(from[kept..].iter().map(|c| Children(c.0.clone())));
            },
            value: |c| Children(c.0.clone()),
            value_from: |to, from| to.0.clone_from(&from.0),
        }),
    };
    fn stable_hash_fn() -> Option<StableHashFn<Self>> {
        Some(|c, h| c.0.stable_hash(h))
    }
    /// Its own registry number, as for `ChildOf`.
    fn __registry_cell() -> Option<&'static AtomicU32> {
        static CELL: AtomicU32 = AtomicU32::new(0);
        Some(&CELL)
    }
}

impl World {
    /// `entity`'s parent, if it is alive and has one.
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        self.get::<ChildOf>(entity).map(ChildOf::parent)
    }

    /// `entity`'s children in ascending slot order (empty if it has none or is dead).
    pub fn children(&self, entity: Entity) -> &[Entity] {
        self.get::<Children>(entity).map_or(&[], Children::as_slice)
    }

    /// Makes `child` a child of `parent`, leaving its previous parent if it had one.
    ///
    /// ```
    /// # use rota::World;
    /// let mut world = World::new();
    /// let [root, a, b] = [(); 3].map(|_| world.spawn());
    /// world.set_parent(b, root)?;
    /// world.set_parent(a, root)?;
    /// assert_eq!(world.children(root), [a, b]); // ascending slot, not call order
    /// assert_eq!(world.parent(a), Some(root));
    /// assert!(world.set_parent(root, a).is_err()); // a cycle
    /// # Ok::<(), rota::HierarchyError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`HierarchyError`] if either entity is dead, `child == parent`, or `parent` is `child`
    /// or one of its descendants; nothing changes.
    ///
    /// # Cost
    ///
    /// The cycle check walks from `parent` up to its root: O(depth of `parent`), plus
    /// O(children of `parent`) for the sorted insert. So a chain of n entities built from the
    /// top down (each new entity the child of the last) costs O(n²) in all; built from the
    /// bottom up (each new entity the parent of the last root), O(n).
    pub fn set_parent(&mut self, child: Entity, parent: Entity) -> Result<(), HierarchyError> {
        self.check_set_parent(child, parent)?;
        if self.parent(child) == Some(parent) {
            return Ok(());
        }
        self.detach_from_parent(child);
        self.insert(child, ChildOf(parent))
            .expect("checked alive above");
        match self.get_mut::<Children>(parent) {
            Some(children) => insert_sorted(&mut children.0, child),
            None => {
                self.insert(parent, Children(vec![child]))
                    .expect("checked alive above");
            }
        }
        Ok(())
    }

    /// Checks what [`World::set_parent`] would refuse, changing nothing.
    pub(crate) fn check_set_parent(
        &self,
        child: Entity,
        parent: Entity,
    ) -> Result<(), HierarchyError> {
        if !self.is_alive(child) {
            return Err(HierarchyError::ChildNotAlive(child));
        }
        if !self.is_alive(parent) {
            return Err(HierarchyError::ParentNotAlive(parent));
        }
        // Walk up from the parent: meeting the child means the new edge closes a cycle. The
        // hierarchy has none (an invariant), but `&mut` access to `ChildOf` can swap values
        // into one; a walk longer than there are parents is in such a cycle, and the new
        // edge, which would join it, is refused as well.
        // The store is found once: a step is then one sparse lookup.
        let links = self.store::<ChildOf>();
        let parents = links.map_or(0, Store::len);
        let mut at = Some(parent);
        let mut steps = 0;
        while let Some(e) = at {
            if e == child || steps > parents {
                return Err(HierarchyError::Cycle { child, parent });
            }
            steps += 1;
            at = links.and_then(|l| l.get(e)).map(ChildOf::parent);
        }
        Ok(())
    }

    /// Makes `child` a root, returning its former parent.
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle.
    pub fn remove_parent(&mut self, child: Entity) -> Result<Option<Entity>, EntityNotAlive> {
        if !self.is_alive(child) {
            return Err(EntityNotAlive(child));
        }
        Ok(self.detach_from_parent(child))
    }

    /// Makes every child of `parent` a root, returning them in ascending slot order (the
    /// order [`World::children`] listed them); `parent` loses its `Children`. The world-level
    /// twin of `Commands::remove::<Children>`. In a hierarchy damaged through a `&mut World`
    /// bypass (module docs), a listed child whose `ChildOf` names another parent is returned
    /// but keeps that link: it is not this call's to break.
    ///
    /// ```
    /// # use rota::World;
    /// let mut world = World::new();
    /// let [root, a, b] = [(); 3].map(|_| world.spawn());
    /// world.set_parent(a, root)?;
    /// world.set_parent(b, root)?;
    /// assert_eq!(world.remove_children(root), Ok(vec![a, b]));
    /// assert_eq!(world.parent(a), None);
    /// assert!(world.children(root).is_empty());
    /// assert_eq!(world.remove_children(root), Ok(vec![])); // nothing left to detach
    /// # Ok::<(), rota::HierarchyError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle; nothing changes.
    pub fn remove_children(&mut self, parent: Entity) -> Result<Vec<Entity>, EntityNotAlive> {
        self.entities().check_alive(parent)?;
        let Some(Children(children)) = self.remove::<Children>(parent)? else {
            return Ok(Vec::new());
        };
        for &child in &children {
            // Only a link that names `parent`: after a `&mut World` bypass (module docs) a
            // listed child may name another parent, whose link is not this call's to break.
            if self.parent(child) == Some(parent) {
                let _ = self.remove::<ChildOf>(child);
            }
        }
        Ok(children)
    }

    /// Despawns `entity` and all its descendants, returning how many entities were despawned.
    ///
    /// ```
    /// # use rota::World;
    /// let mut world = World::new();
    /// let [root, a, b, other] = [(); 4].map(|_| world.spawn());
    /// world.set_parent(a, root)?;
    /// world.set_parent(b, a)?;
    /// assert_eq!(world.despawn_recursive(root), Ok(3));
    /// assert_eq!(world.len(), 1);
    /// assert!(world.is_alive(other));
    /// # Ok::<(), rota::HierarchyError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`EntityNotAlive`] for a dead or stale handle; nothing changes.
    pub fn despawn_recursive(&mut self, entity: Entity) -> Result<usize, EntityNotAlive> {
        self.entities().check_alive(entity)?;
        // Each entity once: the hierarchy has no cycles, but `&mut` access to `Children` can
        // swap values into one, and the walk must still end. (Detaching `entity` from its
        // parent below does not change what is under it.)
        let mut seen = BTreeSet::from([entity.slot()]);
        let mut subtree = vec![entity];
        let mut next = 0;
        while next < subtree.len() {
            for &child in self.children(subtree[next]) {
                if seen.insert(child.slot()) {
                    subtree.push(child);
                }
            }
            next += 1;
        }
        // A component `Clone` panicking in a copy of a column a snapshot shares leaves the
        // world as it was (the copies come before any change).
        Ok(self.despawn_detaching(subtree, Detach::Subtree(&seen), Ok(())))
    }

    /// Detaches a subtree about to be despawned (`in_subtree`: its slots) from the survivors:
    /// only their links change, the links inside it go with its despawns (the structural log
    /// records one `Despawned` per entity, and no `ChildOf`/`Children` removal of an entity
    /// that is despawned anyway). Every child a member lists is in the subtree, so a survivor
    /// is met only as a member's parent.
    pub(crate) fn detach_subtree(&mut self, subtree: &[Entity], in_subtree: &BTreeSet<u32>) {
        for &member in subtree {
            if let Some(parent) = self.get::<ChildOf>(member).map(ChildOf::parent)
                && !in_subtree.contains(&parent.slot())
            {
                self.unlist_child(parent, member);
            }
        }
    }

    /// Removes `child` from its parent's `Children` and drops its `ChildOf`.
    fn detach_from_parent(&mut self, child: Entity) -> Option<Entity> {
        let parent = self.remove::<ChildOf>(child).ok().flatten()?.0;
        self.unlist_child(parent, child);
        Some(parent)
    }

    /// Removes `child` from `parent`'s `Children` (and the `Children` once empty).
    fn unlist_child(&mut self, parent: Entity, child: Entity) {
        let now_empty = match self.get_mut::<Children>(parent) {
            Some(children) => {
                if let Ok(i) = children.0.binary_search_by_key(&child.slot(), |e| e.slot()) {
                    children.0.remove(i);
                }
                children.0.is_empty()
            }
            None => false,
        };
        if now_empty {
            let _ = self.remove::<Children>(parent);
        }
    }

    /// Whether any entity was ever given a parent (the despawn paths skip the hierarchy
    /// otherwise: one registry lookup).
    pub(crate) fn has_hierarchy(&self) -> bool {
        self.store::<ChildOf>().is_some_and(|s| !s.is_empty())
    }

    /// Whether the entity at `slot` has a parent or children, read from its membership row
    /// (a bit per store, already what a despawn reads next): [`World::detach_for_despawn`]
    /// has nothing to do for any other entity, hierarchy or not, and a despawn applied from
    /// commands may then be deferred.
    #[inline]
    pub(crate) fn has_relations(&self, slot: u32) -> bool {
        self.slot_has::<ChildOf>(slot) || self.slot_has::<Children>(slot)
    }

    /// Before `entity` (alive) is despawned: leave its parent, orphan its children. Two bit
    /// tests for an entity with neither ([`World::has_relations`]).
    ///
    /// Only the relatives change here: the entity's own `ChildOf`/`Children` go with the
    /// despawn itself, so the structural log records that as one `Despawned` entry.
    #[inline]
    pub(crate) fn detach_for_despawn(&mut self, entity: Entity) {
        if self.has_relations(entity.slot()) {
            self.detach_relations(entity);
        }
    }

    /// [`World::detach_for_despawn`] of an entity with a parent or children.
    fn detach_relations(&mut self, entity: Entity) {
        if let Some(parent) = self.get::<ChildOf>(entity).map(ChildOf::parent) {
            self.unlist_child(parent, entity);
        }
        if let Some(children) = self.get::<Children>(entity).map(|c| c.0.clone()) {
            for child in children {
                let _ = self.remove::<ChildOf>(child);
            }
        }
    }

    /// The hierarchy invariants listed in this module's documentation. O(n log n) in the
    /// number of links, whatever the hierarchy's depth or width: `Children` lists are checked
    /// first, so a child is found in its parent's by a binary search, and the cycle walk stops
    /// at an entity an earlier walk already followed to its root.
    pub(crate) fn check_hierarchy(&self) -> Result<(), String> {
        self.check_children_lists()?;
        let Some(store) = self.store::<ChildOf>() else {
            return Ok(());
        };
        // Slots whose walk up is known to end at a root.
        let mut rooted = BTreeSet::new();
        let mut path = Vec::new();
        for (child, ChildOf(parent)) in store.iter() {
            if !self.is_alive(*parent) {
                return Err(format!("{child} has a dead parent {parent}"));
            }
            // The lists ascend strictly by slot and name only entities whose parent is their
            // holder (checked above), so a list entry at `child`'s slot is `child` itself.
            let listed = self
                .children(*parent)
                .binary_search_by_key(&child.slot(), |e| e.slot())
                .is_ok();
            if !listed {
                return Err(format!(
                    "{child}'s parent {parent} lists it 0 times among its children"
                ));
            }
            path.clear();
            let mut at = Some(child);
            while let Some(e) = at {
                if rooted.contains(&e.slot()) {
                    break;
                }
                path.push(e.slot());
                if path.len() > store.len() + 1 {
                    return Err(format!("{child} is on a parent cycle"));
                }
                at = store.get(e).map(ChildOf::parent);
            }
            rooted.extend(path.iter().copied());
        }
        Ok(())
    }

    /// Every `Children` is non-empty, ascends strictly by slot, and names only entities whose
    /// `ChildOf` names its holder.
    fn check_children_lists(&self) -> Result<(), String> {
        if let Some(store) = self.store::<Children>() {
            for (parent, Children(children)) in store.iter() {
                if children.is_empty() {
                    return Err(format!("{parent} holds an empty Children"));
                }
                if children.windows(2).any(|w| w[0].slot() >= w[1].slot()) {
                    return Err(format!(
                        "{parent}'s children do not ascend by slot: {children:?}"
                    ));
                }
                if let Some(c) = children.iter().find(|&&c| self.parent(c) != Some(parent)) {
                    return Err(format!(
                        "{parent} lists {c} as a child but {c}'s parent is {:?}",
                        self.parent(*c)
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Inserts `child` into `children` (ascending by slot) unless present.
fn insert_sorted(children: &mut Vec<Entity>, child: Entity) {
    if let Err(i) = children.binary_search_by_key(&child.slot(), |e| e.slot()) {
        children.insert(i, child);
    }
}

// The hierarchy's components hash as the handles they hold.
impl StableHash for ChildOf {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.parent().stable_hash(h)
    }
}
impl StableHash for Children {
    fn stable_hash(&self, h: &mut StableHasher) {
        self.as_slice().stable_hash(h)
    }
}

#[cfg(test)]
mod tests;
