//! Diagrams: Mermaid and DOT snapshots of the examples and of fixtures that
//! use every construct, DOT accepted by Graphviz when it is installed, and
//! SVG drawn for every machine, deterministically.

mod random_machine;

use fsm_grammar::diagram::{dot, mermaid, svg};
use fsm_grammar::model::Machine;
use fsm_grammar::{check, Model};
use proptest::prelude::*;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Fixtures that together use every construct a diagram shows.
const FIXTURES: &str =
    "ok/{tour,hooks,any-blocks,priorities,guards,contextual-keywords,initial-terminal,multiple-machines,context-router,context-timers}.fsm";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("grammar/ lives in the workspace")
        .to_path_buf()
}

fn model(path: &Path) -> Model {
    let text = std::fs::read_to_string(path).unwrap();
    check(&text)
        .into_model()
        .unwrap_or_else(|d| panic!("{} has errors: {d:#?}", path.display()))
}

/// Every machine of the examples and the `ok/` and `warn/` fixtures.
fn all_machines() -> Vec<(String, Machine)> {
    let mut machines = Vec::new();
    for dir in ["examples", "tests/fixtures/ok", "tests/fixtures/warn"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(workspace().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "fsm"))
            .collect();
        paths.sort();
        for path in paths {
            for machine in model(&path).machines {
                machines.push((format!("{} ({})", path.display(), machine.name), machine));
            }
        }
    }
    assert!(machines.len() > 20, "found only {} machines", machines.len());
    machines
}

/// Every machine of the file, one diagram after the other.
fn diagrams(path: &Path, draw: fn(&Machine) -> String) -> String {
    model(path)
        .machines
        .iter()
        .map(draw)
        .collect::<Vec<_>>()
        .join("\n")
}

macro_rules! snapshot {
    ($value:expr) => {
        insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($value);
        })
    };
}

#[test]
fn mermaid_of_the_examples() {
    insta::glob!("../../examples", "*.fsm", |path| snapshot!(diagrams(
        path, mermaid
    )));
}

#[test]
fn mermaid_of_fixtures() {
    insta::glob!("../../tests/fixtures", FIXTURES, |path| snapshot!(diagrams(
        path, mermaid
    )));
}

#[test]
fn dot_of_the_examples() {
    insta::glob!("../../examples", "*.fsm", |path| snapshot!(diagrams(path, dot)));
}

#[test]
fn dot_of_fixtures() {
    insta::glob!("../../tests/fixtures", FIXTURES, |path| snapshot!(diagrams(
        path, dot
    )));
}

/// The labels of effects and timers, in both text formats: effects after
/// `/`, outputs after them introduced by `emit`, timers as `after DELAY`
/// edges or, without a target, lines inside their state.
#[test]
fn effects_and_timers_are_labelled() {
    let text = "machine M {
        context C;
        action go(P);
        effect arm, count, record(P);
        delay backoff;
        initial state a {
            enter do arm emit started;
            exit do count;
            on go -> b do count, record emit sent;
            on go [g] priority 1 -> b do record;
            after 30s [h] do count;
            after 30s emit log_slow;
            after backoff [g] -> b emit gave_up;
        }
        terminal state b;
    }";
    let machine = &check(text).into_model().unwrap().machines[0];
    let mermaid = mermaid(machine);
    for line in [
        "a : enter / arm emit started",
        "a : exit / count",
        "a : after 30s [h] (p0) / count",
        "a : after 30s (p0) / log_slow",
        "a --> b : go (p0) / count, record emit sent",
        "a --> b : go [g] (p1) / record",
        "a --> b : after backoff [g] / gave_up",
    ] {
        assert!(mermaid.contains(&format!("    {line}\n")), "no `{line}` in\n{mermaid}");
    }
    let dot = dot(machine);
    for label in [
        r#""a" [label="a\nenter / arm emit started\nexit / count\nafter 30s [h] (p0) / count\nafter 30s (p0) / log_slow"]"#,
        r#""a" -> "b" [label="go (p0) / count, record emit sent"]"#,
        r#""a" -> "b" [label="after backoff [g] / gave_up"]"#,
    ] {
        assert!(dot.contains(label), "no `{label}` in\n{dot}");
    }
}

#[test]
fn mermaid_draws_every_state_once_and_marks_start_and_ends() {
    for (name, machine) in all_machines() {
        let text = mermaid(&machine);
        assert!(text.contains("stateDiagram-v2\n"), "{name}");
        assert_eq!(text.matches("[*] --> ").count(), 1, "{name}: one start");
        let ends = machine.states.iter().filter(|s| s.is_terminal()).count();
        assert_eq!(
            text.matches(" --> [*]\n").count(),
            ends,
            "{name}: one end per terminal state"
        );
        for state in &machine.states {
            assert!(
                text.lines().any(|l| l.contains(&format!(" {}", state.name))),
                "{name}: state {} is missing\n{text}",
                state.name
            );
        }
    }
}

/// Run Graphviz's `dot` on `source`; `None` when `dot` is not installed.
fn render_with_graphviz(source: &str) -> Option<Result<String, String>> {
    let mut child = match Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("cannot run dot: {e}"),
    };
    child.stdin.take().unwrap().write_all(source.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    Some(if output.status.success() && stderr.is_empty() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!("{}: {stderr}", output.status))
    })
}

#[test]
fn graphviz_accepts_the_dot_output() {
    for (name, machine) in all_machines() {
        let source = dot(&machine);
        match render_with_graphviz(&source) {
            None => {
                // Straight to stderr: the test harness captures `println!`,
                // and a skip should be visible.
                let _ = writeln!(
                    std::io::stderr(),
                    "graphviz_accepts_the_dot_output: skipped, Graphviz `dot` is not installed"
                );
                return;
            }
            Some(Ok(svg)) => {
                for state in &machine.states {
                    assert!(
                        svg.contains(&format!(">{}<", state.name)),
                        "{name}: {}",
                        state.name
                    );
                }
            }
            Some(Err(problem)) => panic!("dot rejects the output for {name}: {problem}\n{source}"),
        }
    }
}

#[test]
fn svg_is_drawn_for_every_machine_deterministically() {
    for (name, machine) in all_machines() {
        let picture = svg(&machine);
        assert!(picture.starts_with("<?xml"), "{name}");
        assert!(picture.trim_end().ends_with("</svg>"), "{name}");
        for state in &machine.states {
            assert!(
                picture.contains(&state.name),
                "{name}: state {} is missing",
                state.name
            );
        }
        assert_eq!(picture, svg(&machine), "{name}: two drawings differ");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_machines_are_drawn_in_every_format(text in random_machine::machine_text()) {
        let checked = check(&text);
        prop_assume!(!checked.has_errors());
        for machine in &checked.model.machines {
            let text = mermaid(machine);
            prop_assert!(text.contains("[*] --> "));
            let source = dot(machine);
            if let Some(Err(problem)) = render_with_graphviz(&source) {
                prop_assert!(false, "dot rejects {source}: {problem}");
            }
            let picture = svg(machine);
            prop_assert!(picture.trim_end().ends_with("</svg>"));
        }
    }
}
