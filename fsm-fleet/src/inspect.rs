//! Reading a fleet's database without changing it, and without the machines'
//! Rust types: what `fsmc fleet` prints.
//!
//! [`open_read_only`] opens an SQLite file read-only, and
//! [`connect_read_only`] a PostgreSQL database in read-only transactions
//! ([`open`] picks by what it is given); each checks that it holds a fleet of
//! a schema this build reads. The other functions each run a few queries and
//! return plain structs. Lists are bounded by a limit and totals are
//! counted by the database, so memory follows what is shown, not the size of
//! the fleet.
//!
//! ```
//! use fsm_fleet::{inspect, Fleet};
//!
//! fsm_runtime::fsm! {
//!     machine Order {
//!         initial state placed { on pay -> paid emit charge; }
//!         terminal state paid;
//!     }
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let mut fleet = Fleet::open(dir.path().join("fleet.db"))?;
//! fleet.create("order-17", order::Order::new())?;
//! fleet.send("order-17", &order::Action::Pay, "pay-1")?;
//!
//! let mut db = inspect::open_read_only(dir.path().join("fleet.db"))?;
//! let listed = inspect::instances(&mut db, Some("Order"), None, 10)?;
//! assert_eq!((listed[0].id.as_str(), listed[0].state.as_str()), ("order-17", "placed"));
//! let detail = inspect::instance(&mut db, "order-17")?.expect("it exists");
//! assert_eq!(detail.inbox.pending, 1);
//! assert_eq!(inspect::due(&mut db, fsm_runtime::Timestamp::now())?.instances_due, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![cfg_attr(not(feature = "postgres"), doc = "\n[`connect_read_only`]: crate")]

use crate::db::{params, Backend, DatabaseError, Db, Row};
use crate::error::FleetError;
use crate::fleet::sql_limit;
use crate::schema::{check_version, timestamp};
use fsm_runtime::{Snapshot, Timestamp};
use rusqlite::OpenFlags;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// A fleet's database, opened to read: by [`open_read_only`] (SQLite) or
/// [`connect_read_only`] (PostgreSQL).
#[cfg_attr(not(feature = "postgres"), doc = "", doc = "[`connect_read_only`]: crate")]
pub struct Reader {
    db: Backend,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader").finish_non_exhaustive()
    }
}

/// How long a read waits for a writer's transaction to finish before failing
/// with [`FleetError::Database`] (`database is locked`).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many events and outputs of each kind [`instance`] lists.
pub const DETAIL_LIMIT: usize = 20;

/// Whether `target` names a PostgreSQL database rather than an SQLite file:
/// a `postgres://` or `postgresql://` URL, or `key=value` connection
/// parameters (`host=/run/pg dbname=fleet`).
pub fn is_postgres(target: &str) -> bool {
    target.starts_with("postgres://")
        || target.starts_with("postgresql://")
        || target.split_whitespace().next().is_some_and(|word| {
            word.split_once('=').is_some_and(|(key, _)| {
                !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            })
        })
}

/// The fleet `target` names, to read: a PostgreSQL database when
/// [`is_postgres`] says so ([`connect_read_only`]), else an SQLite file
/// ([`open_read_only`]).
///
/// # Errors
///
/// As [`open_read_only`] and [`connect_read_only`]; a PostgreSQL target
/// when this build has no `postgres` feature ([`FleetError::Schema`]).
#[cfg_attr(not(feature = "postgres"), doc = "", doc = "[`connect_read_only`]: crate")]
pub fn open(target: &str) -> Result<Reader, FleetError> {
    if !is_postgres(target) {
        return open_read_only(target);
    }
    #[cfg(feature = "postgres")]
    return connect_read_only(target);
    #[cfg(not(feature = "postgres"))]
    Err(FleetError::Schema {
        message: "this build of fsm-fleet has no PostgreSQL support (its `postgres` feature)".to_owned(),
    })
}

/// Open the fleet in the SQLite file at `path` read-only: nothing this
/// connection does can change it, and it never creates the file.
///
/// # Errors
///
/// [`FleetError::Database`] when the file does not exist or cannot be opened;
/// [`FleetError::Schema`] when it is not a fleet's database (not SQLite, or
/// without the fleet's tables) or holds a schema from a newer version.
pub fn open_read_only(path: impl AsRef<Path>) -> Result<Reader, FleetError> {
    let path = path.as_ref();
    let name = format!("`{}`", path.display());
    // SQLite's own message would be `unable to open database file`.
    if let Err(error) = std::fs::metadata(path) {
        return Err(FleetError::Database(DatabaseError::from(
            rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
                Some(format!("cannot open {name}: {error}")),
            ),
        )));
    }
    let conn = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(DatabaseError::from)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(DatabaseError::from)?;
    let not_a_fleet = |why: &str| FleetError::Schema {
        message: format!("{name} is not a fleet database: {why}"),
    };
    let has_meta = conn.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'fsm_fleet_meta'",
        [],
        |row| row.get::<_, i64>(0),
    );
    match has_meta {
        Ok(0) => return Err(not_a_fleet("it has no `fsm_fleet_meta` table")),
        Ok(_) => {}
        Err(rusqlite::Error::SqliteFailure(error, _)) if error.code == rusqlite::ErrorCode::NotADatabase => {
            return Err(not_a_fleet("it is not an SQLite database"));
        }
        Err(error) => return Err(DatabaseError::from(error).into()),
    }
    let mut reader = Reader {
        db: Backend::Sqlite(conn),
    };
    reader.check_schema(&name)?;
    Ok(reader)
}

/// Connect to the fleet in the PostgreSQL database `params` names (a URL or
/// `key=value` pairs, as [`Fleet::connect`](crate::Fleet::connect) takes),
/// in read-only transactions: nothing this connection does can change it.
///
/// # Errors
///
/// [`FleetError::Schema`] when `params` does not parse, or the database has
/// no fleet or one of a newer schema; a database error when the server
/// cannot be reached.
#[cfg(feature = "postgres")]
pub fn connect_read_only(params: &str) -> Result<Reader, FleetError> {
    let config: postgres::Config = params.parse().map_err(|error| FleetError::Schema {
        message: format!("the PostgreSQL connection parameters do not parse: {error}"),
    })?;
    let mut conn = crate::db::PgConnection::connect(config)?;
    conn.batch("SET default_transaction_read_only = on")?;
    let has_meta = conn
        .query_one("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'fsm_fleet_meta' AND schemaname = ANY (current_schemas(false))", &[])?
        .int(0)?;
    let name = "the database";
    if has_meta == 0 {
        return Err(FleetError::Schema {
            message: format!("{name} is not a fleet database: it has no `fsm_fleet_meta` table"),
        });
    }
    let mut reader = Reader {
        db: Backend::Postgres(Box::new(conn)),
    };
    reader.check_schema(name)?;
    Ok(reader)
}

impl Reader {
    fn check_schema(&mut self, name: &str) -> Result<(), FleetError> {
        let found = self
            .db
            .query_opt(
                "SELECT value FROM fsm_fleet_meta WHERE key = 'schema_version'",
                &[],
            )?
            .map(|mut row| row.text(0))
            .transpose()?;
        match check_version(found, name)? {
            Some(_) => Ok(()),
            None => Err(FleetError::Schema {
                message: format!(
                    "{name} is not a fleet database: its `fsm_fleet_meta` table has no schema version"
                ),
            }),
        }
    }
}

/// One instance, as [`instances`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceSummary {
    /// Its id.
    pub id: String,
    /// Its machine's name.
    pub machine: String,
    /// Its current state.
    pub state: String,
    /// How many times a worker stepped and saved it (saves, not transitions).
    pub version: i64,
    /// When a worker should next step it; `None` when nothing is due (or it
    /// is parked).
    pub next_wake: Option<Timestamp>,
    /// Why it is parked, when it is.
    pub parked: Option<String>,
}

/// How many instances of one machine are in one state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateCount {
    /// The machine's name.
    pub machine: String,
    /// The state.
    pub state: String,
    /// How many instances are in it.
    pub instances: u64,
    /// How many of those are parked.
    pub parked: u64,
}

/// Up to `limit` instances, by id, of `machine` (any when `None`) in `state`
/// (any when `None`).
///
/// # Errors
///
/// A database error.
pub fn instances(
    reader: &mut Reader,
    machine: Option<&str>,
    state: Option<&str>,
    limit: usize,
) -> Result<Vec<InstanceSummary>, FleetError> {
    let rows = reader.db.query(
        "SELECT id, machine, state, version, next_wake, error,
                (SELECT MIN(sent_at) FROM fsm_inbox e WHERE e.instance = i.id AND e.status = 'pending')
         FROM fsm_instances i
         WHERE (CAST(?1 AS TEXT) IS NULL OR machine = ?1) AND (CAST(?2 AS TEXT) IS NULL OR state = ?2)
         ORDER BY id LIMIT ?3",
        params![machine, state, sql_limit(limit)],
    )?;
    Ok(read_rows(rows, summary)?)
}

/// An [`InstanceSummary`] from a row of `id, machine, state, version,
/// next_wake, error` and the time of the oldest pending event.
fn summary(row: &mut Row) -> Result<InstanceSummary, DatabaseError> {
    Ok(InstanceSummary {
        id: row.text(0)?,
        machine: row.text(1)?,
        state: row.text(2)?,
        version: row.int(3)?,
        next_wake: wake(row.opt_int(4)?, row.opt_int(6)?),
        parked: row.opt_text(5)?,
    })
}

/// When a worker should next step an instance: its earliest deadline, or
/// the time its oldest pending event was sent, whichever is first.
fn wake(deadline: Option<i64>, first_event: Option<i64>) -> Option<Timestamp> {
    match (deadline, first_event) {
        (Some(a), Some(b)) => Some(timestamp(a.min(b))),
        (a, b) => a.or(b).map(timestamp),
    }
}

/// Each row read by `read`.
fn read_rows<T>(
    rows: Vec<Row>,
    read: impl FnMut(&mut Row) -> Result<T, DatabaseError>,
) -> Result<Vec<T>, DatabaseError> {
    let mut read = read;
    rows.into_iter().map(|mut row| read(&mut row)).collect()
}

/// How many instances each machine has in each state, by machine then
/// state.
///
/// # Errors
///
/// A database error.
pub fn counts(reader: &mut Reader) -> Result<Vec<StateCount>, FleetError> {
    counts_of(reader, None, None)
}

/// [`counts`] of `machine`'s instances (any when `None`) in `state` (any
/// when `None`): the totals behind [`instances`] with the same filters.
///
/// # Errors
///
/// A database error.
pub fn counts_of(
    reader: &mut Reader,
    machine: Option<&str>,
    state: Option<&str>,
) -> Result<Vec<StateCount>, FleetError> {
    let rows = reader.db.query(
        "SELECT machine, state, COUNT(*), COUNT(error) FROM fsm_instances
         WHERE (CAST(?1 AS TEXT) IS NULL OR machine = ?1) AND (CAST(?2 AS TEXT) IS NULL OR state = ?2)
         GROUP BY machine, state ORDER BY machine, state",
        params![machine, state],
    )?;
    Ok(read_rows(rows, |row| {
        Ok(StateCount {
            machine: row.text(0)?,
            state: row.text(1)?,
            instances: count(row.int(2)?),
            parked: count(row.int(3)?),
        })
    })?)
}

/// One instance in full, as [`instance`] reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceDetail {
    /// Its id.
    pub id: String,
    /// Its machine's name.
    pub machine: String,
    /// The fingerprint of the definition it was saved by.
    pub fingerprint: String,
    /// Its current state, as its row records it.
    pub state: String,
    /// How many times a worker stepped and saved it (saves, not transitions).
    pub version: i64,
    /// When a worker should next step it; `None` when nothing is due.
    pub next_wake: Option<Timestamp>,
    /// Why it is parked, when it is.
    pub parked: Option<String>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When its row last changed.
    pub updated_at: Timestamp,
    /// Its snapshot, read; or why it does not read (a parked instance's may
    /// not).
    pub snapshot: Result<SnapshotDetail, String>,
    /// Its inbox, counted by status.
    pub inbox: InboxCounts,
    /// Its pending events, oldest first, at most [`DETAIL_LIMIT`] (or the
    /// limit given to [`instance_with_limit`]).
    pub pending_events: Vec<InboxEvent>,
    /// Its dead events (not events of its machine), oldest first, as many.
    pub dead_events: Vec<InboxEvent>,
    /// Its runaway events (taken, then its machine ran away), oldest first,
    /// as many, each with the error.
    pub runaway_events: Vec<InboxEvent>,
    /// Its outbox, counted by status.
    pub outbox: OutboxCounts,
    /// Its pending outputs, in order, as many.
    pub pending_outputs: Vec<OutboxOutput>,
    /// Its dead outputs (out of attempts), in order, as many.
    pub dead_outputs: Vec<OutboxOutput>,
}

/// What an instance's snapshot holds (see `docs/json.md`, "Snapshots").
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotDetail {
    /// The current state; empty for a machine with parallel states in
    /// several leaves (see `configuration`).
    pub state: String,
    /// For a machine with parallel states, the active leaves in document
    /// order (the snapshot's `configuration`); `None` for the others.
    pub configuration: Option<Vec<String>>,
    /// The context, for a machine with one.
    pub context: Option<serde_json::Value>,
    /// The armed timers, innermost state first.
    pub timers: Vec<TimerDetail>,
    /// The history memory of a machine with nested states, as `(composite,
    /// leaves)` names: one leaf, or several when parallel states were
    /// inside the composite.
    pub last_active: Vec<(String, Vec<String>)>,
    /// The recent history it keeps, oldest first.
    pub history: Vec<HistoryDetail>,
}

/// An armed timer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerDetail {
    /// The state whose `after` it is.
    pub state: String,
    /// Its index among that state's timers.
    pub timer: u32,
    /// Its deadline.
    pub due: Timestamp,
}

/// A transition the instance took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryDetail {
    /// Its sequence number.
    pub seq: u64,
    /// When.
    pub at: Timestamp,
    /// The state it left.
    pub from: String,
    /// The action (or timer) that fired.
    pub action: String,
    /// The state it entered.
    pub to: String,
}

/// An instance's inbox by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InboxCounts {
    /// Waiting for a worker.
    pub pending: u64,
    /// Taken by the machine.
    pub done: u64,
    /// Refused by the machine.
    pub rejected: u64,
    /// Taken by the machine, whose `always` and `done` transitions then ran
    /// away (`FireError::Runaway`): it moved and its outputs were kept.
    pub runaway: u64,
    /// Not events of the machine.
    pub dead: u64,
}

/// An event in an inbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboxEvent {
    /// Its place in the inbox (the order events are taken in).
    pub seq: i64,
    /// Its deduplication key.
    pub dedup_key: String,
    /// The event, as JSON.
    pub event: String,
    /// When it was sent.
    pub sent_at: Timestamp,
    /// Why it is dead, for a dead one; the runaway error, for a runaway one.
    pub error: Option<String>,
}

/// An instance's outbox by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutboxCounts {
    /// Waiting for a handler, or being performed.
    pub pending: u64,
    /// Performed.
    pub done: u64,
    /// Out of attempts.
    pub dead: u64,
}

/// An output in an outbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxOutput {
    /// `instance/step/index`: its idempotency key.
    pub key: String,
    /// The output's name.
    pub output: String,
    /// How many attempts failed.
    pub attempts: u32,
    /// When it may next be attempted.
    pub next_attempt: Timestamp,
    /// Until when a handler holds it, if one does (or did).
    pub leased_until: Option<Timestamp>,
    /// The last attempt's error.
    pub error: Option<String>,
}

/// Instance `id` in full, with at most [`DETAIL_LIMIT`] events and outputs
/// of each kind; `None` when there is none.
///
/// # Errors
///
/// A database error.
pub fn instance(reader: &mut Reader, id: &str) -> Result<Option<InstanceDetail>, FleetError> {
    instance_with_limit(reader, id, DETAIL_LIMIT)
}

/// [`instance`], listing at most `limit` events and outputs of each kind.
///
/// # Errors
///
/// A database error.
pub fn instance_with_limit(
    reader: &mut Reader,
    id: &str,
    limit: usize,
) -> Result<Option<InstanceDetail>, FleetError> {
    let db = &mut reader.db;
    let row = db.query_opt(
        "SELECT id, machine, fingerprint, state, snapshot, version, next_wake, error, created_at, updated_at,
                (SELECT MIN(sent_at) FROM fsm_inbox e WHERE e.instance = i.id AND e.status = 'pending')
         FROM fsm_instances i WHERE id = ?1",
        params![id],
    )?;
    let Some(mut row) = row else {
        return Ok(None);
    };
    let mut detail = InstanceDetail {
        id: row.text(0)?,
        machine: row.text(1)?,
        fingerprint: row.text(2)?,
        state: row.text(3)?,
        version: row.int(5)?,
        next_wake: wake(row.opt_int(6)?, row.opt_int(10)?),
        parked: row.opt_text(7)?,
        created_at: timestamp(row.int(8)?),
        updated_at: timestamp(row.int(9)?),
        snapshot: Err(String::new()),
        inbox: InboxCounts::default(),
        pending_events: Vec::new(),
        dead_events: Vec::new(),
        runaway_events: Vec::new(),
        outbox: OutboxCounts::default(),
        pending_outputs: Vec::new(),
        dead_outputs: Vec::new(),
    };
    detail.snapshot = snapshot_detail(&row.text(4)?);
    drop(row);

    let rows = db.query(
        "SELECT status, COUNT(*) FROM fsm_inbox WHERE instance = ?1 GROUP BY status",
        params![id],
    )?;
    for mut row in rows {
        let n = count(row.int(1)?);
        match row.text(0)?.as_str() {
            // Held for a parked instance: waiting as pending ones do.
            "pending" | "held" => detail.inbox.pending += n,
            "done" => detail.inbox.done = n,
            "rejected" => detail.inbox.rejected = n,
            "runaway" => detail.inbox.runaway = n,
            "dead" => detail.inbox.dead = n,
            _ => {}
        }
    }
    detail.pending_events = events(db, id, "pending", limit)?;
    if detail.pending_events.is_empty() {
        detail.pending_events = events(db, id, "held", limit)?;
    }
    detail.dead_events = events(db, id, "dead", limit)?;
    detail.runaway_events = events(db, id, "runaway", limit)?;

    let rows = db.query(
        "SELECT status, COUNT(*) FROM fsm_outbox WHERE instance = ?1 GROUP BY status",
        params![id],
    )?;
    for mut row in rows {
        let n = count(row.int(1)?);
        match row.text(0)?.as_str() {
            "pending" => detail.outbox.pending = n,
            "done" => detail.outbox.done = n,
            "dead" => detail.outbox.dead = n,
            _ => {}
        }
    }
    detail.pending_outputs = outputs(db, id, "pending", limit)?;
    detail.dead_outputs = outputs(db, id, "dead", limit)?;
    Ok(Some(detail))
}

/// The snapshot's contents, or why it does not read.
fn snapshot_detail(json: &str) -> Result<SnapshotDetail, String> {
    let snapshot: Snapshot = serde_json::from_str(json).map_err(|e| e.to_string())?;
    Ok(SnapshotDetail {
        state: snapshot.current_state().to_owned(),
        configuration: snapshot
            .configuration()
            .map(|leaves| leaves.iter().map(|leaf| leaf.to_string()).collect()),
        context: snapshot.context().cloned(),
        timers: snapshot
            .timers()
            .iter()
            .map(|armed| TimerDetail {
                state: armed.state().to_owned(),
                timer: armed.timer(),
                due: armed.due(),
            })
            .collect(),
        last_active: snapshot
            .last_leaves()
            .map(|(state, leaves)| {
                (
                    state.to_owned(),
                    leaves.iter().map(|leaf| leaf.to_string()).collect(),
                )
            })
            .collect(),
        history: snapshot
            .history()
            .iter()
            .map(|entry| HistoryDetail {
                seq: entry.seq(),
                at: entry.at(),
                from: entry.from().to_owned(),
                action: entry.action().to_owned(),
                to: entry.to().to_owned(),
            })
            .collect(),
    })
}

fn events(db: &mut Backend, id: &str, status: &str, limit: usize) -> Result<Vec<InboxEvent>, DatabaseError> {
    let rows = db.query(
        "SELECT seq, dedup_key, event, sent_at, error FROM fsm_inbox
         WHERE instance = ?1 AND status = ?2 ORDER BY seq LIMIT ?3",
        params![id, status, sql_limit(limit)],
    )?;
    read_rows(rows, |row| {
        Ok(InboxEvent {
            seq: row.int(0)?,
            dedup_key: row.text(1)?,
            event: row.text(2)?,
            sent_at: timestamp(row.int(3)?),
            error: row.opt_text(4)?,
        })
    })
}

fn outputs(
    db: &mut Backend,
    id: &str,
    status: &str,
    limit: usize,
) -> Result<Vec<OutboxOutput>, DatabaseError> {
    let rows = db.query(
        "SELECT key, output, attempts, next_attempt, leased_until, error FROM fsm_outbox
         WHERE instance = ?1 AND status = ?2 ORDER BY step, idx LIMIT ?3",
        params![id, status, sql_limit(limit)],
    )?;
    read_rows(rows, |row| {
        Ok(OutboxOutput {
            key: row.text(0)?,
            output: row.text(1)?,
            attempts: u32::try_from(row.int(2)?).unwrap_or(u32::MAX),
            next_attempt: timestamp(row.int(3)?),
            leased_until: row.opt_int(4)?.map(timestamp),
            error: row.opt_text(5)?,
        })
    })
}

/// What is due in a fleet at a moment, as [`due`] counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DueCounts {
    /// Instances a worker would step now: a deadline has passed, or events
    /// wait for them.
    pub instances_due: u64,
    /// Instances with a deadline still to come, and no event waiting.
    pub instances_waiting: u64,
    /// The earliest next wake still to come.
    pub next_wake: Option<Timestamp>,
    /// Parked instances: no worker steps them until they are fixed.
    pub parked: u64,
    /// Events waiting in inboxes (a parked instance's included).
    pub events_pending: u64,
    /// Dead events: not events of their machine.
    pub events_dead: u64,
    /// Pending outputs whose next attempt has come and that no handler
    /// holds, including those that wait behind an earlier output of their
    /// instance (handlers take one per instance at a time, in order).
    pub outputs_due: u64,
    /// Pending outputs a handler holds now.
    pub outputs_leased: u64,
    /// Pending outputs waiting for their next attempt, after a failure.
    pub outputs_waiting: u64,
    /// Dead outputs: out of attempts.
    pub outputs_dead: u64,
}

/// What is due at `now` (usually [`Timestamp::now`]) in the whole fleet.
///
/// # Errors
///
/// A database error.
pub fn due(reader: &mut Reader, now: Timestamp) -> Result<DueCounts, FleetError> {
    let db = &mut reader.db;
    let now = i64::try_from(now.unix_millis()).unwrap_or(i64::MAX);
    let mut row = db.query_one(
        "SELECT COUNT(*) FILTER (WHERE next_wake <= ?1), COUNT(*) FILTER (WHERE next_wake > ?1),
                MIN(next_wake) FILTER (WHERE next_wake > ?1)
         FROM fsm_instances WHERE next_wake IS NOT NULL",
        params![now],
    )?;
    let (timers_due, timers_waiting, next_wake) = (
        count(row.int(0)?),
        count(row.int(1)?),
        row.opt_int(2)?.map(timestamp),
    );
    // Due for a pending event: those with no deadline passed are due too,
    // and those with a deadline to come are not waiting.
    let mut row = db.query_one(
        "SELECT COUNT(*) FILTER (WHERE next_wake IS NULL OR next_wake > ?1),
                COUNT(*) FILTER (WHERE next_wake > ?1)
         FROM fsm_instances
         WHERE error IS NULL
           AND id IN (SELECT instance FROM fsm_inbox WHERE status = 'pending' AND sent_at <= ?1)",
        params![now],
    )?;
    let instances_due = timers_due + count(row.int(0)?);
    let instances_waiting = timers_waiting - count(row.int(1)?).min(timers_waiting);
    // The earliest deadline of the instances still waiting: one that is due
    // for an event is not, whatever its deadline.
    let next_wake = if instances_waiting == 0 {
        None
    } else if instances_waiting == timers_waiting {
        next_wake
    } else {
        db.query_one(
            "SELECT MIN(next_wake) FROM fsm_instances
             WHERE next_wake > ?1
               AND NOT (error IS NULL
                        AND id IN (SELECT instance FROM fsm_inbox WHERE status = 'pending' AND sent_at <= ?1))",
            params![now],
        )?
        .opt_int(0)?
        .map(timestamp)
    };
    let mut total = |sql: &str| -> Result<u64, DatabaseError> { Ok(count(db.query_one(sql, &[])?.int(0)?)) };
    let parked = total("SELECT COUNT(*) FROM fsm_instances WHERE error IS NOT NULL")?;
    let events_pending = total("SELECT COUNT(*) FROM fsm_inbox WHERE status IN ('pending', 'held')")?;
    let events_dead = total("SELECT COUNT(*) FROM fsm_inbox WHERE status = 'dead'")?;
    let outputs_dead = total("SELECT COUNT(*) FROM fsm_outbox WHERE status = 'dead'")?;
    let mut row = db.query_one(
        "SELECT COUNT(*) FILTER (WHERE (leased_until IS NULL OR leased_until <= ?1) AND next_attempt <= ?1),
                COUNT(*) FILTER (WHERE leased_until > ?1),
                COUNT(*) FILTER (WHERE (leased_until IS NULL OR leased_until <= ?1) AND next_attempt > ?1)
         FROM fsm_outbox WHERE status = 'pending'",
        params![now],
    )?;
    let (outputs_due, outputs_leased, outputs_waiting) =
        (count(row.int(0)?), count(row.int(1)?), count(row.int(2)?));
    Ok(DueCounts {
        instances_due,
        instances_waiting,
        next_wake,
        parked,
        events_pending,
        events_dead,
        outputs_due,
        outputs_leased,
        outputs_waiting,
        outputs_dead,
    })
}

/// How many instances of one machine are in one state, as [`tallies`]
/// counts them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The machine's name.
    pub machine: String,
    /// The state, as the fleet keeps it: a leaf's name, or with parallel
    /// states the active leaves separated by `, `.
    pub state: String,
    /// How many instances are in it.
    pub instances: u64,
    /// How many of those are parked.
    pub parked: u64,
    /// How many of those a worker would step now: a deadline has passed, or
    /// an event waits for them (as [`DueCounts::instances_due`]).
    pub due: u64,
    /// How many of those have a dead event or a dead output.
    pub dead: u64,
}

/// How many instances of one machine were saved by one definition of it,
/// as [`tallies`] counts them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefinitionCount {
    /// The machine's name.
    pub machine: String,
    /// The fingerprint of the definition that saved them.
    pub fingerprint: String,
    /// How many instances.
    pub instances: u64,
}

/// What [`tallies`] counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tallies {
    /// Every (machine, state) some instance is in, by machine then state; at
    /// most [`TALLY_LIMIT`].
    pub states: Vec<Tally>,
    /// Every (machine, definition) some instance was saved by, by machine
    /// then fingerprint; at most [`TALLY_LIMIT`].
    pub definitions: Vec<DefinitionCount>,
    /// Whether there were more (machine, state) or (machine, definition)
    /// pairs than [`TALLY_LIMIT`].
    pub truncated: bool,
}

/// The most (machine, state) pairs, and (machine, definition) pairs,
/// [`tallies`] reads.
pub const TALLY_LIMIT: usize = 100_000;

/// How many instances each machine has in each state at `now`, and how
/// many of them are parked, due and dead; and how many each definition of
/// each machine saved.
///
/// Every count is read from an index: the machines' states and their
/// definitions from the indexes of each (a scan of one entry per instance,
/// not of the rows and their snapshots), the parked ones from the index of
/// parked instances, the due ones from the index of deadlines (those
/// passed only) and the pending events, the dead ones from the dead events
/// and outputs. So a fleet of a million instances is counted in a fraction
/// of a second, and its cost does not follow the events it ever had. (A
/// database of schema version 4 or older lacks the indexes of parked
/// instances and of definitions until a [`Fleet`](crate::Fleet) opens it;
/// until then it is counted by reading every row.)
///
/// # Errors
///
/// A database error.
pub fn tallies(reader: &mut Reader, now: Timestamp) -> Result<Tallies, FleetError> {
    let db = &mut reader.db;
    let now = i64::try_from(now.unix_millis()).unwrap_or(i64::MAX);
    let pairs = |row: &mut Row| -> Result<(String, String, u64), DatabaseError> {
        Ok((row.text(0)?, row.text(1)?, count(row.int(2)?)))
    };
    let rows = db.query(
        "SELECT machine, state, COUNT(*) FROM fsm_instances
         GROUP BY machine, state ORDER BY machine, state LIMIT ?1",
        params![sql_limit(TALLY_LIMIT + 1)],
    )?;
    let mut states: Vec<Tally> = read_rows(rows, pairs)?
        .into_iter()
        .map(|(machine, state, instances)| Tally {
            machine,
            state,
            instances,
            parked: 0,
            due: 0,
            dead: 0,
        })
        .collect();
    let rows = db.query(
        "SELECT machine, fingerprint, COUNT(*) FROM fsm_instances
         GROUP BY machine, fingerprint ORDER BY machine, fingerprint LIMIT ?1",
        params![sql_limit(TALLY_LIMIT + 1)],
    )?;
    let mut definitions: Vec<DefinitionCount> = read_rows(rows, pairs)?
        .into_iter()
        .map(|(machine, fingerprint, instances)| DefinitionCount {
            machine,
            fingerprint,
            instances,
        })
        .collect();
    let truncated = states.len() > TALLY_LIMIT || definitions.len() > TALLY_LIMIT;
    states.truncate(TALLY_LIMIT);
    // In this program's order, whatever the database's collation: the
    // counts below are found in it by binary search.
    states.sort_by(|a, b| (&a.machine, &a.state).cmp(&(&b.machine, &b.state)));
    definitions.sort_by(|a, b| (&a.machine, &a.fingerprint).cmp(&(&b.machine, &b.fingerprint)));
    definitions.truncate(TALLY_LIMIT);
    let parked = db.query(
        "SELECT machine, state, COUNT(*) FROM fsm_instances WHERE error IS NOT NULL GROUP BY machine, state",
        &[],
    )?;
    add(&mut states, read_rows(parked, pairs)?, |t| &mut t.parked);
    // Due for a deadline, machine by machine (the index of deadlines starts
    // with the machine); then due for an event, not counted already.
    let machines: BTreeSet<String> = states.iter().map(|t| t.machine.clone()).collect();
    for machine in &machines {
        let rows = db.query(
            "SELECT machine, state, COUNT(*) FROM fsm_instances
             WHERE machine = ?1 AND next_wake <= ?2 AND error IS NULL GROUP BY machine, state",
            params![machine.as_str(), now],
        )?;
        add(&mut states, read_rows(rows, pairs)?, |t| &mut t.due);
    }
    let due_for_events = db.query(
        "SELECT machine, state, COUNT(*) FROM fsm_instances
         WHERE error IS NULL AND (next_wake IS NULL OR next_wake > ?1)
           AND id IN (SELECT instance FROM fsm_inbox WHERE status = 'pending' AND sent_at <= ?1)
         GROUP BY machine, state",
        params![now],
    )?;
    add(&mut states, read_rows(due_for_events, pairs)?, |t| &mut t.due);
    // A dead event or output is consumed or settled when it dies, which
    // puts it in the index of those.
    let dead = db.query(
        "SELECT machine, state, COUNT(*) FROM fsm_instances
         WHERE id IN (SELECT instance FROM fsm_inbox WHERE status = 'dead' AND consumed_at IS NOT NULL
                      UNION SELECT instance FROM fsm_outbox WHERE status = 'dead' AND settled_at IS NOT NULL)
         GROUP BY machine, state",
        &[],
    )?;
    add(&mut states, read_rows(dead, pairs)?, |t| &mut t.dead);
    Ok(Tallies {
        states,
        definitions,
        truncated,
    })
}

/// Add each (machine, state, n) of `rows` to the count `field` picks of
/// that state's tally; a state counted in no tally (past the limit) is
/// left out.
fn add(states: &mut [Tally], rows: Vec<(String, String, u64)>, field: fn(&mut Tally) -> &mut u64) {
    for (machine, state, n) in rows {
        if let Some(tally) = find_tally(states, &machine, &state) {
            *field(tally) += n;
        }
    }
}

fn find_tally<'a>(tallies: &'a mut [Tally], machine: &str, state: &str) -> Option<&'a mut Tally> {
    let at = tallies
        .binary_search_by(|t| (t.machine.as_str(), t.state.as_str()).cmp(&(machine, state)))
        .ok()?;
    Some(&mut tallies[at])
}

/// A number that changes whenever another connection commits a change to an
/// SQLite fleet (its `PRAGMA data_version`), so that a reader can tell, for
/// the price of one pragma, whether counting again would find anything new.
/// `None` for PostgreSQL, which has no such number: count again on a timer.
///
/// # Errors
///
/// A database error.
pub fn change_counter(reader: &mut Reader) -> Result<Option<i64>, FleetError> {
    if !matches!(reader.db, Backend::Sqlite(_)) {
        return Ok(None);
    }
    Ok(Some(reader.db.query_one("PRAGMA data_version", &[])?.int(0)?))
}

/// Up to `limit` instances of `machine` whose state is one of `states`
/// (each as the fleet keeps it: see [`Tally::state`]), by id, after `after`
/// when given: a page of a long list, each page read through the index of
/// machines and states, however many instances there are.
///
/// # Errors
///
/// A database error.
pub fn instances_in(
    reader: &mut Reader,
    machine: &str,
    states: &[&str],
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<InstanceSummary>, FleetError> {
    let mut found: Vec<InstanceSummary> = Vec::new();
    for state in states {
        let rows = reader.db.query(
            "SELECT id, machine, state, version, next_wake, error,
                    (SELECT MIN(sent_at) FROM fsm_inbox e WHERE e.instance = i.id AND e.status = 'pending')
             FROM fsm_instances i
             WHERE machine = ?1 AND state = ?2 AND (CAST(?3 AS TEXT) IS NULL OR id > ?3)
             ORDER BY id LIMIT ?4",
            params![machine, *state, after, sql_limit(limit)],
        )?;
        found.extend(read_rows(rows, summary)?);
    }
    found.sort_by(|a, b| a.id.cmp(&b.id));
    found.truncate(limit);
    Ok(found)
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_of_several_leaves_keeps_every_one() {
        let json = r#"{"type": "fsm", "machine": "Player", "fingerprint": "0000000000000000",
            "configuration": ["playing", "muted"],
            "last_active": {"loaded": ["paused", "muted"], "playback": "paused"}}"#;
        let detail = snapshot_detail(json).unwrap();
        assert_eq!(detail.state, "");
        assert_eq!(
            detail.configuration,
            Some(vec!["playing".to_owned(), "muted".to_owned()])
        );
        assert_eq!(
            detail.last_active,
            [
                ("loaded".to_owned(), vec!["paused".to_owned(), "muted".to_owned()]),
                ("playback".to_owned(), vec!["paused".to_owned()]),
            ]
        );
    }

    #[test]
    fn a_snapshot_of_one_state_has_no_configuration() {
        let json = r#"{"type": "fsm", "machine": "Order", "fingerprint": "0000000000000000",
            "current_state": "paid", "last_active": {"open": "paid"}}"#;
        let detail = snapshot_detail(json).unwrap();
        assert_eq!(detail.state, "paid");
        assert_eq!(detail.configuration, None);
        assert_eq!(detail.last_active, [("open".to_owned(), vec!["paid".to_owned()])]);
    }
}
