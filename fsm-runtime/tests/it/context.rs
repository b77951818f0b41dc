//! A generated machine with a context (`generated/call.fsm`): effects in the
//! order of the outputs, guards that read the context before the effects,
//! rejections that hand the event back, payloads, timers on a manual clock,
//! and snapshots that keep the context and the original deadlines.

#![deny(warnings)]

include!("../generated/call.rs");

use call::{Action, Call, Event, Output, State};
use fsm_runtime::driver::{run_virtual, Step, Stopped};
use fsm_runtime::{
    ArmedTimer, Clock, FingerprintPolicy, ManualClock, MissingTimerPolicy, RestoreError, RestorePolicy,
    Snapshot, Timestamp,
};
use std::time::{Duration, UNIX_EPOCH};

#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CallContext {
    request: String,
    retries: u32,
    max_retries: u32,
    pokes: u32,
    result: Option<u32>,
    /// Every effect, in the order it ran.
    log: Vec<String>,
}

impl call::Context for CallContext {
    fn retries_left(&self) -> bool {
        self.retries < self.max_retries
    }
    fn urgent(&self, level: &u8) -> bool {
        *level > 5
    }
    fn arm(&mut self) {
        self.log.push("arm".into());
    }
    fn disarm(&mut self) {
        self.log.push("disarm".into());
    }
    fn count_retry(&mut self) {
        self.retries += 1;
        self.log.push("count_retry".into());
    }
    fn count_poke(&mut self) {
        self.pokes += 1;
    }
    fn log_restart(&mut self) {
        self.log.push("log_restart".into());
    }
    fn remember(&mut self, request: &String) {
        self.request.clone_from(request);
        self.log.push("remember".into());
    }
    fn record_result(&mut self, result: &u32) {
        self.result = Some(*result);
        self.log.push("record_result".into());
    }
    fn backoff(&self) -> Duration {
        Duration::from_secs(1 << self.retries)
    }
}

const START: u64 = 1_768_037_535_000;

fn clock() -> ManualClock {
    ManualClock::new(UNIX_EPOCH + Duration::from_millis(START))
}

fn at(millis_after_start: u64) -> Timestamp {
    Timestamp::from_unix_millis(START + millis_after_start).unwrap()
}

fn calling(max_retries: u32) -> (Call<ManualClock>, ManualClock) {
    let clock = clock();
    let context = CallContext {
        max_retries,
        ..CallContext::default()
    };
    let mut machine = Call::with_clock(context, clock.clone());
    machine.fire(Event::Start("hello".into())).unwrap();
    (machine, clock)
}

#[test]
fn effects_run_in_the_order_of_the_outputs() {
    let (mut machine, _clock) = calling(1);
    assert_eq!(machine.state(), State::Calling);
    assert_eq!(machine.context().request, "hello");
    assert_eq!(machine.context().log, ["remember", "arm"]);
    let fired = machine.fire(Event::Finished(42)).unwrap();
    assert_eq!(fired.outputs, [Output::Stopped, Output::DoneOutput]);
    assert_eq!(
        machine.context().log,
        ["remember", "arm", "disarm", "record_result"]
    );
    assert_eq!(machine.context().result, Some(42));
    assert!(machine.is_terminal());
    assert_eq!(machine.next_deadline(), None);
}

#[test]
fn a_rejected_event_runs_nothing_and_is_handed_back() {
    let (mut machine, _clock) = calling(1);
    let error = machine.fire(Event::Escalate(3)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `escalate` rejected in state `calling`: guard `urgent` was false (-> failed)"
    );
    assert!(matches!(error.into_event(), Event::Escalate(3)));
    let error = machine.fire(Event::Start("again".into())).unwrap_err();
    assert_eq!(error.action(), Action::Start);
    match error.into_event() {
        Event::Start(request) => assert_eq!(request, "again"),
        other => panic!("{other:?}"),
    }
    assert_eq!(machine.state(), State::Calling);
    assert_eq!(machine.context().log, ["remember", "arm"]);
    // A payload guard that holds.
    machine.fire(Event::Escalate(9)).unwrap();
    assert_eq!(machine.state(), State::Failed);
}

#[test]
fn a_ten_minute_timeout_on_a_manual_clock() {
    let (mut machine, clock) = calling(0);
    let mut fired = Vec::new();
    let hour = Duration::from_secs(3600);
    let stopped = run_virtual(&mut machine, &clock, [], hour, |_, step| match step {
        Step::Timer(Ok(timer)) => fired.push(format!("{timer} at {}", timer.due)),
        other => panic!("{other:?}"),
    });
    assert_eq!(stopped, Stopped::Terminal);
    assert_eq!(clock.now(), at(600_000));
    // The internal timer fires once and stays disarmed; the others do not
    // move. With no retries left, the guarded timer's group falls to the
    // unguarded one.
    assert_eq!(
        fired,
        [
            "timer 0 of `calling` -> `calling` (emit `log_slow`) at 2026-01-10T09:32:45.000Z",
            "timer 2 of `calling` -> `failed` (emit `stopped`, `give_up`) at 2026-01-10T09:42:15.000Z",
        ]
    );
}

#[test]
fn guards_read_the_context_before_effects_and_delays_after() {
    let (mut machine, clock) = calling(1);
    clock.advance(Duration::from_secs(600));
    let mut results = Vec::new();
    machine.fire_due(|r| results.push(r.unwrap()));
    // The 30 s timer first, then the 10 min group: `retries_left` held (0 < 1)
    // before `count_retry` ran.
    assert_eq!(results.len(), 2);
    assert_eq!((results[1].to, results[1].timer), (State::Waiting, 1));
    assert_eq!(machine.context().retries, 1);
    // The backoff was read after the effect: 2 s, not 1 s.
    assert_eq!(machine.next_deadline(), Some(at(602_000)));
    clock.advance(Duration::from_secs(2));
    assert_eq!(machine.fire_due(|_| {}), 1);
    assert_eq!(machine.state(), State::Calling);
    assert_eq!(machine.next_deadline(), Some(at(632_000)));
}

#[test]
fn internal_transitions_keep_timers_and_self_transitions_rearm_them() {
    let (mut machine, clock) = calling(1);
    clock.advance(Duration::from_secs(20));
    let fired = machine.fire(Event::Poke).unwrap();
    assert_eq!(
        (fired.from, fired.to, fired.outputs),
        (State::Calling, State::Calling, &[][..])
    );
    assert_eq!(machine.context().pokes, 1);
    assert_eq!(machine.next_deadline(), Some(at(30_000)));
    let fired = machine.fire(Event::Restart).unwrap();
    assert_eq!(fired.outputs, [Output::Stopped, Output::Started]);
    assert_eq!(
        machine.context().log,
        ["remember", "arm", "disarm", "log_restart", "arm"]
    );
    assert_eq!(machine.next_deadline(), Some(at(50_000)));
}

#[test]
fn snapshots_keep_the_context_and_the_original_deadlines() {
    let (mut machine, clock) = calling(2);
    clock.advance(Duration::from_secs(45));
    machine.fire_due(|_| {});
    let snapshot = machine.snapshot().unwrap();
    let json = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(json["current_state"], "calling");
    assert_eq!(json["context"]["request"], "hello");
    assert_eq!(
        json["timers"],
        serde_json::json!([
            {"state": "calling", "timer": 1, "due": at(600_000).to_string()},
            {"state": "calling", "timer": 2, "due": at(600_000).to_string()},
        ])
    );
    // A crash, and a restart five minutes later.
    let stored: Snapshot = serde_json::from_str(&json.to_string()).unwrap();
    clock.advance(Duration::from_secs(300));
    let mut restored = Call::restore_with(&stored, FingerprintPolicy::Strict, clock.clone()).unwrap();
    assert_eq!(restored.context(), machine.context());
    assert_eq!(restored.next_deadline(), Some(at(600_000)));
    clock.set(at(600_000).to_system_time());
    assert_eq!(restored.fire_due(|_| {}), 1);
    assert_eq!(restored.state(), State::Waiting);
}

#[test]
fn a_context_that_does_not_deserialize_names_the_field() {
    let (machine, _clock) = calling(2);
    let mut json = serde_json::to_value(machine.snapshot().unwrap()).unwrap();
    json["context"]["retries"] = "many".into();
    let snapshot: Snapshot = serde_json::from_value(json).unwrap();
    let error = Call::restore_with(&snapshot, FingerprintPolicy::Strict, clock())
        .err()
        .unwrap();
    match &error {
        RestoreError::InvalidContext { field, .. } => assert_eq!(field, "retries"),
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains("at field `retries`"), "{error}");
}

#[test]
fn old_snapshots_and_unknown_timers() {
    let old: Snapshot = serde_json::from_str(
        r#"{"type": "fsm", "machine": "Call", "fingerprint": "x", "current_state": "waiting"}"#,
    )
    .unwrap();
    assert!(matches!(
        Call::restore_with(&old, FingerprintPolicy::Ignore, clock()),
        Err(RestoreError::MissingContext { .. })
    ));
    // With the context given, it lost `waiting`'s `after backoff`, which is
    // armed whenever `waiting` is active: refused, or re-armed from the
    // restore, the backoff read from the restored context.
    assert!(matches!(
        Call::restore_with_context(&old, FingerprintPolicy::Ignore, CallContext::default(), clock()),
        Err(RestoreError::MissingTimer { .. })
    ));
    let rearm = RestorePolicy::from(FingerprintPolicy::Ignore).with_missing_timers(MissingTimerPolicy::Rearm);
    let restored = Call::restore_with_context(&old, rearm, CallContext::default(), clock()).unwrap();
    assert_eq!(
        (restored.state(), restored.next_deadline()),
        (State::Waiting, Some(at(1000)))
    );
    let bad = old.clone().with_timers([ArmedTimer::new("waiting", 3, at(0))]);
    let error = Call::restore_with_context(&bad, FingerprintPolicy::Ignore, CallContext::default(), clock())
        .err()
        .unwrap();
    assert_eq!(
        error.to_string(),
        "the snapshot of machine `Call` arms timer 3 of state `waiting`, which has 1 timer"
    );
}

#[test]
fn can_fire_evaluates_guards_and_runs_no_effect() {
    let (machine, _clock) = calling(1);
    let before = format!("{machine:?}");
    assert!(machine.can_fire(&Event::Finished(1)));
    assert!(machine.can_fire(&Event::Poke));
    // `urgent` reads the payload.
    assert!(machine.can_fire(&Event::Escalate(9)));
    assert!(!machine.can_fire(&Event::Escalate(1)));
    // Not valid in `calling`.
    assert!(!machine.can_fire(&Event::Start("again".into())));
    assert_eq!(machine.context().log, ["remember", "arm"], "no effect ran");
    assert_eq!(machine.context().pokes, 0);
    assert_eq!(format!("{machine:?}"), before, "nothing changed");
}

#[test]
fn debug_shows_the_state_context_and_deadlines() {
    let (machine, _clock) = calling(1);
    assert_eq!(
        format!("{machine:?}"),
        "Call { state: Calling, context: CallContext { request: \"hello\", retries: 0, max_retries: 1, \
         pokes: 0, result: None, log: [\"remember\", \"arm\"] }, deadlines: \
         [Some(Timestamp(2026-01-10T09:32:45.000Z)), Some(Timestamp(2026-01-10T09:42:15.000Z)), \
         Some(Timestamp(2026-01-10T09:42:15.000Z))], .. }"
    );
}
