//! The orchestrator's decision table: what to do next, from the statuses
//! alone.
//!
//! | Statuses                                   | Decision                     |
//! |--------------------------------------------|------------------------------|
//! | run `delivered`                            | archive: nothing left to do  |
//! | run `failed`                               | report the failure           |
//! | run `delivering`                           | deliver `final.md`           |
//! | a phase `failed`                           | fail the run, notify         |
//! | final phase `completed`                    | start delivering             |
//! | a phase `paused`                           | wait for the user / resume   |
//! | next phase `pending`                       | spawn it                     |
//! | phase `running` with a `failed` worker     | mark it failed at once       |
//! | phase `running` past its timeout + grace   | mark it failed               |
//! | phase `running` with workers to start      | start them                   |
//! | phase `running`, within its limit          | wait                         |
//!
//! It reads only stored statuses (and whether a phase is overdue), never
//! what the orchestrator did before: after a crash, the next trigger reaches
//! the same decision, so an action cut short is simply taken again.
//!
//! A failed worker (its process gone without an output, or killed) fails its
//! phase at the next trigger, not at the phase's timeout: a pipeline that
//! waits for the timeout stalls, silent, for ten more minutes, which is the
//! failure this row prevents.
//! Failures are reported, never retried.

use crate::machines::{phase, run, worker};
use crate::workflow::Mode;

/// One phase, as the table sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseView {
    /// The phase's status.
    pub state: phase::State,
    /// Its workers' statuses, in definition order.
    pub workers: Vec<worker::State>,
    /// How the phase runs its workers.
    pub mode: Mode,
    /// Whether it has been running longer than its timeout plus the grace.
    pub overdue: bool,
}

/// What the orchestrator does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The result was delivered: archive, stop.
    Archive,
    /// The run failed: report it, stop.
    ReportFailure,
    /// Write `final.md` to the outbox and record the delivery.
    Deliver,
    /// Phase `phase` failed: fail the run.
    FailRun {
        /// Its index.
        phase: usize,
    },
    /// The final phase completed: start delivering.
    StartDelivery,
    /// Phase `phase` waits for the user: stop until resumed.
    Pause {
        /// Its index.
        phase: usize,
    },
    /// The user resumed after phase `phase`.
    Resume {
        /// Its index.
        phase: usize,
    },
    /// Every earlier phase completed: spawn phase `phase`.
    SpawnPhase {
        /// Its index.
        phase: usize,
    },
    /// Phase `phase` failed: kill and fail its running workers, then mark
    /// it failed.
    FailPhase {
        /// Its index.
        phase: usize,
        /// Why.
        cause: FailureCause,
    },
    /// Start workers `workers` of running phase `phase`.
    StartWorkers {
        /// The phase's index.
        phase: usize,
        /// The workers' indexes in the phase.
        workers: Vec<usize>,
    },
    /// Nothing to do until a worker finishes or time passes.
    Wait,
}

/// Why a running phase fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureCause {
    /// It ran longer than its timeout plus the grace.
    Overdue,
    /// One of its workers failed.
    WorkerFailed {
        /// The first failed worker's index in the phase.
        worker: usize,
    },
}

/// The row of the decision table that applies. `resume` is the user's
/// request to go on after a paused phase.
pub fn decide(run: run::State, phases: &[PhaseView], resume: bool) -> Decision {
    match run {
        run::State::Delivered => return Decision::Archive,
        run::State::Failed => return Decision::ReportFailure,
        run::State::Delivering => return Decision::Deliver,
        run::State::Running => {}
    }
    if let Some(phase) = phases.iter().position(|view| view.state == phase::State::Failed) {
        return Decision::FailRun { phase };
    }
    if phases
        .last()
        .is_some_and(|view| view.state == phase::State::Completed)
    {
        return Decision::StartDelivery;
    }
    let Some(current) = phases
        .iter()
        .position(|view| view.state != phase::State::Completed)
    else {
        return Decision::Wait;
    };
    let view = &phases[current];
    match view.state {
        phase::State::Paused if resume => Decision::Resume { phase: current },
        phase::State::Paused => Decision::Pause { phase: current },
        phase::State::Pending => Decision::SpawnPhase { phase: current },
        phase::State::Running => {
            if let Some(worker) = view
                .workers
                .iter()
                .position(|state| *state == worker::State::Failed)
            {
                return Decision::FailPhase {
                    phase: current,
                    cause: FailureCause::WorkerFailed { worker },
                };
            }
            if view.overdue {
                return Decision::FailPhase {
                    phase: current,
                    cause: FailureCause::Overdue,
                };
            }
            let workers = workers_to_start(view);
            if workers.is_empty() {
                Decision::Wait
            } else {
                Decision::StartWorkers {
                    phase: current,
                    workers,
                }
            }
        }
        phase::State::Completed | phase::State::Failed => unreachable!("handled above"),
    }
}

/// The pending workers of a running phase that may start now: all of them in
/// a parallel phase; in a sequential one, the first, once no other runs.
fn workers_to_start(view: &PhaseView) -> Vec<usize> {
    let pending = view
        .workers
        .iter()
        .enumerate()
        .filter(|(_, state)| **state == worker::State::Pending)
        .map(|(index, _)| index);
    match view.mode {
        Mode::Parallel => pending.collect(),
        Mode::Sequential => {
            if view.workers.contains(&worker::State::Running) {
                Vec::new()
            } else {
                pending.take(1).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use phase::State as P;
    use worker::State as W;

    fn view(state: P, workers: &[W]) -> PhaseView {
        PhaseView {
            state,
            workers: workers.to_vec(),
            mode: Mode::Parallel,
            overdue: false,
        }
    }

    fn research(collect: P, a: W, b: W, synthesis: P, synthesizer: W) -> Vec<PhaseView> {
        vec![
            view(collect, &[a, b]),
            PhaseView {
                mode: Mode::Sequential,
                ..view(synthesis, &[synthesizer])
            },
        ]
    }

    #[test]
    fn a_new_run_spawns_the_first_phase() {
        let phases = research(P::Pending, W::Pending, W::Pending, P::Pending, W::Pending);
        assert_eq!(
            decide(run::State::Running, &phases, false),
            Decision::SpawnPhase { phase: 0 }
        );
    }

    #[test]
    fn a_running_phase_starts_its_pending_workers_then_waits() {
        let phases = research(P::Running, W::Pending, W::Running, P::Pending, W::Pending);
        assert_eq!(
            decide(run::State::Running, &phases, false),
            Decision::StartWorkers {
                phase: 0,
                workers: vec![0]
            }
        );
        let phases = research(P::Running, W::Completed, W::Running, P::Pending, W::Pending);
        assert_eq!(decide(run::State::Running, &phases, false), Decision::Wait);
    }

    #[test]
    fn a_sequential_phase_starts_one_worker_at_a_time() {
        let mut phase = view(P::Running, &[W::Completed, W::Running, W::Pending, W::Pending]);
        phase.mode = Mode::Sequential;
        assert_eq!(
            decide(run::State::Running, std::slice::from_ref(&phase), false),
            Decision::Wait
        );
        phase.workers[1] = W::Completed;
        assert_eq!(
            decide(run::State::Running, &[phase], false),
            Decision::StartWorkers {
                phase: 0,
                workers: vec![2]
            }
        );
    }

    #[test]
    fn all_workers_done_and_the_next_phase_pending_spawns_it() {
        let phases = research(P::Completed, W::Completed, W::Completed, P::Pending, W::Pending);
        assert_eq!(
            decide(run::State::Running, &phases, false),
            Decision::SpawnPhase { phase: 1 }
        );
    }

    #[test]
    fn the_final_phase_completed_starts_delivery() {
        let phases = research(
            P::Completed,
            W::Completed,
            W::Completed,
            P::Completed,
            W::Completed,
        );
        assert_eq!(
            decide(run::State::Running, &phases, false),
            Decision::StartDelivery
        );
        assert_eq!(decide(run::State::Delivering, &phases, false), Decision::Deliver);
        assert_eq!(decide(run::State::Delivered, &phases, false), Decision::Archive);
    }

    #[test]
    fn an_overdue_phase_times_out_and_a_failed_one_fails_the_run() {
        let mut phases = research(P::Running, W::Completed, W::Running, P::Pending, W::Pending);
        phases[0].overdue = true;
        assert_eq!(
            decide(run::State::Running, &phases, false),
            Decision::FailPhase {
                phase: 0,
                cause: FailureCause::Overdue
            }
        );
        phases[0].state = P::Failed;
        assert_eq!(
            decide(run::State::Running, &phases, false),
            Decision::FailRun { phase: 0 }
        );
        assert_eq!(
            decide(run::State::Failed, &phases, false),
            Decision::ReportFailure
        );
    }

    #[test]
    fn a_failed_worker_fails_its_phase_at_once() {
        // Within its timeout, with another worker still running.
        let phases = research(P::Running, W::Running, W::Failed, P::Pending, W::Pending);
        assert_eq!(
            decide(run::State::Running, &phases, false),
            Decision::FailPhase {
                phase: 0,
                cause: FailureCause::WorkerFailed { worker: 1 }
            }
        );
        // A sequential phase does not go on to its next worker.
        let mut phase = view(P::Running, &[W::Completed, W::Failed, W::Pending]);
        phase.mode = Mode::Sequential;
        phase.overdue = true;
        assert_eq!(
            decide(run::State::Running, &[phase], false),
            Decision::FailPhase {
                phase: 0,
                cause: FailureCause::WorkerFailed { worker: 1 }
            }
        );
    }

    #[test]
    fn a_paused_phase_waits_for_the_user() {
        let phases = research(P::Paused, W::Completed, W::Completed, P::Pending, W::Pending);
        assert_eq!(
            decide(run::State::Running, &phases, false),
            Decision::Pause { phase: 0 }
        );
        assert_eq!(
            decide(run::State::Running, &phases, true),
            Decision::Resume { phase: 0 }
        );
    }
}
