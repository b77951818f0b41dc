//! How every subcommand reads a `.fsm` file, through the front end's one
//! reader (`fsm_grammar::source`): a file that is not UTF-8 is reported with
//! the line, column and bytes where it stops being UTF-8; and a file that
//! defines no machine (empty, or only comments) is refused alike by every
//! command that generates or draws from it.

use crate::harness;

use harness::Scratch;
use std::fs;

/// `\xff` is the 19th character of line 2.
const NOT_UTF8: &[u8] = b"machine A {\n  initial state x;\xff\n}";

const WHERE: &str = "invalid UTF-8 at line 2, column 19 (byte 0xFF)";

const HELP: &str = "help: write one, like `machine Door { initial state closed; }`";

fn with_bad_file() -> Scratch {
    let dir = Scratch::new();
    fs::write(dir.path("bad.fsm"), NOT_UTF8).unwrap();
    dir
}

#[test]
fn every_subcommand_says_where_a_file_stops_being_utf8() {
    let dir = with_bad_file();
    let expected = format!("error: cannot read `bad.fsm`: {WHERE}\n");
    for args in [
        &["check", "bad.fsm"][..],
        &["fmt", "bad.fsm"],
        &["fmt", "--check", "bad.fsm"],
        &["build", "bad.fsm", "-o", "out"],
        &["build", "--check", "bad.fsm", "-o", "out"],
        &["export", "bad.fsm"],
        &["graph", "bad.fsm"],
    ] {
        let run = dir.fsmc(args).expect(2);
        let stderr = run.stderr();
        assert!(stderr.starts_with(&expected), "fsmc {args:?}:\n{stderr}");
        assert!(
            !stderr.contains("stream did not contain"),
            "fsmc {args:?}:\n{stderr}"
        );
    }
    assert!(!dir.exists("out/bad.rs"));
}

#[test]
fn a_file_found_in_a_directory_is_read_the_same_way() {
    let dir = with_bad_file();
    dir.write(
        "good.fsm",
        "machine Door {\n    initial state closed { on open -> opened; }\n    state opened { on close -> closed; }\n}\n",
    );
    let run = dir.fsmc(&["check", "."]).expect(2);
    assert!(
        run.stderr()
            .starts_with(&format!("error: cannot read `bad.fsm`: {WHERE}\n")),
        "{}",
        run.stderr()
    );
    assert_eq!(
        run.summary(),
        "checked 1 file: no errors or warnings; 1 path could not be checked"
    );
}

#[test]
fn standard_input_that_is_not_utf8_says_where() {
    let dir = Scratch::new();
    for command in ["check", "fmt"] {
        let run = dir.fsmc_with_stdin(&[command, "-"], NOT_UTF8).expect(2);
        assert!(
            run.stderr()
                .starts_with(&format!("error: cannot read standard input: {WHERE}\n")),
            "fsmc {command}:\n{}",
            run.stderr()
        );
    }
}

#[test]
fn a_utf16_file_is_named_as_such() {
    let dir = Scratch::new();
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "machine A { initial state x; }"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    fs::write(dir.path("wide.fsm"), utf16).unwrap();
    let run = dir.fsmc(&["check", "wide.fsm"]).expect(2);
    assert!(
        run.stderr().starts_with(
            "error: cannot read `wide.fsm`: invalid UTF-8 at line 1, column 1 (byte 0xFF): the \
             file looks like UTF-16; save it as UTF-8\n"
        ),
        "{}",
        run.stderr()
    );
}

#[test]
fn build_refuses_empty_and_comment_only_files_and_writes_nothing() {
    let dir = Scratch::new();
    dir.write("empty.fsm", "")
        .write("comments.fsm", "// The door, later.\n/// A doc comment.\n");
    for name in ["empty", "comments"] {
        let file = format!("{name}.fsm");
        let run = dir.fsmc(&["build", &file, "-o", "out"]).expect(1);
        assert_eq!(
            run.stderr(),
            format!(
                "error: `{file}` defines no machine; nothing generated\n{HELP}\ngenerated 0 files (0 \
                 written, 0 unchanged); 1 file not generated\n"
            )
        );
        assert!(!dir.exists(&format!("out/{name}.rs")), "{name}.rs was written");
        dir.fsmc(&["build", "--check", &file, "-o", "out"]).expect(1);
    }
}

#[test]
fn build_generates_the_other_files_beside_one_without_a_machine() {
    let dir = Scratch::new();
    dir.write("machines/door.fsm", "machine Door { initial state closed; }\n")
        .write("machines/empty.fsm", "\n");
    let run = dir.fsmc(&["build", "machines", "-o", "out"]).expect(1);
    assert!(
        run.stderr().contains("`machines/empty.fsm` defines no machine"),
        "{}",
        run.stderr()
    );
    assert!(dir.exists("out/door.rs"));
    assert!(!dir.exists("out/empty.rs"));
}

#[test]
fn graph_refuses_a_file_without_a_machine_even_when_one_is_named() {
    let dir = Scratch::new();
    dir.write("empty.fsm", "// nothing yet\n");
    for args in [
        &["graph", "empty.fsm"][..],
        &["graph", "--machine", "Door", "empty.fsm"],
    ] {
        let run = dir.fsmc(args).expect(1);
        assert_eq!(
            run.stderr(),
            format!("error: `empty.fsm` defines no machine; nothing drawn\n{HELP}\n"),
            "fsmc {args:?}"
        );
    }
}
