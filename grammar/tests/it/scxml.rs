//! The SCXML interchange: every example and fixture (and random machines)
//! round trip exactly through SCXML, exports read as plain SCXML, and
//! documents fsmc cannot express are refused at their line and column.

use crate::interchange::{
    assert_same_machine, clean_sources, model_of, parallel_sources, random_machine, read,
};
use fsm_grammar::interchange::{from_scxml, render, to_json, to_scxml, ImportDiagnostic};
use fsm_grammar::{check, Model};
use proptest::prelude::*;

/// `.fsm` → SCXML → `.fsm` gives the same machine, model and JSON export
/// alike, for every machine of `source`; returns the export warnings.
fn assert_scxml_round_trip(source: &str, context: &str) -> Vec<String> {
    let model = model_of(source, context);
    let mut warnings = Vec::new();
    for machine in &model.machines {
        let context = format!("{context}, machine {}", machine.name);
        let exported = to_scxml(machine);
        // SCXML has no properties: each is reported, and the rest is kept.
        assert_eq!(
            exported
                .warnings
                .iter()
                .filter(|w| w.message.starts_with("property "))
                .count(),
            machine.properties.len(),
            "{context}: a warning per property"
        );
        let mut without = machine.clone();
        without.properties.clear();
        let machine = &without;
        roxmltree::Document::parse(&exported.text).unwrap_or_else(|e| {
            panic!(
                "{context}: the export is not well-formed XML: {e}\n{}",
                exported.text
            )
        });
        let imported = from_scxml(&exported.text).unwrap_or_else(|d| {
            panic!(
                "{context}: import failed:\n{}\n{}",
                render(&context, &d),
                exported.text
            )
        });
        let again: Model = model_of(&imported.source, &format!("{context} (imported)"));
        assert_eq!(again.machines.len(), 1, "{context}: one machine per document");
        assert_same_machine(machine, &again.machines[0], &context);
        assert_eq!(
            to_json(&again.machines[0]),
            to_json(machine),
            "{context}: the JSON export of the import\n{}",
            exported.text
        );
        let source_warnings = check(source).diagnostics.len();
        let import_warnings: Vec<&ImportDiagnostic> =
            imported.diagnostics.iter().filter(|d| d.code.is_none()).collect();
        assert!(
            import_warnings.is_empty(),
            "{context}: the import of an export warns of nothing but the source's own warnings ({source_warnings}): {import_warnings:#?}"
        );
        warnings.extend(exported.warnings.iter().map(|w| w.message.clone()));
    }
    warnings
}

#[test]
fn every_example_and_fixture_round_trips_exactly_through_scxml() {
    let mut sources = clean_sources();
    sources.extend(parallel_sources());
    for path in sources {
        assert_scxml_round_trip(&read(&path), &path.display().to_string());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_machines_round_trip_exactly_through_scxml(text in random_machine::machine_text()) {
        prop_assume!(!check(&text).has_errors());
        assert_scxml_round_trip(&text, &text);
    }
}

/// The diagnostics of importing `text`, one `line:column: message` each.
fn import_problems(text: &str) -> Vec<String> {
    match from_scxml(text) {
        Ok(imported) => imported
            .diagnostics
            .iter()
            .map(|d| format!("warning {d}"))
            .collect(),
        Err(diagnostics) => diagnostics
            .iter()
            .map(|d| format!("{} {d}", if d.is_error() { "error" } else { "warning" }))
            .collect(),
    }
}

const HEAD: &str =
    r#"<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="door" initial="closed">"#;

fn door(closed_body: &str) -> String {
    format!(
        "{HEAD}\n  <state id=\"closed\">{closed_body}<transition event=\"open\" target=\"opened\"/></state>\n  <state id=\"opened\"><transition event=\"close\" target=\"closed\"/></state>\n</scxml>\n"
    )
}

#[test]
fn a_plain_scxml_document_imports() {
    let imported = from_scxml(&door("")).unwrap();
    assert_eq!(
        imported.source,
        "machine door {\n    initial state closed {\n        on open -> opened;\n    }\n\n    state opened {\n        on close -> closed;\n    }\n}\n"
    );
    assert!(imported.diagnostics.is_empty(), "{:#?}", imported.diagnostics);
}

#[test]
fn a_document_nested_100_000_levels_is_refused_at_once() {
    let depth = 100_000;
    let text = format!(
        "{HEAD}<state id=\"closed\">{}{}</state></scxml>",
        "<foo>".repeat(depth),
        "</foo>".repeat(depth)
    );
    // Refused before the reader walks it (a walk up through the ancestors of
    // each element would take minutes here).
    let problems = import_problems(&text);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("error 1:")
            && problems[0].contains("elements are nested more than 128 levels deep here"),
        "{problems:?}"
    );
}

#[test]
fn malformed_xml_is_an_error_at_its_place() {
    assert_eq!(
        import_problems("<scxml>\n  <state id=\"a\">\n</scxml>"),
        ["error 3:1: malformed XML: expected 'state' tag, not 'scxml'"]
    );
    let empty = import_problems("");
    assert!(
        empty.len() == 1 && empty[0].starts_with("error 1:1: malformed XML"),
        "{empty:?}"
    );
    // A DTD could expand entities without bound: refused.
    let dtd = "<!DOCTYPE scxml [<!ENTITY a \"aaaa\">]><scxml/>";
    assert!(
        import_problems(dtd)[0].starts_with("error 1:1: malformed XML"),
        "{:?}",
        import_problems(dtd)
    );
    assert_eq!(
        import_problems("<machine/>"),
        ["error 1:1: the root element is <machine>, not <scxml>"]
    );
}

#[test]
fn what_fsmc_cannot_express_is_refused_at_its_element() {
    let cases: &[(&str, &str)] = &[
        ("<script>x = 1</script>", "error 2:22: <script> is not supported by fsmc"),
        ("<invoke src=\"other.scxml\"/>", "error 2:22: <invoke> is not supported by fsmc"),
        ("<onentry><raise event=\"go\"/></onentry>", "error 2:31: <raise> is not supported by fsmc"),
        ("<onentry><assign location=\"x\" expr=\"1\"/></onentry>", "error 2:31: <assign> is not supported by fsmc"),
        ("<onentry><foreach array=\"a\" item=\"i\"/></onentry>", "error 2:31: <foreach> is not supported by fsmc"),
        ("<datamodel><data id=\"x\" expr=\"1\"/></datamodel>", "error 2:22: <datamodel> is not supported by fsmc"),
        ("<transition event=\"error.*\" target=\"opened\"/>", "error 2:34: event `error.*` is a wildcard"),
        ("<transition event=\"*\"/>", "error 2:34: event `*` is a wildcard"),
        (
            "<transition event=\"go\" cond=\"_event.data.ok\" target=\"opened\"/>",
            "error 2:45: condition `_event.data.ok` is not one fsmc reads: `_event.` is an expression of the data model",
        ),
        (
            "<transition event=\"go\" cond=\"x &gt; 1\" target=\"opened\"/>",
            "error 2:45: condition `x > 1` is not one fsmc reads: unexpected `>`",
        ),
        ("<transition event=\"go\" target=\"opened closed\"/>", "error 2:45: the transition has 2 targets"),
        ("<onentry><send event=\"x\" target=\"http://example.com\"/></onentry>", "error 2:31: this <send> is not one fsmc reads"),
        ("<unknown/>", "error 2:22: <unknown> is not supported by fsmc"),
    ];
    for (body, expected) in cases {
        let problems = import_problems(&door(body));
        assert_eq!(
            problems.first().map(String::as_str),
            Some(*expected),
            "{body}: {problems:#?}"
        );
    }
}

#[test]
fn what_is_skipped_is_reported() {
    let text = door(
        "<onentry><log expr=\"'hi'\"/></onentry><qt:editorinfo xmlns:qt=\"http://www.qt.io/2015/02/scxml-ext\" geometry=\"1;2\"/>",
    );
    assert_eq!(
        import_problems(&text),
        [
            "warning 2:31: <log> is not imported",
            "warning 2:59: <editorinfo> of other namespaces are not imported",
        ]
    );
    let problems =
        import_problems(&door("").replace("<state id=\"opened\">", "<state id=\"opened\" foo=\"1\">"));
    assert_eq!(
        problems,
        ["warning 3:22: attribute `foo` of <state> is not imported"]
    );
}

#[test]
fn checks_of_the_imported_machine_point_at_the_element() {
    // `opend` is a typo for `opened`: reported at the transition's `target`.
    let text = door("").replace("target=\"opened\"", "target=\"opend\"");
    let errors = from_scxml(&text).unwrap_err();
    assert_eq!(errors[0].to_string(), "2:47: unknown state `opend`");
    assert_eq!(errors[0].help.as_deref(), Some("did you mean `opened`?"));
    assert_eq!(
        render("door.scxml", &errors[..1]),
        "error: unknown state `opend`\n  --> door.scxml:2:47\n  help: did you mean `opened`?\n\n"
    );
}

#[test]
fn hand_written_timers_history_and_eventless_transitions_import() {
    let text = r#"<?xml version="1.0"?>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="call" initial="idle">
  <state id="idle">
    <transition event="dial" target="connected"/>
  </state>
  <state id="connected" initial="talking">
    <onentry><send event="timeout" id="t" delay="1.5s"/></onentry>
    <onexit><cancel sendid="t"/></onexit>
    <transition event="timeout" target="idle"/>
    <transition event="hang_up" cond="!In('on_hold')" target="idle"/>
    <history id="h" type="deep"><transition target="talking"/></history>
    <state id="talking"><transition event="hold" target="on_hold"/></state>
    <state id="on_hold"><transition event="resume" target="h"/><transition cond="gone" target="done"/></state>
  </state>
  <final id="done"/>
</scxml>"#;
    let imported = from_scxml(text).unwrap_or_else(|d| panic!("{}", render("call.scxml", &d)));
    let source = &imported.source;
    assert!(source.contains("after 1500ms -> idle;"), "{source}");
    assert!(source.contains("on hang_up [!in(on_hold)] -> idle;"), "{source}");
    assert!(
        source.contains("on resume -> connected.deep_history;"),
        "{source}"
    );
    assert!(source.contains("always [gone] -> done;"), "{source}");
    assert!(source.contains("terminal state done;"), "{source}");
}

#[test]
fn an_export_reports_priorities_scxml_orders_differently() {
    let source = "machine M {
    initial state outer {
        on abort [urgent] priority 1 -> done;
        initial state inner {
            on abort [g] -> outer;
        }
    }
    terminal state done;
}
";
    let model = model_of(source, "interrupt");
    let exported = to_scxml(&model.machines[0]);
    let messages: Vec<&str> = exported.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(
        messages,
        ["`on abort priority 1` in `outer` is tried before the candidates of the states inside it in fsmc, but SCXML tries the innermost state's first"]
    );
    assert_eq!(
        &source[exported.warnings[0].span.start..exported.warnings[0].span.end],
        "on abort [urgent] priority 1 -> done;"
    );
    // Within one state, candidates are written in fsmc's order, and read back in declaration order.
    let source = "machine M {\n    initial state a {\n        on go -> b;\n        on go [g] priority 1 -> c;\n    }\n    state b {\n        on back -> a;\n    }\n    state c {\n        on back -> a;\n    }\n}\n";
    let exported = to_scxml(&model_of(source, "order").machines[0]);
    assert!(exported.warnings.is_empty());
    let first = exported.text.find("cond=\"g\"").unwrap();
    let second = exported.text.find("target=\"b\"").unwrap();
    assert!(first < second, "{}", exported.text);
    assert_scxml_round_trip(source, "order");
}
