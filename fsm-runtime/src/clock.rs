//! Where machines read the time: the timestamps a history records, and the
//! deadlines of timers.

use crate::Timestamp;
#[cfg(feature = "alloc")]
use core::fmt;
#[cfg(feature = "std")]
use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(feature = "std")]
use std::sync::Arc;
#[cfg(feature = "std")]
use std::time::{Duration, SystemTime};

/// The source of the time: of the timestamps a [`History`](crate::History)
/// records, and of the deadlines a generated machine's timers (`after`)
/// are armed with and fired at. Nothing in this crate reads the time any
/// other way.
///
/// The time is a [`Timestamp`], whole milliseconds. [`SystemClock`] (feature
/// `std`) is the default: milliseconds since the Unix epoch. Tests use a
/// [`ManualClock`], and any `Fn() -> Timestamp + Send + Sync` closure is a
/// clock:
///
/// ```
/// use fsm_runtime::{History, Timestamp};
///
/// let history = History::new().with_clock(|| Timestamp::from_unix_millis(1_768_037_535_000).unwrap());
/// ```
///
/// Without the standard library there is no default clock: the caller
/// supplies one, for instance the milliseconds since boot of a hardware
/// timer (`Timestamp::from_unix_millis(ticks)`). Deadlines are then in that
/// time, and a [`Timestamp`] displays it as a date in 1970.
///
/// A clock is called while a [`Shared`](crate::Shared) machine is locked, so
/// it should be quick, and it must not use that machine.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> Timestamp;
}

impl<F> Clock for F
where
    F: Fn() -> Timestamp + Send + Sync + 'static,
{
    fn now(&self) -> Timestamp {
        self()
    }
}

/// The operating system's clock: [`SystemTime::now`], to the millisecond
/// (feature `std`).
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SystemClock;

#[cfg(feature = "std")]
impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// The clock a machine with timers names when its type is written without
/// one (`Job` for `Job<SystemClock>`): [`SystemClock`].
#[cfg(feature = "std")]
#[doc(hidden)]
pub type DefaultClock = SystemClock;

/// Without the standard library there is no default clock: `Job` alone names
/// a machine on this clock, which is no [`Clock`], so it cannot be built;
/// write `Job<YourClock>`.
#[cfg(not(feature = "std"))]
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum DefaultClock {}

/// A clock that moves only when told to: a test of a ten-minute timeout
/// advances it ten minutes and runs in microseconds (feature `std`).
///
/// Clones share one time, so a test keeps a clone and hands another to the
/// machine. It counts whole milliseconds since the Unix epoch, the precision
/// of deadlines ([`Timestamp`]).
///
/// ```
/// use fsm_runtime::{Clock, ManualClock, Timestamp};
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let start = UNIX_EPOCH + Duration::from_secs(1_768_037_535);
/// let clock = ManualClock::new(start);
/// let machine_clock = clock.clone();
/// clock.advance(Duration::from_secs(600));
/// assert_eq!(machine_clock.now(), Timestamp::from(start + Duration::from_secs(600)));
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Debug)]
pub struct ManualClock {
    unix_millis: Arc<AtomicU64>,
}

#[cfg(feature = "std")]
impl ManualClock {
    /// A clock standing at `time` (truncated to the millisecond; a time
    /// before 1970 stands at the Unix epoch).
    pub fn new(time: SystemTime) -> ManualClock {
        ManualClock {
            unix_millis: Arc::new(AtomicU64::new(millis_since_epoch(time))),
        }
    }

    /// Move the time forward by `by` (truncated to the millisecond), for
    /// every clone.
    pub fn advance(&self, by: Duration) {
        let by = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        // `fetch_update` with a saturating add: the time never wraps.
        let _ = self
            .unix_millis
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
                Some(now.saturating_add(by))
            });
    }

    /// Set the time to `time`, for every clone; it may go backwards, as a
    /// system clock can.
    pub fn set(&self, time: SystemTime) {
        self.unix_millis.store(millis_since_epoch(time), Ordering::SeqCst);
    }
}

#[cfg(feature = "std")]
impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(self.unix_millis.load(Ordering::SeqCst)).unwrap_or(Timestamp::MAX)
    }
}

#[cfg(feature = "std")]
fn millis_since_epoch(time: SystemTime) -> u64 {
    Timestamp::from_system_time(time).unix_millis()
}

/// Shown in a history's `Debug`, since a clock has none of its own.
#[cfg(feature = "alloc")]
pub(crate) struct OpaqueClock;

#[cfg(feature = "alloc")]
impl fmt::Debug for OpaqueClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<clock>")
    }
}
