//! A fleet on SQLite, end to end: events per second from `send` to the step
//! committed with 1, 2 and 4 worker processes, with latency; how late
//! timers fire; and what claiming due work costs as the fleet grows.
//!
//! ```text
//! fleet_throughput [--instances N] [--events E] [--workers 1,2,4]
//! fleet_throughput --timers N [--workers W]
//! fleet_throughput --scaling 10000,1000000
//! ```
//!
//! Workers are this binary run again with `--worker DB`. The database is a
//! file in a temporary directory, with the fleet's own settings (WAL,
//! `synchronous = FULL`).

use fsm_fleet::{Fleet, Machines};
use rusqlite::params;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fsm_runtime::fsm! {
    /// Counts what it is sent; emits an output per event.
    machine Counter {
        context Count;
        action add(u32), close;
        effect record(u32);
        output added;
        initial state counting { on add do record emit added; on close -> closed; }
        terminal state closed;
    }

    /// Waits for its timer.
    machine Sleeper {
        initial state waiting { after 5s -> woken emit fired; }
        terminal state woken;
    }
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Count {
    total: u64,
}

impl counter::Context for Count {
    fn record(&mut self, value: &u32) {
        self.total += u64::from(*value);
    }
}

fn machines() -> Machines {
    Machines::new().with::<counter::Counter>().with::<sleeper::Sleeper>()
}

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn list(text: &str) -> Vec<usize> {
    text.split(',').map(|n| n.trim().parse().expect("a number")).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(db) = flag(&args, "--worker") {
        worker(Path::new(&db));
    }
    let workers = list(&flag(&args, "--workers").unwrap_or_else(|| "1,2,4".into()));
    if let Some(n) = flag(&args, "--timers") {
        timers(n.parse().expect("a number"), workers[0]);
    } else if let Some(sizes) = flag(&args, "--scaling") {
        scaling(&list(&sizes));
    } else {
        let instances = flag(&args, "--instances").map_or(1_000, |n| n.parse().expect("a number"));
        let events = flag(&args, "--events").map_or(20_000, |n| n.parse().expect("a number"));
        println!("| workers | events | events/s | latency p50 | latency p99 |");
        println!("|---:|---:|---:|---:|---:|");
        for w in workers {
            throughput(instances, events, w);
        }
    }
}

/// Step batches of 64 until killed.
fn worker(db: &Path) -> ! {
    let mut fleet = Fleet::open(db).unwrap();
    let machines = machines();
    loop {
        if fleet.work(&machines, 64).unwrap().instances == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

fn spawn_workers(db: &Path, n: usize) -> Vec<Child> {
    (0..n)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--worker", db.to_str().unwrap()])
                .stdin(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect()
}

fn stop(workers: Vec<Child>) {
    for mut w in workers {
        w.kill().unwrap();
        w.wait().unwrap();
    }
}

fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fleet.db");
    (dir, db)
}

/// Create `n` instances with `make`, in one transaction.
fn create_many<M: fsm_runtime::Persist + fsm_runtime::Timed>(
    fleet: &mut Fleet,
    prefix: &str,
    n: usize,
    make: impl Fn() -> M,
) {
    fleet.connection().execute_batch("BEGIN").unwrap();
    for i in 0..n {
        fleet.create(&format!("{prefix}{i}"), make()).unwrap();
    }
    fleet.connection().execute_batch("COMMIT").unwrap();
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn pending_events(fleet: &mut Fleet) -> i64 {
    fleet
        .connection()
        .query_row("SELECT COUNT(*) FROM fsm_inbox WHERE status = 'pending'", [], |r| r.get(0))
        .unwrap()
}

/// `events` events over `instances` counters, sent in transactions of 100
/// while `workers` worker processes step them.
fn throughput(instances: usize, events: usize, workers: usize) {
    let (_dir, db) = scratch();
    let mut fleet = Fleet::open(&db).unwrap();
    create_many(&mut fleet, "c", instances, || counter::Counter::new(Count::default()));
    let children = spawn_workers(&db, workers);
    let mut sent = 0;
    while sent < events {
        let tx = fleet.connection().transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
        for _ in 0..100.min(events - sent) {
            let id = format!("c{}", sent % instances);
            fsm_fleet::send(&tx, &id, &counter::Event::Add(1), &format!("e{sent}")).unwrap();
            sent += 1;
        }
        tx.commit().unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    while pending_events(&mut fleet) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop(children);
    let conn = fleet.connection();
    let (first, last): (i64, i64) = conn
        .query_row("SELECT MIN(sent_at), MAX(consumed_at) FROM fsm_inbox", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    let mut latencies: Vec<i64> = conn
        .prepare("SELECT consumed_at - sent_at FROM fsm_inbox WHERE status = 'done'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(latencies.len(), events, "every event consumed");
    latencies.sort_unstable();
    let seconds = (last - first).max(1) as f64 / 1000.0;
    println!(
        "| {workers} | {events} | {:.0} | {} ms | {} ms |",
        events as f64 / seconds,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
}

/// `n` sleepers, each with a 5 s timer, fired by `workers` workers: how late
/// each fired (never early), and that each fired once.
fn timers(n: usize, workers: usize) {
    let (_dir, db) = scratch();
    let mut fleet = Fleet::open(&db).unwrap();
    let started = Instant::now();
    create_many(&mut fleet, "s", n, sleeper::Sleeper::new);
    println!("created {n} sleepers in {:.1} s", started.elapsed().as_secs_f64());
    let deadlines: std::collections::HashMap<String, i64> = fleet
        .connection()
        .prepare("SELECT id, next_wake FROM fsm_instances")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let children = spawn_workers(&db, workers);
    let waiting = |fleet: &mut Fleet| -> i64 {
        fleet
            .connection()
            .query_row("SELECT COUNT(*) FROM fsm_instances WHERE next_wake IS NOT NULL", [], |r| r.get(0))
            .unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(900);
    // Polled through the index of due instances, which empties as they fire.
    while waiting(&mut fleet) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    stop(children);
    let conn = fleet.connection();
    let mut late = Vec::with_capacity(n);
    let mut select = conn.prepare("SELECT id, snapshot FROM fsm_instances").unwrap();
    let rows = select
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap();
    for row in rows {
        let (id, snapshot) = row.unwrap();
        let snapshot: serde_json::Value = serde_json::from_str(&snapshot).unwrap();
        let history = snapshot["history"].as_array().unwrap();
        assert_eq!(history.len(), 1, "{id}: fired once");
        let at: fsm_runtime::Timestamp = history[0]["timestamp"].as_str().unwrap().parse().unwrap();
        let lateness = at.unix_millis() as i64 - deadlines[&id];
        assert!(lateness >= 0, "{id}: fired {lateness} ms early");
        late.push(lateness);
    }
    let outputs: i64 = conn.query_row("SELECT COUNT(*) FROM fsm_outbox", [], |r| r.get(0)).unwrap();
    assert_eq!(outputs, n as i64, "one output per timer");
    late.sort_unstable();
    println!(
        "{n} timers, {workers} worker(s): late by p50 {} ms, p99 {} ms, max {} ms; each fired once, none early",
        percentile(&late, 0.5),
        percentile(&late, 0.99),
        late[late.len() - 1]
    );
}

/// For each size: that many idle counters plus 1,000 busy ones; twice, an
/// event to each busy one and `work` batches of 100 until the 1,000 are
/// stepped: the time per step.
fn scaling(sizes: &[usize]) {
    println!("| idle instances | per step, first round | per step, second round | claim query plan |");
    println!("|---:|---:|---:|:---|");
    for &size in sizes {
        let (_dir, db) = scratch();
        let mut fleet = Fleet::open(&db).unwrap();
        create_many(&mut fleet, "idle", size, || counter::Counter::new(Count::default()));
        create_many(&mut fleet, "busy", 1_000, || counter::Counter::new(Count::default()));
        let machines = machines();
        // Two rounds of 1,000 events: the first reads the pages it needs
        // from the file, the second finds them in SQLite's cache.
        let mut rounds = Vec::new();
        for round in 0..2 {
            let tx = fleet
                .connection()
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .unwrap();
            for i in 0..1_000 {
                fsm_fleet::send(&tx, &format!("busy{i}"), &counter::Event::Add(1), &format!("e{round}")).unwrap();
            }
            tx.commit().unwrap();
            let started = Instant::now();
            let mut steps = 0;
            loop {
                let worked = fleet.work(&machines, 100).unwrap();
                if worked.instances == 0 {
                    break;
                }
                steps += worked.instances;
            }
            assert_eq!(steps, 1_000);
            rounds.push(started.elapsed() / 1_000);
        }
        let plan: Vec<String> = fleet
            .connection()
            .prepare(
                "EXPLAIN QUERY PLAN SELECT id, machine, fingerprint, snapshot, version FROM fsm_instances
                 WHERE next_wake IS NOT NULL AND next_wake <= ?1 AND machine IN (?2, ?3)
                 ORDER BY next_wake LIMIT ?4",
            )
            .unwrap()
            .query_map(params![i64::MAX, "Counter", "Sleeper", 100], |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        println!("| {size} | {:.0?} | {:.0?} | {} |", rounds[0], rounds[1], plan.join("; "));
    }
}
