//! The dynamic engine with a context, payloads, effects, delays and timers:
//! the order effects run in, what guards see, rejections, timers on a
//! manual clock, binding errors, and snapshots that keep their deadlines.

use fsm_dynamic::{BindProblem, Binding, Definition, Engine, EngineBuilder, FireError, FiredTimer};
use fsm_runtime::{ManualClock, RestoreError, Snapshot, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What `fire_due` fired, each due group having fired (none rejected).
fn due_timers<C>(engine: &Engine<C>) -> Vec<FiredTimer<'_>> {
    engine
        .fire_due()
        .into_iter()
        .map(|outcome| outcome.unwrap_or_else(|rejected| panic!("{rejected}")))
        .collect()
}

/// A router with a step budget, a tool call with a timeout computed from
/// the context, hooks that run effects, an internal and a self transition.
const ROUTER: &str = r#"
machine Router {
    context RouterContext;

    action decided(Decision);
    action tool_finished(ToolResult);
    action internal_error, ping, retry;

    guard steps_left;
    guard ready_to_answer(Decision);
    guard wants_tool(Decision);

    effect count_step, log_exit, log_enter, note_ping, log_slow;
    effect record(Decision);
    effect store_result(ToolResult);

    delay tool_timeout;

    initial state route {
        exit do log_exit emit left_route;
        on decided [!steps_left] priority 2 -> fail;
        on decided [ready_to_answer] priority 1 -> answer do count_step, record;
        on decided [wants_tool] -> call_tool do count_step, record emit execute_tool;
        on decided -> fail;
    }
    state call_tool {
        enter do log_enter emit tool_started;
        on tool_finished -> route do store_result emit request_decision;
        on ping do note_ping;
        on retry -> call_tool;
        after 2m do log_slow emit slow;
        after tool_timeout -> fail emit report_timeout;
    }
    terminal state answer { enter emit synthesize_answer; }
    terminal state fail { enter emit report_failure; }
    any { on internal_error -> fail; }
}
"#;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct RouterContext {
    steps: u32,
    max_steps: u32,
    timeout_minutes: u64,
    last: Option<Value>,
    result: Option<Value>,
    /// Every effect, in the order it ran.
    log: Vec<String>,
}

fn context() -> RouterContext {
    RouterContext {
        max_steps: 2,
        timeout_minutes: 10,
        ..RouterContext::default()
    }
}

/// 2026-01-10T09:00:00Z.
fn start() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_768_035_600)
}

fn definition() -> Arc<Definition> {
    Arc::new(Definition::from_fsm(ROUTER).expect("the router loads"))
}

fn builder(definition: Arc<Definition>, clock: &ManualClock) -> EngineBuilder<RouterContext> {
    Engine::with_context(definition, context())
        .clock(clock.clone())
        .context_guard("steps_left", |c: &RouterContext, _| c.steps < c.max_steps)
        .context_guard("ready_to_answer", |c, d| {
            // Sees the context before the effects of this very firing.
            d["answer"] == true && c.last.is_none()
        })
        .guard("wants_tool", |d| d["tool"].is_string())
        .effect("count_step", |c, _| {
            c.steps += 1;
            c.log.push(format!("count_step {}", c.steps));
        })
        .effect("record", |c, d| {
            c.last = Some(d.clone());
            c.log.push(format!("record {d}"));
        })
        .effect("store_result", |c, r| {
            c.result = Some(r.clone());
            c.log.push(format!("store_result {r}"));
        })
        .effect("log_exit", |c, p| c.log.push(format!("log_exit {p}")))
        .effect("log_enter", |c, p| c.log.push(format!("log_enter {p}")))
        .effect("note_ping", |c, p| c.log.push(format!("note_ping {p}")))
        .effect("log_slow", |c, p| c.log.push(format!("log_slow {p}")))
        .delay("tool_timeout", |c| Duration::from_secs(60 * c.timeout_minutes))
}

fn engine(clock: &ManualClock) -> Engine<RouterContext> {
    builder(definition(), clock).build().expect("everything is bound")
}

fn at(offset: Duration) -> Timestamp {
    Timestamp::from_system_time(start() + offset)
}

fn minutes(m: u64) -> Duration {
    Duration::from_secs(60 * m)
}

#[test]
fn effects_run_in_output_order_after_the_guards() {
    let clock = ManualClock::new(start());
    let engine = engine(&clock);
    let fired = engine.fire("decided", &json!({"tool": "search"})).unwrap();
    assert_eq!(fired.to_name(), "call_tool");
    assert_eq!(
        fired.output_names().collect::<Vec<_>>(),
        ["left_route", "execute_tool", "tool_started"]
    );
    // exit hook, the transition's own `do` (with the payload), enter hook;
    // hooks get `null`.
    assert_eq!(
        engine.context().log,
        [
            "log_exit null",
            "count_step 1",
            r#"record {"tool":"search"}"#,
            "log_enter null"
        ]
    );
    let fired = engine.fire("tool_finished", &json!({"ok": true})).unwrap();
    assert_eq!(fired.output_names().collect::<Vec<_>>(), ["request_decision"]);
    let context = engine.context();
    assert_eq!(context.result, Some(json!({"ok": true})));
    assert_eq!(context.log.last().unwrap(), r#"store_result {"ok":true}"#);
}

#[test]
fn guards_see_the_context_before_the_effects() {
    let clock = ManualClock::new(start());
    let engine = engine(&clock);
    // `ready_to_answer` needs `last` to be empty; `record` fills it in the
    // same firing, after the guard was asked.
    let fired = engine.fire("decided", &json!({"answer": true})).unwrap();
    assert_eq!(fired.to_name(), "answer");
    assert_eq!(
        engine.context().log,
        ["log_exit null", "count_step 1", r#"record {"answer":true}"#]
    );
}

#[test]
fn the_step_budget_lives_in_the_context() {
    let clock = ManualClock::new(start());
    let engine = engine(&clock);
    for _ in 0..2 {
        engine.fire("decided", &json!({"tool": "t"})).unwrap();
        engine.fire("tool_finished", &json!(1)).unwrap();
    }
    assert_eq!(engine.context().steps, 2);
    // `!steps_left` (priority 2) now wins over the tool.
    let fired = engine.fire("decided", &json!({"tool": "t"})).unwrap();
    assert_eq!(fired.to_name(), "fail");
    assert_eq!(engine.into_context().steps, 2);
}

#[test]
fn a_rejection_runs_nothing_and_keeps_the_payload() {
    let clock = ManualClock::new(start());
    let engine = engine(&clock);
    let payload = json!({"tool": "t"});
    let error = engine.fire("tool_finished", &payload).unwrap_err();
    assert!(matches!(error, FireError::InvalidTransition(_)), "{error}");
    assert_eq!(engine.context(), context());
    assert_eq!(engine.fired_count(), 0);
    // The payload was only lent.
    assert_eq!(payload, json!({"tool": "t"}));

    let definition = Arc::new(
        Definition::from_fsm(
            "machine M { context C; action go(P); guard ok(P); effect e(P); \
             initial state a { on go [ok] -> b do e; } terminal state b; }",
        )
        .unwrap(),
    );
    let engine = Engine::with_context(definition, Vec::<Value>::new())
        .guard("ok", |p| p["ok"] == true)
        .effect("e", |log, p| log.push(p.clone()))
        .build()
        .unwrap();
    let error = engine.fire("go", &json!({"ok": false})).unwrap_err();
    assert!(matches!(error, FireError::GuardRejected(_)), "{error}");
    assert!(engine.context().is_empty());
    engine.fire("go", &json!({"ok": true, "n": 1})).unwrap();
    assert_eq!(engine.context(), [json!({"ok": true, "n": 1})]);
}

#[test]
fn a_json_context_by_default() {
    let definition = Definition::from_fsm(
        "machine M { context C; action add(N); effect add_to(N); guard small; \
         initial state a { on add [small] do add_to; } }",
    )
    .unwrap();
    let engine = Engine::builder(definition)
        .context(json!({"sum": 0}))
        .context_guard("small", |c, _| c["sum"].as_i64() < Some(10))
        .effect("add_to", |c, n| {
            c["sum"] = json!(c["sum"].as_i64().unwrap() + n.as_i64().unwrap());
        })
        .build()
        .unwrap();
    engine.fire("add", &json!(4)).unwrap();
    engine.fire("add", &json!(7)).unwrap();
    assert!(engine.fire("add", &json!(1)).is_err());
    assert_eq!(engine.context(), json!({"sum": 11}));
    let snapshot = engine.snapshot();
    assert_eq!(snapshot.context(), Some(&json!({"sum": 11})));
}

#[test]
fn a_ten_minute_timeout_on_a_manual_clock() {
    let clock = ManualClock::new(start());
    let engine = engine(&clock);
    assert_eq!(engine.next_deadline(), None, "route has no timers");
    clock.advance(minutes(1));
    engine.fire("decided", &json!({"tool": "t"})).unwrap();
    // Armed on entry at the clock's time: 2 minutes (slow) and 10 (timeout).
    assert_eq!(engine.next_deadline(), Some(at(minutes(3))));
    clock.advance(minutes(2) - Duration::from_millis(1));
    assert!(due_timers(&engine).is_empty(), "a millisecond early");

    clock.advance(Duration::from_millis(1));
    let fired = due_timers(&engine);
    assert_eq!(fired.len(), 1);
    assert_eq!(
        (fired[0].from_name(), fired[0].to_name(), fired[0].timer),
        ("call_tool", "call_tool", 0)
    );
    assert_eq!(fired[0].output_names().collect::<Vec<_>>(), ["slow"]);
    assert_eq!(
        fired[0].to_string(),
        "`call_tool` --after 2m--> `call_tool` (emit `slow`)"
    );
    assert_eq!(engine.context().log.last().unwrap(), "log_slow null");
    // The internal timer is done for this entry; the timeout is still armed.
    assert_eq!(engine.next_deadline(), Some(at(minutes(11))));

    clock.advance(minutes(30));
    let fired = due_timers(&engine);
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].due, at(minutes(11)));
    assert_eq!(
        fired[0].output_names().collect::<Vec<_>>(),
        ["report_timeout", "report_failure"]
    );
    assert_eq!(
        fired[0].to_string(),
        "`call_tool` --after tool_timeout--> `fail` (emit `report_timeout`, `report_failure`)"
    );
    assert_eq!(engine.state_name(), "fail");
    assert_eq!(engine.next_deadline(), None);
    assert_eq!(engine.fired_count(), 3);
}

#[test]
fn fire_due_fires_each_timer_exactly_once_earliest_first() {
    let clock = ManualClock::new(start());
    let engine = engine(&clock);
    engine.fire("decided", &json!({"tool": "t"})).unwrap();
    // Both are due: the earlier one first, then the timeout leaves.
    clock.advance(minutes(60));
    let fired = due_timers(&engine);
    let seen: Vec<_> = fired.iter().map(|f| (f.timer, f.to_name(), f.seq)).collect();
    assert_eq!(seen, [(0, "call_tool", 1), (1, "fail", 2)]);
    assert!(due_timers(&engine).is_empty());
    clock.advance(minutes(60));
    assert!(due_timers(&engine).is_empty());
}

#[test]
fn leaving_disarms_internal_keeps_self_rearms() {
    let clock = ManualClock::new(start());
    let engine = engine(&clock);
    engine.fire("decided", &json!({"tool": "t"})).unwrap();
    assert_eq!(engine.next_deadline(), Some(at(minutes(2))));

    // Internal: nothing is re-armed, no hook runs.
    clock.advance(minutes(1));
    let fired = engine.fire("ping", &json!("p")).unwrap();
    assert!(fired.outputs.is_empty());
    assert_eq!(engine.context().log.last().unwrap(), r#"note_ping "p""#);
    assert_eq!(engine.next_deadline(), Some(at(minutes(2))));

    // Self: exit and enter run, and the timers count again from now, with
    // the delay computed from the context as it is now.
    engine.with_context_ref(|c| assert_eq!(c.timeout_minutes, 10));
    let fired = engine.fire("retry", &json!(null)).unwrap();
    assert_eq!(fired.output_names().collect::<Vec<_>>(), ["tool_started"]);
    assert_eq!(engine.next_deadline(), Some(at(minutes(3))));
    clock.advance(minutes(2));
    assert_eq!(due_timers(&engine).len(), 1, "the slow timer, re-armed at 1m");

    // Leaving disarms.
    engine.fire("tool_finished", &json!(null)).unwrap();
    assert_eq!(engine.next_deadline(), None);
    clock.advance(minutes(60));
    assert!(due_timers(&engine).is_empty());
    assert_eq!(engine.state_name(), "route");
}

#[test]
fn the_initial_state_arms_its_timers_when_built() {
    let definition = Definition::from_fsm(
        "machine M { initial state a { after 250ms -> b; after 1s -> c; } state b { on back -> a; } terminal state c; }",
    )
    .unwrap();
    let clock = ManualClock::new(start());
    let engine = Engine::builder(definition).clock(clock.clone()).build().unwrap();
    assert_eq!(engine.next_deadline(), Some(at(Duration::from_millis(250))));
    clock.advance(Duration::from_secs(5));
    let fired = due_timers(&engine);
    // Leaving `a` through the first disarmed the second.
    assert_eq!(fired.len(), 1);
    assert_eq!(engine.state_name(), "b");
    engine.fire("back", &json!(null)).unwrap();
    assert_eq!(engine.next_deadline(), Some(at(Duration::from_millis(5250))));
}

#[test]
fn a_timer_group_tries_its_guards_in_priority_order() {
    let definition = Definition::from_fsm(
        "machine M { context C; guard retries_left; effect count_retry; \
         initial state calling { after 10m [retries_left] priority 1 -> calling do count_retry; \
         after 10m -> failed; } terminal state failed; }",
    )
    .unwrap();
    let clock = ManualClock::new(start());
    let engine = Engine::with_context(definition, 0u32)
        .clock(clock.clone())
        .context_guard("retries_left", |retries, payload| {
            assert_eq!(payload, &Value::Null, "timers carry no payload");
            *retries < 2
        })
        .effect("count_retry", |retries, _| *retries += 1)
        .build()
        .unwrap();
    for retry in 1..=2 {
        clock.advance(minutes(10));
        let fired = due_timers(&engine);
        assert_eq!(
            (fired.len(), fired[0].timer, fired[0].to_name()),
            (1, 0, "calling")
        );
        assert_eq!(engine.context(), retry);
    }
    clock.advance(minutes(10));
    let fired = due_timers(&engine);
    assert_eq!((fired[0].timer, fired[0].to_name()), (1, "failed"));
}

#[test]
fn unbound_and_unknown_closures_are_errors_when_built() {
    let clock = ManualClock::new(start());
    let error = Engine::with_context(definition(), context())
        .clock(clock)
        .guard("steps_left", |_| true)
        .effect("count_stpe", |_, _| {})
        .effect("record", |_, _| {})
        .effect("record", |_, _| {})
        .delay("tool_timeout", |_| Duration::from_secs(1))
        .delay("timeout", |_| Duration::from_secs(1))
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot build the engine of machine `Router`: \
         `count_stpe` is not an effect of the machine (did you mean `count_step`?); \
         effect `record` is bound twice; \
         `timeout` is not a delay of the machine; its delays are `tool_timeout`; \
         guards `ready_to_answer`, `wants_tool` are not bound; bind each with `.guard(name, |input| ...)`; \
         effects `count_step`, `log_exit`, `log_enter`, `note_ping`, `log_slow`, `store_result` are not bound; \
         bind each with `.effect(name, |context, payload| ...)`"
    );
    assert_eq!(
        error.unbound_of(Binding::Guard),
        ["ready_to_answer", "wants_tool"]
    );
    assert_eq!(error.unbound_of(Binding::Delay), [] as [String; 0]);
    assert!(error.problems().contains(&BindProblem::NameBoundTwice {
        kind: Binding::Effect,
        name: "record".into()
    }));

    let error = Engine::with_context(definition(), context())
        .guard("steps_left", |_| true)
        .guard("ready_to_answer", |_| true)
        .guard("wants_tool", |_| true)
        .effect("count_step", |_, _| {})
        .effect("record", |_, _| {})
        .effect("store_result", |_, _| {})
        .effect("log_exit", |_, _| {})
        .effect("log_enter", |_, _| {})
        .effect("note_ping", |_, _| {})
        .effect("log_slow", |_, _| {})
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot build the engine of machine `Router`: delay `tool_timeout` is not bound; \
         bind each with `.delay(name, |context| ...)`"
    );
    assert_eq!(error.unbound_of(Binding::Delay), ["tool_timeout"]);
}

#[test]
fn snapshots_carry_the_context_and_the_original_deadlines() {
    let clock = ManualClock::new(start());
    let engine = engine(&clock);
    clock.advance(minutes(1));
    engine.fire("decided", &json!({"tool": "t"})).unwrap();
    clock.advance(minutes(4));
    assert_eq!(due_timers(&engine).len(), 1, "the slow timer");
    let snapshot = engine.snapshot();
    let timers: Vec<_> = snapshot
        .timers()
        .iter()
        .map(|t| (t.state(), t.timer(), t.due()))
        .collect();
    assert_eq!(timers, [("call_tool", 1, at(minutes(11)))]);
    let text = serde_json::to_string(&snapshot).unwrap();
    assert!(
        text.contains(r#""timers":[{"state":"call_tool","timer":1,"due":"2026-01-10T09:11:00.000Z"}]"#),
        "{text}"
    );
    assert!(text.contains(r#""steps":1"#), "{text}");

    // A new process, started after a crash, much later.
    let later = ManualClock::new(start() + minutes(9));
    let restored = engine_with(&later, RouterContext::default());
    let snapshot: Snapshot = serde_json::from_str(&text).unwrap();
    restored.restore(&snapshot).unwrap();
    assert_eq!(restored.state_name(), "call_tool");
    assert_eq!(restored.context(), engine.context());
    // The deadline first promised, not ten minutes from the restart.
    assert_eq!(restored.next_deadline(), Some(at(minutes(11))));
    later.advance(minutes(2));
    let fired = due_timers(&restored);
    assert_eq!(fired.len(), 1);
    assert_eq!(restored.state_name(), "fail");
    // The slow timer had fired before the crash and stays disarmed.
    assert_eq!(
        restored
            .context()
            .log
            .iter()
            .filter(|l| *l == "log_slow null")
            .count(),
        1
    );
}

fn engine_with(clock: &ManualClock, context: RouterContext) -> Engine<RouterContext> {
    builder(definition(), clock).context(context).build().unwrap()
}

#[test]
fn a_restore_that_fails_changes_nothing() {
    let clock = ManualClock::new(start());
    let engine = engine(&clock);
    engine.fire("decided", &json!({"tool": "t"})).unwrap();
    let good = engine.snapshot();
    let fresh = engine_with(&clock, context());

    let text = serde_json::to_string(&good)
        .unwrap()
        .replace(r#""steps":1"#, r#""steps":"one""#);
    let bad: Snapshot = serde_json::from_str(&text).unwrap();
    match fresh.restore(&bad) {
        Err(RestoreError::InvalidContext { field, .. }) => assert_eq!(field, "steps"),
        other => panic!("{other:?}"),
    }
    let no_context = Snapshot::new("Router", definition().fingerprint().to_owned(), "route");
    assert!(matches!(
        fresh.restore(&no_context),
        Err(RestoreError::MissingContext { .. })
    ));

    let text = serde_json::to_string(&good)
        .unwrap()
        .replace(r#""timer":1"#, r#""timer":7"#);
    let bad: Snapshot = serde_json::from_str(&text).unwrap();
    assert!(matches!(
        fresh.restore(&bad),
        Err(RestoreError::UnknownTimer { timer: 7, .. })
    ));

    assert_eq!(fresh.state_name(), "route");
    assert_eq!(fresh.context(), context());
    assert_eq!(fresh.next_deadline(), None);
}
