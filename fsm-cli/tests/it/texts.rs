//! What fsmc prints and what its documents say refers only to things a user
//! can look up. The design notes the project grew from are not published, so
//! "seed 004's format" or "the issue that defines the language" tell a reader
//! nothing: each thing is described in its own words ("the
//! `execution_fsm_v1.json` format", "the string-keyed strategy design").

use crate::harness;

use harness::Scratch;
use std::fs;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The lines of `text` that point at something a user cannot look up: a
/// design note by number ("seed 004", "seed `000`", "the seed's"), or the
/// issue tracker ("the issue that defines", "issue 4", "issue #4").
fn references(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| {
            let line = line.to_lowercase();
            let followed_by_number = |word: &str| {
                line.match_indices(word).any(|(at, _)| {
                    let rest = line[at + word.len()..].trim_start_matches('`');
                    rest.starts_with(|c: char| c.is_ascii_digit() || c == '#')
                })
            };
            ["the seed", "seed's", "the issue"]
                .iter()
                .any(|phrase| line.contains(phrase))
                || followed_by_number("seed ")
                || followed_by_number("issue ")
        })
        .map(|line| line.trim().to_owned())
        .collect()
}

/// The `.fsm` files and crate manifests under `dir`, skipping build output.
fn example_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "target") {
                example_files(&path, found);
            }
        } else if path.extension().is_some_and(|ext| ext == "fsm")
            || path.file_name().is_some_and(|name| name == "Cargo.toml")
        {
            found.push(path);
        }
    }
}

/// Every document a user reads: the README, `docs/`, the benchmark README,
/// and the examples' machines and package descriptions.
fn documents() -> Vec<PathBuf> {
    let root = workspace();
    let mut files = vec![root.join("README.md"), root.join("bench/README.md")];
    // The texts of docs/: Markdown and the JSON schema, not its pictures.
    for entry in fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md" || e == "json") {
            files.push(path);
        }
    }
    example_files(&root.join("examples"), &mut files);
    files.sort();
    files
}

fn relative(path: &Path) -> String {
    let root = workspace().canonicalize().unwrap();
    let path = path.canonicalize().unwrap();
    path.strip_prefix(&root)
        .unwrap_or(&path)
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn the_detector_finds_what_it_is_for() {
    let found = |text: &str| !references(text).is_empty();
    assert!(found(
        "The format is the shape of seed 004's `execution_fsm_v1.json`"
    ));
    assert!(found("the semantics of the FSM strategy in seed `000`"));
    assert!(found(
        "The issue that defines the language leaves some questions open."
    ));
    assert!(found("the design issue 4's engine replaces"));
    assert!(found("as in the seed"));
    assert!(!found("Add the fixtures to seed the corpus."));
    assert!(!found("the string-keyed strategy design"));
}

#[test]
fn documents_describe_things_in_their_own_words() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for path in documents() {
        let name = relative(&path);
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let found = references(&text);
        checked += 1;
        problems.extend(found.into_iter().map(|line| format!("{name}: {line}")));
    }
    assert!(checked >= 10, "only {checked} documents found");
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn help_and_explanations_describe_things_in_their_own_words() {
    let dir = Scratch::new();
    let main = dir.fsmc(&["--help"]).expect(0).stdout();
    let commands: Vec<String> = main
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|command| *command != "help")
        .map(str::to_owned)
        .collect();
    assert!(commands.len() >= 8, "{commands:?} from {main}");
    let list = dir.fsmc(&["explain"]).expect(0).stdout();
    // A code's line in the list starts with two spaces, then the code.
    let codes: Vec<&str> = list
        .lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(codes.contains(&"unknown-state"), "{list}");

    let mut texts = vec![
        ("fsmc --help".to_owned(), main.clone()),
        ("fsmc explain".to_owned(), list.clone()),
    ];
    for command in &commands {
        let help = dir.fsmc(&[command, "--help"]).expect(0).stdout();
        texts.push((format!("fsmc {command} --help"), help));
    }
    for code in &codes {
        let text = dir.fsmc(&["explain", code]).expect(0).stdout();
        texts.push((format!("fsmc explain {code}"), text));
    }
    let problems: Vec<String> = texts
        .iter()
        .flat_map(|(what, text)| {
            references(text)
                .into_iter()
                .map(move |line| format!("{what}: {line}"))
        })
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
}
