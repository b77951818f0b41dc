use fsm_runtime::fsm;

fsm! {
    machine Door {
        action open;
        initial state closed { on open -> opened; on shut -> closed; }
        terminal state opened;
    }
}

fn main() {}
