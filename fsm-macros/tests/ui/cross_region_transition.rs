// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    // cross-region-transition: a transition from one region of a parallel state
    // to another has its domain above the parallel state, so it exits and
    // re-enters the parallel state and every region. A transition that stays in
    // its region, or one declared on the parallel state itself, is not reported.
    machine Connection {
        initial state closed { on open -> connected; }
        parallel state connected {
            on close -> closed;
            on reset -> write_idle;
            state reading {
                initial state read_idle { on data -> read_busy; }
                state read_busy { on read_done -> read_idle; on read_error -> write_idle; }
            }
            state writing {
                initial state write_idle { on send -> write_busy; }
                state write_busy { on write_done -> write_idle; }
            }
        }
    }
}

fn main() {}
