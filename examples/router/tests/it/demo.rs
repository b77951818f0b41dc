//! The demo runs, prints a trace, and prints the same trace every time.

use std::process::Command;

fn demo() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_router"))
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

/// The three runs' endings.
const EXPECTED_LINES: &[&str] = &[
    "  tool get_stock_price failed: unknown ticker `MICROSOFT`",
    "  => answered: What does Microsoft trade at?: MSFT trades at 415.50 USD. (3 steps)",
    "  => failed: no answer after 3 steps (max_steps) (3 steps)",
];
