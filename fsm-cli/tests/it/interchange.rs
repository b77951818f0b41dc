//! End-to-end tests of `fsmc export`, `fsmc import` and `fsmc graph`: what
//! goes to stdout, stderr and `-o` files, and the exit statuses.

use crate::harness;

use harness::Scratch;
use std::fs;
use std::path::Path;

/// A machine without any diagnostic.
const CLEAN: &str = "\
/// A door.
machine Door {
    initial state closed { on open -> opened; }
    state opened { on close -> closed; }
}
";

/// `opend` is a typo for `opened`: one error.
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

/// Two machines in one file.
const TWO: &str = "\
machine Light { initial state red { on timer -> green; } state green { on timer -> red; } }
machine Button { initial state idle { on press -> pressed; } terminal state pressed; }
";

fn execution_fsm_v1_json() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/json/execution_fsm_v1.json");
    fs::read_to_string(path).expect("tests/fixtures/json/execution_fsm_v1.json")
}

// ---------------------------------------------------------------------------
// export
// ---------------------------------------------------------------------------

#[test]
fn export_writes_the_machine_as_json_on_stdout() {
    let dir = Scratch::new();
    dir.write("door.fsm", CLEAN);
    let run = dir.fsmc(&["export", "--format", "json", "door.fsm"]).expect(0);
    assert_eq!(run.stderr(), "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(json["fsm_id"], "Door");
    assert_eq!(json["version"], "1.0");
    assert_eq!(json["description"], "A door.");
    assert_eq!(json["initial_state"], "closed");
    assert_eq!(json["states"]["closed"]["on"]["open"]["to"], "opened");
}

#[test]
fn export_writes_to_a_file_and_picks_a_machine() {
    let dir = Scratch::new();
    dir.write("two.fsm", TWO);
    let all = dir.fsmc(&["export", "two.fsm"]).expect(0);
    let array: serde_json::Value = serde_json::from_str(&all.stdout()).unwrap();
    assert_eq!(
        array.as_array().map(Vec::len),
        Some(2),
        "several machines give an array"
    );

    let run = dir
        .fsmc(&["export", "two.fsm", "--machine", "Button", "-o", "button.json"])
        .expect(0);
    assert_eq!(run.stdout(), "");
    let json: serde_json::Value = serde_json::from_str(&dir.read("button.json")).unwrap();
    assert_eq!(json["fsm_id"], "Button");
}

#[test]
fn export_of_an_unknown_machine_is_a_usage_error_with_a_suggestion() {
    let dir = Scratch::new();
    dir.write("two.fsm", TWO);
    let run = dir.fsmc(&["export", "two.fsm", "--machine", "Buton"]).expect(2);
    assert_eq!(run.stdout(), "");
    assert_eq!(
        run.stderr(),
        "error: `two.fsm` defines no machine named `Buton`; did you mean `Button`?\n"
    );
}

#[test]
fn export_refuses_a_file_with_errors() {
    let dir = Scratch::new();
    dir.write("door.fsm", TYPO);
    let run = dir.fsmc(&["export", "door.fsm", "-o", "door.json"]).expect(1);
    let stderr = run.stderr();
    assert!(stderr.contains("fsm::unknown-state"), "{stderr}");
    assert!(stderr.contains("help: did you mean `opened`?"), "{stderr}");
    assert!(
        stderr.ends_with("error: `door.fsm` has 1 error; nothing exported\n"),
        "{stderr}"
    );
    assert!(!dir.exists("door.json"));
}

#[test]
fn export_reports_warnings_and_still_exports() {
    let dir = Scratch::new();
    dir.write("door.fsm", UNREACHABLE);
    let run = dir.fsmc(&["export", "door.fsm"]).expect(0);
    assert!(
        run.stderr().contains("fsm::unreachable-state"),
        "{}",
        run.stderr()
    );
    assert!(run.stdout().contains("\"spare\""));
}

#[test]
fn unreadable_and_unwritable_paths_exit_2_with_one_line() {
    let dir = Scratch::new();
    dir.write("door.fsm", CLEAN);
    let run = dir.fsmc(&["export", "missing.fsm"]).expect(2);
    assert!(
        run.stderr().starts_with("error: cannot read `missing.fsm`: "),
        "{}",
        run.stderr()
    );
    assert_eq!(run.stderr().lines().count(), 1);
    let run = dir
        .fsmc(&["export", "door.fsm", "-o", "no/such/dir/out.json"])
        .expect(2);
    assert!(
        run.stderr()
            .starts_with("error: cannot write `no/such/dir/out.json`: "),
        "{}",
        run.stderr()
    );
    let run = dir.fsmc(&["import", "missing.json"]).expect(2);
    assert!(
        run.stderr().starts_with("error: cannot read `missing.json`: "),
        "{}",
        run.stderr()
    );
}

// ---------------------------------------------------------------------------
// import
// ---------------------------------------------------------------------------

#[test]
fn import_accepts_an_execution_fsm_v1_document_and_the_result_checks_clean() {
    let dir = Scratch::new();
    dir.write("execution_fsm_v1.json", &execution_fsm_v1_json());
    let run = dir
        .fsmc(&["import", "execution_fsm_v1.json", "-o", "execution.fsm"])
        .expect(0);
    assert_eq!(run.stdout(), "");
    assert_eq!(
        run.stderr(),
        "warning: output `fsm.transition` is not a valid .fsm name; it is imported as `fsm_transition`\n  \
         --> execution_fsm_v1.json: $.states.idle.on.start.emit[0]\n  \
         help: names match `[A-Za-z_][A-Za-z0-9_]*`; other characters become `_`\n\n"
    );
    let source = dir.read("execution.fsm");
    assert!(source.starts_with("machine execution_fsm_v1 {\n"), "{source}");
    assert!(
        source.contains("on start -> executing emit fsm_transition;"),
        "{source}"
    );
    dir.fsmc(&["check", "execution.fsm"]).expect(0);
    dir.fsmc(&["fmt", "--check", "execution.fsm"]).expect(0);
}

#[test]
fn import_reports_every_problem_at_its_json_path() {
    let dir = Scratch::new();
    let broken = execution_fsm_v1_json()
        .replace("\"to\": \"completed\"", "\"to\": \"complted\"")
        .replace("\"initial_state\": \"idle\"", "\"initial_state\": \"idel\"");
    dir.write("broken.json", &broken);
    let run = dir.fsmc(&["import", "broken.json", "-o", "out.fsm"]).expect(1);
    let stderr = run.stderr();
    assert!(
        stderr.contains(
            "error: unknown state `idel`\n  --> broken.json: $.initial_state\n  help: did you mean `idle`?\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "error: unknown state `complted`\n  --> broken.json: $.states.executing.on.success.to\n  \
             help: did you mean `completed`?\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("error: `broken.json` has 2 errors; nothing imported\n"),
        "{stderr}"
    );
    assert!(!dir.exists("out.fsm"));
}

#[test]
fn import_rejects_text_that_is_not_json() {
    let dir = Scratch::new();
    dir.write("door.json", CLEAN);
    let run = dir.fsmc(&["import", "door.json"]).expect(1);
    assert!(
        run.stderr().starts_with("error: invalid JSON: "),
        "{}",
        run.stderr()
    );
    assert_eq!(run.stdout(), "");
}

#[test]
fn export_then_import_gives_back_the_formatted_source() {
    let dir = Scratch::new();
    // Already in canonical layout, so the round trip must reproduce it exactly.
    let source = "\
/// A door.
machine Door {
    /// Shut.
    initial state closed {
        on open [unlocked] priority 1 -> opened emit creak;
        on open emit rattle;
    }

    terminal state opened;
}
";
    dir.write("door.fsm", source);
    dir.fsmc(&["export", "door.fsm", "-o", "door.json"]).expect(0);
    let run = dir.fsmc(&["import", "door.json"]).expect(0);
    assert_eq!(run.stdout(), source);
}

// ---------------------------------------------------------------------------
// graph
// ---------------------------------------------------------------------------

#[test]
fn graph_draws_mermaid_by_default_and_dot_and_svg_on_request() {
    let dir = Scratch::new();
    dir.write("door.fsm", CLEAN);
    let mermaid = dir.fsmc(&["graph", "door.fsm"]).expect(0).stdout();
    assert!(
        mermaid.contains("stateDiagram-v2\n    [*] --> closed\n"),
        "{mermaid}"
    );
    let dot = dir
        .fsmc(&["graph", "--format", "dot", "door.fsm"])
        .expect(0)
        .stdout();
    assert!(dot.starts_with("digraph \"Door\" {\n"), "{dot}");
    dir.fsmc(&["graph", "--format", "svg", "door.fsm", "-o", "door.svg"])
        .expect(0);
    let svg = dir.read("door.svg");
    assert!(svg.contains("<svg") && svg.contains("closed"), "{svg}");
}

#[test]
fn graph_needs_a_machine_name_for_a_file_with_several() {
    let dir = Scratch::new();
    dir.write("two.fsm", TWO);
    let run = dir.fsmc(&["graph", "two.fsm"]).expect(2);
    assert_eq!(
        run.stderr(),
        "error: `two.fsm` defines `Light` and `Button`; choose one with --machine\n"
    );
    let run = dir.fsmc(&["graph", "two.fsm", "--machine", "Light"]).expect(0);
    assert!(run.stdout().contains("title: Light\n"));
}

#[test]
fn graph_refuses_files_with_errors_or_without_machines() {
    let dir = Scratch::new();
    dir.write("door.fsm", TYPO).write("empty.fsm", "// nothing\n");
    let run = dir.fsmc(&["graph", "door.fsm"]).expect(1);
    assert!(run.stderr().contains("nothing drawn"), "{}", run.stderr());
    assert_eq!(run.stdout(), "");
    let run = dir.fsmc(&["graph", "empty.fsm"]).expect(1);
    assert_eq!(
        run.stderr(),
        "error: `empty.fsm` defines no machine; nothing drawn\n\
         help: write one, like `machine Door { initial state closed; }`\n"
    );
}

#[test]
fn an_unknown_format_is_a_usage_error() {
    let dir = Scratch::new();
    dir.write("door.fsm", CLEAN);
    let run = dir.fsmc(&["graph", "--format", "png", "door.fsm"]).expect(2);
    assert!(run.stderr().contains("invalid value 'png'"), "{}", run.stderr());
}

// ---------------------------------------------------------------------------
// SCXML and XState
// ---------------------------------------------------------------------------

/// A machine with what SCXML holds only through the `fsm:` namespace: a
/// context, an effect, a timer, a priority an SCXML tool orders otherwise.
const CALL: &str = "\
/// A call.
machine Call {
    context Ctx;

    initial state idle {
        on dial -> connected do log_dial;
    }

    state connected {
        on abort [urgent] priority 1 -> idle;
        after 30s -> idle;

        initial state talking {
            on abort [calm] -> talking;
        }
    }
}
";

#[test]
fn scxml_export_and_import_give_back_the_same_machine() {
    let dir = Scratch::new();
    dir.write("call.fsm", CALL);
    let run = dir
        .fsmc(&["export", "--format", "scxml", "call.fsm", "-o", "call.scxml"])
        .expect(0);
    assert_eq!(
        run.stderr(),
        "warning: `on abort priority 1` in `connected` is tried before the candidates of the states inside it in fsmc, but SCXML tries the innermost state's first\n  \
         --> call.fsm:10:9\n  \
         help: the document keeps the priority, but SCXML orders candidates by depth alone; drop the priority, or move the transition into the inner states, for both to agree\n\n"
    );
    let scxml = dir.read("call.scxml");
    assert!(
        scxml.contains("<send event=\"fsm.after.connected.0\" id=\"fsm.after.connected.0\" delay=\"30s\"/>"),
        "{scxml}"
    );
    let run = dir.fsmc(&["import", "call.scxml", "-o", "back.fsm"]).expect(0);
    assert_eq!(run.stderr(), "");
    let original = dir.fsmc(&["export", "call.fsm"]).expect(0).stdout();
    let back = dir.fsmc(&["export", "back.fsm"]).expect(0).stdout();
    assert_eq!(back, original);
    dir.fsmc(&["fmt", "--check", "back.fsm"]).expect(0);
}

#[test]
fn import_tells_scxml_by_extension_by_content_or_by_format() {
    let dir = Scratch::new();
    dir.write("call.fsm", CALL);
    let scxml = dir
        .fsmc(&["export", "--format", "scxml", "call.fsm"])
        .expect(0)
        .stdout();
    dir.write("call.xml", &scxml);
    dir.write(
        "call.txt",
        &scxml.replace("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", ""),
    );
    let expected = dir.fsmc(&["import", "call.xml"]).expect(0).stdout();
    assert!(expected.starts_with("/// A call.\nmachine Call {"), "{expected}");
    assert_eq!(dir.fsmc(&["import", "call.txt"]).expect(0).stdout(), expected);
    assert_eq!(
        dir.fsmc(&["import", "--format", "scxml", "call.txt"])
            .expect(0)
            .stdout(),
        expected
    );
    // JSON stays the default, as before.
    let json = dir.fsmc(&["export", "call.fsm"]).expect(0).stdout();
    dir.write("call.json", &json);
    assert_eq!(dir.fsmc(&["import", "call.json"]).expect(0).stdout(), expected);
    let run = dir.fsmc(&["import", "--format", "json", "call.xml"]).expect(1);
    assert!(
        run.stderr().starts_with("error: invalid JSON: "),
        "{}",
        run.stderr()
    );
}

#[test]
fn import_refuses_scxml_it_cannot_express_at_line_and_column() {
    let dir = Scratch::new();
    dir.write(
        "door.scxml",
        "<scxml xmlns=\"http://www.w3.org/2005/07/scxml\" version=\"1.0\" name=\"door\">\n  <state id=\"closed\">\n    <invoke src=\"x.scxml\"/>\n  </state>\n</scxml>\n",
    );
    let run = dir.fsmc(&["import", "door.scxml", "-o", "door.fsm"]).expect(1);
    assert_eq!(
        run.stderr(),
        "error: <invoke> is not supported by fsmc\n  --> door.scxml:3:5\n  \
         help: fsmc machines invoke nothing; run the other machine from the program, and fire its results as actions\n\n\
         error: `door.scxml` has 1 error; nothing imported\n"
    );
    assert!(!dir.exists("door.fsm"));
    dir.write("broken.scxml", "<scxml><state id=\"a\"></scxml>");
    let run = dir.fsmc(&["import", "broken.scxml"]).expect(1);
    assert!(
        run.stderr().starts_with("error: malformed XML: "),
        "{}",
        run.stderr()
    );
    assert!(run.stderr().contains("--> broken.scxml:1:"), "{}", run.stderr());
}

#[test]
fn xstate_export_writes_a_machine_config_and_reports_what_it_cannot_hold() {
    let dir = Scratch::new();
    dir.write("call.fsm", CALL);
    let run = dir.fsmc(&["export", "--format", "xstate", "call.fsm"]).expect(0);
    let config: serde_json::Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(config["id"], "Call");
    assert_eq!(config["initial"], "idle");
    assert_eq!(
        config["states"]["connected"]["after"]["30000"][0]["target"],
        "#Call.idle"
    );
    assert_eq!(
        config["states"]["idle"]["on"]["dial"][0]["actions"][0],
        "log_dial"
    );
    let stderr = run.stderr();
    assert!(
        stderr.contains("warning: the context type `Ctx` is not exported\n  --> call.fsm:3:13\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("XState tries the innermost state's first\n  --> call.fsm:10:9\n"),
        "{stderr}"
    );
}

#[test]
fn scxml_and_xstate_need_one_machine() {
    let dir = Scratch::new();
    dir.write("two.fsm", TWO);
    for format in ["scxml", "xstate"] {
        let run = dir.fsmc(&["export", "--format", format, "two.fsm"]).expect(2);
        assert_eq!(
            run.stderr(),
            "error: `two.fsm` defines `Light` and `Button`; choose one with --machine\n"
        );
        dir.fsmc(&["export", "--format", format, "two.fsm", "--machine", "Button"])
            .expect(0);
    }
}

const DOOR: &str = "/// A door.
machine Door {
    initial state closed {
        on open -> opened emit creak;
        on lock [has_key] -> locked;
    }

    state opened {
        on close -> closed;
        after 30s -> closed;
    }

    state locked {
        on unlock -> closed;
    }
}
";

#[test]
fn xstate_export_and_import_give_back_the_same_machine() {
    let dir = Scratch::new();
    dir.write("door.fsm", DOOR);
    let run = dir
        .fsmc(&["export", "--format", "xstate", "door.fsm", "-o", "door.json"])
        .expect(0);
    assert_eq!(run.stderr(), "");
    // Told from fsmc's JSON by its content; `--format` says it too.
    let run = dir.fsmc(&["import", "door.json", "-o", "back.fsm"]).expect(0);
    assert_eq!(run.stderr(), "");
    assert_eq!(dir.read("back.fsm"), DOOR);
    dir.write("door.txt", &dir.read("door.json"));
    assert_eq!(
        dir.fsmc(&["import", "--format", "xstate", "door.txt"])
            .expect(0)
            .stdout(),
        DOOR
    );
    // fsmc's own JSON is still read as such.
    let json = dir.fsmc(&["export", "door.fsm"]).expect(0).stdout();
    dir.write("door-fsmc.json", &json);
    assert_eq!(dir.fsmc(&["import", "door-fsmc.json"]).expect(0).stdout(), DOOR);
}

#[test]
fn import_refuses_xstate_it_cannot_express_at_its_json_path() {
    let dir = Scratch::new();
    dir.write(
        "door.json",
        r#"{"id": "door", "initial": "closed", "context": {"n": 0}, "states": {"closed": {"invoke": {"src": "fetch"}, "on": {"open": "opend"}}, "opened": {}}}"#,
    );
    let run = dir.fsmc(&["import", "door.json", "-o", "door.fsm"]).expect(1);
    assert_eq!(
        run.stderr(),
        "warning: the `context` values are not imported\n  --> door.json: $.context\n  \
         help: an fsmc machine holds no data: the program owns the context, whose type the .fsm file names with `context Type;`\n\n\
         error: `invoke` is not supported by fsmc\n  --> door.json: $.states.closed.invoke\n  \
         help: fsmc machines invoke nothing; run the actor, promise or callback from the program, and fire its results as actions\n\n\
         error: unknown target `opend`\n  --> door.json: $.states.closed.on.open\n  \
         help: targets are state ids (`#Machine.parent.child`), the names of sibling states, or `.child` for a state's own children\n\n\
         error: `door.json` has 2 errors; nothing imported\n"
    );
    assert!(!dir.exists("door.fsm"));
}
