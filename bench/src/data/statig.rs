//! The data-carrying agent machine in statig 0.4 (blocking): the agent's
//! data is statig's shared storage (`&mut self` in every handler), events
//! carry their data, one `#[state]` handler per state matches on the event.
//!
//! Emulated as for the plain trace (`crate::subjects::statig`): `any` is a
//! superstate `active`; statig drops unhandled events silently, so `active`
//! and the terminal state record the rejection; outputs are recorded. Both
//! go to the external context (`handle_with_context`), a per-event report
//! the caller reads back.

use super::{AgentContext, DataStep, DataSubject, Text, ToolOutcome};
use crate::agent::{Output, State as AgentState};
use crate::harness::Sink;
use ::statig::blocking::*;

/// An event of the agent machine, with its data.
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

/// What one event did, for the caller: its output, or its rejection.
#[derive(Debug, Default)]
pub struct Report {
    emitted: Option<Output>,
    rejected: bool,
}

impl Report {
    #[inline]
    fn emit(&mut self, output: Output) {
        debug_assert!(self.emitted.is_none(), "one output per transition");
        self.emitted = Some(output);
    }
}

/// The agent: its data is statig's shared storage.
#[derive(Debug, Default)]
pub struct Agent {
    data: AgentContext,
}

#[state_machine(
    initial = "State::waiting_for_user_input()",
    state(derive(Debug, Clone, Copy, PartialEq, Eq))
)]
impl Agent {
    #[state(superstate = "active")]
    fn waiting_for_user_input(&mut self, context: &mut Report, event: &Event) -> Outcome<State> {
        match event {
            Event::UserInput(text) => {
                self.data.append_user(text);
                context.emit(Output::SendLlmRequest);
                Transition(State::calling_llm())
            }
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn calling_llm(&mut self, context: &mut Report, event: &Event) -> Outcome<State> {
        match event {
            Event::TextDelta(text) => {
                self.data.append_text(text);
                context.emit(Output::DisplayMessage);
                Handled
            }
            Event::ToolCallDelta => {
                self.data.count_tool_call();
                context.emit(Output::WaitForInput);
                Handled
            }
            Event::LlmCompleted => {
                self.data.finish_response();
                Transition(State::processing_llm_response())
            }
            Event::LlmError if self.data.retries_left() => {
                self.data.count_retry();
                context.emit(Output::WaitForInput);
                Transition(State::error())
            }
            Event::LlmError => {
                self.data.give_up();
                context.emit(Output::DisplayError);
                Transition(State::waiting_for_user_input())
            }
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn processing_llm_response(&mut self, context: &mut Report, event: &Event) -> Outcome<State> {
        match event {
            Event::ResponseExamined if self.data.has_tool_calls() => {
                self.data.start_tools();
                context.emit(Output::ExecuteTools);
                Transition(State::executing_tools())
            }
            Event::ResponseExamined => {
                context.emit(Output::WaitForInput);
                Transition(State::waiting_for_user_input())
            }
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn executing_tools(&mut self, context: &mut Report, event: &Event) -> Outcome<State> {
        match event {
            Event::ToolCompleted(outcome) if self.data.tools_pending() => {
                self.data.record_tool(outcome);
                context.emit(Output::WaitForInput);
                Handled
            }
            Event::ToolCompleted(outcome) if self.data.mutating_tools(outcome) => {
                self.data.record_tool(outcome);
                context.emit(Output::RunPostToolsHook);
                Transition(State::post_tools_hook())
            }
            Event::ToolCompleted(outcome) => {
                self.data.record_tool(outcome);
                context.emit(Output::SendLlmRequest);
                Transition(State::calling_llm())
            }
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn post_tools_hook(context: &mut Report, event: &Event) -> Outcome<State> {
        match event {
            Event::PostToolsHookCompleted => {
                context.emit(Output::SendLlmRequest);
                Transition(State::calling_llm())
            }
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn error(context: &mut Report, event: &Event) -> Outcome<State> {
        match event {
            Event::RetryTimeoutFired => {
                context.emit(Output::SendLlmRequest);
                Transition(State::calling_llm())
            }
            _ => Super,
        }
    }

    /// Terminal: every event is rejected.
    #[state]
    fn shutting_down(context: &mut Report) -> Outcome<State> {
        context.rejected = true;
        Handled
    }

    /// The `.fsm` `any` block, and the rejection of what no state handles.
    #[superstate]
    fn active(context: &mut Report, event: &Event) -> Outcome<State> {
        match event {
            Event::ShutdownRequested => {
                context.emit(Output::Shutdown);
                Transition(State::shutting_down())
            }
            _ => {
                context.rejected = true;
                Handled
            }
        }
    }
}

fn state(state: &State) -> AgentState {
    match state {
        State::WaitingForUserInput {} => AgentState::WaitingForUserInput,
        State::CallingLlm {} => AgentState::CallingLlm,
        State::ProcessingLlmResponse {} => AgentState::ProcessingLlmResponse,
        State::ExecutingTools {} => AgentState::ExecutingTools,
        State::PostToolsHook {} => AgentState::PostToolsHook,
        State::Error {} => AgentState::Error,
        State::ShuttingDown {} => AgentState::ShuttingDown,
    }
}

fn event(step: &DataStep) -> Event {
    use super::hand_written::Event as E;
    match super::hand_written::event(step) {
        E::UserInput(text) => Event::UserInput(text),
        E::TextDelta(text) => Event::TextDelta(text),
        E::ToolCallDelta => Event::ToolCallDelta,
        E::LlmCompleted => Event::LlmCompleted,
        E::LlmError => Event::LlmError,
        E::ResponseExamined => Event::ResponseExamined,
        E::ToolCompleted(outcome) => Event::ToolCompleted(outcome),
        E::PostToolsHookCompleted => Event::PostToolsHookCompleted,
        E::RetryTimeoutFired => Event::RetryTimeoutFired,
        E::ShutdownRequested => Event::ShutdownRequested,
    }
}

/// The statig machine.
pub struct Statig;

impl DataSubject for Statig {
    type Event = Event;

    const NAME: &'static str = "statig 0.4";

    fn prepare(&self, step: &DataStep) -> Event {
        event(step)
    }

    fn run<S: Sink>(&self, events: &[Event], sink: &mut S) -> AgentContext {
        let mut report = Report::default();
        let mut machine = Agent::default()
            .uninitialized_state_machine()
            .init_with_context(&mut report);
        for event in events {
            report.rejected = false;
            machine.handle_with_context(event, &mut report);
            if report.rejected {
                sink.rejected(|| state(machine.state()));
            } else {
                sink.accepted(report.emitted.take().into_iter(), || state(machine.state()));
            }
        }
        machine.inner().data.clone()
    }
}
