//! Where a history gets the time of each transition.

use std::fmt;
use std::time::SystemTime;

/// The source of the timestamps a [`History`](crate::History) records.
///
/// [`SystemClock`] is the default. Tests inject their own, and any
/// `Fn() -> SystemTime + Send + Sync` closure is a clock:
///
/// ```
/// use fsm_runtime::History;
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let history = History::new().with_clock(|| UNIX_EPOCH + Duration::from_secs(1_768_037_535));
/// ```
///
/// A clock is called while a [`Shared`](crate::Shared) machine is locked, so
/// it should be quick, and it must not use that machine.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> SystemTime;
}

impl<F> Clock for F
where
    F: Fn() -> SystemTime + Send + Sync + 'static,
{
    fn now(&self) -> SystemTime {
        self()
    }
}

/// The operating system's clock: [`SystemTime::now`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// Shown in a history's `Debug`, since a clock has none of its own.
pub(super) struct OpaqueClock;

impl fmt::Debug for OpaqueClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<clock>")
    }
}
