//! Shutdown succeeds from every state, and nothing is accepted afterwards.

use crate::common;

use agent_loop::{
    Action, AgentContext, AgentLoop, Arrival, Clock, Event, FakeClock, Latency, LlmEvent, Output, State,
    ToolCall, ToolCallId, ToolResult, ToolRunner,
};
use common::{agent_with, call, error, policy, text};
use fsm_runtime::{FireError, Machine, MissingTimerPolicy, Snapshot};
use proptest::prelude::*;
use proptest::sample::Index;
use std::time::Duration;

/// The tools a random walk's LLM asks for: two change files, two do not.
const TOOLS: [&str; 4] = ["read_file", "grep", "edit_file", "bash"];

/// An event for `action`, its payload drawn from `draw`: the user's text,
/// the LLM's text, a call of one of [`TOOLS`], a result for one of the
/// calls the machine is waiting for (or for another one).
fn event(action: Action, draw: u32, machine: &AgentLoop<FakeClock>) -> Event {
    match action {
        Action::UserInput => Event::UserInput(format!("message {draw}")),
        Action::TextDelta => Event::TextDelta(format!("text {draw}")),
        Action::ToolCallDelta => {
            Event::ToolCallDelta(ToolCall::new(draw % 8, TOOLS[draw as usize % TOOLS.len()], "x"))
        }
        Action::LlmCompleted => Event::LlmCompleted,
        Action::LlmError => Event::LlmError(format!("error {draw}")),
        Action::ToolCompleted => {
            let pending: Vec<ToolCallId> = machine.context().pending().iter().copied().collect();
            let id = match pending.len() {
                0 => ToolCallId(draw),
                n => pending[draw as usize % n],
            };
            Event::ToolCompleted(ToolResult {
                id,
                output: Ok(String::new()),
            })
        }
        Action::PostToolsHookCompleted => Event::PostToolsHookCompleted,
        Action::ShutdownRequested => Event::ShutdownRequested,
        Action::Pause => Event::Pause,
        Action::Resume => Event::Resume,
        Action::Cancel => Event::Cancel,
    }
}

fn machine() -> AgentLoop<FakeClock> {
    AgentLoop::with_clock(AgentContext::new(policy()), FakeClock::new())
}

/// Every event fails, saying the state is terminal, and no timer is armed
/// however long one waits.
fn assert_everything_rejected(machine: &mut AgentLoop<FakeClock>) -> Result<(), TestCaseError> {
    for &action in Action::ALL {
        let rejected = machine.fire(event(action, 1, machine)).unwrap_err();
        let FireError::InvalidTransition(invalid) = &rejected else {
            return Err(TestCaseError::fail(format!("{action}: {rejected:?}")));
        };
        prop_assert!(invalid.terminal());
        prop_assert!(invalid.valid().is_empty());
        prop_assert_eq!(
            rejected.to_string(),
            format!("action `{action}` is not valid in state `shutting_down`: the state is terminal")
        );
        prop_assert_eq!(rejected.into_event().action(), action, "the event is handed back");
        prop_assert_eq!(machine.state(), State::ShuttingDown);
    }
    prop_assert_eq!(machine.next_deadline(), None);
    machine.clock().sleep(Duration::from_secs(3600));
    prop_assert!(machine.fire_next_due().is_none());
    Ok(())
}

proptest! {
    /// From any state reached by valid events with any payloads and any
    /// waits (which let the backoff timer fire), `shutdown_requested` lands
    /// in `shutting_down`, and then every event is rejected because the
    /// state is terminal.
    #[test]
    fn shutdown_succeeds_from_every_reachable_state(
        walk in prop::collection::vec((any::<Index>(), any::<u32>(), any::<bool>()), 0..60),
        at_shutdown in any::<u32>(),
    ) {
        let mut machine = machine();
        for (pick, draw, wait) in walk {
            if wait {
                // Time passes: a backoff that comes due fires.
                machine.clock().sleep(Duration::from_millis(u64::from(draw % 2000)));
                while let Some(timer) = machine.fire_next_due() {
                    let timer = timer.unwrap();
                    prop_assert_eq!((timer.from, timer.to), (State::Error, State::CallingLlm));
                }
                continue;
            }
            // Shutting down is what is being tested: walk with the others.
            let valid: Vec<Action> = machine
                .valid_actions()
                .iter()
                .copied()
                .filter(|&action| action != Action::ShutdownRequested)
                .collect();
            // Every state but the terminal one has an event besides the
            // shutdown: `error` (left by its timer) can be paused or
            // cancelled.
            prop_assert!(!valid.is_empty(), "{}", machine.state());
            let action = *pick.get(&valid);
            // Every guarded transition has an unguarded fallback: valid
            // events always fire.
            let event = event(action, draw, &machine);
            prop_assert!(machine.fire(event).is_ok());
        }
        let from = machine.state();
        let fired = machine.fire(event(Action::ShutdownRequested, at_shutdown, &machine)).unwrap();
        prop_assert_eq!((fired.from, fired.to), (from, State::ShuttingDown));
        prop_assert_eq!(fired.outputs, [Output::Shutdown]);
        prop_assert!(machine.is_terminal());
        assert_everything_rejected(&mut machine)?;
    }
}

#[test]
fn shutdown_succeeds_from_every_state_constructed_directly() {
    // Restoring each state makes sure none is left out of the property,
    // even one a random walk would rarely reach.
    for &state in State::ALL {
        // A bare snapshot lists no timer: those armed whenever their state
        // is active are armed as entering it would.
        let snapshot = Snapshot::new("AgentLoop", AgentLoop::<FakeClock>::FINGERPRINT, state.name());
        let mut machine = AgentLoop::restore_with_context(
            &snapshot,
            MissingTimerPolicy::Rearm,
            AgentContext::new(policy()),
            FakeClock::new(),
        )
        .unwrap();
        let result = machine.fire(Event::ShutdownRequested);
        if state == State::ShuttingDown {
            assert!(matches!(result, Err(FireError::InvalidTransition(e)) if e.terminal()));
        } else {
            assert_eq!(result.unwrap().to, State::ShuttingDown, "from {state}");
        }
    }
}

/// A session with everything in it: text, concurrent tools (some of them
/// mutating), hooks and retries.
fn session() -> Vec<Vec<LlmEvent>> {
    vec![
        vec![
            text("Looking."),
            call(1, "read_file", "src/main.rs"),
            call(2, "edit_file", "src/main.rs"),
            call(3, "bash", "cargo test"),
            LlmEvent::Completed,
        ],
        vec![error("503")],
        vec![text("Done."), LlmEvent::Completed],
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The agent stops cleanly wherever it is: tool threads in flight are
    /// joined, the backoff timer is disarmed, and every later event is
    /// rejected.
    #[test]
    fn the_agent_shuts_down_after_any_number_of_events(steps in 0usize..40, seed in any::<u64>()) {
        let tools = ToolRunner::new(
            Latency::Jitter { seed, max: Duration::from_millis(1) },
            Arrival::AsFinished,
        );
        let mut agent = agent_with(session(), tools, policy());
        agent.handle(Event::UserInput("Fix it".to_owned())).unwrap();
        for _ in 0..steps {
            let Some(event) = agent.next_event() else { break };
            prop_assert!(agent.handle(event).is_ok());
        }
        let from = agent.state();
        let fired = agent.shutdown().unwrap();
        prop_assert_eq!((fired.from, fired.to), (from, State::ShuttingDown));
        prop_assert_eq!(agent.tools_in_flight(), 0);
        prop_assert_eq!(agent.retry_due(), None, "the backoff timer is disarmed");
        prop_assert!(agent.next_event().is_none());

        let result = ToolResult { id: ToolCallId(1), output: Ok(String::new()) };
        let late = [
            Event::UserInput("Hello?".to_owned()),
            Event::TextDelta("late".to_owned()),
            Event::ToolCallDelta(ToolCall::new(9, "grep", "x")),
            Event::LlmCompleted,
            Event::LlmError("late".to_owned()),
            Event::ToolCompleted(result),
            Event::PostToolsHookCompleted,
            Event::ShutdownRequested,
            Event::Pause,
            Event::Resume,
            Event::Cancel,
        ];
        prop_assert_eq!(late.len(), Action::ALL.len(), "one late event per action");
        for event in late {
            let error = agent.handle(event).unwrap_err();
            prop_assert!(matches!(error, FireError::InvalidTransition(e) if e.terminal()));
        }
        prop_assert_eq!(agent.state(), State::ShuttingDown);
    }
}
