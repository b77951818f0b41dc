//! End-to-end tests of `fsmc verify`: verdicts and exit statuses, the
//! counterexample as labelled steps, and `--emit-trace`, whose lines
//! `fsmc run` replays to the same configurations.

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
        on close -> closed;
    }
    terminal state locked_out;
}
";

fn with_machine(text: &str) -> Scratch {
    let dir = Scratch::new();
    dir.write("machine.fsm", text);
    dir
}

#[test]
fn a_violation_prints_its_steps_and_exits_1() {
    let dir = with_machine(GATE);
    let run = dir
        .fsmc(&["verify", "machine.fsm", "--never", "in(locked_out)"])
        .expect(1);
    let stdout = run.stdout();
    let (header, steps) = stdout.split_once('\n').expect("a header line");
    assert!(
        header.starts_with("machine `Gate`: 4 states stored ("),
        "{header}"
    );
    assert_eq!(
        steps,
        "never in(locked_out): violated in 2 steps\n  \
         start in `closed`\n  \
         1. fire `open` [guards asked: authorized = true] -> `opening`\n  \
         2. advance 5s (`after 5s` of `opening`) [guards asked: alarm = true] -> `locked_out`\n",
        "{}",
        run.stderr()
    );
}

#[test]
fn properties_that_hold_exit_0() {
    let dir = with_machine(GATE);
    let run = dir
        .fsmc(&[
            "verify",
            "machine.fsm",
            "--recoverable",
            "in(closed) || terminal",
            "--reachable",
            "in(opened)",
        ])
        .expect(0);
    assert!(
        run.stdout()
            .contains("recoverable in(closed) || terminal: holds\n"),
        "{}",
        run.stdout()
    );
    assert!(
        run.stdout()
            .contains("reachable in(opened): reached in 2 steps\n"),
        "{}",
        run.stdout()
    );
}

#[test]
fn the_emitted_trace_replays_in_fsmc_run() {
    let dir = with_machine(GATE);
    dir.fsmc(&[
        "verify",
        "machine.fsm",
        "--never",
        "in(locked_out)",
        "--emit-trace",
        "trace.jsonl",
    ])
    .expect(1);
    let trace = dir.read("trace.jsonl");
    assert_eq!(
        trace,
        "{\"guards\": {\"authorized\": true}}\n{\"fire\": \"open\"}\n\
         {\"guards\": {\"alarm\": true}}\n{\"advance\": \"5s\"}\n"
    );
    let run = dir.fsmc_with_stdin(&["run", "machine.fsm"], trace).expect(0);
    let stdout = run.stdout();
    let last: serde_json::Value =
        serde_json::from_str(stdout.lines().last().expect("a line per input line")).expect("a JSON line");
    assert_eq!(last["fired"][0]["to"], "locked_out", "{stdout}");
}

#[test]
fn a_trace_fsmc_run_cannot_express_is_refused_with_the_reason() {
    let dir = with_machine(
        "machine Decide {
            initial state idle { on go [fast] -> decide; }
            state decide { always [fast] -> quick; }
            terminal state quick;
        }",
    );
    let run = dir
        .fsmc(&[
            "verify",
            "machine.fsm",
            "--never",
            "in(decide)",
            "--emit-trace",
            "t.jsonl",
        ])
        .expect(2);
    assert!(
        run.stdout().contains("never in(decide): violated in 1 step"),
        "{}",
        run.stdout()
    );
    assert!(
        run.stderr()
            .contains("step 1 asks guard `fast` twice, true then false"),
        "{}",
        run.stderr()
    );
    assert!(!dir.exists("t.jsonl"));
}

#[test]
fn bad_formulas_are_usage_errors_that_name_the_problem() {
    let dir = with_machine(GATE);
    let run = dir
        .fsmc(&["verify", "machine.fsm", "--never", "in(opend)"])
        .expect(2);
    assert_eq!(
        run.stderr(),
        "error: in `--never in(opend)`: machine `Gate` has no state `opend` (did you mean `opened`?) (at column 4)\n"
    );
    let run = dir.fsmc(&["verify", "machine.fsm"]).expect(2);
    assert_eq!(
        run.stderr(),
        "error: `machine.fsm` states no property of machine `Gate`, and none was given on the command line\n\
         help: state one in the machine, such as `never in(STATE);`, `reachable in(STATE);` or \
         `recoverable in(STATE);` (docs/dsl.md), or give --never, --reachable, --recoverable or \
         --escapable\n"
    );
    let run = dir
        .fsmc(&["verify", "machine.fsm", "--never", "in(closed) && in(opened)"])
        .expect(0);
    assert!(
        run.stderr().contains("is false in every configuration"),
        "{}",
        run.stderr()
    );
}

#[test]
fn the_state_limit_is_reported_with_its_numbers() {
    let dir = with_machine(GATE);
    let run = dir
        .fsmc(&[
            "verify",
            "machine.fsm",
            "--recoverable",
            "in(closed)",
            "--max-states",
            "2",
        ])
        .expect(1);
    assert!(run.stdout().contains("inconclusive"), "{}", run.stdout());
    assert!(
        run.stdout().contains("limit of 2 stored states"),
        "{}",
        run.stdout()
    );
}

#[test]
fn a_formula_of_any_length_is_quoted_shortened() {
    let dir = with_machine(GATE);
    let formula = format!("{}in(closed)", "!".repeat(100_000));
    let run = dir
        .fsmc(&["verify", "machine.fsm", "--never", &formula])
        .expect(2);
    let stderr = run.stderr();
    assert!(
        stderr.len() < 400 && stderr.contains("…") && stderr.contains("more than 256 operators"),
        "{stderr}"
    );
}

/// The gate with properties of its own, the first two named.
fn gate_with_properties() -> String {
    GATE.replacen(
        "    terminal state locked_out;\n",
        "    terminal state locked_out;\n\n    \
         /// Nobody is ever locked out.\n    \
         property no_lockout: never in(locked_out);\n    \
         property can_close: recoverable in(closed) || terminal;\n    \
         reachable in(opened);\n",
        1,
    )
}

#[test]
fn the_files_properties_are_checked_without_flags_each_named_with_its_place() {
    let dir = with_machine(&gate_with_properties());
    let run = dir.fsmc(&["verify", "machine.fsm"]).expect(1);
    let stdout = run.stdout();
    let (_, verdicts) = stdout.split_once('\n').expect("a header line");
    assert_eq!(
        verdicts,
        "machine.fsm:16:5: no_lockout: violated in 2 steps\n  \
         start in `closed`\n  \
         1. fire `open` [guards asked: authorized = true] -> `opening`\n  \
         2. advance 5s (`after 5s` of `opening`) [guards asked: alarm = true] -> `locked_out`\n\
         machine.fsm:17:5: can_close: holds\n\
         machine.fsm:18:5: reachable in(opened): reached in 2 steps\n  \
         start in `closed`\n  \
         1. fire `open` [guards asked: authorized = true] -> `opening`\n  \
         2. advance 5s (`after 5s` of `opening`) [guards asked: alarm = false] -> `opened`\n",
        "{}",
        run.stderr()
    );
    // The flags' properties come after the file's.
    let run = dir
        .fsmc(&["verify", "machine.fsm", "--never", "in(opening) && terminal"])
        .expect(1);
    let stdout = run.stdout();
    let labels: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with("machine `"))
        .collect();
    assert_eq!(
        labels,
        [
            "machine.fsm:16:5: no_lockout: violated in 2 steps",
            "machine.fsm:17:5: can_close: holds",
            "machine.fsm:18:5: reachable in(opened): reached in 2 steps",
            "never in(opening) && terminal: holds",
        ]
    );
    // Without the one that fails, every property holds: exit 0.
    let holding = gate_with_properties().replace("property no_lockout: never in(locked_out);", "");
    let dir = with_machine(&holding);
    dir.fsmc(&["verify", "machine.fsm"]).expect(0);
}

#[test]
fn an_unknown_state_in_a_files_property_is_an_error_on_its_token() {
    let dir = with_machine(&gate_with_properties().replace("in(opened);", "in(opend);"));
    let run = dir.fsmc(&["verify", "machine.fsm"]).expect(1);
    let stderr = run.stderr();
    assert!(
        stderr.contains("`in(opend)` tests unknown state `opend`"),
        "{stderr}"
    );
    assert!(stderr.contains("machine.fsm:18:18"), "{stderr}");
    assert!(stderr.contains("did you mean `opened`?"), "{stderr}");
    assert!(run.stdout().is_empty(), "{}", run.stdout());
}

/// The examples state what their runs promise (the agent loop's "shutdown
/// always succeeds", the research pipeline's "every run can end"), and CI
/// holds them to it: every property of every example holds.
#[test]
fn every_property_of_the_examples_holds() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for entry in std::fs::read_dir(&root).expect("examples/") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            for inner in std::fs::read_dir(&path).expect("an example's directory") {
                files.push(inner.expect("an entry").path());
            }
        } else {
            files.push(path);
        }
    }
    let mut checked = Vec::new();
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "fsm")) {
        let text = std::fs::read_to_string(file).expect("readable");
        let model = fsm_grammar::check(&text).into_model().expect("an example checks");
        for machine in model.machines.iter().filter(|m| !m.properties.is_empty()) {
            let dir = Scratch::new();
            dir.write("machine.fsm", &text);
            let run = dir
                .fsmc(&["verify", "machine.fsm", "--machine", &machine.name])
                .expect(0);
            assert!(!run.stdout().contains("violated"), "{}", run.stdout());
            checked.push(machine.name.clone());
        }
    }
    checked.sort();
    assert_eq!(checked, ["AgentLoop", "Research", "Router"]);
}

const GATE_WITH_PROPERTIES: &str = "\
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
        on close -> closed;
    }
    terminal state locked_out;

    property never_locked: never in(locked_out);
    reachable in(opened);
}
";

#[test]
fn the_json_format_is_one_document_with_each_verdict_and_path() {
    let dir = with_machine(GATE_WITH_PROPERTIES);
    let run = dir.fsmc(&["verify", "machine.fsm", "--format", "json"]).expect(1);
    let document: serde_json::Value = serde_json::from_str(&run.stdout()).expect("one JSON document");
    assert_eq!(document["machine"], "Gate");
    // The search stops once every property is decided.
    assert!(document["complete"].is_boolean());
    assert!(document["states"].as_u64().is_some_and(|n| n > 0));
    let properties = document["properties"].as_array().expect("properties");
    assert_eq!(properties.len(), 2);
    let locked = &properties[0];
    assert_eq!(locked["name"], "never_locked");
    assert_eq!(
        (locked["line"].as_u64(), locked["column"].as_u64()),
        (Some(15), Some(5))
    );
    assert_eq!(locked["verdict"], "violated");
    let moves: Vec<&serde_json::Value> = locked["path"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| &s["move"])
        .collect();
    assert_eq!(moves[0]["fire"], "open");
    assert_eq!(moves[1]["advance"], "5s");
    assert_eq!(moves[1]["fired"][0]["state"], "opening");
    assert_eq!(locked["path"]["steps"][1]["leaves"][0], "locked_out");
    assert_eq!(properties[1]["verdict"], "reached");
    assert_eq!(properties[1]["name"], serde_json::Value::Null);
}

#[test]
fn the_github_format_annotates_each_property_that_does_not_hold_on_its_span() {
    let dir = with_machine(GATE_WITH_PROPERTIES);
    let run = dir
        .fsmc(&[
            "verify",
            "machine.fsm",
            "--format",
            "github",
            "--never",
            "in(opening)",
        ])
        .expect(1);
    let stdout = run.stdout();
    let lines: Vec<&str> = stdout.lines().collect();
    // The file's violated property on its span, the flag's without a place;
    // the reached one says nothing.
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with(
            "::error file=machine.fsm,line=15,col=5,endLine=15,endColumn=49,title=fsmc verify%3A never_locked::\
             never in(locked_out): violated in 2 steps%0A  start in `closed`%0A  1. fire `open`"
        ),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("::error title=fsmc verify::never in(opening): violated in 1 step%0A"),
        "{stdout}"
    );
}

const RETRIES: &str = "\
machine Retries {
    guard retry_left;
    initial state idle {
        on fetch -> requesting;
    }
    state requesting {
        on ok -> idle;
        on failed -> backing_off;
    }
    state backing_off {
        after 1s -> retrying;
    }
    state retrying {
        after 5s [retry_left] priority 1 -> backing_off;
        after 5s -> backing_off;
    }

    property retries_end: escapable in(backing_off) || in(retrying);
    property fetches_end: in(requesting) leads to in(idle) assuming ok;
}
";

#[test]
fn a_loop_of_death_is_a_lasso_in_every_format() {
    let dir = with_machine(RETRIES);
    let run = dir
        .fsmc(&["verify", "machine.fsm", "--emit-trace", "trace.jsonl"])
        .expect(1);
    let stdout = run.stdout();
    let (_, verdicts) = stdout.split_once('\n').expect("a header line");
    assert_eq!(
        verdicts,
        "machine.fsm:18:5: retries_end: violated in a loop of 2 steps repeated forever, after 2 steps\n  \
         start in `idle`\n  \
         1. fire `fetch` -> `requesting`\n  \
         2. fire `failed` -> `backing_off`\n  \
         the loop, repeated forever:\n  \
         3. advance 1s (`after 1s` of `backing_off`) -> `retrying`\n  \
         4. advance 5s (`after 5s` of `retrying`) [guards asked: retry_left = false] -> `backing_off`\n\
         machine.fsm:19:5: fetches_end: violated in a loop of 2 steps repeated forever, after 2 steps\n  \
         start in `idle`\n  \
         1. fire `fetch` -> `requesting`\n  \
         2. fire `failed` -> `backing_off`\n  \
         the loop, repeated forever:\n  \
         3. advance 1s (`after 1s` of `backing_off`) -> `retrying`\n  \
         4. advance 5s (`after 5s` of `retrying`) [guards asked: retry_left = false] -> `backing_off`\n"
    );
    // The trace replays the path with the loop once.
    assert_eq!(
        dir.read("trace.jsonl"),
        "{\"fire\": \"fetch\"}\n{\"fire\": \"failed\"}\n{\"advance\": \"1s\"}\n{\"advance\": \"5s\"}\n"
    );
    let run = dir
        .fsmc_with_stdin(&["run", "machine.fsm"], dir.read("trace.jsonl"))
        .expect(0);
    assert!(
        run.stdout()
            .lines()
            .last()
            .unwrap_or_default()
            .contains("backing_off"),
        "{}",
        run.stdout()
    );
    // The ITF trace: five states, looping back to the third.
    dir.fsmc(&["verify", "machine.fsm", "--emit-itf", "trace.itf.json"])
        .expect(1);
    let itf: serde_json::Value = serde_json::from_str(&dir.read("trace.itf.json")).expect("JSON");
    assert_eq!(itf["vars"], serde_json::json!(["leaves", "event", "elapsed_ms"]));
    assert_eq!(itf["loop"], 2);
    let states = itf["states"].as_array().expect("states");
    let events: Vec<&str> = states
        .iter()
        .map(|s| s["event"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(events, ["init", "fetch", "failed", "advance", "advance"]);
    assert_eq!(states[2]["leaves"], serde_json::json!({"#set": ["backing_off"]}));
    assert_eq!(states[4]["leaves"], states[2]["leaves"]);
    assert_eq!(states[4]["elapsed_ms"], 6000);
    let json = dir.fsmc(&["verify", "machine.fsm", "--format", "json"]).expect(1);
    let document: serde_json::Value = serde_json::from_str(&json.stdout()).expect("JSON");
    let fetches = &document["properties"][1];
    assert_eq!(fetches["kind"], "leads to");
    assert_eq!(fetches["target"], "in(idle)");
    assert_eq!(fetches["assuming"], serde_json::json!(["ok"]));
    assert_eq!(fetches["path"]["cycle"], 2);
    assert_eq!(document["properties"][0]["path"]["cycle"], 2);
    let github = dir
        .fsmc(&["verify", "machine.fsm", "--format", "github"])
        .expect(1);
    assert!(
        github.stdout().contains(
            "title=fsmc verify%3A fetches_end::in(requesting) leads to in(idle) assuming ok: violated in a loop"
        ),
        "{}",
        github.stdout()
    );
}

#[test]
fn escapable_on_the_command_line_and_a_run_that_rests() {
    let dir = with_machine(
        "machine Job {\n    initial state queued { on start -> running; }\n    state running { on finish -> done; }\n    \
         terminal state done;\n    property ends: in(running) leads to terminal;\n}\n",
    );
    let run = dir
        .fsmc(&["verify", "machine.fsm", "--escapable", "!terminal"])
        .expect(1);
    let stdout = run.stdout();
    let (_, verdicts) = stdout.split_once('\n').expect("a header line");
    assert_eq!(
        verdicts,
        "machine.fsm:5:5: ends: violated in 1 step\n  \
         start in `queued`\n  \
         1. fire `start` -> `running`\n  \
         then it may wait here for ever: no timer is armed and no event need come\n\
         escapable !terminal: holds\n"
    );
    // A leads to property checks clean.
    dir.fsmc(&["check", "machine.fsm"]).expect(0);
}

#[test]
fn an_unknown_action_after_assuming_is_an_error() {
    let dir = with_machine(
        "machine Job {\n    initial state running { on finish -> done; }\n    terminal state done;\n    \
         property ends: in(running) leads to terminal assuming finsh;\n}\n",
    );
    let run = dir.fsmc(&["check", "machine.fsm"]).expect(1);
    let text = run.stdout() + &run.stderr();
    assert!(text.contains("undeclared-action"), "{text}");
    assert!(
        text.contains("`assuming finsh` names no action of this machine"),
        "{text}"
    );
    assert!(text.contains("did you mean `finish`?"), "{text}");
}
