//! The random traces of the agent machine that every implementation runs.
//!
//! A trace is one agent's life: it starts in the initial state, and each
//! step fires one action with the guard values of that step, drawn at
//! random and stored in the trace, so every implementation sees the same
//! guards. The action of a step is, with the chosen probability, one that is
//! not valid in the current state (a rejected event), and otherwise one of
//! the valid actions other than `shutdown_requested`, uniformly. The last
//! step is `shutdown_requested`, which ends the life in the terminal state:
//! the `any` transition fires once per trace, and no implementation needs a
//! reset in the middle.

use crate::agent::{Action, Guards, State};
use crate::subjects::hand_written::step;
use crate::xorshift::XorShift;

/// The seed of every trace, so every run sees the same traces.
pub const SEED: u64 = 0x5eed_0002_a6e7_1009;

/// One event of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The action fired.
    pub action: Action,
    /// The guard values at this step.
    pub guards: Guards,
}

/// A trace and what it contains.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// How many steps fire an action that is invalid in their state.
    pub rejected: usize,
}

/// A trace of `events` steps (at least 1) in which about `reject_percent`
/// percent of the events are invalid in the state they are fired in.
pub fn generate(events: usize, reject_percent: u64, seed: u64) -> Trace {
    assert!(events > 0, "a trace has at least its final shutdown");
    let mut rng = XorShift::new(seed);
    let mut state = State::WaitingForUserInput;
    let mut steps = Vec::with_capacity(events);
    let mut rejected = 0;
    let any_guards = Guards::default();
    for _ in 0..events - 1 {
        let (valid, invalid): (Vec<Action>, Vec<Action>) = Action::ALL
            .into_iter()
            .partition(|&a| step(state, a, &any_guards).is_ok());
        let reject = rng.chance(reject_percent);
        let action = if reject {
            invalid[rng.below(invalid.len())]
        } else {
            let choices: Vec<Action> = valid
                .into_iter()
                .filter(|&a| a != Action::ShutdownRequested)
                .collect();
            choices[rng.below(choices.len())]
        };
        let guards = Guards::from_bits((rng.next_u64() >> 32) as u8 & 0xf);
        match step(state, action, &guards) {
            Ok((to, _)) => state = to,
            Err(()) => rejected += 1,
        }
        steps.push(Step { action, guards });
    }
    steps.push(Step {
        action: Action::ShutdownRequested,
        guards: Guards::default(),
    });
    Trace { steps, rejected }
}
