//! The statuses, as machines: `Phase` and `Worker` from `examples/pipeline.fsm`
//! (the statuses of `status.json`'s phases and workers), and `Run` from `run.fsm` (whether
//! the result was delivered).

fsm_runtime::fsm!(file = "../pipeline.fsm");
fsm_runtime::fsm!(file = "run.fsm");

/// The guards of `Phase`, answered from the statuses of its workers and the
/// definition, when a worker's output is detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseFacts {
    /// Every worker of the phase completed.
    pub all_workers_done: bool,
    /// The phase holds the final worker.
    pub final_phase: bool,
    /// The definition asks to wait for the user after the phase.
    pub pause_after: bool,
}

impl phase::Guards for PhaseFacts {
    fn all_workers_done(&self) -> bool {
        self.all_workers_done
    }

    fn final_phase(&self) -> bool {
        self.final_phase
    }

    fn pause_after(&self) -> bool {
        self.pause_after
    }
}
