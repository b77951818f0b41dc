//! The loop of a coding agent: the caller performs the outputs and feeds the
//! results back as actions; the machine only decides.

#![deny(warnings, missing_docs, rust_2018_idioms, unreachable_pub)]

include!("../generated/agent.rs");

use agent_loop::{Action, AgentLoop, Output, State};
use fsm_runtime::FireError;

/// What the caller knows when the machine asks.
#[derive(Default)]
struct Turn {
    retries: u32,
    max_retries: u32,
    tool_calls: bool,
    pending_tools: u32,
    mutated_files: bool,
}

impl agent_loop::Guards for Turn {
    fn retries_left(&self) -> bool {
        self.retries < self.max_retries
    }

    fn has_tool_calls(&self) -> bool {
        self.tool_calls
    }

    fn tools_pending(&self) -> bool {
        self.pending_tools > 0
    }

    fn mutating_tools(&self) -> bool {
        self.mutated_files
    }
}

#[test]
fn a_turn_with_streaming_and_tools() {
    let mut agent = AgentLoop::new();
    let mut turn = Turn {
        max_retries: 3,
        ..Turn::default()
    };
    let step = |agent: &mut AgentLoop, action, turn: &Turn| agent.fire(action, turn).unwrap().outputs;

    assert_eq!(
        step(&mut agent, Action::UserInput, &turn),
        [Output::SendLlmRequest, Output::StartTimeout]
    );
    // Streaming is internal: the timeout is neither cancelled nor restarted.
    assert_eq!(
        step(&mut agent, Action::TextDelta, &turn),
        [Output::DisplayMessage]
    );
    assert_eq!(step(&mut agent, Action::ToolCallDelta, &turn), []);
    assert_eq!(agent.state(), State::CallingLlm);
    assert_eq!(
        step(&mut agent, Action::LlmCompleted, &turn),
        [Output::CancelTimeout]
    );

    turn.tool_calls = true;
    turn.pending_tools = 2;
    assert_eq!(
        step(&mut agent, Action::ResponseExamined, &turn),
        [Output::ExecuteTools]
    );
    // Tools complete concurrently, one report each.
    turn.pending_tools = 1;
    assert_eq!(
        step(&mut agent, Action::ToolCompleted, &turn),
        [Output::WaitForInput]
    );
    assert_eq!(agent.state(), State::ExecutingTools);
    turn.pending_tools = 0;
    turn.mutated_files = true;
    assert_eq!(
        step(&mut agent, Action::ToolCompleted, &turn),
        [Output::RunPostToolsHook]
    );
    assert_eq!(
        step(&mut agent, Action::PostToolsHookCompleted, &turn),
        [Output::SendLlmRequest, Output::StartTimeout]
    );
    assert_eq!(
        step(&mut agent, Action::LlmCompleted, &turn),
        [Output::CancelTimeout]
    );
    turn.tool_calls = false;
    assert_eq!(
        step(&mut agent, Action::ResponseExamined, &turn),
        [Output::WaitForInput]
    );
    assert_eq!(agent.state(), State::WaitingForUserInput);
}

#[test]
fn failed_requests_are_retried_a_bounded_number_of_times() {
    let mut agent = AgentLoop::new();
    let mut turn = Turn {
        max_retries: 2,
        ..Turn::default()
    };
    agent.fire(Action::UserInput, &turn).unwrap();
    let mut failures = 0;
    loop {
        let fired = agent.fire(Action::LlmError, &turn).unwrap();
        failures += 1;
        if fired.to == State::WaitingForUserInput {
            assert_eq!(fired.outputs, [Output::CancelTimeout, Output::DisplayError]);
            break;
        }
        assert_eq!(fired.outputs, [Output::CancelTimeout, Output::WaitForInput]);
        assert_eq!(agent.state(), State::Error);
        turn.retries += 1;
        agent.fire(Action::RetryTimeoutFired, &turn).unwrap();
    }
    assert_eq!(failures, 3, "two retries, then the error is shown");
}

#[test]
fn shutdown_succeeds_from_every_state() {
    for &state in State::ALL {
        let mut agent = AgentLoop::from_state(state);
        let result = agent.fire(Action::ShutdownRequested, &Turn::default());
        if state == State::ShuttingDown {
            assert!(matches!(result, Err(FireError::InvalidTransition(e)) if e.terminal()));
            continue;
        }
        let fired = result.unwrap_or_else(|e| panic!("shutdown from {state}: {e}"));
        assert_eq!(fired.to, State::ShuttingDown);
        assert_eq!(fired.outputs.last(), Some(&Output::Shutdown), "from {state}");
        assert!(agent.is_terminal());
    }
}

#[test]
fn events_out_of_order_are_rejected_with_the_valid_ones() {
    let mut agent = AgentLoop::new();
    let error = agent.fire(Action::ToolCompleted, &Turn::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `tool_completed` is not valid in state `waiting_for_user_input`; \
         valid actions: `user_input`, `shutdown_requested`"
    );
}
