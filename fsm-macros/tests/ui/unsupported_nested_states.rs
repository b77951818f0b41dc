// A machine with nested states checks clean, but code generation does not
// support nesting yet: it says so instead of generating it flat.
use fsm_runtime::fsm;

fsm! {
    machine Call {
        initial state idle { on dial -> connected; }
        state connected {
            on hang_up -> idle;
            initial state talking { on hold -> on_hold; }
            state on_hold { on resume -> talking; }
        }
    }
}

fn main() {}
