//! Shared helpers for the workspace tests: where the `.fsm` fixtures and
//! examples live, listed in a fixed order so every test sees them the same way.

use std::path::{Path, PathBuf};

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives inside the workspace")
}

/// `tests/fixtures/`, holding `ok/`, `warn/` and `err/`.
pub fn fixtures_dir() -> PathBuf {
    workspace_root().join("tests").join("fixtures")
}

/// Every fixture, `tests/fixtures/*/*.fsm`, sorted by path.
pub fn fixture_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in subdirectories(&fixtures_dir()) {
        files.extend(fsm_files(&dir));
    }
    files.sort();
    files
}

/// Every `.fsm` file of the examples, sorted by path: those directly inside
/// `examples/` and those of the example crates (`examples/*/*.fsm`, such as
/// the HTTP/2 stream's).
pub fn example_files() -> Vec<PathBuf> {
    let examples = workspace_root().join("examples");
    let mut files = fsm_files(&examples);
    for dir in subdirectories(&examples) {
        files.extend(fsm_files(&dir));
    }
    files.sort();
    files
}

/// The `.fsm` files directly inside `dir`, sorted by path.
///
/// # Panics
///
/// When `dir` cannot be read: a test that silently found no files would pass
/// without testing anything.
pub fn fsm_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = read_dir(dir)
        .into_iter()
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "fsm"))
        .collect();
    files.sort();
    files
}

/// The random machines with nested states that `build.rs` draws (from
/// fixed seeds) and generates for the differential test, sorted by path.
pub fn random_files() -> Vec<PathBuf> {
    fsm_files(&Path::new(env!("OUT_DIR")).join("random"))
}

/// `path` relative to `base`, with `/` separators on every platform, for
/// names that must not depend on where the repository is checked out.
pub fn relative_name(path: &Path, base: &Path) -> String {
    let relative = path.strip_prefix(base).unwrap_or(path);
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn subdirectories(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = read_dir(dir).into_iter().filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

fn read_dir(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("cannot read an entry of {}: {e}", dir.display()))
                .path()
        })
        .collect()
}
