use fsm_runtime::fsm;

fsm! {
    // final-has-transitions: a final state is a leaf that completes the state
    // holding it. It writes no transitions, timers or states of its own, and is
    // neither terminal nor parallel; the transitions of the states around it
    // still apply to it.
    machine Upload {
        initial state idle { on start -> sending; }
        state sending {
            on cancel -> idle;
            on abort -> aborted;
            done -> idle emit report;
            initial state chunks { on last_chunk -> sent; }
            final state sent {
                on retry -> chunks;
                after 30s -> chunks;
            }
            final terminal state aborted;
        }
    }
}

fn main() {}
