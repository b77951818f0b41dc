//! Workers killed with SIGKILL at random moments while they step a fleet,
//! on SQLite and on PostgreSQL, where the server also terminates the
//! workers' connections mid-transaction: every event is consumed exactly
//! once and in order per instance, no step is lost or applied twice, every
//! step's output is in the outbox exactly once, and every timer fires once,
//! never before its deadline.
//!
//! The workers are this test binary run again with an environment variable
//! that turns `child_worker` into the worker's body; in a normal run it
//! returns at once.
//!
//! CI runs a short version: 100 instances of 10 events. With
//! `FSM_TEST_FLEET_CHAOS_INSTANCES=1000` it is the full run of 10,000 events
//! over 1,000 instances.

#![cfg(unix)]

mod support;

use fsm_fleet::Machines;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use support::TestDb;

fsm_runtime::fsm! {
    /// Counts what it is sent, remembering the order.
    machine Counter {
        context Seen;
        action add(u32), close;
        effect record(u32);
        output added;
        initial state counting { on add do record emit added; on close -> closed; }
        terminal state closed;
    }
}

fsm_runtime::fsm! {
    /// Rings once, 300 ms after it is created.
    machine Alarm {
        initial state armed { after 300ms -> rang emit ring; }
        terminal state rang;
    }
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Seen {
    values: Vec<u32>,
}

impl counter::Context for Seen {
    fn record(&mut self, value: &u32) {
        self.values.push(*value);
    }
}

const EVENTS: u32 = 10;
/// Alarms created with each round of events.
const ALARMS_PER_ROUND: u32 = 5;
/// Set in a child: the fleet's database.
const WORKER_DB: &str = "FSM_TEST_FLEET_CHAOS_DB";
/// How the workers' connections name themselves to PostgreSQL, so that the
/// test terminates theirs and not its own.
const WORKER_APPLICATION: &str = "fsm_fleet_chaos_worker";

fn instances() -> u32 {
    std::env::var("FSM_TEST_FLEET_CHAOS_INSTANCES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100)
}

fn machines() -> Machines {
    Machines::new().with::<counter::Counter>().with::<alarm::Alarm>()
}

/// The worker: steps small batches until killed; says `ready` on stderr
/// first. A call that fails (its connection terminated) is tried again.
#[test]
fn child_worker() {
    let Some(db) = std::env::var_os(WORKER_DB) else {
        return;
    };
    // Connecting fails when the server ends the connection meanwhile.
    let target = db.to_string_lossy();
    let mut fleet = loop {
        match std::panic::catch_unwind(|| support::open_target(&target)) {
            Ok(fleet) => break fleet,
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    std::io::stderr().write_all(b"ready\n").unwrap();
    loop {
        match fleet.work(&machines(), 4) {
            Ok(worked) if worked.instances > 0 => {}
            _ => std::thread::sleep(Duration::from_millis(1)),
        }
    }
}

fn worker(target: &str) -> Child {
    let target = if fsm_fleet::inspect::is_postgres(target) {
        format!("{target} application_name={WORKER_APPLICATION}")
    } else {
        target.to_owned()
    };
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_worker", "--test-threads=1", "--quiet"])
        .env(WORKER_DB, target)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    if line != "ready\n" {
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut rest);
        panic!("the worker did not start: {line}{rest}");
    }
    child
}

on_both_backends!(workers_killed_at_random_lose_and_repeat_nothing);

fn workers_killed_at_random_lose_and_repeat_nothing(db: &TestDb) {
    let instances = instances();
    let target = db.target();
    let mut fleet = db.open();
    for i in 0..instances {
        fleet
            .create(&format!("c{i}"), counter::Counter::new(Seen::default()))
            .unwrap();
    }
    // On PostgreSQL, the server ends the workers' connections meanwhile.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let terminator = (db.backend() == "postgres").then(|| {
        let stop = stop.clone();
        let target = target.clone();
        std::thread::spawn(move || terminate_workers_until(&target, &stop))
    });
    // Events keep arriving while the workers are killed.
    let mut workers = vec![worker(&target), worker(&target)];
    let mut kills = 0;
    let mut deadlines = Vec::new();
    for n in 1..=EVENTS {
        for i in 0..instances {
            fleet
                .send(&format!("c{i}"), &counter::Event::Add(n), &format!("add-{n}"))
                .unwrap();
        }
        for _ in 0..ALARMS_PER_ROUND {
            let id = format!("alarm{}", deadlines.len());
            fleet.create(&id, alarm::Alarm::new()).unwrap();
            deadlines.push(fleet.instance(&id).unwrap().unwrap().next_wake.unwrap());
        }
        for _ in 0..3 {
            std::thread::sleep(Duration::from_micros(fastrand::u64(0..20_000)));
            let victim = fastrand::usize(0..2);
            workers[victim].kill().unwrap(); // SIGKILL
            workers[victim].wait().unwrap();
            workers[victim] = worker(&target);
            kills += 1;
        }
    }
    // Let the survivors finish: every event consumed, every alarm rung.
    let left = || {
        db.value(
            "SELECT (SELECT COUNT(*) FROM fsm_inbox WHERE status = 'pending')
                  + (SELECT COUNT(*) FROM fsm_instances WHERE next_wake IS NOT NULL)",
        )
    };
    for _ in 0..6000 {
        if left() == "0" {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let terminated = terminator.map_or(0, |t| t.join().unwrap());
    for mut w in workers {
        w.kill().unwrap();
        w.wait().unwrap();
    }
    assert_eq!(left(), "0", "every event consumed and every timer fired");
    assert_eq!(
        db.value("SELECT COUNT(*) FROM fsm_instances WHERE error IS NOT NULL"),
        "0",
        "none parked"
    );

    let expected: Vec<u32> = (1..=EVENTS).collect();
    for i in 0..instances {
        let id = format!("c{i}");
        let instance = fleet.instance(&id).unwrap().unwrap();
        let snapshot: serde_json::Value = serde_json::from_str(&instance.snapshot).unwrap();
        let values: Vec<u32> = serde_json::from_value(snapshot["context"]["values"].clone()).unwrap();
        assert_eq!(values, expected, "{id}: each event once, in order");
        // The history numbers every step, from 0: none lost, none twice.
        let seqs: Vec<u64> = snapshot["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["seq"].as_u64().unwrap())
            .collect();
        let last = u64::from(EVENTS - 1);
        assert_eq!(
            seqs,
            (last + 1 - seqs.len() as u64..=last).collect::<Vec<_>>(),
            "{id}"
        );
        let keys: Vec<String> = db
            .rows(&format!(
                "SELECT key FROM fsm_outbox WHERE instance = '{id}' ORDER BY step, idx"
            ))
            .into_iter()
            .map(|row| row[0].clone())
            .collect();
        let expected_keys: Vec<String> = (0..EVENTS).map(|step| format!("{id}/{step}/0")).collect();
        assert_eq!(keys, expected_keys, "{id}: each step's output once");
    }
    for (a, deadline) in deadlines.iter().enumerate() {
        let id = format!("alarm{a}");
        let instance = fleet.instance(&id).unwrap().unwrap();
        assert_eq!(instance.state, "rang", "{id}");
        // The step that fired it began at `updated_at`, after the deadline.
        let stepped: u64 = db
            .value(&format!("SELECT updated_at FROM fsm_instances WHERE id = '{id}'"))
            .parse()
            .unwrap();
        assert!(
            stepped >= deadline.unix_millis(),
            "{id}: fired at {stepped}, before its deadline {}",
            deadline.unix_millis()
        );
        assert_eq!(
            db.value(&format!(
                "SELECT COUNT(*) FROM fsm_outbox WHERE instance = '{id}'"
            )),
            "1",
            "{id}: rang once"
        );
    }
    support::say(&format!(
        "{}: {kills} workers killed, {terminated} connections terminated",
        db.backend()
    ));
}

/// Until `stop`, every few milliseconds, ends a worker's connection on the
/// server, mid-transaction as often as not; returns how many it ended.
fn terminate_workers_until(target: &str, stop: &std::sync::atomic::AtomicBool) -> usize {
    #[cfg(feature = "postgres")]
    {
        let mut admin = ::postgres::Client::connect(target, ::postgres::NoTls).unwrap();
        let mut terminated = 0;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(fastrand::u64(5..40)));
            let ended = admin
                .query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE application_name = $1 AND (state = 'idle in transaction' OR random() < 0.3)",
                    &[&WORKER_APPLICATION],
                )
                .unwrap();
            terminated += ended.len();
        }
        terminated
    }
    #[cfg(not(feature = "postgres"))]
    {
        let _ = (target, stop);
        0
    }
}
