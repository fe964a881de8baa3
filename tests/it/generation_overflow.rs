//! A slot whose generation would pass `u32::MAX` is retired, never wrapped.
//!
//! A wrapped slot would hand out generation 0 again, so a handle kept from the slot's first
//! incarnation would come back to life and read a stranger's components. These tests reach the
//! limit cheaply through `Entities::with_first_generation` (directly, and inside a `World`), and
//! check it from every side that can hand out a slot: `Entities::spawn`, `World::spawn_with`,
//! `World::spawn_batch` and command-buffer reservations.
//!
//! * `entities_retire_each_slot_after_its_last_generation`
//! * `despawning_a_handle_to_a_retired_slot_is_an_error`
//! * `world_spawn_despawn_cycles_retire_slots_and_move_on`
//! * `forged_wrapped_handles_are_dead_in_the_world`
//! * `command_reservations_skip_retired_slots`
//! * `spawn_batch_skips_retired_slots`
//! * `world_near_generation_overflow_matches_oracle` (proptest: spawns, despawns of live and
//!   stale handles, command-buffer spawns and despawns, compared with a slot-table oracle
//!   after every step).

use proptest::collection::vec;
use proptest::prelude::*;
use rota::{Component, Entities, Entity, EntityNotAlive, World};

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
struct Pos(u32);

const MAX: u32 = u32::MAX;

fn handle(slot: u32, generation: u32) -> Entity {
    Entity::from_bits((u64::from(generation) << 32) | u64::from(slot))
}

fn parts(e: Entity) -> (u32, u32) {
    (e.slot(), e.generation())
}

#[test]
fn entities_retire_each_slot_after_its_last_generation() {
    let mut es = Entities::with_first_generation(MAX - 1);
    let first: Vec<Entity> = (0..3).map(|_| es.spawn().unwrap()).collect();
    for &e in &first {
        es.despawn(e).unwrap();
    }
    let second: Vec<Entity> = (0..3).map(|_| es.spawn().unwrap()).collect();
    assert_eq!(
        second.iter().map(|&e| parts(e)).collect::<Vec<_>>(),
        [(0, MAX), (1, MAX), (2, MAX)]
    );
    for &e in &second {
        es.despawn(e).unwrap();
    }
    assert_eq!(es.retired_count(), 3);
    assert!(es.is_empty());
    // Every slot is retired: the next spawn takes a fresh slot, at the first generation.
    let fresh = es.spawn().unwrap();
    assert_eq!(parts(fresh), (3, MAX - 1));
    assert_eq!(es.slot_count(), 4);
    for slot in 0..3 {
        assert_eq!(es.alive_at(slot), None, "retired slot {slot} is alive");
        for generation in [0, 1, MAX - 1, MAX] {
            assert!(
                !es.is_alive(handle(slot, generation)),
                "{slot}v{generation} alive on a retired slot"
            );
        }
    }
    es.check_invariants().unwrap();
}

#[test]
fn despawning_a_handle_to_a_retired_slot_is_an_error() {
    let mut es = Entities::with_first_generation(MAX);
    let e = es.spawn().unwrap();
    es.despawn(e).unwrap();
    assert_eq!(es.retired_count(), 1);
    for h in [e, handle(0, 0)] {
        assert_eq!(es.despawn(h), Err(EntityNotAlive(h)));
    }
    assert_eq!(es.retired_count(), 1);
    assert_eq!(es.len(), 0);
    es.check_invariants().unwrap();
}

#[test]
fn world_spawn_despawn_cycles_retire_slots_and_move_on() {
    let mut world = World::with_entities(Entities::with_first_generation(MAX - 2));
    let mut seen = Vec::new();
    for i in 0..12 {
        let e = world.spawn_with((Pos(i),));
        assert_eq!(world.get::<Pos>(e), Some(&Pos(i)));
        seen.push(parts(e));
        world.despawn(e).unwrap();
        world.check_invariants().unwrap();
    }
    // Each slot lives three generations (MAX-2, MAX-1, MAX), then retires.
    let expected: Vec<(u32, u32)> = (0..12).map(|i| (i / 3, MAX - 2 + i % 3)).collect();
    assert_eq!(seen, expected);
    assert_eq!(world.entities().retired_count(), 4);
    assert_eq!(world.entities().slot_count(), 4);
    assert!(world.is_empty());
    assert_eq!(world.store::<Pos>().map(|s| s.len()), Some(0));
}

#[test]
fn forged_wrapped_handles_are_dead_in_the_world() {
    let mut world = World::with_entities(Entities::with_first_generation(MAX));
    let old = world.spawn_with((Pos(1),));
    world.despawn(old).unwrap();
    let other = world.spawn_with((Pos(2),));
    assert_eq!(other.slot(), 1, "the retired slot 0 was handed out again");
    for h in [old, handle(0, 0), handle(0, 1)] {
        assert!(!world.is_alive(h), "{h} is alive");
        assert_eq!(world.get::<Pos>(h), None);
        assert_eq!(world.insert(h, Pos(3)), Err(EntityNotAlive(h)));
        assert_eq!(world.despawn(h), Err(EntityNotAlive(h)));
    }
    assert_eq!(
        world
            .query::<(Entity, &Pos)>()
            .map(|(e, p)| (e, *p))
            .collect::<Vec<_>>(),
        [(other, Pos(2))]
    );
    world.check_invariants().unwrap();
}

#[test]
fn command_reservations_skip_retired_slots() {
    let mut world = World::with_entities(Entities::with_first_generation(MAX));
    let [a, b, c] = [0, 1, 2].map(|i| world.spawn_with((Pos(i),)));
    world.despawn(b).unwrap();
    world.despawn(a).unwrap();
    let mut commands = world.commands();
    let reserved: Vec<Entity> = (10..13).map(|i| commands.spawn((Pos(i),))).collect();
    commands.despawn(c);
    let queue = commands.finish();
    assert_eq!(
        reserved.iter().map(|&e| parts(e)).collect::<Vec<_>>(),
        [(3, MAX), (4, MAX), (5, MAX)],
        "reservations must pass over retired slots 0 and 1"
    );
    let report = world.apply(queue);
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(world.entities().retired_count(), 3);
    assert_eq!(
        world
            .query::<(Entity, &Pos)>()
            .map(|(e, p)| (e, p.0))
            .collect::<Vec<_>>(),
        [(reserved[0], 10), (reserved[1], 11), (reserved[2], 12)]
    );
    world.check_invariants().unwrap();
}

#[test]
fn spawn_batch_skips_retired_slots() {
    let mut world = World::with_entities(Entities::with_first_generation(MAX));
    let first = world.spawn_batch((0..4).map(|i| (Pos(i),)));
    for &e in &first[..3] {
        world.despawn(e).unwrap();
    }
    let second = world.spawn_batch((0..2).map(|i| (Pos(i + 10),)));
    assert_eq!(
        second.iter().map(|&e| parts(e)).collect::<Vec<_>>(),
        [(4, MAX), (5, MAX)]
    );
    assert_eq!(world.len(), 3);
    assert_eq!(world.entities().retired_count(), 3);
    world.check_invariants().unwrap();
}

// ---------------------------------------------------------------------------------------------
// Model: a world whose fresh slots start a few generations below the limit

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    Alive,
    Free,
    Retired,
}

/// Slot table oracle: per slot its generation and state; free slots reused lowest first.
#[derive(Debug)]
struct Oracle {
    first_generation: u32,
    slots: Vec<(u32, SlotState)>,
}

impl Oracle {
    fn lowest_free(&self) -> Option<u32> {
        self.slots
            .iter()
            .position(|s| s.1 == SlotState::Free)
            .map(|s| s as u32)
    }

    /// The `k`-th reservation of a buffer recorded now: free slots ascending, then fresh ones.
    fn reservation(&self, k: usize) -> Entity {
        let free: Vec<u32> = (0..self.slots.len() as u32)
            .filter(|&s| self.slots[s as usize].1 == SlotState::Free)
            .collect();
        match free.get(k) {
            Some(&s) => handle(s, self.slots[s as usize].0),
            None => handle(
                (self.slots.len() + k - free.len()) as u32,
                self.first_generation,
            ),
        }
    }

    fn spawn(&mut self) -> Entity {
        match self.lowest_free() {
            Some(s) => {
                self.slots[s as usize].1 = SlotState::Alive;
                handle(s, self.slots[s as usize].0)
            }
            None => {
                self.slots.push((self.first_generation, SlotState::Alive));
                handle(self.slots.len() as u32 - 1, self.first_generation)
            }
        }
    }

    /// Makes a reservation alive (reservations here are applied before anything else spawns).
    fn spawn_reserved(&mut self, e: Entity) {
        let s = e.slot() as usize;
        if s == self.slots.len() {
            self.slots.push((e.generation(), SlotState::Alive));
        } else {
            assert_eq!(self.slots[s], (e.generation(), SlotState::Free));
            self.slots[s].1 = SlotState::Alive;
        }
    }

    fn is_alive(&self, e: Entity) -> bool {
        self.slots.get(e.slot() as usize) == Some(&(e.generation(), SlotState::Alive))
    }

    fn despawn(&mut self, e: Entity) -> bool {
        if !self.is_alive(e) {
            return false;
        }
        let s = &mut self.slots[e.slot() as usize];
        match s.0.checked_add(1) {
            Some(next) => *s = (next, SlotState::Free),
            None => s.1 = SlotState::Retired,
        }
        true
    }

    fn live(&self) -> Vec<Entity> {
        (0..self.slots.len() as u32)
            .filter(|&s| self.slots[s as usize].1 == SlotState::Alive)
            .map(|s| handle(s, self.slots[s as usize].0))
            .collect()
    }

    fn retired(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.1 == SlotState::Retired)
            .count()
    }
}

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    /// Despawn the `k`-th handle ever issued (live or stale).
    Despawn(usize),
    /// One buffer: `spawns` command spawns, then despawns of issued handles `k`.
    Commands {
        spawns: usize,
        despawns: Vec<usize>,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Spawn),
        3 => any::<usize>().prop_map(Op::Despawn),
        2 => (0usize..3, vec(any::<usize>(), 0..3))
            .prop_map(|(spawns, despawns)| Op::Commands { spawns, despawns }),
    ]
}

fn compare(world: &World, oracle: &Oracle, issued: &[Entity], step: usize) -> Result<(), String> {
    world
        .check_invariants()
        .map_err(|e| format!("step {step}: {e}"))?;
    let live: Vec<Entity> = world.entities().iter().collect();
    if live != oracle.live() {
        return Err(format!(
            "step {step}: live {live:?}, oracle {:?}",
            oracle.live()
        ));
    }
    if world.entities().retired_count() != oracle.retired() {
        return Err(format!(
            "step {step}: retired {} vs oracle {}",
            world.entities().retired_count(),
            oracle.retired()
        ));
    }
    for &e in issued {
        if world.is_alive(e) != oracle.is_alive(e) {
            return Err(format!("step {step}: liveness of {e} differs"));
        }
        // Live entities keep the component their slot number was spawned with.
        if world.is_alive(e) && world.get::<Pos>(e) != Some(&Pos(e.slot())) {
            return Err(format!("step {step}: {e} lost its Pos"));
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn world_near_generation_overflow_matches_oracle(
        headroom in 0u32..3,
        ops in vec(op(), 1..60),
    ) {
        let first_generation = MAX - headroom;
        let mut world = World::with_entities(Entities::with_first_generation(first_generation));
        let mut oracle = Oracle { first_generation, slots: Vec::new() };
        let mut issued: Vec<Entity> = Vec::new();
        for (step, op) in ops.iter().enumerate() {
            match op {
                Op::Spawn => {
                    let expected = oracle.spawn();
                    let e = world.spawn();
                    world.insert(e, Pos(e.slot())).unwrap();
                    prop_assert_eq!(e, expected, "step {}: spawn", step);
                    issued.push(e);
                }
                Op::Despawn(k) if !issued.is_empty() => {
                    let e = issued[k % issued.len()];
                    let expected = oracle.despawn(e);
                    prop_assert_eq!(world.despawn(e).is_ok(), expected, "step {}: despawn {}", step, e);
                }
                Op::Despawn(_) => {}
                Op::Commands { spawns, despawns } => {
                    let mut commands = world.commands();
                    let reserved: Vec<Entity> = (0..*spawns)
                        .map(|_| commands.spawn(()))
                        .collect();
                    let targets: Vec<Entity> = if issued.is_empty() {
                        Vec::new()
                    } else {
                        despawns.iter().map(|k| issued[k % issued.len()]).collect()
                    };
                    for &t in &targets {
                        commands.despawn(t);
                    }
                    let queue = commands.finish();
                    for (k, &r) in reserved.iter().enumerate() {
                        prop_assert_eq!(r, oracle.reservation(k), "step {}: reservation {}", step, k);
                    }
                    let report = world.apply(queue);
                    for &r in &reserved {
                        oracle.spawn_reserved(r);
                        world.insert(r, Pos(r.slot())).unwrap();
                    }
                    let applied_despawns = targets.iter().filter(|&&t| oracle.despawn(t)).count();
                    prop_assert_eq!(report.applied, reserved.len() + applied_despawns, "step {}", step);
                    issued.extend(reserved);
                }
            }
            if let Err(msg) = compare(&world, &oracle, &issued, step) {
                prop_assert!(false, "{}\nops: {:?}", msg, ops);
            }
        }
    }
}
