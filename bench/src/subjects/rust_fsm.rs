//! The agent machine in rust-fsm 0.8, with its `state_machine!` DSL as its
//! documentation shows (a Mealy machine: one optional output per
//! transition, which is all the agent machine needs).
//!
//! rust-fsm has no guards, priorities, internal transitions or `any`:
//! - a guarded action becomes one input per outcome of its guards
//!   (`LlmErrorRetry` / `LlmErrorGiveUp`), and the caller evaluates the
//!   guards, in priority order and lazily, to choose the input when it fires
//!   the event (the `input` function below, inside the timed loop);
//! - an internal transition is a transition back to the same state (the
//!   agent machine has no enter/exit outputs, so this is equivalent);
//! - `any` is written out for every non-terminal state.

use super::Subject;
use crate::agent::{Action, Guards, Output, State};
use crate::harness::Sink;
use crate::trace::Step;

::rust_fsm::state_machine! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    agent(WaitingForUserInput)

    WaitingForUserInput => {
        UserInput => CallingLlm [SendLlmRequest],
        ShutdownRequested => ShuttingDown [Shutdown],
    },
    CallingLlm => {
        TextDelta => CallingLlm [DisplayMessage],
        ToolCallDelta => CallingLlm [WaitForInput],
        LlmCompleted => ProcessingLlmResponse,
        LlmErrorRetry => Error [WaitForInput],
        LlmErrorGiveUp => WaitingForUserInput [DisplayError],
        ShutdownRequested => ShuttingDown [Shutdown],
    },
    ProcessingLlmResponse => {
        ResponseExaminedWithTools => ExecutingTools [ExecuteTools],
        ResponseExaminedTextOnly => WaitingForUserInput [WaitForInput],
        ShutdownRequested => ShuttingDown [Shutdown],
    },
    ExecutingTools => {
        ToolCompletedPending => ExecutingTools [WaitForInput],
        ToolCompletedMutating => PostToolsHook [RunPostToolsHook],
        ToolCompletedDone => CallingLlm [SendLlmRequest],
        ShutdownRequested => ShuttingDown [Shutdown],
    },
    PostToolsHook => {
        PostToolsHookCompleted => CallingLlm [SendLlmRequest],
        ShutdownRequested => ShuttingDown [Shutdown],
    },
    Error => {
        RetryTimeoutFired => CallingLlm [SendLlmRequest],
        ShutdownRequested => ShuttingDown [Shutdown],
    },
}

/// The input for `action` given the guards, evaluated by the caller in the
/// `.fsm` priority order.
#[inline]
fn input(action: Action, guards: &Guards) -> agent::Input {
    use agent::Input as I;
    match action {
        Action::UserInput => I::UserInput,
        Action::TextDelta => I::TextDelta,
        Action::ToolCallDelta => I::ToolCallDelta,
        Action::LlmCompleted => I::LlmCompleted,
        Action::LlmError if guards.retries_left => I::LlmErrorRetry,
        Action::LlmError => I::LlmErrorGiveUp,
        Action::ResponseExamined if guards.has_tool_calls => I::ResponseExaminedWithTools,
        Action::ResponseExamined => I::ResponseExaminedTextOnly,
        Action::ToolCompleted if guards.tools_pending => I::ToolCompletedPending,
        Action::ToolCompleted if guards.mutating_tools => I::ToolCompletedMutating,
        Action::ToolCompleted => I::ToolCompletedDone,
        Action::PostToolsHookCompleted => I::PostToolsHookCompleted,
        Action::RetryTimeoutFired => I::RetryTimeoutFired,
        Action::ShutdownRequested => I::ShutdownRequested,
    }
}

fn state(state: &agent::State) -> State {
    use agent::State as S;
    match state {
        S::WaitingForUserInput => State::WaitingForUserInput,
        S::CallingLlm => State::CallingLlm,
        S::ProcessingLlmResponse => State::ProcessingLlmResponse,
        S::ExecutingTools => State::ExecutingTools,
        S::PostToolsHook => State::PostToolsHook,
        S::Error => State::Error,
        S::ShuttingDown => State::ShuttingDown,
    }
}

fn output(output: agent::Output) -> Output {
    use agent::Output as O;
    match output {
        O::SendLlmRequest => Output::SendLlmRequest,
        O::DisplayMessage => Output::DisplayMessage,
        O::WaitForInput => Output::WaitForInput,
        O::ExecuteTools => Output::ExecuteTools,
        O::RunPostToolsHook => Output::RunPostToolsHook,
        O::DisplayError => Output::DisplayError,
        O::Shutdown => Output::Shutdown,
    }
}

/// The rust-fsm machine.
pub struct RustFsm;

impl Subject for RustFsm {
    type Event = Step;

    const NAME: &'static str = "rust-fsm 0.8";

    fn prepare(&self, step: &Step) -> Step {
        *step
    }

    fn run<S: Sink>(&self, events: &[Step], sink: &mut S) {
        let mut machine = agent::StateMachine::new();
        for step in events {
            match machine.consume(&input(step.action, &step.guards)) {
                Ok(emitted) => sink.accepted(emitted.into_iter().map(output), || state(machine.state())),
                Err(_) => sink.rejected(|| state(machine.state())),
            }
        }
    }
}
