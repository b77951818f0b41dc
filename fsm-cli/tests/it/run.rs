//! End-to-end tests of `fsmc run`: the JSON lines it answers for every
//! input, the human format, its errors and exit statuses, and the sessions
//! the README and docs/run.md show.

use crate::harness;

use harness::{Run, Scratch};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const DOOR: &str = "\
/// A door that can be locked.
machine Door {
    initial state closed {
        on open -> opened;
        on lock [has_key] -> locked emit engage_bolt;
    }
    state opened { on close -> closed; }
    state locked { on unlock -> closed emit release_bolt; }
}
";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The text of a file of the workspace.
fn workspace_file(relative: &str) -> String {
    std::fs::read_to_string(workspace().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// A scratch directory holding `machine.fsm`.
fn with_machine(text: &str) -> Scratch {
    let dir = Scratch::new();
    dir.write("machine.fsm", text);
    dir
}

/// `fsmc run machine.fsm ARGS` on `input`.
fn run(dir: &Scratch, args: &[&str], input: &str) -> Run {
    let mut all = vec!["run", "machine.fsm"];
    all.extend_from_slice(args);
    dir.fsmc_with_stdin(&all, input)
}

/// The input lines, one per line.
fn lines(input: &[&str]) -> String {
    input.iter().map(|line| format!("{line}\n")).collect()
}

/// Run `input` through `text`'s machine and check its stdout, line by line,
/// and its exit status.
fn session(text: &str, args: &[&str], input: &[&str], expected: &[&str], code: i32) {
    let dir = with_machine(text);
    let run = run(&dir, args, &lines(input)).expect(code);
    assert_eq!(run.stdout(), lines(expected), "stderr:\n{}", run.stderr());
}

#[test]
fn a_door_fires_refuses_and_reads_its_guards_from_the_table() {
    session(
        DOOR,
        &[],
        &[
            r#"{"fire": "open"}"#,
            r#"{"fire": "open"}"#,
            r#"{"fire": "close"}"#,
            r#"{"fire": "lock"}"#,
            r#"{"guards": {"has_key": true}}"#,
            r#"{"fire": "lock"}"#,
            r#"{"fire": "unlock", "payload": {"by": "me"}}"#,
        ],
        &[
            r#"{"ok":true,"from":"closed","to":"opened","outputs":[],"effects":[]}"#,
            r#"{"ok":false,"error":"invalid-transition","state":"opened","action":"open","valid":["close"]}"#,
            r#"{"ok":true,"from":"opened","to":"closed","outputs":[],"effects":[]}"#,
            r#"{"ok":false,"error":"guard-rejected","state":"closed","action":"lock","candidates":[{"guard":"has_key","target":"locked"}]}"#,
            r#"{"guards":{"has_key":true}}"#,
            r#"{"ok":true,"from":"closed","to":"locked","outputs":["engage_bolt"],"effects":[]}"#,
            r#"{"ok":true,"from":"locked","to":"closed","outputs":["release_bolt"],"effects":[]}"#,
        ],
        0,
    );
}

#[test]
fn a_refusal_names_every_candidate_with_its_guard_and_target() {
    let text = "machine M {
        initial state a {
            on go [(x && !y) || z] priority 1 -> b;
            on go [!x && y];
        }
        state b;
    }";
    session(
        text,
        &[],
        &[r#"{"fire": "go"}"#],
        &[
            r#"{"ok":false,"error":"guard-rejected","state":"a","action":"go","candidates":[{"guard":"x && !y || z","target":"b"},{"guard":"!x && y","target":null}]}"#,
        ],
        0,
    );
}

#[test]
fn an_internal_transition_stays_and_effects_are_recorded_in_order() {
    let text = "machine M {
        context Ctx;
        action add(u32), go;
        effect count, note(u32), bye, hello;
        initial state a {
            exit do bye;
            on add do note, count;
            on go -> b do count;
        }
        state b { enter do hello; }
    }";
    session(
        text,
        &[],
        &[r#"{"fire": "add", "payload": 3}"#, r#"{"fire": "go"}"#],
        &[
            r#"{"ok":true,"from":"a","to":"a","outputs":[],"effects":["note","count"]}"#,
            r#"{"ok":true,"from":"a","to":"b","outputs":[],"effects":["bye","count","hello"]}"#,
        ],
        0,
    );
}

#[test]
fn the_phone_call_reports_leaves_history_and_its_composite_timer() {
    let text = workspace_file("tests/fixtures/ok/phone-call.fsm");
    session(
        &text,
        &[],
        &[
            r#"{"fire": "dial"}"#,
            r#"{"fire": "answered"}"#,
            r#"{"fire": "hold"}"#,
            r#"{"fire": "pause"}"#,
            r#"{"fire": "hang_up"}"#,
            r#"{"fire": "resume"}"#,
            r#"{"advance": "1h"}"#,
            r#"{"fire": "hang_up"}"#,
            r#"{"fire": "dial"}"#,
            r#"{"fire": "answered"}"#,
            r#"{"advance": "2h"}"#,
        ],
        &[
            r#"{"ok":true,"from":"idle","to":"connecting","outputs":[],"effects":[]}"#,
            r#"{"ok":true,"from":"connecting","to":"talking","outputs":["start_billing"],"effects":[]}"#,
            r#"{"ok":true,"from":"talking","to":"on_hold","outputs":[],"effects":[]}"#,
            r#"{"ok":true,"from":"on_hold","to":"paused","outputs":["stop_billing"],"effects":[]}"#,
            r#"{"ok":false,"error":"invalid-transition","state":"paused","action":"hang_up","valid":["resume"]}"#,
            r#"{"ok":true,"from":"paused","to":"on_hold","outputs":["start_billing"],"effects":[]}"#,
            r#"{"now":"1970-01-01T01:00:00.000Z","fired":[]}"#,
            r#"{"ok":true,"from":"on_hold","to":"idle","outputs":["stop_billing","log_abandoned"],"effects":[]}"#,
            r#"{"ok":true,"from":"idle","to":"connecting","outputs":[],"effects":[]}"#,
            r#"{"ok":true,"from":"connecting","to":"talking","outputs":["start_billing"],"effects":[]}"#,
            r#"{"now":"1970-01-01T03:00:00.000Z","fired":[{"ok":true,"timer":true,"from":"talking","to":"idle","outputs":["stop_billing","cut_off"],"effects":[],"due":"1970-01-01T03:00:00.000Z","after":"2h","declared_in":"connected"}]}"#,
        ],
        0,
    );
}

#[test]
fn a_timer_armed_by_a_firing_is_measured_from_it_and_fires_in_the_same_advance() {
    let text = workspace_file("tests/fixtures/ok/context-timers.fsm");
    session(
        &text,
        &["--delay", "backoff=1m"],
        &[
            r#"{"guards": {"retries_left": true}}"#,
            r#"{"fire": "start", "payload": ["call"]}"#,
            r#"{"advance": "11m30s"}"#,
            r#"{"advance": "12m"}"#,
        ],
        &[
            r#"{"guards":{"retries_left":true,"urgent":false}}"#,
            r#"{"ok":true,"from":"idle","to":"calling","outputs":["started"],"effects":["remember","arm"]}"#,
            r#"{"error":"`advance` takes a duration like `90s` (digits, then `ms`, `s`, `m` or `h`), not `11m30s`","line":3}"#,
            concat!(
                r#"{"now":"1970-01-01T00:12:00.000Z","fired":["#,
                r#"{"ok":true,"timer":true,"from":"calling","to":"calling","outputs":["log_slow"],"effects":[],"due":"1970-01-01T00:00:30.000Z","after":"30s","declared_in":"calling"},"#,
                r#"{"ok":true,"timer":true,"from":"calling","to":"waiting","outputs":["stopped"],"effects":["disarm","count_retry"],"due":"1970-01-01T00:10:00.000Z","after":"10m","declared_in":"calling"},"#,
                r#"{"ok":true,"timer":true,"from":"waiting","to":"calling","outputs":["started"],"effects":["arm"],"due":"1970-01-01T00:11:00.000Z","after":"backoff","declared_in":"waiting"},"#,
                r#"{"ok":true,"timer":true,"from":"calling","to":"calling","outputs":["log_slow"],"effects":[],"due":"1970-01-01T00:11:30.000Z","after":"30s","declared_in":"calling"}"#,
                r#"]}"#
            ),
        ],
        1,
    );
}

#[test]
fn a_timer_group_whose_guards_all_fail_is_reported_and_disarmed() {
    let text = "machine M {
        initial state waiting {
            after 5s [urgent] -> failed;
            after 5s [ready] priority 1 -> done;
            after 1m -> failed;
        }
        terminal state done;
        terminal state failed;
    }";
    session(
        text,
        &[],
        &[r#"{"advance": "10s"}"#, r#"{"snapshot": true}"#, r#"{"advance": "1m"}"#],
        &[
            r#"{"now":"1970-01-01T00:00:10.000Z","fired":[{"ok":false,"timer":true,"error":"timer-rejected","state":"waiting","due":"1970-01-01T00:00:05.000Z","after":"5s","declared_in":"waiting"}]}"#,
            r#"{"snapshot":{"type":"fsm","machine":"M","fingerprint":"FINGERPRINT","current_state":"waiting","timers":[{"state":"waiting","timer":2,"due":"1970-01-01T00:01:00.000Z"}]}}"#
                .replace("FINGERPRINT", &fingerprint(text))
                .as_str(),
            r#"{"now":"1970-01-01T00:01:10.000Z","fired":[{"ok":true,"timer":true,"from":"waiting","to":"failed","outputs":[],"effects":[],"due":"1970-01-01T00:01:00.000Z","after":"1m","declared_in":"waiting"}]}"#,
        ],
        0,
    );
}

#[test]
fn the_clock_stops_a_week_before_the_last_timestamp() {
    // A timer that re-arms itself, restored due a second before the last
    // time a run reaches: it fires once there, and its next deadline is
    // past the end.
    let text = "machine M { initial state a { after 1s -> a emit tick; on stop -> b; } terminal state b; }";
    let restore = format!(
        r#"{{"restore": {{"type":"fsm","machine":"M","fingerprint":"{}","current_state":"a","timers":[{{"state":"a","timer":0,"due":"9999-12-24T23:59:59.000Z"}}]}}}}"#,
        fingerprint(text)
    );
    session(
        text,
        &[],
        &[
            &restore,
            r#"{"advance": "253401695999999ms"}"#,
            r#"{"advance": "1ms"}"#,
            r#"{"advance": "0s"}"#,
        ],
        &[
            r#"{"restored":true,"state":"a"}"#,
            r#"{"now":"9999-12-24T23:59:59.999Z","fired":[{"ok":true,"timer":true,"from":"a","to":"a","outputs":["tick"],"effects":[],"due":"9999-12-24T23:59:59.000Z","after":"1s","declared_in":"a"}]}"#,
            r#"{"error":"advancing by 1ms from 9999-12-24T23:59:59.999Z would pass 9999-12-24T23:59:59.999Z, the last time a run reaches (a week before the last timestamp, so that every deadline fits)","line":3}"#,
            r#"{"now":"9999-12-24T23:59:59.999Z","fired":[]}"#,
        ],
        1,
    );
}

/// The fingerprint of the only machine of `text`.
fn fingerprint(text: &str) -> String {
    let model = fsm_grammar::check(text).into_model().expect("a clean machine");
    model.machines[0].fingerprint()
}

#[test]
fn timers_due_together_each_list_their_own_effects() {
    // At 1s both are due: the leaf's first (innermost), which leaves `a`
    // for `b`, then the composite's, an internal timer.
    let text = "machine M {
        context Ctx;
        effect bye_a, own_a, hello_b, own_up, bye_up;
        initial state up {
            exit do bye_up;
            after 1s do own_up;
            initial state a { exit do bye_a; after 1s -> b do own_a; }
            state b { enter do hello_b; }
        }
    }";
    session(
        text,
        &[],
        &[r#"{"advance": "1s"}"#],
        &[concat!(
            r#"{"now":"1970-01-01T00:00:01.000Z","fired":["#,
            r#"{"ok":true,"timer":true,"from":"a","to":"b","outputs":[],"effects":["bye_a","own_a","hello_b"],"due":"1970-01-01T00:00:01.000Z","after":"1s","declared_in":"a"},"#,
            r#"{"ok":true,"timer":true,"from":"b","to":"b","outputs":[],"effects":["own_up"],"due":"1970-01-01T00:00:01.000Z","after":"1s","declared_in":"up"}"#,
            r#"]}"#
        )],
        0,
    );
}

#[test]
fn snapshots_restore_with_their_timers_and_refuse_another_machine() {
    let text = workspace_file("tests/fixtures/ok/phone-call.fsm");
    let dir = with_machine(&text);
    let first = run(
        &dir,
        &[],
        &lines(&[
            r#"{"fire": "dial"}"#,
            r#"{"fire": "answered"}"#,
            r#"{"advance": "30m"}"#,
            r#"{"snapshot": true}"#,
        ]),
    )
    .expect(0);
    let snapshot = first.stdout().lines().last().unwrap().to_owned();
    let snapshot: serde_json::Value = serde_json::from_str(&snapshot).unwrap();
    let snapshot = snapshot["snapshot"].to_string();
    assert!(
        snapshot.contains(r#""due":"1970-01-01T02:00:00.000Z""#),
        "{snapshot}"
    );

    // In a fresh run, at the epoch: the timer keeps its deadline.
    let restore = format!(r#"{{"restore": {snapshot}}}"#);
    let door = Scratch::new();
    door.write("door.fsm", DOOR);
    session(
        &text,
        &[],
        &[
            r#"{"fire": "dial"}"#,
            &restore,
            r#"{"fire": "hold"}"#,
            r#"{"advance": "2h30m"}"#,
            r#"{"advance": "150m"}"#,
        ],
        &[
            r#"{"ok":true,"from":"idle","to":"connecting","outputs":[],"effects":[]}"#,
            r#"{"restored":true,"state":"talking"}"#,
            r#"{"ok":true,"from":"talking","to":"on_hold","outputs":[],"effects":[]}"#,
            r#"{"error":"`advance` takes a duration like `90s` (digits, then `ms`, `s`, `m` or `h`), not `2h30m`","line":4}"#,
            r#"{"now":"1970-01-01T02:30:00.000Z","fired":[{"ok":true,"timer":true,"from":"on_hold","to":"idle","outputs":["stop_billing","cut_off"],"effects":[],"due":"1970-01-01T02:00:00.000Z","after":"2h","declared_in":"connected"}]}"#,
        ],
        1,
    );
    let run = door.fsmc_with_stdin(&["run", "door.fsm"], lines(&[&restore]));
    let run = run.expect(1);
    let out = run.stdout();
    assert!(
        out.starts_with(r#"{"error":"cannot restore: the snapshot is of machine `Call`"#),
        "{out}"
    );
    assert!(out.ends_with("\"line\":1}\n"), "{out}");
}

#[test]
fn a_snapshot_that_lost_an_armed_timer_is_refused_naming_state_and_timer() {
    let text = workspace_file("tests/fixtures/ok/phone-call.fsm");
    let dir = with_machine(&text);
    let first = run(
        &dir,
        &[],
        &lines(&[
            r#"{"fire": "dial"}"#,
            r#"{"fire": "answered"}"#,
            r#"{"snapshot": true}"#,
        ]),
    )
    .expect(0);
    let snapshot = first.stdout().lines().last().unwrap().to_owned();
    let mut snapshot: serde_json::Value = serde_json::from_str(&snapshot).unwrap();
    // The `after 2h` of `connected`, armed whenever `connected` is active.
    let timers = snapshot["snapshot"].as_object_mut().unwrap().remove("timers");
    assert!(timers.is_some_and(|t| t.as_array().is_some_and(|t| !t.is_empty())));
    let restore = format!(r#"{{"restore": {}}}"#, snapshot["snapshot"]);
    let refused = run(&dir, &[], &lines(&[&restore])).expect(1);
    assert_eq!(
        refused.stdout(),
        "{\"error\":\"cannot restore: the snapshot of machine `Call` arms no timer `after 2h` of state \
         `connected`, which is armed whenever `connected` is active; run with `--missing-timers \
         rearm` to arm it from the time of the restore\",\"line\":1}\n"
    );
    // The flag the hint names re-arms it from the time of the restore.
    let rearmed = run(
        &dir,
        &["--missing-timers", "rearm"],
        &lines(&[r#"{"advance": "1h"}"#, &restore, r#"{"snapshot": true}"#]),
    )
    .expect(0);
    let out = rearmed.stdout();
    assert!(out.contains(r#"{"restored":true,"state":"talking"}"#), "{out}");
    assert!(out.contains(r#""due":"1970-01-01T03:00:00.000Z""#), "{out}");
}

#[test]
fn a_snapshot_of_another_definition_is_refused_with_the_flag_that_accepts_it() {
    let dir = with_machine(DOOR);
    let first = run(
        &dir,
        &[],
        &lines(&[r#"{"fire": "open"}"#, r#"{"snapshot": true}"#]),
    )
    .expect(0);
    let snapshot = first.stdout().lines().last().unwrap().to_owned();
    let mut snapshot: serde_json::Value = serde_json::from_str(&snapshot).unwrap();
    snapshot["snapshot"]["fingerprint"] = "0123456789abcdef".into();
    let restore = format!(r#"{{"restore": {}}}"#, snapshot["snapshot"]);
    let refused = run(&dir, &[], &lines(&[&restore])).expect(1);
    let out = refused.stdout();
    assert!(
        out.contains("was taken from a different definition (fingerprint 0123456789abcdef")
            && out.contains("run with `--fingerprint ignore` to accept it"),
        "{out}"
    );
    let accepted = run(&dir, &["--fingerprint", "ignore"], &lines(&[&restore])).expect(0);
    assert_eq!(accepted.stdout(), "{\"restored\":true,\"state\":\"opened\"}\n");
}

#[test]
fn a_restore_that_is_no_snapshot_is_an_input_error() {
    session(
        DOOR,
        &[],
        &[
            r#"{"restore": {"type": "fsm"}}"#,
            r#"{"restore": 3}"#,
            r#"{"fire": "open"}"#,
        ],
        &[
            r#"{"error":"not a snapshot: missing field `machine`","line":1}"#,
            r#"{"error":"not a snapshot: `restore` takes an object as `{\"snapshot\": true}` prints it, with `type`, `machine`, `fingerprint` and `current_state` for machine `Door`, not a number","line":2}"#,
            r#"{"ok":true,"from":"closed","to":"opened","outputs":[],"effects":[]}"#,
        ],
        1,
    );
}

#[test]
fn a_restore_that_is_no_snapshot_names_the_configuration_for_a_machine_with_parallel_states() {
    session(
        "machine Split {\n    initial parallel state both {\n        state left { initial state l1 { on go -> l2; } \
         final state l2; }\n        state right { initial state r1 { on go -> r2; } final state r2; }\n        done -> over;\n    }\n    terminal state over;\n}\n",
        &[],
        &[r#"{"restore": 5}"#],
        &[
            r#"{"error":"not a snapshot: `restore` takes an object as `{\"snapshot\": true}` prints it, with `type`, `machine`, `fingerprint` and `configuration` (its active leaves) for machine `Split`, not a number","line":1}"#,
        ],
        1,
    );
}

#[test]
fn every_unreadable_line_is_an_error_and_the_run_goes_on() {
    let input = [
        "nonsense",
        "[1, 2]",
        "{}",
        r#"{"fire": "open", "advance": "1s"}"#,
        r#"{"fire": "open", "payloads": 1}"#,
        r#"{"advance": "1s", "payload": 1}"#,
        r#"{"fire": 3}"#,
        r#"{"fire": "opne"}"#,
        r#"{"guards": {"has_kye": true}}"#,
        r#"{"guards": {"has_key": 1}}"#,
        r#"{"guards": [true]}"#,
        r#"{"delays": {"backoff": "1s"}}"#,
        r#"{"delays": 1}"#,
        r#"{"advance": 90}"#,
        r#"{"advance": "1d"}"#,
        r#"{"advance": "999999999999h"}"#,
        r#"{"snapshot": false}"#,
        r#"{"fire": "open", "fire": "close"}"#,
        r#"{"fire": "open"}"#,
    ];
    session(
        DOOR,
        &[],
        &input,
        &[
            r#"{"error":"not JSON: expected ident at column 2","line":1}"#,
            r#"{"error":"expected a JSON object with one of `fire`, `guards`, `delays`, `advance`, `snapshot` or `restore`, like {\"fire\": \"start\"}","line":2}"#,
            r#"{"error":"expected one of `fire`, `guards`, `delays`, `advance`, `snapshot` or `restore`, like {\"fire\": \"start\"}","line":3}"#,
            r#"{"error":"one command per line: this one has both `fire` and `advance`","line":4}"#,
            r#"{"error":"unknown key `payloads` (a line with `fire` has only `fire` and `payload`)","line":5}"#,
            r#"{"error":"unknown key `payload` (a line with `advance` has no other key)","line":6}"#,
            r#"{"error":"`fire` takes an action's name, like {\"fire\": \"start\"}","line":7}"#,
            r#"{"error":"unknown action `opne` in machine `Door`; expected one of `open`, `lock`, `close`, `unlock` (did you mean `open`?)","line":8}"#,
            r#"{"error":"machine `Door` has no guard `has_kye`; did you mean `has_key`?","line":9}"#,
            r#"{"error":"guard `has_key` is true or false, not 1","line":10}"#,
            r#"{"error":"`guards` takes an object of guard names and values, like {\"guards\": {\"ready\": true}}","line":11}"#,
            r#"{"error":"machine `Door` has no delay `backoff`; it has no delays","line":12}"#,
            r#"{"error":"`delays` takes an object of delay names and durations, like {\"delays\": {\"backoff\": \"30s\"}}","line":13}"#,
            r#"{"error":"`advance` takes a duration as a string, like {\"advance\": \"90s\"}","line":14}"#,
            r#"{"error":"`advance` takes a duration like `90s` (digits, then `ms`, `s`, `m` or `h`), not `1d`","line":15}"#,
            r#"{"error":"advancing by 999999999999h from 1970-01-01T00:00:00.000Z would pass 9999-12-24T23:59:59.999Z, the last time a run reaches (a week before the last timestamp, so that every deadline fits)","line":16}"#,
            r#"{"error":"write {\"snapshot\": true} to print the snapshot","line":17}"#,
            r#"{"error":"not JSON: duplicate key `fire` at column 23","line":18}"#,
            r#"{"ok":true,"from":"closed","to":"opened","outputs":[],"effects":[]}"#,
        ],
        1,
    );
}

#[test]
fn a_guard_table_update_with_an_error_changes_nothing() {
    session(
        DOOR,
        &[],
        &[
            r#"{"guards": {"has_key": true, "nope": true}}"#,
            r#"{"guards": {}}"#,
        ],
        &[
            r#"{"error":"machine `Door` has no guard `nope`; its guards are `has_key`","line":1}"#,
            r#"{"guards":{"has_key":false}}"#,
        ],
        1,
    );
}

#[test]
fn blank_lines_are_skipped_but_counted_and_crlf_and_bad_utf8_are_handled() {
    let dir = with_machine(DOOR);
    let mut input = b"\n{\"fire\": \"open\"}\r\n   \n".to_vec();
    input.extend_from_slice(b"{\"fire\": \"\xff\"}\n{\"fire\": \"close\"}");
    let run = dir.fsmc_with_stdin(&["run", "machine.fsm"], input).expect(1);
    assert_eq!(
        run.stdout(),
        lines(&[
            r#"{"ok":true,"from":"closed","to":"opened","outputs":[],"effects":[]}"#,
            r#"{"error":"the line is not UTF-8 (byte 11 is not)","line":4}"#,
            r#"{"ok":true,"from":"opened","to":"closed","outputs":[],"effects":[]}"#,
        ])
    );
}

#[test]
fn delays_come_from_flags_and_lines_and_each_is_needed() {
    let text = workspace_file("tests/fixtures/ok/context-timers.fsm");
    let dir = with_machine(&text);
    let run_ = run(&dir, &[], "").expect(2);
    assert_eq!(
        run_.stderr(),
        "error: machine `Call` declares the named delay `backoff`, which Rust code computes and \
         `fsmc run` cannot; give it a value\nhelp: add `--delay backoff=30s` (durations are written \
         like `250ms`, `30s`, `10m`, `2h`)\n"
    );
    assert_eq!(run_.stdout(), "");
    for (flag, message) in [
        (
            "backof=1s",
            "--delay backof=1s: machine `Call` has no delay `backof`; did you mean `backoff`?",
        ),
        (
            "backoff",
            "--delay backoff: expected NAME=DURATION, like `--delay backoff=30s`",
        ),
        (
            "backoff=0s",
            "--delay backoff=0s: `0s` is not a duration like `250ms`, `30s`, `10m` or `2h`: zero",
        ),
        (
            "backoff=8d",
            "--delay backoff=8d: `8d` is not a duration like `250ms`, `30s`, `10m` or `2h`: unknown unit `d`",
        ),
    ] {
        let run_ = run(&dir, &["--delay", flag], "").expect(2);
        assert_eq!(run_.stderr(), format!("error: {message}\n"));
    }
    let run_ = run(&dir, &["--delay", "backoff=1s", "--delay", "backoff=2s"], "").expect(2);
    assert_eq!(
        run_.stderr(),
        "error: --delay backoff=2s: delay `backoff` is given twice\n"
    );

    // A `delays` line changes the value for timers armed from then on.
    session(
        &text,
        &["--delay", "backoff=1m"],
        &[
            r#"{"delays": {"backoff": "90000ms"}}"#,
            r#"{"delays": {"backoff": "0s"}}"#,
            r#"{"delays": {"backoff": 30}}"#,
            r#"{"fire": "start", "payload": []}"#,
            r#"{"guards": {"retries_left": true}}"#,
            r#"{"advance": "10m"}"#,
            r#"{"advance": "90s"}"#,
        ],
        &[
            r#"{"delays":{"backoff":"90s"}}"#,
            r#"{"error":"delay `backoff`: `0s` is not a duration like `250ms`, `30s`, `10m` or `2h`: zero","line":2}"#,
            r#"{"error":"delay `backoff` takes a duration as a string, like \"30s\", not 30","line":3}"#,
            r#"{"ok":true,"from":"idle","to":"calling","outputs":["started"],"effects":["remember","arm"]}"#,
            r#"{"guards":{"retries_left":true,"urgent":false}}"#,
            concat!(
                r#"{"now":"1970-01-01T00:10:00.000Z","fired":["#,
                r#"{"ok":true,"timer":true,"from":"calling","to":"calling","outputs":["log_slow"],"effects":[],"due":"1970-01-01T00:00:30.000Z","after":"30s","declared_in":"calling"},"#,
                r#"{"ok":true,"timer":true,"from":"calling","to":"waiting","outputs":["stopped"],"effects":["disarm","count_retry"],"due":"1970-01-01T00:10:00.000Z","after":"10m","declared_in":"calling"}"#,
                r#"]}"#
            ),
            r#"{"now":"1970-01-01T00:11:30.000Z","fired":[{"ok":true,"timer":true,"from":"waiting","to":"calling","outputs":["started"],"effects":["arm"],"due":"1970-01-01T00:11:30.000Z","after":"backoff","declared_in":"waiting"}]}"#,
        ],
        1,
    );
}

#[test]
fn a_context_comes_from_a_file_for_a_machine_that_declares_one() {
    let text = workspace_file("tests/fixtures/ok/context-timers.fsm");
    let dir = with_machine(&text);
    dir.write("context.json", r#"{"retries": 2}"#);
    dir.write("bad.json", r#"{"retries": 2, "retries": 3}"#);
    let out = run(
        &dir,
        &["--delay", "backoff=1m", "--context", "context.json"],
        "{\"snapshot\": true}\n",
    )
    .expect(0)
    .stdout();
    assert!(
        out.contains(r#""current_state":"idle","context":{"retries":2}}}"#),
        "{out}"
    );
    let out = run(&dir, &["--delay", "backoff=1m"], "{\"snapshot\": true}\n")
        .expect(0)
        .stdout();
    assert!(out.contains(r#""context":null}}"#), "{out}");

    let run_ = run(&dir, &["--delay", "backoff=1m", "--context", "bad.json"], "").expect(2);
    assert_eq!(
        run_.stderr(),
        "error: `bad.json` is not a JSON context: duplicate key `retries` at line 1 column 24\n"
    );
    let run_ = run(&dir, &["--delay", "backoff=1m", "--context", "missing.json"], "").expect(2);
    assert!(
        run_.stderr().starts_with("error: cannot read `missing.json`"),
        "{}",
        run_.stderr()
    );

    let dir = with_machine(DOOR);
    dir.write("context.json", "{}");
    let run_ = run(&dir, &["--context", "context.json"], "").expect(2);
    assert_eq!(
        run_.stderr(),
        "error: machine `Door` declares no context, so --context has nothing to set\nhelp: declare \
         one with `context Type;` in the machine, or leave out --context\n"
    );
}

#[test]
fn a_file_with_several_machines_needs_machine() {
    let dir = Scratch::new();
    dir.write(
        "machine.fsm",
        &workspace_file("tests/fixtures/ok/multiple-machines.fsm"),
    );
    let run_ = run(&dir, &[], "").expect(2);
    assert_eq!(
        run_.stderr(),
        "error: `machine.fsm` defines `TrafficLight` and `Button`; choose one with --machine\n"
    );
    let run_ = run(&dir, &["--machine", "Buton"], "").expect(2);
    assert_eq!(
        run_.stderr(),
        "error: `machine.fsm` defines no machine named `Buton`; did you mean `Button`?\n"
    );
    let out = run(&dir, &["--machine", "Button"], "{\"fire\": \"press\"}\n")
        .expect(0)
        .stdout();
    assert_eq!(
        out,
        "{\"ok\":true,\"from\":\"idle\",\"to\":\"waiting\",\"outputs\":[\"request_crossing\"],\"effects\":[]}\n"
    );
}

#[test]
fn a_machine_with_errors_is_refused_as_check_reports_it() {
    let broken = DOOR.replace("on open -> opened;", "on open -> opend;");
    let dir = with_machine(&broken);
    let run_ = run(&dir, &[], "{\"fire\": \"open\"}\n").expect(1);
    assert_eq!(run_.stdout(), "");
    let check = dir.fsmc(&["check", "machine.fsm"]).expect(1);
    assert_eq!(
        run_.stderr_before_summary(),
        check.stderr_before_summary(),
        "the same diagnostics as `fsmc check`"
    );
    assert_eq!(run_.summary(), "error: `machine.fsm` has 1 error; nothing run");

    let dir = with_machine("// nothing here\n");
    let run_ = run(&dir, &[], "").expect(1);
    assert!(
        run_.stderr().contains("defines no machine; nothing run"),
        "{}",
        run_.stderr()
    );
    let run_ = Scratch::new().fsmc(&["run", "missing.fsm"]).expect(2);
    assert!(
        run_.stderr().starts_with("error: cannot read `missing.fsm`"),
        "{}",
        run_.stderr()
    );
}

#[test]
fn events_come_from_a_file() {
    let dir = with_machine(DOOR);
    dir.write("events.jsonl", "{\"fire\": \"open\"}\n{\"fire\": \"close\"}\n");
    let out = run(&dir, &["--events", "events.jsonl"], "{\"fire\": \"lock\"}\n")
        .expect(0)
        .stdout();
    assert_eq!(
        out,
        lines(&[
            r#"{"ok":true,"from":"closed","to":"opened","outputs":[],"effects":[]}"#,
            r#"{"ok":true,"from":"opened","to":"closed","outputs":[],"effects":[]}"#,
        ])
    );
    let out = run(&dir, &["--events", "-"], "{\"fire\": \"open\"}\n")
        .expect(0)
        .stdout();
    assert_eq!(
        out,
        lines(&[r#"{"ok":true,"from":"closed","to":"opened","outputs":[],"effects":[]}"#])
    );
    let run_ = run(&dir, &["--events", "missing.jsonl"], "").expect(2);
    assert!(
        run_.stderr().starts_with("error: cannot read `missing.jsonl`"),
        "{}",
        run_.stderr()
    );
}

#[test]
fn the_human_format_prints_a_readable_line_per_step() {
    let text = workspace_file("tests/fixtures/ok/context-timers.fsm");
    let dir = with_machine(&text);
    let input = lines(&[
        r#"{"fire": "start", "payload": []}"#,
        r#"{"fire": "start"}"#,
        r#"{"fire": "escalate"}"#,
        r#"{"guards": {"retries_left": true}}"#,
        r#"{"delays": {"backoff": "2m"}}"#,
        r#"{"advance": "10m"}"#,
        r#"{"restore": {}}"#,
        "oops",
    ]);
    let run_ = run(&dir, &["--delay", "backoff=1m", "--format", "human"], &input).expect(1);
    assert_eq!(
        run_.stdout(),
        "\
`idle` --start--> `calling` (emit `started`) (do `remember`, `arm`)
refused: action `start` is not valid in state `calling`; valid actions: `finished`, `cancel`, `escalate`
refused: action `escalate` rejected in state `calling`: guard `urgent` was false (-> failed)
guards: retries_left = true, urgent = false
delays: backoff = 2m
at 1970-01-01T00:00:30.000Z: `calling` --after 30s--> `calling` (emit `log_slow`)
at 1970-01-01T00:10:00.000Z: `calling` --after 10m--> `waiting` (emit `stopped`) (do `disarm`, `count_retry`)
now 1970-01-01T00:10:00.000Z
line 7: error: not a snapshot: missing field `type`
line 8: error: not JSON: expected value at column 1
"
    );

    let text = "machine M { initial state a { after 1s [ok] -> b; } state b; }";
    let dir = with_machine(text);
    let input = lines(&[
        r#"{"advance": "2s"}"#,
        r#"{"snapshot": true}"#,
        r#"{"restore": SNAP}"#,
    ]);
    let snapshot = format!(
        r#"{{"type":"fsm","machine":"M","fingerprint":"{}","current_state":"b"}}"#,
        fingerprint(text)
    );
    let input = input.replace("SNAP", &snapshot);
    let run_ = run(&dir, &["--format", "human"], &input).expect(0);
    assert_eq!(
        run_.stdout(),
        format!(
            "\
at 1970-01-01T00:00:01.000Z: rejected: timer 0 of `a` came due at 1970-01-01T00:00:01.000Z and no guard of its group held
now 1970-01-01T00:00:02.000Z
snapshot: {{\"type\":\"fsm\",\"machine\":\"M\",\"fingerprint\":\"{}\",\"current_state\":\"a\"}}
restored: in `b`
",
            fingerprint(text)
        )
    );
}

#[test]
fn the_human_format_shows_each_always_and_done_step() {
    let text = "\
machine Chain {
    initial state idle { on go -> check; }
    state check { always [ok] -> fast emit quick; always -> slow; }
    state fast { on back -> idle; }
    state slow { after 1s -> work; }
    parallel state work {
        state a { initial state a1 { always -> a2; } final state a2; }
        done -> idle;
    }
}
";
    let dir = with_machine(text);
    let input = lines(&[
        r#"{"guards": {"ok": true}}"#,
        r#"{"fire": "go"}"#,
        r#"{"fire": "back"}"#,
        r#"{"guards": {"ok": false}}"#,
        r#"{"fire": "go"}"#,
        r#"{"advance": "1s"}"#,
    ]);
    let run_ = run(&dir, &["--format", "human"], &input).expect(0);
    assert_eq!(
        run_.stdout(),
        "\
guards: ok = true
`idle` --go--> `fast` (emit `quick`)
  then `check` --always--> `fast`
`fast` --back--> `idle`
guards: ok = false
`idle` --go--> `slow`
  then `check` --always--> `slow`
at 1970-01-01T00:00:01.000Z: `slow` --after 1s--> `idle`
  then `a1` --always--> `a2`
  then `work` --done--> `idle`
now 1970-01-01T00:00:01.000Z
"
    );
}

#[test]
fn output_is_written_as_each_line_is_read() {
    // One line in, one line out, before the input ends: a program can
    // drive `fsmc run` interactively.
    let dir = with_machine(DOOR);
    let mut child = Command::new(env!("CARGO_BIN_EXE_fsmc"))
        .args(["run", "machine.fsm"])
        .current_dir(dir.path(""))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run fsmc");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for (input, expected) in [
        ("{\"fire\": \"open\"}\n", "\"to\":\"opened\""),
        ("{\"fire\": \"close\"}\n", "\"to\":\"closed\""),
    ] {
        stdin.write_all(input.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(line.contains(expected), "{line}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_long_run_streams_its_input() {
    // 100,000 lines: memory stays that of one line, and every line answers.
    let dir = with_machine(DOOR);
    let input = "{\"fire\": \"open\"}\n{\"fire\": \"close\"}\n".repeat(50_000);
    let out = run(&dir, &[], &input).expect(0).stdout();
    assert_eq!(out.lines().count(), 100_000);
}

/// The `$ fsmc run ...` sessions of a markdown text: the arguments, the
/// input lines and the output lines. In a session each input line (a JSON
/// object) is followed by what it printed, as a terminal shows it.
fn sessions(text: &str) -> Vec<(Vec<String>, Vec<String>, String)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```text\n$ fsmc run ") {
        let body = &rest[start + "```text\n$ ".len()..];
        let end = body.find("```").expect("every block is closed");
        let block = &body[..end];
        rest = &body[end..];
        let (command, transcript) = block.split_once('\n').unwrap();
        let args: Vec<String> = command.split_whitespace().skip(1).map(str::to_owned).collect();
        let human = args.iter().any(|a| a == "human");
        let mut input = Vec::new();
        let mut output = String::new();
        for (i, line) in transcript.lines().enumerate() {
            // In JSON every other line is input; in the human format every
            // line that is a JSON object.
            let is_input = if human { line.starts_with('{') } else { i % 2 == 0 };
            if is_input {
                input.push(line.to_owned());
            } else {
                output.push_str(line);
                output.push('\n');
            }
        }
        found.push((args, input, output));
    }
    found
}

/// Run every session of the markdown file `relative` in `dir`.
fn check_sessions(relative: &str, dir: &Path) -> usize {
    let text = workspace_file(relative);
    let found = sessions(&text);
    for (args, input, expected) in &found {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fsmc"))
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run fsmc");
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(lines(&input.iter().map(String::as_str).collect::<Vec<_>>()).as_bytes())
            .unwrap();
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_eq!(
            &stdout,
            expected,
            "{relative}: `fsmc {}` prints otherwise; stderr:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    found.len()
}

#[test]
fn the_readme_session_is_what_fsmc_run_prints() {
    let readme = workspace_file("README.md");
    // The README's door is its first machine (DOOR in `fsmc fmt` layout),
    // saved as door.fsm; the guide's page on `fsmc run` runs it.
    let start = readme.find("```fsm\n").unwrap() + "```fsm\n".len();
    let door = &readme[start..start + readme[start..].find("```").unwrap()];
    let fingerprint = |text: &str| fsm_grammar::check(text).model.machines[0].fingerprint();
    assert_eq!(fingerprint(door), fingerprint(DOOR));
    let dir = Scratch::new();
    dir.write("door.fsm", door);
    assert_eq!(check_sessions("docs/trying-machines.md", &dir.path("")), 1);
}

#[test]
fn the_sessions_of_docs_run_md_are_what_fsmc_run_prints() {
    let found = check_sessions("docs/run.md", &workspace());
    assert!(found >= 3, "only {found} sessions in docs/run.md");
}

#[test]
fn a_payload_guard_reads_the_table_and_ignores_the_payload() {
    // `urgent(Option<u8>)` takes the payload, but reads the same table as
    // every other guard: false until set, whatever the payload.
    let text = workspace_file("tests/fixtures/ok/context-timers.fsm");
    session(
        &text,
        &["--delay", "backoff=1m"],
        &[
            r#"{"fire": "start", "payload": ["go"]}"#,
            r#"{"fire": "escalate", "payload": 9}"#,
            r#"{"guards": {"urgent": true}}"#,
            r#"{"fire": "escalate", "payload": null}"#,
        ],
        &[
            r#"{"ok":true,"from":"idle","to":"calling","outputs":["started"],"effects":["remember","arm"]}"#,
            r#"{"ok":false,"error":"guard-rejected","state":"calling","action":"escalate","candidates":[{"guard":"urgent","target":"failed"}]}"#,
            r#"{"guards":{"retries_left":false,"urgent":true}}"#,
            r#"{"ok":true,"from":"calling","to":"failed","outputs":["stopped"],"effects":["disarm"]}"#,
        ],
        0,
    );
}

#[test]
fn a_media_player_runs_its_regions_and_lists_the_transitions_it_took() {
    let text = workspace_file("tests/fixtures/ok/media-player.fsm");
    session(
        &text,
        &[],
        &[
            r#"{"fire": "load"}"#,
            r#"{"fire": "play"}"#,
            r#"{"fire": "mute"}"#,
            r#"{"fire": "volume_up"}"#,
            r#"{"fire": "stop"}"#,
            r#"{"fire": "volume_up"}"#,
            r#"{"fire": "pause"}"#,
            r#"{"fire": "eject"}"#,
        ],
        &[
            r#"{"ok":true,"from":["empty"],"to":["stopped","audible"],"taken":[{"source":"empty","target":"loaded"}],"outputs":["open_track"],"effects":[]}"#,
            r#"{"ok":true,"from":["stopped","audible"],"to":["playing","audible"],"taken":[{"source":"stopped","target":"playing"}],"outputs":["start_audio"],"effects":[]}"#,
            r#"{"ok":true,"from":["playing","audible"],"to":["playing","muted"],"taken":[{"source":"audible","target":"muted"}],"outputs":["mute_output"],"effects":[]}"#,
            r#"{"ok":true,"from":["playing","muted"],"to":["playing","audible"],"taken":[{"source":"muted","target":"audible"}],"outputs":["unmute_output","raise_volume"],"effects":[]}"#,
            // `stop` is the parallel state's, into the playback region: the
            // volume region keeps its state.
            r#"{"ok":true,"from":["playing","audible"],"to":["stopped","audible"],"taken":[{"source":"loaded","target":"stopped"}],"outputs":["stop_audio"],"effects":[]}"#,
            r#"{"ok":true,"from":["stopped","audible"],"to":["stopped","audible"],"taken":[{"source":"audible","target":null}],"outputs":["raise_volume"],"effects":[]}"#,
            r#"{"ok":false,"error":"invalid-transition","state":["stopped","audible"],"action":"pause","valid":["eject","stop","play","mute","volume_up","volume_down"]}"#,
            r#"{"ok":true,"from":["stopped","audible"],"to":["empty"],"taken":[{"source":"loaded","target":"empty"}],"outputs":["close_track"],"effects":[]}"#,
        ],
        0,
    );
}

#[test]
fn a_refused_guard_lists_each_candidate_once_with_its_target_as_written() {
    // `x` on `p` is inherited by both leaves: one candidate, where `a1`
    // tried it, after `a1`'s own, whose target enters a history.
    let text = "\
machine M {
    guard g;
    initial state idle { on go -> p; }
    parallel state p {
        on x [g] -> idle;
        state a { initial state a1 { on x [g] -> p.history; } }
        state b { initial state b1 { } }
    }
}
";
    session(
        text,
        &[],
        &[r#"{"fire": "go"}"#, r#"{"fire": "x"}"#],
        &[
            r#"{"ok":true,"from":["idle"],"to":["a1","b1"],"taken":[{"source":"idle","target":"p"}],"outputs":[],"effects":[]}"#,
            r#"{"ok":false,"error":"guard-rejected","state":["a1","b1"],"action":"x","candidates":[{"guard":"g","target":"p.history"},{"guard":"g","target":"idle"}]}"#,
        ],
        0,
    );
}

#[test]
fn a_done_runs_in_the_same_line_and_a_timer_leaves_every_region() {
    let text = "\
machine Research {
    initial state idle { on start -> collect; }
    parallel state collect {
        on cancel -> cancelled;
        after 10m -> failed emit notify_user;
        done [in(a_done)] priority 1 -> synthesis emit spawn_synthesizer;
        done -> partial_synthesis emit spawn_synthesizer;
        state researcher_a {
            initial state a_running { on a_written -> a_done emit mark_a; on a_failed -> a_gave_up; }
            final state a_done;
            final state a_gave_up;
        }
        state researcher_b {
            initial state b_running { on b_written -> b_done emit mark_b; }
            final state b_done;
        }
    }
    state synthesis { on s_written -> delivered emit deliver; }
    state partial_synthesis { on s_written -> delivered emit deliver; }
    terminal state delivered;
    terminal state cancelled;
    terminal state failed;
}
";
    session(
        text,
        &[],
        &[
            r#"{"fire": "start"}"#,
            r#"{"fire": "a_failed"}"#,
            r#"{"fire": "b_written"}"#,
            r#"{"fire": "s_written"}"#,
        ],
        &[
            r#"{"ok":true,"from":["idle"],"to":["a_running","b_running"],"taken":[{"source":"idle","target":"collect"}],"outputs":[],"effects":[]}"#,
            r#"{"ok":true,"from":["a_running","b_running"],"to":["a_gave_up","b_running"],"taken":[{"source":"a_running","target":"a_gave_up"}],"outputs":[],"effects":[]}"#,
            r#"{"ok":true,"from":["a_gave_up","b_running"],"to":["partial_synthesis"],"taken":[{"source":"b_running","target":"b_done"},{"source":"collect","target":"partial_synthesis"}],"outputs":["mark_b","spawn_synthesizer"],"effects":[]}"#,
            r#"{"ok":true,"from":["partial_synthesis"],"to":["delivered"],"taken":[{"source":"partial_synthesis","target":"delivered"}],"outputs":["deliver"],"effects":[]}"#,
        ],
        0,
    );
    session(
        text,
        &["--format", "human"],
        &[r#"{"fire": "start"}"#, r#"{"fire": "a_written"}"#, r#"{"advance": "10m"}"#],
        &[
            "`idle` --start--> `a_running`, `b_running`",
            "`a_running`, `b_running` --a_written--> `a_done`, `b_running` (emit `mark_a`)",
            "at 1970-01-01T00:10:00.000Z: `a_done`, `b_running` --after 10m of `collect`--> `failed` (emit `notify_user`)",
            "now 1970-01-01T00:10:00.000Z",
        ],
        0,
    );
}

#[test]
fn a_configuration_is_snapshotted_restored_and_checked() {
    let text = workspace_file("tests/fixtures/ok/media-player.fsm");
    let snapshot = r#"{"type":"fsm","machine":"MediaPlayer","fingerprint":"407da5a0fec932aa","configuration":["playing","audible"]}"#;
    let wrong = snapshot.replace(r#"["playing","audible"]"#, r#"["playing","stopped"]"#);
    session(
        &text,
        &[],
        &[
            r#"{"fire": "load"}"#,
            r#"{"fire": "play"}"#,
            r#"{"snapshot": true}"#,
            &format!(r#"{{"restore": {snapshot}}}"#),
            r#"{"fire": "pause"}"#,
            &format!(r#"{{"restore": {wrong}}}"#),
        ],
        &[
            r#"{"ok":true,"from":["empty"],"to":["stopped","audible"],"taken":[{"source":"empty","target":"loaded"}],"outputs":["open_track"],"effects":[]}"#,
            r#"{"ok":true,"from":["stopped","audible"],"to":["playing","audible"],"taken":[{"source":"stopped","target":"playing"}],"outputs":["start_audio"],"effects":[]}"#,
            &format!(r#"{{"snapshot":{snapshot}}}"#),
            r#"{"restored":true,"state":["playing","audible"]}"#,
            r#"{"ok":true,"from":["playing","audible"],"to":["paused","audible"],"taken":[{"source":"playing","target":"paused"}],"outputs":["pause_audio"],"effects":[]}"#,
            r#"{"error":"cannot restore: the snapshot of machine `MediaPlayer` is in `playing`, `stopped`, which is not a configuration of the machine: `stopped` and `playing` are both in region `playback` of `loaded`; a region has one active state","line":6}"#,
        ],
        1,
    );
}
