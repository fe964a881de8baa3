//! The structural change log against an oracle log, and tags.
//!
//! * `the_log_matches_an_oracle_log` (proptest) — random spawns (single, batch, through
//!   `Commands`), inserts (new and replacing), removes, despawns (single, batch, through
//!   `Commands`), trims and reads from random cursors on a small random capacity. After every
//!   step, reading from each consumer's cursor returns exactly the oracle's entries (retained,
//!   in order, numbered) and the oracle's `missed` count.
//! * `despawn_recursive_logs_each_despawned_entity_once_and_only_survivors_links` — a subtree's
//!   despawn logs one `Despawned` per entity of it, and `ChildOf`/`Children` changes only for
//!   the entities that survive it.
//! * Tags (zero-sized components) store no values: adding and removing one is O(1), never moves
//!   another store's data, and is logged.

use proptest::prelude::*;
use rota::rota_core::log::{LogEntry, StructuralChange};
use rota::{ChildOf, Children, Component, Entity, World};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct A(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Tag;

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    SpawnBatch(u8),
    SpawnByCommands,
    InsertA(usize),
    InsertTag(usize),
    RemoveA(usize),
    RemoveTag(usize),
    Despawn(usize),
    DespawnBatch(usize, usize),
    DespawnByCommands(usize),
    Trim(u8),
    Read(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Spawn),
        1 => (0u8..4).prop_map(Op::SpawnBatch),
        1 => Just(Op::SpawnByCommands),
        2 => (0..64usize).prop_map(Op::InsertA),
        2 => (0..64usize).prop_map(Op::InsertTag),
        1 => (0..64usize).prop_map(Op::RemoveA),
        1 => (0..64usize).prop_map(Op::RemoveTag),
        1 => (0..64usize).prop_map(Op::Despawn),
        1 => (0..64usize, 0..64usize).prop_map(|(a, b)| Op::DespawnBatch(a, b)),
        1 => (0..64usize).prop_map(Op::DespawnByCommands),
        1 => (0u8..4).prop_map(Op::Trim),
        3 => (0..2usize).prop_map(Op::Read),
    ]
}

/// The oracle: every change ever made, numbered by position, and what each live entity holds.
#[derive(Default)]
struct Oracle {
    log: Vec<StructuralChange>,
    /// Entries below this were trimmed.
    trimmed: u64,
    live: Vec<(Entity, bool, bool)>,
}

fn added<T: Component>(entity: Entity) -> StructuralChange {
    StructuralChange::Added {
        entity,
        component: T::NAME,
        type_id: std::any::TypeId::of::<T>(),
    }
}

fn removed<T: Component>(entity: Entity) -> StructuralChange {
    StructuralChange::Removed {
        entity,
        component: T::NAME,
        type_id: std::any::TypeId::of::<T>(),
    }
}

impl Oracle {
    fn pick(&self, i: usize) -> Option<usize> {
        (!self.live.is_empty()).then(|| i % self.live.len())
    }

    fn spawned(&mut self, e: Entity) {
        self.log.push(StructuralChange::Spawned(e));
        self.log.push(added::<A>(e));
        self.live.push((e, true, false));
    }

    /// What reading from `cursor` returns with `capacity`: (missed, entries).
    fn read(&self, cursor: u64, capacity: usize) -> (u64, Vec<LogEntry>) {
        let total = self.log.len() as u64;
        let oldest = total.saturating_sub(capacity as u64).max(self.trimmed);
        let start = cursor.max(oldest);
        let entries = (start..total)
            .map(|s| LogEntry {
                sequence: s,
                change: self.log[s as usize],
            })
            .collect();
        (start - cursor.min(start), entries)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(256)))]

    #[test]
    fn the_log_matches_an_oracle_log(
        capacity in 1usize..40,
        ops in proptest::collection::vec(op(), 1..80),
    ) {
        let mut world = World::new();
        world.enable_structural_log(capacity);
        let mut o = Oracle::default();
        let mut cursors = [0u64; 2];
        for op in ops {
            match op {
                Op::Spawn => {
                    let e = world.spawn_with((A(0),));
                    o.spawned(e);
                }
                Op::SpawnBatch(n) => {
                    for e in world.spawn_batch((0..n).map(|i| (A(i as u32),))) {
                        o.spawned(e);
                    }
                }
                Op::SpawnByCommands => {
                    let mut commands = world.commands();
                    let e = commands.spawn((A(7),));
                    let queue = commands.finish();
                    prop_assert!(world.apply(queue).is_clean());
                    o.spawned(e);
                }
                Op::InsertA(i) => if let Some(i) = o.pick(i) {
                    let (e, has_a, _) = &mut o.live[i];
                    world.insert(*e, A(1)).unwrap();
                    if !*has_a {
                        o.log.push(added::<A>(*e));
                        *has_a = true;
                    }
                },
                Op::InsertTag(i) => if let Some(i) = o.pick(i) {
                    let (e, _, has_tag) = &mut o.live[i];
                    // Half through commands, so both paths are covered.
                    if i % 2 == 0 {
                        world.insert(*e, Tag).unwrap();
                    } else {
                        let mut commands = world.commands();
                        commands.insert(*e, Tag);
                        let queue = commands.finish();
                        prop_assert!(world.apply(queue).is_clean());
                    }
                    if !*has_tag {
                        o.log.push(added::<Tag>(*e));
                        *has_tag = true;
                    }
                },
                Op::RemoveA(i) => if let Some(i) = o.pick(i) {
                    let (e, has_a, _) = &mut o.live[i];
                    world.remove::<A>(*e).unwrap();
                    if *has_a {
                        o.log.push(removed::<A>(*e));
                        *has_a = false;
                    }
                },
                Op::RemoveTag(i) => if let Some(i) = o.pick(i) {
                    let (e, _, has_tag) = &mut o.live[i];
                    let mut commands = world.commands();
                    commands.remove::<Tag>(*e);
                    let queue = commands.finish();
                    prop_assert!(world.apply(queue).is_clean());
                    if *has_tag {
                        o.log.push(removed::<Tag>(*e));
                        *has_tag = false;
                    }
                },
                Op::Despawn(i) => if let Some(i) = o.pick(i) {
                    let (e, _, _) = o.live.remove(i);
                    world.despawn(e).unwrap();
                    o.log.push(StructuralChange::Despawned(e));
                },
                Op::DespawnBatch(a, b) => if let (Some(a), Some(b)) = (o.pick(a), o.pick(b)) {
                    let (ea, eb) = (o.live[a].0, o.live[b].0);
                    world.despawn_batch([ea, eb, ea]);
                    o.log.push(StructuralChange::Despawned(ea));
                    if eb != ea {
                        o.log.push(StructuralChange::Despawned(eb));
                    }
                    o.live.retain(|(e, _, _)| *e != ea && *e != eb);
                },
                Op::DespawnByCommands(i) => if let Some(i) = o.pick(i) {
                    let (e, _, _) = o.live.remove(i);
                    let mut commands = world.commands();
                    commands.despawn(e);
                    let queue = commands.finish();
                    prop_assert!(world.apply(queue).is_clean());
                    o.log.push(StructuralChange::Despawned(e));
                },
                Op::Trim(k) => {
                    // Trim up to the slowest consumer (minus a little slack).
                    let up_to = cursors.iter().min().copied().unwrap_or(0).saturating_sub(u64::from(k));
                    world.trim_structural_log(up_to);
                    o.trimmed = o.trimmed.max(up_to);
                }
                Op::Read(r) => {
                    let (missed, want) = o.read(cursors[r], capacity);
                    let log = world.structural_log().unwrap();
                    let read = log.changes_since(cursors[r]);
                    prop_assert_eq!(read.missed, missed);
                    let next = read.next;
                    prop_assert_eq!(read.len(), want.len());
                    prop_assert_eq!(read.size_hint(), (want.len(), Some(want.len())));
                    let got: Vec<LogEntry> = read.copied().collect();
                    prop_assert_eq!(got, want);
                    cursors[r] = next;
                    prop_assert_eq!(next, o.log.len() as u64);
                }
            }
            let log = world.structural_log().unwrap();
            let total = o.log.len() as u64;
            prop_assert_eq!(log.next_sequence(), total);
            // Retained: the newest `capacity` entries, less what was trimmed.
            let oldest = total.saturating_sub(capacity as u64).max(o.trimmed);
            prop_assert_eq!(log.oldest_sequence(), oldest);
            prop_assert_eq!(log.len() as u64, total - oldest);
            prop_assert!(log.len() <= capacity);
            prop_assert!(world.check_invariants().is_ok());
        }
    }
}

#[test]
fn tags_store_nothing_move_nothing_and_are_logged() {
    let mut world = World::new();
    let es = world.spawn_batch((0..1000u32).map(|i| (A(i),)));
    world.enable_structural_log(16);
    let a = world.store::<A>().unwrap();
    let (entities_before, values_before) = (a.dense_entities().to_vec(), a.dense_values().to_vec());
    let values_ptr = a.dense_values().as_ptr();
    for &e in es.iter().step_by(7) {
        world.insert(e, Tag).unwrap();
    }
    for &e in es.iter().step_by(14) {
        world.remove::<Tag>(e).unwrap();
    }
    // `A`'s columns did not move or change: a tag never touches another store.
    let a = world.store::<A>().unwrap();
    assert_eq!(a.dense_values().as_ptr(), values_ptr);
    assert_eq!(a.dense_entities(), &entities_before[..]);
    assert_eq!(a.dense_values(), &values_before[..]);
    // The tag store holds entities but no value bytes.
    let tags = world.store::<Tag>().unwrap();
    assert_eq!(
        tags.len(),
        es.iter().step_by(7).count() - es.iter().step_by(14).count()
    );
    assert_eq!(std::mem::size_of_val(tags.dense_values()), 0);
    // Both kinds of change are in the log (the newest 16 entries, the last being removals).
    let log = world.structural_log().unwrap();
    let last = log.changes_since(0).last().unwrap();
    assert!(matches!(
        last.change,
        StructuralChange::Removed {
            component: "Tag",
            ..
        }
    ));
}

#[test]
fn despawning_an_entity_in_a_hierarchy_is_one_entry_for_it() {
    let mut world = World::new();
    let parent = world.spawn_with((A(0),));
    let child = world.spawn_with((A(1),));
    let grandchild = world.spawn_with((A(2),));
    world.set_parent(child, parent).unwrap();
    world.set_parent(grandchild, child).unwrap();
    world.enable_structural_log(64);
    world.despawn(child).unwrap();
    let about_child: Vec<StructuralChange> = world
        .structural_log()
        .unwrap()
        .changes_since(0)
        .map(|e| e.change)
        .filter(|c| match c {
            StructuralChange::Despawned(e) => *e == child,
            StructuralChange::Added { entity, .. } | StructuralChange::Removed { entity, .. } => {
                *entity == child
            }
            _ => false,
        })
        .collect();
    assert_eq!(about_child, [StructuralChange::Despawned(child)]);
    // Its relatives' changes are logged as theirs: the parent lost its `Children`, the
    // grandchild its `ChildOf`.
    assert!(world.children(parent).is_empty());
    assert_eq!(world.parent(grandchild), None);
    assert!(world.check_invariants().is_ok());
}

/// A `spawn_batch` whose iterator panics half-way logs the entities it spawned before the
/// panic (each `Spawned`, then its component `Added`), like a batch that ends normally.
#[test]
fn a_spawn_batch_interrupted_by_a_panic_logs_what_it_spawned() {
    let mut world = World::new();
    world.enable_structural_log(100);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.spawn_batch((0..5).map(|i| {
            assert!(i < 2, "the bundle iterator fails at {i}");
            (A(i),)
        }))
    }));
    assert!(caught.is_err());
    world.check_invariants().unwrap();
    let alive: Vec<Entity> = world.query::<Entity>().collect();
    assert_eq!(alive.len(), 2);
    let logged: Vec<StructuralChange> = world
        .structural_log()
        .unwrap()
        .changes_since(0)
        .map(|e| e.change)
        .collect();
    let mut expected = Vec::new();
    for &e in &alive {
        expected.push(format!("{:?}", StructuralChange::Spawned(e)));
        expected.push(format!("Added {e} A"));
    }
    let got: Vec<String> = logged
        .iter()
        .map(|c| match c {
            StructuralChange::Added {
                entity, component, ..
            } => format!("Added {entity} {}", component.rsplit("::").next().unwrap()),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(got, expected);
}

/// o → r → a → b: despawning r logs `Despawned` for r, a and b, once each, and of the hierarchy
/// only what happens to o, the survivor: its `Children` (emptied, so removed). The links inside
/// the subtree go with the despawns, unlogged. With a sibling s beside r, o keeps a shorter
/// `Children` list (a value change, not a structural one) and only the despawns are logged.
#[test]
fn despawn_recursive_logs_each_despawned_entity_once_and_only_survivors_links() {
    fn changes_after(world: &World, cursor: u64) -> Vec<StructuralChange> {
        let log = world.structural_log().unwrap();
        log.changes_since(cursor)
            .map(|entry| entry.change)
            .collect()
    }
    fn removed<T: Component>(entity: Entity) -> StructuralChange {
        StructuralChange::Removed {
            entity,
            component: T::NAME,
            type_id: std::any::TypeId::of::<T>(),
        }
    }
    for with_sibling in [false, true] {
        let mut world = World::new();
        world.enable_structural_log(1024);
        let [o, r, a, b, s] = [(); 5].map(|_| world.spawn_with((A(0),)));
        world.set_parent(r, o).unwrap();
        world.set_parent(a, r).unwrap();
        world.set_parent(b, a).unwrap();
        if with_sibling {
            world.set_parent(s, o).unwrap();
        }
        let cursor = world.structural_log().unwrap().next_sequence();
        assert_eq!(world.despawn_recursive(r), Ok(3));
        let mut expected = Vec::new();
        if !with_sibling {
            expected.push(removed::<Children>(o));
        }
        expected.extend([r, a, b].map(StructuralChange::Despawned));
        assert_eq!(
            changes_after(&world, cursor),
            expected,
            "sibling: {with_sibling}"
        );
        let survivors: &[Entity] = if with_sibling { &[s] } else { &[] };
        assert_eq!(world.children(o), survivors);
        assert!(world.get::<ChildOf>(s).is_some() == with_sibling);
        world.check_invariants().unwrap();
    }
}
