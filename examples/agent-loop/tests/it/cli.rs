//! The demo's command line: `--help` prints the usage instead of running the
//! demo, and an argument it does not know is refused.

use std::process::{Command, Output};

fn agent_loop(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-loop"))
        .args(args)
        .output()
        .expect("the demo binary runs")
}

#[test]
fn help_prints_the_usage_and_does_not_run_the_demo() {
    for flag in ["--help", "-h"] {
        let output = agent_loop(&[flag]);
        assert!(output.status.success(), "{flag}: {output:?}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(stdout.contains("Usage: agent-loop"), "{flag}:\n{stdout}");
        assert!(
            stdout.contains("scripted session of the agent loop"),
            "{flag}:\n{stdout}"
        );
        // Nothing of the demo's trace.
        assert!(!stdout.contains("-->"), "{flag} ran the demo:\n{stdout}");
        assert!(!stdout.contains("submit"), "{flag} ran the demo:\n{stdout}");
    }
}

#[test]
fn version_prints_the_version() {
    let output = agent_loop(&["--version"]);
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("agent-loop {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn an_unknown_argument_is_refused_with_the_usage() {
    let output = agent_loop(&["--turbo"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "the demo ran");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("unexpected argument '--turbo'"), "{stderr}");
    assert!(stderr.contains("Usage: agent-loop"), "{stderr}");
}
