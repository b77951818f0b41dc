//! Where machines read the time: the timestamps a history records, and the
//! deadlines of timers.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The source of the time: of the timestamps a [`History`](crate::History)
/// records, and of the deadlines a generated machine's timers (`after`)
/// are armed with and fired at. Nothing in this crate reads the time any
/// other way.
///
/// [`SystemClock`] is the default. Tests use a [`ManualClock`], and any
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

/// A clock that moves only when told to: a test of a ten-minute timeout
/// advances it ten minutes and runs in microseconds.
///
/// Clones share one time, so a test keeps a clone and hands another to the
/// machine. It counts whole milliseconds since the Unix epoch, the precision
/// of deadlines ([`Timestamp`](crate::Timestamp)).
///
/// ```
/// use fsm_runtime::{Clock, ManualClock};
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let start = UNIX_EPOCH + Duration::from_secs(1_768_037_535);
/// let clock = ManualClock::new(start);
/// let machine_clock = clock.clone();
/// clock.advance(Duration::from_secs(600));
/// assert_eq!(machine_clock.now(), start + Duration::from_secs(600));
/// ```
#[derive(Clone, Debug)]
pub struct ManualClock {
    unix_millis: Arc<AtomicU64>,
}

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

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.unix_millis.load(Ordering::SeqCst))
    }
}

fn millis_since_epoch(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
}

/// Shown in a history's `Debug`, since a clock has none of its own.
pub(crate) struct OpaqueClock;

impl fmt::Debug for OpaqueClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<clock>")
    }
}
