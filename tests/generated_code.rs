//! Snapshots of the Rust that code generation writes for every fixture that
//! checks without errors (`fixtures/ok` and `fixtures/warn`), formatted as
//! `fsmc build` writes it. A change to the generator shows up here as a
//! reviewable diff; the differential test checks that the code behaves.

use fsm_codegen::{render_source, Options};

#[test]
fn generated_code() {
    insta::glob!("fixtures/{ok,warn}/*.fsm", |path| {
        let text = std::fs::read_to_string(path).expect("fixture is readable");
        let file_name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("UTF-8 file name");
        let source = render_source(&text, file_name, &Options::default())
            .unwrap_or_else(|diagnostics| panic!("{file_name} has errors: {diagnostics:?}"));
        insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(source);
        });
    });
}

/// Properties are for `fsmc verify` alone: a machine's generated code is
/// the same with or without them, and so is the dynamic engine's run.
#[test]
fn properties_change_no_generated_code_and_no_run() {
    let plain = "machine Door {\n    initial state closed {\n        on open -> opened;\n    }\n    \
                 state opened {\n        on close -> closed;\n    }\n}\n";
    let with = plain.replacen(
        "}\n}\n",
        "}\n\n    property can_close: recoverable in(closed);\n    never in(opened) && terminal;\n}\n",
        1,
    );
    assert_ne!(plain, with);
    let render = |text: &str| render_source(text, "door.fsm", &Options::default()).expect("no errors");
    assert_eq!(render(plain), render(&with));

    let engine = |text: &str| {
        let machine = fsm_grammar::check(text).model.machines.remove(0);
        let definition = fsm_dynamic::Definition::from_machine(&machine);
        let engine = fsm_dynamic::Engine::new(definition).expect("nothing to bind");
        let mut states = vec![engine.state_name().to_string()];
        for action in ["open", "close", "open"] {
            engine
                .fire(action, &serde_json::Value::Null)
                .expect("a known action");
            states.push(engine.state_name().to_string());
        }
        states
    };
    assert_eq!(engine(plain), engine(&with));
}
