//! The parallel states where XState's tracker shows bugs
//! (`differential/parallel_cases.fsm`), pinned in every engine: the
//! generated code (`fsm!` over the file) and the dynamic engine must both
//! exit and enter every state as the case says, in order, and end in the
//! same leaves. Each state emits `in_X` when entered and `out_X` when left.
//! The random machines of [`parallel`](crate::parallel) and
//! [`random`](crate::random) hold both engines to the SCXML reference; these
//! cases name the behaviours outright.

use fsm_dynamic::{Definition, Engine};
use fsm_tests::workspace_root;
use serde_json::Value;

mod machines {
    fsm_runtime::fsm!(file = "differential/parallel_cases.fsm");
}

/// After each action: the states exited (`-X`) and entered (`+X`), in
/// order, and the leaves.
type Run = Vec<(Vec<String>, Vec<String>)>;

/// `out_a1` as `-a1`, `in_a1` as `+a1`.
fn moves<'a>(outputs: impl Iterator<Item = &'a str>) -> Vec<String> {
    outputs
        .map(|o| match (o.strip_prefix("in_"), o.strip_prefix("out_")) {
            (Some(state), _) => format!("+{state}"),
            (_, Some(state)) => format!("-{state}"),
            _ => panic!("only hooks emit: {o}"),
        })
        .collect()
}

/// Machine `$machine` of module `$module`, generated, fired with `$actions`.
macro_rules! generated {
    ($module:ident, $machine:ident, $actions:expr) => {{
        use machines::$module::{$machine, Action};
        let mut machine = $machine::new();
        let mut run: Run = Vec::new();
        for &action in $actions {
            let fired = machine
                .fire(action.parse::<Action>().expect("an action"))
                .unwrap_or_else(|e| panic!("{action}: {e}"));
            let moved = moves(fired.outputs.iter().map(|o| o.name()));
            let leaves = machine.leaves().map(|s| s.name().to_owned()).collect();
            run.push((moved, leaves));
        }
        run
    }};
}

/// Machine `name` in the dynamic engine, fired with `actions`.
fn dynamic(name: &str, actions: &[&str]) -> Run {
    let path = workspace_root().join("tests/differential/parallel_cases.fsm");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let definition = Definition::from_fsm_named(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let engine = Engine::new(definition).expect("nothing to bind");
    actions
        .iter()
        .map(|&action| {
            let fired = engine
                .fire(action, &Value::Null)
                .unwrap_or_else(|e| panic!("{action}: {e}"));
            let moved = moves(fired.output_names());
            let leaves = engine
                .configuration_names()
                .into_iter()
                .map(str::to_owned)
                .collect();
            (moved, leaves)
        })
        .collect()
}

/// The last step of `run`: its moves and leaves, as `&str`s.
fn last(run: &Run) -> (Vec<&str>, Vec<&str>) {
    let (moved, leaves) = run.last().expect("a step");
    (
        moved.iter().map(String::as_str).collect(),
        leaves.iter().map(String::as_str).collect(),
    )
}

#[test]
fn a_transition_on_the_parallel_state_into_one_region_keeps_the_others() {
    // xstate#5214.
    let actions = ["go", "x", "y", "reset_a"];
    let generated = generated!(reset, Reset, &actions);
    assert_eq!(generated, dynamic("Reset", &actions));
    assert_eq!(
        last(&generated),
        (vec!["-a2", "-a", "+a", "+a1"], vec!["a1", "b2"])
    );
}

#[test]
fn a_transition_between_regions_reenters_the_parallel_state() {
    let actions = ["go", "x"];
    let generated = generated!(across, Across, &actions);
    assert_eq!(generated, dynamic("Across", &actions));
    assert_eq!(
        last(&generated),
        (
            vec!["-b1", "-b", "-a1", "-a", "-p", "+p", "+a", "+a1", "+b", "+b2"],
            vec!["a1", "b2"]
        )
    );
}

#[test]
fn history_of_a_parallel_state_restores_every_region() {
    // xstate#3170, #4900 and PR #5589.
    let actions = ["go", "x", "y", "out", "go", "out", "shallow"];
    let generated = generated!(remember, Remember, &actions);
    assert_eq!(generated, dynamic("Remember", &actions));
    let leaves: Vec<&Vec<String>> = generated.iter().map(|(_, leaves)| leaves).collect();
    // Never left: the default entry; then deep history, every region as it
    // was; then shallow history, every region by default.
    assert_eq!(leaves[0], &["a1", "b1"]);
    assert_eq!(leaves[4], &["a2", "b2"]);
    assert_eq!(leaves[6], &["a1", "b1"]);
    assert_eq!(generated[4].0, ["-idle", "+p", "+a", "+a2", "+b", "+b2"]);
}

#[test]
fn done_of_a_nested_parallel_state_bubbles_up() {
    // xstate#2349, #4381.
    let actions = ["go", "x", "y"];
    let generated = generated!(bubble, Bubble, &actions);
    assert_eq!(generated, dynamic("Bubble", &actions));
    assert_eq!(generated[1].1, ["a2", "b2", "c1"]);
    assert_eq!(
        last(&generated),
        (
            vec![
                "-c1",
                "+c2",
                "-c2",
                "-c",
                "-b2",
                "-b",
                "-a2",
                "-a",
                "-inner",
                "-outer",
                "+finished"
            ],
            vec!["finished"]
        )
    );
}
