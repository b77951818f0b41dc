use fsm_runtime::fsm;

fsm! {
    machine Door {
        initial state closed { on open -> opened; }
        state opened { on close -> closed; }
        property stays_shut: never in(opened);
        property stays_shut: reachable in(opened);
    }
}

fn main() {}
