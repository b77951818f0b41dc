//! `Shared`: one machine, many threads. Fires are atomic, the history is the
//! order in which the machine really moved, and a panicking guard does not
//! wedge it.

use fsm_runtime::{FireError, History, Recorded, Shared, Snapshot};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant, UNIX_EPOCH};

fsm_runtime::fsm! {
    /// A ring where every action is valid in exactly one state: `a<i>` moves
    /// `s<i>` to the next state, and `hold` is internal in `s2`.
    machine Ring {
        initial state s0 { on a0 -> s1; }
        state s1 { on a1 -> s2; }
        state s2 { on a2 -> s3; on hold; }
        state s3 { on a3 -> s0; }
    }
}

fsm_runtime::fsm! {
    machine Gate {
        guard may_open;
        initial state shut { on open [may_open] -> open; }
        state open { on close -> shut; }
    }
}

const THREADS: usize = 8;
const FIRES_PER_THREAD: usize = 100_000;

/// What one thread saw: how often each (from, action, to) fired for it, and
/// how many of its actions were rejected.
type Tally = (HashMap<(&'static str, &'static str, &'static str), u64>, u64);

#[test]
fn eight_threads_fire_100_000_actions_each_and_the_history_is_one_chain() {
    let started = Instant::now();
    // A clock that counts its calls: it is read once per fire, and its
    // strictly increasing times show the recorded order.
    let ticks = Arc::new(AtomicU64::new(0));
    let clock = {
        let ticks = Arc::clone(&ticks);
        move || {
            fsm_runtime::Timestamp::from(
                UNIX_EPOCH + Duration::from_millis(ticks.fetch_add(1, Ordering::SeqCst)),
            )
        }
    };
    let shared = Arc::new(Shared::recording(
        ring::Ring::new(),
        History::new().with_clock(clock),
    ));

    // All threads start together, so that their fires interleave.
    let start = Arc::new(Barrier::new(THREADS));
    let threads: Vec<_> = (0..THREADS)
        .map(|thread| {
            let shared = Arc::clone(&shared);
            let start = Arc::clone(&start);
            std::thread::spawn(move || -> Tally {
                start.wait();
                let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ (thread as u64 + 1);
                let mut fired = HashMap::new();
                let mut rejected = 0;
                for _ in 0..FIRES_PER_THREAD {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let actions = ring::Action::ALL;
                    let action = actions[(seed >> 33) as usize % actions.len()];
                    match shared.fire(action) {
                        Ok(f) => {
                            *fired
                                .entry((f.from.name(), f.action.name(), f.to.name()))
                                .or_insert(0) += 1;
                        }
                        Err(error) => {
                            assert!(matches!(error, FireError::InvalidTransition(_)), "{error}");
                            rejected += 1;
                        }
                    }
                }
                (fired, rejected)
            })
        })
        .collect();

    let mut fired: HashMap<_, u64> = HashMap::new();
    let mut rejected = 0;
    for thread in threads {
        let (tally, r) = thread.join().unwrap();
        for (transition, count) in tally {
            *fired.entry(transition).or_default() += count;
        }
        rejected += r;
    }
    let successes: u64 = fired.values().sum();
    assert_eq!(successes + rejected, (THREADS * FIRES_PER_THREAD) as u64);
    assert!(
        successes > 50_000 && rejected > 50_000,
        "{successes} fired, {rejected} rejected"
    );

    let shared = Arc::into_inner(shared).expect("every thread has finished");
    let (machine, history) = shared.into_parts();
    let history = history.expect("the machine records");

    // Exactly the successful fires were recorded...
    assert_eq!(history.recorded(), successes);
    assert_eq!(history.len() as u64, successes);
    // The clock is read once per fire, before the machine moves.
    assert_eq!(ticks.load(Ordering::SeqCst), (THREADS * FIRES_PER_THREAD) as u64);
    let mut recorded: HashMap<_, u64> = HashMap::new();
    for entry in &history {
        *recorded
            .entry((entry.from(), entry.action(), entry.to()))
            .or_default() += 1;
    }
    assert_eq!(recorded.len(), fired.len());
    for (transition, count) in &fired {
        assert_eq!(recorded.get(transition), Some(count), "{transition:?}");
    }

    // ...as one chain, in the order the machine moved.
    let mut expected_from = "s0";
    let mut previous_at = None;
    for (position, entry) in history.iter().enumerate() {
        assert_eq!(
            entry.seq(),
            position as u64,
            "no sequence number is missing or repeated"
        );
        assert_eq!(
            entry.from(),
            expected_from,
            "entry {} starts where the previous ended",
            entry.seq()
        );
        assert!(
            previous_at < Some(entry.at()),
            "the clock was read in order, under the lock"
        );
        previous_at = Some(entry.at());
        expected_from = entry.to();
    }
    assert_eq!(machine.state().name(), expected_from);
    assert!(history.iter().any(|e| e.action() == "hold" && e.from() == e.to()));

    let elapsed = started.elapsed();
    eprintln!("{THREADS} threads x {FIRES_PER_THREAD} fires: {successes} fired in {elapsed:?}");
}

#[test]
fn a_panicking_guard_does_not_wedge_the_machine() {
    struct Guards {
        explode: AtomicBool,
    }
    impl gate::Guards for Guards {
        fn may_open(&self) -> bool {
            if self.explode.load(Ordering::SeqCst) {
                panic!("the guard failed");
            }
            true
        }
    }
    let guards = Guards {
        explode: AtomicBool::new(true),
    };
    let shared = Arc::new(Shared::recording(gate::Gate::new(), History::new()));

    let thread = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || shared.fire_with(gate::Action::Open, &guards).map(|_| ()))
    };
    assert!(thread.join().is_err(), "the guard's panic reaches the caller");

    // Unchanged, and usable from every thread.
    assert_eq!(shared.state(), gate::State::Shut);
    assert_eq!(shared.with_history(History::len), Some(0));
    let guards = Guards {
        explode: AtomicBool::new(false),
    };
    shared.fire_with(gate::Action::Open, &guards).unwrap();
    let other = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || shared.fire_with(gate::Action::Close, &guards).map(|_| ()))
    };
    other.join().unwrap().unwrap();
    assert_eq!(shared.state(), gate::State::Shut);
    let actions = shared.with_history(|h| h.iter().map(|e| e.action().to_owned()).collect::<Vec<_>>());
    assert_eq!(actions, Some(vec!["open".to_owned(), "close".to_owned()]));
}

#[test]
fn a_panicking_clock_or_reader_does_not_wedge_it_either() {
    let explode = Arc::new(AtomicBool::new(true));
    let clock = {
        let explode = Arc::clone(&explode);
        move || {
            assert!(!explode.load(Ordering::SeqCst), "the clock failed");
            fsm_runtime::Timestamp::UNIX_EPOCH
        }
    };
    let shared = Shared::recording(ring::Ring::new(), History::new().with_clock(clock));
    let panic = catch_unwind(AssertUnwindSafe(|| shared.fire(ring::Action::A0)));
    assert!(panic.is_err());
    assert_eq!(
        shared.state(),
        ring::State::S0,
        "the machine did not move without its entry"
    );
    assert_eq!(shared.with_history(History::recorded), Some(0));

    let panic = catch_unwind(AssertUnwindSafe(|| shared.with(|_| panic!("the reader failed"))));
    assert!(panic.is_err());

    explode.store(false, Ordering::SeqCst);
    shared.fire(ring::Action::A0).unwrap();
    assert_eq!(shared.state(), ring::State::S1);
    assert_eq!(shared.with_history(History::recorded), Some(1));
}

#[test]
fn without_a_history_it_fires_and_snapshots_the_state() {
    let shared = Shared::new(ring::Ring::new());
    assert!(shared.can_fire(&ring::Action::A0));
    assert!(!shared.can_fire(&ring::Action::A1));
    let fired = shared.fire(ring::Action::A0).unwrap();
    assert_eq!((fired.from, fired.to), (ring::State::S0, ring::State::S1));
    let error = shared.fire(ring::Action::A0).unwrap_err();
    assert_eq!(
        error.to_string(),
        "action `a0` is not valid in state `s1`; valid actions: `a1`"
    );
    assert_eq!(shared.with_history(History::len), None);
    assert_eq!(
        shared.snapshot().unwrap(),
        ring::Ring::from_state(ring::State::S1).snapshot()
    );
    assert_eq!(shared.with(|machine| machine.valid_actions()), [ring::Action::A1]);
    assert_eq!(Shared::<ring::Ring>::default().state(), ring::State::S0);
    let (machine, history) = shared.into_parts();
    assert_eq!((machine.state(), history.is_none()), (ring::State::S1, true));
}

#[test]
fn a_snapshot_takes_state_and_history_together_and_restores() {
    let shared = Shared::recording(ring::Ring::new(), History::new());
    for action in [ring::Action::A0, ring::Action::A1, ring::Action::Hold] {
        shared.fire(action).unwrap();
    }
    let snapshot = shared.snapshot().unwrap();
    assert_eq!(snapshot.current_state(), "s2");
    let names: Vec<_> = snapshot
        .history()
        .iter()
        .map(|e| (e.from(), e.action(), e.to()))
        .collect();
    assert_eq!(
        names,
        [("s0", "a0", "s1"), ("s1", "a1", "s2"), ("s2", "hold", "s2")]
    );

    let text = serde_json::to_string(&snapshot).unwrap();
    let read: Snapshot = serde_json::from_str(&text).unwrap();
    let restored = Shared::from(Recorded::<ring::Ring>::restore(&read).unwrap());
    restored.fire(ring::Action::A2).unwrap();
    assert_eq!(restored.state(), ring::State::S3);
    let last = restored.with_history(|h| (h.recorded(), h.last().unwrap().to().to_owned()));
    assert_eq!(last, Some((4, "s3".to_owned())));
}

#[test]
fn debug_does_not_wait_for_the_lock() {
    let shared = Shared::from(ring::Ring::new());
    assert_eq!(
        format!("{shared:?}"),
        "Shared { machine: Ring { state: S0 }, history: None }"
    );
    let inside = shared.with(|_| format!("{shared:?}"));
    assert_eq!(inside, "Shared { machine: <locked> }");
}

#[test]
fn shared_machines_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Shared<ring::Ring>>();
    assert_send_sync::<Shared<gate::Gate>>();
    assert_send_sync::<History>();
}
