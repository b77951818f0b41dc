//! The language documents stay true to the front end.
//!
//! - `docs/diagnostics.md` has one `## code` section per code, in the order of
//!   `Code::ALL`, each stating the code's severity, and the first example of
//!   each section reports it.
//! - Those sections are exactly `fsm-cli/src/explain.md`, the text
//!   `fsmc explain` prints (reports say ``run `fsmc explain CODE` ``).
//! - Every complete machine shown in `docs/dsl.md` checks clean, and its
//!   canonical-form example is exactly what `Machine::canonical` prints.

use fsm_grammar::{check, Code, Severity};
use fsm_tests::workspace_root;

fn read_doc(name: &str) -> String {
    let path = workspace_root().join("docs").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A level-two section of a markdown text: its heading and its body.
struct Section<'a> {
    heading: &'a str,
    body: &'a str,
}

fn sections(text: &str) -> Vec<Section<'_>> {
    let mut starts: Vec<usize> = text.match_indices("\n## ").map(|(i, _)| i + 1).collect();
    starts.push(text.len());
    starts
        .windows(2)
        .map(|w| {
            let section = &text[w[0]..w[1]];
            let (heading, body) = section.split_once('\n').unwrap_or((section, ""));
            Section {
                heading: heading.trim_start_matches("## ").trim(),
                body,
            }
        })
        .collect()
}

/// The contents of the ```` ```fsm ```` blocks of a markdown text, in order.
fn fsm_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```fsm\n") {
        let body = &rest[start + "```fsm\n".len()..];
        let end = body.find("```").expect("every fsm block is closed");
        blocks.push(&body[..end]);
        rest = &body[end + 3..];
    }
    blocks
}

/// A `//` comment that is not a `///` doc comment.
fn is_plain_comment(line: &str) -> bool {
    line.starts_with("//") && !line.starts_with("///")
}

/// True for a block that is a whole file rather than a fragment of a machine.
fn is_complete_file(block: &str) -> bool {
    let first = block
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !is_plain_comment(l));
    first.is_some_and(|l| l.starts_with("machine") || l.starts_with("#[") || l.starts_with("///"))
}

#[test]
fn diagnostics_md_has_a_section_per_code_in_catalogue_order() {
    let text = read_doc("diagnostics.md");
    let headings: Vec<&str> = sections(&text).iter().map(|s| s.heading).collect();
    let codes: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(
        headings, codes,
        "docs/diagnostics.md must have exactly one `## code` section per code, in the order of Code::ALL"
    );
}

/// Set to rewrite `docs/diagnostics.md` from `fsm-cli/src/explain.md`.
const UPDATE_DOCS: &str = "FSMC_UPDATE_DOCS";

#[test]
fn diagnostics_md_sections_are_what_fsmc_explain_prints() {
    let root = workspace_root();
    let source_path = root.join("fsm-cli/src/explain.md");
    let source = std::fs::read_to_string(&source_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", source_path.display()));
    let doc_path = root.join("docs/diagnostics.md");
    let doc = read_doc("diagnostics.md");
    let first_section = doc
        .find("\n## ")
        .map(|at| at + 1)
        .expect("docs/diagnostics.md has sections");
    let (intro, sections) = doc.split_at(first_section);
    if sections == source {
        return;
    }
    if std::env::var_os(UPDATE_DOCS).is_some() {
        std::fs::write(&doc_path, format!("{intro}{source}"))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", doc_path.display()));
        return;
    }
    let line = sections
        .lines()
        .zip(source.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| sections.lines().count().min(source.lines().count()));
    panic!(
        "the code sections of docs/diagnostics.md differ from fsm-cli/src/explain.md, the text \
         `fsmc explain` prints, from its line {} on:\n  docs: {:?}\n  explain.md: {:?}\n\
         Edit fsm-cli/src/explain.md and copy it into the docs with \
         `{UPDATE_DOCS}=1 cargo test -p fsm-tests --test docs`.",
        line + 1,
        sections.lines().nth(line).unwrap_or("(end)"),
        source.lines().nth(line).unwrap_or("(end)"),
    );
}

#[test]
fn diagnostics_md_states_each_severity_and_shows_each_code() {
    let text = read_doc("diagnostics.md");
    for section in sections(&text) {
        let code = Code::from_name(section.heading)
            .unwrap_or_else(|| panic!("`## {}` is not a diagnostic code", section.heading));
        let severity = match code.default_severity() {
            Severity::Error => "**Error.**",
            Severity::Warning => "**Warning.**",
        };
        assert!(
            section.body.trim_start().starts_with(severity),
            "the `{}` section must open with {severity}",
            code.name()
        );
        let example = fsm_blocks(section.body)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("the `{}` section has no ```fsm example", code.name()));
        assert!(
            is_complete_file(example),
            "the first example of `{}` must be a whole file:\n{example}",
            code.name()
        );
        let checked = check(example);
        assert!(
            checked.diagnostics.iter().any(|d| d.code == code),
            "the first example of `{}` does not report it; it reports {:?}:\n{example}",
            code.name(),
            checked
                .diagnostics
                .iter()
                .map(|d| d.code.name())
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn dsl_md_examples_check_clean() {
    let text = read_doc("dsl.md");
    let complete: Vec<&str> = fsm_blocks(&text)
        .into_iter()
        .filter(|b| is_complete_file(b))
        .collect();
    assert!(
        complete.len() >= 8,
        "dsl.md shows only {} complete machines",
        complete.len()
    );
    for block in complete {
        let checked = check(block);
        assert!(
            checked.diagnostics.is_empty(),
            "this example of docs/dsl.md does not check clean: {:?}\n{block}",
            checked
                .diagnostics
                .iter()
                .map(|d| format!("{}: {}", d.code.name(), d.message))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn dsl_md_canonical_example_is_exact() {
    let text = read_doc("dsl.md");
    let section = sections(&text)
        .into_iter()
        .find(|s| s.heading == "The canonical form and the fingerprint")
        .expect("dsl.md has a section on the canonical form");
    let machine = fsm_blocks(section.body)[0];
    let shown = section
        .body
        .split_once("```text\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("the section shows the canonical form in a ```text block");
    let checked = check(machine);
    assert!(
        checked.diagnostics.is_empty(),
        "the canonical-form example must check clean"
    );
    assert_eq!(checked.model.machines[0].canonical(), shown);
}
