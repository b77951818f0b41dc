//! The guide's examples that are a test's body: the body a marker comment
//! opens, and the first Rust block of a guide page (docs/nested-states.md,
//! docs/parallel-states.md; they were the README's sections).

/// Asserts that the first Rust block of the guide page `# {section}`
/// is exactly the body of the test in `test` (its source) that follows the
/// line `    // README: {marker} (from here to the end of this function)`,
/// unindented.
pub fn assert_readme_shows(test: &str, marker: &str, section: &str) {
    let opening = format!("    // README: {marker} (from here to the end of this function)\n");
    let body = test
        .split(opening.as_str())
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("the marked body");
    let shown: String = body
        .lines()
        .map(|line| line.strip_prefix("    ").unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    let readme = concat!(
        include_str!("../../../docs/nested-states.md"),
        include_str!("../../../docs/parallel-states.md"),
    );
    let section = readme
        .split(format!("# {section}\n").as_str())
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_else(|| panic!("the guide has a page `# {section}`"));
    let block = section
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("the section shows a Rust block");
    assert_eq!(block, shown);
}
