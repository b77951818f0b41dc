//! The limit: the nested machine as the flat `match` a careful programmer
//! writes by hand once the tree is worked out on paper. Every leaf spells
//! out the transitions it inherits, each transition's outputs are one
//! static slice in exit, transition, entry order, and the history memory of
//! `working` is one field written on every transition that leaves it.

use super::{Action, Guards, Output, Sink, State, Step, Subject};

/// The machine: the current leaf, and the leaf last active inside `working`
/// when it was last left (`None` before it ever was).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    /// The current leaf.
    pub state: State,
    /// `working`'s history memory.
    pub last_working: Option<State>,
}

impl Default for Machine {
    fn default() -> Self {
        Machine::new()
    }
}

impl Machine {
    /// In `waiting_for_user_input`, remembering nothing.
    pub const fn new() -> Machine {
        Machine {
            state: State::WaitingForUserInput,
            last_working: None,
        }
    }

    /// Fire `action`: the outputs to perform, or `Err(())` when it is not
    /// valid in the current leaf (nothing changes then). Guards are read in
    /// priority order and only when they decide something.
    #[inline]
    #[allow(clippy::result_unit_err)]
    pub fn step(&mut self, action: Action, guards: &Guards) -> Result<&'static [Output], ()> {
        use Action as A;
        use Output as O;
        use State as S;
        let from = self.state;
        // The target, the outputs, and whether the transition leaves `working`.
        let (to, outputs, leaves_working): (State, &'static [Output], bool) = match (from, action) {
            (S::WaitingForUserInput, A::UserInput) => (
                S::CallingLlm,
                &[O::StartTurn, O::OpenStream, O::SendLlmRequest],
                false,
            ),
            (S::WaitingForUserInput, A::ShutdownRequested) => (S::ShuttingDown, &[O::Shutdown], false),

            // llm: calling_llm, processing_llm_response.
            (S::CallingLlm, A::TextDelta) => (from, &[O::DisplayMessage], false),
            (S::CallingLlm, A::ToolCallDelta) => (from, &[O::WaitForInput], false),
            (S::CallingLlm, A::LlmCompleted) => (S::ProcessingLlmResponse, &[], false),
            (S::ProcessingLlmResponse, A::ResponseExamined) => {
                if guards.has_tool_calls {
                    (
                        S::ExecutingTools,
                        &[O::CloseStream, O::ExecuteTools, O::LockWorkspace],
                        false,
                    )
                } else {
                    (
                        S::WaitingForUserInput,
                        &[O::CloseStream, O::EndTurn, O::WaitForInput],
                        true,
                    )
                }
            }
            (S::CallingLlm | S::ProcessingLlmResponse, A::LlmError) => {
                if guards.retries_left {
                    (S::Backoff, &[O::CloseStream, O::WaitForInput], false)
                } else {
                    (
                        S::WaitingForUserInput,
                        &[O::CloseStream, O::EndTurn, O::DisplayError],
                        true,
                    )
                }
            }
            // Forced or not, `cancel` leaves the turn from the llm phase.
            (S::CallingLlm | S::ProcessingLlmResponse, A::Cancel) => (
                S::WaitingForUserInput,
                &[O::CloseStream, O::EndTurn, O::AbortWork],
                true,
            ),
            (S::CallingLlm | S::ProcessingLlmResponse, A::Pause) => {
                (S::Paused, &[O::CloseStream, O::EndTurn, O::SuspendWork], true)
            }
            (S::CallingLlm | S::ProcessingLlmResponse, A::ShutdownRequested) => {
                (S::ShuttingDown, &[O::CloseStream, O::EndTurn, O::Shutdown], true)
            }

            // tools: executing_tools, post_tools_hook.
            (S::ExecutingTools, A::ToolCompleted) => {
                if guards.tools_pending {
                    (from, &[O::WaitForInput], false)
                } else if guards.mutating_tools {
                    (S::PostToolsHook, &[O::RunPostToolsHook], false)
                } else {
                    (
                        S::CallingLlm,
                        &[O::UnlockWorkspace, O::OpenStream, O::SendLlmRequest],
                        false,
                    )
                }
            }
            (S::PostToolsHook, A::PostToolsHookCompleted) => (
                S::CallingLlm,
                &[O::UnlockWorkspace, O::OpenStream, O::SendLlmRequest],
                false,
            ),
            // `working`'s forced cancel interrupts `tools`' own.
            (S::ExecutingTools | S::PostToolsHook, A::Cancel) => {
                if guards.forced {
                    (
                        S::WaitingForUserInput,
                        &[O::UnlockWorkspace, O::EndTurn, O::AbortWork],
                        true,
                    )
                } else {
                    (from, &[O::CancelTools], false)
                }
            }
            (S::ExecutingTools | S::PostToolsHook, A::Pause) => {
                (S::Paused, &[O::UnlockWorkspace, O::EndTurn, O::SuspendWork], true)
            }
            (S::ExecutingTools | S::PostToolsHook, A::ShutdownRequested) => (
                S::ShuttingDown,
                &[O::UnlockWorkspace, O::EndTurn, O::Shutdown],
                true,
            ),

            // backoff, directly in working.
            (S::Backoff, A::RetryTimeoutFired) => (S::CallingLlm, &[O::OpenStream, O::SendLlmRequest], false),
            (S::Backoff, A::Cancel) => (S::WaitingForUserInput, &[O::EndTurn, O::AbortWork], true),
            (S::Backoff, A::Pause) => (S::Paused, &[O::EndTurn, O::SuspendWork], true),
            (S::Backoff, A::ShutdownRequested) => (S::ShuttingDown, &[O::EndTurn, O::Shutdown], true),

            // paused: back into working through its history.
            (S::Paused, A::Resume) => match self.last_working {
                Some(S::ProcessingLlmResponse) => (
                    S::ProcessingLlmResponse,
                    &[O::ResumeWork, O::StartTurn, O::OpenStream],
                    false,
                ),
                Some(leaf @ (S::ExecutingTools | S::PostToolsHook)) => {
                    (leaf, &[O::ResumeWork, O::StartTurn, O::LockWorkspace], false)
                }
                Some(S::Backoff) => (S::Backoff, &[O::ResumeWork, O::StartTurn], false),
                _ => (
                    S::CallingLlm,
                    &[O::ResumeWork, O::StartTurn, O::OpenStream, O::SendLlmRequest],
                    false,
                ),
            },
            (S::Paused, A::Restart) => match self.last_working {
                Some(S::ExecutingTools | S::PostToolsHook) => (
                    S::ExecutingTools,
                    &[O::ResumeWork, O::StartTurn, O::LockWorkspace],
                    false,
                ),
                Some(S::Backoff) => (S::Backoff, &[O::ResumeWork, O::StartTurn], false),
                _ => (
                    S::CallingLlm,
                    &[O::ResumeWork, O::StartTurn, O::OpenStream, O::SendLlmRequest],
                    false,
                ),
            },
            (S::Paused, A::Cancel) => (S::WaitingForUserInput, &[O::AbortWork], false),
            (S::Paused, A::ShutdownRequested) => (S::ShuttingDown, &[O::Shutdown], false),

            _ => return Err(()),
        };
        if leaves_working {
            self.last_working = Some(from);
        }
        self.state = to;
        Ok(outputs)
    }
}

/// The hand-written machine.
pub struct HandWritten;

impl Subject for HandWritten {
    type Event = (Action, Guards);

    const NAME: &'static str = "hand-written `match`";

    fn prepare(&self, step: &Step) -> Self::Event {
        (step.action, step.guards)
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) {
        let mut machine = Machine::new();
        for (action, guards) in events {
            match machine.step(*action, guards) {
                Ok(outputs) => sink.accepted(outputs.iter().copied(), || machine.state),
                Err(()) => sink.rejected(|| machine.state),
            }
        }
    }
}
