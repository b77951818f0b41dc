//! The code `fsm!` generates from `bench/machines/agent_loop.fsm`, used as its
//! documentation shows: `AgentLoop::new()`, then `fire(action, &guards)`
//! with a `Guards` implementation, performing `Fired::outputs`.

use super::Subject;
use crate::agent::{self, Guards, Output, State};
use crate::harness::Sink;
use crate::trace::Step;

fsm_runtime::fsm!(file = "machines/agent_loop.fsm");

pub use agent_loop::AgentLoop;

impl agent_loop::Guards for Guards {
    #[inline]
    fn retries_left(&self) -> bool {
        self.retries_left
    }
    #[inline]
    fn has_tool_calls(&self) -> bool {
        self.has_tool_calls
    }
    #[inline]
    fn tools_pending(&self) -> bool {
        self.tools_pending
    }
    #[inline]
    fn mutating_tools(&self) -> bool {
        self.mutating_tools
    }
}

/// The bench's name of a generated state.
pub fn state(state: agent_loop::State) -> State {
    State::named(state.name())
}

fn output(output: &agent_loop::Output) -> Output {
    Output::named(output.name())
}

fn action(action: agent::Action) -> agent_loop::Action {
    action
        .name()
        .parse()
        .expect("the generated machine has every action of the agent machine")
}

/// The generated `AgentLoop`.
pub struct Generated;

impl Subject for Generated {
    type Event = (agent_loop::Action, Guards);

    const NAME: &'static str = "generated (`fsm!`)";

    fn prepare(&self, step: &Step) -> Self::Event {
        (action(step.action), step.guards)
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) {
        let mut machine = AgentLoop::new();
        for (action, guards) in events {
            match machine.fire(*action, guards) {
                Ok(fired) => sink.accepted(fired.outputs.iter().map(output), || state(machine.state())),
                Err(_) => sink.rejected(|| state(machine.state())),
            }
        }
    }
}
