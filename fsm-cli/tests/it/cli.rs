//! End-to-end tests of the `fsmc` binary: exit statuses, where output goes,
//! and the shape of every report format.

use crate::harness;

use harness::{modified, set_modified, Scratch};
use std::fs;

/// A machine without any diagnostic.
const CLEAN: &str = "\
machine Door {
    initial state closed { on open -> opened; }
    state opened { on close -> closed; }
}
";

/// `opend` is a typo for `opened`: one `unknown-state` error on line 2.
const TYPO: &str = "\
machine Door {
    initial state closed { on open -> opend; }
    state opened { on close -> closed; }
}
";

/// `spare` cannot be reached: warnings only.
const UNREACHABLE: &str = "\
machine Door {
    initial state closed { on open -> opened; }
    state opened { on close -> closed; }
    state spare { on open -> closed; }
}
";

/// A machine that parses but is not in the canonical layout.
const MESSY: &str =
    "machine Door{initial state closed{on open->opened;}\n  state opened {on close   -> closed;}}";

fn codes(records: &[serde_json::Value]) -> Vec<&str> {
    records.iter().map(|r| r["code"].as_str().unwrap()).collect()
}

#[test]
fn a_clean_file_exits_0_with_a_summary() {
    let dir = Scratch::new();
    dir.write("door.fsm", CLEAN);
    let run = dir.fsmc(&["check", "door.fsm"]).expect(0);
    assert_eq!(run.stdout(), "");
    assert_eq!(run.stderr(), "checked 1 file: no errors or warnings\n");
}

#[test]
fn a_typo_in_a_target_is_an_error_that_points_at_it_and_suggests_the_state() {
    let dir = Scratch::new();
    dir.write("door.fsm", TYPO);
    let run = dir.fsmc(&["check", "door.fsm"]).expect(1);
    let stderr = run.stderr();
    assert_eq!(run.stdout(), "");
    assert!(stderr.contains("fsm::unknown-state"), "{stderr}");
    assert!(stderr.contains("[door.fsm:2:39]"), "{stderr}");
    assert!(stderr.contains("no state with this name"), "{stderr}");
    assert!(stderr.contains("help: did you mean `opened`?"), "{stderr}");
    assert!(
        stderr.contains("fsm::unknown-state (run `fsmc explain unknown-state`)"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("docs/"),
        "no path that only a checkout has: {stderr}"
    );
    let summary = stderr.lines().last().unwrap();
    assert!(summary.starts_with("checked 1 file: 1 error"), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}'),
        "no colour when not on a terminal: {stderr}"
    );
}

#[test]
fn json_is_one_array_of_flat_records_over_all_files() {
    let dir = Scratch::new();
    dir.write("a.fsm", TYPO)
        .write("b.fsm", TYPO)
        .write("c.fsm", CLEAN);
    let run = dir
        .fsmc(&["check", "--format", "json", "a.fsm", "b.fsm", "c.fsm"])
        .expect(1);
    assert_eq!(run.stderr(), "", "no summary in machine-readable formats");
    let records = run.json();
    let unknown: Vec<_> = records.iter().filter(|r| r["code"] == "unknown-state").collect();
    assert_eq!(unknown.len(), 2, "{records:#?}");
    assert_eq!(unknown[0]["file"], "a.fsm");
    assert_eq!(unknown[1]["file"], "b.fsm");
    let record = unknown[0].as_object().unwrap();
    let mut keys: Vec<_> = record.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut expected = vec![
        "code",
        "severity",
        "message",
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "help",
    ];
    expected.sort_unstable();
    assert_eq!(keys, expected);
    assert_eq!(record["severity"], "error");
    assert_eq!(
        record["message"],
        "transition on `open` targets unknown state `opend`"
    );
    assert_eq!(
        (
            &record["line"],
            &record["column"],
            &record["end_line"],
            &record["end_column"]
        ),
        (&2.into(), &39.into(), &2.into(), &44.into())
    );
    assert_eq!(record["help"], "did you mean `opened`?");
}

#[test]
fn json_of_a_clean_run_is_an_empty_array() {
    let dir = Scratch::new();
    dir.write("door.fsm", CLEAN);
    let run = dir.fsmc(&["check", "--format=json"]).expect(0);
    assert_eq!(run.stdout(), "[]\n");
}

#[test]
fn github_prints_one_annotation_per_diagnostic() {
    let dir = Scratch::new();
    dir.write("door.fsm", TYPO);
    let run = dir.fsmc(&["check", "--format", "github", "door.fsm"]).expect(1);
    let stdout = run.stdout();
    let line = stdout
        .lines()
        .find(|l| l.contains("title=unknown-state"))
        .unwrap_or_else(|| panic!("no unknown-state annotation in {stdout}"));
    assert_eq!(
        line,
        "::error file=door.fsm,line=2,col=39,endLine=2,endColumn=44,title=unknown-state\
         ::transition on `open` targets unknown state `opend`%0Ahelp: did you mean `opened`?"
    );
    assert!(stdout
        .lines()
        .all(|l| l.starts_with("::error ") || l.starts_with("::warning ")));
}

#[test]
fn warnings_pass_unless_denied() {
    let dir = Scratch::new();
    dir.write("door.fsm", UNREACHABLE);
    let run = dir.fsmc(&["check", "--format", "json"]).expect(0);
    let records = run.json();
    assert!(codes(&records).contains(&"unreachable-state"), "{records:#?}");
    assert!(records.iter().all(|r| r["severity"] == "warning"), "{records:#?}");

    let run = dir
        .fsmc(&["check", "--format", "json", "--deny-warnings"])
        .expect(1);
    assert!(run.json().iter().all(|r| r["severity"] == "error"));

    let run = dir
        .fsmc(&["check", "--format", "json", "--deny", "unreachable-state"])
        .expect(1);
    let denied: Vec<_> = run
        .json()
        .into_iter()
        .filter(|r| r["code"] == "unreachable-state")
        .collect();
    assert!(!denied.is_empty() && denied.iter().all(|r| r["severity"] == "error"));
}

#[test]
fn allowed_warnings_disappear() {
    let dir = Scratch::new();
    dir.write("door.fsm", UNREACHABLE);
    let allowed = warning_codes(&dir);
    let list = allowed.join(",");
    let run = dir
        .fsmc(&["check", "--format", "json", "--deny-warnings", "--allow", &list])
        .expect(0);
    assert_eq!(run.stdout(), "[]\n");

    // Repeating the flag works as well as a comma-separated list.
    let mut args = vec!["check", "--format", "json", "--deny-warnings"];
    for code in &allowed {
        args.extend(["--allow", code.as_str()]);
    }
    dir.fsmc(&args).expect(0);
}

/// The distinct warning codes the files in `dir` give, so tests do not
/// depend on the exact set of checks.
fn warning_codes(dir: &Scratch) -> Vec<String> {
    let run = dir.fsmc(&["check", "--format", "json"]).expect(0);
    let mut codes: Vec<String> = codes(&run.json()).into_iter().map(str::to_string).collect();
    codes.sort();
    codes.dedup();
    assert!(!codes.is_empty());
    codes
}

#[test]
fn an_unknown_code_on_the_command_line_is_a_usage_error_with_a_suggestion() {
    let dir = Scratch::new();
    dir.write("door.fsm", CLEAN);
    let run = dir.fsmc(&["check", "--allow", "unreachable-stat"]).expect(2);
    assert!(
        run.stderr()
            .contains("unknown diagnostic code `unreachable-stat`; did you mean `unreachable-state`?"),
        "{}",
        run.stderr()
    );
    let run = dir
        .fsmc(&["check", "--deny", "dead-end,nonsense-code-xyz"])
        .expect(2);
    assert!(
        run.stderr()
            .contains("unknown diagnostic code `nonsense-code-xyz`"),
        "{}",
        run.stderr()
    );
}

#[test]
fn errors_cannot_be_allowed_and_a_code_cannot_be_both_allowed_and_denied() {
    let dir = Scratch::new();
    dir.write("door.fsm", TYPO);
    let run = dir.fsmc(&["check", "--allow", "unknown-state"]).expect(2);
    assert!(run
        .stderr()
        .contains("`unknown-state` is an error; only warnings can be allowed"));
    let run = dir
        .fsmc(&["check", "--allow", "dead-end", "--deny", "dead-end"])
        .expect(2);
    assert_eq!(run.stderr(), "error: `dead-end` is both allowed and denied\n");
}

#[test]
fn a_missing_file_gets_one_clear_line_and_exit_2_while_the_rest_is_checked() {
    let dir = Scratch::new();
    dir.write("door.fsm", CLEAN);
    let run = dir.fsmc(&["check", "missing.fsm", "door.fsm"]).expect(2);
    let stderr = run.stderr();
    let mut lines = stderr.lines();
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("error: cannot read `missing.fsm`: "),
        "{stderr}"
    );
    if cfg!(unix) {
        assert_eq!(
            first,
            "error: cannot read `missing.fsm`: No such file or directory (os error 2)"
        );
    }
    assert_eq!(
        lines.next(),
        Some("checked 1 file: no errors or warnings; 1 path could not be checked")
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn a_file_that_is_not_utf8_is_an_io_error() {
    let dir = Scratch::new();
    fs::write(dir.path("bad.fsm"), [0x66, 0xff, 0xfe]).unwrap();
    let run = dir.fsmc(&["check", "bad.fsm"]).expect(2);
    assert!(
        run.stderr().starts_with("error: cannot read `bad.fsm`: "),
        "{}",
        run.stderr()
    );
}

#[test]
fn directories_are_searched_in_name_order_skipping_hidden_and_target() {
    let dir = Scratch::new();
    for file in [
        "b.fsm",
        "a/z.fsm",
        "a/c.fsm",
        ".git/x.fsm",
        "target/t.fsm",
        "notes.txt",
    ] {
        dir.write(file, TYPO);
    }
    let run = dir.fsmc(&["check", "--format", "json"]).expect(1);
    let mut files: Vec<String> = run
        .json()
        .iter()
        .map(|r| r["file"].as_str().unwrap().replace('\\', "/"))
        .collect();
    files.dedup();
    assert_eq!(files, ["a/c.fsm", "a/z.fsm", "b.fsm"]);

    let run = dir.fsmc(&["check", "a"]).expect(1);
    let stderr = run.stderr();
    assert!(
        stderr
            .lines()
            .last()
            .unwrap()
            .starts_with("checked 2 files: 2 errors"),
        "{stderr}"
    );
}

#[test]
fn a_directory_without_fsm_files_is_an_error() {
    let dir = Scratch::new();
    dir.write("empty/readme.txt", "nothing here");
    let run = dir.fsmc(&["check", "empty"]).expect(2);
    assert!(
        run.stderr()
            .starts_with("error: no `.fsm` files found in `empty`\n"),
        "{}",
        run.stderr()
    );
}

#[test]
fn no_subcommand_is_a_usage_error() {
    let dir = Scratch::new();
    dir.fsmc(&[]).expect(2);
    dir.fsmc(&["check", "--format", "xml"]).expect(2);
}

fn canonical(text: &str) -> String {
    fsm_grammar::format::format(text).expect("the input parses")
}

#[test]
fn fmt_check_lists_files_that_would_change_and_writes_nothing() {
    let dir = Scratch::new();
    dir.write("messy.fsm", MESSY).write("tidy.fsm", &canonical(CLEAN));
    let run = dir.fsmc(&["fmt", "--check"]).expect(1);
    assert_eq!(run.stdout(), "messy.fsm\n");
    assert_eq!(
        run.stderr(),
        "1 file would be reformatted, 1 file already formatted\n"
    );
    assert_eq!(dir.read("messy.fsm"), MESSY);

    dir.fsmc(&["fmt", "--check", "tidy.fsm"]).expect(0);
}

#[test]
fn fmt_rewrites_only_files_that_change() {
    let dir = Scratch::new();
    dir.write("messy.fsm", MESSY).write("tidy.fsm", &canonical(CLEAN));
    let long_ago = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    set_modified(&dir.path("tidy.fsm"), long_ago);

    let run = dir.fsmc(&["fmt"]).expect(0);
    assert_eq!(run.stdout(), "");
    assert_eq!(run.stderr(), "1 file reformatted, 1 file already formatted\n");
    assert_eq!(dir.read("messy.fsm"), canonical(MESSY));
    assert_eq!(
        modified(&dir.path("tidy.fsm")),
        long_ago,
        "an unchanged file is not written"
    );

    dir.fsmc(&["fmt", "--check"]).expect(0);
}

#[test]
fn fmt_reports_syntax_errors_and_leaves_the_file_alone() {
    let dir = Scratch::new();
    let broken = "machine Door { initial state closed { on open opened; } }\n";
    dir.write("broken.fsm", broken).write("messy.fsm", MESSY);
    let run = dir.fsmc(&["fmt"]).expect(1);
    assert!(run.stderr().contains("fsm::syntax"), "{}", run.stderr());
    assert!(run.stderr().contains("broken.fsm"), "{}", run.stderr());
    assert!(
        run.stderr()
            .ends_with("\n1 file reformatted, 0 files already formatted, 1 file with errors\n"),
        "{}",
        run.stderr()
    );
    assert_eq!(dir.read("broken.fsm"), broken);
    assert_eq!(
        dir.read("messy.fsm"),
        canonical(MESSY),
        "other files are still formatted"
    );
}

#[test]
fn fmt_of_a_missing_file_exits_2() {
    let dir = Scratch::new();
    let run = dir.fsmc(&["fmt", "missing.fsm"]).expect(2);
    assert!(
        run.stderr().starts_with("error: cannot read `missing.fsm`: "),
        "{}",
        run.stderr()
    );
}

#[test]
fn check_reads_standard_input_and_names_it() {
    let dir = Scratch::new();
    let run = dir.fsmc_with_stdin(&["check", "-"], TYPO).expect(1);
    let stderr = run.stderr();
    assert!(stderr.contains("[<stdin>:2:39]"), "{stderr}");
    assert_eq!(run.summary(), "checked 1 file: 1 error");

    let run = dir
        .fsmc_with_stdin(
            &[
                "check",
                "--format",
                "json",
                "--stdin-filename",
                "machines/door.fsm",
                "-",
            ],
            TYPO,
        )
        .expect(1);
    let records = run.json();
    assert_eq!(records[0]["file"], "machines/door.fsm", "{records:#?}");
    assert_eq!(records[0]["code"], "unknown-state");

    dir.fsmc_with_stdin(&["check", "-"], CLEAN).expect(0);
}

#[test]
fn check_reads_standard_input_among_files_once() {
    let dir = Scratch::new();
    dir.write("a.fsm", TYPO).write("b.fsm", TYPO);
    let run = dir
        .fsmc_with_stdin(&["check", "--format", "json", "a.fsm", "-", "b.fsm", "-"], TYPO)
        .expect(1);
    let files: Vec<String> = run
        .json()
        .iter()
        .filter(|r| r["code"] == "unknown-state")
        .map(|r| r["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(files, ["a.fsm", "<stdin>", "b.fsm"]);
}

#[test]
fn standard_input_that_is_not_utf8_is_an_io_error() {
    let dir = Scratch::new();
    let run = dir.fsmc_with_stdin(&["check", "-"], [0x66, 0xff, 0xfe]).expect(2);
    assert!(
        run.stderr().starts_with("error: cannot read standard input: "),
        "{}",
        run.stderr()
    );
}

#[test]
fn fmt_of_standard_input_writes_standard_output_only() {
    let dir = Scratch::new();
    let run = dir.fsmc_with_stdin(&["fmt", "-"], MESSY).expect(0);
    assert_eq!(run.stdout(), canonical(MESSY));
    assert_eq!(run.stderr(), "", "a filter prints no summary");
    assert!(!dir.exists("-"));

    // Already formatted text comes back whole.
    let run = dir.fsmc_with_stdin(&["fmt", "-"], canonical(CLEAN)).expect(0);
    assert_eq!(run.stdout(), canonical(CLEAN));
}

#[test]
fn fmt_of_standard_input_with_syntax_errors_prints_nothing_on_stdout() {
    let dir = Scratch::new();
    let broken = "machine Door { initial state closed { on open opened; } }\n";
    let run = dir
        .fsmc_with_stdin(&["fmt", "--stdin-filename", "door.fsm", "-"], broken)
        .expect(1);
    assert_eq!(run.stdout(), "");
    assert!(run.stderr().contains("fsm::syntax"), "{}", run.stderr());
    assert!(run.stderr().contains("[door.fsm:1:"), "{}", run.stderr());
}

#[test]
fn fmt_check_of_standard_input_reports_like_a_file() {
    let dir = Scratch::new();
    let run = dir.fsmc_with_stdin(&["fmt", "--check", "-"], MESSY).expect(1);
    assert_eq!(run.stdout(), "<stdin>\n");
    assert_eq!(
        run.stderr(),
        "1 file would be reformatted, 0 files already formatted\n"
    );
    let run = dir
        .fsmc_with_stdin(&["fmt", "--check", "--stdin-filename", "door.fsm", "-"], MESSY)
        .expect(1);
    assert_eq!(run.stdout(), "door.fsm\n");
    let run = dir
        .fsmc_with_stdin(&["fmt", "--check", "-"], canonical(CLEAN))
        .expect(0);
    assert_eq!(run.stdout(), "");
}

/// `text` with CRLF line endings.
fn crlf(text: &str) -> String {
    text.replace('\n', "\r\n")
}

#[test]
fn fmt_keeps_crlf_line_endings_and_the_byte_order_mark() {
    let dir = Scratch::new();
    dir.write("crlf.fsm", &crlf(MESSY))
        .write("bom.fsm", &format!("\u{feff}{MESSY}"))
        .write("both.fsm", &format!("\u{feff}{}", crlf(MESSY)));
    dir.fsmc(&["fmt"]).expect(0);
    assert_eq!(dir.read("crlf.fsm"), crlf(&canonical(MESSY)));
    assert_eq!(dir.read("bom.fsm"), format!("\u{feff}{}", canonical(MESSY)));
    assert_eq!(
        dir.read("both.fsm"),
        format!("\u{feff}{}", crlf(&canonical(MESSY)))
    );
    dir.fsmc(&["fmt", "--check"]).expect(0);
}

#[test]
fn fmt_check_passes_a_formatted_crlf_file_with_a_byte_order_mark() {
    let dir = Scratch::new();
    dir.write("crlf.fsm", &crlf(&canonical(CLEAN)))
        .write("bom.fsm", &format!("\u{feff}{}", crlf(&canonical(CLEAN))));
    let run = dir.fsmc(&["fmt", "--check"]).expect(0);
    assert_eq!(run.stdout(), "");
    assert_eq!(
        run.stderr(),
        "0 files would be reformatted, 2 files already formatted\n"
    );
}

#[test]
fn fmt_takes_the_line_ending_of_the_first_line() {
    let dir = Scratch::new();
    // Mixed endings: the first line's CRLF wins, as with rustfmt.
    let mixed = "machine Door {\r\n    initial state closed { on open -> opened; }\n    state opened { on close -> closed; }\n}\n";
    dir.write("mixed.fsm", mixed);
    dir.fsmc(&["fmt", "mixed.fsm"]).expect(0);
    assert_eq!(dir.read("mixed.fsm"), crlf(&canonical(mixed)));

    let run = dir.fsmc_with_stdin(&["fmt", "-"], crlf(MESSY)).expect(0);
    assert_eq!(run.stdout(), crlf(&canonical(MESSY)), "standard input too");
}

#[test]
fn explain_prints_what_a_report_says_to_run() {
    let dir = Scratch::new();
    dir.write("door.fsm", TYPO);
    let stderr = dir.fsmc(&["check", "door.fsm"]).expect(1).stderr();
    let command = stderr
        .split("(run `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("no command to run in {stderr}"));
    let args: Vec<&str> = command.split(' ').collect();
    assert_eq!(args, ["fsmc", "explain", "unknown-state"]);
    let run = dir.fsmc(&args[1..]).expect(0);
    assert_eq!(run.stderr(), "");
    let text = run.stdout();
    assert!(
        text.starts_with(
            "fsm::unknown-state\n\nError. A transition targets a state the machine does not define, or an `in(...)`\nguard tests one.\n\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n    machine Door {\n        initial state closed { on open -> opend; }\n"),
        "code blocks are indented, without fences: {text}"
    );
    assert!(text.contains("\nFix: correct the name"), "{text}");
    assert!(!text.contains("```") && !text.contains("**"), "{text}");
}

#[test]
fn explain_takes_the_code_as_reports_show_it() {
    let dir = Scratch::new();
    let plain = dir.fsmc(&["explain", "dead-end"]).expect(0).stdout();
    let namespaced = dir.fsmc(&["explain", "fsm::dead-end"]).expect(0).stdout();
    assert_eq!(plain, namespaced);
}

#[test]
fn explain_of_an_unknown_code_suggests_the_closest() {
    let dir = Scratch::new();
    let run = dir.fsmc(&["explain", "unreachable-stat"]).expect(2);
    assert_eq!(run.stdout(), "");
    assert_eq!(
        run.stderr(),
        "error: unknown diagnostic code `unreachable-stat`; did you mean `unreachable-state`?\n"
    );
    let run = dir.fsmc(&["explain", "nonsense"]).expect(2);
    assert_eq!(
        run.stderr(),
        "error: unknown diagnostic code `nonsense`; run `fsmc explain` to list the codes\n"
    );
}

#[test]
fn explain_without_a_code_lists_every_code() {
    let dir = Scratch::new();
    let run = dir.fsmc(&["explain"]).expect(0);
    let list = run.stdout();
    assert_eq!(list, dir.fsmc(&["explain", "--list"]).expect(0).stdout());
    for code in fsm_grammar::Code::ALL {
        assert!(
            list.contains(&format!("\n  {code} ")),
            "{code} is listed:\n{list}"
        );
    }
    assert!(list.starts_with("Errors:\n  syntax "), "{list}");
    assert!(list.contains("\nWarnings:\n"), "{list}");
    dir.fsmc(&["explain", "--list", "dead-end"]).expect(2);
}

/// `n` machines with one syntax error each.
fn broken_machines(n: usize) -> String {
    (0..n)
        .map(|i| format!("machine M{i} {{ initial state a {{ on x -> ; }} }}\n"))
        .collect()
}

#[test]
fn a_human_report_shows_at_most_20_diagnostics_per_file_and_counts_the_rest() {
    let dir = Scratch::new();
    dir.write("many.fsm", &broken_machines(30))
        .write("few.fsm", &broken_machines(3));
    let run = dir.fsmc(&["check", "many.fsm", "few.fsm"]).expect(1);
    let stderr = run.stderr();
    assert_eq!(stderr.matches("fsm::syntax (").count(), 23, "{stderr}");
    assert!(
        stderr.contains(
            "note: 10 more diagnostics in many.fsm not shown (10 errors); \
             `--max-diagnostics 0` shows every one\n"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("in few.fsm not shown"), "{stderr}");
    assert_eq!(run.summary(), "checked 2 files: 33 errors");

    let run = dir
        .fsmc(&["check", "--max-diagnostics", "0", "many.fsm"])
        .expect(1);
    assert_eq!(run.stderr().matches("fsm::syntax (").count(), 30);
    assert!(!run.stderr().contains("not shown"));
    let run = dir
        .fsmc(&["check", "--max-diagnostics", "1", "few.fsm"])
        .expect(1);
    assert!(run
        .stderr()
        .contains("note: 2 more diagnostics in few.fsm not shown (2 errors)"));

    // Reports for tools are complete.
    let run = dir.fsmc(&["check", "--format", "json", "many.fsm"]).expect(1);
    assert_eq!(run.json().len(), 30);
    let run = dir.fsmc(&["check", "--format", "github", "many.fsm"]).expect(1);
    assert_eq!(run.stdout().lines().count(), 30);
}

#[test]
fn the_limit_shows_errors_before_warnings_in_position_order() {
    let dir = Scratch::new();
    let mut text: String = (0..25)
        .map(|i| format!("machine W{i} {{ initial state a; state b; }}\n"))
        .collect();
    text.push_str(&TYPO.replace("Door", "Last"));
    dir.write("mixed.fsm", &text);
    let run = dir.fsmc(&["check", "mixed.fsm"]).expect(1);
    let stderr = run.stderr();
    assert_eq!(stderr.matches("\nfsm::").count() + 1, 20, "{stderr}");
    // The one error is shown, last, as it is last in the file.
    let error = stderr.find("fsm::unknown-state").expect("the error is shown");
    assert!(stderr[error..].matches("\nfsm::").count() == 0, "{stderr}");
    assert!(stderr.contains(" warnings)"), "{stderr}");
}
