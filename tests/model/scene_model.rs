//! Property tests for scenes:
//!
//! * `save_then_load_keeps_the_value_checksum` — a random world (holes in the slots, random
//!   values, entity references, a random hierarchy) saved and loaded into an empty world has
//!   the same value checksum (`rota::scene::value_checksum`, which ignores entity bits), the
//!   same per-component counts, and re-saves to the same text.
//! * `corrupted_files_never_panic_and_never_change_the_world` — the saved text with random byte
//!   flips and a random truncation is loaded into a populated world: loading never panics, and
//!   a refused file leaves the world's checksum (values, entity bits, hierarchy) unchanged.

use std::panic::{AssertUnwindSafe, catch_unwind};

use proptest::prelude::*;
use rota::scene::{load, save, value_checksum};
use rota::{ChildOf, Children, Component, Entity, Scene, StableHash, World};

#[derive(Component, Scene, StableHash, Debug, Clone, PartialEq)]
#[scene(key = "model.Body")]
struct Body {
    #[scene(id = 1)]
    x: f32,
    #[scene(id = 2)]
    y: f64,
    #[scene(id = 3)]
    alive: bool,
}

#[derive(Component, Scene, StableHash, Debug, Clone, PartialEq)]
#[scene(key = "model.Link")]
struct Link {
    #[scene(id = 1)]
    to: Entity,
    #[scene(id = 2)]
    maybe: Option<Entity>,
    #[scene(id = 3)]
    bits: u64,
}

#[derive(Component, Scene, StableHash, Debug, Clone, PartialEq)]
#[scene(key = "model.Name")]
struct Name(#[scene(id = 1)] String, #[scene(id = 2)] i8);

type Set = (Body, Link, Name);
type Everything = (Body, Link, Name, ChildOf, Children);

#[derive(Clone, Debug)]
struct Spec {
    spawns: usize,
    despawn: Vec<usize>,
    bodies: Vec<(usize, f32, f64, bool)>,
    links: Vec<(usize, usize, Option<usize>, u64)>,
    names: Vec<(usize, String, i8)>,
    parents: Vec<(usize, usize)>,
}

fn finite_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<f32>().prop_filter("NaN loads as the canonical NaN", |v| !v.is_nan()),
        Just(-0.0f32),
        Just(f32::INFINITY),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    let i = 0usize..1000;
    (
        1usize..40,
        proptest::collection::vec(i.clone(), 0..10),
        proptest::collection::vec(
            (
                i.clone(),
                finite_f32(),
                any::<f64>().prop_filter("not NaN", |v| !v.is_nan()),
                any::<bool>(),
            ),
            0..30,
        ),
        proptest::collection::vec(
            (
                i.clone(),
                i.clone(),
                proptest::option::of(i.clone()),
                any::<u64>(),
            ),
            0..20,
        ),
        proptest::collection::vec((i.clone(), "[ -~é\"\\\\]{0,8}", any::<i8>()), 0..20),
        proptest::collection::vec((i.clone(), i), 0..30),
    )
        .prop_map(|(spawns, despawn, bodies, links, names, parents)| Spec {
            spawns,
            despawn,
            bodies,
            links,
            names,
            parents,
        })
}

fn build(spec: &Spec) -> World {
    let mut world = World::new();
    let all: Vec<Entity> = (0..spec.spawns).map(|_| world.spawn()).collect();
    for &d in &spec.despawn {
        let _ = world.despawn(all[d % all.len()]);
    }
    let live: Vec<Entity> = world.entities().iter().collect();
    if live.is_empty() {
        return world;
    }
    let at = |i: usize| live[i % live.len()];
    for &(e, x, y, alive) in &spec.bodies {
        world.insert(at(e), Body { x, y, alive }).unwrap();
    }
    for &(e, to, maybe, bits) in &spec.links {
        // `maybe` may name a dead entity: the save clears it.
        let maybe = maybe.map(|m| all[m % all.len()]);
        let link = Link {
            to: at(to),
            maybe,
            bits,
        };
        world.insert(at(e), link).unwrap();
    }
    for (e, s, n) in &spec.names {
        world.insert(at(*e), Name(s.clone(), *n)).unwrap();
    }
    for &(c, p) in &spec.parents {
        let _ = world.set_parent(at(c), at(p)); // cycles refused, fine
    }
    world
}

fn counts(world: &World) -> [usize; 4] {
    [
        world.query::<&Body>().count(),
        world.query::<&Link>().count(),
        world.query::<&Name>().count(),
        world.query::<&ChildOf>().count(),
    ]
}

proptest! {
    #[test]
    fn save_then_load_keeps_the_value_checksum(spec in spec()) {
        let world = build(&spec);
        let text = save::<Set>(&world).unwrap();
        let mut fresh = World::new();
        let report = load::<Set>(&mut fresh, &text).unwrap();
        prop_assert_eq!(report.entities.len(), world.len());
        prop_assert_eq!(report.defaulted_fields + report.dropped_fields, 0);
        prop_assert_eq!(value_checksum::<Set>(&fresh).unwrap(), value_checksum::<Set>(&world).unwrap());
        prop_assert_eq!(counts(&fresh), counts(&world));
        prop_assert_eq!(save::<Set>(&fresh).unwrap(), text);
        fresh.check_invariants().map_err(TestCaseError::fail)?;
    }

    #[test]
    fn corrupted_files_never_panic_and_never_change_the_world(
        spec in spec(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let source = build(&spec);
        let mut bytes = save::<Set>(&source).unwrap().into_bytes();
        for (at, byte) in &flips {
            let i = at.index(bytes.len());
            bytes[i] = *byte;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let mut target = build(&spec);
        let before = target.checksum::<Everything>();
        let len = target.len();
        let outcome = catch_unwind(AssertUnwindSafe(|| load::<Set>(&mut target, &text)));
        let Ok(result) = outcome else {
            return Err(TestCaseError::fail(format!("load panicked on {text:?}")));
        };
        match result {
            Err(_) => {
                prop_assert_eq!(target.checksum::<Everything>(), before, "a refused load changed the world");
                prop_assert_eq!(target.len(), len);
            }
            // A flip can leave a valid file (a digit changed): then it loads whole.
            Ok(report) => prop_assert_eq!(target.len(), len + report.entities.len()),
        }
        target.check_invariants().map_err(TestCaseError::fail)?;
    }
}
