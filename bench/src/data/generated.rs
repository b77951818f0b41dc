//! The code `fsm!` generates from `bench/machines/agent_data.fsm`, used as
//! its documentation shows: `AgentData::new(context)`, a `Context`
//! implementation on the agent's data, `fire(event)` with the payload in the
//! event, performing `Fired::outputs`, and `into_context()` at the end.

use super::{AgentContext, DataStep, DataSubject, Text, ToolOutcome};
use crate::agent::{Output, State};
use crate::harness::Sink;

fsm_runtime::fsm!(file = "machines/agent_data.fsm");

pub use agent_data::AgentData;
use agent_data::Event;

impl agent_data::Context for AgentContext {
    #[inline]
    fn retries_left(&self) -> bool {
        AgentContext::retries_left(self)
    }
    #[inline]
    fn has_tool_calls(&self) -> bool {
        AgentContext::has_tool_calls(self)
    }
    #[inline]
    fn tools_pending(&self) -> bool {
        AgentContext::tools_pending(self)
    }
    #[inline]
    fn mutating_tools(&self, outcome: &ToolOutcome) -> bool {
        AgentContext::mutating_tools(self, outcome)
    }
    #[inline]
    fn append_user(&mut self, text: &Text) {
        AgentContext::append_user(self, text)
    }
    #[inline]
    fn append_text(&mut self, text: &Text) {
        AgentContext::append_text(self, text)
    }
    #[inline]
    fn count_tool_call(&mut self) {
        AgentContext::count_tool_call(self)
    }
    #[inline]
    fn finish_response(&mut self) {
        AgentContext::finish_response(self)
    }
    #[inline]
    fn count_retry(&mut self) {
        AgentContext::count_retry(self)
    }
    #[inline]
    fn give_up(&mut self) {
        AgentContext::give_up(self)
    }
    #[inline]
    fn start_tools(&mut self) {
        AgentContext::start_tools(self)
    }
    #[inline]
    fn record_tool(&mut self, outcome: &ToolOutcome) {
        AgentContext::record_tool(self, outcome)
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

/// A copy of `event`. The generated `Event` derives nothing (a payload type
/// need not be `Clone`), but this machine's payloads are `Copy`, so the
/// event has no drop glue and a bitwise copy is exactly what `Copy` would
/// do: the caller's loop fires prepared events without converting them.
#[inline(always)]
fn copy(event: &Event) -> Event {
    const { assert!(!std::mem::needs_drop::<Event>()) };
    // SAFETY: `Event` has no drop glue (checked above) and holds only
    // `Copy` data, so the copy and the original never both own anything.
    unsafe { std::ptr::read(event) }
}

/// The bench's name of a generated state.
fn state(state: agent_data::State) -> State {
    State::named(state.name())
}

fn output(output: &agent_data::Output) -> Output {
    Output::named(output.name())
}

/// The generated `AgentData`.
pub struct Generated;

impl DataSubject for Generated {
    type Event = Event;

    const NAME: &'static str = "generated (`fsm!`)";

    fn prepare(&self, step: &DataStep) -> Event {
        event(step)
    }

    fn run<S: Sink>(&self, events: &[Event], sink: &mut S) -> AgentContext {
        let mut machine = AgentData::new(AgentContext::default());
        for event in events {
            match machine.fire(copy(event)) {
                Ok(fired) => sink.accepted(fired.outputs.iter().map(output), || state(machine.state())),
                Err(_) => sink.rejected(|| state(machine.state())),
            }
        }
        machine.into_context()
    }
}
