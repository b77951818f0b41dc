//! The crates `compile_time` builds: one machine of 200 states and 1,000
//! transitions, written once for `fsm!` and once for smlang, with the same
//! states, actions, guards, priorities, targets and outputs.
//!
//! Each state has five transitions on four actions:
//! - `advance` to the next state (so every state is reachable), with an
//!   output;
//! - a guarded transition at priority 1 and an unguarded fallback on one
//!   action (smlang takes the first enabled transition in definition order,
//!   so listing the guarded one first gives the same choice);
//! - a plain transition to a random state, with an output;
//! - an internal transition (no state change) with an output.
//!
//! There are 24 actions, 8 guards and 16 outputs (smlang: 8 guard functions
//! and 16 action functions on the context). Both crates also hold a small
//! driver that fires a slice of actions, so that the generated code is
//! instantiated and compiled, as it is in a real user's crate.
//!
//! The `variant` of each source differs in one transition's target (state
//! 0's plain transition), which is what `compile_time` flips between builds
//! to force the incremental rebuild.

use crate::xorshift::XorShift;
use std::fmt::Write as _;

/// States in the machine.
pub const STATES: usize = 200;
/// Transitions in the machine.
pub const TRANSITIONS: usize = STATES * 5;
const ACTIONS: usize = 24;
const GUARDS: usize = 8;
const OUTPUTS: usize = 16;
const SEED: u64 = 0x5eed_c0de_0200_1000;

/// One state's transitions.
struct StatePlan {
    advance_emit: usize,
    guarded_action: usize,
    guard: usize,
    guarded_target: usize,
    guarded_emit: usize,
    fallback_target: usize,
    plain_action: usize,
    plain_target: usize,
    plain_emit: usize,
    internal_action: usize,
    internal_emit: usize,
}

fn plan() -> Vec<StatePlan> {
    let mut rng = XorShift::new(SEED);
    (0..STATES)
        .map(|_| {
            // Action 0 is `advance`; the other three are distinct.
            let actions = rng.distinct(3, ACTIONS - 1);
            StatePlan {
                advance_emit: rng.below(OUTPUTS),
                guarded_action: actions[0] + 1,
                guard: rng.below(GUARDS),
                guarded_target: rng.below(STATES),
                guarded_emit: rng.below(OUTPUTS),
                fallback_target: rng.below(STATES),
                plain_action: actions[1] + 1,
                plain_target: rng.below(STATES),
                plain_emit: rng.below(OUTPUTS),
                internal_action: actions[2] + 1,
                internal_emit: rng.below(OUTPUTS),
            }
        })
        .collect()
}

/// The target of state 0's plain transition in `variant`.
fn plain_target(state: usize, plan: &StatePlan, variant: bool) -> usize {
    if state == 0 && variant {
        (plan.plain_target + 1) % STATES
    } else {
        plan.plain_target
    }
}

fn action_name(i: usize) -> String {
    if i == 0 {
        "advance".into()
    } else {
        format!("act_{i}")
    }
}

/// The machine as a `.fsm` file.
pub fn fsm_machine(variant: bool) -> String {
    let mut out = String::from("/// 200 states, 1,000 transitions.\nmachine Big {\n");
    for (i, p) in plan().iter().enumerate() {
        let initial = if i == 0 { "initial " } else { "" };
        let _ = writeln!(out, "    {initial}state s{i} {{");
        let _ = writeln!(
            out,
            "        on advance -> s{} emit out_{};",
            (i + 1) % STATES,
            p.advance_emit
        );
        let _ = writeln!(
            out,
            "        on {} [guard_{}] priority 1 -> s{} emit out_{};",
            action_name(p.guarded_action),
            p.guard,
            p.guarded_target,
            p.guarded_emit
        );
        let _ = writeln!(
            out,
            "        on {} -> s{};",
            action_name(p.guarded_action),
            p.fallback_target
        );
        let _ = writeln!(
            out,
            "        on {} -> s{} emit out_{};",
            action_name(p.plain_action),
            plain_target(i, p, variant),
            p.plain_emit
        );
        let _ = writeln!(
            out,
            "        on {} emit out_{};",
            action_name(p.internal_action),
            p.internal_emit
        );
        out.push_str("    }\n");
    }
    out.push_str("}\n");
    out
}

/// The `lib.rs` of the `fsm!` crate, which reads `machine.fsm`.
pub fn fsm_lib() -> String {
    let mut guards = String::new();
    for g in 0..GUARDS {
        let _ = writeln!(
            guards,
            "    fn guard_{g}(&self) -> bool {{\n        self.0 & (1 << {g}) != 0\n    }}"
        );
    }
    format!(
        "//! A 200-state, 1,000-transition machine through `fsm!`.

fsm_runtime::fsm!(file = \"machine.fsm\");

/// The guard values.
pub struct Flags(pub u8);

impl big::Guards for Flags {{
{guards}}}

/// Fire `actions` in order; the number accepted.
pub fn drive(actions: &[big::Action], flags: &Flags) -> usize {{
    let mut machine = big::Big::new();
    actions.iter().filter(|&&a| machine.fire(a, flags).is_ok()).count()
}}
"
    )
}

/// The `lib.rs` of the smlang crate, machine included.
pub fn smlang_lib(variant: bool) -> String {
    let upper = |name: &str| -> String {
        name.split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
            })
            .collect()
    };
    let event = |i: usize| upper(&action_name(i));
    let mut transitions = String::new();
    for (i, p) in plan().iter().enumerate() {
        let star = if i == 0 { "*" } else { "" };
        let _ = writeln!(
            transitions,
            "        {star}S{i} + Advance / out_{} = S{},",
            p.advance_emit,
            (i + 1) % STATES
        );
        let _ = writeln!(
            transitions,
            "        S{i} + {} [guard_{}] / out_{} = S{},",
            event(p.guarded_action),
            p.guard,
            p.guarded_emit,
            p.guarded_target
        );
        let _ = writeln!(
            transitions,
            "        S{i} + {} = S{},",
            event(p.guarded_action),
            p.fallback_target
        );
        let _ = writeln!(
            transitions,
            "        S{i} + {} / out_{} = S{},",
            event(p.plain_action),
            p.plain_emit,
            plain_target(i, p, variant)
        );
        let _ = writeln!(
            transitions,
            "        S{i} + {} / out_{},",
            event(p.internal_action),
            p.internal_emit
        );
    }
    let mut context = String::new();
    for g in 0..GUARDS {
        let _ = writeln!(
            context,
            "    fn guard_{g}(&self) -> Result<bool, ()> {{\n        Ok(self.flags & (1 << {g}) != 0)\n    }}"
        );
    }
    for o in 0..OUTPUTS {
        let _ = writeln!(
            context,
            "    fn out_{o}(&mut self) -> Result<(), ()> {{\n        self.performed += {};\n        Ok(())\n    }}",
            o + 1
        );
    }
    format!(
        "//! A 200-state, 1,000-transition machine through smlang.

use smlang::statemachine;

statemachine! {{
    derive_states: [Debug, Clone, Copy],
    derive_events: [Debug, Clone, Copy],
    transitions: {{
{transitions}    }},
}}

/// The guard values, and what the actions performed.
pub struct Context {{
    /// The guard values.
    pub flags: u8,
    /// The sum of the performed outputs' numbers.
    pub performed: u64,
}}

impl StateMachineContext for Context {{
{context}}}

/// Fire `events` in order; the number accepted.
pub fn drive(events: &[Events], flags: u8) -> usize {{
    let mut machine = StateMachine::new(Context {{ flags, performed: 0 }});
    events.iter().filter(|&&e| machine.process_event(e).is_ok()).count()
}}
"
    )
}

/// A crate's `Cargo.toml`: its own workspace, one dependency line.
pub fn manifest(name: &str, dependency: &str) -> String {
    format!(
        "[package]
name = \"{name}\"
version = \"0.0.0\"
edition = \"2021\"
publish = false

# Not a member of the bench workspace this directory sits in.
[workspace]

[dependencies]
{dependency}
"
    )
}
