// A child's override of its parent's transition is deliberate, but a
// parent's transition that every child overrides can never fire.
use fsm_runtime::fsm;

fsm! {
    machine Agent {
        initial state idle { on start -> working; }
        state working {
            on stop -> idle;
            initial state thinking { on stop -> idle emit stopped_thinking; on act -> running; }
            state running { on stop -> idle emit stopped_running; on done -> thinking; }
        }
    }
}

fn main() {}
