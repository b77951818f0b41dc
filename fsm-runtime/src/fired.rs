//! What a successful `fire` reports.

use crate::machine::Machine;
use crate::symbol::Symbol;
use core::fmt;

/// A transition that fired.
///
/// `outputs` are the outputs the caller must now perform, in order: the exit
/// outputs of the states left (innermost first, with nested states), the
/// transition's own `emit`, then the enter outputs of the states entered
/// (outermost first); `from` and `to` are leaves, or with parallel states
/// configurations, and `outputs` then collects the outputs of every
/// microstep the event caused (its own, then its `always` and `done` steps').
/// An internal transition (one without a
/// target) emits only its own outputs and leaves `to == from`; a
/// self-transition (`-> from`) also has `to == from` but exits and
/// re-enters, with their outputs and hooks: [`internal`](Self::internal)
/// tells the two apart.
pub struct Fired<M: Machine> {
    /// The state before.
    pub from: M::State,
    /// The state after.
    pub to: M::State,
    /// The action that was fired.
    pub action: M::Action,
    /// The outputs to perform, in order.
    pub outputs: M::Outputs,
    /// True for an internal transition (`on go;`, no target): no state was
    /// exited or entered, so no exit or enter outputs or hooks ran, no timer
    /// was re-armed, and `to == from`. False for a transition with a target,
    /// a self-transition (`on go -> from;`) included, which exits and
    /// re-enters. The same as the dynamic engine's
    /// `fsm_dynamic::Fired::internal`.
    pub internal: bool,
}

impl_value_traits! {
    Fired { from, to, action, outputs, internal }
}

/// `` `closed` --open--> `opened` (emit `engage_bolt`) ``
impl<M: Machine> fmt::Display for Fired<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::state::write_state(f, &self.from)?;
        write!(f, " --{}--> ", self.action)?;
        crate::state::write_state(f, &self.to)?;
        if !self.outputs.is_empty() {
            f.write_str(" (emit ")?;
            crate::symbol::write_names(f, self.outputs.iter().map(|o| o.name()))?;
            f.write_str(")")?;
        }
        Ok(())
    }
}
