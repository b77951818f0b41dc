// A composite state must mark the state entering it starts in; the error is
// on the composite's name.
use fsm_runtime::fsm;

fsm! {
    machine Call {
        initial state idle { on dial -> connected; }
        state connected {
            on hang_up -> idle;
            state talking { on hold -> on_hold; }
            state on_hold { on resume -> talking; }
        }
    }
}

fn main() {}
