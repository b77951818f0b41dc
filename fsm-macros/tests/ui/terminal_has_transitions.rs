use fsm_runtime::fsm;

fsm! {
    machine Door {
        initial state closed { on open -> opened; }
        terminal state opened { on close -> closed; }
    }
}

fn main() {}
