// Warnings are lints on the token; denied here, as `-D warnings` does, because
// trybuild only compares the output of builds that fail.
#![deny(warnings)]

use fsm_runtime::fsm;

fsm! {
    // single-region: a parallel state with one region runs it alone, as a
    // composite state would; one without regions is a leaf in disguise.
    machine Player {
        initial state idle { on play -> playing; on pause -> paused; }
        parallel state playing {
            on stop -> idle;
            state playback {
                initial state normal_speed { on faster -> double_speed; }
                state double_speed { on slower -> normal_speed; }
            }
        }
        parallel state paused { on resume -> idle; }
    }
}

fn main() {}
