//! A timer group of a dynamic engine that came due with none of its guards
//! holding.

use super::definition::Definition;
use super::ids::StateId;
use fsm_runtime::Timestamp;
use std::fmt;

/// Timers of one state with the same delay (a group) that came due in an
/// [`Engine`](super::Engine)'s [`fire_due`](super::Engine::fire_due), none
/// of whose guards held: the group is disarmed and nothing else happened
/// (no effect ran, no output, the state is unchanged). Generated code's
/// [`TimerRejected`](fsm_runtime::TimerRejected), with ids borrowed from the
/// definition, and the same message.
///
/// ```
/// use fsm_dynamic::{Definition, Engine};
/// use fsm_runtime::ManualClock;
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let definition = Definition::from_fsm(
///     "machine M { initial state wait { after 30s [ready] -> done; } terminal state done; }",
/// )?;
/// let clock = ManualClock::new(UNIX_EPOCH);
/// let engine = Engine::builder(definition)
///     .guard("ready", |_| false)
///     .clock(clock.clone())
///     .build()?;
/// clock.advance(Duration::from_secs(30));
/// let due = engine.fire_due();
/// let rejected = due[0].as_ref().unwrap_err();
/// assert_eq!((rejected.state_name(), rejected.timer), ("wait", 0));
/// assert_eq!(
///     rejected.to_string(),
///     "timer 0 of `wait` came due at 1970-01-01T00:00:30.000Z and no guard of its group held"
/// );
/// assert_eq!(engine.state_name(), "wait");
/// assert_eq!(engine.next_deadline(), None, "the group is disarmed");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct TimerRejected<'e> {
    /// The state the engine was in when the timers came due (a leaf).
    pub state: StateId,
    /// The state whose `after`s these are: `state` or, with nested states,
    /// one of the states holding it.
    pub declared_in: StateId,
    /// The index of the first of them (highest priority, then declaration
    /// order) among `declared_in`'s timers, in declaration order.
    pub timer: usize,
    /// The deadline they were due at.
    pub due: Timestamp,
    /// With parallel states: the active leaves.
    pub(crate) leaves: Option<std::sync::Arc<[StateId]>>,
    pub(crate) definition: &'e Definition,
}

impl<'e> TimerRejected<'e> {
    /// The definition the ids belong to.
    pub fn definition(&self) -> &'e Definition {
        self.definition
    }

    /// The active leaves, in document order: `[state]` for a machine whose
    /// state is one leaf.
    pub fn leaves(&self) -> &[StateId] {
        self.leaves
            .as_deref()
            .unwrap_or(std::slice::from_ref(&self.state))
    }

    /// The name of the state the engine was in.
    pub fn state_name(&self) -> &'e str {
        self.definition.state_name(self.state)
    }

    /// The name of the state whose `after`s these are.
    pub fn declared_in_name(&self) -> &'e str {
        self.definition.state_name(self.declared_in)
    }

    /// The group's delay as written: `30s`, or the name of a delay.
    pub fn delay_text(&self) -> String {
        self.definition.delay_text(self.declared_in, self.timer)
    }
}

/// Word for word generated code's [`TimerRejected`](fsm_runtime::TimerRejected):
/// `` timer 1 of `calling` came due at 2026-01-10T09:10:00.000Z and no guard of its group held ``,
/// or with nested states `` timer 0 of `connected` (in `talking`) came due at ... ``.
impl fmt::Display for TimerRejected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "timer {} of `{}`", self.timer, self.declared_in_name())?;
        if self.leaves() != [self.declared_in] {
            f.write_str(" (in ")?;
            let definition = self.definition;
            fsm_runtime::__private::write_names(f, self.leaves().iter().map(|&s| definition.state_name(s)))?;
            f.write_str(")")?;
        }
        write!(f, " came due at {} and no guard of its group held", self.due)
    }
}

impl fmt::Debug for TimerRejected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimerRejected")
            .field("state", &self.state_name())
            .field("declared_in", &self.declared_in_name())
            .field("timer", &self.timer)
            .field("due", &self.due)
            .finish()
    }
}

impl PartialEq for TimerRejected<'_> {
    /// Equal when they are the same group of the same definition, due at
    /// the same time in the same state.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.definition, other.definition)
            && self.state == other.state
            && self.declared_in == other.declared_in
            && self.timer == other.timer
            && self.due == other.due
    }
}

impl Eq for TimerRejected<'_> {}

impl std::error::Error for TimerRejected<'_> {}
