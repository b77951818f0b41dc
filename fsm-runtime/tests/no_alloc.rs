//! `fire` never allocates: not when it succeeds, not when the action is
//! invalid, not when every guard rejects it; nor, for machines with a
//! context, payloads and timers, do events, effects, rejections handed back
//! and timers, beyond what the user's own effects allocate. A global
//! allocator counts the allocations of the measuring thread.

#![deny(warnings)]

include!("generated/agent.rs");
include!("generated/door.rs");
include!("generated/call.rs");
include!("generated/player.rs");

/// The phone call with nested states (module `call`, like the flat one's).
mod nested {
    include!("generated/call_nested.rs");
}

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

struct Turn {
    retries_left: bool,
}

impl agent_loop::Guards for Turn {
    fn retries_left(&self) -> bool {
        self.retries_left
    }

    fn has_tool_calls(&self) -> bool {
        false
    }

    fn tools_pending(&self) -> bool {
        false
    }

    fn mutating_tools(&self) -> bool {
        false
    }
}

struct NoKey;

impl door::Guards for NoKey {
    fn has_key(&self) -> bool {
        false
    }
}

#[test]
fn the_counter_sees_allocations() {
    // Without this, a broken counter would make the other tests pass.
    let n = allocations(|| drop(std::hint::black_box(vec![1u8; 16])));
    assert_eq!(n, 1);
}

#[test]
fn fire_allocates_nothing() {
    use agent_loop::{Action, AgentLoop};
    let turn = Turn { retries_left: true };
    let script = [
        Action::UserInput,
        Action::TextDelta,
        Action::LlmError,
        Action::RetryTimeoutFired,
        Action::LlmCompleted,
        Action::ResponseExamined,
        Action::ShutdownRequested,
    ];
    let run = || {
        let mut agent = AgentLoop::new();
        let mut outputs = 0;
        for &action in &script {
            let fired = agent
                .fire(std::hint::black_box(action), &turn)
                .expect("a valid script");
            outputs += fired.outputs.len();
        }
        assert!(agent.is_terminal());
        std::hint::black_box((outputs, agent.snapshot(), agent.valid_actions()));
    };
    run(); // Warm up: the `tracing` feature registers its callsites once.
    assert_eq!(allocations(run), 0);
}

#[test]
fn failing_fires_allocate_nothing() {
    use door::{Action, Door};
    let run = || {
        let mut door = Door::new();
        // Invalid in this state.
        let invalid = door
            .fire(std::hint::black_box(Action::Unlock), &NoKey)
            .unwrap_err();
        // Valid, but the guard rejects it.
        let rejected = door.fire(std::hint::black_box(Action::Lock), &NoKey).unwrap_err();
        assert!(!door.can_fire(Action::Lock, &NoKey));
        std::hint::black_box((invalid, rejected));
    };
    run();
    assert_eq!(allocations(run), 0);
}

/// A context whose effects allocate nothing, except `count_poke`, which
/// pushes onto a `Vec` and so allocates exactly once, the first time.
#[derive(Default)]
struct CallContext {
    request_len: usize,
    retries: u32,
    result: u32,
    effects: u32,
    pokes: Vec<u32>,
}

impl call::Context for CallContext {
    fn retries_left(&self) -> bool {
        self.retries < 1
    }
    fn urgent(&self, level: &u8) -> bool {
        *level > 5
    }
    fn arm(&mut self) {
        self.effects += 1;
    }
    fn disarm(&mut self) {
        self.effects += 1;
    }
    fn count_retry(&mut self) {
        self.retries += 1;
    }
    fn count_poke(&mut self) {
        self.pokes.push(self.effects);
    }
    fn log_restart(&mut self) {
        self.effects += 1;
    }
    fn remember(&mut self, request: &String) {
        self.request_len = request.len();
    }
    fn record_result(&mut self, result: &u32) {
        self.result = *result;
    }
    fn backoff(&self) -> std::time::Duration {
        std::time::Duration::from_secs(1 << self.retries)
    }
}

#[test]
fn events_effects_and_timers_allocate_nothing_of_their_own() {
    use call::{Call, Event, State};
    use fsm_runtime::ManualClock;
    use std::time::{Duration, UNIX_EPOCH};

    let clock = ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_768_037_535));
    // The payload is allocated before measuring; moving it into the event,
    // the effects that read it and the rejection that hands it back do not
    // allocate.
    let mut request = Some("call me".to_string());
    let mut machine = Call::with_clock(CallContext::default(), clock.clone());
    let mut run = || {
        let start = Event::Start(request.take().expect("one run"));
        machine.fire(start).expect("start");
        // Rejected: invalid here, and no guard holds; both hand the event back.
        let again = machine.fire(Event::Start(String::new())).unwrap_err();
        let calm = machine.fire(Event::Escalate(1)).unwrap_err();
        assert!(!machine.can_fire(&Event::Escalate(1)));
        std::hint::black_box((again.into_event(), calm.into_event()));
        // Timers: the internal one, then the guarded 10m group (a retry, with
        // a named delay armed), then the backoff back into `calling`.
        clock.advance(Duration::from_secs(600));
        let fired = machine.fire_due(|result| {
            std::hint::black_box(result.expect("a timer fires"));
        });
        assert_eq!(fired, 2);
        assert_eq!(machine.state(), State::Waiting);
        clock.advance(Duration::from_secs(2));
        assert_eq!(machine.fire_due(|_| {}), 1);
        machine.fire(Event::Finished(42)).expect("finished");
        std::hint::black_box((machine.next_deadline(), machine.armed_timers().count()));
        assert!(machine.is_terminal());
    };
    assert_eq!(allocations(&mut run), 0);
    assert_eq!(machine.context().result, 42);
    assert_eq!(machine.context().request_len, 7);

    // The one effect that allocates is the only allocation.
    let mut machine = Call::with_clock(CallContext::default(), clock.clone());
    machine.fire(Event::Start(String::new())).expect("start");
    assert_eq!(
        allocations(|| {
            std::hint::black_box(machine.fire(Event::Poke).expect("poke"));
        }),
        1
    );
    assert_eq!(
        allocations(|| {
            std::hint::black_box(machine.fire(Event::Poke).expect("poke"));
        }),
        0
    );
}

struct Battery;

impl player::Guards for Battery {
    fn battery_ok(&self) -> bool {
        true
    }
}

#[test]
fn nested_machines_fire_through_history_without_allocating() {
    use player::{Action, Player, State};
    let script = [
        Action::Power,
        Action::Play,
        Action::Pause,
        Action::Volume,
        Action::Suspend,
        Action::Wake, // deep history: back to `paused`
        Action::Suspend,
        Action::Reset, // shallow history: `playing`
        Action::Stop,
        Action::Play, // invalid in `playing`
        Action::Unplug,
    ];
    let run = || {
        let mut player = Player::new();
        let mut outputs = 0;
        for &action in &script {
            match player.fire(std::hint::black_box(action), &Battery) {
                Ok(fired) => outputs += fired.outputs.len(),
                Err(error) => {
                    std::hint::black_box(error);
                }
            }
        }
        assert_eq!(player.state(), State::Unplugged);
        std::hint::black_box((
            outputs,
            player.valid_actions(),
            player.is_in(player::Composite::On),
        ));
    };
    run();
    assert_eq!(allocations(run), 0);
}

#[test]
fn nested_timers_fire_without_allocating() {
    use fsm_runtime::ManualClock;
    use nested::call::{Action, Call, State};
    use std::time::{Duration, UNIX_EPOCH};

    let clock = ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_768_037_535));
    let mut call = Call::with_clock(clock.clone());
    let mut run = || {
        for action in [
            Action::Dial,
            Action::Answered,
            Action::Hold,
            Action::Pause,
            Action::Resume,
        ] {
            call.fire(std::hint::black_box(action)).expect("a valid script");
        }
        assert_eq!(call.state(), State::OnHold);
        // The composite's timer fires from the leaf.
        clock.advance(Duration::from_secs(2 * 3600));
        let fired = call.fire_due(|result| {
            std::hint::black_box(result.expect("cut off"));
        });
        assert_eq!(fired, 1);
        assert_eq!(call.state(), State::Idle);
        std::hint::black_box((call.next_deadline(), call.armed_timers().count()));
    };
    assert_eq!(allocations(&mut run), 0);
}
