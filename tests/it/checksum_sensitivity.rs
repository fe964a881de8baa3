//! `World::checksum` must see every piece of what it claims to cover.
//!
//! Every other checksum test compares two checksums for *equality* (1 thread vs N, history A vs
//! B), so a checksum that silently drops data passes them all. These tests make one edit and
//! demand that the checksum *changes*:
//!
//! * `first_value_of_each_store_is_covered`, `middle_value_of_each_store_is_covered`,
//!   `last_value_of_each_store_is_covered` — one value of one store, chosen explicitly.
//! * `adding_or_removing_a_tag_changes_the_checksum`, `moving_a_tag_changes_the_checksum` —
//!   zero-sized stores count (their slots are the data).
//! * `respawning_changes_the_generation_and_the_checksum`, `advancing_the_tick_changes_the_checksum`.
//! * `resources_are_outside_world_checksum_but_inside_the_recipe` — `World::checksum` documents
//!   that resources are excluded; the documented recipe (hash them yourself) must see them.
//! * `checksum_matches_an_independent_encoding` — pins the byte encoding, recomputed here from
//!   the documented layout with a bare `StableHasher`; `primitive_encodings_are_pinned` does the
//!   same for every `StableHash` impl (added for the survivors of the first mutation run).
//! * `hierarchy_values_are_covered` — `ChildOf`/`Children` in a checksum list hash the entities
//!   they name (added for the survivors of the second mutation run).
//! * `any_single_edit_changes_the_checksum` (proptest) — random worlds (holes, reused slots,
//!   unsettled stores, a tag, a string component) and a random single edit.
//! * `equal_contents_from_different_histories_hash_alike` (proptest) — the other direction:
//!   the same contents reached by different insert orders, store registration orders, bundles,
//!   commands, settling and tick timing give one checksum.
//!
//! Two checksum bugs injected by hand (skipping the last entity of every store; skipping
//! zero-sized stores) are each caught here; `docs/testing.md`, "What the tests are known to
//! catch", names the tests.

use proptest::collection::vec;
use proptest::prelude::*;
use rota::{ChildOf, Children, Component, Entity, Resource, StableHash, StableHasher, World};

// ---------------------------------------------------------------------------------------------
// Components and the checksum set

#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Pos(i32);

#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Mass(u64);

#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Label(String);

/// A zero-sized tag: its store holds slots and no values.
#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Frozen;

/// Never inserted: covers the "no store registered" branch of the encoding.
#[derive(Component, StableHash, Clone, Debug, PartialEq)]
struct Unused(u8);

#[derive(Resource, StableHash, Clone, Debug, PartialEq)]
struct Gravity(i64);

/// Every component type, in checksum order.
type Sum = (Pos, Mass, Label, Frozen, Unused);

fn checksum(world: &World) -> u64 {
    world.checksum::<Sum>()
}

/// The recipe `World::checksum`'s docs give for resources: hash them yourself alongside.
fn checksum_with_resources(world: &World) -> u64 {
    let mut h = StableHasher::new();
    checksum(world).stable_hash(&mut h);
    world.resource::<Gravity>().ok().stable_hash(&mut h);
    h.finish()
}

// ---------------------------------------------------------------------------------------------
// Entity contents and world building

/// One entity's components.
#[derive(Clone, Debug, Default, PartialEq)]
struct Row {
    pos: Option<i32>,
    mass: Option<u64>,
    label: Option<String>,
    frozen: bool,
}

impl Row {
    fn full(i: u32) -> Row {
        Row {
            pos: Some(i as i32 * 10),
            mass: Some(u64::from(i) + 100),
            label: Some(format!("e{i}")),
            frozen: true,
        }
    }

    fn of(world: &World, e: Entity) -> Row {
        Row {
            pos: world.get::<Pos>(e).map(|p| p.0),
            mass: world.get::<Mass>(e).map(|m| m.0),
            label: world.get::<Label>(e).map(|l| l.0.clone()),
            frozen: world.has::<Frozen>(e),
        }
    }

    /// Inserts this row's components one by one, `Frozen` first (the order must not matter).
    fn insert_into(&self, world: &mut World, e: Entity) {
        if self.frozen {
            world.insert(e, Frozen).unwrap();
        }
        if let Some(l) = &self.label {
            world.insert(e, Label(l.clone())).unwrap();
        }
        if let Some(m) = self.mass {
            world.insert(e, Mass(m)).unwrap();
        }
        if let Some(p) = self.pos {
            world.insert(e, Pos(p)).unwrap();
        }
    }
}

/// A world described as: spawn `first` in order, despawn the `doomed` ones (holes, bumped
/// generations), spawn `refill` (reusing the lowest holes), advance `ticks`, maybe settle.
#[derive(Clone, Debug)]
struct WorldSpec {
    first: Vec<Row>,
    doomed: Vec<bool>,
    refill: Vec<Row>,
    ticks: u8,
    gravity: i64,
    settle: bool,
}

impl WorldSpec {
    fn build(&self) -> World {
        let mut world = World::new();
        world.insert_resource(Gravity(self.gravity));
        let first: Vec<Entity> = self
            .first
            .iter()
            .map(|row| {
                let e = world.spawn();
                row.insert_into(&mut world, e);
                e
            })
            .collect();
        for (&e, &doomed) in first.iter().zip(&self.doomed) {
            if doomed {
                world.despawn(e).unwrap();
            }
        }
        for row in &self.refill {
            let e = world.spawn();
            row.insert_into(&mut world, e);
        }
        // Every store gets at least one value, so every edit below has a target.
        let anchor = world.spawn();
        Row::full(7).insert_into(&mut world, anchor);
        for _ in 0..self.ticks {
            world.advance_tick();
        }
        if self.settle {
            world.settle();
        }
        world.check_invariants().unwrap();
        world
    }
}

fn row() -> impl Strategy<Value = Row> {
    (
        proptest::option::of(any::<i32>()),
        proptest::option::of(any::<u64>()),
        proptest::option::of("[a-z]{0,4}"),
        any::<bool>(),
    )
        .prop_map(|(pos, mass, label, frozen)| Row {
            pos,
            mass,
            label,
            frozen,
        })
}

fn world_spec() -> impl Strategy<Value = WorldSpec> {
    (
        vec(row(), 0..24),
        vec(any::<bool>(), 24),
        vec(row(), 0..8),
        0u8..4,
        any::<i64>(),
        any::<bool>(),
    )
        .prop_map(
            |(first, doomed, refill, ticks, gravity, settle)| WorldSpec {
                first,
                doomed,
                refill,
                ticks,
                gravity,
                settle,
            },
        )
}

// ---------------------------------------------------------------------------------------------
// Edits

/// Which element of a store (in its ascending slot order) an edit targets.
#[derive(Clone, Copy, Debug)]
enum At {
    First,
    Middle,
    Last,
    Index(usize),
}

impl At {
    fn pick(self, len: usize) -> usize {
        assert!(len > 0, "edit target in an empty store");
        match self {
            At::First => 0,
            At::Middle => len / 2,
            At::Last => len - 1,
            At::Index(i) => i % len,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Valued {
    Pos,
    Mass,
    Label,
}

/// One change to a world that its checksum must notice.
#[derive(Clone, Debug)]
enum Edit {
    /// Change one value of one store (`delta` is never 0).
    Value(Valued, At, u32),
    /// Give `Frozen` to the `k`-th live entity lacking it.
    AddTag(usize),
    /// Take `Frozen` from one entity.
    RemoveTag(At),
    /// Move `Frozen` from one entity to the `k`-th live entity lacking it: same store length.
    MoveTag(At, usize),
    /// Remove one value of one store.
    Remove(Valued, At),
    /// Despawn one live entity and respawn it at the same slot with the same components: only
    /// its generation differs.
    Respawn(usize),
    /// Despawn one live entity.
    Despawn(usize),
    AdvanceTick,
    /// Change the `Gravity` resource (`delta` is never 0).
    Resource(i64),
}

fn at() -> impl Strategy<Value = At> {
    prop_oneof![
        Just(At::First),
        Just(At::Middle),
        Just(At::Last),
        any::<usize>().prop_map(At::Index),
    ]
}

fn valued() -> impl Strategy<Value = Valued> {
    prop_oneof![Just(Valued::Pos), Just(Valued::Mass), Just(Valued::Label)]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (valued(), at(), 1u32..).prop_map(|(v, a, d)| Edit::Value(v, a, d)),
        2 => any::<usize>().prop_map(Edit::AddTag),
        2 => at().prop_map(Edit::RemoveTag),
        2 => (at(), any::<usize>()).prop_map(|(a, k)| Edit::MoveTag(a, k)),
        1 => (valued(), at()).prop_map(|(v, a)| Edit::Remove(v, a)),
        2 => any::<usize>().prop_map(Edit::Respawn),
        1 => any::<usize>().prop_map(Edit::Despawn),
        1 => Just(Edit::AdvanceTick),
        1 => any::<i64>()
            .prop_filter("a change", |d| *d != 0)
            .prop_map(Edit::Resource),
    ]
}

/// The entity at position `at` of `T`'s store, in ascending slot order.
fn nth_in_store<T: Component>(world: &World, at: At) -> Entity {
    let store = world.store::<T>().expect("every store is registered");
    let i = at.pick(store.len());
    store.iter().nth(i).map(|(e, _)| e).unwrap()
}

fn nth_live(world: &World, k: usize) -> Entity {
    let n = world.len();
    world.entities().iter().nth(k % n).unwrap()
}

fn nth_untagged(world: &World, k: usize) -> Option<Entity> {
    let untagged: Vec<Entity> = world
        .entities()
        .iter()
        .filter(|&e| !world.has::<Frozen>(e))
        .collect();
    (!untagged.is_empty()).then(|| untagged[k % untagged.len()])
}

fn change_value(world: &mut World, which: Valued, at: At, delta: u32) {
    match which {
        Valued::Pos => {
            let e = nth_in_store::<Pos>(world, at);
            let p = world.get_mut::<Pos>(e).unwrap();
            p.0 = p.0.wrapping_add(delta as i32);
        }
        Valued::Mass => {
            let e = nth_in_store::<Mass>(world, at);
            world.get_mut::<Mass>(e).unwrap().0 ^= u64::from(delta);
        }
        Valued::Label => {
            let e = nth_in_store::<Label>(world, at);
            let l = world.get_mut::<Label>(e).unwrap();
            // Same length when possible, so only the bytes differ.
            match l.0.pop() {
                Some(c) if c != 'z' => l.0.push('z'),
                Some(_) => l.0.push('y'),
                None => l.0.push('a'),
            }
        }
    }
}

/// Makes every slot below the current end alive, then frees one fresh slot above them all, so a
/// despawned entity is the lowest free slot and the next spawn reuses it.
fn fill_holes(world: &mut World) {
    loop {
        let end = world.entities().slot_count();
        let e = world.spawn();
        if e.slot() as usize == end {
            world.despawn(e).unwrap();
            return;
        }
    }
}

/// Applies `edit`, or returns `None` when the world has no target for it.
fn apply(world: &mut World, edit: &Edit) -> Option<()> {
    match *edit {
        Edit::Value(which, at, delta) => change_value(world, which, at, delta),
        Edit::AddTag(k) => {
            let e = nth_untagged(world, k)?;
            world.insert(e, Frozen).unwrap();
        }
        Edit::RemoveTag(at) => {
            let e = nth_in_store::<Frozen>(world, at);
            world.remove::<Frozen>(e).unwrap().unwrap();
        }
        Edit::MoveTag(at, k) => {
            let to = nth_untagged(world, k)?;
            let from = nth_in_store::<Frozen>(world, at);
            world.remove::<Frozen>(from).unwrap().unwrap();
            world.insert(to, Frozen).unwrap();
        }
        Edit::Remove(which, at) => match which {
            Valued::Pos => drop(world.remove::<Pos>(nth_in_store::<Pos>(world, at))),
            Valued::Mass => drop(world.remove::<Mass>(nth_in_store::<Mass>(world, at))),
            Valued::Label => drop(world.remove::<Label>(nth_in_store::<Label>(world, at))),
        },
        Edit::Respawn(k) => {
            let e = nth_live(world, k);
            respawn_in_place(world, e);
        }
        Edit::Despawn(k) => {
            let e = nth_live(world, k);
            world.despawn(e).unwrap();
        }
        Edit::AdvanceTick => world.advance_tick(),
        Edit::Resource(delta) => {
            let g = world.resource_mut::<Gravity>().unwrap();
            g.0 = g.0.wrapping_add(delta);
        }
    }
    Some(())
}

/// Despawns `e` and spawns its components again at the same slot: same contents, next
/// generation. The caller must have run `fill_holes` first.
fn respawn_in_place(world: &mut World, e: Entity) -> Entity {
    let row = Row::of(world, e);
    world.despawn(e).unwrap();
    let again = world.spawn();
    row.insert_into(world, again);
    assert_eq!(again.slot(), e.slot(), "respawn must reuse the slot");
    assert_eq!(again.generation(), e.generation() + 1);
    assert_eq!(Row::of(world, again), row);
    again
}

/// Checks that `edit` changes the checksum of `world` (the resource-aware recipe for resource
/// edits, `World::checksum` itself for everything else). `None` if the edit had no target.
fn edit_changes_checksum(mut world: World, edit: &Edit) -> Option<Result<(), String>> {
    if matches!(edit, Edit::Respawn(_)) {
        fill_holes(&mut world);
    }
    let (before, before_full) = (checksum(&world), checksum_with_resources(&world));
    apply(&mut world, edit)?;
    world.check_invariants().unwrap();
    let (after, after_full) = (checksum(&world), checksum_with_resources(&world));
    Some(match edit {
        Edit::Resource(_) if before_full == after_full => Err(format!(
            "{edit:?} left the resource-aware checksum at {before_full:#x}"
        )),
        Edit::Resource(_) => Ok(()),
        _ if before == after => Err(format!(
            "{edit:?} left World::checksum at {before:#x} (world: {world:?})"
        )),
        _ => Ok(()),
    })
}

// ---------------------------------------------------------------------------------------------
// Explicit edits

/// Nine entities, every store populated, holes at slots 2 and 5 (refilled with generation 1),
/// an unsettled `Pos` store (inserted in descending slot order), tick 3.
fn fixed_world() -> World {
    let spec = WorldSpec {
        first: (0..9).map(Row::full).collect(),
        doomed: vec![false, false, true, false, false, true, false, false, false],
        refill: vec![Row::full(20), Row::full(21)],
        ticks: 3,
        gravity: -10,
        settle: false,
    };
    let mut world = spec.build();
    // Reinsert Pos in descending slot order so the store is unsettled (the `&self` sparse walk).
    let live: Vec<Entity> = world.entities().iter().collect();
    for &e in live.iter().rev() {
        let p = world.remove::<Pos>(e).unwrap().unwrap();
        world.insert(e, p).unwrap();
    }
    assert!(!world.store::<Pos>().unwrap().is_settled());
    world
}

fn assert_edit_changes(edit: Edit) {
    match edit_changes_checksum(fixed_world(), &edit) {
        Some(Ok(())) => {}
        Some(Err(msg)) => panic!("{msg}"),
        None => panic!("{edit:?} had no target in the fixed world"),
    }
}

#[test]
fn first_value_of_each_store_is_covered() {
    for which in [Valued::Pos, Valued::Mass, Valued::Label] {
        assert_edit_changes(Edit::Value(which, At::First, 1));
    }
}

#[test]
fn middle_value_of_each_store_is_covered() {
    for which in [Valued::Pos, Valued::Mass, Valued::Label] {
        assert_edit_changes(Edit::Value(which, At::Middle, 1));
    }
}

#[test]
fn last_value_of_each_store_is_covered() {
    for which in [Valued::Pos, Valued::Mass, Valued::Label] {
        assert_edit_changes(Edit::Value(which, At::Last, 1));
    }
    // Settled stores too (the slice walk rather than the sparse walk).
    let mut world = fixed_world();
    world.settle();
    let before = checksum(&world);
    let last = nth_in_store::<Pos>(&world, At::Last);
    world.get_mut::<Pos>(last).unwrap().0 += 1;
    assert_ne!(checksum(&world), before, "the last Pos of a settled store");
}

#[test]
fn adding_or_removing_a_tag_changes_the_checksum() {
    let mut world = fixed_world();
    let untagged = world.spawn();
    world.insert(untagged, Pos(1)).unwrap();
    let before = checksum(&world);
    world.insert(untagged, Frozen).unwrap();
    let tagged = checksum(&world);
    assert_ne!(before, tagged, "adding a tag");
    world.remove::<Frozen>(untagged).unwrap();
    assert_eq!(
        checksum(&world),
        before,
        "removing it again restores the checksum"
    );
    for at in [At::First, At::Middle, At::Last] {
        assert_edit_changes(Edit::RemoveTag(at));
    }
}

#[test]
fn moving_a_tag_changes_the_checksum() {
    for at in [At::First, At::Middle, At::Last] {
        let mut world = fixed_world();
        let spare = world.spawn();
        let before = checksum(&world);
        let from = nth_in_store::<Frozen>(&world, at);
        world.remove::<Frozen>(from).unwrap();
        world.insert(spare, Frozen).unwrap();
        assert_ne!(checksum(&world), before, "moving the {at:?} tag to {spare}");
    }
}

#[test]
fn respawning_changes_the_generation_and_the_checksum() {
    let mut world = fixed_world();
    fill_holes(&mut world);
    for k in [0, 4, world.len() - 1] {
        let e = nth_live(&world, k);
        let before = checksum(&world);
        respawn_in_place(&mut world, e);
        assert_ne!(checksum(&world), before, "respawning {e} in place");
    }
}

#[test]
fn advancing_the_tick_changes_the_checksum() {
    assert_edit_changes(Edit::AdvanceTick);
    // Even in an empty world.
    let mut world = World::new();
    let before = checksum(&world);
    world.advance_tick();
    assert_ne!(checksum(&world), before);
}

#[test]
fn resources_are_outside_world_checksum_but_inside_the_recipe() {
    let mut world = fixed_world();
    let (plain, full) = (checksum(&world), checksum_with_resources(&world));
    world.resource_mut::<Gravity>().unwrap().0 += 1;
    // Documented: `World::checksum` does not include resources.
    assert_eq!(checksum(&world), plain);
    assert_ne!(checksum_with_resources(&world), full);
    world.remove_resource::<Gravity>();
    assert_ne!(checksum_with_resources(&world), full);
}

/// The checksum's byte layout, recomputed from its documentation with a bare `StableHasher`:
/// the tick, the live count, every live `(slot, generation)` ascending, then per component type
/// in tuple order its name, its store length (0 if never registered) and its `(slot, value)`
/// pairs ascending. Changing the encoding breaks every recorded checksum; this test says so.
#[test]
fn checksum_matches_an_independent_encoding() {
    let world = fixed_world();
    let live: Vec<Entity> = world.entities().iter().collect();
    let mut h = StableHasher::new();
    world.tick().stable_hash(&mut h);
    (live.len() as u64).stable_hash(&mut h);
    for e in &live {
        e.slot().stable_hash(&mut h);
        e.generation().stable_hash(&mut h);
    }
    fn store<T: Component + StableHash>(world: &World, live: &[Entity], h: &mut StableHasher) {
        (T::NAME.len() as u64).stable_hash(h);
        h.write(T::NAME.as_bytes());
        let held: Vec<(Entity, &T)> = live
            .iter()
            .filter_map(|&e| Some((e, world.get::<T>(e)?)))
            .collect();
        if world.store::<T>().is_none() {
            assert!(held.is_empty());
        }
        (held.len() as u64).stable_hash(h);
        for (e, v) in held {
            e.slot().stable_hash(h);
            v.stable_hash(h);
        }
    }
    store::<Pos>(&world, &live, &mut h);
    store::<Mass>(&world, &live, &mut h);
    store::<Label>(&world, &live, &mut h);
    store::<Frozen>(&world, &live, &mut h);
    store::<Unused>(&world, &live, &mut h);
    assert_eq!(checksum(&world), h.finish());
    // And the value this world has had since the encoding was written (it must never change).
    assert_eq!(checksum(&world), PINNED_FIXED_WORLD_CHECKSUM);
}

/// `checksum::<Sum>()` of `fixed_world()`, recorded when this test was written.
const PINNED_FIXED_WORLD_CHECKSUM: u64 = 0xba64_c6ff_faf3_cfcd;

/// The encoding of every `StableHash` impl, pinned against explicit little-endian bytes (the
/// world checksum only exercises the types its components use; a user's `#[derive(StableHash)]`
/// may use any of these).
#[test]
fn primitive_encodings_are_pinned() {
    fn hash_of<T: StableHash + ?Sized>(v: &T) -> u64 {
        let mut h = StableHasher::new();
        v.stable_hash(&mut h);
        h.finish()
    }
    fn bytes(parts: &[&[u8]]) -> u64 {
        let mut h = StableHasher::new();
        for p in parts {
            h.write(p);
        }
        h.finish()
    }
    let len = |n: u64| n.to_le_bytes();
    assert_eq!(hash_of(&7u8), bytes(&[&[7]]));
    assert_eq!(hash_of(&-2i32), bytes(&[&(-2i32).to_le_bytes()]));
    assert_eq!(hash_of(&5usize), bytes(&[&5u64.to_le_bytes()]));
    assert_eq!(hash_of(&-2isize), bytes(&[&(-2i64).to_le_bytes()]));
    assert_eq!(hash_of(&1.5f32), bytes(&[&1.5f32.to_bits().to_le_bytes()]));
    assert_eq!(
        hash_of(&-0.25f64),
        bytes(&[&(-0.25f64).to_bits().to_le_bytes()])
    );
    assert_eq!(hash_of(&true), bytes(&[&[1]]));
    assert_eq!(hash_of(&false), bytes(&[&[0]]));
    assert_eq!(hash_of(&()), bytes(&[]));
    assert_eq!(hash_of("ab"), bytes(&[&len(2), b"ab"]));
    assert_eq!(hash_of(&String::from("ab")), hash_of("ab"));
    assert_eq!(hash_of(&&3u16), hash_of(&3u16));
    assert_eq!(hash_of(&None::<u8>), bytes(&[&[0]]));
    assert_eq!(hash_of(&Some(9u8)), bytes(&[&[1], &[9]]));
    // Arrays have a fixed length, so it is not hashed; slices and vectors hash theirs first.
    assert_eq!(
        hash_of(&[1u16, 2]),
        bytes(&[&1u16.to_le_bytes(), &2u16.to_le_bytes()])
    );
    assert_eq!(hash_of(&[1u8, 2][..]), bytes(&[&len(2), &[1], &[2]]));
    assert_eq!(hash_of(&vec![1u8, 2]), hash_of(&[1u8, 2][..]));
    let e = World::new().spawn();
    assert_eq!(
        hash_of(&e),
        bytes(&[&0u32.to_le_bytes(), &0u32.to_le_bytes()])
    );
    // FNV-1a itself: the published 64-bit test vector for "a".
    assert_eq!(bytes(&[b"a"]), 0xaf63_dc4c_8601_ec8c);
}

/// `ChildOf` and `Children` listed in a checksum are hashed by the entities they name, not only
/// by the slots holding them: in each pair of worlds below the listed store has one value at the
/// same slot, and only that value differs.
#[test]
fn hierarchy_values_are_covered() {
    // Three entities; the last one a child of `parent`.
    let third_under = |parent: usize| {
        let mut world = World::new();
        let e: Vec<Entity> = (0..3).map(|_| world.spawn()).collect();
        world.set_parent(e[2], e[parent]).unwrap();
        world
    };
    let (a, b) = (third_under(0), third_under(1));
    assert_eq!(a.checksum::<()>(), b.checksum::<()>());
    assert_ne!(a.checksum::<(ChildOf,)>(), b.checksum::<(ChildOf,)>());
    // Three entities; `child` the only child of the first.
    let only_child = |child: usize| {
        let mut world = World::new();
        let e: Vec<Entity> = (0..3).map(|_| world.spawn()).collect();
        world.set_parent(e[child], e[0]).unwrap();
        world
    };
    let (a, b) = (only_child(1), only_child(2));
    assert_eq!(a.checksum::<()>(), b.checksum::<()>());
    assert_ne!(a.checksum::<(Children,)>(), b.checksum::<(Children,)>());
}

#[test]
fn settling_does_not_change_the_checksum() {
    let mut world = fixed_world();
    let before = checksum(&world);
    world.settle();
    assert!(world.store::<Pos>().unwrap().is_settled());
    assert_eq!(checksum(&world), before);
}

// ---------------------------------------------------------------------------------------------
// Random worlds, random single edits

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 4096, ..ProptestConfig::default() })]

    #[test]
    fn any_single_edit_changes_the_checksum(spec in world_spec(), edit in edit()) {
        match edit_changes_checksum(spec.build(), &edit) {
            None => prop_assume!(false, "no target for {:?}", edit),
            Some(Err(msg)) => prop_assert!(false, "{}", msg),
            Some(Ok(())) => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Same contents, different histories

/// Final contents: per slot, how many times it was recycled before its last incarnation, and
/// its row if alive (`None`: the slot ends free).
#[derive(Clone, Debug)]
struct Contents {
    slots: Vec<(u8, Option<Row>)>,
    ticks: u8,
}

fn contents() -> impl Strategy<Value = Contents> {
    (
        vec((0u8..3, proptest::option::weighted(0.8, row())), 1..16),
        0u8..4,
    )
        .prop_map(|(slots, ticks)| Contents { slots, ticks })
}

/// History A: spawn every slot bare, recycle ascending, free the dead ones, insert the rows in
/// ascending slot order, tick first.
fn history_a(c: &Contents) -> World {
    let mut world = World::new();
    for _ in 0..c.ticks {
        world.advance_tick();
    }
    let mut handles: Vec<Entity> = c.slots.iter().map(|_| world.spawn()).collect();
    for (s, (recycles, _)) in c.slots.iter().enumerate() {
        for _ in 0..*recycles {
            world.despawn(handles[s]).unwrap();
            handles[s] = world.spawn();
        }
    }
    for (s, (_, row)) in c.slots.iter().enumerate() {
        match row {
            Some(row) => row.insert_into(&mut world, handles[s]),
            None => world.despawn(handles[s]).unwrap(),
        }
    }
    world
}

/// History B: spawn every slot with junk in a different store registration order, recycle
/// descending (respawning with junk), free the dead ones descending, then reach the rows in
/// descending slot order through overwrites, removals and a command buffer; settle; tick last.
fn history_b(c: &Contents) -> World {
    let mut world = World::new();
    let mut handles: Vec<Entity> = c
        .slots
        .iter()
        .map(|_| world.spawn_with((Frozen, Label("junk".into()), Mass(1), Pos(-1))))
        .collect();
    for s in (0..c.slots.len()).rev() {
        for _ in 0..c.slots[s].0 {
            world.despawn(handles[s]).unwrap();
            handles[s] = world.spawn_with((Pos(99),));
        }
    }
    for s in (0..c.slots.len()).rev() {
        if c.slots[s].1.is_none() {
            world.despawn(handles[s]).unwrap();
        }
    }
    // `Pos` goes through a command buffer (recorded first, applied after the direct edits).
    let mut commands = world.commands();
    for s in (0..c.slots.len()).rev() {
        let (e, Some(row)) = (handles[s], &c.slots[s].1) else {
            continue;
        };
        match row.pos {
            Some(p) => commands.insert(e, Pos(p)),
            None => commands.remove::<Pos>(e),
        }
    }
    let queue = commands.finish();
    for s in (0..c.slots.len()).rev() {
        let (e, Some(row)) = (handles[s], &c.slots[s].1) else {
            continue;
        };
        match row.mass {
            // Overwritten right below: the store sees a replace.
            Some(m) => drop(world.insert(e, Mass(m ^ 1)).unwrap()),
            None => drop(world.remove::<Mass>(e).unwrap()),
        }
        if let Some(m) = row.mass {
            world.insert(e, Mass(m)).unwrap();
        }
        match &row.label {
            Some(l) => drop(world.insert(e, Label(l.clone())).unwrap()),
            None => drop(world.remove::<Label>(e).unwrap()),
        }
        if !row.frozen {
            world.remove::<Frozen>(e).unwrap();
        } else if !world.has::<Frozen>(e) {
            world.insert(e, Frozen).unwrap();
        }
    }
    assert!(world.apply(queue).is_clean());
    for _ in 0..c.ticks {
        world.advance_tick();
    }
    world.settle();
    world
}

proptest! {
    #[test]
    fn equal_contents_from_different_histories_hash_alike(c in contents()) {
        let (a, b) = (history_a(&c), history_b(&c));
        a.check_invariants().unwrap();
        b.check_invariants().unwrap();
        // The histories really reached the same contents (else the comparison is meaningless).
        let live_a: Vec<Entity> = a.entities().iter().collect();
        let live_b: Vec<Entity> = b.entities().iter().collect();
        prop_assert_eq!(&live_a, &live_b);
        for &e in &live_a {
            prop_assert_eq!(Row::of(&a, e), Row::of(&b, e));
        }
        prop_assert_eq!(checksum(&a), checksum(&b));
    }
}

/// Tuples, ordered maps and sets and `VecDeque` hash by contents, so a resource holding them can
/// derive `StableHash`.
#[test]
fn tuples_and_ordered_collections_hash_by_contents() {
    use std::collections::{BTreeMap, BTreeSet, VecDeque};
    fn hash_of<T: StableHash + ?Sized>(v: &T) -> u64 {
        let mut h = StableHasher::new();
        v.stable_hash(&mut h);
        h.finish()
    }
    // A tuple is its elements in order, with nothing between them.
    let mut parts = StableHasher::new();
    1u32.stable_hash(&mut parts);
    (-2i32).stable_hash(&mut parts);
    assert_eq!(hash_of(&(1u32, -2i32)), parts.finish());
    assert_ne!(hash_of(&(1u32, -2i32)), hash_of(&(-2i32, 1u32)));
    // A map is its entries in key order, however it was filled.
    let a: BTreeMap<u32, i64> = [(3, 30), (1, 10), (2, 20)].into();
    let mut b: BTreeMap<u32, i64> = BTreeMap::new();
    for (k, v) in [(1, 10), (2, 20), (3, 30)] {
        b.insert(k, v);
    }
    assert_eq!(hash_of(&a), hash_of(&b));
    b.insert(2, 21);
    assert_ne!(hash_of(&a), hash_of(&b));
    let set: BTreeSet<u8> = [3, 1, 2].into();
    assert_eq!(hash_of(&set), hash_of(&vec![1u8, 2, 3]));
    let deque: VecDeque<u16> = [5, 6].into();
    assert_eq!(hash_of(&deque), hash_of(&vec![5u16, 6]));

    #[derive(Resource, StableHash, Clone)]
    struct Scores(Vec<(u32, i32)>, BTreeMap<u32, String>);
    let mut world = World::new();
    world.insert_resource(Scores(
        vec![(1, -1)],
        BTreeMap::from([(7, "x".to_string())]),
    ));
    let before = world.full_checksum().unwrap();
    world.resource_mut::<Scores>().unwrap().0[0].1 = -2;
    assert_ne!(world.full_checksum().unwrap(), before);
}
