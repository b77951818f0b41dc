//! The fixture suite. Every `fixtures/{ok,warn,err}/*.fsm` is checked, and the
//! model it lowers to is snapshotted together with its rendered diagnostics,
//! so one review covers both.
//!
//! The directory states the fixture's intent, and the test asserts it before
//! comparing snapshots: `ok/` gives no diagnostic at all, `warn/` gives
//! warnings only, and `err/` gives at least one error. A fixture named after a
//! code (`err/unknown-state.fsm`, `err/syntax-bad-guard.fsm`) must report that
//! code, and every code must have a fixture. The `.fsm` files directly under
//! `examples/` (the machines the example crates run) must check clean.

use fsm_grammar::model::Machine;
use fsm_grammar::{check, report, Checked, Code, Diagnostic};
use fsm_tests::{example_files, fixture_files, fixtures_dir, relative_name, workspace_root};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// The column at which rendered diagnostics wrap, fixed so snapshots do not
/// depend on the terminal.
const WIDTH: usize = 100;

/// The machines that `examples/` must hold.
const EXAMPLE_MACHINES: &[&str] = &[
    "agent_loop.fsm",
    "execution.fsm",
    "pipeline.fsm",
    "review.fsm",
    "router.fsm",
];

#[test]
fn fixtures() {
    // The snapshots are named after this function, so both globs assert here.
    let check = |path: &Path| {
        let fixture = Fixture::load(path, &fixtures_dir());
        if let Err(problem) = fixture.intent_holds() {
            panic!("{}: {problem}\n\n{}", fixture.name, fixture.rendered());
        }
        insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(fixture.snapshot());
        });
    };
    insta::glob!("fixtures/*/*.fsm", check);
}

/// The codes whose fixture would be too large to keep (a machine of 65,537
/// states is 700 KB, and its model's snapshot larger): the machine is
/// written by the test named after the code, below.
const GENERATED: &[Code] = &[Code::TooManyStates];

/// A machine of `n` states, the first initial, each a leaf.
fn states(n: usize) -> String {
    let mut text = String::from("machine Huge {\n    initial state s0;\n");
    for i in 1..n {
        let _ = writeln!(text, "    state s{i};");
    }
    text.push_str("}\n");
    text
}

#[test]
fn too_many_states() {
    let text = states(65_537);
    let checked = check(&text);
    let codes: Vec<Code> = checked.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::TooManyStates], "no other check runs on it");
    let d = &checked.diagnostics[0];
    assert_eq!(&text[d.span.start..d.span.end], "Huge", "on the machine's name");
    assert_eq!(
        d.message,
        "machine `Huge` has 65,537 states, more than the 65,536 a machine may have"
    );
    // At the limit, it is not reported.
    let checked = check(&states(65_536));
    assert!(
        !checked.diagnostics.iter().any(|d| d.code == Code::TooManyStates),
        "{:?}",
        checked.diagnostics.first()
    );
}

#[test]
fn every_code_has_a_fixture() {
    let mut seen: BTreeSet<Code> = GENERATED.iter().copied().collect();
    for path in fixture_files() {
        let fixture = Fixture::load(&path, &fixtures_dir());
        seen.extend(fixture.checked.diagnostics.iter().map(|d| d.code));
    }
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !seen.contains(c))
        .map(|c| c.name())
        .collect();
    assert!(
        missing.is_empty(),
        "no fixture under tests/fixtures/ produces these codes: {}",
        missing.join(", ")
    );
}

#[test]
fn fixtures_named_after_a_code_report_it() {
    let mut named: BTreeSet<Code> = GENERATED.iter().copied().collect();
    for path in fixture_files() {
        let fixture = Fixture::load(&path, &fixtures_dir());
        let Some(code) = fixture.named_code() else {
            continue;
        };
        named.insert(code);
        assert!(
            fixture.checked.diagnostics.iter().any(|d| d.code == code),
            "{} is named after `{}` but does not report it\n\n{}",
            fixture.name,
            code.name(),
            fixture.rendered()
        );
    }
    let unnamed: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !named.contains(c))
        .map(|c| c.name())
        .collect();
    assert!(
        unnamed.is_empty(),
        "no fixture in warn/ or err/ is named after these codes: {}",
        unnamed.join(", ")
    );
}

#[test]
fn examples_check_clean() {
    let files = example_files();
    let names: Vec<String> = files
        .iter()
        .map(|p| relative_name(p, &workspace_root().join("examples")))
        .collect();
    for machine in EXAMPLE_MACHINES {
        assert!(
            names.iter().any(|n| n == machine),
            "examples/{machine} is missing; found {names:?}"
        );
    }
    for path in &files {
        let fixture = Fixture::load(path, workspace_root());
        assert!(
            fixture.checked.diagnostics.is_empty(),
            "{} must check clean\n\n{}",
            fixture.name,
            fixture.rendered()
        );
        assert!(
            !fixture.checked.model.machines.is_empty(),
            "{} defines no machine",
            fixture.name
        );
    }
}

/// What a fixture's directory says it must produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Intent {
    /// `ok/`: no diagnostic at all.
    Clean,
    /// `warn/`: at least one diagnostic, all warnings.
    WarningsOnly,
    /// `err/`: at least one error.
    Errors,
}

/// One checked `.fsm` file.
struct Fixture {
    /// The path relative to the fixtures directory (or the workspace), with
    /// `/` separators: stable wherever the repository is checked out.
    name: String,
    source: String,
    checked: Checked,
}

impl Fixture {
    fn load(path: &Path, base: &Path) -> Self {
        let source =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let checked = check(&source);
        Fixture {
            name: relative_name(path, base),
            source,
            checked,
        }
    }

    fn intent(&self) -> Intent {
        match self.name.split('/').next() {
            Some("ok") => Intent::Clean,
            Some("warn") => Intent::WarningsOnly,
            Some("err") => Intent::Errors,
            _ => panic!(
                "{}: fixtures live in ok/, warn/ or err/ under tests/fixtures/",
                self.name
            ),
        }
    }

    /// Whether the diagnostics match the directory, and if not, why.
    fn intent_holds(&self) -> Result<(), String> {
        let diagnostics = &self.checked.diagnostics;
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        match self.intent() {
            Intent::Clean if !diagnostics.is_empty() => Err(format!(
                "a fixture in ok/ must give no diagnostic, got {}",
                counts(diagnostics)
            )),
            Intent::WarningsOnly if diagnostics.is_empty() => {
                Err("a fixture in warn/ must give at least one warning, got none".into())
            }
            Intent::WarningsOnly if errors > 0 => Err(format!(
                "a fixture in warn/ must give warnings only, got {}",
                counts(diagnostics)
            )),
            Intent::Errors if errors == 0 => Err(format!(
                "a fixture in err/ must give at least one error, got {}",
                counts(diagnostics)
            )),
            _ => Ok(()),
        }
    }

    /// The code a `warn/` or `err/` fixture is named after: the longest code
    /// name that is the file stem or a `-`-separated prefix of it.
    fn named_code(&self) -> Option<Code> {
        if self.intent() == Intent::Clean {
            return None;
        }
        let stem = self.name.rsplit('/').next()?.strip_suffix(".fsm")?;
        Code::ALL
            .iter()
            .copied()
            .filter(|c| {
                stem == c.name()
                    || stem
                        .strip_prefix(c.name())
                        .is_some_and(|rest| rest.starts_with('-'))
            })
            .max_by_key(|c| c.name().len())
    }

    /// The diagnostics as the CLI shows them, without colour, at a fixed width.
    fn rendered(&self) -> String {
        report::human(&self.name, &self.source, &self.checked.diagnostics, WIDTH, false)
    }

    /// The model, machine by machine, then the diagnostics, separated by
    /// blank lines.
    fn snapshot(&self) -> String {
        let mut sections: Vec<String> = self.checked.model.machines.iter().map(describe).collect();
        if sections.is_empty() {
            sections.push("no machines\n".into());
        }
        let diagnostics = &self.checked.diagnostics;
        sections.push(if diagnostics.is_empty() {
            "no diagnostics\n".into()
        } else {
            format!("{}\n\n{}", counts(diagnostics), self.rendered())
        });
        sections.join("\n")
    }
}

/// A machine as its canonical form and fingerprint, plus what the canonical
/// form leaves out but fixtures exercise: doc comments and `#[allow]`s.
fn describe(m: &Machine) -> String {
    let mut out = format!("{}fingerprint {}\n", m.canonical(), m.fingerprint());
    let mut notes = Vec::new();
    let allows = |codes: &[Code]| codes.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ");
    if !m.allows.is_empty() {
        notes.push(format!("allow machine: {}", allows(&m.allows)));
    }
    for s in m.states.iter().filter(|s| !s.allows.is_empty()) {
        notes.push(format!("allow state {}: {}", s.name, allows(&s.allows)));
    }
    let mut docs = |what: String, lines: &[String]| {
        if !lines.is_empty() {
            notes.push(format!("docs {what}: {:?}", lines));
        }
    };
    docs(format!("machine {}", m.name), &m.docs);
    for s in &m.states {
        docs(format!("state {}", s.name), &s.docs);
    }
    for (kind, symbols) in [
        ("action", &m.actions),
        ("guard", &m.guards),
        ("output", &m.outputs),
    ] {
        for symbol in symbols {
            docs(format!("{kind} {}", symbol.name), &symbol.docs);
        }
    }
    for (i, t) in m.transitions.iter().enumerate() {
        docs(
            format!(
                "transition {i} (on {})",
                m.actions[t.expect_action().index()].name
            ),
            &t.docs,
        );
    }
    // Properties are no part of the canonical form (nor the fingerprint).
    let mut properties = Vec::new();
    for p in &m.properties {
        let name = p.name.as_deref().map(|n| format!(" {n}:")).unwrap_or_default();
        properties.push(format!(
            "property{name} {} at {}..{}",
            p.text(m),
            p.span.start,
            p.span.end
        ));
        docs(format!("property {}", p.label(m)), &p.docs);
    }
    notes.extend(properties);
    for note in notes {
        let _ = writeln!(out, "{note}");
    }
    out
}

/// `2 errors, 1 warning`.
fn counts(diagnostics: &[Diagnostic]) -> String {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    let plural = |n: usize, noun: &str| format!("{n} {noun}{}", if n == 1 { "" } else { "s" });
    format!("{}, {}", plural(errors, "error"), plural(warnings, "warning"))
}
