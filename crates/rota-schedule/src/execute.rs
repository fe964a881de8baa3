//! Running a plan: batch by batch, each batch's systems on split borrows of the world (in
//! parallel when there is enough work), then the batch's commands in plan order.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, PoisonError};

use rota_core::system::{SystemBorrows, SystemContext, SystemDescriptor};
use rota_core::{ApplyReport, CommandQueue, World};

use crate::Schedule;
use crate::system_box::BoxedSystem;

/// What one [`Schedule::run`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// The tick that ran (the world's tick before `run` advanced it).
    pub tick: u64,
    /// Systems that ran, in plan order ([`Schedule::order`]; strided systems skip some ticks).
    pub ran: Vec<&'static str>,
    /// What applying the systems' commands did.
    pub commands: ApplyReport,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

struct Job<'a, 'w> {
    system: &'a mut Box<dyn BoxedSystem>,
    borrows: SystemBorrows<'w>,
    sink: &'a Mutex<CommandQueue>,
    name: &'static str,
}

fn run_job(job: Job<'_, '_>) -> Result<(), String> {
    let Job {
        system,
        borrows,
        sink,
        name,
    } = job;
    catch_unwind(AssertUnwindSafe(|| {
        system.run(SystemContext::new(borrows, sink, name))
    }))
    .map_err(|payload| panic_message(&*payload))
}

/// Entity-components a batch touches: the summed lengths of every declared component store.
fn estimated_work(world: &World, descriptors: &[&SystemDescriptor]) -> usize {
    descriptors
        .iter()
        .flat_map(|d| d.reads.iter().chain(&d.writes))
        .filter_map(|a| world.component_len(a.type_id))
        .sum()
}

impl Schedule {
    /// Runs one tick: every system due on `world.tick()`, batch by batch, applying each batch's
    /// commands in plan order at its end; then advances the world's tick.
    ///
    /// # Panics
    ///
    /// If a system panics: the panic is re-raised naming the system, after the batch's other
    /// systems finished. That batch's commands are discarded and the tick does not advance; the
    /// world is consistent, and the next `run` works.
    pub fn run(&mut self, world: &mut World) -> RunReport {
        let tick = world.tick();
        world.settle();
        let mut report = RunReport {
            tick,
            ..RunReport::default()
        };
        let mut ran: Vec<usize> = Vec::new();
        for b in 0..self.plan.batches.len() {
            let due: Vec<usize> = self.plan.batches[b]
                .iter()
                .copied()
                .filter(|&i| tick.is_multiple_of(self.descriptors[i].every_ticks))
                .collect();
            if due.is_empty() {
                continue;
            }
            for queue in self.run_batch(world, &due) {
                report.commands.merge(world.apply(queue));
            }
            ran.extend(due);
        }
        ran.sort_by_key(|&i| self.plan.position[i]);
        report.ran = ran.iter().map(|&i| self.descriptors[i].name).collect();
        world.advance_tick();
        report
    }

    /// Runs the systems `due` (declaration indices, in plan order) on split borrows and returns
    /// their command queues in the same order.
    fn run_batch(&mut self, world: &mut World, due: &[usize]) -> Vec<CommandQueue> {
        let descriptors: Vec<&SystemDescriptor> =
            due.iter().map(|&i| &self.descriptors[i]).collect();
        let parallel = self.pool.is_some()
            && due.len() > 1
            && estimated_work(world, &descriptors) >= self.inline_below;
        let sinks: Vec<Mutex<CommandQueue>> = due
            .iter()
            .map(|_| Mutex::new(CommandQueue::default()))
            .collect();
        let failures: Vec<(usize, String)> = {
            let borrows = match world.split_for_systems(&descriptors) {
                Ok(b) => b,
                Err(e) => panic!("rota-schedule internal error: a batch conflicts: {e}"),
            };
            let mut slots: Vec<Option<&mut Box<dyn BoxedSystem>>> =
                self.systems.iter_mut().map(Some).collect();
            let jobs: Vec<Job<'_, '_>> = due
                .iter()
                .zip(borrows)
                .zip(&sinks)
                .map(|((&i, borrows), sink)| Job {
                    system: slots[i].take().expect("a system appears once per batch"),
                    borrows,
                    sink,
                    name: self.descriptors[i].name,
                })
                .collect();
            let results: Vec<Mutex<Option<String>>> =
                due.iter().map(|_| Mutex::new(None)).collect();
            match (&self.pool, parallel) {
                (Some(pool), true) => pool.in_place_scope(|scope| {
                    let mut jobs = jobs.into_iter().zip(&results);
                    let first = jobs.next();
                    for (job, slot) in jobs {
                        scope.spawn(move |_| {
                            if let Err(msg) = run_job(job) {
                                *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(msg);
                            }
                        });
                    }
                    // The calling thread takes work too.
                    if let Some((job, slot)) = first
                        && let Err(msg) = run_job(job)
                    {
                        *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(msg);
                    }
                }),
                _ => {
                    for (job, slot) in jobs.into_iter().zip(&results) {
                        if let Err(msg) = run_job(job) {
                            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(msg);
                        }
                    }
                }
            }
            results
                .into_iter()
                .enumerate()
                .filter_map(|(k, m)| {
                    m.into_inner()
                        .unwrap_or_else(PoisonError::into_inner)
                        .map(|msg| (k, msg))
                })
                .collect()
        };
        if let Some((k, msg)) = failures.into_iter().next() {
            panic!("system `{}` panicked: {msg}", self.descriptors[due[k]].name);
        }
        sinks
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(PoisonError::into_inner))
            .collect()
    }
}
