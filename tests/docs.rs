//! The language documents stay true to the front end.
//!
//! - `docs/diagnostics.md` has one `## code` section per code, in the order of
//!   `Code::ALL`, each stating the code's severity, and the first example of
//!   each section reports it; so does every other whole file shown there, and
//!   each part of a fix parses in a machine's or a state's body.
//! - Those sections are exactly `fsm-cli/src/explain.md`, the text
//!   `fsmc explain` prints (reports say ``run `fsmc explain CODE` ``).
//! - Every complete machine shown in `docs/dsl.md` checks clean, and its
//!   canonical-form example is exactly what `Machine::canonical` prints.
//! - Its grammar summary shows every rule of `grammar/src/fsm.pest` under
//!   fsm.pest's name, and its keyword list every keyword; its contents list
//!   every section.
//! - The examples of "Instead of parallel states" are built and run here.
//! - The README and the user guide: every code block is tested (`guide`).

mod examples;
mod guide;

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
         `{UPDATE_DOCS}=1 cargo test -p fsm-tests --test it docs::`.",
        line + 1,
        sections.lines().nth(line).unwrap_or("(end)"),
        source.lines().nth(line).unwrap_or("(end)"),
    );
}

/// `example` with each line `// repeat: TEMPLATE for i in A..B` replaced by
/// TEMPLATE once per `i` from A up to B (excluded), `{i}` and `{i+1}` in it
/// replaced by `i` and `i + 1`: for an example too long to show whole
/// (`chain-too-long`'s 1,100 states).
fn expand_repeats(example: &str) -> String {
    let mut out = String::new();
    for line in example.lines() {
        let repeat = line.trim().strip_prefix("// repeat: ").and_then(|rest| {
            let (template, range) = rest.rsplit_once(" for i in ")?;
            let (a, b) = range.split_once("..")?;
            Some((
                template,
                a.trim().parse::<usize>().ok()?,
                b.trim().parse::<usize>().ok()?,
            ))
        });
        match repeat {
            Some((template, a, b)) => {
                for i in a..b {
                    out.push_str(
                        &template
                            .replace("{i+1}", &(i + 1).to_string())
                            .replace("{i}", &i.to_string()),
                    );
                    out.push('\n');
                }
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
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
        let example = expand_repeats(example);
        let checked = check(&example);
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

/// The other examples of a section of `docs/diagnostics.md` are whole files
/// that report the section's code too, or parts of a fix: lines of a
/// machine's body, or of a state's, that parse there.
#[test]
fn diagnostics_md_other_examples_report_their_code_or_parse_as_fixes() {
    let text = read_doc("diagnostics.md");
    let mut checked = 0;
    for section in sections(&text) {
        let code = Code::from_name(section.heading)
            .unwrap_or_else(|| panic!("`## {}` is not a diagnostic code", section.heading));
        for example in fsm_blocks(section.body).into_iter().skip(1) {
            checked += 1;
            // A fix's state may open with an attribute, as a whole file may.
            let whole = is_complete_file(example) && example.lines().any(|l| l.starts_with("machine "));
            if whole {
                let reported = check(&expand_repeats(example)).diagnostics;
                assert!(
                    reported.iter().any(|d| d.code == code),
                    "this example of `{}` does not report it; it reports {:?}:\n{example}",
                    code.name(),
                    reported.iter().map(|d| d.code.name()).collect::<Vec<_>>()
                );
            } else {
                assert!(
                    parses_in_a_body(example),
                    "this part of a fix of `{}` parses in no machine's or state's body:\n{example}",
                    code.name()
                );
            }
        }
    }
    assert!(
        checked >= 5,
        "only {checked} further examples in docs/diagnostics.md"
    );
}

/// True when `fragment` parses in a machine's body or in a state's.
fn parses_in_a_body(fragment: &str) -> bool {
    [
        ("machine M {\n", "}\n"),
        ("machine M {\ninitial state s {\n", "}\n}\n"),
    ]
    .iter()
    .any(|(open, close)| {
        !check(&format!("{open}{fragment}{close}"))
            .diagnostics
            .iter()
            .any(|d| d.code.name() == "syntax")
    })
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

/// The rules of `grammar/src/fsm.pest`, each as its name and its body
/// (between the braces), with comments removed.
fn pest_rules(grammar: &str) -> Vec<(String, String)> {
    // Drop `//` comments, but not a `"//"` literal.
    let mut text = String::new();
    for line in grammar.lines() {
        let mut in_literal = false;
        let mut end = line.len();
        for (at, c) in line.char_indices() {
            match c {
                '"' => in_literal = !in_literal,
                '/' if !in_literal && line[at..].starts_with("//") => {
                    end = at;
                    break;
                }
                _ => {}
            }
        }
        text.push_str(&line[..end]);
        text.push('\n');
    }
    let mut rules = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .expect("a rule has a body");
        let name = &rest[..name_end];
        let body = rest[name_end..]
            .trim_start()
            .strip_prefix('=')
            .unwrap_or_else(|| panic!("fsm.pest: no `=` after `{name}`"))
            .trim_start()
            .trim_start_matches(['_', '@', '$', '!'])
            .strip_prefix('{')
            .unwrap_or_else(|| panic!("fsm.pest: no `{{` after `{name} =`"));
        let (mut depth, mut in_literal, mut escaped) = (1, false, false);
        let mut end = None;
        for (at, c) in body.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_literal => escaped = true,
                '"' => in_literal = !in_literal,
                '{' if !in_literal => depth += 1,
                '}' if !in_literal => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(at);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.unwrap_or_else(|| panic!("fsm.pest: `{name}` is not closed"));
        rules.push((name.to_string(), body[..end].trim().to_string()));
        rest = body[end + 1..].trim_start();
    }
    rules
}

/// The string literals of a pest rule body, in order.
fn literals(body: &str) -> Vec<&str> {
    body.split('"').skip(1).step_by(2).collect()
}

/// What the grammar summary must show of each rule of `fsm.pest`: every
/// rule by its name (in capitals for the lexical ones), each keyword and
/// each punctuation token by its text. The parser's entry points for
/// syntax recovery (`machine_entry`, `machine_rest`, ...: every rule but
/// `file` that starts at `SOI`) are not part of the language.
#[test]
fn dsl_md_grammar_summary_has_every_rule_of_fsm_pest() {
    let grammar_path = workspace_root().join("grammar/src/fsm.pest");
    let grammar = std::fs::read_to_string(&grammar_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", grammar_path.display()));
    let rules = pest_rules(&grammar);
    assert!(rules.len() > 60, "found only {} rules in fsm.pest", rules.len());

    let text = read_doc("dsl.md");
    let section = sections(&text)
        .into_iter()
        .find(|s| s.heading == "Grammar summary")
        .expect("dsl.md has a grammar summary");
    let summary = section
        .body
        .split_once("```ebnf\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("the grammar summary is an ```ebnf block");
    // The rules the summary defines, in lower case: `name = ...` at the
    // start of a line.
    let defined: Vec<String> = summary
        .lines()
        .filter(|line| line.starts_with(|c: char| c.is_ascii_alphabetic()))
        .filter_map(|line| line.split_once('='))
        .map(|(name, _)| name.trim().to_ascii_lowercase())
        .collect();
    let quoted = |token: &str| summary.contains(&format!("\"{token}\""));

    let mut missing = Vec::new();
    for (name, body) in &rules {
        if name != "file" && body.starts_with("SOI") {
            continue;
        }
        let shown = if name.starts_with("kw_") {
            let word = literals(body)[0];
            quoted(word)
        } else if body.starts_with('"') && body.ends_with('"') && literals(body).len() == 1 {
            quoted(literals(body)[0])
        } else {
            defined.contains(&name.to_ascii_lowercase())
        };
        if !shown {
            missing.push(name.as_str());
        }
    }
    assert!(
        missing.is_empty(),
        "the grammar summary of docs/dsl.md leaves out these rules of fsm.pest: {missing:?} \
         (a rule is shown as `name = ...;`, lexical rules in capitals, keywords and tokens by \
         their text in quotes)"
    );

    let names: Vec<String> = rules.iter().map(|(name, _)| name.to_ascii_lowercase()).collect();
    let unknown: Vec<&String> = defined.iter().filter(|name| !names.contains(name)).collect();
    assert!(
        unknown.is_empty(),
        "the grammar summary of docs/dsl.md defines rules that fsm.pest does not have: {unknown:?} \
         (it uses fsm.pest's names)"
    );
}

/// The keyword list of "Lexical structure" names every keyword of fsm.pest.
#[test]
fn dsl_md_keyword_list_has_every_keyword_of_fsm_pest() {
    let grammar_path = workspace_root().join("grammar/src/fsm.pest");
    let grammar = std::fs::read_to_string(&grammar_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", grammar_path.display()));
    let keywords: Vec<&str> = pest_rules(&grammar)
        .iter()
        .filter(|(name, _)| name.starts_with("kw_"))
        .map(|(name, _)| name.trim_start_matches("kw_"))
        .map(|word| grammar_keyword(&grammar, word))
        .collect();
    assert!(keywords.len() >= 20, "found only {} keywords", keywords.len());

    let text = read_doc("dsl.md");
    let list = text
        .split_once("**Keywords** are contextual.")
        .and_then(|(_, rest)| rest.split_once("\n\n"))
        .map(|(list, _)| list)
        .expect("dsl.md has a paragraph on keywords");
    let missing: Vec<&str> = keywords
        .into_iter()
        .filter(|word| !list.contains(&format!("`{word}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "the keyword list of docs/dsl.md (\"**Keywords** are contextual.\") leaves out {missing:?}"
    );
}

/// The word a keyword rule `kw_NAME` matches (its first string literal).
fn grammar_keyword<'g>(grammar: &'g str, name: &str) -> &'g str {
    let rule = format!("kw_{name}");
    let line = grammar
        .lines()
        .find(|line| line.split_whitespace().next() == Some(rule.as_str()))
        .unwrap_or_else(|| panic!("fsm.pest has no `{rule}`"));
    literals(line)[0]
}

#[test]
fn dsl_md_contents_lists_every_section() {
    let text = read_doc("dsl.md");
    let contents = text
        .split_once("Contents:\n")
        .and_then(|(_, rest)| rest.split_once("\n\n"))
        .map(|(list, _)| list)
        .expect("dsl.md has a list of contents");
    let missing: Vec<&str> = sections(&text)
        .iter()
        .map(|section| section.heading)
        .filter(|heading| !contents.contains(&format!("[{heading}](")))
        .collect();
    assert!(
        missing.is_empty(),
        "the contents of docs/dsl.md leave out {missing:?}"
    );
}

/// The examples of "Instead of parallel states", built and run: the
/// machines are those of the ```fsm blocks there (same fingerprints), the
/// code that of its ```rust blocks.
mod parallel {
    fsm_runtime::fsm! {
        /// Playback and the connection of a player change independently.
        machine Playback {
            initial state paused { on play -> playing; }
            state playing { on pause -> paused; }
            terminal state stopped;
            any { on shutdown -> stopped; }
        }

        machine Connection {
            initial state online { on lost -> offline emit pause_playback; }
            state offline { on found -> online; }
            terminal state closed;
            any { on shutdown -> closed; }
        }
    }

    fsm_runtime::fsm! {
        /// Fetches several files at once and goes on when all are in.
        machine Fetch {
            context Downloads;
            action start(usize), fetched, failed;
            guard last_one;
            effect expect(usize), count_one;
            initial state idle { on start -> fetching do expect emit start_all; }
            state fetching {
                on fetched [last_one] -> done do count_one;
                on fetched do count_one;
                on failed -> idle emit cancel_all;
            }
            terminal state done;
        }
    }

    // docs/dsl.md's Rust blocks, word for word.

    /// A player is in one state of each part at once.
    struct Player {
        playback: playback::Playback,
        connection: connection::Connection,
    }

    impl Player {
        fn connection_lost(&mut self) {
            let fired = self.connection.fire(connection::Action::Lost).expect("online");
            for output in fired.outputs {
                match output {
                    // Pausing what is already paused changes nothing.
                    connection::Output::PausePlayback => {
                        let _ = self.playback.fire(playback::Action::Pause);
                    }
                }
            }
        }

        /// `shutdown` concerns both parts: each gets it.
        fn shutdown(&mut self) {
            let _ = self.playback.fire(playback::Action::Shutdown);
            let _ = self.connection.fire(connection::Action::Shutdown);
        }
    }

    #[derive(Default)]
    struct Downloads {
        running: usize,
    }

    impl fetch::Context for Downloads {
        fn last_one(&self) -> bool {
            self.running == 1
        }
        fn expect(&mut self, jobs: &usize) {
            self.running = *jobs;
        }
        fn count_one(&mut self) {
            self.running -= 1;
        }
    }

    /// The player's parts, one coupled to the other.
    pub fn run_player() {
        let mut player = Player {
            playback: playback::Playback::new(),
            connection: connection::Connection::new(),
        };
        player.playback.fire(playback::Action::Play).unwrap();
        player.connection_lost();
        assert_eq!(player.playback.state(), playback::State::Paused);
        assert_eq!(player.connection.state(), connection::State::Offline);
        player.shutdown();
        assert!(player.playback.is_terminal() && player.connection.is_terminal());
    }

    /// Three jobs, awaited together.
    pub fn run_fetch() {
        let mut machine = fetch::Fetch::new(Downloads::default());
        machine.fire(fetch::Event::Start(3)).unwrap();
        for _ in 0..3 {
            machine.fire(fetch::Event::Fetched).unwrap();
        }
        assert!(machine.is_terminal());
    }
}

#[test]
fn dsl_md_parallel_examples_are_the_machines_that_run() {
    use fsm_runtime::Machine;
    use parallel::{connection, fetch, playback};

    let text = read_doc("dsl.md");
    let section = text
        .split_once("### Instead of parallel states\n")
        .and_then(|(_, rest)| rest.split_once("\n## "))
        .map(|(section, _)| section)
        .expect("dsl.md has a section on what to do instead of parallel states");
    let mut fingerprints = Vec::new();
    for block in fsm_blocks(section) {
        let checked = check(block);
        assert!(
            checked.diagnostics.is_empty(),
            "{:?}\n{block}",
            checked.diagnostics
        );
        fingerprints.extend(
            checked
                .model
                .machines
                .iter()
                .map(|m| (m.name.clone(), m.fingerprint())),
        );
    }
    let built = [
        ("Playback", <playback::Playback as Machine>::FINGERPRINT),
        ("Connection", <connection::Connection as Machine>::FINGERPRINT),
        ("Fetch", <fetch::Fetch as Machine>::FINGERPRINT),
    ];
    let built: Vec<(String, String)> = built
        .iter()
        .map(|(name, print)| (name.to_string(), print.to_string()))
        .collect();
    assert_eq!(
        fingerprints, built,
        "the machines of the section are the ones built here"
    );

    parallel::run_player();
    parallel::run_fetch();
}
