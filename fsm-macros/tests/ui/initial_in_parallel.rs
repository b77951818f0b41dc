use fsm_runtime::fsm;

fsm! {
    // initial-in-parallel: every region of a parallel state is entered, each
    // through its own initial state, so no region is marked `initial`.
    machine Player {
        initial state idle { on start -> running; }
        parallel state running {
            on stop -> idle;
            initial state playback {
                initial state paused { on play -> playing; }
                state playing { on pause -> paused; }
            }
            state volume {
                initial state normal { on mute -> muted; }
                state muted { on unmute -> normal; }
            }
        }
    }
}

fn main() {}
