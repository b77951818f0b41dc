//! What a successful dynamic `fire` reports.

use super::definition::Definition;
use super::ids::{ActionId, OutputId, StateId};
use crate::symbol::write_names;
use std::fmt;

/// A transition that fired in an [`Engine`](super::Engine): the information
/// of generated code's [`Fired`](crate::Fired), as ids borrowed from the
/// definition, plus the engine's sequence number.
///
/// `outputs` are the outputs the caller must now perform, in order: the exit
/// outputs of the state left, the transition's own, then the enter outputs
/// of the state entered. An internal transition (one without a target) emits
/// only its own outputs and leaves `to == from`.
#[derive(Clone, Copy)]
pub struct Fired<'e> {
    /// The position of this transition among all the engine has fired: 0 for
    /// the first, then one more for each. Assigned under the same lock as the
    /// state change, so sorting transitions by `seq` gives the order they
    /// happened in, each starting where the previous one ended (as long as
    /// nothing restored a snapshot in between).
    pub seq: u64,
    /// The state before.
    pub from: StateId,
    /// The state after.
    pub to: StateId,
    /// The action that was fired.
    pub action: ActionId,
    /// The outputs to perform, in order.
    pub outputs: &'e [OutputId],
    pub(crate) definition: &'e Definition,
}

impl<'e> Fired<'e> {
    /// The definition the ids belong to.
    pub fn definition(&self) -> &'e Definition {
        self.definition
    }

    /// The name of the state before.
    pub fn from_name(&self) -> &'e str {
        self.definition.state_name(self.from)
    }

    /// The name of the state after.
    pub fn to_name(&self) -> &'e str {
        self.definition.state_name(self.to)
    }

    /// The name of the action.
    pub fn action_name(&self) -> &'e str {
        self.definition.action_name(self.action)
    }

    /// The names of the outputs, in order.
    pub fn output_names(&self) -> impl ExactSizeIterator<Item = &'e str> {
        let definition = self.definition;
        self.outputs.iter().map(move |&o| definition.output_name(o))
    }
}

/// `` `closed` --open--> `opened` (emit `engage_bolt`) ``, as generated code's
/// [`Fired`](crate::Fired).
impl fmt::Display for Fired<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` --{}--> `{}`",
            self.from_name(),
            self.action_name(),
            self.to_name()
        )?;
        if !self.outputs.is_empty() {
            f.write_str(" (emit ")?;
            write_names(f, self.output_names())?;
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fired<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fired")
            .field("seq", &self.seq)
            .field("from", &self.from_name())
            .field("to", &self.to_name())
            .field("action", &self.action_name())
            .field("outputs", &self.output_names().collect::<Vec<_>>())
            .finish()
    }
}

impl PartialEq for Fired<'_> {
    /// Equal when they are the same transition of the same definition at
    /// the same position.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.definition, other.definition)
            && self.seq == other.seq
            && self.from == other.from
            && self.to == other.to
            && self.action == other.action
            && self.outputs == other.outputs
    }
}

impl Eq for Fired<'_> {}
