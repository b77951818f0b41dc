//! Shutdown succeeds from every state, and nothing is accepted afterwards.

mod common;

use agent_loop::{
    Action, AgentLoop, Arrival, Event, Facts, FireError, Latency, LlmEvent, Output, State, ToolCall,
    ToolCallId, ToolResult, ToolRunner,
};
use common::{agent_with, call, error, policy, text};
use proptest::prelude::*;
use proptest::sample::Index;
use std::time::Duration;

fn facts([retries_left, has_tool_calls, tools_pending, mutating_tools]: [bool; 4]) -> Facts {
    Facts {
        retries_left,
        has_tool_calls,
        tools_pending,
        mutating_tools,
    }
}

/// Every action fails, saying the state is terminal.
fn assert_everything_rejected(machine: &mut AgentLoop, guards: &Facts) -> Result<(), TestCaseError> {
    for &action in Action::ALL {
        let error = machine.fire(action, guards).unwrap_err();
        let FireError::InvalidTransition(invalid) = error else {
            return Err(TestCaseError::fail(format!("{action}: {error:?}")));
        };
        prop_assert!(invalid.terminal());
        prop_assert!(invalid.valid().is_empty());
        prop_assert_eq!(
            error.to_string(),
            format!("action `{action}` is not valid in state `shutting_down`: the state is terminal")
        );
        prop_assert_eq!(machine.state(), State::ShuttingDown);
    }
    Ok(())
}

proptest! {
    /// From any state reached by valid actions under any guard values,
    /// `shutdown_requested` lands in `shutting_down`, and then every action
    /// is rejected because the state is terminal.
    #[test]
    fn shutdown_succeeds_from_every_reachable_state(
        walk in prop::collection::vec((any::<Index>(), any::<[bool; 4]>()), 0..60),
        at_shutdown in any::<[bool; 4]>(),
    ) {
        let mut machine = AgentLoop::new();
        for (pick, guards) in walk {
            // Shutting down is what is being tested: walk with the others.
            let valid: Vec<Action> = machine
                .valid_actions()
                .iter()
                .copied()
                .filter(|&action| action != Action::ShutdownRequested)
                .collect();
            let action = *pick.get(&valid);
            // Every guarded action has an unguarded fallback: valid actions
            // always fire.
            prop_assert!(machine.fire(action, &facts(guards)).is_ok());
        }
        let from = machine.state();
        let fired = machine.fire(Action::ShutdownRequested, &facts(at_shutdown)).unwrap();
        prop_assert_eq!((fired.from, fired.to), (from, State::ShuttingDown));
        prop_assert_eq!(fired.outputs, [Output::Shutdown]);
        prop_assert!(machine.is_terminal());
        assert_everything_rejected(&mut machine, &facts(at_shutdown))?;
    }
}

#[test]
fn shutdown_succeeds_from_every_state_constructed_directly() {
    // `from_state` makes sure no state is left out of the property, even one
    // a random walk would rarely reach.
    for &state in State::ALL {
        let mut machine = AgentLoop::from_state(state);
        let result = machine.fire(Action::ShutdownRequested, &Facts::default());
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
    /// joined, the retry timer is cancelled, and every later event is
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
        prop_assert_eq!(agent.context().retry_timer(), None);
        prop_assert!(agent.next_event().is_none());

        let result = ToolResult { id: ToolCallId(1), output: Ok(String::new()) };
        let late = [
            Event::UserInput("Hello?".to_owned()),
            Event::Llm(LlmEvent::TextDelta("late".to_owned())),
            Event::Llm(LlmEvent::ToolCallDelta(ToolCall::new(9, "grep", "x"))),
            Event::Llm(LlmEvent::Completed),
            Event::Llm(LlmEvent::Error("late".to_owned())),
            Event::ResponseExamined,
            Event::ToolCompleted(result),
            Event::PostToolsHookCompleted,
            Event::RetryTimeoutFired,
            Event::ShutdownRequested,
        ];
        for event in late {
            let error = agent.handle(event).unwrap_err();
            prop_assert!(matches!(error, FireError::InvalidTransition(e) if e.terminal()));
        }
        prop_assert_eq!(agent.state(), State::ShuttingDown);
    }
}
