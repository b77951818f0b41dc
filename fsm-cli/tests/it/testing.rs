//! End-to-end tests of `fsmc test`: the summary, goals no sequence reaches,
//! and `--out-dir`, whose scripts `fsmc run` replays to the output written
//! beside them.

use crate::harness;

use harness::Scratch;

const GATE: &str = "\
machine Gate {
    initial state closed {
        on open [authorized] -> opening;
    }
    state opening {
        after 5s -> opened;
        on close -> closed;
    }
    state opened {
        always [alarm] -> locked_out;
        on close [in(closed)] -> closed;
    }
    terminal state locked_out;
}
";

#[test]
fn the_summary_counts_goals_and_lists_those_no_sequence_reaches() {
    let dir = Scratch::new();
    dir.write("gate.fsm", GATE);
    let run = dir.fsmc(&["test", "gate.fsm"]).expect(0);
    let stdout = run.stdout();
    let first = stdout.lines().next().expect("a summary");
    assert!(
        first.starts_with("machine `Gate`: ")
            && first.contains("take 4 of 5 transitions and give 5 of 6 guard outcomes"),
        "{stdout}"
    );
    // `in(closed)` never holds in `opened`.
    assert!(
        stdout.contains(
            "no sequence of events reaches:\n  taking line 11: `on close [in(closed)] -> closed;`\n  \
             its guard true at line 11: `on close [in(closed)] -> closed;`\n"
        ),
        "{stdout}"
    );
}

#[test]
fn written_scripts_replay_in_fsmc_run_to_the_output_written_beside_them() {
    let dir = Scratch::new();
    dir.write("gate.fsm", GATE);
    dir.fsmc(&["test", "gate.fsm", "--out-dir", "suite"]).expect(0);
    let mut n = 1;
    while dir.path(&format!("suite/gate-{n}.jsonl")).exists() {
        let script = dir.read(&format!("suite/gate-{n}.jsonl"));
        let expected = dir.read(&format!("suite/gate-{n}.out"));
        assert!(!expected.is_empty());
        let run = dir.fsmc_with_stdin(&["run", "gate.fsm"], script).expect(0);
        assert_eq!(run.stdout(), expected);
        n += 1;
    }
    assert!(n > 1, "no script written");
}

#[test]
fn a_file_with_errors_is_refused_as_fsmc_check_refuses_it() {
    let dir = Scratch::new();
    dir.write("bad.fsm", "machine M { initial state a { on go -> nowhere; } }");
    let run = dir.fsmc(&["test", "bad.fsm"]).expect(1);
    assert!(run.stderr().contains("nowhere"), "{}", run.stderr());
}

/// `tests/sequences/` holds what `fsmc test NAME.fsm --out-dir .` wrote
/// there for each machine; fsm-tests compiles and runs its Rust tests over
/// the machines `fsm!` generates. Regenerate with that command when this
/// fails on a deliberate change.
#[test]
fn the_checked_in_suites_are_what_fsmc_test_writes() {
    let checked_in = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/sequences");
    let mut machines = 0;
    for entry in std::fs::read_dir(&checked_in).expect("tests/sequences") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "fsm") {
            continue;
        }
        machines += 1;
        let name = path.file_name().and_then(|n| n.to_str()).expect("a UTF-8 name");
        let dir = Scratch::new();
        dir.write(name, &std::fs::read_to_string(&path).expect("readable"));
        dir.fsmc(&["test", name, "--out-dir", "."]).expect(0);
        let stem = name.trim_end_matches(".fsm");
        let mut written: Vec<String> = std::fs::read_dir(dir.path("."))
            .expect("the scratch directory")
            .map(|e| e.expect("an entry").file_name().into_string().expect("UTF-8"))
            .filter(|n| n != name)
            .collect();
        written.sort();
        assert!(
            written.iter().any(|n| n == &format!("{stem}_tests.rs")),
            "{written:?}"
        );
        for file in written {
            let ours = std::fs::read_to_string(checked_in.join(&file))
                .unwrap_or_else(|e| panic!("tests/sequences/{file}: {e}; regenerate it"));
            assert_eq!(
                dir.read(&file),
                ours,
                "tests/sequences/{file} is stale; regenerate it"
            );
        }
    }
    assert_eq!(machines, 3);
}
