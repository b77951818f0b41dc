//! The limit: the data-carrying agent machine as the plain `match` a careful
//! programmer writes by hand, over its own event enum. Guards are read in
//! priority order against the context as it was before the event; only the
//! chosen transition's effects run.

use super::{AgentContext, DataStep, DataSubject, Payload, Text, ToolOutcome};
use crate::agent::{Action, Output, State};
use crate::harness::Sink;

/// An event: an action with its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// `user_input(Text)`.
    UserInput(Text),
    /// `text_delta(Text)`.
    TextDelta(Text),
    /// `tool_call_delta`.
    ToolCallDelta,
    /// `llm_completed`.
    LlmCompleted,
    /// `llm_error`.
    LlmError,
    /// `response_examined`.
    ResponseExamined,
    /// `tool_completed(ToolOutcome)`.
    ToolCompleted(ToolOutcome),
    /// `post_tools_hook_completed`.
    PostToolsHookCompleted,
    /// `retry_timeout_fired`.
    RetryTimeoutFired,
    /// `shutdown_requested`.
    ShutdownRequested,
}

/// The event of `step`.
///
/// # Panics
///
/// When the step's payload is not its action's.
pub fn event(step: &DataStep) -> Event {
    match (step.action, step.payload) {
        (Action::UserInput, Payload::Text(text)) => Event::UserInput(text),
        (Action::TextDelta, Payload::Text(text)) => Event::TextDelta(text),
        (Action::ToolCallDelta, Payload::None) => Event::ToolCallDelta,
        (Action::LlmCompleted, Payload::None) => Event::LlmCompleted,
        (Action::LlmError, Payload::None) => Event::LlmError,
        (Action::ResponseExamined, Payload::None) => Event::ResponseExamined,
        (Action::ToolCompleted, Payload::Tool(outcome)) => Event::ToolCompleted(outcome),
        (Action::PostToolsHookCompleted, Payload::None) => Event::PostToolsHookCompleted,
        (Action::RetryTimeoutFired, Payload::None) => Event::RetryTimeoutFired,
        (Action::ShutdownRequested, Payload::None) => Event::ShutdownRequested,
        (action, payload) => panic!("{action:?} does not carry {payload:?}"),
    }
}

/// The transition function: the next state and the outputs, having run the
/// chosen transition's effects on `context`; `Err(())`, with nothing run,
/// when the event is not valid in `state`.
#[inline]
#[allow(clippy::result_unit_err)]
pub fn step(
    state: State,
    context: &mut AgentContext,
    event: &Event,
) -> Result<(State, &'static [Output]), ()> {
    use Event as E;
    use Output as O;
    use State as S;
    Ok(match (state, event) {
        (S::ShuttingDown, _) => return Err(()),
        (_, E::ShutdownRequested) => (S::ShuttingDown, &[O::Shutdown]),
        (S::WaitingForUserInput, E::UserInput(text)) => {
            context.append_user(text);
            (S::CallingLlm, &[O::SendLlmRequest])
        }
        (S::CallingLlm, E::TextDelta(text)) => {
            context.append_text(text);
            (S::CallingLlm, &[O::DisplayMessage])
        }
        (S::CallingLlm, E::ToolCallDelta) => {
            context.count_tool_call();
            (S::CallingLlm, &[O::WaitForInput])
        }
        (S::CallingLlm, E::LlmCompleted) => {
            context.finish_response();
            (S::ProcessingLlmResponse, &[])
        }
        (S::CallingLlm, E::LlmError) => {
            if context.retries_left() {
                context.count_retry();
                (S::Error, &[O::WaitForInput])
            } else {
                context.give_up();
                (S::WaitingForUserInput, &[O::DisplayError])
            }
        }
        (S::ProcessingLlmResponse, E::ResponseExamined) => {
            if context.has_tool_calls() {
                context.start_tools();
                (S::ExecutingTools, &[O::ExecuteTools])
            } else {
                (S::WaitingForUserInput, &[O::WaitForInput])
            }
        }
        (S::ExecutingTools, E::ToolCompleted(outcome)) => {
            if context.tools_pending() {
                context.record_tool(outcome);
                (S::ExecutingTools, &[O::WaitForInput])
            } else if context.mutating_tools(outcome) {
                context.record_tool(outcome);
                (S::PostToolsHook, &[O::RunPostToolsHook])
            } else {
                context.record_tool(outcome);
                (S::CallingLlm, &[O::SendLlmRequest])
            }
        }
        (S::PostToolsHook, E::PostToolsHookCompleted) => (S::CallingLlm, &[O::SendLlmRequest]),
        (S::Error, E::RetryTimeoutFired) => (S::CallingLlm, &[O::SendLlmRequest]),
        _ => return Err(()),
    })
}

/// The hand-written `match`, [`step`].
pub struct HandWritten;

impl DataSubject for HandWritten {
    type Event = Event;

    const NAME: &'static str = "hand-written `match`";

    fn prepare(&self, step: &DataStep) -> Event {
        event(step)
    }

    fn run<S: Sink>(&self, events: &[Event], sink: &mut S) -> AgentContext {
        let mut state = State::WaitingForUserInput;
        let mut context = AgentContext::default();
        for event in events {
            match step(state, &mut context, event) {
                Ok((to, outputs)) => {
                    state = to;
                    sink.accepted(outputs.iter().copied(), || state);
                }
                Err(()) => sink.rejected(|| state),
            }
        }
        context
    }
}
