use fsm_runtime::fsm;

fsm! {
    // completion-cycle: `done` and unguarded `always` transitions that follow
    // each other at once, within one `fire`, forever. A guarded `always` breaks
    // the cycle (`checking` and `waiting` below are not reported).
    machine Loop {
        initial state idle { on go -> bouncing; on check -> checking; on upload -> sending; }
        state bouncing { always -> rebounding emit tick; }
        state rebounding { always -> bouncing; }
        state checking { always [ready] -> waiting; }
        state waiting { always -> checking; }
        state sending {
            done -> sending;
            on cancel -> idle;
            initial final state sent;
        }
    }
}

fn main() {}
