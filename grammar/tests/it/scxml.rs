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
