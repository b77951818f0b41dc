//! The limit: the agent machine as the plain `match` a careful programmer
//! writes by hand, on [`crate::agent`]'s enums. No library, no error
//! details, no trait: a pure function of the state, the action and the
//! guards.

use super::Subject;
use crate::agent::{Action, Guards, Output, State};
use crate::harness::Sink;
use crate::trace::Step;

/// The agent machine's transition function: the next state and the outputs
/// to perform, or `Err(())` when `action` is not valid in `state`.
///
/// Guards are read in priority order and only when needed, as the `.fsm`
/// semantics require; an internal transition returns `state` itself.
#[inline]
#[allow(clippy::result_unit_err)]
pub fn step(state: State, action: Action, guards: &Guards) -> Result<(State, &'static [Output]), ()> {
    use Action as A;
    use Output as O;
    use State as S;
    Ok(match (state, action) {
        (S::ShuttingDown, _) => return Err(()),
        (_, A::ShutdownRequested) => (S::ShuttingDown, &[O::Shutdown]),
        (S::WaitingForUserInput, A::UserInput) => (S::CallingLlm, &[O::SendLlmRequest]),
        (S::CallingLlm, A::TextDelta) => (S::CallingLlm, &[O::DisplayMessage]),
        (S::CallingLlm, A::ToolCallDelta) => (S::CallingLlm, &[O::WaitForInput]),
        (S::CallingLlm, A::LlmCompleted) => (S::ProcessingLlmResponse, &[]),
        (S::CallingLlm, A::LlmError) => {
            if guards.retries_left {
                (S::Error, &[O::WaitForInput])
            } else {
                (S::WaitingForUserInput, &[O::DisplayError])
            }
        }
        (S::ProcessingLlmResponse, A::ResponseExamined) => {
            if guards.has_tool_calls {
                (S::ExecutingTools, &[O::ExecuteTools])
            } else {
                (S::WaitingForUserInput, &[O::WaitForInput])
            }
        }
        (S::ExecutingTools, A::ToolCompleted) => {
            if guards.tools_pending {
                (S::ExecutingTools, &[O::WaitForInput])
            } else if guards.mutating_tools {
                (S::PostToolsHook, &[O::RunPostToolsHook])
            } else {
                (S::CallingLlm, &[O::SendLlmRequest])
            }
        }
        (S::PostToolsHook, A::PostToolsHookCompleted) => (S::CallingLlm, &[O::SendLlmRequest]),
        (S::Error, A::RetryTimeoutFired) => (S::CallingLlm, &[O::SendLlmRequest]),
        _ => return Err(()),
    })
}

/// The hand-written `match`, [`step`].
pub struct HandWritten;

impl Subject for HandWritten {
    type Event = Step;

    const NAME: &'static str = "hand-written `match`";

    fn prepare(&self, step: &Step) -> Step {
        *step
    }

    fn run<S: Sink>(&self, events: &[Step], sink: &mut S) {
        let mut state = State::WaitingForUserInput;
        for event in events {
            match step(state, event.action, &event.guards) {
                Ok((to, outputs)) => {
                    state = to;
                    sink.accepted(outputs.iter().copied(), || state);
                }
                Err(()) => sink.rejected(|| state),
            }
        }
    }
}
