//! The code `fsm!` generates from `bench/machines/nested_agent.fsm`, used as
//! its documentation shows: `NestedAgent::new()`, then `fire(action,
//! &guards)` with a `Guards` implementation, performing `Fired::outputs`.
//! The machine keeps `working`'s history memory itself.

use super::{Action, Guards, Output, Sink, State, Step, Subject};

fsm_runtime::fsm!(file = "machines/nested_agent.fsm");

pub use nested_agent::NestedAgent;

impl nested_agent::Guards for Guards {
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
    #[inline]
    fn forced(&self) -> bool {
        self.forced
    }
}

/// The bench's name of a generated leaf.
pub fn state(state: nested_agent::State) -> State {
    State::named(state.name())
}

fn output(output: &nested_agent::Output) -> Output {
    Output::named(output.name())
}

fn action(action: Action) -> nested_agent::Action {
    action
        .name()
        .parse()
        .expect("the generated machine has every action of the nested machine")
}

/// The generated `NestedAgent`.
pub struct Generated;

impl Subject for Generated {
    type Event = (nested_agent::Action, Guards);

    const NAME: &'static str = "generated (`fsm!`)";

    fn prepare(&self, step: &Step) -> Self::Event {
        (action(step.action), step.guards)
    }

    fn run<S: Sink>(&self, events: &[Self::Event], sink: &mut S) {
        let mut machine = NestedAgent::new();
        for (action, guards) in events {
            match machine.fire(*action, guards) {
                Ok(fired) => sink.accepted(fired.outputs.iter().map(output), || state(machine.state())),
                Err(_) => sink.rejected(|| state(machine.state())),
            }
        }
    }
}
