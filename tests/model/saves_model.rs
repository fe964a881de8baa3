//! World saves under random worlds and damaged bytes: a random world saves and loads to the
//! same `full_checksum` and the same next handles; a save with one byte flipped anywhere loads
//! as a typed error or as a world that passes every invariant check (a flipped value is a
//! different, valid world) — never a panic. `load_world` builds a fresh world, so a refused
//! load has nothing to leave half-done.

use proptest::prelude::*;
use rota::scene::{load_world, save_world};
use rota::{Component, Entity, Event, Resource, Scene, StableHash, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Scene, StableHash, Clone, Debug, PartialEq)]
#[scene(key = "model.A")]
struct A {
    #[scene(id = 1)]
    v: i32,
    #[scene(id = 2)]
    name: String,
}

#[derive(Component, Scene, StableHash, Clone, Debug, PartialEq)]
#[scene(key = "model.B")]
struct B {
    #[scene(id = 1)]
    to: Option<Entity>,
}

#[derive(Resource, StableHash, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Counter(u64);

#[derive(Event, StableHash, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Ping(u16);

type C = (A, B);
type R = (Counter,);
type E = (Ping,);

#[derive(Clone, Debug)]
enum Op {
    Spawn(i32),
    SpawnB(usize),
    Despawn(usize),
    Parent(usize, usize),
    Ping(u16),
    Tick,
    Write(usize, i32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => any::<i32>().prop_map(Op::Spawn),
        1 => any::<usize>().prop_map(Op::SpawnB),
        2 => any::<usize>().prop_map(Op::Despawn),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::Parent(a, b)),
        1 => any::<u16>().prop_map(Op::Ping),
        1 => Just(Op::Tick),
        1 => (any::<usize>(), any::<i32>()).prop_map(|(a, v)| Op::Write(a, v)),
    ]
}

fn build(ops: &[Op], log: bool) -> World {
    let mut world = World::new();
    if log {
        world.enable_structural_log(16);
    }
    world.insert_resource(Counter(ops.len() as u64));
    let mut all: Vec<Entity> = Vec::new();
    let pick = |all: &[Entity], i: usize| (!all.is_empty()).then(|| all[i % all.len()]);
    for op in ops {
        match *op {
            Op::Spawn(v) => all.push(world.spawn_with((A {
                v,
                name: format!("{v}"),
            },))),
            Op::SpawnB(i) => {
                let to = pick(&all, i);
                all.push(world.spawn_with((B { to },)));
            }
            Op::Despawn(i) => {
                if let Some(e) = pick(&all, i) {
                    let _ = world.despawn(e);
                }
            }
            Op::Parent(a, b) => {
                if let (Some(a), Some(b)) = (pick(&all, a), pick(&all, b)) {
                    let _ = world.set_parent(a, b);
                }
            }
            Op::Ping(p) => world.send_event(Ping(p)),
            Op::Tick => world.advance_tick(),
            Op::Write(i, v) => {
                if let Some(a) = pick(&all, i).and_then(|e| world.get_mut::<A>(e)) {
                    a.v = v;
                }
            }
        }
    }
    world
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases(64)))]

    #[test]
    fn a_random_world_round_trips(ops in proptest::collection::vec(op(), 0..40), log: bool) {
        let mut world = build(&ops, log);
        let bytes = save_world::<C, R, E>(&world).unwrap();
        let mut loaded = load_world::<C, R, E>(&bytes).unwrap();
        prop_assert_eq!(loaded.full_checksum().unwrap(), world.full_checksum().unwrap());
        prop_assert_eq!(save_world::<C, R, E>(&loaded).unwrap(), bytes);
        prop_assert_eq!(loaded.spawn(), world.spawn());
    }

    #[test]
    fn a_flipped_byte_is_an_error_or_a_valid_world(
        ops in proptest::collection::vec(op(), 1..30),
        log: bool,
        at in any::<prop::sample::Index>(),
        mask in 1u8..=255,
    ) {
        let world = build(&ops, log);
        let mut bytes = save_world::<C, R, E>(&world).unwrap();
        let i = at.index(bytes.len());
        bytes[i] ^= mask;
        if let Ok(mut loaded) = load_world::<C, R, E>(&bytes) {
            prop_assert!(loaded.check_invariants().is_ok());
            prop_assert!(loaded.full_checksum().is_ok());
            // A world that loaded is a world: it saves, loads and spawns.
            let again = save_world::<C, R, E>(&loaded).unwrap();
            prop_assert!(load_world::<C, R, E>(&again).is_ok());
            loaded.spawn();
        }
    }

    #[test]
    fn every_prefix_is_an_error(ops in proptest::collection::vec(op(), 0..12)) {
        let bytes = save_world::<C, R, E>(&build(&ops, true)).unwrap();
        for n in 0..bytes.len() {
            prop_assert!(load_world::<C, R, E>(&bytes[..n]).is_err());
        }
    }
}
