use fsm_runtime::fsm;

fsm! {
    machine Door {
        state closed { on open -> opened; }
        terminal state opened;
    }
}

fn main() {}
