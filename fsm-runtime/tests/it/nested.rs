//! Generated code for nested states, step by step: the leaf, the composites,
//! the outputs (and, for the phone call, the timers) of every transition,
//! history memory (shallow and deep) and snapshots that carry it.
//!
//! `Player` (generated/player.fsm) is a plain machine with guards and a
//! deep history target; `Call` (generated/call_nested.fsm, the phone call of
//! tests/fixtures/ok) has a timer on a composite, so it is generated with the
//! extended API; `Job` (generated/job_nested.fsm) adds a context, effects on
//! every level's hooks, a named delay and a self transition on a composite.

#![deny(warnings, missing_docs, rust_2018_idioms, unreachable_pub)]

include!("../generated/player.rs");

mod call_nested {
    include!("../generated/call_nested.rs");
}

mod job_nested {
    use super::JobContext;
    include!("../generated/job_nested.rs");
}

use fsm_runtime::{
    ArmedTimer, FingerprintPolicy, Fire, Machine, ManualClock, Restore, RestoreError, Snapshot, Timestamp,
};
use std::time::{Duration, UNIX_EPOCH};

const START: u64 = 1_768_037_535_000;

fn clock() -> ManualClock {
    ManualClock::new(UNIX_EPOCH + Duration::from_millis(START))
}

fn at(millis_after_start: u64) -> Timestamp {
    Timestamp::from_unix_millis(START + millis_after_start).unwrap()
}

const HOUR: u64 = 3_600_000;

/// The context of `Job`: every effect and delay read, in order.
#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JobContext {
    budget_ms: u64,
    ticks: u32,
    log: Vec<String>,
}

impl JobContext {
    fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }
}

impl job_nested::job::Context for JobContext {
    fn open(&mut self) {
        self.log.push("open".into());
    }
    fn close(&mut self) {
        self.log.push("close".into());
    }
    fn fetch_in(&mut self) {
        self.log.push("fetch_in".into());
    }
    fn fetch_out(&mut self) {
        self.log.push("fetch_out".into());
    }
    fn give_up(&mut self) {
        self.log.push("give_up".into());
    }
    fn count(&mut self) {
        self.ticks += 1;
        self.log.push("count".into());
    }
    fn budget(&self) -> Duration {
        Duration::from_millis(self.budget_ms)
    }
}

mod player_machine {
    use super::player::{Action, Composite, Guards, Output, Player, State};
    use super::*;

    struct Battery(bool);

    impl Guards for Battery {
        fn battery_ok(&self) -> bool {
            self.0
        }
    }

    const OK: Battery = Battery(true);

    /// Fire `action` and check the outputs and the leaf it lands in.
    fn step(player: &mut Player, action: Action, guards: &Battery, outputs: &[Output], to: State) {
        let from = player.state();
        let fired = player
            .fire(action, guards)
            .unwrap_or_else(|e| panic!("{action} in {from}: {e}"));
        assert_eq!(
            (fired.from, fired.to, fired.action),
            (from, to, action),
            "{action} in {from}"
        );
        assert_eq!(fired.outputs, outputs, "{action} in {from}");
        assert_eq!(player.state(), to);
    }

    #[test]
    fn the_tree() {
        assert_eq!(
            State::ALL,
            [
                State::Off,
                State::Browsing,
                State::Playing,
                State::Paused,
                State::Sleeping,
                State::Unplugged
            ]
        );
        assert_eq!(Composite::ALL, [Composite::On, Composite::Playback]);
        assert_eq!(Composite::Playback.name(), "playback");
        assert_eq!(Composite::Playback.to_string(), "playback");
        assert_eq!(Composite::from_name("on"), Some(Composite::On));
        assert_eq!(Composite::from_name("playing"), None);
        assert_eq!(Composite::Playback.parent(), Some(Composite::On));
        assert_eq!(Composite::On.parent(), None);
        assert_eq!(State::Paused.parent(), Some(Composite::Playback));
        assert_eq!(State::Browsing.parent(), Some(Composite::On));
        assert_eq!(State::Off.parent(), None);
        assert_eq!(State::Paused.ancestors(), [Composite::Playback, Composite::On]);
        assert_eq!(State::Browsing.ancestors(), [Composite::On]);
        assert!(State::Sleeping.ancestors().is_empty());
        assert!(State::Paused.is_in(Composite::On));
        assert!(State::Paused.is_in(Composite::Playback));
        assert!(!State::Browsing.is_in(Composite::Playback));
        assert!(!State::Off.is_in(Composite::On));
        // Composites are no states: the snapshot names only leaves.
        assert_eq!(<State as fsm_runtime::Symbol>::from_name("on"), None::<State>);
    }

    #[test]
    fn exits_innermost_first_and_enters_outermost_first() {
        let mut p = Player::new();
        assert_eq!(p.state(), State::Off);
        assert!(!p.is_in(Composite::On));
        assert_eq!(p.valid_actions(), [Action::Power, Action::Unplug]);
        // Into a composite: its initial child.
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        assert!(p.is_in(Composite::On) && !p.is_in(Composite::Playback));
        // Inherited actions are valid, in declaration order.
        assert_eq!(
            p.valid_actions(),
            [
                Action::Power,
                Action::Suspend,
                Action::Volume,
                Action::Play,
                Action::Unplug
            ]
        );
        step(&mut p, Action::Play, &OK, &[Output::OpenStream], State::Playing);
        assert!(p.is_in(Composite::On) && p.is_in(Composite::Playback));
        assert_eq!(
            p.valid_actions(),
            [
                Action::Power,
                Action::Suspend,
                Action::Volume,
                Action::Stop,
                Action::Pause,
                Action::Seek,
                Action::Unplug
            ]
        );
        // An internal transition inherited from two levels up.
        step(&mut p, Action::Volume, &OK, &[Output::SetVolume], State::Playing);
        // A leaf to itself: only the leaf is left and re-entered.
        step(&mut p, Action::Seek, &OK, &[Output::Jump], State::Playing);
        step(&mut p, Action::Pause, &OK, &[], State::Paused);
        // A leaf to its composite: the composite is left and re-entered too.
        step(
            &mut p,
            Action::Restart,
            &OK,
            &[Output::CloseStream, Output::OpenStream],
            State::Playing,
        );
        // Inherited from `playback`, to a sibling of `playback`.
        step(&mut p, Action::Stop, &OK, &[Output::CloseStream], State::Browsing);
        // `on`'s `power` from `browsing`; `playback`'s interrupt from inside it.
        step(&mut p, Action::Power, &OK, &[Output::LampOff], State::Off);
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        step(&mut p, Action::Play, &OK, &[Output::OpenStream], State::Playing);
        step(
            &mut p,
            Action::Power,
            &OK,
            &[Output::CloseStream, Output::LampOff, Output::SavePosition],
            State::Off,
        );
        // `any` exits every level.
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        step(&mut p, Action::Play, &OK, &[Output::OpenStream], State::Playing);
        step(
            &mut p,
            Action::Unplug,
            &OK,
            &[Output::CloseStream, Output::LampOff],
            State::Unplugged,
        );
        assert!(p.is_terminal());
        assert!(p.valid_actions().is_empty());
        let error = p.fire(Action::Power, &OK).unwrap_err();
        assert_eq!(error.state(), State::Unplugged);
    }

    #[test]
    fn an_action_valid_only_deeper_is_invalid_outside() {
        let mut p = Player::new();
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        let error = p.fire(Action::Pause, &OK).unwrap_err();
        assert_eq!((error.state(), error.action()), (State::Browsing, Action::Pause));
        assert_eq!(p.state(), State::Browsing);
        assert!(!p.can_fire(Action::Stop, &OK));
        assert!(p.can_fire(Action::Suspend, &OK));
    }

    /// Into `paused`, then to sleep: `on` remembers `paused`.
    fn asleep_from_paused() -> Player {
        let mut p = Player::new();
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        step(&mut p, Action::Play, &OK, &[Output::OpenStream], State::Playing);
        step(&mut p, Action::Pause, &OK, &[], State::Paused);
        assert_eq!(p.last_active(Composite::On), None);
        step(
            &mut p,
            Action::Suspend,
            &OK,
            &[Output::CloseStream, Output::LampOff],
            State::Sleeping,
        );
        assert_eq!(p.last_active(Composite::On), Some(State::Paused));
        // Only `on` is entered through its history, so only it is kept.
        assert_eq!(p.last_active(Composite::Playback), None);
        p
    }

    #[test]
    fn deep_history_goes_back_to_the_very_leaf() {
        let mut p = asleep_from_paused();
        step(
            &mut p,
            Action::Wake,
            &OK,
            &[Output::LampOn, Output::OpenStream],
            State::Paused,
        );
        // Entering keeps the memory; the next exit overwrites it.
        assert_eq!(p.last_active(Composite::On), Some(State::Paused));
        step(&mut p, Action::Stop, &OK, &[Output::CloseStream], State::Browsing);
        step(&mut p, Action::Suspend, &OK, &[Output::LampOff], State::Sleeping);
        assert_eq!(p.last_active(Composite::On), Some(State::Browsing));
        step(&mut p, Action::Wake, &OK, &[Output::LampOn], State::Browsing);
    }

    #[test]
    fn shallow_history_enters_the_child_then_its_initial_descent() {
        let mut p = asleep_from_paused();
        // `on.history`: the child `playback`, at its initial `playing`.
        step(
            &mut p,
            Action::Reset,
            &OK,
            &[Output::LampOn, Output::OpenStream],
            State::Playing,
        );
    }

    #[test]
    fn guards_pick_the_candidate_and_history_starts_empty() {
        let mut p = asleep_from_paused();
        step(&mut p, Action::Wake, &Battery(false), &[], State::Off);
        // Going back in from `off` is not through history.
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        // A fresh machine in `sleeping` remembers nothing: history enters
        // the initial states.
        let mut fresh = Player::from_state(State::Sleeping);
        step(&mut fresh, Action::Wake, &OK, &[Output::LampOn], State::Browsing);
        let fired = Player::transition(State::Sleeping, Action::Wake, &OK).unwrap();
        assert_eq!(
            (fired.to, fired.outputs),
            (State::Browsing, &[Output::LampOn][..])
        );
    }

    #[test]
    fn generic_code_fires_through_the_memory() {
        fn fire_all<M: Fire<G>, G: ?Sized>(machine: &mut M, actions: Vec<M::Event>, guards: &G) {
            for action in actions {
                machine.fire(action, guards).unwrap();
            }
        }
        let mut p = asleep_from_paused();
        fire_all(&mut p, vec![Action::Wake], &OK);
        assert_eq!(p.state(), State::Paused);
    }

    #[test]
    fn snapshots_carry_the_memory() {
        let p = Player::new();
        let snapshot = p.snapshot();
        assert_eq!(snapshot.last_active().len(), 0);
        assert_eq!(
            serde_json::to_value(&snapshot).unwrap(),
            serde_json::json!({
                "type": "fsm",
                "machine": "Player",
                "fingerprint": <Player as Machine>::FINGERPRINT,
                "current_state": "off",
            })
        );

        let p = asleep_from_paused();
        let snapshot = p.snapshot();
        assert_eq!(snapshot.current_state(), "sleeping");
        assert_eq!(snapshot.last_active().collect::<Vec<_>>(), [("on", "paused")]);
        let json = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(json["last_active"], serde_json::json!({"on": "paused"}));
        let back: Snapshot = serde_json::from_value(json).unwrap();
        let mut restored = Player::restore(&back).unwrap();
        assert_eq!(restored, p);
        // The restored memory drives history.
        step(
            &mut restored,
            Action::Wake,
            &OK,
            &[Output::LampOn, Output::OpenStream],
            State::Paused,
        );
        let restored = <Player as Restore>::restore_with(&back, FingerprintPolicy::Strict).unwrap();
        assert_eq!(restored, p);
    }

    #[test]
    fn bad_memory_is_refused() {
        let fingerprint = <Player as Machine>::FINGERPRINT;
        let snapshot = |pairs: &[(&'static str, &'static str)]| {
            Snapshot::new("Player", fingerprint, "sleeping").with_last_active(pairs.iter().copied())
        };
        for (pairs, reason) in [
            (&[("on", "off")][..], "`off` is not inside `on`"),
            (
                &[("playback", "playing")],
                "`playback` is not a composite state that a transition enters through its history",
            ),
            (
                &[("on", "nowhere")],
                "`nowhere` is not a leaf state of the machine",
            ),
            (&[("on", "on")], "`on` is not a leaf state of the machine"),
        ] {
            let error = Player::restore(&snapshot(pairs)).unwrap_err();
            match &error {
                RestoreError::InvalidLastActive { reason: found, .. } => {
                    assert_eq!(found, reason, "{pairs:?}")
                }
                other => panic!("{pairs:?}: {other:?}"),
            }
            assert!(error.to_string().contains(reason), "{error}");
        }
        assert!(Player::restore(&snapshot(&[("on", "browsing")])).is_ok());
    }
}

mod call_machine {
    use super::call_nested::call::{Action, Call, Composite, Output, State, TimerFired};
    use super::*;

    fn step(call: &mut Call<ManualClock>, action: Action, outputs: &[Output], to: State) {
        let from = call.state();
        let fired = call
            .fire(action)
            .unwrap_or_else(|e| panic!("{action} in {from}: {e}"));
        assert_eq!((fired.from, fired.to), (from, to), "{action} in {from}");
        assert_eq!(fired.outputs, outputs, "{action} in {from}");
        assert_eq!(call.state(), to);
    }

    fn connected() -> (Call<ManualClock>, ManualClock) {
        let clock = clock();
        let mut call = Call::with_clock(clock.clone());
        assert_eq!(call.state(), State::Idle);
        assert_eq!(call.next_deadline(), None);
        step(&mut call, Action::Dial, &[], State::Connecting);
        step(
            &mut call,
            Action::Answered,
            &[Output::StartBilling],
            State::Talking,
        );
        assert!(call.is_in(Composite::Connected));
        assert_eq!(call.next_deadline(), Some(at(2 * HOUR)));
        (call, clock)
    }

    #[test]
    fn the_example_of_the_issue_step_by_step() {
        let (mut call, clock) = connected();
        assert_eq!(
            call.valid_actions(),
            [Action::HangUp, Action::Pause, Action::Hold, Action::Transfer]
        );
        clock.advance(Duration::from_secs(600));
        // Moving inside `connected` keeps its timer's deadline.
        step(&mut call, Action::Hold, &[], State::OnHold);
        assert_eq!(call.next_deadline(), Some(at(2 * HOUR)));
        step(&mut call, Action::Resume, &[], State::Talking);
        step(&mut call, Action::Transfer, &[], State::DialingThird);
        assert!(call.is_in(Composite::Transferring) && call.is_in(Composite::Connected));
        // `answered` is dialing_third's own here, not connecting's.
        step(&mut call, Action::Answered, &[], State::Bridged);
        assert_eq!(call.next_deadline(), Some(at(2 * HOUR)));
        assert_eq!(
            call.armed_timers().collect::<Vec<_>>(),
            [ArmedTimer::new("connected", 0, at(2 * HOUR))]
        );
        // Inherited from two levels up: every level is left.
        step(&mut call, Action::HangUp, &[Output::StopBilling], State::Idle);
        assert_eq!(call.next_deadline(), None);
        assert!(!call.is_in(Composite::Connected));
    }

    #[test]
    fn a_child_overrides_its_parent() {
        let (mut call, _clock) = connected();
        step(&mut call, Action::Hold, &[], State::OnHold);
        step(
            &mut call,
            Action::HangUp,
            &[Output::StopBilling, Output::LogAbandoned],
            State::Idle,
        );
    }

    #[test]
    fn shallow_history_and_a_fresh_deadline() {
        let (mut call, clock) = connected();
        step(&mut call, Action::Transfer, &[], State::DialingThird);
        step(&mut call, Action::Answered, &[], State::Bridged);
        assert_eq!(call.last_active(Composite::Connected), None);
        step(&mut call, Action::Pause, &[Output::StopBilling], State::Paused);
        assert_eq!(call.last_active(Composite::Connected), Some(State::Bridged));
        assert_eq!(call.next_deadline(), None);
        clock.advance(Duration::from_secs(60));
        // Back to `transferring`, at its initial child; the timer re-armed.
        step(
            &mut call,
            Action::Resume,
            &[Output::StartBilling],
            State::DialingThird,
        );
        assert_eq!(call.next_deadline(), Some(at(60_000 + 2 * HOUR)));
        step(&mut call, Action::Pause, &[Output::StopBilling], State::Paused);
        step(
            &mut call,
            Action::Resume,
            &[Output::StartBilling],
            State::DialingThird,
        );
    }

    #[test]
    fn the_composite_timer_fires_from_any_leaf_inside() {
        let (mut call, clock) = connected();
        step(&mut call, Action::Hold, &[], State::OnHold);
        clock.advance(Duration::from_millis(2 * HOUR));
        let mut fired: Vec<TimerFired<ManualClock>> = Vec::new();
        assert_eq!(call.fire_due(|r| fired.push(r.unwrap())), 1);
        let f = &fired[0];
        assert_eq!(
            (f.from, f.to, f.declared_in, f.timer, f.due),
            (State::OnHold, State::Idle, "connected", 0, at(2 * HOUR))
        );
        assert_eq!(f.outputs, [Output::StopBilling, Output::CutOff]);
        assert_eq!(call.state(), State::Idle);
        assert_eq!(call.next_deadline(), None);
        // Leaving `connected` through its timer remembers the leaf.
        assert_eq!(call.last_active(Composite::Connected), Some(State::OnHold));
    }

    #[test]
    fn snapshots_carry_composite_timers_and_memory() {
        let (mut call, clock) = connected();
        step(&mut call, Action::Transfer, &[], State::DialingThird);
        let snapshot = call.snapshot();
        let json = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(json["current_state"], "dialing_third");
        assert_eq!(
            json["timers"],
            serde_json::json!([{"state": "connected", "timer": 0, "due": at(2 * HOUR).to_string()}])
        );
        assert!(json.get("last_active").is_none());
        let back: Snapshot = serde_json::from_value(json).unwrap();
        clock.advance(Duration::from_secs(5));
        let mut restored = Call::restore_with(&back, FingerprintPolicy::Strict, clock.clone()).unwrap();
        assert_eq!(restored.state(), State::DialingThird);
        assert_eq!(restored.next_deadline(), Some(at(2 * HOUR)));
        step(&mut restored, Action::Answered, &[], State::Bridged);

        step(&mut call, Action::Pause, &[Output::StopBilling], State::Paused);
        let snapshot = call.snapshot();
        assert_eq!(
            snapshot.last_active().collect::<Vec<_>>(),
            [("connected", "dialing_third")]
        );
        assert!(snapshot.timers().is_empty());
        let json = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(
            json["last_active"],
            serde_json::json!({"connected": "dialing_third"})
        );
        let back: Snapshot = serde_json::from_value(json).unwrap();
        let mut restored = Call::restore_with(&back, FingerprintPolicy::Strict, clock.clone()).unwrap();
        assert_eq!(
            restored.last_active(Composite::Connected),
            Some(State::DialingThird)
        );
        step(
            &mut restored,
            Action::Resume,
            &[Output::StartBilling],
            State::DialingThird,
        );
    }

    #[test]
    fn bad_timers_and_memory_are_refused() {
        let fingerprint = <call_nested::call::Call as Machine>::FINGERPRINT;
        let base = |state: &'static str| Snapshot::new("Call", fingerprint, state);
        let restore = |snapshot: &Snapshot| Call::restore_with(snapshot, FingerprintPolicy::Strict, clock());
        // A composite's timer is fine from a leaf inside it...
        assert!(restore(&base("on_hold").with_timers([ArmedTimer::new("connected", 0, at(1))])).is_ok());
        // ... and refused outside it, past its timers, or for a leaf without any.
        for (state, armed, timers) in [
            ("idle", ArmedTimer::new("connected", 0, at(1)), None),
            ("talking", ArmedTimer::new("connected", 1, at(1)), Some(1)),
            ("talking", ArmedTimer::new("talking", 0, at(1)), Some(0)),
            ("talking", ArmedTimer::new("nowhere", 0, at(1)), None),
        ] {
            let snapshot = base(state).with_timers([armed.clone()]);
            match restore(&snapshot) {
                Err(RestoreError::UnknownTimer {
                    current_state,
                    state: found,
                    timer,
                    timers: count,
                    ..
                }) => assert_eq!(
                    (current_state.as_str(), found.as_str(), timer, count),
                    (state, armed.state(), armed.timer(), timers)
                ),
                other => panic!("{state} {armed:?}: {other:?}"),
            }
        }
        for pairs in [
            [("connected", "idle")],
            [("transferring", "bridged")],
            [("connected", "connected")],
        ] {
            let snapshot = base("paused").with_last_active(pairs);
            assert!(
                matches!(restore(&snapshot), Err(RestoreError::InvalidLastActive { .. })),
                "{pairs:?}"
            );
        }
    }
}

mod job_machine {
    use super::job_nested::job::{Composite, Event, Job, Output, State};
    use super::*;

    fn job(budget_ms: u64) -> (Job<ManualClock>, ManualClock) {
        let clock = clock();
        let context = JobContext {
            budget_ms,
            ..JobContext::default()
        };
        (Job::with_clock(context, clock.clone()), clock)
    }

    /// Fire `event`; check the outputs, the leaf, and the effects run.
    fn step(job: &mut Job<ManualClock>, event: Event, outputs: &[Output], to: State, effects: &[&str]) {
        let from = job.state();
        let text = format!("{event:?} in {from}");
        let fired = job.fire(event).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!((fired.from, fired.to), (from, to), "{text}");
        assert_eq!(fired.outputs, outputs, "{text}");
        assert_eq!(job.context_mut().take_log(), effects, "{text}");
    }

    #[test]
    fn effects_run_level_by_level_and_timers_follow_the_path() {
        let (mut job, clock) = job(10_000);
        // Construction runs no hook.
        assert_eq!(job.state(), State::Queued);
        assert!(job.context().log.is_empty());
        step(&mut job, Event::Start, &[], State::Fetch, &["open", "fetch_in"]);
        // The leaf's timer first, then its composite's.
        assert_eq!(
            job.armed_timers().collect::<Vec<_>>(),
            [
                ArmedTimer::new("fetch", 0, at(500)),
                ArmedTimer::new("work", 0, at(10_000))
            ]
        );
        // An internal transition inherited from the composite: no hook, no timer change.
        step(&mut job, Event::Tick, &[], State::Fetch, &["count"]);
        clock.advance(Duration::from_millis(500));
        let fired = job.fire_next_due().unwrap().unwrap();
        assert_eq!(
            (
                fired.from,
                fired.to,
                fired.declared_in,
                fired.timer,
                fired.outputs
            ),
            (State::Fetch, State::Process, "fetch", 0, &[Output::Fetched][..])
        );
        assert_eq!(job.context_mut().take_log(), ["fetch_out"]);
        // The composite's timer kept its deadline.
        assert_eq!(
            job.armed_timers().collect::<Vec<_>>(),
            [ArmedTimer::new("work", 0, at(10_000))]
        );
        clock.advance(Duration::from_millis(1_000));
        step(&mut job, Event::Again, &[], State::Fetch, &["fetch_in"]);
        assert_eq!(
            job.armed_timers().collect::<Vec<_>>(),
            [
                ArmedTimer::new("fetch", 0, at(2_000)),
                ArmedTimer::new("work", 0, at(10_000))
            ]
        );
        // A self transition on the composite leaves and re-enters it: every
        // hook runs, the delay is read again and its timer re-armed.
        job.context_mut().budget_ms = 20_000;
        step(
            &mut job,
            Event::Restart,
            &[],
            State::Fetch,
            &["fetch_out", "close", "open", "fetch_in"],
        );
        assert_eq!(
            job.armed_timers().collect::<Vec<_>>(),
            [
                ArmedTimer::new("fetch", 0, at(2_000)),
                ArmedTimer::new("work", 0, at(21_500))
            ]
        );
    }

    #[test]
    fn the_composite_timer_fires_from_the_leaf_and_deep_history_returns() {
        let (mut job, clock) = job(10_000);
        step(&mut job, Event::Start, &[], State::Fetch, &["open", "fetch_in"]);
        step(&mut job, Event::Done, &[], State::Process, &["fetch_out"]);
        clock.advance(Duration::from_millis(10_000));
        let fired = job.fire_next_due().unwrap().unwrap();
        assert_eq!(
            (
                fired.from,
                fired.to,
                fired.declared_in,
                fired.timer,
                fired.outputs
            ),
            (State::Process, State::Parked, "work", 0, &[Output::TimedOut][..])
        );
        assert_eq!(job.context_mut().take_log(), ["close", "give_up"]);
        assert_eq!(job.last_active(Composite::Work), Some(State::Process));
        assert_eq!(job.next_deadline(), None);
        // Deep history: straight back to `process`; only `work`'s timer.
        step(&mut job, Event::Resume, &[], State::Process, &["open"]);
        assert_eq!(
            job.armed_timers().collect::<Vec<_>>(),
            [ArmedTimer::new("work", 0, at(20_000))]
        );
        step(&mut job, Event::Again, &[], State::Fetch, &["fetch_in"]);
        step(&mut job, Event::Park, &[], State::Parked, &["fetch_out", "close"]);
        step(&mut job, Event::Resume, &[], State::Fetch, &["open", "fetch_in"]);
        assert!(job.is_in(Composite::Work));
    }

    #[test]
    fn snapshots_keep_context_timers_of_every_level_and_memory() {
        let (mut job, clock) = job(10_000);
        step(&mut job, Event::Start, &[], State::Fetch, &["open", "fetch_in"]);
        step(&mut job, Event::Park, &[], State::Parked, &["fetch_out", "close"]);
        step(&mut job, Event::Resume, &[], State::Fetch, &["open", "fetch_in"]);
        let snapshot = job.snapshot().unwrap();
        let json = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(
            json["timers"],
            serde_json::json!([
                {"state": "fetch", "timer": 0, "due": at(500).to_string()},
                {"state": "work", "timer": 0, "due": at(10_000).to_string()},
            ])
        );
        assert_eq!(json["last_active"], serde_json::json!({"work": "fetch"}));
        let back: Snapshot = serde_json::from_value(json).unwrap();
        clock.advance(Duration::from_millis(600));
        let mut restored = Job::restore_with(&back, FingerprintPolicy::Strict, clock.clone()).unwrap();
        assert_eq!(restored.context(), job.context());
        assert_eq!(restored.last_active(Composite::Work), Some(State::Fetch));
        assert_eq!(
            restored.armed_timers().collect::<Vec<_>>(),
            job.armed_timers().collect::<Vec<_>>()
        );
        let fired = restored.fire_next_due().unwrap().unwrap();
        assert_eq!((fired.declared_in, fired.to), ("fetch", State::Process));
        // A leaf's timer is refused once the leaf is left.
        let bad = back.clone().with_timers([ArmedTimer::new("fetch", 0, at(1))]);
        let bad = Snapshot::new("Job", bad.fingerprint().to_owned(), "process")
            .with_timers(bad.timers().to_vec())
            .with_context(bad.context().unwrap().clone());
        assert!(matches!(
            Job::restore_with(&bad, FingerprintPolicy::Strict, clock),
            Err(RestoreError::UnknownTimer { .. })
        ));
    }
}
