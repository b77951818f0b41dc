// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    // done-never-fires: a state is done when its active child is final, and a
    // parallel state when every region is. `upload` has no final state, region
    // `volume` of `player` never ends, and `waiting` holds no states at all.
    machine Media {
        initial state idle { on upload -> upload; on play -> player; on wait -> waiting; }
        state upload {
            done -> idle;
            on cancel -> idle;
            initial state sending { on sent -> confirming; }
            state confirming { on confirmed -> sending; }
        }
        parallel state player {
            done -> idle emit log_finished;
            on stop -> idle;
            state playback {
                initial state playing { on end -> ended; }
                final state ended;
            }
            state volume {
                initial state normal { on mute -> muted; }
                state muted { on unmute -> normal; }
            }
        }
        state waiting {
            done -> idle;
            on cancel -> idle;
        }
    }
}

fn main() {}
