//! Bounded retries with exponential backoff, and the clock they are timed on.

use fsm_runtime::{ManualClock, Timestamp};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::{Duration, UNIX_EPOCH};

/// How often, and how far apart, a failed LLM request is retried.
///
/// Retry `n` (0-based) waits `base_delay * 2^n`, capped at `max_delay`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryPolicy {
    /// Retries after the first attempt; the request is tried
    /// `max_retries + 1` times in all.
    pub max_retries: u32,
    /// The wait before the first retry.
    pub base_delay: Duration,
    /// The longest wait.
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// The wait before retry `retry` (0-based).
    pub fn delay(&self, retry: u32) -> Duration {
        let factor = 1u32.checked_shl(retry).unwrap_or(u32::MAX);
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }

    /// Every wait, in order: the whole schedule of one failing request.
    pub fn schedule(&self) -> Vec<Duration> {
        (0..self.max_retries).map(|retry| self.delay(retry)).collect()
    }
}

impl Default for RetryPolicy {
    /// 3 retries, 500 ms apart and doubling, at most 8 s.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
        }
    }
}

/// The clock the machine times its backoff on, and the agent waits on.
///
/// The machine reads the time through [`fsm_runtime::Clock`]; the agent
/// sleeps until the next deadline with [`Clock::sleep`]. Clones share one
/// time, so a process hands its clock on to the one that resumes it.
pub trait Clock: fsm_runtime::Clock + Clone {
    /// Block for `duration`.
    fn sleep(&self, duration: Duration);
}

/// The real clock: [`Timestamp::now`] and [`std::thread::sleep`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl fsm_runtime::Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

impl Clock for SystemClock {
    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// A clock that moves only when slept on or advanced, and remembers every
/// sleep, so tests run fast and can check the backoff schedule. It starts
/// at a fixed time, 2026-01-10T09:32:15Z.
#[derive(Clone, Debug)]
pub struct FakeClock {
    time: ManualClock,
    sleeps: Arc<Mutex<Vec<Duration>>>,
}

impl FakeClock {
    /// The time a new fake clock shows.
    pub const START: Duration = Duration::from_secs(1_768_037_535);

    /// A clock that has not slept yet, at [`FakeClock::START`].
    pub fn new() -> Self {
        FakeClock {
            time: ManualClock::new(UNIX_EPOCH + Self::START),
            sleeps: Arc::default(),
        }
    }

    /// Every sleep so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.sleeps
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Let `by` pass without sleeping: the time a process is down.
    pub fn advance(&self, by: Duration) {
        self.time.advance(by);
    }
}

impl Default for FakeClock {
    fn default() -> Self {
        Self::new()
    }
}

impl fsm_runtime::Clock for FakeClock {
    fn now(&self) -> Timestamp {
        fsm_runtime::Clock::now(&self.time)
    }
}

impl Clock for FakeClock {
    /// Advance the time by `duration` at once, and record the sleep.
    fn sleep(&self, duration: Duration) {
        self.time.advance(duration);
        self.sleeps
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(duration);
    }
}
