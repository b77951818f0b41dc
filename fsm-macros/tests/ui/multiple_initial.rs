use fsm_runtime::fsm;

fsm! {
    machine Door {
        initial state closed { on open -> opened; }
        initial terminal state opened;
    }
}

fn main() {}
