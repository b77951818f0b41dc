//! The README, the user guide (`docs/README.md` and the guide pages it
//! lists) and the reference pages it lists stay true: every code block is
//! tested. (Of the references, `diagnostics.md`'s machines are the text of
//! `fsmc explain` and have a test of their own, in `docs.rs`; `fleet.md`'s
//! transcripts are run by fsm-cli's `fleet.rs`, on a fleet it builds.)
//!
//! - A ```` ```fsm ```` block checks clean and is in `fsmc fmt` layout, or
//!   says what it is in its fence: ```` ```fsm,error=CODE ```` (or
//!   `warning=CODE`) reports that code, and ```` ```fsm,excerpt=PATH ```` is
//!   an excerpt of that file (each of its lines without `...` is a line of the
//!   file, in order), and ```` ```fsm,fragment ```` is a part of a machine
//!   (declarations, states, or transitions) that parses and is in `fsmc fmt`
//!   layout put in a machine or a state.
//! - A ```` ```rust ```` block is the text of a test or an example that is
//!   built and run (found verbatim, or uniformly indented, in a `.rs` file of
//!   the workspace, in a doc comment's example, or, for a declaration shown
//!   without its doc comments, in a file without them), except the README's quick
//!   start, which a test builds and runs as the README says, comparing what
//!   it prints, and what `cargo build` says of it with a typo and with an
//!   unreachable state (docs/rust.md).
//! - A ```` ```text ```` block opening with `$ fsmc` is a transcript: it is
//!   run with the real binary (its words split as a shell splits them, `'...'`
//!   included, in a directory holding the machines of docs/verifying.md and
//!   docs/testing.md) and
//!   compared (`fsmc run` sessions are run by
//!   fsm-cli's `run.rs`, `fsmc build --check` by its `build.rs`, `fsmc fleet`
//!   by its `fleet.rs`).
//! - The README's set-up commands are CI's, its picture is what `fsmc graph`
//!   draws, it stays short, and every relative link of these pages leads to a
//!   file and a heading that exist.

use std::path::{Path, PathBuf};
use std::process::Command;

use fsm_grammar::{check, format::format, Code};
use fsm_tests::workspace_root;

/// A fenced code block: its fence's info string split at commas, its text
/// (unindented as far as the fence is), and the line of its fence.
#[derive(Debug)]
struct Block {
    lang: String,
    attrs: Vec<String>,
    body: String,
    line: usize,
}

impl Block {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find_map(|a| a.strip_prefix(name).and_then(|rest| rest.strip_prefix('=')))
    }
}

fn blocks(text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((at, line)) = lines.next() {
        let trimmed = line.trim_start();
        let Some(info) = trimmed.strip_prefix("```") else {
            continue;
        };
        let indent = line.len() - trimmed.len();
        let mut parts = info.split(',').map(str::trim);
        let lang = parts.next().unwrap_or("").to_string();
        let attrs = parts.map(str::to_string).collect();
        let mut body = String::new();
        for (_, line) in lines.by_ref() {
            if line.trim() == "```" {
                break;
            }
            body.push_str(line.get(indent..).unwrap_or(line.trim_start()));
            body.push('\n');
        }
        found.push(Block {
            lang,
            attrs,
            body,
            line: at + 1,
        });
    }
    found
}

/// The pages the index links to under `## {heading}`, as paths from the
/// repository's root.
fn index_section(heading: &str) -> Vec<String> {
    let index = read("docs/README.md");
    let list = index
        .split_once(&format!("\n## {heading}\n"))
        .and_then(|(_, rest)| rest.split("\n## ").next())
        .unwrap_or_else(|| panic!("docs/README.md has a section `## {heading}`"));
    list.split("](")
        .skip(1)
        .map(|rest| format!("docs/{}", &rest[..rest.find(')').unwrap()]))
        .collect()
}

/// The guide's pages, as the index lists them under `## Guide`.
fn guide_pages() -> Vec<String> {
    let pages = index_section("Guide");
    assert!(pages.len() >= 10, "the guide lists only {pages:?}");
    pages
}

/// The reference pages, as the index lists them under `## Reference`.
fn reference_pages() -> Vec<String> {
    let pages: Vec<String> = index_section("Reference")
        .into_iter()
        .filter(|page| page.ends_with(".md"))
        .collect();
    assert!(pages.len() >= 7, "the references are only {pages:?}");
    pages
}

/// The README, the guide's index and its pages.
fn documents() -> Vec<String> {
    let mut all = vec!["README.md".to_string(), "docs/README.md".to_string()];
    all.extend(guide_pages());
    all
}

fn read(relative: &str) -> String {
    let path = workspace_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

#[test]
fn the_index_lists_every_page_of_docs() {
    let index = read("docs/README.md");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(workspace_root().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "README.md" && !index.contains(&format!("]({name})")) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "docs/README.md does not link {missing:?}");
}

#[test]
fn fsm_blocks_check_clean_and_are_formatted() {
    let mut problems = Vec::new();
    let mut checked = 0;
    // The references too, but diagnostics.md: its blocks are the text of
    // `fsmc explain` (fsm-cli/src/explain.md), and its own test checks that
    // the first of each section reports the section's code.
    let references = reference_pages()
        .into_iter()
        .filter(|page| page != "docs/diagnostics.md");
    for doc in documents().into_iter().chain(references) {
        for block in blocks(&read(&doc)).into_iter().filter(|b| b.lang == "fsm") {
            checked += 1;
            let at = format!("{doc}:{}", block.line);
            if block.attrs.iter().any(|a| a == "fragment") {
                if let Some(problem) = not_a_fragment(&block.body) {
                    problems.push(format!("{at}: {problem}"));
                }
                continue;
            }
            if let Some(path) = block.attr("excerpt") {
                if let Some(line) = not_an_excerpt(&block.body, &read(path)) {
                    problems.push(format!("{at}: line {line:?} is not in {path}, in order"));
                }
                continue;
            }
            let reported: Vec<&str> = check(&block.body)
                .diagnostics
                .iter()
                .map(|d| d.code.name())
                .collect();
            match block.attr("error").or(block.attr("warning")) {
                Some(code) => {
                    assert!(Code::from_name(code).is_some(), "{at}: `{code}` is no code");
                    if !reported.contains(&code) {
                        problems.push(format!("{at}: expected `{code}`, reported {reported:?}"));
                    }
                }
                None => {
                    if !reported.is_empty() {
                        problems.push(format!("{at}: does not check clean: {reported:?}"));
                    }
                    match format(&block.body) {
                        Ok(formatted) if formatted == block.body => {}
                        Ok(formatted) => problems.push(format!(
                            "{at}: not in `fsmc fmt` layout; it would be:\n{formatted}"
                        )),
                        Err(_) => problems.push(format!("{at}: does not format")),
                    }
                }
            }
        }
    }
    assert!(checked >= 3, "only {checked} fsm blocks");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What is wrong with a ```` ```fsm,fragment ````: put in a machine's body
/// (or, for transitions, in its initial state's), it must parse (it may name
/// what it does not declare) and be laid out as `fsmc fmt` lays it out there.
fn not_a_fragment(fragment: &str) -> Option<String> {
    let indented = |pad: &str| -> String {
        fragment
            .lines()
            .map(|l| {
                if l.is_empty() {
                    "\n".to_string()
                } else {
                    format!("{pad}{l}\n")
                }
            })
            .collect()
    };
    let places = [
        ("machine M {\n", "    ", "}\n"),
        ("machine M {\n    initial state s {\n", "        ", "    }\n}\n"),
    ];
    for (open, pad, close) in places {
        let whole = format!("{open}{}{close}", indented(pad));
        let checked = check(&whole);
        if checked.diagnostics.iter().any(|d| d.code.name() == "syntax") {
            continue;
        }
        return match format(&whole) {
            Ok(formatted) if formatted == whole => None,
            Ok(formatted) => Some(format!(
                "this fragment is not in `fsmc fmt` layout; in a machine it would be:\n{formatted}"
            )),
            Err(_) => Some("this fragment does not format".to_string()),
        };
    }
    Some("this fragment is not a part of a machine's body, nor of a state's".to_string())
}

/// The first line of `excerpt` that is not in `file` after the previous one,
/// both read without comments and with all white space as one space (the
/// excerpt may put on one line what the file spreads over several); a line
/// with `...` stands for what it elides, and only its text before `...`
/// counts.
fn not_an_excerpt<'a>(excerpt: &'a str, file: &str) -> Option<&'a str> {
    let normal = |text: &str| -> String {
        let words: Vec<&str> = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or(""))
            .flat_map(str::split_whitespace)
            .collect();
        words.join(" ")
    };
    let file = normal(file);
    let mut at = 0;
    for line in excerpt.lines() {
        let wanted = normal(line.split("...").next().unwrap_or(""));
        if wanted.is_empty() {
            continue;
        }
        match file[at..].find(&wanted) {
            Some(found) => at += found + wanted.len(),
            None => return Some(line),
        }
    }
    None
}

/// Every `.rs` file of the workspace that is built (not under `target/`,
/// `bench/`, which CI does not build, or hidden directories).
fn rust_sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !(name.starts_with('.') || name == "target" || name == "bench" || name == "node_modules") {
                rust_sources(&path, found);
            }
        } else if name.ends_with(".rs") {
            found.push(path);
        }
    }
}

/// True when `source` holds `block`, each of its lines indented alike, or
/// as the lines of a doc comment's example (a doctest, which `cargo test`
/// runs), or as a declaration shown without its doc comments (a trait of a
/// crate, as docs/durability.md shows `Store`).
fn holds(source: &str, block: &str) -> bool {
    holds_as_is(source, block) || {
        let undocumented: String = source
            .lines()
            .filter(|line| !line.trim_start().starts_with("///"))
            .flat_map(|line| [line, "\n"])
            .collect();
        holds_as_is(&undocumented, block)
    }
}

fn holds_as_is(source: &str, block: &str) -> bool {
    let prefixed = |pad: &str, empty: &str| -> String {
        block
            .lines()
            .map(|l| {
                if l.is_empty() {
                    format!("{empty}\n")
                } else {
                    format!("{pad}{l}\n")
                }
            })
            .collect()
    };
    let doc = ["/// ", "//! "]
        .iter()
        .any(|pad| source.contains(&prefixed(pad, pad.trim_end())));
    doc || (0..=16)
        .step_by(4)
        .any(|indent| source.contains(&prefixed(&" ".repeat(indent), "")))
}

#[test]
fn rust_blocks_are_code_that_is_built_and_run() {
    let mut files = Vec::new();
    rust_sources(workspace_root(), &mut files);
    let sources: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in documents().into_iter().chain(reference_pages()) {
        let rust = blocks(&read(&doc)).into_iter().filter(|b| b.lang == "rust");
        for (i, block) in rust.enumerate() {
            // The quick start is built and run as the README says, below.
            if doc == "README.md" && i == 0 {
                continue;
            }
            checked += 1;
            if !sources.iter().any(|(_, text)| holds(text, &block.body)) {
                problems.push(format!(
                    "{doc}:{}: this Rust block is in no test or example; make it one, word for word:\n{}",
                    block.line, block.body
                ));
            }
        }
    }
    assert!(checked >= 10, "only {checked} Rust blocks");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The directory cargo builds this test into (`target/debug`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/debug/deps/it-HASH
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

/// The `fsmc` binary, built from this checkout: `cargo test --workspace` has
/// built it; when it is missing or older than its sources, it is built here.
fn fsmc() -> PathBuf {
    let binary = profile_dir().join(format!("fsmc{}", std::env::consts::EXE_SUFFIX));
    let built = std::fs::metadata(&binary).and_then(|m| m.modified()).ok();
    let newest = [
        "fsm-cli/src",
        "grammar/src",
        "fsm-diagram/src",
        "fsm-dynamic/src",
        "fsm-codegen/src",
    ]
    .iter()
    .flat_map(|dir| walk(&workspace_root().join(dir)))
    .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
    .max();
    if built.is_none() || built < newest {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "-p", "fsm-cli", "--bin", "fsmc"])
            .current_dir(workspace_root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cannot build fsmc");
    }
    binary
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// A fresh directory under the system's temporary one.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fsmc-docs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The README's door, the first ```fsm block, with the typo its quick start
/// makes on line 4.
fn door_with_typo() -> String {
    let readme = read("README.md");
    let door = blocks(&readme)
        .into_iter()
        .find(|b| b.lang == "fsm")
        .expect("the README shows the door")
        .body;
    let typo = door.replacen("        on open -> opened;\n", "        on open -> opend;\n", 1);
    assert_ne!(door, typo);
    assert_eq!(typo.lines().nth(3), Some("        on open -> opend;"));
    typo
}

#[test]
fn fsmc_transcripts_are_what_fsmc_prints() {
    let fsmc = fsmc();
    let dir = scratch("transcripts");
    std::fs::write(dir.join("door.fsm"), door_with_typo()).unwrap();
    // docs/export-import.md: the runtime's document with a target misspelt.
    let document = read("tests/fixtures/json/execution_fsm_v1.json");
    let misspelt = document.replacen("\"to\": \"completed\"", "\"to\": \"complted\"", 1);
    assert_ne!(document, misspelt);
    std::fs::write(dir.join("execution.json"), misspelt).unwrap();
    // docs/verifying.md and docs/testing.md run `fsmc verify` and `fsmc
    // test` on the machines they show: `machine Gate` is `gate.fsm`.
    for block in ["docs/verifying.md", "docs/testing.md"]
        .into_iter()
        .flat_map(|page| blocks(&read(page)))
        .filter(|b| b.lang == "fsm")
    {
        let Some(name) = block
            .body
            .strip_prefix("machine ")
            .and_then(|rest| rest.split_once(' '))
            .map(|(name, _)| name.to_lowercase())
        else {
            continue;
        };
        std::fs::write(dir.join(format!("{name}.fsm")), &block.body).unwrap();
    }
    let mut checked = 0;
    for doc in documents().into_iter().chain(reference_pages()) {
        for block in blocks(&read(&doc)).into_iter().filter(|b| b.lang == "text") {
            let Some((command, shown)) = block
                .body
                .strip_prefix("$ fsmc ")
                .and_then(|b| b.split_once('\n'))
            else {
                continue;
            };
            let args = shell_words(command);
            // Sessions of `fsmc run` are run by fsm-cli's tests (run.rs), and
            // `fsmc fleet` on a fleet they build (fleet.rs, docs/fleet.md).
            if args[0] == "run" || args[0] == "fleet" {
                continue;
            }
            checked += 1;
            let output = Command::new(&fsmc)
                .args(&args)
                .current_dir(&dir)
                .env("NO_COLOR", "1")
                .output()
                .expect("fsmc runs");
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            assert_eq!(
                printed, shown,
                "{doc}:{}: `fsmc {command}` prints otherwise",
                block.line
            );
        }
    }
    assert!(checked >= 3, "only {checked} transcripts");
}

/// `command`'s words as a POSIX shell splits them, for what transcripts
/// use: blanks between words, and `'...'` around a word with blanks or
/// parentheses.
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            c if c.is_whitespace() && !quoted => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    assert!(!quoted, "an unclosed quote in `{command}`");
    words.extend(word);
    words
}

/// A ```` ```toml ```` block of lint options is an `fsm.toml` that
/// `fsmc check` reads.
#[test]
fn fsm_toml_blocks_are_read_by_fsmc() {
    let fsmc = fsmc();
    let mut checked = 0;
    for doc in documents() {
        for block in blocks(&read(&doc)).into_iter().filter(|b| b.lang == "toml") {
            if !block.body.starts_with("[lints]") {
                continue;
            }
            checked += 1;
            let dir = scratch("fsm-toml");
            std::fs::write(dir.join("fsm.toml"), &block.body).unwrap();
            std::fs::write(
                dir.join("door.fsm"),
                door_with_typo().replace("opend;", "opened;"),
            )
            .unwrap();
            let output = Command::new(&fsmc)
                .args(["check", "door.fsm"])
                .current_dir(&dir)
                .env("NO_COLOR", "1")
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{doc}:{}: fsmc refuses this fsm.toml:\n{}",
                block.line,
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    assert!(checked >= 1, "no fsm.toml block");
}

/// The README's set-up commands: the first checks the examples (they check
/// clean), the second is CI's test command.
#[test]
fn readme_setup_commands_are_those_ci_runs() {
    let readme = read("README.md");
    let section = readme
        .split_once("\n## Working on fsmc\n")
        .map(|(_, rest)| rest)
        .expect("the README has a section `## Working on fsmc`");
    let commands = blocks(section)
        .into_iter()
        .next()
        .expect("a block of commands")
        .body;
    assert_eq!(
        commands,
        "cargo run --release -p fsm-cli -- check examples/\ncargo test --workspace\n"
    );
    let ci = read(".ci/run");
    assert!(
        ci.lines().any(|l| l == "cargo test --workspace"),
        ".ci/run no longer runs `cargo test --workspace`"
    );
    let output = Command::new(fsmc())
        .args(["check", "examples/"])
        .current_dir(workspace_root())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "`fsmc check examples/` fails:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn readme_picture_is_what_fsmc_graph_draws() {
    let readme = read("README.md");
    assert!(readme.contains("](docs/images/http2-stream.svg)"));
    let output = Command::new(fsmc())
        .args(["graph", "--format", "svg", "examples/http2-stream/stream.fsm"])
        .current_dir(workspace_root())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stdout) == read("docs/images/http2-stream.svg"),
        "docs/images/http2-stream.svg is not what fsmc draws; redraw it with \
         `fsmc graph --format svg examples/http2-stream/stream.fsm -o docs/images/http2-stream.svg`"
    );
}

#[test]
fn readme_is_a_front_page() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 320,
        "the README has {lines} lines; move detail into the guide (docs/)"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as
/// dashes.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn links_lead_somewhere() {
    let mut problems = Vec::new();
    for doc in documents() {
        let text = read(&doc);
        let base = Path::new(&doc).parent().unwrap().to_path_buf();
        for link in text.split("](").skip(1) {
            let target = &link[..link.find(')').unwrap_or(link.len())];
            if target.starts_with("http") || target.contains(' ') {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                PathBuf::from(&doc)
            } else {
                base.join(file)
            };
            let full = workspace_root().join(&path);
            if !full.exists() {
                problems.push(format!("{doc}: `{target}` leads nowhere"));
                continue;
            }
            if !fragment.is_empty() && full.extension().is_some_and(|e| e == "md") {
                let linked = std::fs::read_to_string(&full).unwrap();
                let found = linked
                    .lines()
                    .filter_map(|l| {
                        l.trim_start_matches('#')
                            .strip_prefix(' ')
                            .filter(|_| l.starts_with('#'))
                    })
                    .any(|h| anchor(h) == fragment);
                if !found {
                    problems.push(format!("{doc}: `{target}` names no heading"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The README's quick start, followed as a newcomer would: a crate beside a
/// clone (here the checkout itself), the README's dependency line, its
/// `src/main.rs`, then `cargo run`, which prints what the README shows.
#[cfg(unix)]
#[test]
fn readme_quick_start_runs_and_prints_what_it_shows() {
    let readme = read("README.md");
    let section = readme
        .split_once("\n## Quick start")
        .and_then(|(_, rest)| rest.split("\n## ").next())
        .expect("the README has a quick start");
    let found = blocks(section);
    let block = |lang: &str, nth: usize| {
        found
            .iter()
            .filter(|b| b.lang == lang)
            .nth(nth)
            .unwrap_or_else(|| panic!("the quick start has a ```{lang} block number {nth}"))
            .body
            .clone()
    };
    let dependency = block("toml", 0);
    assert!(
        dependency.contains("path = \"../fsmc/fsm-runtime\""),
        "{dependency}"
    );
    let main = block("rust", 0);
    let printed = block("text", 0);

    let dir = scratch("quick-start");
    std::os::unix::fs::symlink(workspace_root(), dir.join("fsmc")).unwrap();
    let door = dir.join("door");
    std::fs::create_dir_all(door.join("src")).unwrap();
    std::fs::write(
        door.join("Cargo.toml"),
        format!("[package]\nname = \"door\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{dependency}"),
    )
    .unwrap();
    std::fs::write(door.join("src/main.rs"), &main).unwrap();
    // The versions the workspace builds with, so no registry is needed.
    std::fs::copy(workspace_root().join("Cargo.lock"), door.join("Cargo.lock")).unwrap();
    let target = profile_dir().parent().unwrap().join("docs-quick-start");
    // The door crate has no profile: its build of fsm-runtime, the macro and
    // every dependency would carry full debug info, nothing reads it, and it
    // costs a sixth of the build. The workspace's setting instead.
    const DEBUG: &str = "line-tables-only";
    let output = Command::new(env!("CARGO"))
        .args(["run", "-q", "--offline"])
        .current_dir(&door)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_PROFILE_DEV_DEBUG", DEBUG)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the quick start does not build:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), printed);

    // docs/rust.md: what `cargo build` says of a misspelt state, then of a
    // state nothing leads to, in this crate.
    let guide = read("docs/rust.md");
    let said: Vec<String> = guide
        .split("and `cargo build` says:\n\n```text\n")
        .skip(1)
        .map(|rest| rest[..rest.find("```").unwrap()].to_string())
        .collect();
    assert_eq!(said.len(), 2, "docs/rust.md shows what `cargo build` says twice");
    let typo = main.replacen("on open -> opened;", "on open -> opend;", 1);
    let spare = main.replacen(
        "            on unlock -> closed emit release_bolt;\n        }\n",
        "            on unlock -> closed emit release_bolt;\n        }\n        state spare { on open -> opened; }\n",
        1,
    );
    for (source, shown) in [(typo, &said[0]), (spare, &said[1])] {
        assert_ne!(source, main);
        std::fs::write(door.join("src/main.rs"), source).unwrap();
        let output = Command::new(env!("CARGO"))
            .args(["build", "-q", "--offline"])
            .current_dir(&door)
            .env("CARGO_TARGET_DIR", &target)
            .env("CARGO_PROFILE_DEV_DEBUG", DEBUG)
            .output()
            .expect("cargo runs");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr).trim_end(),
            shown.trim_end()
        );
    }

    // The machine in a file of its own, with the README's typo: the error
    // shows the file's snippet, then the macro's (docs/rust.md).
    let file_form = "fsm_runtime::fsm!(file = \"machines/door.fsm\");\n";
    assert!(guide.contains(&format!("```rust\n{file_form}```")));
    let shown = guide
        .split_once("An error then shows the file, line, column and snippet:\n\n```text\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("docs/rust.md shows the error of the file form");
    std::fs::create_dir_all(door.join("machines")).unwrap();
    std::fs::write(door.join("machines/door.fsm"), door_with_typo()).unwrap();
    std::fs::write(door.join("src/main.rs"), format!("{file_form}\nfn main() {{}}\n")).unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["build", "-q", "--offline"])
        .current_dir(&door)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_PROFILE_DEV_DEBUG", DEBUG)
        .output()
        .expect("cargo runs");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.starts_with(shown),
        "cargo build says:\n{said}\ndocs/rust.md shows:\n{shown}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
