//! Snapshots, history and [`Recorded`] without the standard library, with an
//! allocator: a generated nested machine with timers on a clock this crate
//! supplies, recorded, snapshotted and restored.
//!
//! `#![no_std]` with its own panic handler: if `std` were linked, its panic
//! handler would collide with this one and the build would fail.

#![no_std]

extern crate alloc;

use alloc::vec::Vec;
use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::num::NonZeroUsize;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use fsm_runtime::{FingerprintPolicy, History, Recorded, Retention, Timed, Timestamp};

fsm_runtime::fsm! {
    /// A session: idle until opened, then active with a keep-alive that
    /// expires it, and a pause that remembers where it was.
    machine Session {
        initial state idle { on open -> active; }
        state active {
            after 30s -> expired;
            on pause -> paused;
            initial state reading { on write -> writing; }
            state writing { on done -> reading; after 5s -> reading; }
        }
        state paused { on resume -> active.history; }
        terminal state expired;
    }
}

/// Milliseconds since boot, as a hardware timer would count them.
static TICKS: AtomicU64 = AtomicU64::new(0);

/// The clock: [`TICKS`].
#[derive(Clone, Copy, Default)]
pub struct Ticks;

impl fsm_runtime::Clock for Ticks {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(TICKS.load(Ordering::Relaxed)).unwrap_or(Timestamp::MAX)
    }
}

/// A bump allocator over a static arena, which never frees: enough for a check.
struct Arena {
    bytes: UnsafeCell<[u8; 1 << 16]>,
    used: AtomicUsize,
}

// SAFETY: every allocation takes a disjoint range of the arena, claimed with an
// atomic add.
unsafe impl Sync for Arena {}

unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let base = self.bytes.get() as usize;
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let start = (base + used).next_multiple_of(layout.align()) - base;
            let end = start + layout.size();
            if end > 1 << 16 {
                return core::ptr::null_mut();
            }
            match self.used.compare_exchange(used, end, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return (base + start) as *mut u8,
                Err(now) => used = now,
            }
        }
    }

    unsafe fn dealloc(&self, _: *mut u8, _: Layout) {}
}

#[global_allocator]
static ARENA: Arena = Arena {
    bytes: UnsafeCell::new([0; 1 << 16]),
    used: AtomicUsize::new(0),
};

use session::{Action, Session, State};

/// Runs the checks; `0` when all is well, else the number of the first
/// check that failed.
#[no_mangle]
pub extern "C" fn fsm_no_std_check() -> u32 {
    match run() {
        Ok(()) => 0,
        Err(check) => check,
    }
}

fn run() -> Result<(), u32> {
    let check = |ok: bool, number: u32| if ok { Ok(()) } else { Err(number) };
    let history = History::timed_by(Ticks, Retention::Last(NonZeroUsize::new(8).ok_or(1u32)?));
    let mut run = Recorded::with_history(Session::with_clock(Ticks), history);

    TICKS.store(1_000, Ordering::Relaxed);
    run.fire(Action::Open).map_err(|_| 2u32)?;
    run.fire(Action::Write).map_err(|_| 3u32)?;
    TICKS.store(6_000, Ordering::Relaxed);
    let timer = run.fire_next_due().ok_or(4u32)?.map_err(|_| 5u32)?;
    check(timer.to == State::Reading && timer.label == "after 5s", 6)?;
    run.fire(Action::Pause).map_err(|_| 7u32)?;

    // The history, with the caller's clock.
    let steps: Vec<(&str, &str, u64)> =
        run.history().iter().map(|e| (e.from(), e.action(), e.at().unix_millis())).collect();
    check(
        steps
            == [
                ("idle", "open", 1_000),
                ("reading", "write", 1_000),
                ("writing", "after 5s", 6_000),
                ("reading", "pause", 6_000),
            ],
        8,
    )?;

    // A snapshot carries the state, the history memory and the history, and
    // restores on this clock.
    let snapshot = run.snapshot().map_err(|_| 9u32)?;
    check(snapshot.current_state() == "paused" && snapshot.history().len() == 4, 10)?;
    let mut restored: Recorded<Session<Ticks>> = Recorded::restore_with(
        &snapshot,
        FingerprintPolicy::Strict,
        History::timed_by(Ticks, Retention::All),
    )
    .map_err(|_| 11u32)?;
    restored.fire(Action::Resume).map_err(|_| 12u32)?;
    check(restored.state() == State::Reading, 13)?;
    check(restored.history().last().map(|e| e.seq()) == Some(4), 14)?;

    // The keep-alive, armed when `active` was entered again, expires it.
    check(restored.next_deadline() == Timestamp::from_unix_millis(36_000), 15)?;
    TICKS.store(36_000, Ordering::Relaxed);
    let timer = restored.fire_next_due().ok_or(16u32)?.map_err(|_| 17u32)?;
    check(timer.to == State::Expired && restored.machine().now().unix_millis() == 36_000, 18)?;
    Ok(())
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

/// The host's precompiled `alloc` is built to unwind and names this
/// personality routine; with `panic = "abort"` nothing ever calls it. A build
/// for an embedded target (`thumbv7em-none-eabihf`) needs no such stub.
#[no_mangle]
extern "C" fn rust_eh_personality() {}
