// A machine with a warning (`spare` is unreachable) still builds and runs:
// warnings are lints, not errors, and rustc's `allow` silences them like any
// other. Allowed here, under `deny(warnings)` for everything else, so that a
// passing `cargo test` prints nothing; the output at rustc's default level is
// `warning_level.rs`.
#![deny(warnings)]
#![allow(unfulfilled_lint_expectations)]

fsm_runtime::fsm! {
    machine Door {
        initial state closed { on open -> opened; }
        state opened { on close -> closed; }
        state spare { on open -> opened; }
    }
}

fn main() {
    assert_eq!(door::Door::new().state(), door::State::Closed);
}
