//! Scenes through the facade: golden files pinning migration (a "version 1" file loaded by the
//! "version 2" components, and refused by a retyped one), entity remapping, the hierarchy, and
//! every refusal leaving the target world exactly as it was.
//!
//! The golden files live in `tests/scenes/`. Regenerate them with
//! `ROTA_BLESS=1 cargo test --test it scene::` and read the diff: a changed golden file means
//! old saves may no longer load.

use rota::scene::{LoadError, SaveError, load, save, value_checksum};
use rota::{ChildOf, Children, Component, Entity, Scene, World};

/// The game as it was when the golden file was written.
mod v1 {
    use rota::{Component, Entity, Scene, StableHash};

    #[derive(Component, Scene, StableHash, Debug, Clone, PartialEq)]
    #[scene(key = "golden.Creature")]
    pub struct Creature {
        #[scene(id = 1)]
        pub hp: u32,
        #[scene(id = 2)]
        pub mood: String,
        #[scene(id = 3)]
        pub speed: f32,
    }

    #[derive(Component, Scene, StableHash, Debug, Clone, PartialEq)]
    #[scene(key = "golden.Hunter")]
    pub struct Hunter {
        #[scene(id = 1)]
        pub target: Entity,
        /// Holds an entity's bits on purpose: a number, never remapped.
        #[scene(id = 2)]
        pub seed: u64,
        #[scene(id = 3)]
        pub last_seen: Option<Entity>,
    }
}

/// The game a year later: `mood` (2) removed and retired, `stamina` (4) added, fields
/// reordered and `hp` renamed — none of which the file sees.
mod v2 {
    use rota::{Component, Scene};

    #[derive(Component, Scene, Debug, Clone, PartialEq)]
    #[scene(key = "golden.Creature", retired(2))]
    pub struct Creature {
        #[scene(id = 4)]
        pub stamina: f32,
        #[scene(id = 3)]
        pub speed: f32,
        #[scene(id = 1)]
        pub health: u32,
    }

    pub use super::v1::Hunter;
}

/// A game that changed `hp` from `u32` to `f32` without a new id.
mod v2_retyped {
    use rota::{Component, Scene};

    #[derive(Component, Scene, Debug, Clone, PartialEq)]
    #[scene(key = "golden.Creature", retired(2))]
    pub struct Creature {
        #[scene(id = 1)]
        pub hp: f32,
        #[scene(id = 3)]
        pub speed: f32,
    }

    pub use super::v1::Hunter;
}

type V1 = (v1::Creature, v1::Hunter);
type V2 = (v2::Creature, v2::Hunter);
/// Everything a refused load must leave alone, hierarchy included.
type Everything = (v1::Creature, v1::Hunter, ChildOf, Children);

fn golden_path(name: &str) -> String {
    format!("{}/tests/scenes/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Compares `text` with the golden file `name`, or rewrites it under `ROTA_BLESS=1`.
fn assert_golden(name: &str, text: &str) {
    let path = golden_path(name);
    if std::env::var_os("ROTA_BLESS").is_some() {
        std::fs::write(&path, text).expect("write golden file");
        return;
    }
    let golden = std::fs::read_to_string(&path).expect("golden file (bless with ROTA_BLESS=1)");
    assert_eq!(text, golden, "{name} changed: old saves may no longer load");
}

fn read_golden(name: &str) -> String {
    if name == "v1.ron" && std::env::var_os("ROTA_BLESS").is_some() {
        // Blessing rewrites it concurrently: read what is being written.
        return save::<V1>(&v1_world()).unwrap();
    }
    std::fs::read_to_string(golden_path(name)).expect("golden file")
}

/// The version-1 world: a hole in the slots (so scene ids differ from slots), a hierarchy, a
/// reference, a cleared reference and a number holding an entity's bits.
fn v1_world() -> World {
    let mut world = World::new();
    let gone = world.spawn();
    let wolf = world.spawn_with((v1::Creature {
        hp: 30,
        mood: "hungry".into(),
        speed: 2.5,
    },));
    let sheep = world.spawn_with((v1::Creature {
        hp: 12,
        mood: "calm".into(),
        speed: 1.25,
    },));
    let pack = world.spawn();
    world.despawn(gone).unwrap();
    let dead = world.spawn();
    world.despawn(dead).unwrap();
    world
        .insert(
            wolf,
            v1::Hunter {
                target: sheep,
                seed: sheep.to_bits(),
                last_seen: Some(dead),
            },
        )
        .unwrap();
    world.set_parent(wolf, pack).unwrap();
    world
}

#[test]
fn a_version_1_save_matches_its_golden_file() {
    let text = save::<V1>(&v1_world()).unwrap();
    assert_golden("v1.ron", &text);
}

#[test]
fn a_version_1_file_loads_into_version_2_with_added_defaulted_and_removed_dropped() {
    let mut world = World::new();
    // The new entities do not get the file's numbering (nor the old slots).
    let before = [world.spawn(), world.spawn()];
    let report = load::<V2>(&mut world, &read_golden("v1.ron")).unwrap();
    assert_eq!(report.entities.len(), 3);
    // `stamina` was added: 2 creatures defaulted; `mood` was retired: 2 values dropped.
    assert_eq!((report.defaulted_fields, report.dropped_fields), (2, 2));
    let [wolf, sheep, pack] = report.entities[..] else {
        panic!("three entities")
    };
    assert!(before.iter().all(|e| !report.entities.contains(e)));
    assert_eq!(
        world.get::<v2::Creature>(wolf),
        Some(&v2::Creature {
            stamina: 0.0,
            speed: 2.5,
            health: 30
        })
    );
    assert_eq!(world.get::<v2::Creature>(sheep).unwrap().health, 12);
    let hunter = world.get::<v2::Hunter>(wolf).unwrap();
    assert_eq!(hunter.target, sheep, "an Entity field is remapped");
    assert_eq!(
        hunter.last_seen, None,
        "a reference to a dead entity was cleared on save"
    );
    // The seed held the old sheep's bits: it is a number, so it kept them (they now happen
    // to be the new wolf's bits).
    let saved_seed = v1_world().query::<&v1::Hunter>().next().unwrap().seed;
    assert_eq!(hunter.seed, saved_seed);
    assert_ne!(hunter.seed, sheep.to_bits());
    assert_eq!(world.parent(wolf), Some(pack));
    assert_eq!(world.children(pack), [wolf]);
    world.check_invariants().unwrap();
    assert_golden("v1-loaded-by-v2.ron", &save::<V2>(&world).unwrap());
}

#[test]
fn a_version_1_file_is_refused_by_a_retyped_field_naming_component_field_and_both_types() {
    let mut world = v1_world();
    let checksum = world.checksum::<Everything>();
    let error =
        load::<(v2_retyped::Creature, v2_retyped::Hunter)>(&mut world, &read_golden("v1.ron"))
            .unwrap_err();
    assert_eq!(
        error,
        LoadError::FieldTypeChanged {
            entity: 0,
            component: "golden.Creature",
            field: 1,
            saved: "u32",
            expected: "f32",
        }
    );
    assert_eq!(
        error.to_string(),
        "entity #0: component `golden.Creature` field 1 was saved as `u32` but is now `f32`"
    );
    assert_eq!(world.checksum::<Everything>(), checksum);
    assert_eq!(world.len(), 3);
}

#[test]
fn save_then_load_into_an_empty_world_keeps_the_value_checksum() {
    let world = v1_world();
    let mut fresh = World::new();
    load::<V1>(&mut fresh, &save::<V1>(&world).unwrap()).unwrap();
    assert_eq!(
        value_checksum::<V1>(&world).unwrap(),
        value_checksum::<V1>(&fresh).unwrap()
    );
    // A changed value changes it.
    let e = fresh.query::<(Entity, &v1::Creature)>().next().unwrap().0;
    fresh.get_mut::<v1::Creature>(e).unwrap().hp += 1;
    assert_ne!(
        value_checksum::<V1>(&world).unwrap(),
        value_checksum::<V1>(&fresh).unwrap()
    );
}

#[test]
fn saving_is_deterministic_and_independent_of_insertion_history() {
    let a = v1_world();
    // Same contents, built in another order.
    let mut b = World::new();
    let _hole = b.spawn();
    let wolf = b.spawn();
    let sheep = b.spawn();
    let pack = b.spawn();
    b.despawn(_hole).unwrap();
    b.set_parent(wolf, pack).unwrap();
    b.insert(
        sheep,
        v1::Creature {
            hp: 12,
            mood: "calm".into(),
            speed: 1.25,
        },
    )
    .unwrap();
    b.insert(
        wolf,
        v1::Hunter {
            target: sheep,
            seed: 0,
            last_seen: None,
        },
    )
    .unwrap();
    b.insert(
        wolf,
        v1::Creature {
            hp: 30,
            mood: "hungry".into(),
            speed: 2.5,
        },
    )
    .unwrap();
    b.get_mut::<v1::Hunter>(wolf).unwrap().seed = a.query::<&v1::Hunter>().next().unwrap().seed;
    assert_eq!(save::<V1>(&a).unwrap(), save::<V1>(&b).unwrap());
}

// ---------------------------------------------------------------------------------------------
// Refusals: each names the place, and the world is unchanged.
// ---------------------------------------------------------------------------------------------

/// Loads `text` into a populated world, asserts it is refused with `expected`, and that the
/// world is exactly as it was.
fn assert_refused(text: &str, expected: LoadError) {
    let mut world = v1_world();
    let checksum = world.checksum::<Everything>();
    let value = value_checksum::<V1>(&world).unwrap();
    let error = load::<V1>(&mut world, text).unwrap_err();
    assert_eq!(error, expected, "{error}");
    assert_eq!(
        world.checksum::<Everything>(),
        checksum,
        "the world changed"
    );
    assert_eq!(value_checksum::<V1>(&world).unwrap(), value);
    world.check_invariants().unwrap();
    // And the world still takes a good scene afterwards.
    load::<V1>(&mut world, &read_golden("v1.ron")).unwrap();
}

const CREATURE: &str = r#""golden.Creature": {1: U32(1), 2: Str("x"), 3: F32(1.0)}"#;

fn file(records: &[String]) -> String {
    format!("(format: 1, entities: [{}])", records.join(", "))
}

fn record(id: u64, components: &str) -> String {
    format!("(id: {id}, components: {{{components}}})")
}

#[test]
fn a_refusal_on_the_fifth_entity_leaves_the_world_exactly_as_it_was() {
    let mut records: Vec<String> = (0..4).map(|id| record(id, CREATURE)).collect();
    records.push(record(
        4,
        r#""golden.Creature": {1: U32(1), 2: Str("x"), 3: U8(7)}"#,
    ));
    assert_refused(
        &file(&records),
        LoadError::FieldTypeChanged {
            entity: 4,
            component: "golden.Creature",
            field: 3,
            saved: "u8",
            expected: "f32",
        },
    );
}

#[test]
fn an_unknown_component_is_refused_by_name() {
    let records = [
        record(0, CREATURE),
        record(1, r#""golden.Dragon": {1: U32(1)}"#),
    ];
    assert_refused(
        &file(&records),
        LoadError::UnknownComponent {
            entity: 1,
            component: "golden.Dragon".into(),
        },
    );
}

#[test]
fn an_unknown_field_id_that_was_not_retired_is_refused() {
    let records = [record(
        0,
        r#""golden.Creature": {1: U32(1), 2: Str("x"), 3: F32(1.0), 9: Bool(true)}"#,
    )];
    assert_refused(
        &file(&records),
        LoadError::UnknownField {
            entity: 0,
            component: "golden.Creature",
            field: 9,
        },
    );
}

#[test]
fn duplicate_entities_components_and_fields_are_refused() {
    assert_refused(
        &file(&[record(3, CREATURE), record(3, CREATURE)]),
        LoadError::DuplicateEntity { entity: 3 },
    );
    assert_refused(
        &file(&[record(0, &format!("{CREATURE}, {CREATURE}"))]),
        LoadError::DuplicateComponent {
            entity: 0,
            component: "golden.Creature",
        },
    );
    assert_refused(
        &file(&[record(
            0,
            r#""golden.Creature": {1: U32(1), 1: U32(2), 3: F32(1.0)}"#,
        )]),
        LoadError::DuplicateField {
            entity: 0,
            component: "golden.Creature",
            field: 1,
        },
    );
}

#[test]
fn references_to_entities_outside_the_scene_are_refused_on_load() {
    let hunter = r#""golden.Hunter": {1: Entity(7), 2: U64(0), 3: OptEntity(None)}"#;
    assert_refused(
        &file(&[record(0, hunter)]),
        LoadError::UnknownEntity {
            entity: 0,
            component: "golden.Hunter",
            field: 1,
            target: 7,
        },
    );
    assert_refused(
        "(format: 1, entities: [(id: 0, parent: Some(5), components: {})])",
        LoadError::UnknownParent {
            entity: 0,
            parent: 5,
        },
    );
    // Ids need not be dense: a missing id below the record count is absent too.
    assert_refused(
        "(format: 1, entities: [(id: 9, parent: Some(1), components: {}), \
         (id: 0, components: {\"golden.Hunter\": {1: Entity(1), 2: U64(0), 3: OptEntity(Some(9))}})])",
        LoadError::UnknownParent {
            entity: 9,
            parent: 1,
        },
    );
    assert_refused(
        "(format: 1, entities: [(id: 9, components: {}), \
         (id: 0, components: {\"golden.Hunter\": {1: Entity(1), 2: U64(0), 3: OptEntity(Some(9))}})])",
        LoadError::UnknownEntity {
            entity: 0,
            component: "golden.Hunter",
            field: 1,
            target: 1,
        },
    );
}

#[test]
fn a_missing_entity_field_has_no_default_and_is_refused() {
    let hunter = r#""golden.Hunter": {2: U64(0), 3: OptEntity(None)}"#;
    assert_refused(
        &file(&[record(0, hunter)]),
        LoadError::MissingField {
            entity: 0,
            component: "golden.Hunter",
            field: 1,
            ty: "Entity",
        },
    );
}

#[test]
fn a_parent_cycle_in_the_file_is_refused() {
    let text = "(format: 1, entities: [(id: 0, parent: Some(1), components: {}), \
                (id: 1, parent: Some(2), components: {}), (id: 2, parent: Some(0), components: {})])";
    assert_refused(text, LoadError::ParentCycle { entity: 0 });
}

#[test]
fn unknown_versions_are_refused_even_in_a_layout_this_build_cannot_parse() {
    assert_refused(
        "(format: 2, entities: [])",
        LoadError::UnsupportedVersion {
            found: 2,
            supported: 1,
        },
    );
    assert_refused(
        "(format: 7, chunks: {\"a\": [1, 2]})",
        LoadError::UnsupportedVersion {
            found: 7,
            supported: 1,
        },
    );
}

#[test]
fn an_unknown_key_outside_the_components_is_a_syntax_error_naming_it() {
    // A misspelt key must not load as an entity without its parent or its components.
    for (text, key, line) in [
        (
            "(format: 1, entities: [(id: 0, components: {}),\n (id: 1, parnet: Some(0), components: {})])",
            "parnet",
            2,
        ),
        (
            "(format: 1, entities: [\n(id: 0, Components: {\"golden.Creature\": {}}, components: {})])",
            "Components",
            2,
        ),
        (
            "(format: 1,\n entities: [(id: 0, components: {})],\n extra: 5)",
            "extra",
            3,
        ),
    ] {
        let mut world = v1_world();
        let checksum = world.checksum::<Everything>();
        match load::<V1>(&mut world, text) {
            Err(LoadError::Syntax {
                line: at, message, ..
            }) => {
                assert_eq!(at, line, "{message}");
                assert!(message.contains(key), "{message}");
            }
            other => panic!("`{key}`: expected a syntax error, got {other:?}"),
        }
        assert_eq!(
            world.checksum::<Everything>(),
            checksum,
            "the world changed"
        );
    }
}

#[test]
fn a_truncated_file_is_a_syntax_error_with_its_line() {
    let text = save::<V1>(&v1_world()).unwrap();
    let cut = &text[..text.len() * 2 / 3];
    let mut world = v1_world();
    let checksum = world.checksum::<Everything>();
    match load::<V1>(&mut world, cut) {
        Err(LoadError::Syntax { line, .. }) => assert!(line >= 1),
        other => panic!("expected a syntax error, got {other:?}"),
    }
    assert_eq!(world.checksum::<Everything>(), checksum);
    // A wrong type inside a value, with its line.
    let error = load::<V1>(
        &mut world,
        "(format: 1,\n entities: [\n (id: 0, components: {\"golden.Creature\": {1: U32(\"many\")}})])",
    )
    .unwrap_err();
    assert!(
        matches!(error, LoadError::Syntax { line: 3, .. }),
        "{error:?}"
    );
}

#[test]
fn saving_an_entity_field_that_names_a_dead_entity_is_refused() {
    let mut world = World::new();
    let dead = world.spawn();
    world.despawn(dead).unwrap();
    let wolf = world.spawn_with((v1::Hunter {
        target: dead,
        seed: 0,
        last_seen: None,
    },));
    match save::<V1>(&world) {
        Err(SaveError::ReferenceOutsideScene {
            entity,
            component,
            field,
            target,
        }) => {
            assert_eq!(
                (entity, component, field, target),
                (wolf, "golden.Hunter", 1, dead)
            );
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[derive(Component, Clone, Scene)]
#[scene(key = "golden.Creature")]
struct Impostor {
    #[scene(id = 1)]
    hp: u32,
}

#[test]
fn two_types_with_one_key_are_refused_naming_both() {
    let world = World::new();
    match save::<(v1::Creature, Impostor)>(&world) {
        Err(SaveError::DuplicateKey { key, first, second }) => assert_eq!(
            (key, first, second),
            ("golden.Creature", "Creature", "Impostor")
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let mut world = World::new();
    assert!(matches!(
        load::<(Impostor, v1::Creature)>(&mut world, "(format: 1, entities: [])"),
        Err(LoadError::DuplicateKey { .. })
    ));
    let _ = Impostor { hp: 0 }.hp;
}

#[test]
fn hand_written_files_with_sparse_ids_load_and_remap() {
    let text = r#"(format: 1, entities: [
        (id: 100, components: {}),
        (id: 7, parent: Some(100), components: {"golden.Hunter": {1: Entity(100), 2: U64(100), 3: OptEntity(Some(7))}}),
    ])"#;
    let mut world = World::new();
    let report = load::<V1>(&mut world, text).unwrap();
    let [a, b] = report.entities[..] else {
        panic!("two entities")
    };
    let hunter = world.get::<v1::Hunter>(b).unwrap();
    assert_eq!(
        (hunter.target, hunter.last_seen, hunter.seed),
        (a, Some(b), 100)
    );
    assert_eq!(world.parent(b), Some(a));
    world.check_invariants().unwrap();
}

/// A deep hierarchy, and a tree whose file lists parents before, after and between their
/// children, load with exactly the saved links (the loader attaches the deepest edges first;
/// the result cannot depend on that order) and pass the invariants.
#[test]
fn deep_and_mixed_order_hierarchies_load_with_every_link() {
    let mut world = World::new();
    let nodes: Vec<Entity> = (0..3_000).map(|_| world.spawn()).collect();
    // A chain listed top-down (each parent before its child)…
    for pair in nodes[..2_000].windows(2) {
        world.set_parent(pair[1], pair[0]).unwrap();
    }
    // …and a tree whose parents come after some children and before others.
    for (k, &child) in nodes[2_000..].iter().enumerate() {
        if k % 7 != 0 {
            let parent = nodes[2_000 + (k * 31 + 5) % 1_000];
            let _ = world.set_parent(child, parent); // cycles refused, as they would be anyway
        }
    }
    world.check_invariants().unwrap();
    let text = save::<()>(&world).unwrap();
    let mut fresh = World::new();
    let report = load::<()>(&mut fresh, &text).unwrap();
    fresh.check_invariants().unwrap();
    let position = |e: Entity| nodes.iter().position(|&n| n == e).unwrap();
    for (k, &old) in nodes.iter().enumerate() {
        let new = report.entities[k];
        assert_eq!(
            fresh
                .parent(new)
                .map(|p| report.entities.iter().position(|&n| n == p).unwrap()),
            world.parent(old).map(position),
            "node {k}"
        );
    }
}
