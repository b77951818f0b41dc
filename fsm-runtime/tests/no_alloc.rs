//! `fire` never allocates: not when it succeeds, not when the action is
//! invalid, not when every guard rejects it. A global allocator counts the
//! allocations of the measuring thread.

#![deny(warnings)]

include!("generated/agent.rs");
include!("generated/door.rs");

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct CountingAllocator;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn record() {
    // `try_with`: the allocator also runs while thread locals are torn down.
    let measuring = MEASURING.try_with(Cell::get).unwrap_or(false);
    if measuring {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call is forwarded to `System`; the counters are const
// thread locals, which do not allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record();
        // SAFETY: the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record();
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
fn allocations(work: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    MEASURING.with(|m| m.set(true));
    work();
    MEASURING.with(|m| m.set(false));
    ALLOCATIONS.with(Cell::get)
}

struct Turn {
    retries_left: bool,
}

impl agent_loop::Guards for Turn {
    fn retries_left(&self) -> bool {
        self.retries_left
    }

    fn has_tool_calls(&self) -> bool {
        false
    }

    fn tools_pending(&self) -> bool {
        false
    }

    fn mutating_tools(&self) -> bool {
        false
    }
}

struct NoKey;

impl door::Guards for NoKey {
    fn has_key(&self) -> bool {
        false
    }
}

#[test]
fn the_counter_sees_allocations() {
    // Without this, a broken counter would make the other tests pass.
    let n = allocations(|| drop(std::hint::black_box(vec![1u8; 16])));
    assert_eq!(n, 1);
}

#[test]
fn fire_allocates_nothing() {
    use agent_loop::{Action, AgentLoop};
    let turn = Turn { retries_left: true };
    let script = [
        Action::UserInput,
        Action::TextDelta,
        Action::LlmError,
        Action::RetryTimeoutFired,
        Action::LlmCompleted,
        Action::ResponseExamined,
        Action::ShutdownRequested,
    ];
    let run = || {
        let mut agent = AgentLoop::new();
        let mut outputs = 0;
        for &action in &script {
            let fired = agent
                .fire(std::hint::black_box(action), &turn)
                .expect("a valid script");
            outputs += fired.outputs.len();
        }
        assert!(agent.is_terminal());
        std::hint::black_box((outputs, agent.snapshot(), agent.valid_actions()));
    };
    run(); // Warm up: the `tracing` feature registers its callsites once.
    assert_eq!(allocations(run), 0);
}

#[test]
fn failing_fires_allocate_nothing() {
    use door::{Action, Door};
    let run = || {
        let mut door = Door::new();
        // Invalid in this state.
        let invalid = door
            .fire(std::hint::black_box(Action::Unlock), &NoKey)
            .unwrap_err();
        // Valid, but the guard rejects it.
        let rejected = door.fire(std::hint::black_box(Action::Lock), &NoKey).unwrap_err();
        assert!(!door.can_fire(Action::Lock, &NoKey));
        std::hint::black_box((invalid, rejected));
    };
    run();
    assert_eq!(allocations(run), 0);
}
