//! Memory in proportion to the input: the peak of live heap bytes of the
//! front end, measured by a counting global allocator, stays under a fixed
//! multiple of the input's size. (Before these bounds, importing a chain of
//! states took 130 times its JSON, and one long name was copied 19 times.)
//! `bench/src/bin/check_throughput.rs --memory` prints the same figures at
//! full size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Mutex;

static MEASURING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);
/// One test at a time: the harness runs tests on threads, and the counter
/// counts them all.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

struct Counting;

fn live(delta: i64) {
    if MEASURING.load(Ordering::Relaxed) {
        let now = LIVE.fetch_add(delta, Ordering::Relaxed) + delta;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn size(bytes: usize) -> i64 {
    i64::try_from(bytes).unwrap_or(i64::MAX)
}

// SAFETY: every call is forwarded unchanged to `System`.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        live(size(layout.size()));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        live(size(layout.size()));
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        live(size(new_size));
        live(-size(layout.size()));
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        live(-size(layout.size()));
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The peak of heap bytes `f` holds at once, as a multiple of `input` bytes.
/// The counter sees every thread: call it holding [`ONE_AT_A_TIME`].
fn peak_ratio(input: usize, f: impl FnOnce() -> bool) -> f64 {
    LIVE.store(0, Ordering::SeqCst);
    PEAK.store(0, Ordering::SeqCst);
    MEASURING.store(true, Ordering::SeqCst);
    let ok = f();
    MEASURING.store(false, Ordering::SeqCst);
    assert!(ok, "the input was refused");
    let ratio = PEAK.load(Ordering::SeqCst) as f64 / input as f64;
    eprintln!("peak: {ratio:.1}× the input");
    ratio
}

/// A chain of `n` states, as `.fsm` text and as a JSON document.
fn chain(n: usize) -> (String, String) {
    let mut fsm = String::from("machine Chain {\n    initial state s0 { on next -> s1; }\n");
    let mut json = format!(
        r#"{{"fsm_id": "Chain", "initial_state": "s0", "terminal_states": ["s{}"], "states": {{"#,
        n - 1
    );
    for i in 1..n - 1 {
        let _ = writeln!(fsm, "    state s{i} {{ on next -> s{}; }}", i + 1);
    }
    for i in 0..n - 1 {
        let _ = write!(json, r#""s{i}": {{"on": {{"next": {{"to": "s{}"}}}}}}, "#, i + 1);
    }
    let _ = writeln!(fsm, "    terminal state s{};\n}}", n - 1);
    let _ = write!(json, r#""s{}": {{}}}}}}"#, n - 1);
    (fsm, json)
}

#[test]
fn a_long_chain_of_states_checks_and_imports_in_proportion() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (fsm, json) = chain(20_000);
    let check = peak_ratio(fsm.len(), || !fsm_grammar::check(&fsm).has_errors());
    assert!(check < 30.0, "check peaks at {check:.1}× its input (50× before)");
    let import = peak_ratio(json.len(), || fsm_grammar::interchange::from_json(&json).is_ok());
    assert!(
        import < 40.0,
        "the JSON import peaks at {import:.1}× its input (130× before)"
    );
}

#[test]
fn one_long_name_is_not_copied_over_and_over() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let name = "a".repeat(5_000_000);
    let json = format!(
        r#"{{"fsm_id": "Big", "initial_state": "x", "terminal_states": ["y"], "states": {{"x": {{"on": {{"{name}": {{"to": "y"}}}}}}, "y": {{}}}}}}"#
    );
    drop(name);
    let import = peak_ratio(json.len(), || fsm_grammar::interchange::from_json(&json).is_ok());
    assert!(
        import < 12.0,
        "the JSON import peaks at {import:.1}× its input (19× before)"
    );
    let fsm = format!(
        "machine Big {{\n    initial state x {{ on {} -> y; }}\n    terminal state y;\n}}\n",
        "a".repeat(5_000_000)
    );
    let check = peak_ratio(fsm.len(), || !fsm_grammar::check(&fsm).has_errors());
    assert!(check < 8.0, "check peaks at {check:.1}× its input");
}

#[test]
fn xstate_configs_import_in_proportion() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // A chain of states.
    let n = 20_000;
    let mut config = String::from(r#"{"id": "Chain", "initial": "s0", "states": {"#);
    for i in 0..n - 1 {
        let _ = write!(config, r#""s{i}": {{"on": {{"next": "s{}"}}}}, "#, i + 1);
    }
    let _ = write!(config, r#""s{}": {{"type": "final"}}}}}}"#, n - 1);
    let import = peak_ratio(config.len(), || {
        fsm_grammar::interchange::from_xstate(&config).is_ok()
    });
    // About 100×: a config is terser than the JSON document it becomes
    // (`"next": "s1"` for `"next": {"to": "s1"}`), and while it is read the
    // config, its state nodes, the document and where each of its paths
    // came from are alive together.
    assert!(
        import < 120.0,
        "the XState import peaks at {import:.1}× its input"
    );
    // A state with a 1 MB key and 2,000 children: a child's id
    // (`Big.<key>.c7`) holds the key, and is not built for each; nor is
    // the key read again each time a child's path is written (its path
    // segment knows whether it is an identifier: this took 6 minutes).
    let key = "k".repeat(1_000_000);
    let mut config =
        format!(r#"{{"id": "Big", "initial": "{key}", "states": {{"{key}": {{"initial": "c0", "states": {{"#);
    drop(key);
    let children = 2_000;
    for i in 0..children {
        let next = (i + 1) % children;
        let comma = if i + 1 < children { ", " } else { "" };
        let _ = write!(config, r#""c{i}": {{"on": {{"next": "c{next}"}}}}{comma}"#);
    }
    config.push_str("}}}}");
    let import = peak_ratio(config.len(), || {
        fsm_grammar::interchange::from_xstate(&config).is_ok()
    });
    assert!(import < 12.0, "the XState import peaks at {import:.1}× its input");
}
