//! The ordering audit: does the result depend on an order that only declaration order fixed?
//!
//! Conflicting systems with no `after` path between them run in declaration order. That is
//! deterministic, but fragile: reordering two `add` calls changes the result. The audit runs the
//! schedule once as planned and once with a seeded shuffle of every order that `after` does not
//! fix, and compares checksums; then it flips each conflicting pair that only declaration order
//! decides, on its own, and reports the pairs whose flip changes the result — add an `after`
//! between them. Cost: 2 + (number of such pairs) runs of `ticks` ticks.

use rota_core::World;

use crate::plan::EdgeReason;
use crate::{ScheduleBuilder, ScheduleError};

/// A pair of conflicting systems whose relative order is fixed only by declaration order, and
/// changes the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnderConstrained {
    /// The system declared first.
    pub first: &'static str,
    /// The system declared second.
    pub second: &'static str,
    /// The type they conflict on.
    pub conflict: &'static str,
}

/// The outcome of [`ScheduleBuilder::audit_order`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditReport {
    /// Checksum after the ticks with the planned order.
    pub planned: u64,
    /// Checksum after the ticks with the shuffled order.
    pub shuffled: u64,
    /// The shuffled plan order.
    pub shuffled_order: Vec<&'static str>,
    /// Pairs whose order changes the result (empty when the checksums agree).
    pub under_constrained: Vec<UnderConstrained>,
}

impl AuditReport {
    /// Whether the shuffled order gave the same result.
    pub fn is_clean(&self) -> bool {
        self.planned == self.shuffled && self.under_constrained.is_empty()
    }
}

/// SplitMix64, for a seeded shuffle that is the same on every platform.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn run_with(
    build: &dyn Fn() -> ScheduleBuilder,
    make_world: &dyn Fn() -> World,
    ticks: u64,
    checksum: &dyn Fn(&World) -> u64,
    priority: Option<Vec<usize>>,
) -> Result<(u64, Vec<&'static str>), ScheduleError> {
    let mut schedule = build().build_with(priority)?;
    let mut world = make_world();
    for _ in 0..ticks {
        let _ = schedule.run(&mut world);
    }
    Ok((checksum(&world), schedule.order()))
}

impl ScheduleBuilder {
    /// Audits the ordering: see the module docs. `build` must make the same builder each call,
    /// `make_world` the same world; `checksum` is usually `|w| w.checksum::<(A, B, ..)>()`.
    ///
    /// # Errors
    ///
    /// Whatever [`ScheduleBuilder::build`] refuses.
    pub fn audit_order(
        build: impl Fn() -> ScheduleBuilder,
        make_world: impl Fn() -> World,
        ticks: u64,
        seed: u64,
        checksum: impl Fn(&World) -> u64,
    ) -> Result<AuditReport, ScheduleError> {
        let planned_schedule = build().build()?;
        let n = planned_schedule.descriptors.len();
        let ambiguous: Vec<(usize, usize, &'static str)> = planned_schedule
            .plan
            .edges
            .iter()
            .filter_map(|(a, b, why)| match why {
                EdgeReason::Conflict(t) => Some((*a, *b, *t)),
                EdgeReason::After => None,
            })
            .collect();
        let names: Vec<&'static str> = planned_schedule
            .descriptors
            .iter()
            .map(|d| d.name)
            .collect();
        drop(planned_schedule);

        let (planned, _) = run_with(&build, &make_world, ticks, &checksum, None)?;
        let mut rank: Vec<usize> = (0..n).collect();
        let mut state = seed;
        for i in (1..n).rev() {
            let j = (splitmix(&mut state) % (i as u64 + 1)) as usize;
            rank.swap(i, j);
        }
        let (shuffled, shuffled_order) =
            run_with(&build, &make_world, ticks, &checksum, Some(rank))?;
        // Flip every pair that only declaration order decides, whatever the shuffle showed: a
        // single shuffle can leave a guilty pair in its planned order.
        let mut under_constrained = Vec::new();
        for &(a, b, conflict) in &ambiguous {
            let mut flipped: Vec<usize> = (0..n).collect();
            flipped.swap(a, b);
            let (c, _) = run_with(&build, &make_world, ticks, &checksum, Some(flipped))?;
            if c != planned {
                let (first, second) = if a < b { (a, b) } else { (b, a) };
                under_constrained.push(UnderConstrained {
                    first: names[first],
                    second: names[second],
                    conflict,
                });
            }
        }
        Ok(AuditReport {
            planned,
            shuffled,
            shuffled_order,
            under_constrained,
        })
    }
}
