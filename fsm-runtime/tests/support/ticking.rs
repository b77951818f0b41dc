//! What the history tests of fsm-runtime and fsm-dynamic share: a clock that
//! ticks a second a call from a run's timestamp, and a history as rows. Their
//! machine is `execution.fsm`, beside this file. Include it with
//! `#[path = "../support/ticking.rs"] mod ticking;` (from `tests/it/`).

use fsm_runtime::{History, Timestamp};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

/// 2026-01-10T09:32:15Z, the timestamp of a run of `execution_fsm_v1`.
pub const RUN_SECONDS: u64 = 1_768_037_535;

/// A clock that starts at that run's timestamp and ticks one second per
/// call; shares its call count.
pub fn ticking_clock() -> (impl Fn() -> Timestamp + Send + Sync + 'static, Arc<AtomicU64>) {
    let calls = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&calls);
    let clock = move || {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        Timestamp::from(UNIX_EPOCH + Duration::from_secs(RUN_SECONDS + n))
    };
    (clock, calls)
}

/// The history's entries as `(seq, at, from, action, to)`.
pub fn steps(history: &History) -> Vec<(u64, String, &str, &str, &str)> {
    history
        .iter()
        .map(|e| (e.seq(), e.at().to_string(), e.from(), e.action(), e.to()))
        .collect()
}
