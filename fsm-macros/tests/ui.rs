//! trybuild UI tests: what users see in `cargo build`.
//!
//! One case per diagnostic code, named after it (`unknown-state` →
//! `tests/ui/unknown_state.rs`), each showing the diagnostic on the exact
//! token; the checks over the tree of nested states, named after the code
//! (`nested_dead_end.rs`), and further variants of a code
//! (`terminal_has_transitions_after.rs`); the cases of the `file = "..."`
//! form; the errors rustc reports in code around a generated machine
//! (`rustc_*.rs`); and the cases that must build.
//! The cases that build deny warnings, so a passing run prints nothing:
//! trybuild shows the warnings of such a case in a `WARNINGS:` block that
//! reads like a failure.
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test -p
//! fsm-macros --test ui`, then read every changed `.stderr`.

use fsm_grammar::Code;
use std::fs;
use std::path::Path;

#[test]
fn ui() {
    install_fixtures();
    // trybuild's project takes no profile from the workspace: its own build
    // of fsm-macros and every dependency would carry full debug info, which
    // nothing here reads, and a sixth of this test's time in CI goes to
    // writing it. The workspace's `debug = "line-tables-only"` instead (the
    // cargo that trybuild runs inherits this process's environment).
    if std::env::var_os("CARGO_PROFILE_DEV_DEBUG").is_none() {
        std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "line-tables-only");
    }
    let cases = trybuild::TestCases::new();
    // Every code has its case: a new code without one fails here, because
    // trybuild reports a case file that does not exist. But `too-many-states`,
    // whose machine of 65,537 states takes the debug proc macro minutes to
    // read: the fixture test `fixtures::too_many_states` holds its
    // diagnostic, which `fsm!` reports as it reports every other.
    for code in Code::ALL.iter().filter(|&&code| code != Code::TooManyStates) {
        cases.compile_fail(format!("tests/ui/{}.rs", code.name().replace('-', "_")));
    }
    cases.compile_fail("tests/ui/file_*.rs");
    cases.compile_fail("tests/ui/form_*.rs");
    cases.compile_fail("tests/ui/warning_level.rs");
    cases.compile_fail("tests/ui/generic_*.rs");
    // The checks over the tree, beside each code's flat case.
    cases.compile_fail("tests/ui/nested_*.rs");
    cases.compile_fail("tests/ui/terminal_has_transitions_after.rs");
    // Errors rustc reports in the user's code around a generated machine:
    // they point at the declaration concerned and name what is missing.
    cases.compile_fail("tests/ui/rustc_*.rs");
    cases.pass("tests/ui/pass_*.rs");
}

/// trybuild prints the warnings of a case that builds, so every such case
/// denies them: one that warns fails instead of cluttering a passing run.
#[test]
fn the_cases_that_build_deny_warnings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut checked = 0;
    for entry in fs::read_dir(&dir).expect("tests/ui exists") {
        let path = entry.expect("list tests/ui").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if !(name.starts_with("pass_") && name.ends_with(".rs")) {
            continue;
        }
        let text = fs::read_to_string(&path).expect("read a case");
        assert!(
            text.lines().any(|line| line.starts_with("#![deny(warnings")),
            "{name} must start with `#![deny(warnings)]`"
        );
        checked += 1;
    }
    assert!(checked >= 3, "found only {checked} passing cases");
}

/// `file = "..."` paths are relative to the crate root, which for the cases is
/// trybuild's project under `<target>/tests/trybuild/fsm-macros`: the
/// fixtures of `tests/ui/machines` go there, so the cases name them as users
/// would (`file = "machines/door.fsm"`).
fn install_fixtures() {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is a directory inside the target directory");
    let installed = target.join("tests/trybuild/fsm-macros/machines");
    fs::create_dir_all(&installed).expect("create the fixture directory");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/machines");
    for entry in fs::read_dir(&fixtures).expect("tests/ui/machines exists") {
        let path = entry.expect("list tests/ui/machines").path();
        let name = path.file_name().expect("a listed file has a name");
        fs::copy(&path, installed.join(name)).expect("copy a fixture");
    }
}
