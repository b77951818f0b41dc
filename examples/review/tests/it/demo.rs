//! The demo runs, prints a trace, and prints the same trace every time.

use std::process::Command;

fn demo() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_review"))
        .output()
        .expect("the demo binary runs");
    assert!(output.status.success(), "exit status: {}", output.status);
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    String::from_utf8(output.stdout).expect("the trace is UTF-8")
}

#[test]
fn the_demo_is_deterministic() {
    let first = demo();
    assert_eq!(first, demo());
    for line in EXPECTED_LINES {
        assert!(first.lines().any(|l| l == *line), "missing {line:?} in:\n{first}");
    }
}

/// Both branches of `review`, and both kinds of rejection.
const EXPECTED_LINES: &[&str] = &[
    "  `running` --review--> `revising`",
    "  `running` --review--> `done`",
    "accepted draft 3 after 2 revisions",
    "  error: action `restart` is not valid in state `running`; valid actions: `finish`, `review`",
    "  error: action `restart` is not valid in state `done`: the state is terminal",
];
