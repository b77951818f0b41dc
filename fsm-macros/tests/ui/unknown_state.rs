use fsm_runtime::fsm;

fsm! {
    machine Door {
        initial state closed { on open -> opned; on push -> opened; }
        terminal state opened;
    }
}

fn main() {}
