// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    // in-never-holds: `in(S)` holds when `S` is active in the configuration
    // before the step. `ringing` is never active while the call is connected, and
    // `talking` never while it is on hold (they are siblings, not regions). A test
    // of the other region, or of a state holding this one, is fine.
    machine Call {
        initial state ringing { on answer -> connected; }
        parallel state connected {
            on hang_up -> ringing;
            state voice {
                initial state talking { on hold -> on_hold; }
                state on_hold { on resume [!in(talking)] -> talking; }
            }
            state video {
                initial state camera_off { on camera [in(talking) && !in(ringing)] -> camera_on; }
                state camera_on { on camera [in(connected)] -> camera_off; }
            }
        }
    }
}

fn main() {}
