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
