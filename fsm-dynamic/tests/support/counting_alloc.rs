//! A global allocator that counts the allocations of the measuring thread,
//! and the bytes they ask for, for the tests that show something does not
//! allocate (or does not copy what it could share). Include it with
//! `#[path = "support/counting_alloc.rs"] mod counting_alloc;`; it installs
//! itself as the test binary's global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct CountingAllocator;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

/// Count an allocation of `size` bytes.
fn record(size: usize) {
    // `try_with`: the allocator also runs while thread locals are torn down.
    let measuring = MEASURING.try_with(Cell::get).unwrap_or(false);
    if measuring {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        let _ = BYTES.try_with(|n| n.set(n.get() + size));
    }
}

// SAFETY: every call is forwarded to `System`; the counters are const
// thread locals, which do not allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// How many allocations `work` makes on this thread.
#[allow(dead_code)] // not every test binary that includes this file uses it
pub fn allocations(work: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    MEASURING.with(|m| m.set(true));
    work();
    MEASURING.with(|m| m.set(false));
    ALLOCATIONS.with(Cell::get)
}

/// How many bytes the allocations `work` makes on this thread ask for, in
/// all (a reallocation counts its new size).
#[allow(dead_code)] // not every test binary that includes this file uses it
pub fn allocated_bytes(work: impl FnOnce()) -> usize {
    BYTES.with(|n| n.set(0));
    MEASURING.with(|m| m.set(true));
    work();
    MEASURING.with(|m| m.set(false));
    BYTES.with(Cell::get)
}
