//! Senders racing workers, on SQLite and on PostgreSQL: an event is consumed
//! only by a step that read it, however its commit interleaves with the
//! steps, so every event sent is counted into its instance's context once.
//!
//! On PostgreSQL an event's number (`seq`) is taken when its row is
//! inserted, not when it commits: an event numbered below the last one a
//! step read can commit while that step runs. Such an event must stay
//! pending for the next step (it was once marked `done` unread, and lost).
//! On SQLite, whose writer holds the whole database, the race cannot
//! happen; the same tests hold it to the same outcome.

use crate::support;

use fsm_fleet::{Fleet, Machines, Sent};
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use support::TestDb;

on_both_backends!(
    an_event_committed_during_a_step_that_did_not_read_it_stays_pending,
    many_senders_racing_two_workers_lose_no_event,
);

fsm_runtime::fsm! {
    /// Adds up what it is sent.
    machine Tally {
        context Sum;
        action bump(u64), close;
        effect add(u64);
        initial state open { on bump do add; on close -> closed; }
        terminal state closed;
    }
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Sum {
    total: u64,
}

impl tally::Context for Sum {
    fn add(&mut self, value: &u64) {
        // A gated value holds its step here until the test opens the gate.
        if let Some(gate) = gate(*value, false) {
            gate.enter();
        }
        self.total += value;
    }
}

/// A step held in an effect: the effect says it is in, and waits for the
/// test to let it go on.
#[derive(Default)]
struct Gate {
    /// (entered, released)
    state: Mutex<(bool, bool)>,
    changed: Condvar,
}

impl Gate {
    fn enter(&self) {
        let mut state = self.state.lock().unwrap();
        state.0 = true;
        self.changed.notify_all();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !state.1 && Instant::now() < deadline {
            state = self
                .changed
                .wait_timeout(state, Duration::from_millis(50))
                .unwrap()
                .0;
        }
    }

    /// Whether a step entered within `wait`.
    fn wait_entered(&self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        let mut state = self.state.lock().unwrap();
        while !state.0 && Instant::now() < deadline {
            state = self
                .changed
                .wait_timeout(state, Duration::from_millis(10))
                .unwrap()
                .0;
        }
        state.0
    }

    fn release(&self) {
        self.state.lock().unwrap().1 = true;
        self.changed.notify_all();
    }
}

/// The gate of `value`, made if `make`: each test gates a value of its own,
/// since the two backends' tests run at once.
fn gate(value: u64, make: bool) -> Option<Arc<Gate>> {
    static GATES: Mutex<Option<HashMap<u64, Arc<Gate>>>> = Mutex::new(None);
    let mut gates = GATES.lock().unwrap();
    let gates = gates.get_or_insert_with(HashMap::new);
    if make {
        gates.entry(value).or_default();
    }
    gates.get(&value).cloned()
}

fn machines() -> Machines {
    Machines::new().with::<tally::Tally>()
}

/// The total in instance `id`'s context.
fn total(fleet: &mut Fleet, id: &str) -> u64 {
    let snapshot = fleet.instance(id).unwrap().unwrap().snapshot;
    let snapshot: serde_json::Value = serde_json::from_str(&snapshot).unwrap();
    snapshot["machine"]["context"]["total"]
        .as_u64()
        .or_else(|| snapshot["context"]["total"].as_u64())
        .unwrap_or_else(|| panic!("no total in {snapshot}"))
}

/// Send `event` to `id` in a transaction of `fleet`'s own connection, and
/// run `until_commit` before committing it.
fn send_in_transaction(
    fleet: &mut Fleet,
    id: &str,
    event: &tally::Event,
    key: &str,
    until_commit: impl FnOnce(),
) {
    if let Some(conn) = fleet.sqlite() {
        let mut tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .unwrap();
        assert_eq!(fsm_fleet::send(&mut tx, id, event, key).unwrap(), Sent::Accepted);
        until_commit();
        tx.commit().unwrap();
        return;
    }
    #[cfg(feature = "postgres")]
    if let Some(client) = fleet.postgres() {
        let mut tx = client.transaction().unwrap();
        assert_eq!(fsm_fleet::send(&mut tx, id, event, key).unwrap(), Sent::Accepted);
        until_commit();
        tx.commit().unwrap();
        return;
    }
    unreachable!("a fleet is on SQLite or PostgreSQL");
}

/// The repro: sender A inserts `one` and holds its transaction
/// open; sender B sends `two`, committed; a worker's step reads only `two`,
/// and while its effect runs, A commits. `one` was numbered first, and must
/// still be pending once that step is saved, then taken by the next.
fn an_event_committed_during_a_step_that_did_not_read_it_stays_pending(db: &TestDb) {
    let postgres = db.backend() == "postgres";
    // A value of this test's own, so that the other backend's test does not
    // open this gate.
    let slow = if postgres { 1_000_000 } else { 2_000_000 };
    let gate = gate(slow, true).unwrap();
    let mut fleet = db.open();
    fleet.create("x", tally::Tally::new(Sum::default())).unwrap();
    let mut sender_a = db.open();
    let target = db.target();

    let mut step_entered = false;
    let mut worker = None;
    send_in_transaction(&mut sender_a, "x", &tally::Event::Bump(1), "one", || {
        // B sends and a worker steps at once; on SQLite both wait for A's
        // write lock.
        let target = target.clone();
        worker = Some(std::thread::spawn(move || {
            let mut sender_b = support::open_target(&target);
            assert_eq!(
                sender_b.send("x", &tally::Event::Bump(slow), "two").unwrap(),
                Sent::Accepted
            );
            sender_b.work(&machines(), 10).unwrap()
        }));
        // On PostgreSQL the step reads `two` alone and enters the gate; on
        // SQLite it cannot start before A commits.
        step_entered = gate.wait_entered(if postgres {
            Duration::from_secs(30)
        } else {
            Duration::from_millis(200)
        });
    });
    gate.release();
    let worked = worker.unwrap().join().unwrap();
    if postgres {
        assert!(step_entered, "the worker's step never ran `two`");
        assert_eq!(worked.events, 1, "the step read `two` alone: {worked:?}");
        let status = db.value("SELECT status FROM fsm_inbox WHERE dedup_key = 'one'");
        assert_eq!(
            status, "pending",
            "`one` committed during a step that never read it"
        );
    }
    // The next steps take what is left.
    while fleet.work(&machines(), 10).unwrap().instances > 0 {}
    assert_eq!(total(&mut fleet, "x"), 1 + slow, "both events are counted once");
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_inbox WHERE status = 'done'"),
        "2",
        "both events consumed"
    );
}

/// Four senders, each its own connection, send to 20 instances at once,
/// half of them holding their transactions open 0-20 ms after the insert,
/// while two workers step: every event is counted into its instance's
/// context exactly once, and every row is `done`.
fn many_senders_racing_two_workers_lose_no_event(db: &TestDb) {
    const SENDERS: u64 = 4;
    const EVENTS: u64 = 150;
    const INSTANCES: u64 = 20;
    let mut fleet = db.open();
    for i in 0..INSTANCES {
        fleet
            .create(&format!("i{i}"), tally::Tally::new(Sum::default()))
            .unwrap();
    }
    let target = db.target();
    let sending = Arc::new(std::sync::atomic::AtomicU64::new(SENDERS));
    let senders: Vec<_> = (0..SENDERS)
        .map(|s| {
            let target = target.clone();
            let sending = Arc::clone(&sending);
            std::thread::spawn(move || {
                let mut fleet = support::open_target(&target);
                let mut rng = fastrand::Rng::with_seed(s);
                let mut sent = vec![0u64; INSTANCES as usize];
                for n in 0..EVENTS {
                    let to = rng.u64(0..INSTANCES);
                    let id = format!("i{to}");
                    let key = format!("s{s}-{n}");
                    let event = tally::Event::Bump(1);
                    if s % 2 == 0 {
                        let hold = Duration::from_millis(rng.u64(0..20));
                        send_in_transaction(&mut fleet, &id, &event, &key, || std::thread::sleep(hold));
                    } else {
                        assert_eq!(fleet.send(&id, &event, &key).unwrap(), Sent::Accepted);
                    }
                    sent[to as usize] += 1;
                }
                sending.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                sent
            })
        })
        .collect();
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let target = target.clone();
            let sending = Arc::clone(&sending);
            std::thread::spawn(move || {
                let mut fleet = support::open_target(&target);
                while sending.load(std::sync::atomic::Ordering::SeqCst) > 0 {
                    if fleet.work(&machines(), 8).unwrap().instances == 0 {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            })
        })
        .collect();
    let mut expected = vec![0u64; INSTANCES as usize];
    for sender in senders {
        for (total, sent) in expected.iter_mut().zip(sender.join().unwrap()) {
            *total += sent;
        }
    }
    for worker in workers {
        worker.join().unwrap();
    }
    while fleet.work(&machines(), 100).unwrap().instances > 0 {}
    let totals: Vec<u64> = (0..INSTANCES)
        .map(|i| total(&mut fleet, &format!("i{i}")))
        .collect();
    assert_eq!(totals, expected, "every event counted once into its instance");
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_inbox WHERE status = 'done'"),
        (SENDERS * EVENTS).to_string()
    );
}
