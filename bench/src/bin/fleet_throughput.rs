//! A fleet on SQLite or PostgreSQL, end to end: events per second from
//! `send` to the step committed with 1, 2 and 4 worker processes, with
//! latency; how late timers fire; and what claiming due work costs as the
//! fleet grows.
//!
//! ```text
//! fleet_throughput [--postgres PARAMS] [--instances N] [--events E] [--senders S] [--batch B] [--preload] [--workers 1,2,4]
//! fleet_throughput [--postgres PARAMS] --timers N [--workers W]
//! fleet_throughput [--postgres PARAMS] --timers N --bursts K [--workers W]
//! fleet_throughput [--postgres PARAMS] --outputs N [--handlers H] [--ack-batch B]
//! fleet_throughput [--postgres PARAMS] --scaling 10000,1000000
//! ```
//!
//! Workers are this binary run again with `--worker DB`. Without
//! `--postgres`, the database is a file in a temporary directory, with the
//! fleet's own settings (WAL, `synchronous = FULL`). With `--postgres
//! "host=… dbname=…"` (`key=value` parameters), each run gets a fresh
//! schema, `fsm_fleet_bench`, dropped first.

use fsm_fleet::{Fleet, Machines};
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
    Machines::new()
        .with::<counter::Counter>()
        .with::<sleeper::Sleeper>()
}

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn list(text: &str) -> Vec<usize> {
    text.split(',')
        .map(|n| n.trim().parse().expect("a number"))
        .collect()
}

/// What `--help` prints.
const USAGE: &str = "\
fleet_throughput [--postgres PARAMS] [--instances N] [--events E] [--senders S] [--batch B] [--preload] [--workers 1,2,4]
fleet_throughput [--postgres PARAMS] --timers N [--workers W]
fleet_throughput [--postgres PARAMS] --timers N --bursts K [--workers W]
fleet_throughput [--postgres PARAMS] --outputs N [--handlers H] [--ack-batch B]
fleet_throughput [--postgres PARAMS] --scaling 10000,1000000

Events per second from `send` to the step committed, with latency; how late N timers fire; the
cost of a step as idle instances grow, with the claim's query plan. SQLite in a temporary
directory, or PostgreSQL (`key=value` parameters; a fresh schema `fsm_fleet_bench` each run).
--preload sends every event before the workers start.
--bursts K: K bursts one after another in the same database, each of N timers due at the same
millisecond, with the deadline indexes' entries read per timer fired (PostgreSQL).
--outputs N: N pending outputs performed by H handler threads (default 2), claiming B at a time
(default 100) and settling them with one outputs_done a batch (with B = 1, output_done each).";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return;
    }
    // The most instances a worker steps in one transaction.
    let batch: usize = flag(&args, "--batch").map_or(64, |n| n.parse().expect("a number"));
    if let Some(db) = flag(&args, "--worker") {
        worker(&db, batch);
    }
    BATCH.store(batch, std::sync::atomic::Ordering::Relaxed);
    let postgres = flag(&args, "--postgres");
    let workers = list(&flag(&args, "--workers").unwrap_or_else(|| "1,2,4".into()));
    if let (Some(n), Some(k)) = (flag(&args, "--timers"), flag(&args, "--bursts")) {
        bursts(
            &Db::fresh(postgres.as_deref()),
            n.parse().expect("a number"),
            k.parse().expect("a number"),
            workers[0],
        );
    } else if let Some(n) = flag(&args, "--outputs") {
        outputs(
            &Db::fresh(postgres.as_deref()),
            n.parse().expect("a number"),
            flag(&args, "--handlers").map_or(2, |n| n.parse().expect("a number")),
            flag(&args, "--ack-batch").map_or(100, |n| n.parse().expect("a number")),
        );
    } else if let Some(n) = flag(&args, "--timers") {
        timers(
            &Db::fresh(postgres.as_deref()),
            n.parse().expect("a number"),
            workers[0],
        );
    } else if let Some(sizes) = flag(&args, "--scaling") {
        scaling(postgres.as_deref(), &list(&sizes));
    } else {
        let instances = flag(&args, "--instances").map_or(1_000, |n| n.parse().expect("a number"));
        let events = flag(&args, "--events").map_or(20_000, |n| n.parse().expect("a number"));
        let senders = flag(&args, "--senders").map_or(1, |n| n.parse().expect("a number"));
        // Every event sent before the workers start: what the workers alone can step.
        let preload = args.iter().any(|a| a == "--preload");
        println!("| workers | senders | events | events/s | latency p50 | latency p99 |");
        println!("|---:|---:|---:|---:|---:|---:|");
        for w in workers {
            throughput(
                &Db::fresh(postgres.as_deref()),
                instances,
                events,
                senders,
                w,
                preload,
            );
        }
    }
}

/// The database of one run: an SQLite file in a temporary directory, or a
/// fresh PostgreSQL schema.
enum Db {
    Sqlite { _dir: tempfile::TempDir, path: String },
    Postgres { params: String },
}

impl Db {
    fn fresh(postgres: Option<&str>) -> Db {
        match postgres {
            None => {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("fleet.db").display().to_string();
                Db::Sqlite { _dir: dir, path }
            }
            Some(params) => {
                let mut admin = postgres::Client::connect(params, postgres::NoTls).unwrap();
                admin
                    .batch_execute(
                        "DROP SCHEMA IF EXISTS fsm_fleet_bench CASCADE; CREATE SCHEMA fsm_fleet_bench",
                    )
                    .unwrap();
                Db::Postgres {
                    params: format!("{params} options='-c search_path=fsm_fleet_bench'"),
                }
            }
        }
    }

    /// What `--worker` and `open` take.
    fn target(&self) -> &str {
        match self {
            Db::Sqlite { path, .. } => path,
            Db::Postgres { params } => params,
        }
    }

    fn open(&self) -> Fleet {
        open(self.target())
    }

    /// The rows `sql` selects, as integers (`i64::MIN` for NULL), read on a
    /// connection of its own.
    fn ints(&self, sql: &str) -> Vec<Vec<i64>> {
        match self {
            Db::Sqlite { path, .. } => {
                let conn = rusqlite::Connection::open(path).unwrap();
                conn.busy_timeout(Duration::from_secs(30)).unwrap();
                let mut select = conn.prepare(sql).unwrap();
                let n = select.column_count();
                select
                    .query_map([], |r| {
                        (0..n)
                            .map(|i| Ok(r.get::<_, Option<i64>>(i)?.unwrap_or(i64::MIN)))
                            .collect()
                    })
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap()
            }
            Db::Postgres { params } => postgres::Client::connect(params, postgres::NoTls)
                .unwrap()
                .query(sql, &[])
                .unwrap()
                .iter()
                .map(|r| {
                    (0..r.len())
                        .map(|i| r.get::<_, Option<i64>>(i).unwrap_or(i64::MIN))
                        .collect()
                })
                .collect(),
        }
    }

    /// The rows `sql` selects, as `(text, text)`.
    fn pairs(&self, sql: &str) -> Vec<(String, String)> {
        match self {
            Db::Sqlite { path, .. } => {
                let conn = rusqlite::Connection::open(path).unwrap();
                let mut select = conn.prepare(sql).unwrap();
                select
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap()
            }
            Db::Postgres { params } => postgres::Client::connect(params, postgres::NoTls)
                .unwrap()
                .query(sql, &[])
                .unwrap()
                .iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect(),
        }
    }

    /// Run `sql` on a connection of its own.
    fn execute(&self, sql: &str) {
        match self {
            Db::Sqlite { path, .. } => {
                let conn = rusqlite::Connection::open(path).unwrap();
                conn.busy_timeout(Duration::from_secs(30)).unwrap();
                conn.execute_batch(sql).unwrap();
            }
            Db::Postgres { params } => postgres::Client::connect(params, postgres::NoTls)
                .unwrap()
                .batch_execute(sql)
                .unwrap(),
        }
    }

    fn count(&self, sql: &str) -> i64 {
        self.ints(sql)[0][0]
    }

    /// How the database runs the worker's claim of a machine's due timers
    /// (`fsm_fleet::timers_claim_statement`, under the settings a worker
    /// runs it with on PostgreSQL), from the start of the deadlines.
    fn claim_plan(&self) -> String {
        match self {
            Db::Sqlite { path, .. } => {
                let conn = rusqlite::Connection::open(path).unwrap();
                let sql = fsm_fleet::timers_claim_statement(false);
                let mut select = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
                let plan: Vec<String> = select
                    .query_map(rusqlite::params![i64::MAX, 100, "Counter", i64::MIN, ""], |r| {
                        r.get(3)
                    })
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                format!("`{}`", plan.join("; "))
            }
            Db::Postgres { params } => {
                let mut client = postgres::Client::connect(params, postgres::NoTls).unwrap();
                let settings = fsm_fleet::timers_claim_settings().replace("SET LOCAL", "SET");
                let sql = fsm_fleet::timers_claim_statement(true).replace('?', "$");
                client
                    .batch_execute(&format!(
                        "{settings}; PREPARE claim (BIGINT, BIGINT, TEXT, BIGINT, TEXT) AS {sql}"
                    ))
                    .unwrap();
                let rows = client
                    .query(
                        &format!(
                            "EXPLAIN EXECUTE claim({}, 100, 'Counter', {}, '')",
                            i64::MAX,
                            i64::MIN
                        ),
                        &[],
                    )
                    .unwrap();
                let plan: Vec<String> = rows
                    .iter()
                    .map(|r| r.get::<_, String>(0).trim().to_owned())
                    .collect();
                format!("`{}`", plan.join(" / "))
            }
        }
    }
}

fn open(target: &str) -> Fleet {
    if fsm_fleet::inspect::is_postgres(target) {
        Fleet::connect(target).unwrap()
    } else {
        Fleet::open(target).unwrap()
    }
}

/// Step batches of `batch` instances until killed.
fn worker(db: &str, batch: usize) -> ! {
    let mut fleet = open(db);
    let machines = machines();
    loop {
        if fleet.work(&machines, batch).unwrap().instances == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// `--batch`, for the workers.
static BATCH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(64);

fn spawn_workers(db: &Db, n: usize) -> Vec<Child> {
    let batch = BATCH.load(std::sync::atomic::Ordering::Relaxed).to_string();
    (0..n)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--worker", db.target(), "--batch", &batch])
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

/// Run `body` in one transaction of `fleet`'s own connection.
fn in_transaction(fleet: &mut Fleet, body: impl FnOnce(&mut Fleet)) {
    let begin = |fleet: &mut Fleet, sql: &str| match fleet.sqlite() {
        Some(conn) => conn.execute_batch(sql).unwrap(),
        None => fleet.postgres().unwrap().batch_execute(sql).unwrap(),
    };
    begin(fleet, "BEGIN");
    body(fleet);
    begin(fleet, "COMMIT");
}

/// Send each `(instance, dedup key)` an `add(1)`, in one transaction
/// (`Fleet::send_batch`).
fn send_all(fleet: &mut Fleet, events: impl Iterator<Item = (String, String)>) {
    let events: Vec<(String, String)> = events.collect();
    let batch: Vec<(&str, counter::Event, &str)> = events
        .iter()
        .map(|(id, key)| (id.as_str(), counter::Event::Add(1), key.as_str()))
        .collect();
    fleet.send_batch(&batch).unwrap();
}

/// Create `n` instances with `make`, in one transaction.
fn create_many<M: fsm_runtime::Persist + fsm_runtime::Timed>(
    fleet: &mut Fleet,
    prefix: &str,
    n: usize,
    make: impl Fn() -> M,
) {
    in_transaction(fleet, |fleet| {
        for i in 0..n {
            fleet.create(&format!("{prefix}{i}"), make()).unwrap();
        }
    });
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// `events` events over `instances` counters, sent by `senders` threads
/// (each its own connection) in transactions of 100 while `workers` worker
/// processes step them.
fn throughput(db: &Db, instances: usize, events: usize, senders: usize, workers: usize, preload: bool) {
    let mut fleet = db.open();
    create_many(&mut fleet, "c", instances, || {
        counter::Counter::new(Count::default())
    });
    drop(fleet);
    let mut children = if preload {
        Vec::new()
    } else {
        spawn_workers(db, workers)
    };
    std::thread::scope(|scope| {
        for sender in 0..senders {
            scope.spawn(move || {
                let mut fleet = db.open();
                // Sender `s` sends the events numbered s, s + senders, ...
                let mine: Vec<usize> = (sender..events).step_by(senders).collect();
                for batch in mine.chunks(100) {
                    send_all(
                        &mut fleet,
                        batch
                            .iter()
                            .map(|n| (format!("c{}", n % instances), format!("e{n}"))),
                    );
                }
            });
        }
    });
    let started = fsm_runtime::Timestamp::now().unix_millis() as i64;
    if preload {
        children = spawn_workers(db, workers);
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    while db.count("SELECT COUNT(*) FROM fsm_inbox WHERE status = 'pending'") > 0 && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop(children);
    let row = &db.ints("SELECT MIN(sent_at), MAX(consumed_at) FROM fsm_inbox")[0];
    let (first, last) = (if preload { started } else { row[0] }, row[1]);
    let mut latencies: Vec<i64> = db
        .ints("SELECT consumed_at - sent_at FROM fsm_inbox WHERE status = 'done'")
        .into_iter()
        .map(|row| row[0])
        .collect();
    assert_eq!(latencies.len(), events, "every event consumed");
    latencies.sort_unstable();
    let seconds = (last - first).max(1) as f64 / 1000.0;
    println!(
        "| {workers} | {senders} | {events} | {:.0} | {} ms | {} ms |",
        events as f64 / seconds,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
}

/// `n` sleepers, each with a 5 s timer, created while `workers` workers
/// run: how late each fired (never early), and that each fired once.
fn timers(db: &Db, n: usize, workers: usize) {
    let mut fleet = db.open();
    // The workers run while the sleepers are created, a thousand a
    // transaction: a timer is visible to them from its creation's commit,
    // seconds before it is due.
    let children = spawn_workers(db, workers);
    let started = Instant::now();
    let mut deadlines = std::collections::HashMap::with_capacity(n);
    for first in (0..n).step_by(1_000) {
        in_transaction(&mut fleet, |fleet| {
            for i in first..(first + 1_000).min(n) {
                let sleeper = sleeper::Sleeper::new();
                let due = sleeper.next_deadline().expect("armed when created");
                let id = format!("s{i}");
                fleet.create(&id, sleeper).unwrap();
                deadlines.insert(id, due.unix_millis() as i64);
            }
        });
    }
    println!("created {n} sleepers in {:.1} s", started.elapsed().as_secs_f64());
    drop(fleet);
    let deadline = Instant::now() + Duration::from_secs(900);
    // Polled through the index of due instances, which empties as they fire.
    while db.count("SELECT COUNT(*) FROM fsm_instances WHERE next_wake IS NOT NULL") > 0
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(200));
    }
    stop(children);
    let mut late = Vec::with_capacity(n);
    for (id, snapshot) in db.pairs("SELECT id, snapshot FROM fsm_instances") {
        let snapshot: serde_json::Value = serde_json::from_str(&snapshot).unwrap();
        let history = snapshot["history"].as_array().unwrap();
        assert_eq!(history.len(), 1, "{id}: fired once");
        let at: fsm_runtime::Timestamp = history[0]["timestamp"].as_str().unwrap().parse().unwrap();
        let lateness = at.unix_millis() as i64 - deadlines[&id];
        assert!(lateness >= 0, "{id}: fired {lateness} ms early");
        late.push(lateness);
    }
    let outputs = db.count("SELECT COUNT(*) FROM fsm_outbox");
    assert_eq!(outputs, n as i64, "one output per timer");
    late.sort_unstable();
    println!(
        "{n} timers, {workers} worker(s): late by p50 {} ms, p99 {} ms, max {} ms; each fired once, none early",
        percentile(&late, 0.5),
        percentile(&late, 0.99),
        late[late.len() - 1]
    );
}

/// The entries read so far from the indexes of deadlines of
/// `fsm_instances` (`idx_tup_read`, every index whose name says `due` or
/// `wake`), and from all its indexes; zeros on SQLite, which does not count
/// them.
fn index_reads(db: &Db) -> (i64, i64) {
    match db {
        Db::Sqlite { .. } => (0, 0),
        Db::Postgres { .. } => {
            let row = &db.ints(
                "SELECT COALESCE(SUM(idx_tup_read) FILTER (WHERE indexrelname LIKE '%due%'
                                                         OR indexrelname LIKE '%wake%'), 0)::BIGINT,
                        COALESCE(SUM(idx_tup_read), 0)::BIGINT
                 FROM pg_stat_user_indexes
                 WHERE schemaname = 'fsm_fleet_bench' AND relname = 'fsm_instances'",
            )[0];
            (row[0], row[1])
        }
    }
}

/// `bursts` bursts of `n` sleepers each, one after another in the same
/// database while `workers` workers run throughout: each burst's sleepers
/// are created due at the same millisecond (one created by the fleet, the
/// others copies of its row, inserted by one statement), and fired; how
/// late each fired, that each fired once, and how many index entries of
/// the deadline indexes the workers read per timer fired.
fn bursts(db: &Db, n: usize, bursts: usize, workers: usize) {
    let children = spawn_workers(db, workers);
    println!(
        "| burst | timers | late p50 | late p99 | max | deadline index entries read per timer | all of fsm_instances' indexes |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for burst in 1..=bursts {
        let mut fleet = db.open();
        let template = format!("b{burst}-0");
        fleet.create(&template, sleeper::Sleeper::new()).unwrap();
        let instance = fleet.instance(&template).unwrap().unwrap();
        let due = instance.next_wake.expect("armed when created").unix_millis() as i64;
        drop(fleet);
        let copies = format!(
            "INSERT INTO fsm_instances
                 (id, machine, fingerprint, state, snapshot, version, next_wake, created_at, updated_at)
             SELECT 'b{burst}-' || g, machine, fingerprint, state, snapshot, version, next_wake, created_at, updated_at
             FROM fsm_instances, ({}) AS r
             WHERE id = '{template}'",
            match db {
                Db::Sqlite { .. } => format!(
                    "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {}) SELECT g FROM s",
                    n - 1
                ),
                Db::Postgres { .. } => format!("SELECT g FROM generate_series(1, {}) AS g", n - 1),
            }
        );
        db.execute(&copies);
        let now = fsm_runtime::Timestamp::now().unix_millis() as i64;
        assert!(now < due, "the copies were inserted before their deadline");
        let before = index_reads(db);
        let fired_before = db.count("SELECT COUNT(*) FROM fsm_outbox");
        let deadline = Instant::now() + Duration::from_secs(600);
        // Polled through the outbox (one output per timer), not the indexes
        // of deadlines, whose reads are counted.
        while db.count("SELECT COUNT(*) FROM fsm_outbox") < fired_before + n as i64
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(100));
        }
        // PostgreSQL's backends publish their counts at most once a second:
        // the workers, idle, publish theirs.
        if matches!(db, Db::Postgres { .. }) {
            std::thread::sleep(Duration::from_millis(2_500));
        }
        let after = index_reads(db);
        let mut late = Vec::with_capacity(n);
        for (id, snapshot) in db.pairs(&format!(
            "SELECT id, snapshot FROM fsm_instances WHERE id LIKE 'b{burst}-%'"
        )) {
            let snapshot: serde_json::Value = serde_json::from_str(&snapshot).unwrap();
            let history = snapshot["history"].as_array().unwrap();
            assert_eq!(history.len(), 1, "{id}: fired once");
            let at: fsm_runtime::Timestamp = history[0]["timestamp"].as_str().unwrap().parse().unwrap();
            let lateness = at.unix_millis() as i64 - due;
            assert!(lateness >= 0, "{id}: fired {lateness} ms early");
            late.push(lateness);
        }
        assert_eq!(late.len(), n, "every timer of the burst fired");
        late.sort_unstable();
        let per_timer = |reads: i64| match db {
            Db::Sqlite { .. } => "–".to_owned(),
            Db::Postgres { .. } => format!("{:.2}", reads as f64 / n as f64),
        };
        println!(
            "| {burst} | {n} | {} ms | {} ms | {} ms | {} | {} |",
            percentile(&late, 0.5),
            percentile(&late, 0.99),
            late[late.len() - 1],
            per_timer(after.0 - before.0),
            per_timer(after.1 - before.1),
        );
    }
    stop(children);
}

/// `n` pending outputs (over 1,000 counters, stepped before the handlers
/// start), performed by `handlers` threads, each with its own connection,
/// claiming `ack` at a time and settling each claim with one
/// `outputs_done` (with `ack` 1, one `output_done`): outputs per second
/// from the first claim to the last settled.
fn outputs(db: &Db, n: usize, handlers: usize, ack: usize) {
    let mut fleet = db.open();
    let instances = 1_000.min(n);
    create_many(&mut fleet, "c", instances, || {
        counter::Counter::new(Count::default())
    });
    for first in (0..n).step_by(1_000) {
        send_all(
            &mut fleet,
            (first..(first + 1_000).min(n)).map(|e| (format!("c{}", e % instances), format!("e{e}"))),
        );
        // Stepped as they come, so that each instance's outputs are of
        // several steps, as a live fleet's are.
        let machines = machines();
        while fleet.work(&machines, 256).unwrap().instances > 0 {}
    }
    assert_eq!(
        db.count("SELECT COUNT(*) FROM fsm_outbox WHERE status = 'pending'"),
        n as i64
    );
    drop(fleet);
    let started = Instant::now();
    let settled = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..handlers {
            scope.spawn(|| {
                let mut fleet = db.open();
                loop {
                    let claimed = fleet.claim_outputs(ack, Duration::from_secs(60)).unwrap();
                    if claimed.is_empty() {
                        if settled.load(std::sync::atomic::Ordering::Relaxed) >= n {
                            break;
                        }
                        // Another handler holds the heads of the instances left.
                        std::thread::sleep(Duration::from_millis(1));
                        continue;
                    }
                    let done = if ack == 1 {
                        vec![fleet.output_done(&claimed[0]).unwrap()]
                    } else {
                        fleet.outputs_done(&claimed).unwrap()
                    };
                    assert!(done.iter().all(|d| *d), "every claim holds its lease");
                    settled.fetch_add(done.len(), std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(
        db.count("SELECT COUNT(*) FROM fsm_outbox WHERE status = 'done'"),
        n as i64
    );
    println!("| {handlers} | {ack} | {n} | {:.0} |", n as f64 / seconds);
}

/// For each size: that many idle counters plus 1,000 busy ones; twice, an
/// event to each busy one and `work` batches of 100 until the 1,000 are
/// stepped: the time per step.
fn scaling(postgres: Option<&str>, sizes: &[usize]) {
    println!("| idle instances | per step, first round | per step, second round | claim query plan |");
    println!("|---:|---:|---:|:---|");
    for &size in sizes {
        let db = Db::fresh(postgres);
        let mut fleet = db.open();
        create_many(&mut fleet, "idle", size, || {
            counter::Counter::new(Count::default())
        });
        create_many(&mut fleet, "busy", 1_000, || {
            counter::Counter::new(Count::default())
        });
        let machines = machines();
        if let Some(client) = fleet.postgres() {
            // The planner's statistics, as autovacuum would gather them.
            client.batch_execute("ANALYZE").unwrap();
        }
        // Two rounds of 1,000 events: the first reads the pages it needs
        // from the file, the second finds them in the database's cache.
        let mut rounds = Vec::new();
        for round in 0..2 {
            send_all(
                &mut fleet,
                (0..1_000).map(|i| (format!("busy{i}"), format!("e{round}"))),
            );
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
        let plan = db.claim_plan();
        println!("| {size} | {:.0?} | {:.0?} | {plan} |", rounds[0], rounds[1]);
    }
}
