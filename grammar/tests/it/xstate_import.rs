//! The XState import: every example and fixture that exports to XState
//! without warnings comes back with the same fingerprint; configs fsmc
//! cannot express are refused, and what it skips is reported, each at the
//! JSON path of the config.

use crate::interchange::{clean_sources, model_of, parallel_sources, random_machine, read};
use fsm_grammar::interchange::{from_xstate, render, to_xstate, ImportDiagnostic};
use fsm_grammar::model::Machine;
use fsm_grammar::{check, Model};
use proptest::prelude::*;
use std::collections::BTreeSet;

const CONTEXT_WARNING: &str = "effects and named delays need a context type";

/// What an XState config holds of a machine: everything but what the
/// export warns of.
///
/// An XState config holds the order of a state's candidates for one event,
/// not their priorities: a machine without priorities comes back with the
/// same fingerprint, one with them with the same candidates in the order
/// fsmc tries them.
fn assert_same_behaviour(a: &Machine, b: &Machine, context: &str) {
    let prioritised = a
        .transitions
        .iter()
        .chain(&a.timers)
        .chain(&a.eventless)
        .any(|t| t.priority != 0);
    if prioritised {
        assert_eq!(
            by_priority(&a.canonical()),
            by_priority(&b.canonical()),
            "{context}: canonical form, candidates in the order tried"
        );
    } else {
        assert_eq!(a.canonical(), b.canonical(), "{context}: canonical form");
        assert_eq!(a.fingerprint(), b.fingerprint(), "{context}: fingerprint");
    }
    assert_eq!(a.docs, b.docs, "{context}: machine docs");
    assert_eq!(a.states.len(), b.states.len(), "{context}: state count");
    for (sa, sb) in a.states.iter().zip(&b.states) {
        assert_eq!(sa.docs, sb.docs, "{context}: docs of state {}", sa.name);
    }
    for (ta, tb) in a.transitions.iter().zip(&b.transitions) {
        assert_eq!(ta.docs, tb.docs, "{context}: transition docs");
    }
    for (ta, tb) in a.timers.iter().zip(&b.timers) {
        assert_eq!(ta.docs, tb.docs, "{context}: timer docs");
    }
}

/// The canonical form with each run of candidates of one source and
/// trigger (`on STATE ACTION`, `after STATE DELAY`, `done STATE`, ...) in
/// the order fsmc tries them (by descending priority, stably), and the
/// priorities left out.
fn by_priority(canonical: &str) -> Vec<String> {
    let key = |line: &str| line.split(' ').take(3).collect::<Vec<_>>().join(" ");
    let priority = |line: &str| -> i32 {
        let at = line.find(" priority=").expect("a candidate line") + " priority=".len();
        line[at..].split(' ').next().unwrap().parse().unwrap()
    };
    let strip = |line: &str| {
        let at = line.find(" priority=").unwrap();
        let end = line[at + 1..].find(' ').map_or(line.len(), |e| at + 1 + e);
        format!("{}{}", &line[..at], &line[end..])
    };
    let mut out: Vec<String> = Vec::new();
    let lines: Vec<&str> = canonical.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].contains(" priority=") {
            out.push(lines[i].to_string());
            i += 1;
            continue;
        }
        let mut j = i;
        while j < lines.len() && lines[j].contains(" priority=") && key(lines[j]) == key(lines[i]) {
            j += 1;
        }
        let mut run: Vec<&str> = lines[i..j].to_vec();
        run.sort_by_key(|l| std::cmp::Reverse(priority(l)));
        out.extend(run.into_iter().map(strip));
        i = j;
    }
    out
}

/// Canonical lines without the context and payload types, and the effects
/// and delays apart, as a set: an XState config holds no types and no
/// declarations (whose order the canonical form keeps, and which may name
/// what nothing uses).
fn without_types(lines: &[String]) -> (BTreeSet<String>, Vec<String>) {
    let symbols = lines
        .iter()
        .filter(|l| l.starts_with("effect ") || l.starts_with("delay "))
        .map(|l| l.split('(').next().unwrap().to_string())
        .collect();
    let rest = lines
        .iter()
        .filter(|l| {
            !["effect ", "delay ", "context ", "action ", "guard "]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .cloned()
        .collect();
    (symbols, rest)
}

/// `.fsm` → XState → `.fsm` for every machine of `source`: the import of an
/// export succeeds without warnings of its own; a machine exported without
/// warnings comes back the same. Returns how many machines did.
fn assert_xstate_round_trip(source: &str, context: &str) -> usize {
    let model = model_of(source, context);
    let mut exact = 0;
    for machine in &model.machines {
        let context = format!("{context}, machine {}", machine.name);
        let exported = to_xstate(machine);
        let imported = match from_xstate(&exported.text) {
            Ok(imported) => imported,
            // A transition of an outer state tried before the inner ones'
            // (by its priority) comes back tried after them, which the
            // checks may find shadowed: the export warned of it.
            Err(d)
                if exported
                    .warnings
                    .iter()
                    .any(|w| w.message.contains("tries the innermost state's first")) =>
            {
                assert!(
                    d.iter().all(|d| !d.is_error() || d.code.is_some()),
                    "{context}: only the checks refuse it:\n{}",
                    render(&context, &d)
                );
                continue;
            }
            Err(d) => panic!(
                "{context}: import failed:\n{}\n{}",
                render(&context, &d),
                exported.text
            ),
        };
        // The one thing the import reports of an export: the context type,
        // which the export warned of.
        let own: Vec<&ImportDiagnostic> = imported
            .diagnostics
            .iter()
            .filter(|d| d.code.is_none() && !d.message.starts_with(CONTEXT_WARNING))
            .collect();
        assert!(
            own.is_empty(),
            "{context}: the import of an export warns: {own:#?}"
        );
        let again: Model = model_of(&imported.source, &format!("{context} (imported)"));
        assert_eq!(again.machines.len(), 1, "{context}: one machine per config");
        if exported.warnings.is_empty() {
            assert_same_behaviour(machine, &again.machines[0], &context);
            exact += 1;
        } else {
            // What the export warned of (types, declarations, `#[allow]`,
            // properties, priorities) is all that differs.
            let (symbols, rest) = without_types(&by_priority(&machine.canonical()));
            let (imported_symbols, imported_rest) =
                without_types(&by_priority(&again.machines[0].canonical()));
            assert_eq!(
                rest, imported_rest,
                "{context}: the machine apart from what the export warned of"
            );
            // Only declared effects and delays that nothing uses are lost.
            for lost in symbols.difference(&imported_symbols) {
                let name = lost.split(' ').nth(1).unwrap();
                assert!(
                    machine
                        .effects
                        .iter()
                        .chain(&machine.delays)
                        .any(|s| s.name == name && s.declared.is_some()),
                    "{context}: `{lost}` is lost"
                );
            }
            assert!(
                imported_symbols.is_subset(&symbols),
                "{context}: effects and delays"
            );
        }
    }
    exact
}

#[test]
fn every_example_and_fixture_exported_without_warnings_round_trips_through_xstate() {
    let mut sources = clean_sources();
    sources.extend(parallel_sources());
    let mut exact = 0;
    for path in sources {
        exact += assert_xstate_round_trip(&read(&path), &path.display().to_string());
    }
    assert!(exact > 20, "only {exact} machines export without warnings");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_machines_round_trip_through_xstate(text in random_machine::machine_text()) {
        prop_assume!(!check(&text).has_errors());
        // A terminal state inside another is exported as a `final` one,
        // which completes its parent instead of ending the machine: the
        // export does not tell them apart (left for the exporter).
        let model = model_of(&text, &text);
        prop_assume!(!model.machines.iter().any(|m| m.states.iter().any(|s| s.parent.is_some() && s.is_terminal())));
        assert_xstate_round_trip(&text, &text);
    }
}

/// The diagnostics of importing `text`, `severity place: message` each.
fn import_problems(text: &str) -> Vec<String> {
    let diagnostics = match from_xstate(text) {
        Ok(imported) => imported.diagnostics,
        Err(diagnostics) => diagnostics,
    };
    diagnostics
        .iter()
        .map(|d| format!("{} {d}", if d.is_error() { "error" } else { "warning" }))
        .collect()
}

/// A door whose `closed` state has `closed_extra` members and whose
/// `open` transition is `open`.
fn door(closed_extra: &str, open: &str) -> String {
    format!(
        r##"{{
  "id": "door",
  "initial": "closed",
  "states": {{
    "closed": {{{closed_extra}"on": {{"open": {open}}}}},
    "opened": {{"on": {{"close": "closed"}}}}
  }}
}}"##
    )
}

#[test]
fn a_hand_written_config_imports() {
    let config = r##"{
  "id": "player",
  "description": "A media player.",
  "initial": "stopped",
  "states": {
    "stopped": {"on": {"play": {"target": "playing", "actions": ["load", {"type": "emit", "params": {"output": "started"}}]}}},
    "playing": {
      "id": "on_air",
      "initial": "normal",
      "entry": [{"type": "emit", "params": {"output": "lamp_on"}}],
      "exit": "unload",
      "states": {
        "normal": {"on": {"fast": "fast"}, "after": {"1500": {"target": "#player.playing.fast", "guard": "auto_fast"}}},
        "fast": {"on": {"slow": "normal"}},
        "hist": {"type": "history", "history": "deep", "description": "Where it was."}
      },
      "on": {
        "pause": [{"target": "paused", "guard": {"type": "can_pause"}, "description": "Only when allowed."}, {"target": "#player.stopped"}]
      },
      "always": {"target": "stopped", "guard": "ended && !looping"}
    },
    "paused": {"on": {"resume": "#on_air.hist", "stop": "stopped"}},
    "done": {"type": "final"}
  },
  "on": {"eject": ".done"}
}"##;
    let imported = from_xstate(config).unwrap_or_else(|d| panic!("{}", render("player.json", &d)));
    assert_eq!(
        imported.source,
        "/// A media player.
machine player {
    context Context;

    initial state stopped {
        on play -> playing do load emit started;
    }

    state playing {
        enter emit lamp_on;
        exit do unload;
        /// Only when allowed.
        on pause [can_pause] -> paused;
        on pause -> stopped;
        always [ended && !looping] -> stopped;
        initial state normal {
            on fast -> fast;
            after 1500ms [auto_fast] -> fast;
        }
        state fast {
            on slow -> normal;
        }
    }

    state paused {
        on resume -> playing.deep_history;
        on stop -> stopped;
    }

    terminal state done;

    any {
        on eject -> done;
    }
}
"
    );
    assert_eq!(
        import_problems(config),
        [
            "warning $.states.playing.states.hist.description: field `description` of history `hist` is not imported",
            "warning $.states.stopped.on.play.actions[0]: effects and named delays need a context type, which an XState config does not hold; the machine is imported with `context Context;`",
        ]
    );
}

#[test]
fn what_fsmc_cannot_express_is_refused_where_it_is() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#""invoke": {"src": "fetch"}, "#,
            r#""opened""#,
            "error $.states.closed.invoke: `invoke` is not supported by fsmc",
        ),
        (
            "",
            r#"{"target": "opened", "actions": {"type": "xstate.assign", "assignment": {}}}"#,
            "error $.states.closed.on.open.actions: the built-in action `xstate.assign` is not supported by fsmc",
        ),
        (
            "",
            r#"{"target": "opened", "actions": [{"type": "xstate.raise"}]}"#,
            "error $.states.closed.on.open.actions[0]: the built-in action `xstate.raise` is not supported by fsmc",
        ),
        (
            "",
            r#"{"target": "opened", "guard": {"type": "xstate.and", "guards": ["a", "b"]}}"#,
            "error $.states.closed.on.open.guard: the built-in guard `xstate.and` is not supported by fsmc",
        ),
        (
            "",
            r#"{"target": ["opened", "closed"]}"#,
            "error $.states.closed.on.open.target: the transition has 2 targets",
        ),
        (
            "",
            r#""opend""#,
            "error $.states.closed.on.open: unknown target `opend`",
        ),
        (
            "",
            r##""#door.nowhere""##,
            "error $.states.closed.on.open: unknown target `#door.nowhere`",
        ),
        (
            r#""type": "parallal", "#,
            r#""opened""#,
            "error $.states.closed.type: unknown state type `parallal`",
        ),
        (
            r#""after": {"1.5": "opened"}, "#,
            r#""opened""#,
            "error $.states.closed.after[\"1.5\"]: delay `1.5` is not a whole number of milliseconds",
        ),
        (
            r#""on": {"*": "opened"}, "#,
            r#""opened""#,
            "error $.states.closed.on: `on` is given more than once in this object",
        ),
        (
            "",
            r#"{"target": "opened", "actions": [{"type": "emit", "params": {"event": "x"}}]}"#,
            "error $.states.closed.on.open.actions[0]: an `emit` action without `params.output`",
        ),
        (
            "",
            "42",
            "error $.states.closed.on.open: expected a target or a transition object, found a number",
        ),
    ];
    for (extra, open, expected) in cases {
        let problems = import_problems(&door(extra, open));
        assert!(
            problems.iter().any(|p| p == expected),
            "{extra} {open}: expected `{expected}` in {problems:#?}"
        );
        assert!(from_xstate(&door(extra, open)).is_err(), "{extra} {open}");
    }
    let wildcard = door("", r#""opened""#).replace(r#""close": "closed""#, r#""*": "closed""#);
    assert_eq!(
        import_problems(&wildcard),
        ["error $.states.opened.on[\"*\"]: event `*` is a wildcard"]
    );
    let root = door("", r#""opened""#).replace(
        r#""initial": "closed","#,
        r#""initial": "closed", "on": {"reset": "closed"},"#,
    );
    assert_eq!(
        import_problems(&root),
        ["error $.on.reset: target `closed` is not valid from the machine's root; did you mean `.closed`?"]
    );
    let parallel = door("", r#""opened""#).replace(r#""initial": "closed","#, r#""type": "parallel","#);
    let problems = import_problems(&parallel);
    assert!(
        problems.contains(&"error $.type: a parallel machine is not supported by fsmc".to_string()),
        "{problems:#?}"
    );
}

#[test]
fn what_fsmc_has_no_place_for_is_reported_and_skipped() {
    let config = r##"{
  "id": "door",
  "version": "2",
  "context": {"count": 0},
  "initial": "closed",
  "states": {
    "closed": {
      "tags": ["resting"],
      "meta": {"x": 1},
      "on": {"open": {"target": "opened", "guard": {"type": "allowed", "params": {"who": "me"}}, "actions": [{"type": "log_it", "params": {"level": 1}}], "meta": {}}}
    },
    "opened": {"on": {"close": {"target": "closed", "actions": {"type": "emit", "params": {"output": "closing", "extra": true}}}}}
  }
}"##;
    let imported = from_xstate(config).unwrap_or_else(|d| panic!("{}", render("door.json", &d)));
    assert!(
        imported.source.contains("on open [allowed] -> opened do log_it;"),
        "{}",
        imported.source
    );
    assert!(
        imported.source.contains("on close -> closed emit closing;"),
        "{}",
        imported.source
    );
    assert_eq!(
        import_problems(config),
        [
            "warning $.context: the `context` values are not imported",
            "warning $.version: the machine's `version` is not imported",
            "warning $.states.closed.tags: field `tags` of state `closed` is not imported",
            "warning $.states.closed.meta: field `meta` of state `closed` is not imported",
            "warning $.states.closed.on.open.meta: field `meta` of a transition is not imported",
            "warning $.states.closed.on.open.guard.params: the `params` of this guard are not imported",
            "warning $.states.closed.on.open.actions[0].params: the `params` of action `log_it` are not imported",
            "warning $.states.opened.on.close.actions.params.extra: parameter `extra` of an `emit` is not imported",
            "warning $.states.closed.on.open.actions[0]: effects and named delays need a context type, which an XState config does not hold; the machine is imported with `context Context;`",
        ]
    );
}

#[test]
fn reentering_that_differs_from_fsmc_is_reported() {
    let config = r##"{
  "id": "m",
  "initial": "outer",
  "states": {
    "outer": {
      "initial": "inner",
      "on": {"reset": {"target": ".inner", "reenter": true}, "again": "outer"},
      "states": {"inner": {"on": {"up": {"target": "#m.outer", "reenter": true}}}}
    }
  }
}"##;
    assert_eq!(
        import_problems(config),
        [
            "warning $.states.outer.on.reset.target: this transition from `outer` to `inner` inside it with `reenter: true` is imported as one that stays in `outer`",
            "warning $.states.outer.on.again: this transition from `outer` to `outer` without `reenter: true` is imported as one that exits and re-enters `outer`",
            "warning $.states.outer.states.inner: state `inner` has no transition to another state",
        ]
    );
}

#[test]
fn check_diagnostics_point_into_the_config() {
    // A state nobody reaches, and an `always` loop: the `.fsm` checks'
    // diagnostics, at the config's paths.
    let config = door("", r#""opened""#).replace(
        r#""opened": {"on": {"close": "closed"}}"#,
        r#""opened": {"on": {"close": "closed"}}, "lost": {"on": {"go": {"target": "opened", "guard": "g"}}}"#,
    );
    let problems = import_problems(&config);
    assert!(
        problems
            .iter()
            .any(|p| p
                == "warning $.states.lost: state `lost` cannot be reached from the initial state `closed`"),
        "{problems:#?}"
    );
    let guard = door("", r#"{"target": "opened", "guard": "a &&"}"#);
    let problems = import_problems(&guard);
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("error $.states.closed.on.open.guard: invalid guard `a &&`")),
        "{problems:#?}"
    );
}

#[test]
fn bad_input_is_an_error_never_a_panic() {
    assert_eq!(
        import_problems("{\"id\": "),
        ["error $: invalid JSON: EOF while parsing a value at line 1 column 7"]
    );
    assert_eq!(
        import_problems("[]"),
        ["error $: expected an XState machine config (an object), found an array"]
    );
    assert_eq!(
        import_problems(r#"{"id": 1, "initial": [], "states": "x"}"#),
        [
            "error $.id: expected a string, found a number",
            "error $.states: expected an object of states, found a string",
            "error $.initial: expected a string, found an array",
        ]
    );
    // States nested deeper than fsmc allows.
    let depth = fsm_grammar::MAX_STATE_DEPTH + 1;
    let mut states = String::from("{}");
    for i in (0..depth).rev() {
        states = format!(r#"{{"s{i}": {{"initial": "s{}", "states": {states}}}}}"#, i + 1);
    }
    let deep = format!(r#"{{"id": "m", "initial": "s0", "states": {states}}}"#);
    let problems = import_problems(&deep);
    assert!(
        problems.iter().any(|p| p.contains(&format!(
            "state `s{}` is nested more than {} levels deep",
            depth - 1,
            depth - 1
        ))),
        "{problems:#?}"
    );
    // Far deeper than the JSON reader keeps: still one clear error.
    let n = 100_000;
    let text = format!(
        r#"{{"id": "m", "initial": "a", "states": {{"a": {{"on": {{"x": {}{}}}}}}}}}"#,
        "[".repeat(n),
        "]".repeat(n)
    );
    let problems = import_problems(&text);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(problems[0].starts_with("error $.states.a.on.x"), "{problems:#?}");
}
