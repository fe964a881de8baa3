//! Run conditions through a `Schedule`: `run_if` in the attribute and the builder, `and`/`or`/
//! `not`, the point of evaluation (before the system's batch, after earlier batches' commands),
//! conditions' reads in the plan, skipped systems in the report and their change windows,
//! `describe`/`to_dot`, unknown systems and panicking conditions.

use std::panic::{AssertUnwindSafe, catch_unwind};

use rota::condition::{ConditionExt, not};
use rota::rota_schedule::SystemPanics;
use rota::{
    Changed, Commands, Component, Query, Res, ResMut, Resource, Schedule, ScheduleError, World,
    condition, system,
};

#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
struct Clock(u64);

#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Runs(u64);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Prey;

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Pos(i64);

#[condition(reads(Clock))]
fn even(clock: Res<Clock>) -> bool {
    clock.0.is_multiple_of(2)
}

#[condition(reads(Clock))]
fn first_three(clock: Res<Clock>) -> bool {
    clock.0 < 3
}

#[condition(reads(Prey))]
fn has_prey(prey: Query<&Prey>) -> bool {
    prey.iter().next().is_some()
}

#[system(writes(Clock))]
fn advance(mut clock: ResMut<Clock>) {
    clock.0 += 1;
}

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Clock(0));
    world.insert_resource(Runs::default());
    world
}

fn configs() -> [(usize, usize); 2] {
    [(1, rota::rota_schedule::DEFAULT_INLINE_BELOW), (4, 0)]
}

#[test]
fn attribute_condition_skips_and_the_report_names_it() {
    #[system(writes(Runs), run_if(even), after(advance))]
    fn count(mut runs: ResMut<Runs>) {
        runs.0 += 1;
    }
    for (threads, inline) in configs() {
        let mut schedule = Schedule::builder()
            .add(advance)
            .add(count)
            .threads(threads)
            .inline_below(inline)
            .build()
            .unwrap();
        let mut world = world();
        let mut history = Vec::new();
        for _ in 0..4 {
            let report = schedule.run(&mut world);
            history.push((report.ran, report.skipped));
        }
        // The clock is 1, 2, 3, 4 when `even` is evaluated: after `advance`'s batch.
        let ran = vec!["advance"];
        let both = vec!["advance", "count"];
        let skip = vec!["count"];
        assert_eq!(
            history,
            [
                (ran.clone(), skip.clone()),
                (both.clone(), vec![]),
                (ran, skip),
                (both, vec![]),
            ]
        );
        assert_eq!(world.resource::<Runs>().copied().unwrap(), Runs(2));
    }
}

#[test]
fn builder_conditions_combine_with_the_attributes() {
    #[system(writes(Runs), run_if(first_three))]
    fn count(mut runs: ResMut<Runs>) {
        runs.0 += 1;
    }
    #[system(reads(Clock))]
    fn never() {}
    #[system(reads(Clock))]
    fn odd_or_late() {}
    // `count` (before `advance`) runs while the clock is < 3 and even: 0 and 2.
    // `odd_or_late` (after `advance`: it reads `Clock`) sees 1, 2, 3, 4, 5.
    let mut schedule = Schedule::builder()
        .add(count)
        .add(advance)
        .add(never)
        .add(odd_or_late)
        .after(advance, count)
        .run_if(count, even)
        .run_if(never, even.and(not(even)))
        .run_if(odd_or_late, not(even).or(not(first_three)))
        .build()
        .unwrap();
    let mut world = world();
    let mut ran = Vec::new();
    for _ in 0..5 {
        ran.push(schedule.run(&mut world).ran);
    }
    assert_eq!(
        ran,
        [
            vec!["count", "advance", "odd_or_late"],
            vec!["advance"],
            vec!["count", "advance", "odd_or_late"],
            vec!["advance", "odd_or_late"],
            vec!["advance", "odd_or_late"],
        ]
    );
    assert_eq!(world.resource::<Runs>().copied().unwrap(), Runs(2));
    let conditions = schedule.conditions();
    assert_eq!(conditions[0].as_deref(), Some("first_three and even"));
    assert_eq!(conditions[1], None);
    assert_eq!(conditions[2].as_deref(), Some("even and not(even)"));
    assert_eq!(
        conditions[3].as_deref(),
        Some("not(even) or not(first_three)")
    );
}

#[test]
fn a_condition_reading_a_type_is_ordered_after_its_writer() {
    #[system()]
    fn gated() {}
    let schedule = Schedule::builder()
        .add(advance)
        .add(gated)
        .run_if(gated, even)
        .build()
        .unwrap();
    assert_eq!(schedule.batches(), [vec!["advance"], vec!["gated"]]);
    let text = schedule.describe();
    assert!(
        text.contains("advance -> gated (conflict on Clock)"),
        "{text}"
    );
    assert!(
        text.contains("gated (every tick; if even) reads: Clock"),
        "{text}"
    );
    assert!(schedule.to_dot().contains("gated\\nif even"));
}

#[test]
fn a_condition_sees_the_commands_of_earlier_batches() {
    #[system(defers(Prey))]
    fn spawn_prey(mut commands: Commands) {
        commands.spawn((Prey,));
    }
    #[system(writes(Runs), run_if(has_prey), after(spawn_prey))]
    fn hunt(mut runs: ResMut<Runs>) {
        runs.0 += 1;
    }
    let mut schedule = Schedule::builder()
        .add(spawn_prey)
        .add(hunt)
        .build()
        .unwrap();
    let mut world = world();
    let report = schedule.run(&mut world);
    assert_eq!(report.ran, ["spawn_prey", "hunt"]);
    assert!(report.skipped.is_empty());
}

#[test]
fn a_skipped_system_keeps_its_change_window() {
    #[system(writes(Pos))]
    fn nudge(mut q: Query<&mut Pos>) {
        for p in &mut q {
            p.0 += 1;
        }
    }
    #[system(reads(Pos), writes(Runs), run_if(even), after(nudge))]
    fn watch(q: Query<&Pos, Changed<Pos>>, mut runs: ResMut<Runs>) {
        runs.0 += q.iter().count() as u64;
    }
    #[system(writes(Clock), after(watch))]
    fn tick_clock(mut clock: ResMut<Clock>) {
        clock.0 += 1;
    }
    let mut schedule = Schedule::builder()
        .add(nudge)
        .add(watch)
        .add(tick_clock)
        .build()
        .unwrap();
    let mut world = world();
    world.spawn_with((Pos(0),));
    // Tick 0: `watch` runs and sees the change. Tick 1: skipped. Tick 2: it sees the changes
    // since its last run, tick 0's window end: one entity, changed.
    let skipped: Vec<_> = (0..3).map(|_| schedule.run(&mut world).skipped).collect();
    assert_eq!(skipped, [vec![], vec!["watch"], vec![]]);
    assert_eq!(world.resource::<Runs>().copied().unwrap(), Runs(2));
}

#[test]
fn run_if_on_a_system_not_in_the_schedule_is_refused() {
    #[system()]
    fn missing() {}
    let err = Schedule::builder()
        .add(advance)
        .run_if(missing, even)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        ScheduleError::UnknownSystem {
            system: "missing",
            call: "run_if"
        }
    );
}

#[test]
fn a_panicking_condition_is_reported_under_its_system() {
    #[condition(reads(Clock))]
    fn broken(_clock: Res<Clock>) -> bool {
        panic!("broken condition")
    }
    #[system(run_if(broken))]
    fn gated() {}
    let mut schedule = Schedule::builder().add(gated).build().unwrap();
    let mut world = world();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let payload = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
    std::panic::set_hook(hook);
    let panics = payload
        .expect_err("the condition panics")
        .downcast::<SystemPanics>()
        .expect("the payload is SystemPanics");
    assert_eq!(panics.systems(), ["gated"]);
    assert_eq!(world.tick(), 0);
}

#[test]
fn a_run_if_evaluates_on_its_own_and_reads_what_its_conditions_read() {
    let mut run_if = even.or(not(has_prey));
    assert_eq!(run_if.to_string(), "even or not(has_prey)");
    let reads: Vec<&str> = run_if.reads().iter().map(|a| a.name).collect();
    assert_eq!(reads.len(), 2);
    let mut world = world();
    world.insert_resource(Clock(1));
    assert!(run_if.evaluate(&mut world), "no prey");
    world.spawn_with((Prey,));
    assert!(!run_if.evaluate(&mut world), "odd clock, prey");
}

#[test]
#[should_panic(expected = "reads resource `Clock`, which is not in the world")]
fn evaluating_a_condition_without_its_resource_panics() {
    let mut run_if = rota::condition::RunIf::from_condition(even);
    run_if.evaluate(&mut World::new());
}
