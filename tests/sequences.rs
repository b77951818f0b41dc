//! The Rust tests `fsmc test --out-dir` writes compile and pass over the
//! machines `fsm!` generates: `sequences/*_tests.rs` are what `fsmc test
//! NAME.fsm --out-dir .` wrote in `sequences/` (fsm-cli's `testing.rs` checks
//! that they, and the scripts beside them, are still what it writes). A tree
//! with guards and a timer, a parallel machine, and history with `always`.

mod turnstile_case {
    fsm_runtime::fsm!(file = "sequences/turnstile.fsm");
    include!("sequences/turnstile_tests.rs");
}

mod research_case {
    fsm_runtime::fsm!(file = "sequences/research.fsm");
    include!("sequences/research_tests.rs");
}

mod player_case {
    fsm_runtime::fsm!(file = "sequences/player.fsm");
    include!("sequences/player_tests.rs");
}
