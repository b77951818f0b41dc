//! What a machine's current state is, for generic code: one leaf, or with
//! parallel states a configuration of several.

use crate::symbol::Symbol;
use core::fmt;
use core::hash::Hash;

/// The current state of a [`Machine`](crate::Machine), as generic code
/// (histories, stores, drivers, the fleet) sees it.
///
/// A machine without parallel states is in one leaf at a time: its state is
/// its generated `State` enum, which implements this trait through
/// [`Symbol`]. A machine with parallel states is in a configuration, one
/// leaf in each active region: its state is the generated `Configuration`,
/// whose [`leaves`](Self::leaves) are its `State` enum's values.
///
/// A state displays as a history records it: a leaf's name, or the active
/// leaves in document order separated by `, ` (`a_running, b_running`), as
/// the dynamic engine names a configuration.
pub trait MachineState: Copy + Eq + Hash + fmt::Debug + fmt::Display + Send + Sync + 'static {
    /// The machine's leaves: its generated `State` enum.
    type Leaf: Symbol;

    /// The active leaves, in document order: exactly one for a machine
    /// without parallel states.
    fn leaves(&self) -> impl Iterator<Item = Self::Leaf> + '_;

    /// The one active leaf, when exactly one is active: always for a machine
    /// without parallel states, and for one with them outside every parallel
    /// state.
    fn leaf(&self) -> Option<Self::Leaf>;
}

/// A leaf is the whole state of a machine without parallel states.
impl<S: Symbol> MachineState for S {
    type Leaf = S;

    #[inline]
    fn leaves(&self) -> impl Iterator<Item = S> + '_ {
        core::iter::once(*self)
    }

    #[inline]
    fn leaf(&self) -> Option<S> {
        Some(*self)
    }
}

/// Write `state` as errors and `Fired` show it: `` `closed` `` for one leaf,
/// `` [`a_running`, `b_running`] `` for a configuration of several.
pub(crate) fn write_state<S: MachineState>(f: &mut fmt::Formatter<'_>, state: &S) -> fmt::Result {
    if let Some(leaf) = state.leaf() {
        return write!(f, "`{}`", leaf.name());
    }
    f.write_str("[")?;
    crate::symbol::write_names(f, state.leaves().map(Symbol::name))?;
    f.write_str("]")
}

/// The name a history records for `state`: its leaf's, or its leaves
/// separated by `, `.
#[cfg(feature = "alloc")]
pub(crate) fn name_of<S: MachineState>(state: &S) -> crate::history::Name {
    use crate::history::Name;
    match state.leaf() {
        Some(leaf) => Name::Static(leaf.name()),
        None => Name::Shared(alloc::string::ToString::to_string(state).into()),
    }
}
