//! The data-carrying agent machine in smlang 0.8, as its examples show:
//! events carry data (`UserInput(Text)`), guards read the context and the
//! event's data, and the (one) action of a transition gets the data by
//! value and updates the context.
//!
//! Emulated as for the plain trace (`crate::subjects::smlang`): priorities
//! are the order of the candidates; `any` is an input-state pattern; an
//! action both runs the transition's effects and records its output on the
//! context, which the caller reads back after the event.

use super::{AgentContext, DataStep, DataSubject, Text, ToolOutcome};
use crate::agent::{Output, State};
use crate::harness::Sink;
use ::smlang::statemachine;

statemachine! {
    name: AgentData,
    derive_states: [Debug, Clone, Copy],
    derive_events: [Debug, Clone, Copy],
    transitions: {
        *WaitingForUserInput + UserInput(Text) / append_user = CallingLlm,
        CallingLlm + TextDelta(Text) / append_text,
        CallingLlm + ToolCallDelta / count_tool_call,
        CallingLlm + LlmCompleted / finish_response = ProcessingLlmResponse,
        CallingLlm + LlmError [retries_left] / count_retry = Error,
        CallingLlm + LlmError / give_up = WaitingForUserInput,
        ProcessingLlmResponse + ResponseExamined [has_tool_calls] / start_tools = ExecutingTools,
        ProcessingLlmResponse + ResponseExamined / end_turn = WaitingForUserInput,
        ExecutingTools + ToolCompleted(ToolOutcome) [tools_pending] / record_pending_tool,
        ExecutingTools + ToolCompleted(ToolOutcome) [mutating_tools] / record_mutating_tool = PostToolsHook,
        ExecutingTools + ToolCompleted(ToolOutcome) / record_last_tool = CallingLlm,
        PostToolsHook + PostToolsHookCompleted / send_llm_request = CallingLlm,
        Error + RetryTimeoutFired / send_llm_request = CallingLlm,
        WaitingForUserInput | CallingLlm | ProcessingLlmResponse | ExecutingTools | PostToolsHook
            | Error + ShutdownRequested / shutdown = ShuttingDown,
    },
}

/// The machine's context: the agent's data, and the output of the last
/// event for the caller to read back.
#[derive(Debug, Default)]
pub struct Context {
    data: AgentContext,
    emitted: Option<Output>,
}

impl Context {
    #[inline]
    fn emit(&mut self, output: Output) -> Result<(), ()> {
        debug_assert!(self.emitted.is_none(), "one output per transition");
        self.emitted = Some(output);
        Ok(())
    }
}

impl AgentDataStateMachineContext for Context {
    #[inline]
    fn retries_left(&self) -> Result<bool, ()> {
        Ok(self.data.retries_left())
    }
    #[inline]
    fn has_tool_calls(&self) -> Result<bool, ()> {
        Ok(self.data.has_tool_calls())
    }
    #[inline]
    fn tools_pending(&self, _: &ToolOutcome) -> Result<bool, ()> {
        Ok(self.data.tools_pending())
    }
    #[inline]
    fn mutating_tools(&self, outcome: &ToolOutcome) -> Result<bool, ()> {
        Ok(self.data.mutating_tools(outcome))
    }

    #[inline]
    fn append_user(&mut self, text: Text) -> Result<(), ()> {
        self.data.append_user(&text);
        self.emit(Output::SendLlmRequest)
    }
    #[inline]
    fn append_text(&mut self, text: Text) -> Result<(), ()> {
        self.data.append_text(&text);
        self.emit(Output::DisplayMessage)
    }
    #[inline]
    fn count_tool_call(&mut self) -> Result<(), ()> {
        self.data.count_tool_call();
        self.emit(Output::WaitForInput)
    }
    #[inline]
    fn finish_response(&mut self) -> Result<(), ()> {
        self.data.finish_response();
        Ok(())
    }
    #[inline]
    fn count_retry(&mut self) -> Result<(), ()> {
        self.data.count_retry();
        self.emit(Output::WaitForInput)
    }
    #[inline]
    fn give_up(&mut self) -> Result<(), ()> {
        self.data.give_up();
        self.emit(Output::DisplayError)
    }
    #[inline]
    fn start_tools(&mut self) -> Result<(), ()> {
        self.data.start_tools();
        self.emit(Output::ExecuteTools)
    }
    #[inline]
    fn end_turn(&mut self) -> Result<(), ()> {
        self.emit(Output::WaitForInput)
    }
    #[inline]
    fn record_pending_tool(&mut self, outcome: ToolOutcome) -> Result<(), ()> {
        self.data.record_tool(&outcome);
        self.emit(Output::WaitForInput)
    }
    #[inline]
    fn record_mutating_tool(&mut self, outcome: ToolOutcome) -> Result<(), ()> {
        self.data.record_tool(&outcome);
        self.emit(Output::RunPostToolsHook)
    }
    #[inline]
    fn record_last_tool(&mut self, outcome: ToolOutcome) -> Result<(), ()> {
        self.data.record_tool(&outcome);
        self.emit(Output::SendLlmRequest)
    }
    #[inline]
    fn send_llm_request(&mut self) -> Result<(), ()> {
        self.emit(Output::SendLlmRequest)
    }
    #[inline]
    fn shutdown(&mut self) -> Result<(), ()> {
        self.emit(Output::Shutdown)
    }
}

fn state(state: &AgentDataStates) -> State {
    match state {
        AgentDataStates::WaitingForUserInput => State::WaitingForUserInput,
        AgentDataStates::CallingLlm => State::CallingLlm,
        AgentDataStates::ProcessingLlmResponse => State::ProcessingLlmResponse,
        AgentDataStates::ExecutingTools => State::ExecutingTools,
        AgentDataStates::PostToolsHook => State::PostToolsHook,
        AgentDataStates::Error => State::Error,
        AgentDataStates::ShuttingDown => State::ShuttingDown,
    }
}

fn event(step: &DataStep) -> AgentDataEvents {
    use super::hand_written::Event as E;
    match super::hand_written::event(step) {
        E::UserInput(text) => AgentDataEvents::UserInput(text),
        E::TextDelta(text) => AgentDataEvents::TextDelta(text),
        E::ToolCallDelta => AgentDataEvents::ToolCallDelta,
        E::LlmCompleted => AgentDataEvents::LlmCompleted,
        E::LlmError => AgentDataEvents::LlmError,
        E::ResponseExamined => AgentDataEvents::ResponseExamined,
        E::ToolCompleted(outcome) => AgentDataEvents::ToolCompleted(outcome),
        E::PostToolsHookCompleted => AgentDataEvents::PostToolsHookCompleted,
        E::RetryTimeoutFired => AgentDataEvents::RetryTimeoutFired,
        E::ShutdownRequested => AgentDataEvents::ShutdownRequested,
    }
}

/// The smlang machine.
pub struct Smlang;

impl DataSubject for Smlang {
    type Event = AgentDataEvents;

    const NAME: &'static str = "smlang 0.8";

    fn prepare(&self, step: &DataStep) -> AgentDataEvents {
        event(step)
    }

    fn run<S: Sink>(&self, events: &[AgentDataEvents], sink: &mut S) -> AgentContext {
        let mut machine = AgentDataStateMachine::new(Context::default());
        for event in events {
            match machine.process_event(*event) {
                Ok(_) => {
                    let emitted = machine.context_mut().emitted.take();
                    sink.accepted(emitted.into_iter(), || state(machine.state()));
                }
                Err(_) => sink.rejected(|| state(machine.state())),
            }
        }
        std::mem::take(&mut machine.context_mut().data)
    }
}
