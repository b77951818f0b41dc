//! Workers killed with SIGKILL at random moments while they step a fleet:
//! every event is consumed exactly once and in order per instance, every
//! step's output is in the outbox exactly once, and no step is lost or
//! applied twice.
//!
//! The workers are this test binary run again with an environment variable
//! that turns `child_worker` into the worker's body; in a normal run it
//! returns at once.

#![cfg(unix)]

use fsm_fleet::{Fleet, Machines};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

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

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Seen {
    values: Vec<u32>,
}

impl counter::Context for Seen {
    fn record(&mut self, value: &u32) {
        self.values.push(*value);
    }
}

const INSTANCES: u32 = 100;
const EVENTS: u32 = 10;
/// Set in a child: the fleet's file.
const WORKER_DB: &str = "FSM_TEST_FLEET_CHAOS_DB";

fn machines() -> Machines {
    Machines::new().with::<counter::Counter>()
}

/// The worker: steps small batches until told to stop by a kill; says
/// `ready` on stderr first.
#[test]
fn child_worker() {
    let Some(db) = std::env::var_os(WORKER_DB) else {
        return;
    };
    let mut fleet = Fleet::open(Path::new(&db)).unwrap();
    std::io::stderr().write_all(b"ready\n").unwrap();
    loop {
        if fleet.work(&machines(), 4).unwrap().instances == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

fn worker(db: &Path) -> Child {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_worker", "--test-threads=1", "--quiet"])
        .env(WORKER_DB, db)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "ready\n", "the worker did not start");
    child
}

#[test]
fn workers_killed_at_random_lose_and_repeat_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fleet.db");
    let mut fleet = Fleet::open(&db).unwrap();
    for i in 0..INSTANCES {
        fleet
            .create(&format!("c{i}"), counter::Counter::new(Seen::default()))
            .unwrap();
    }
    // Events keep arriving while the workers are killed.
    let mut workers = vec![worker(&db), worker(&db)];
    let mut kills = 0;
    for n in 1..=EVENTS {
        for i in 0..INSTANCES {
            fleet
                .send(&format!("c{i}"), &counter::Event::Add(n), &format!("add-{n}"))
                .unwrap();
        }
        for _ in 0..3 {
            std::thread::sleep(Duration::from_micros(fastrand::u64(0..20_000)));
            let victim = fastrand::usize(0..2);
            workers[victim].kill().unwrap(); // SIGKILL
            workers[victim].wait().unwrap();
            workers[victim] = worker(&db);
            kills += 1;
        }
    }
    // Let the survivors finish.
    let pending = |fleet: &mut Fleet| -> i64 {
        fleet
            .connection()
            .query_row(
                "SELECT COUNT(*) FROM fsm_inbox WHERE status = 'pending'",
                [],
                |row| row.get(0),
            )
            .unwrap()
    };
    for _ in 0..3000 {
        if pending(&mut fleet) == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    for mut w in workers {
        w.kill().unwrap();
        w.wait().unwrap();
    }
    assert_eq!(pending(&mut fleet), 0, "every event consumed");

    let expected: Vec<u32> = (1..=EVENTS).collect();
    for i in 0..INSTANCES {
        let id = format!("c{i}");
        let instance = fleet.instance(&id).unwrap().unwrap();
        let snapshot: serde_json::Value = serde_json::from_str(&instance.snapshot).unwrap();
        let values: Vec<u32> = serde_json::from_value(snapshot["context"]["values"].clone()).unwrap();
        assert_eq!(values, expected, "{id}: each event once, in order");
        // The history's last step is the tenth: none lost, none applied twice.
        assert_eq!(
            snapshot["history"].as_array().unwrap().last().unwrap()["seq"],
            (EVENTS - 1)
        );
        let keys: Vec<String> = {
            let conn = fleet.connection();
            let mut select = conn
                .prepare("SELECT key FROM fsm_outbox WHERE instance = ?1 ORDER BY step, idx")
                .unwrap();
            select
                .query_map([&id], |row| row.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        let expected_keys: Vec<String> = (0..EVENTS).map(|step| format!("{id}/{step}/0")).collect();
        assert_eq!(keys, expected_keys, "{id}: each step's output once");
    }
    println!("{kills} workers killed");
}
