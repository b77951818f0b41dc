//! The demo runs, prints a trace, and prints the same trace every time.

use std::process::Command;

fn demo() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_agent-loop"))
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

/// Lines that show each part of the session.
const EXPECTED_LINES: &[&str] = &[
    "  `executing_tools` --pause--> `paused` (emit `suspend_work`)",
    "  -> paused in `executing_tools`; holding 0 events, 2 tool calls in flight",
    "  `paused` --resume--> `executing_tools` (emit `resume_work`)",
    "  -> resumed in `executing_tools`; 0 held events, 2 tool calls in flight",
    "  `executing_tools` --tool_completed--> `post_tools_hook` (emit `run_post_tools_hook`)",
    "  -> retry 3 of 3 in 20ms",
    "resumed in `error`",
    "  -> display \"error: the LLM request failed after 3 retries: 429 Too Many Requests\"",
    "  `waiting_for_user_input` --shutdown_requested--> `shutting_down` (emit `shutdown`)",
    "  -> rejected: action `user_input` is not valid in state `shutting_down`: the state is terminal",
];
