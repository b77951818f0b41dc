// Two states of a composite marked `initial`: the error is on the composite's
// name, with both markers as notes.
use fsm_runtime::fsm;

fsm! {
    machine Call {
        initial state idle { on dial -> connected; }
        state connected {
            on hang_up -> idle;
            initial state talking { on hold -> on_hold; }
            initial state on_hold { on resume -> talking; }
        }
    }
}

fn main() {}
