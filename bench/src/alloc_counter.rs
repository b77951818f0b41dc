//! A global allocator that counts heap allocations while asked to.
//!
//! A binary installs it with
//! `#[global_allocator] static ALLOC: CountingAllocator = CountingAllocator;`.
//! Outside [`count`] it costs one relaxed load of a flag per allocation, so
//! timed runs (which never count) are not slowed by the bookkeeping.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

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
}

// SAFETY: every call is forwarded unchanged to `System`; the counter has no
// effect on the memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.note();
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.note();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.note();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
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
