//! The agent machine in smlang 0.8, written as its README and examples show.
//!
//! - Guards are context functions reading the step's guard values, passed as
//!   smlang's `temporary_context` (the counterpart of `fire(action,
//!   &guards)`).
//! - Priorities: smlang takes the first enabled transition in definition
//!   order, so the candidates are listed by descending priority with the
//!   fallback last.
//! - Outputs are smlang actions, which perform them on the context; here
//!   "performing" records the output, which the benchmark reads back after
//!   the event. (The agent machine emits at most one output per transition.)
//! - Internal transitions are smlang's implicit internal transitions.
//! - `any` is an input-state pattern listing every non-terminal state (a
//!   `_` wildcard would also accept the event in the terminal state).
//! - An invalid event is `Err(InvalidEvent)`; all guards false would be
//!   `Err(TransitionsFailed)` (impossible here: every guarded action has a
//!   fallback).

use super::Subject;
use crate::agent::{Action, Guards, Output, State};
use crate::harness::Sink;
use crate::trace::Step;
use ::smlang::statemachine;

statemachine! {
    name: Agent,
    temporary_context: &Guards,
    derive_states: [Debug, Clone, Copy],
    derive_events: [Debug, Clone, Copy],
    transitions: {
        *WaitingForUserInput + UserInput / send_llm_request = CallingLlm,
        CallingLlm + TextDelta / display_message,
        CallingLlm + ToolCallDelta / wait_for_input,
        CallingLlm + LlmCompleted = ProcessingLlmResponse,
        CallingLlm + LlmError [retries_left] / wait_for_input = Error,
        CallingLlm + LlmError / display_error = WaitingForUserInput,
        ProcessingLlmResponse + ResponseExamined [has_tool_calls] / execute_tools = ExecutingTools,
        ProcessingLlmResponse + ResponseExamined / wait_for_input = WaitingForUserInput,
        ExecutingTools + ToolCompleted [tools_pending] / wait_for_input,
        ExecutingTools + ToolCompleted [mutating_tools] / run_post_tools_hook = PostToolsHook,
        ExecutingTools + ToolCompleted / send_llm_request = CallingLlm,
        PostToolsHook + PostToolsHookCompleted / send_llm_request = CallingLlm,
        Error + RetryTimeoutFired / send_llm_request = CallingLlm,
        WaitingForUserInput | CallingLlm | ProcessingLlmResponse | ExecutingTools | PostToolsHook
            | Error + ShutdownRequested / shutdown = ShuttingDown,
    },
}

/// The agent's context: where actions perform their outputs.
#[derive(Debug, Default)]
pub struct Context {
    emitted: Option<Output>,
}

impl Context {
    fn emit(&mut self, output: Output) -> Result<(), ()> {
        debug_assert!(self.emitted.is_none(), "one output per transition");
        self.emitted = Some(output);
        Ok(())
    }
}

impl AgentStateMachineContext for Context {
    fn retries_left(&self, guards: &Guards) -> Result<bool, ()> {
        Ok(guards.retries_left)
    }
    fn has_tool_calls(&self, guards: &Guards) -> Result<bool, ()> {
        Ok(guards.has_tool_calls)
    }
    fn tools_pending(&self, guards: &Guards) -> Result<bool, ()> {
        Ok(guards.tools_pending)
    }
    fn mutating_tools(&self, guards: &Guards) -> Result<bool, ()> {
        Ok(guards.mutating_tools)
    }

    fn send_llm_request(&mut self, _: &Guards) -> Result<(), ()> {
        self.emit(Output::SendLlmRequest)
    }
    fn display_message(&mut self, _: &Guards) -> Result<(), ()> {
        self.emit(Output::DisplayMessage)
    }
    fn wait_for_input(&mut self, _: &Guards) -> Result<(), ()> {
        self.emit(Output::WaitForInput)
    }
    fn execute_tools(&mut self, _: &Guards) -> Result<(), ()> {
        self.emit(Output::ExecuteTools)
    }
    fn run_post_tools_hook(&mut self, _: &Guards) -> Result<(), ()> {
        self.emit(Output::RunPostToolsHook)
    }
    fn display_error(&mut self, _: &Guards) -> Result<(), ()> {
        self.emit(Output::DisplayError)
    }
    fn shutdown(&mut self, _: &Guards) -> Result<(), ()> {
        self.emit(Output::Shutdown)
    }
}

fn state(state: &AgentStates) -> State {
    match state {
        AgentStates::WaitingForUserInput => State::WaitingForUserInput,
        AgentStates::CallingLlm => State::CallingLlm,
        AgentStates::ProcessingLlmResponse => State::ProcessingLlmResponse,
        AgentStates::ExecutingTools => State::ExecutingTools,
        AgentStates::PostToolsHook => State::PostToolsHook,
        AgentStates::Error => State::Error,
        AgentStates::ShuttingDown => State::ShuttingDown,
    }
}

fn event(action: Action) -> AgentEvents {
    match action {
        Action::UserInput => AgentEvents::UserInput,
        Action::TextDelta => AgentEvents::TextDelta,
        Action::ToolCallDelta => AgentEvents::ToolCallDelta,
        Action::LlmCompleted => AgentEvents::LlmCompleted,
        Action::LlmError => AgentEvents::LlmError,
        Action::ResponseExamined => AgentEvents::ResponseExamined,
        Action::ToolCompleted => AgentEvents::ToolCompleted,
        Action::PostToolsHookCompleted => AgentEvents::PostToolsHookCompleted,
        Action::RetryTimeoutFired => AgentEvents::RetryTimeoutFired,
        Action::ShutdownRequested => AgentEvents::ShutdownRequested,
    }
}

/// The smlang machine.
pub struct Smlang;

impl Subject for Smlang {
    type Event = (AgentEvents, Guards);

    const NAME: &'static str = "smlang 0.8";

    fn prepare(&self, step: &Step) -> Self::Event {
        (event(step.action), step.guards)
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) {
        let mut machine = AgentStateMachine::new(Context::default());
        for (event, guards) in events {
            match machine.process_event(guards, *event) {
                Ok(_) => {
                    let emitted = machine.context_mut().emitted.take();
                    sink.accepted(emitted.into_iter(), || state(machine.state()));
                }
                Err(_) => sink.rejected(|| state(machine.state())),
            }
        }
    }
}
