use fsm_runtime::fsm;

fsm! {
    // final-at-top-level: `final` completes the state holding it, and a top-level
    // state has none. The machine ends in a `terminal` state.
    machine Job {
        initial state queued { on start -> running; }
        state running { on finish -> finished; }
        final state finished;
    }
}

fn main() {}
