//! The guide's build script (docs/rust.md) is this crate's `build.rs`, so what users copy
//! is what the tests build: one that fails the build with the diagnostics,
//! not with a panic and a backtrace.

use std::path::Path;

/// The `fn main` of a Rust source text, from its line to the closing brace.
fn main_fn(text: &str) -> Option<String> {
    let start = text.find("fn main() {")?;
    let end = start + text[start..].find("\n}")? + 2;
    Some(text[start..end].to_string())
}

#[test]
fn the_readme_shows_this_build_script() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let build = std::fs::read_to_string(root.join("build.rs")).expect("build.rs");
    let readme = std::fs::read_to_string(root.join("../../docs/rust.md")).expect("docs/rust.md");
    let section = readme
        .split("\n## A build script\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/rust.md has a section `## A build script`");
    let block = section
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the section shows a Rust block");
    let shown = main_fn(block).expect("the README's block has a `fn main`");
    assert_eq!(Some(shown.clone()), main_fn(&build));
    assert!(
        shown.contains("compile_or_exit") && !shown.contains("panic!"),
        "the README's build script must fail without a panic:\n{shown}"
    );
}
