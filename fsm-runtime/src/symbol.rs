//! The `State`, `Action` and `Output` enums of a machine, seen generically.

#[cfg(feature = "alloc")]
use alloc::{borrow::ToOwned, string::String};
use core::fmt;
use core::hash::Hash;
use core::str::FromStr;

/// Which of a machine's three enums a [`Symbol`] belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SymbolKind {
    /// A state.
    State,
    /// An action.
    Action,
    /// An output.
    Output,
}

impl SymbolKind {
    /// `"state"`, `"action"` or `"output"`, as in the `.fsm` language.
    pub const fn name(self) -> &'static str {
        match self {
            SymbolKind::State => "state",
            SymbolKind::Action => "action",
            SymbolKind::Output => "output",
        }
    }
}

impl fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A generated `State`, `Action` or `Output` enum: a closed set of values that
/// carry the names they have in the `.fsm` definition.
///
/// `Display` and `FromStr` use those names, and so does serde under the
/// `serde` feature, so `State::WaitingInput` reads and writes as
/// `waiting_input`.
pub trait Symbol:
    Copy + Eq + Ord + Hash + fmt::Debug + fmt::Display + FromStr<Err = ParseSymbolError> + Send + Sync + 'static
{
    /// Which enum of the machine this is.
    const KIND: SymbolKind;
    /// The name of the machine, as written.
    const MACHINE: &'static str;
    /// Every value, in declaration order.
    const ALL: &'static [Self];
    /// The name of every value, in the order of [`Symbol::ALL`].
    const NAMES: &'static [&'static str];

    /// The name as written in the definition.
    fn name(self) -> &'static str;

    /// The value with this name, if there is one.
    fn from_name(name: &str) -> Option<Self>;
}

/// A name that is not a state, action or output of the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSymbolError {
    kind: SymbolKind,
    machine: &'static str,
    #[cfg(feature = "alloc")]
    input: String,
    expected: &'static [&'static str],
}

impl ParseSymbolError {
    /// The error for `input`, which is not a name of `T`.
    pub fn new<T: Symbol>(input: &str) -> Self {
        #[cfg(not(feature = "alloc"))]
        let _ = input;
        ParseSymbolError {
            kind: T::KIND,
            machine: T::MACHINE,
            #[cfg(feature = "alloc")]
            input: input.to_owned(),
            expected: T::NAMES,
        }
    }

    /// What was looked for.
    pub fn kind(&self) -> SymbolKind {
        self.kind
    }

    /// The machine in which it was looked for.
    pub fn machine(&self) -> &'static str {
        self.machine
    }

    /// The text that is not a name (feature `alloc`: without it, the error
    /// does not keep it).
    #[cfg(feature = "alloc")]
    pub fn input(&self) -> &str {
        &self.input
    }

    /// The names that would have been accepted.
    pub fn expected(&self) -> &'static [&'static str] {
        self.expected
    }
}

impl fmt::Display for ParseSymbolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {}", self.kind)?;
        #[cfg(feature = "alloc")]
        write!(f, " `{}`", self.input)?;
        write!(f, " in machine `{}`", self.machine)?;
        if self.expected.is_empty() {
            write!(f, "; the machine has no {}s", self.kind)
        } else {
            f.write_str("; expected one of ")?;
            write_names(f, self.expected.iter().copied())
        }
    }
}

impl core::error::Error for ParseSymbolError {}

/// Write `` `a`, `b`, `c` ``: every list of names in a message, here and in
/// `fsm-dynamic`.
#[doc(hidden)]
pub fn write_names<'a>(f: &mut fmt::Formatter<'_>, names: impl IntoIterator<Item = &'a str>) -> fmt::Result {
    for (i, name) in names.into_iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "`{name}`")?;
    }
    Ok(())
}
