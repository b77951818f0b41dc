//! A global allocator that counts heap allocations, or measures the peak of
//! live heap bytes, while asked to.
//!
//! A binary installs it with
//! `#[global_allocator] static ALLOC: CountingAllocator = CountingAllocator;`.
//! Outside [`count`] and [`peak`] it costs one relaxed load of a flag per
//! allocation, so timed runs (which never count) are not slowed by the
//! bookkeeping.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static MEASURING: AtomicBool = AtomicBool::new(false);
/// Bytes allocated minus bytes freed since [`peak`] started (negative when
/// it frees what was allocated before).
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

/// The system allocator, counting `alloc`, `alloc_zeroed` and `realloc`
/// calls while [`count`] runs.
pub struct CountingAllocator;

impl CountingAllocator {
    #[inline]
    fn note(&self) {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// `delta` bytes more (or fewer) are live.
    #[inline]
    fn live(&self, delta: i64) {
        if MEASURING.load(Ordering::Relaxed) {
            let now = LIVE.fetch_add(delta, Ordering::Relaxed) + delta;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
    }
}

fn size(bytes: usize) -> i64 {
    i64::try_from(bytes).unwrap_or(i64::MAX)
}

// SAFETY: every call is forwarded unchanged to `System`; the counter has no
// effect on the memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.note();
        self.live(size(layout.size()));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.note();
        self.live(size(layout.size()));
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.note();
        // Counted as the new block before the old one is freed: a moving
        // realloc holds both for a moment.
        self.live(size(new_size));
        self.live(-size(layout.size()));
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.live(-size(layout.size()));
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// The number of heap allocations `f` makes (on any thread; the benchmark
/// runs one).
///
/// # Panics
///
/// When [`CountingAllocator`] is not the global allocator: a count of zero
/// would then mean nothing.
pub fn count(f: impl FnOnce()) -> u64 {
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    drop(black_box(Box::new(0u64)));
    let probe = ALLOCATIONS.load(Ordering::SeqCst);
    f();
    COUNTING.store(false, Ordering::SeqCst);
    assert!(
        probe == 1,
        "CountingAllocator is not the global allocator (a probe allocation counted {probe})"
    );
    ALLOCATIONS.load(Ordering::SeqCst) - probe
}

/// What `f` returns, and the most heap bytes it held live at once beyond
/// what was live when it started (on any thread; the benchmark runs one).
///
/// # Panics
///
/// When [`CountingAllocator`] is not the global allocator.
pub fn peak<R>(f: impl FnOnce() -> R) -> (R, u64) {
    LIVE.store(0, Ordering::SeqCst);
    PEAK.store(0, Ordering::SeqCst);
    MEASURING.store(true, Ordering::SeqCst);
    drop(black_box(Box::new(0u64)));
    let probe = PEAK.load(Ordering::SeqCst);
    let result = f();
    MEASURING.store(false, Ordering::SeqCst);
    assert!(
        probe == 8,
        "CountingAllocator is not the global allocator (a probe allocation measured {probe} bytes)"
    );
    (result, u64::try_from(PEAK.load(Ordering::SeqCst)).unwrap_or(0))
}
