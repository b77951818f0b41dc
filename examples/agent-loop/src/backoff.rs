//! Bounded retries with exponential backoff, and the clock they sleep on.

use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::time::Duration;

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

/// Where the agent waits for a backoff delay to elapse.
pub trait Clock {
    /// Block for `duration`.
    fn sleep(&self, duration: Duration);
}

/// The real clock: [`std::thread::sleep`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// A clock that returns at once and remembers every sleep, so tests run fast
/// and can check the backoff schedule.
#[derive(Debug, Default)]
pub struct FakeClock {
    sleeps: Mutex<Vec<Duration>>,
}

impl FakeClock {
    /// A clock that has not slept yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every sleep so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.sleeps
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Clock for FakeClock {
    fn sleep(&self, duration: Duration) {
        self.sleeps
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(duration);
    }
}
