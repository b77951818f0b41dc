//! The JSON interchange: exports of every example and fixture (snapshots,
//! the JSON Schema, exact round trips), an `execution_fsm_v1.json` document,
//! and malformed documents, each reported at its JSON path.

#[path = "../random_machine/mod.rs"]
pub(crate) mod random_machine;

use fsm_grammar::interchange::{from_json, model_to_json, render, ImportDiagnostic};
use fsm_grammar::model::{Machine, Symbol};
use fsm_grammar::{check, Code, Model};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub(crate) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("grammar/ lives in the workspace")
        .to_path_buf()
}

pub(crate) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The files of `dir` (relative to the workspace) ending in `.ext`, sorted.
pub(crate) fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let dir = workspace().join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .{ext} files in {}", dir.display());
    files
}

/// Every machine source that checks without errors: the examples and the
/// `ok/` and `warn/` fixtures.
pub(crate) fn clean_sources() -> Vec<PathBuf> {
    ["examples", "tests/fixtures/ok", "tests/fixtures/warn"]
        .iter()
        .flat_map(|dir| files(dir, "fsm"))
        .collect()
}

pub(crate) fn model_of(text: &str, name: &str) -> Model {
    check(text)
        .into_model()
        .unwrap_or_else(|d| panic!("{name} has errors: {d:#?}"))
}

fn symbols(list: &[Symbol]) -> Vec<(&str, &[String], bool, Option<&str>)> {
    list.iter()
        .map(|s| {
            let payload = s.payload.as_ref().map(|p| p.text.as_str());
            (s.name.as_str(), s.docs.as_slice(), s.declared.is_some(), payload)
        })
        .collect()
}

/// Everything a machine means, apart from spans: what the round trip keeps.
pub(crate) fn assert_same_machine(a: &Machine, b: &Machine, context: &str) {
    assert_eq!(a.canonical(), b.canonical(), "{context}: canonical form");
    assert_eq!(a.fingerprint(), b.fingerprint(), "{context}: fingerprint");
    assert_eq!(a.docs, b.docs, "{context}: machine docs");
    assert_eq!(a.allows, b.allows, "{context}: machine allows");
    for (sa, sb) in a.states.iter().zip(&b.states) {
        assert_eq!(sa.docs, sb.docs, "{context}: docs of state {}", sa.name);
        assert_eq!(sa.allows, sb.allows, "{context}: allows of state {}", sa.name);
    }
    for (ta, tb) in a.transitions.iter().zip(&b.transitions) {
        assert_eq!(ta.docs, tb.docs, "{context}: transition docs");
    }
    assert_eq!(a.timers.len(), b.timers.len(), "{context}: timer count");
    for (ta, tb) in a.timers.iter().zip(&b.timers) {
        assert_eq!(ta.docs, tb.docs, "{context}: timer docs");
    }
    let context_type = |m: &Machine| m.context.as_ref().map(|c| c.text.clone());
    assert_eq!(context_type(a), context_type(b), "{context}: context type");
    let declares = |m: &Machine| {
        (
            m.declares_actions,
            m.declares_guards,
            m.declares_outputs,
            m.declares_effects,
            m.declares_delays,
        )
    };
    assert_eq!(declares(a), declares(b), "{context}: declared kinds");
    assert_eq!(symbols(&a.effects), symbols(&b.effects), "{context}: effects");
    assert_eq!(symbols(&a.delays), symbols(&b.delays), "{context}: delays");
    assert_eq!(symbols(&a.actions), symbols(&b.actions), "{context}: actions");
    assert_eq!(symbols(&a.guards), symbols(&b.guards), "{context}: guards");
    assert_eq!(symbols(&a.outputs), symbols(&b.outputs), "{context}: outputs");
    let properties = |m: &Machine| {
        m.properties
            .iter()
            .map(|p| (p.name.clone(), p.kind, p.formula.clone(), p.docs.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(properties(a), properties(b), "{context}: properties");
}

/// `.fsm` → JSON → `.fsm` gives the same model, the imported text is in
/// canonical layout, and exporting it again gives the same JSON.
fn assert_round_trip(source: &str, context: &str) {
    let model = model_of(source, context);
    let json = model_to_json(&model);
    let imported =
        from_json(&json).unwrap_or_else(|d| panic!("{context}: import failed:\n{}", render(context, &d)));
    let again = model_of(&imported.source, &format!("{context} (imported)"));
    assert_eq!(
        model.machines.len(),
        again.machines.len(),
        "{context}: machine count"
    );
    for (a, b) in model.machines.iter().zip(&again.machines) {
        assert_same_machine(a, b, &format!("{context}, machine {}", a.name));
    }
    assert_eq!(
        fsm_grammar::format::format(&imported.source).as_ref(),
        Ok(&imported.source),
        "{context}: the imported text is not in canonical layout"
    );
    assert_eq!(
        model_to_json(&again),
        json,
        "{context}: exporting the import again"
    );
}

#[test]
fn every_example_and_fixture_round_trips_exactly() {
    for path in clean_sources() {
        assert_round_trip(&read(&path), &path.display().to_string());
    }
}

#[test]
fn imports_keep_the_warnings_of_the_source() {
    // `duplicate-declaration` and `invalid-allow` describe text that the
    // model does not keep (the second declaration, the unknown code), so
    // they cannot survive; every other warning must.
    let dropped = [Code::DuplicateDeclaration, Code::InvalidAllow];
    for path in clean_sources() {
        let source = read(&path);
        let mut expected: Vec<Code> = check(&source)
            .diagnostics
            .iter()
            .map(|d| d.code)
            .filter(|c| !dropped.contains(c))
            .collect();
        let json = model_to_json(&check(&source).model);
        let imported = from_json(&json).unwrap();
        let mut found: Vec<Code> = imported.diagnostics.iter().filter_map(|d| d.code).collect();
        expected.sort();
        found.sort();
        assert_eq!(found, expected, "{}", path.display());
        assert!(
            imported.diagnostics.iter().all(|d| !d.is_error()),
            "{}",
            path.display()
        );
    }
}

fn snapshot_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn exports_of_the_examples() {
    insta::glob!("../../../examples", "*.fsm", |path| {
        let json = model_to_json(&model_of(&read(path), &snapshot_name(path)));
        insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(json);
        });
    });
}

#[test]
fn exports_of_fixtures() {
    insta::glob!(
        "../../../tests/fixtures",
        "ok/{tour,hooks,declarations,contextual-keywords,multiple-machines,any-blocks,comments,allow,context-router,context-timers}.fsm",
        |path| {
            let json = model_to_json(&model_of(&read(path), &snapshot_name(path)));
            insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
                insta::assert_snapshot!(json);
            });
        }
    );
}

// ---------------------------------------------------------------------------
// An `execution_fsm_v1.json` document
// ---------------------------------------------------------------------------

fn seed() -> String {
    read(&workspace().join("tests/fixtures/json/execution_fsm_v1.json"))
}

#[test]
fn the_seed_document_imports_and_checks_clean() {
    let imported = from_json(&seed()).unwrap_or_else(|d| panic!("{}", render("seed", &d)));
    // The one note is the rename of `fsm.transition`, reported once.
    assert_eq!(
        imported.diagnostics,
        [ImportDiagnostic {
            severity: fsm_grammar::Severity::Warning,
            code: None,
            path: "$.states.idle.on.start.emit[0]".into(),
            message: "output `fsm.transition` is not a valid .fsm name; it is imported as `fsm_transition`"
                .into(),
            help: Some("names match `[A-Za-z_][A-Za-z0-9_]*`; other characters become `_`".into()),
        }]
    );
    assert!(check(&imported.source).diagnostics.is_empty());
    insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("seed_execution_fsm_v1", imported.source);
    });
}

#[test]
fn the_seed_document_means_what_examples_execution_fsm_says() {
    // examples/execution.fsm is that document written by hand, under the name
    // `ExecutionFsmV1`: apart from that line, the canonical forms agree.
    let imported = model_of(&from_json(&seed()).unwrap().source, "seed");
    let example = model_of(
        &read(&workspace().join("examples/execution.fsm")),
        "execution.fsm",
    );
    let body = |m: &Machine| m.canonical().split_once('\n').unwrap().1.to_string();
    assert_eq!(body(&imported.machines[0]), body(&example.machines[0]));
}

// ---------------------------------------------------------------------------
// Malformed and inconsistent documents
// ---------------------------------------------------------------------------

#[test]
fn malformed_documents_are_reported_at_their_json_paths() {
    insta::glob!("../../../tests/fixtures/json", "err/*.json", |path| {
        let name = snapshot_name(path);
        let diagnostics = match from_json(&read(path)) {
            Ok(imported) => panic!("{name} imported:\n{}", imported.source),
            Err(diagnostics) => diagnostics,
        };
        assert!(diagnostics.iter().any(ImportDiagnostic::is_error), "{name}");
        insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(render(&name, &diagnostics));
        });
    });
}

#[test]
fn any_text_imports_or_fails_without_panicking() {
    let seed = seed();
    // Every prefix of the seed: truncated documents are invalid JSON or miss
    // fields, never a crash.
    for end in (0..seed.len()).filter(|&i| seed.is_char_boundary(i)) {
        if let Err(diagnostics) = from_json(&seed[..end]) {
            assert!(diagnostics.iter().any(ImportDiagnostic::is_error));
        }
    }
    for text in [
        "",
        "null",
        "[]",
        "[1, {}]",
        "{\"states\": {\"a\": {\"on\": {\"x\": [[]]}}}}",
    ] {
        let _ = from_json(text);
    }
}

#[test]
fn an_empty_array_is_a_file_without_machines() {
    let imported = from_json("[]").unwrap();
    assert_eq!(imported.source, "");
    assert_eq!(model_to_json(&Model::default()), "[]\n");
}

// ---------------------------------------------------------------------------
// The JSON Schema
// ---------------------------------------------------------------------------

fn schema() -> &'static jsonschema::Validator {
    static SCHEMA: OnceLock<jsonschema::Validator> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let text = read(&workspace().join("docs/fsm-machine.schema.json"));
        let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "the schema declares draft 2020-12"
        );
        jsonschema::draft202012::meta::validate(&schema).expect("the schema is a valid draft 2020-12 schema");
        jsonschema::draft202012::new(&schema).expect("the schema compiles")
    })
}

fn schema_errors(json: &str) -> Vec<String> {
    let value: serde_json::Value = serde_json::from_str(json).expect("valid JSON");
    schema()
        .iter_errors(&value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn exported_documents_and_the_seed_match_the_schema() {
    for path in clean_sources() {
        let json = model_to_json(&check(&read(&path)).model);
        let errors = schema_errors(&json);
        assert!(errors.is_empty(), "{}: {errors:#?}\n{json}", path.display());
    }
    let errors = schema_errors(&seed());
    assert!(errors.is_empty(), "seed: {errors:#?}");
}

#[test]
fn the_schema_rejects_what_the_importer_rejects_for_its_shape() {
    // The documents whose problems are of shape alone (not of meaning, which
    // a schema cannot see) must fail the schema too.
    for name in [
        "missing-fields.json",
        "not-a-machine.json",
        "unknown-fields.json",
        "wrong-types.json",
        "empty-candidate-list.json",
        "bad-priority.json",
        "context-shape.json",
    ] {
        let text = read(&workspace().join("tests/fixtures/json/err").join(name));
        assert!(!schema_errors(&text).is_empty(), "the schema accepts {name}");
    }
}

// ---------------------------------------------------------------------------
// Random machines
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_machines_round_trip_exactly(text in random_machine::machine_text()) {
        let checked = check(&text);
        prop_assume!(!checked.has_errors());
        assert_round_trip(&text, &text);
        let json = model_to_json(&checked.model);
        let errors = schema_errors(&json);
        prop_assert!(errors.is_empty(), "{errors:#?}\n{json}");
    }
}

/// The random machines reach what the properties are about: most check
/// without errors, and among those are nested machines with composites
/// targeted as themselves and through both histories, and hooks, timers
/// and transitions on composites.
#[test]
fn random_machines_include_nested_ones() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let strategy = random_machine::machine_text();
    let mut runner = TestRunner::deterministic();
    let (mut clean, mut nested, mut history, mut deep, mut composite_timer, mut composite_hook) =
        (0, 0, 0, 0, 0, 0);
    let total = 200;
    for _ in 0..total {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        let checked = check(&text);
        if checked.has_errors() {
            continue;
        }
        clean += 1;
        let m = &checked.model.machines[0];
        if !m.is_nested() {
            continue;
        }
        nested += 1;
        history += usize::from(text.contains(".history"));
        deep += usize::from(text.contains(".deep_history"));
        let composite = |s: fsm_grammar::model::StateId| m.state(s).is_composite();
        composite_timer += usize::from(m.timers.iter().any(|t| composite(t.expect_state())));
        composite_hook += usize::from(
            m.states
                .iter()
                .any(|s| s.is_composite() && !(s.enter.is_empty() && s.exit.is_empty())),
        );
    }
    let counts = format!(
        "{clean} clean, {nested} nested, {history} history, {deep} deep history, \
         {composite_timer} timers on composites, {composite_hook} hooks on composites"
    );
    assert!(clean > total / 2, "{counts}");
    assert!(nested > clean / 3 && nested < clean, "{counts}");
    for count in [history, deep, composite_timer, composite_hook] {
        assert!(count > nested / 10, "{counts}");
    }
}

#[test]
fn the_example_in_docs_json_md_is_exact() {
    let doc = read(&workspace().join("docs/json.md"));
    let block = |fence: &str| {
        let start = doc
            .find(fence)
            .unwrap_or_else(|| panic!("docs/json.md has no {fence} block"))
            + fence.len();
        let end = start + doc[start..].find("```").unwrap();
        doc[start..end].to_string()
    };
    let source = block("```fsm\n");
    let json = block("```json\n");
    assert_eq!(model_to_json(&model_of(&source, "docs/json.md")), json);
    let imported = from_json(&json).unwrap();
    let a = model_of(&source, "docs/json.md");
    let b = model_of(&imported.source, "docs/json.md (imported)");
    assert_same_machine(&a.machines[0], &b.machines[0], "docs/json.md");
}

/// What firing does, state by state: for each action, its candidates in the
/// order they are tried.
fn firing_table(m: &Machine) -> Vec<String> {
    let mut table = Vec::new();
    for s in m.state_ids() {
        for (action, candidates) in m.candidate_groups(s) {
            for t in candidates {
                let t = m.transition(t);
                table.push(format!(
                    "{} {} [{}] {} -> {:?} {:?}",
                    m.state(s).name,
                    m.actions[action.index()].name,
                    t.guard
                        .as_ref()
                        .map(|g| m.guard_text(&g.expr))
                        .unwrap_or_default(),
                    t.priority,
                    t.target.map(|to| &m.state(to).name),
                    t.emits
                        .iter()
                        .map(|o| &m.outputs[o.index()].name)
                        .collect::<Vec<_>>(),
                ));
            }
        }
    }
    table
}

#[test]
fn interleaved_actions_come_back_grouped_and_fire_the_same() {
    // JSON groups a state's candidates by action, so `b` moves after both
    // `a` transitions; what fires, and in which order, does not change.
    let source = "machine M {
        initial state s {
            on a [x] -> t;
            on b -> t;
            on a -> s emit o;
        }
        terminal state t;
    }";
    let model = model_of(source, "interleaved");
    let imported = from_json(&model_to_json(&model)).unwrap();
    assert!(
        imported
            .source
            .contains("on a [x] -> t;\n        on a -> s emit o;\n        on b -> t;"),
        "{}",
        imported.source
    );
    let again = model_of(&imported.source, "interleaved (imported)");
    assert_eq!(firing_table(&model.machines[0]), firing_table(&again.machines[0]));
}

// ---------------------------------------------------------------------------
// Context, payloads, effects and timers
// ---------------------------------------------------------------------------

/// The `json` and `fsm` blocks of a section of docs/json.md.
fn doc_blocks(section: &str) -> (String, String) {
    let doc = read(&workspace().join("docs/json.md"));
    let start = doc
        .find(section)
        .unwrap_or_else(|| panic!("docs/json.md has no {section}"));
    let doc = &doc[start..];
    let block = |fence: &str| {
        let start = doc.find(fence).unwrap() + fence.len();
        let end = start + doc[start..].find("```").unwrap();
        doc[start..end].to_string()
    };
    (block("```json\n"), block("```fsm\n"))
}

#[test]
fn the_context_example_in_docs_json_md_imports_to_its_fsm() {
    let (json, source) = doc_blocks("## Context, payloads, effects and timers");
    let imported = from_json(&json).unwrap_or_else(|d| panic!("{}", render("docs/json.md", &d)));
    assert!(imported.diagnostics.is_empty(), "{:#?}", imported.diagnostics);
    assert_eq!(imported.source, source);
    assert_round_trip(&source, "docs/json.md, context example");
}

#[test]
fn delays_and_types_are_read_as_written_and_exported_canonically() {
    let json = r#"{
      "fsm_id": "m",
      "initial_state": "a",
      "terminal_states": ["b"],
      "context": " crate :: Ctx < Vec < u8 > , ( u32 , ) > ",
      "actions": {"go": {"payload": "[ u8 ; 4 ]"}},
      "states": {
        "a": {
          "on": {"go": {"to": "b"}},
          "after": [
            {"delay": "90000ms", "to": "b"},
            {"delay": "tool-timeout", "effects": ["tick"]}
          ]
        },
        "b": {}
      }
    }"#;
    let imported = from_json(json).unwrap_or_else(|d| panic!("{}", render("test", &d)));
    let messages: Vec<String> = imported.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        ["$.states.a.after[1].delay: delay `tool-timeout` is not a valid .fsm name; it is imported as `tool_timeout`"]
    );
    assert!(
        imported.source.contains("context crate::Ctx<Vec<u8>, (u32,)>;"),
        "{}",
        imported.source
    );
    assert!(
        imported.source.contains("action go([u8; 4]);"),
        "{}",
        imported.source
    );
    assert!(
        imported.source.contains("after 90000ms -> b;"),
        "{}",
        imported.source
    );
    assert!(
        imported.source.contains("after tool_timeout do tick;"),
        "{}",
        imported.source
    );
    let exported = model_to_json(&model_of(&imported.source, "imported"));
    assert!(exported.contains(r#""delay": "90s""#), "{exported}");
    assert!(
        exported.contains(r#""context": "crate::Ctx<Vec<u8>, (u32,)>""#),
        "{exported}"
    );
    assert!(schema_errors(&exported).is_empty());
}

#[test]
fn the_schema_accepts_the_new_members_and_rejects_bad_delays() {
    let (json, _) = doc_blocks("## Context, payloads, effects and timers");
    assert_eq!(schema_errors(&json), Vec::<String>::new());
    let bad = json.replace(r#""delay": "30s""#, r#""delay": "2.5s""#);
    assert!(!schema_errors(&bad).is_empty());
    let missing = json.replace(r#""delay": "30s", "#, "");
    assert!(!schema_errors(&missing).is_empty());
}

// ---------------------------------------------------------------------------
// Nested states: depth, and what marks a composite terminal
// ---------------------------------------------------------------------------

/// A machine whose states `l1` to `l{levels}` each hold the next, with
/// `extra` members added to `l1`'s state object and the machine object.
fn nested_document(levels: usize, l1_extra: &str, machine_extra: &str) -> String {
    use std::fmt::Write;
    let mut text = format!(r#"{{"fsm_id": "Deep", {machine_extra}"initial_state": "l1", "states": "#);
    for i in 1..levels {
        let extra = if i == 1 { l1_extra } else { "" };
        let _ = write!(text, r#"{{"l{i}": {{{extra}"initial": "l{}", "states": "#, i + 1);
    }
    let _ = write!(text, r#"{{"l{levels}": {{}}}}"#);
    text.push_str(&"}}".repeat(levels - 1));
    text.push('}');
    text
}

/// The diagnostics of a document that must not import.
fn import_errors(json: &str) -> Vec<ImportDiagnostic> {
    match from_json(json) {
        Ok(imported) => panic!("imported:\n{}", imported.source),
        Err(diagnostics) => diagnostics,
    }
}

/// The path of the `states` member holding the states at depth `depth`.
fn states_path(depth: usize) -> String {
    let mut path = String::from("$.states");
    for i in 1..depth {
        path.push_str(&format!(".l{i}.states"));
    }
    path
}

#[test]
fn nesting_at_the_limit_imports() {
    let json = nested_document(fsm_grammar::MAX_STATE_DEPTH, "", "");
    let imported = from_json(&json).unwrap_or_else(|d| panic!("{}", render("deep.json", &d)));
    assert!(imported.source.contains("state l32;"), "{}", imported.source);
}

#[test]
fn nesting_too_deep_is_reported_once_without_follow_on_errors() {
    // `l1` targets a state past the limit, and the machine lists the deepest
    // state as terminal: both are states the reader does not read, not
    // unknown states, and no `initial` is a stranger in an unread `states`.
    let json = nested_document(
        40,
        r#""on": {"dive": {"to": "l39"}}, "#,
        r#""terminal_states": ["l40"], "#,
    );
    let diagnostics = import_errors(&json);
    assert_eq!(diagnostics.len(), 1, "{}", render("deep.json", &diagnostics));
    let d = &diagnostics[0];
    assert_eq!(d.code, Some(Code::NestingTooDeep));
    assert_eq!(d.path, states_path(33));
    assert_eq!(d.message, "state `l33` is nested more than 32 levels deep");
}

#[test]
fn a_misspelled_state_is_still_reported_next_to_nesting_too_deep() {
    let json = nested_document(40, "", r#""terminal_states": ["l50"], "#);
    let diagnostics = import_errors(&json);
    let report = render("deep.json", &diagnostics);
    assert_eq!(diagnostics.len(), 2, "{report}");
    assert_eq!(diagnostics[0].code, Some(Code::NestingTooDeep), "{report}");
    assert_eq!(diagnostics[1].path, "$.terminal_states[0]", "{report}");
    assert_eq!(diagnostics[1].message, "unknown state `l50`", "{report}");
}

#[test]
fn a_document_nested_100_000_levels_is_nesting_too_deep_at_its_path() {
    // serde_json alone stops at 128 levels with "recursion limit exceeded";
    // the reader reads no deeper than it must, without recursing further.
    let json = nested_document(100_000, "", "");
    let diagnostics = import_errors(&json);
    assert_eq!(diagnostics.len(), 1, "{}", render("deep.json", &diagnostics));
    assert_eq!(diagnostics[0].code, Some(Code::NestingTooDeep));
    assert_eq!(diagnostics[0].path, states_path(33));
    // Garbage nested as deep elsewhere is a wrong type where it stands.
    let json = format!(
        r#"{{"fsm_id": "M", "initial_state": "a", "states": {{"a": {{"on": {{"go": [{}{}]}}}}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let diagnostics = import_errors(&json);
    assert_eq!(diagnostics.len(), 1, "{}", render("deep.json", &diagnostics));
    assert_eq!(diagnostics[0].path, "$.states.a.on.go[0]");
    assert_eq!(
        diagnostics[0].message,
        "expected a transition object, found an array"
    );
    // Unbalanced, it is still malformed JSON.
    let diagnostics = import_errors(&"[".repeat(100_000));
    assert!(
        diagnostics[0].message.starts_with("invalid JSON: EOF"),
        "{diagnostics:?}"
    );
}

#[test]
fn a_terminal_composite_is_reported_at_its_terminal_states_entry() {
    let json = r#"{
      "fsm_id": "M",
      "initial_state": "a",
      "terminal_states": ["c", "b"],
      "states": {
        "a": {"on": {"go": {"to": "b"}}},
        "b": {"initial": "b1", "states": {"b1": {"on": {"stop": {"to": "c"}}}}},
        "c": {}
      }
    }"#;
    let diagnostics = import_errors(json);
    let report = render("m.json", &diagnostics);
    let d = diagnostics
        .iter()
        .find(|d| d.code == Some(Code::CompositeTerminal))
        .unwrap_or_else(|| panic!("no composite-terminal:\n{report}"));
    assert_eq!(d.path, "$.terminal_states[1]", "{report}");
}

// ---------------------------------------------------------------------------
// Parallel and final states, `done` and `always` transitions, `in(...)`
// ---------------------------------------------------------------------------

/// The machines of `grammar/tests/parallel/`: the research pipeline, a media
/// player and a parallel state inside a composite.
pub(crate) fn parallel_sources() -> Vec<PathBuf> {
    files("grammar/tests/parallel", "fsm")
}

#[test]
fn parallel_machines_round_trip_exactly_and_match_the_schema() {
    for path in parallel_sources() {
        let source = read(&path);
        let context = path.display().to_string();
        assert_round_trip(&source, &context);
        let json = model_to_json(&model_of(&source, &context));
        assert_eq!(schema_errors(&json), Vec::<String>::new(), "{context}");
    }
}

#[test]
fn exports_of_parallel_machines() {
    insta::glob!("../parallel", "*.fsm", |path| {
        let json = model_to_json(&model_of(&read(path), &snapshot_name(path)));
        insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(json);
        });
    });
}

/// The research pipeline, as docs/json.md shows it.
#[test]
fn the_parallel_example_in_docs_json_md_is_exact() {
    let (json, source) = doc_blocks("### Parallel and final states");
    assert_eq!(model_to_json(&model_of(&source, "docs/json.md")), json);
    let imported = from_json(&json).unwrap_or_else(|d| panic!("{}", render("docs/json.md", &d)));
    assert!(imported.diagnostics.is_empty(), "{:#?}", imported.diagnostics);
    assert_eq!(imported.source, source);
    assert_eq!(schema_errors(&json), Vec::<String>::new());
}

#[test]
fn the_new_members_are_written_where_the_machine_uses_them() {
    let json = model_to_json(&model_of(
        &read(&workspace().join("grammar/tests/parallel/research.fsm")),
        "research",
    ));
    // A parallel state: `parallel` then its regions, no `initial`.
    let collect = &json[json.find("\"collect\": {").unwrap()..json.find("\"synthesis\": {").unwrap()];
    assert!(
        collect.contains("\"parallel\": true,\n      \"states\": {\n        \"researcher_a\": {"),
        "{collect}"
    );
    assert!(!collect.contains("\"initial\": \"researcher_a\""), "{collect}");
    // `done` after `after`, with `in(...)` in a guard as `.fsm` writes it.
    assert!(
        collect.contains(
            "\"done\": [\n        {\n          \"guard\": \"in(a_done)\",\n          \"priority\": 1,\n          \"to\": \"synthesis\",\n          \"emit\": [\"spawn_synthesizer\"]\n        },"
        ),
        "{collect}"
    );
    assert!(
        collect.contains("\"a_done\": {\n              \"final\": true\n            },"),
        "{collect}"
    );
    // A machine without the constructs has none of the members.
    for path in clean_sources() {
        let model = check(&read(&path)).model;
        if model.machines.iter().any(|m| m.runs_over_configurations()) {
            continue;
        }
        let json = model_to_json(&model);
        // (`done` is also a state's name in some of them.)
        for member in ["\"done\": [", "\"always\": [", "\"final\": ", "\"parallel\": "] {
            assert!(!json.contains(member), "{}: {member}", path.display());
        }
    }
}

#[test]
fn done_and_always_come_back_grouped_with_the_same_fingerprint() {
    // JSON lists a state's `done` and `always` transitions apart, so an
    // `always` written between two `done`s comes back after them; the two
    // are tried at different moments, so nothing changes.
    let source = "machine M {
        initial state s {
            on go -> p;
        }
        state p {
            done [x] -> t;
            always [y] -> t emit o;
            done -> s;
            initial state p1 { on f -> p2; }
            final state p2;
        }
        terminal state t;
    }";
    let model = model_of(source, "interleaved");
    let imported = from_json(&model_to_json(&model)).unwrap();
    assert!(
        imported
            .source
            .contains("done [x] -> t;\n        done -> s;\n        always [y] -> t emit o;"),
        "{}",
        imported.source
    );
    assert_round_trip(source, "interleaved done and always");
}

/// A document holding the research pipeline's `collect` with `edit`
/// applied to the exported text.
fn research_json_with(edit: impl Fn(String) -> String) -> String {
    let source = read(&workspace().join("grammar/tests/parallel/research.fsm"));
    let json = model_to_json(&model_of(&source, "research"));
    let edited = edit(json.clone());
    assert_ne!(edited, json, "the edit changed nothing");
    edited
}

/// The only diagnostic of `json`, rendered, with its path and code.
fn one_diagnostic(json: &str) -> (String, Option<Code>, String) {
    let diagnostics = match from_json(json) {
        Ok(imported) => imported.diagnostics,
        Err(diagnostics) => diagnostics,
    };
    let report = render("m.json", &diagnostics);
    assert_eq!(diagnostics.len(), 1, "{report}");
    let d = &diagnostics[0];
    (d.path.clone(), d.code, d.message.clone())
}

#[test]
fn bad_new_members_are_reported_at_their_json_paths() {
    let cases: Vec<(String, &str, Option<Code>, &str)> = vec![
        (
            research_json_with(|j| j.replace("\"parallel\": true", "\"parallel\": \"yes\"")),
            "$.states.collect.parallel",
            None,
            "expected `true` or `false`, found a string",
        ),
        (
            research_json_with(|j| j.replacen("\"final\": true", "\"final\": 1", 1)),
            "$.states.collect.states.researcher_a.states.a_done.final",
            None,
            "expected `true` or `false`, found a number",
        ),
        (
            research_json_with(|j| {
                j.replacen("\"done\": [", "\"done\": {\"x\": [", 1).replacen(
                    "    ],\n      \"parallel\"",
                    "    ]},\n      \"parallel\"",
                    1,
                )
            }),
            "$.states.collect.done",
            None,
            "expected an array of transition objects, found an object",
        ),
        (
            research_json_with(|j| {
                j.replace("\"to\": \"partial_synthesis\"", "\"to\": \"partial_synthesys\"")
            }),
            "$.states.collect.done[1].to",
            None,
            "unknown state `partial_synthesys`",
        ),
        (
            research_json_with(|j| j.replace("\"priority\": 1,", "\"priority\": 1, \"delay\": \"1s\",")),
            "$.states.collect.done[0].delay",
            None,
            "unknown field `delay`",
        ),
        (
            research_json_with(|j| j.replace("in(a_done)", "in(a_done")),
            "$.states.collect.done[0].guard",
            None,
            "invalid guard `in(a_done`: `in(a_done` is not closed: expected `)` after the state",
        ),
        // What `.fsm` reports, at the member it came from.
        (
            research_json_with(|j| j.replace("in(a_done)", "in(a_dnoe)")),
            "$.states.collect.done[0].guard",
            Some(Code::UnknownState),
            "",
        ),
        (
            research_json_with(|j| {
                j.replace(
                    "\"parallel\": true,\n",
                    "\"parallel\": true,\n      \"initial\": \"researcher_a\",\n",
                )
            }),
            "$.states.collect.initial",
            Some(Code::InitialInParallel),
            "",
        ),
        (
            research_json_with(|j| {
                j.replacen(
                    "\"final\": true",
                    "\"on\": {\"retry\": {\"to\": \"a_running\"}},\n            \"final\": true",
                    1,
                )
            }),
            "$.states.collect.states.researcher_a.states.a_done.on.retry",
            Some(Code::FinalHasTransitions),
            "",
        ),
        (
            research_json_with(|j| j.replace("\"failed\": {}", "\"failed\": {\"final\": true}")),
            "$.states.failed.final",
            Some(Code::FinalAtTopLevel),
            "",
        ),
        // A `done` on a leaf is the check's warning, and the import goes on.
        (
            research_json_with(|j| {
                j.replace(
                    "\"synthesis\": {\n",
                    "\"synthesis\": {\n      \"done\": [{\"to\": \"failed\"}],\n",
                )
            }),
            "$.states.synthesis.done[0]",
            Some(Code::DoneNeverFires),
            "",
        ),
    ];
    for (json, path, code, message) in cases {
        let (found_path, found_code, found_message) = one_diagnostic(&json);
        assert_eq!((found_path.as_str(), found_code), (path, code), "{found_message}");
        if !message.is_empty() {
            assert_eq!(found_message, message);
        }
    }
}

#[test]
fn false_marks_and_empty_lists_say_nothing() {
    let json = r#"{
      "fsm_id": "M",
      "initial_state": "a",
      "states": {
        "a": {"final": false, "parallel": false, "done": [], "always": [], "on": {"go": {"to": "b"}}},
        "b": {}
      }
    }"#;
    let imported = from_json(json).unwrap_or_else(|d| panic!("{}", render("m.json", &d)));
    assert_eq!(
        imported.source,
        "machine M {\n    initial state a {\n        on go -> b;\n    }\n\n    state b;\n}\n"
    );
}

#[test]
fn properties_round_trip_and_bad_ones_are_refused_at_their_path() {
    let source = "machine M {\n    initial state a {\n        on go -> b;\n    }\n\n    terminal state b;\n\n    \
                  /// Ends.\n    property ends: recoverable terminal;\n    never in(a) && (in(b) || !terminal);\n}\n";
    assert_round_trip(source, "properties");
    let json = model_to_json(&model_of(source, "properties"));
    assert!(
        json.contains(r#""formula": "in(a) && (in(b) || !terminal)""#),
        "{json}"
    );
    let errors = |from: &str, to: &str| {
        let bad = json.replacen(from, to, 1);
        assert_ne!(bad, json, "{from}");
        let errors = from_json(&bad).expect_err(to);
        errors.iter().map(ToString::to_string).collect::<Vec<_>>()
    };
    assert_eq!(
        errors(r#""kind": "never""#, r#""kind": "always""#),
        ["$.properties[1].kind: unknown kind of property `always`"]
    );
    assert_eq!(
        errors(r#""formula": "terminal""#, r#""formula": "done""#)[0],
        "$.properties[0].formula: invalid formula `done`: `done` is not `terminal`, and a state is written \
         `in(done)`: a formula holds of configurations, and guards are not part of one"
    );
    assert_eq!(
        errors(r#""formula": "terminal""#, r#""formula": "in(c)""#),
        ["$.properties[0].formula: `in(c)` tests unknown state `c`"]
    );
    assert_eq!(
        errors(r#""name": "ends""#, r#""name": "the end""#),
        ["$.properties[0].name: `the end` is not a property name"]
    );
    assert_eq!(
        errors(r#""formula": "terminal""#, r#""formula": "terminal; state x""#)[0],
        "$.properties[0].formula: invalid formula `terminal; state x`: unexpected character `;`; a formula is made of \
         `in(state)`, `terminal`, `!`, `&&`, `||` and parentheses"
    );
}
