//! The module docs a machine's rustdoc opens with: every construct of the
//! `.fsm` shows up in them (effects, timers, payloads, the context), and a
//! machine without those constructs keeps the tables it always had.

use fsm_codegen::{render_source, Module, Options};

/// The `///` lines before the first machine module, without the markers.
fn module_docs(text: &str) -> String {
    module_docs_with(text, &Options::default())
}

fn module_docs_with(text: &str, options: &Options) -> String {
    let source = render_source(text, "machine.fsm", options).unwrap_or_else(|d| panic!("{d:#?}"));
    source
        .lines()
        .skip_while(|line| !line.starts_with("///"))
        .take_while(|line| line.starts_with("///"))
        .map(|line| {
            line.strip_prefix("/// ")
                .unwrap_or(line.trim_start_matches("///"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lines of `docs` from the heading `heading` to the next blank line
/// after its table (the whole section when it ends the docs).
fn section<'a>(docs: &'a str, heading: &str) -> Vec<&'a str> {
    let mut lines = docs.lines().skip_while(|l| *l != heading);
    assert_eq!(lines.next(), Some(heading), "no {heading:?} in:\n{docs}");
    let mut seen_table = false;
    lines
        .take_while(|l| {
            seen_table |= l.starts_with('|');
            !(seen_table && l.is_empty())
        })
        .filter(|l| l.starts_with('|'))
        .collect()
}

const CALL: &str = "\
machine Call {
    context CallContext;
    action start(String), cancel, poke;
    guard retries_left;
    effect arm, disarm, remember(String), count_poke, count_retry;
    delay backoff;
    initial state idle { on start -> calling do remember emit started; }
    state calling {
        enter do arm emit started;
        exit do disarm;
        on poke do count_poke;
        on cancel -> failed;
        /// Slow: say so | keep waiting.
        after 30s emit log_slow;
        after 10m [retries_left] priority 1 -> waiting do count_retry emit retrying;
        after 10m -> failed emit report_timeout;
    }
    state waiting { after backoff -> calling; on cancel -> failed; }
    terminal state failed;
}
";

#[test]
fn a_flat_machine_shows_its_timers_effects_context_and_payloads() {
    let docs = module_docs(CALL);
    assert!(
        docs.contains(
            "The machine owns a context of type `CallContext`; its guards, effects (`do`) and named delays\n\
             are the methods of [the `Context` trait](call::Context)."
        ),
        "{docs}"
    );
    assert!(
        docs.contains(
            "An action written with a type, like `start(String)`, carries a payload of that type: it is fired\n\
             as [an `Event` variant](call::Event)."
        ),
        "{docs}"
    );
    assert_eq!(
        section(&docs, "# States"),
        [
            "| State | Kind | Enter do | Enter emits | Exit do | Exit emits |",
            "|---|---|---|---|---|---|",
            "| `idle` | initial |  |  |  |  |",
            "| `calling` |  | `arm` | `started` | `disarm` |  |",
            "| `waiting` |  |  |  |  |  |",
            "| `failed` | terminal |  |  |  |  |",
        ]
    );
    assert_eq!(
        section(&docs, "# Transitions"),
        [
            "| From | Action | Guard | Priority | To | Do | Emits |",
            "|---|---|---|---|---|---|---|",
            "| `idle` | `start(String)` |  | 0 | `calling` | `remember` | `started` |",
            "| `calling` | `cancel` |  | 0 | `failed` |  |  |",
            "| `calling` | `poke` |  | 0 | (internal) | `count_poke` |  |",
            "| `waiting` | `cancel` |  | 0 | `failed` |  |  |",
        ]
    );
    assert!(
        docs.contains("A named delay is computed by the context each time its state is entered."),
        "{docs}"
    );
    assert_eq!(
        section(&docs, "# Timers"),
        [
            "| State | After | Guard | Priority | To | Do | Emits | Notes |",
            "|---|---|---|---|---|---|---|---|",
            "| `calling` | `30s` |  | 0 | (internal) |  | `log_slow` | Slow: say so \\| keep waiting. |",
            "| `calling` | `10m` | `retries_left` | 1 | `waiting` | `count_retry` | `retrying` |  |",
            "| `calling` | `10m` |  | 0 | `failed` |  | `report_timeout` |  |",
            "| `waiting` | `backoff` |  | 0 | `calling` |  |  |  |",
        ]
    );
}

#[test]
fn a_nested_machine_shows_its_timers_with_history_targets_and_hook_effects() {
    let docs = module_docs(
        "\
machine Job {
    context JobContext;
    effect open, close, give_up;
    delay budget;
    initial state queued { on start -> work; }
    state work {
        enter do open;
        exit do close emit closed;
        after budget -> parked do give_up emit timed_out;
        initial state fetch { after 500ms -> process; on done -> process; }
        state process { on again -> fetch; }
    }
    state parked {
        after 2h [stale] priority 2 -> work.deep_history;
        on resume -> work.history;
    }
}
",
    );
    assert_eq!(
        section(
            &docs,
            "| State | Kind | In | Enter do | Enter emits | Exit do | Exit emits |"
        ),
        [
            "|---|---|---|---|---|---|---|",
            "| `queued` | initial |  |  |  |  |  |",
            "| `work` | composite |  | `open` |  | `close` | `closed` |",
            "| `fetch` | initial | `work` |  |  |  |  |",
            "| `process` |  | `work` |  |  |  |  |",
            "| `parked` |  |  |  |  |  |  |",
        ]
    );
    // No transition runs effects: no `Do` column.
    assert!(
        docs.contains("| From | Action | Guard | Priority | To | Emits |\n"),
        "{docs}"
    );
    assert!(
        docs.contains("a composite's timers stay armed while the machine moves inside it."),
        "{docs}"
    );
    assert_eq!(
        section(&docs, "# Timers"),
        [
            "| State | After | Guard | Priority | To | Do | Emits |",
            "|---|---|---|---|---|---|---|",
            "| `work` | `budget` |  | 0 | `parked` | `give_up` | `timed_out` |",
            "| `fetch` | `500ms` |  | 0 | `process` |  |  |",
            "| `parked` | `2h` | `stale` | 2 | `work.deep_history` |  |  |",
        ]
    );
}

#[test]
fn timers_without_effects_or_a_context_get_no_do_column_and_no_context_paragraph() {
    let docs = module_docs(
        "\
machine Session {
    initial state active {
        on touch -> active;
        after 10m emit warn;
        after 15m -> closed emit expire;
    }
    terminal state closed;
}
",
    );
    assert!(!docs.contains("context"), "{docs}");
    assert!(!docs.contains("Event"), "{docs}");
    assert!(!docs.contains("named delay"), "{docs}");
    assert_eq!(
        section(&docs, "# Timers"),
        [
            "| State | After | Guard | Priority | To | Emits |",
            "|---|---|---|---|---|---|",
            "| `active` | `10m` |  | 0 | (internal) | `warn` |",
            "| `active` | `15m` |  | 0 | `closed` | `expire` |",
        ]
    );
}

const DOOR: &str = "\
/// A door.
machine Door {
    initial state closed { on open -> opened; }
    state opened { enter emit chime; on close -> closed; }
}
";

#[test]
fn a_machine_without_these_constructs_keeps_its_tables() {
    let docs = module_docs(DOOR);
    let model = fsm_grammar::check(DOOR).into_model().expect("DOOR checks");
    let fingerprint = model.machines[0].fingerprint();
    assert_eq!(
        docs,
        format!(
            "\
A door.

Generated by fsmc from the `.fsm` definition of `Door`, whose fingerprint is `{fingerprint}`.

# States

| State | Kind | Enter emits | Exit emits |
|---|---|---|---|
| `closed` | initial |  |  |
| `opened` |  | `chime` |  |

# Transitions

The candidates for one action are tried from the highest priority down; ties go to
the state's own transitions first, then to `any`, each in declaration order.

| From | Action | Guard | Priority | To | Emits |
|---|---|---|---|---|---|
| `closed` | `open` |  | 0 | `opened` |  |
| `opened` | `close` |  | 0 | `closed` |  |"
        )
    );
}

#[test]
fn a_module_named_by_a_raw_identifier_gets_no_link_rustdoc_cannot_resolve() {
    let docs = module_docs(
        "\
machine match {
    context Ctx;
    action go(u8);
    initial state a { on go -> b; }
    terminal state b;
}
",
    );
    assert!(
        docs.contains("are the methods of the `Context` trait.\n"),
        "{docs}"
    );
    assert!(docs.contains("as an `Event` variant."), "{docs}");
    assert!(!docs.contains("r#match::"), "{docs}");
}

#[test]
fn the_private_module_of_module_self_gets_no_link_to_a_path_that_is_not_there() {
    // `module = self` declares `mod __fsm_call` where `call` need not exist:
    // a link to `call::Context` would be a dead `href` in its docs.
    let options = Options {
        module: Module::Surrounding,
        ..Options::default()
    };
    let docs = module_docs_with(CALL, &options);
    assert!(
        docs.contains("are the methods of the `Context` trait.\n"),
        "{docs}"
    );
    assert!(docs.contains("as an `Event` variant."), "{docs}");
    assert!(!docs.contains("](call::"), "{docs}");
}
