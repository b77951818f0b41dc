//! The agent machine in statig 0.4 (blocking), written as its README shows:
//! one `#[state]` handler per state matching on the event.
//!
//! - Guards are read from an external context (`handle_with_context`), where
//!   the caller keeps the agent's data; priorities are the order of the
//!   `if`/`else` in a handler.
//! - `any` is a superstate, `active`, of every non-terminal state: it
//!   handles `shutdown_requested`, which the states defer to it (`Super`).
//! - Outputs are performed on the context by the handlers; here "performing"
//!   records the output, which the benchmark reads back after the event.
//! - statig has no notion of a rejected event (an event nobody handles is
//!   silently dropped at the top state), so `active` and the terminal state
//!   record the rejection in the context, and the caller reads it back.
//! - Internal transitions return `Handled`.

use super::Subject;
use crate::agent::{Action, Guards, Output, State as AgentState};
use crate::harness::Sink;
use crate::trace::Step;
use ::statig::blocking::*;

/// An event of the agent machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// `user_input`.
    UserInput,
    /// `text_delta`.
    TextDelta,
    /// `tool_call_delta`.
    ToolCallDelta,
    /// `llm_completed`.
    LlmCompleted,
    /// `llm_error`.
    LlmError,
    /// `response_examined`.
    ResponseExamined,
    /// `tool_completed`.
    ToolCompleted,
    /// `post_tools_hook_completed`.
    PostToolsHookCompleted,
    /// `retry_timeout_fired`.
    RetryTimeoutFired,
    /// `shutdown_requested`.
    ShutdownRequested,
}

/// The caller's side: the guard values it answers from its data, the output
/// the last event performed, and whether the last event was rejected.
#[derive(Debug, Default)]
pub struct Context {
    guards: Guards,
    emitted: Option<Output>,
    rejected: bool,
}

impl Context {
    fn emit(&mut self, output: Output) {
        debug_assert!(self.emitted.is_none(), "one output per transition");
        self.emitted = Some(output);
    }
}

/// The agent (statig's shared storage; the agent machine keeps its data in
/// the caller's [`Context`]).
#[derive(Debug, Default)]
pub struct Agent;

#[state_machine(
    initial = "State::waiting_for_user_input()",
    state(derive(Debug, Clone, Copy, PartialEq, Eq))
)]
impl Agent {
    #[state(superstate = "active")]
    fn waiting_for_user_input(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::UserInput => {
                context.emit(Output::SendLlmRequest);
                Transition(State::calling_llm())
            }
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn calling_llm(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::TextDelta => {
                context.emit(Output::DisplayMessage);
                Handled
            }
            Event::ToolCallDelta => {
                context.emit(Output::WaitForInput);
                Handled
            }
            Event::LlmCompleted => Transition(State::processing_llm_response()),
            Event::LlmError if context.guards.retries_left => {
                context.emit(Output::WaitForInput);
                Transition(State::error())
            }
            Event::LlmError => {
                context.emit(Output::DisplayError);
                Transition(State::waiting_for_user_input())
            }
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn processing_llm_response(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::ResponseExamined if context.guards.has_tool_calls => {
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
    fn executing_tools(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::ToolCompleted if context.guards.tools_pending => {
                context.emit(Output::WaitForInput);
                Handled
            }
            Event::ToolCompleted if context.guards.mutating_tools => {
                context.emit(Output::RunPostToolsHook);
                Transition(State::post_tools_hook())
            }
            Event::ToolCompleted => {
                context.emit(Output::SendLlmRequest);
                Transition(State::calling_llm())
            }
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn post_tools_hook(context: &mut Context, event: &Event) -> Outcome<State> {
        match event {
            Event::PostToolsHookCompleted => {
                context.emit(Output::SendLlmRequest);
                Transition(State::calling_llm())
            }
            _ => Super,
        }
    }

    #[state(superstate = "active")]
    fn error(context: &mut Context, event: &Event) -> Outcome<State> {
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
    fn shutting_down(context: &mut Context) -> Outcome<State> {
        context.rejected = true;
        Handled
    }

    /// The `.fsm` `any` block, and the rejection of what no state handles.
    #[superstate]
    fn active(context: &mut Context, event: &Event) -> Outcome<State> {
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

fn event(action: Action) -> Event {
    match action {
        Action::UserInput => Event::UserInput,
        Action::TextDelta => Event::TextDelta,
        Action::ToolCallDelta => Event::ToolCallDelta,
        Action::LlmCompleted => Event::LlmCompleted,
        Action::LlmError => Event::LlmError,
        Action::ResponseExamined => Event::ResponseExamined,
        Action::ToolCompleted => Event::ToolCompleted,
        Action::PostToolsHookCompleted => Event::PostToolsHookCompleted,
        Action::RetryTimeoutFired => Event::RetryTimeoutFired,
        Action::ShutdownRequested => Event::ShutdownRequested,
    }
}

/// The statig machine.
pub struct Statig;

impl Subject for Statig {
    type Event = (Event, Guards);

    const NAME: &'static str = "statig 0.4";

    fn prepare(&self, step: &Step) -> Self::Event {
        (event(step.action), step.guards)
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) {
        let mut context = Context::default();
        let mut machine = Agent
            .uninitialized_state_machine()
            .init_with_context(&mut context);
        for (event, guards) in events {
            context.guards = *guards;
            context.rejected = false;
            machine.handle_with_context(event, &mut context);
            if context.rejected {
                sink.rejected(|| state(machine.state()));
            } else {
                sink.accepted(context.emitted.take().into_iter(), || state(machine.state()));
            }
        }
    }
}
