//! Systems whose seal was implemented by hand, naming rota's hidden paths. The compiler cannot
//! tell such code from what `#[system]` generates; what it could reach beyond its descriptor is
//! what no borrow covers — `Commands` and `EventWriter`, whose effects are deferred — and those
//! parameters check the descriptor the schedule ordered the system by, at run time: no
//! `Commands` the descriptor does not record, no component its `Commands` did not declare, no
//! event type it did not declare sending. Each refusal names the system and the type. The
//! compile-time half (no parameter fetched for `Unrestricted`) is in `tests/ui/seal/`.

use std::any::TypeId;
use std::panic::{AssertUnwindSafe, catch_unwind};

use rota::rota_core::query::{Access, ConstAccess};
use rota::rota_core::system::sealed::SystemSeal;
use rota::rota_core::system::{Defers, Marker, ParamSeal, Sends, SystemContext, SystemMarker};
use rota::{
    ChildOf, Children, Commands, Component, Entity, Event, EventWriter, Query, System,
    SystemDescriptor, SystemParam, World, system,
};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Hp(u64);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos(u64);
#[derive(Event, Clone, Debug)]
struct Ping;

/// The panic message of `f`, which must panic.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("the call must panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// A parameter written by hand around a `Commands`, leaving `COMMANDS` at 0: the descriptor
/// `#[system]` builds then records no `Commands`, and the system could share a batch with
/// another that records some.
struct HiddenCommands<'w, S = ()>(Commands<'w, S>);
impl<M> ParamSeal for HiddenCommands<'_, M> {}
impl<M> SystemParam for HiddenCommands<'_, M> {
    type State = ();
    type Item<'w, S> = HiddenCommands<'w, S>;
    type Access = ();
    const ACCESS: ConstAccess = ConstAccess::List(&[]);
    fn access(_: &mut Vec<Access>) {}
    fn init_state() {}
    fn fetch<'w, S: SystemMarker>(
        context: &mut SystemContext<'w>,
        state: &'w mut (),
    ) -> HiddenCommands<'w, S> {
        HiddenCommands(<Commands<'w> as SystemParam>::fetch::<S>(context, state))
    }
}

#[system(writes(Hp))]
fn hides_its_commands(q: Query<Entity>, mut hidden: HiddenCommands) {
    for e in q.iter() {
        hidden.0.insert(e, Hp(9));
    }
}

#[test]
fn a_commands_the_descriptor_does_not_record_is_refused() {
    let mut world = World::new();
    let e = world.spawn_with((Hp(1),));
    let message = panic_message(|| {
        let _ = world.run(hides_its_commands);
    });
    assert!(
        message.contains(
            "system `hides_its_commands` fetched a `Commands` that its descriptor does not record"
        ),
        "{message}"
    );
    assert_eq!(world.get::<Hp>(e), Some(&Hp(1)));
}

/// A system and its marker written by hand: the marker says it may spawn `Hp` (`Defers<Hp>`),
/// the descriptor says it may change nothing, or (`declare_hp`) `Hp`.
struct Ghost {
    declare_hp: bool,
}
impl SystemSeal for Ghost {}
impl Marker for Ghost {}
impl SystemMarker for Ghost {}
impl Defers<Hp> for Ghost {}
impl Sends<Ping> for Ghost {}
impl System for Ghost {
    const NAME: &'static str = "ghost";
    type State = ();
    fn descriptor(&self) -> SystemDescriptor {
        let d = SystemDescriptor::new("ghost", TypeId::of::<Ghost>()).uses_commands();
        if self.declare_hp { d.defer::<Hp>() } else { d }
    }
    fn init_state(&self) {}
    fn run(&self, state: &mut (), context: SystemContext<'_>) {
        let mut context: SystemContext<'_> = context;
        let mut commands = <Commands<'_> as SystemParam>::fetch::<Ghost>(&mut context, state);
        commands.spawn((Hp(7),));
    }
}

#[test]
fn a_component_the_descriptor_does_not_declare_is_refused_by_commands() {
    let mut world = World::new();
    let message = panic_message(|| {
        let _ = world.run(|| Ghost { declare_hp: false });
    });
    assert!(
        message.contains("system `ghost` inserts, removes or spawns `Hp` through `Commands` but its descriptor does not declare it"),
        "{message}"
    );
    assert_eq!(world.len(), 0, "nothing was spawned");

    // The same system with `Hp` in its descriptor spawns it: the check is the declaration.
    let report = world.run(|| Ghost { declare_hp: true });
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(world.query::<&Hp>().copied().collect::<Vec<_>>(), [Hp(7)]);
}

/// A hand-written system that sends `Ping` (its marker says `Sends<Ping>`) without declaring it.
struct Sender;
impl SystemSeal for Sender {}
impl System for Sender {
    const NAME: &'static str = "sender";
    type State = ();
    fn descriptor(&self) -> SystemDescriptor {
        SystemDescriptor::new("sender", TypeId::of::<Sender>())
    }
    fn init_state(&self) {}
    fn run(&self, state: &mut (), context: SystemContext<'_>) {
        let mut context: SystemContext<'_> = context;
        let mut writer =
            <EventWriter<'_, Ping> as SystemParam>::fetch::<Ghost>(&mut context, state);
        writer.send(Ping);
    }
}

#[test]
fn an_event_the_descriptor_does_not_declare_is_refused() {
    let mut world = World::new();
    world.init_events::<Ping>(16);
    let message = panic_message(|| {
        let _ = world.run(|| Sender);
    });
    assert!(
        message.contains("system `sender` sends event `Ping` but its descriptor does not declare it in `sends(..)`"),
        "{message}"
    );
}

// The hierarchy can be declared like any component: `defers(ChildOf)` for `set_parent`,
// `reads(ChildOf, Children)` to query it.

#[system(reads(Pos), defers(ChildOf))]
fn adopt(q: Query<Entity, rota::With<Pos>>, mut commands: Commands) {
    let all: Vec<Entity> = q.iter().collect();
    for &child in &all[1..] {
        commands.set_parent(child, all[0]);
    }
}

#[system(reads(ChildOf, Children))]
fn family(q: Query<(Entity, &ChildOf)>, parents: Query<(Entity, &Children)>) {
    assert_eq!(q.iter().count(), 2);
    assert_eq!(parents.iter().count(), 1);
}

#[test]
fn systems_can_declare_and_change_the_hierarchy() {
    let mut world = World::new();
    let ids = world.spawn_batch((0..3).map(|i| (Pos(i),)));
    let report = world.run(adopt);
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(world.parent(ids[1]), Some(ids[0]));
    assert_eq!(world.parent(ids[2]), Some(ids[0]));
    assert!(world.run(family).is_clean());
}

#[system(reads(Pos), defers(ChildOf))]
fn orphan_all(q: Query<Entity, rota::With<Pos>>, mut commands: Commands) {
    for e in q.iter() {
        commands.remove::<ChildOf>(e);
    }
}

/// What `defers(ChildOf)` allows keeps the hierarchy whole: removing `ChildOf` through
/// `Commands` is `remove_parent` (the parent's `Children` forgets the child too).
#[test]
fn removing_child_of_through_commands_keeps_the_hierarchy_whole() {
    let mut world = World::new();
    let ids = world.spawn_batch((0..3).map(|i| (Pos(i),)));
    world.set_parent(ids[1], ids[0]).unwrap();
    world.set_parent(ids[2], ids[0]).unwrap();
    let report = world.run(orphan_all);
    assert!(report.is_clean(), "{report:?}");
    world.check_invariants().unwrap();
    assert!(ids.iter().all(|&e| world.parent(e).is_none()));
    assert!(world.children(ids[0]).is_empty());
}
