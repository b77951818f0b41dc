//! The XState export: snapshots of machine configs, every target resolving
//! to a state node, and the warnings for what XState cannot hold.

use crate::interchange::{clean_sources, model_of, parallel_sources, read};
use fsm_grammar::interchange::to_xstate;
use fsm_grammar::LineIndex;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// The config and its warnings, as a snapshot shows them.
fn export_text(source: &str, name: &str) -> String {
    let model = model_of(source, name);
    let index = LineIndex::new(source);
    let mut out = String::new();
    for machine in &model.machines {
        let exported = to_xstate(machine);
        out.push_str(&exported.text);
        for w in &exported.warnings {
            let at = index.line_col(source, w.span.start);
            out.push_str(&format!("warning {}:{}: {}\n", at.line, at.column, w.message));
        }
    }
    out
}

/// Every state node's id (`#Machine.a.b`), history nodes included.
fn node_ids(node: &Value, id: &str, out: &mut BTreeSet<String>) {
    out.insert(format!("#{id}"));
    if let Some(states) = node.get("states").and_then(Value::as_object) {
        for (key, child) in states {
            node_ids(child, &format!("{id}.{key}"), out);
        }
    }
}

/// Every `target` in the config.
fn targets(node: &Value, out: &mut Vec<String>) {
    match node {
        Value::Object(members) => {
            for (key, value) in members {
                match (key.as_str(), value) {
                    ("target", Value::String(t)) => out.push(t.clone()),
                    _ => targets(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| targets(i, out)),
        _ => {}
    }
}

#[test]
fn every_target_of_every_export_is_a_state_node() {
    let mut sources = clean_sources();
    sources.extend(parallel_sources());
    for path in sources {
        let model = model_of(&read(&path), &path.display().to_string());
        for machine in &model.machines {
            let config: Value = serde_json::from_str(&to_xstate(machine).text).unwrap();
            assert_eq!(config["id"], machine.name.as_str());
            let mut ids = BTreeSet::new();
            node_ids(&config, &machine.name, &mut ids);
            let mut found = Vec::new();
            targets(&config, &mut found);
            for target in found {
                assert!(
                    ids.contains(&target),
                    "{}: target {target} is no state node",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn xstate_exports() {
    let name = |path: &Path| path.file_name().unwrap().to_string_lossy().into_owned();
    insta::glob!(
        "../../../tests/fixtures",
        "ok/{phone-call,context-timers,any-blocks,priorities,declarations,allow}.fsm",
        |path| {
            let text = export_text(&read(path), &name(path));
            insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
                insta::assert_snapshot!(text);
            });
        }
    );
    let research = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parallel/research.fsm");
    let text = export_text(&read(&research), "research.fsm");
    insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("xstate_exports@research.fsm", text);
    });
}

#[test]
fn guard_expressions_and_interrupts_are_reported() {
    let source = "machine M {
    context Ctx;
    initial state outer {
        on abort [urgent] priority 1 -> done;
        initial state inner {
            on abort [a && !in(outer)] -> outer;
        }
    }
    terminal state done;
}
";
    let text = export_text(source, "interrupt");
    let warnings: Vec<&str> = text.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(
        warnings,
        [
            "warning 2:13: the context type `Ctx` is not exported",
            "warning 4:9: `on abort priority 1` in `outer` is tried before the candidates of the states inside it in fsmc, but XState tries the innermost state's first",
            "warning 4:9: the priority of `on abort priority 1` in `outer` is not written: XState has no priorities",
            "warning 6:23: the guard `a && !in(outer)` is exported as one guard named by its text",
        ]
    );
    let config: Value = serde_json::from_str(&to_xstate(&model_of(source, "m").machines[0]).text).unwrap();
    // A transition to the state holding its source re-enters it, as in fsmc.
    assert_eq!(
        config["states"]["outer"]["states"]["inner"]["on"]["abort"][0]["reenter"],
        true
    );
}

/// A terminal state inside another is a `final` state of it in XState,
/// which completes that state instead of ending the machine: said, never
/// silent.
#[test]
fn a_nested_terminal_state_is_reported() {
    let source = "machine M {
    initial state job {
        initial state running { on fail -> failed; }
        terminal state failed;
    }
}
";
    let text = export_text(source, "nested");
    let warnings: Vec<&str> = text.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(
        warnings,
        ["warning 4:24: terminal state `failed` is written as a `final` state of `job`, which XState takes as `job` being done, not as the machine's end"]
    );
}
