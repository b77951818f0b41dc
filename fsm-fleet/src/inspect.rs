//! Reading a fleet's database without changing it, and without the machines'
//! Rust types: what `fsmc fleet` prints.
//!
//! [`open_read_only`] opens the file read-only and checks that it is a fleet
//! of a schema this build reads; the other functions each run a few queries
//! and return plain structs. Lists are bounded by a limit and totals are
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
//! let conn = inspect::open_read_only(dir.path().join("fleet.db"))?;
//! let listed = inspect::instances(&conn, Some("Order"), None, 10)?;
//! assert_eq!((listed[0].id.as_str(), listed[0].state.as_str()), ("order-17", "placed"));
//! let detail = inspect::instance(&conn, "order-17")?.expect("it exists");
//! assert_eq!(detail.inbox.pending, 1);
//! assert_eq!(inspect::due(&conn, fsm_runtime::Timestamp::now())?.instances_due, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::FleetError;
use crate::schema::{timestamp, SCHEMA_VERSION};
use fsm_runtime::{Snapshot, Timestamp};
use rusqlite::{params, OpenFlags, OptionalExtension};
use std::path::Path;
use std::time::Duration;

/// The connection [`open_read_only`] returns: `rusqlite`'s, named here so
/// that callers need not depend on `rusqlite`.
pub use rusqlite::Connection;

/// How long a read waits for a writer's transaction to finish before failing
/// with [`FleetError::Database`] (`database is locked`).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many events and outputs of each kind [`instance`] lists.
pub const DETAIL_LIMIT: usize = 20;

/// Open the fleet in the SQLite file at `path` read-only: nothing this
/// connection does can change it, and it never creates the file.
///
/// # Errors
///
/// [`FleetError::Database`] when the file does not exist or cannot be opened;
/// [`FleetError::Schema`] when it is not a fleet's database (not SQLite, or
/// without the fleet's tables) or holds a schema from a newer version.
pub fn open_read_only(path: impl AsRef<Path>) -> Result<Connection, FleetError> {
    let path = path.as_ref();
    let name = path.display();
    // SQLite's own message would be `unable to open database file`.
    if let Err(error) = std::fs::metadata(path) {
        return Err(FleetError::Database(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
            Some(format!("cannot open `{name}`: {error}")),
        )));
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let not_a_fleet = |why: &str| FleetError::Schema {
        message: format!("`{name}` is not a fleet database: {why}"),
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
        Err(error) => return Err(error.into()),
    }
    let found: Option<String> = conn
        .query_row(
            "SELECT value FROM fsm_fleet_meta WHERE key = 'schema_version'",
            [],
            |row| row.get(0),
        )
        .optional()?;
    let Some(text) = found else {
        return Err(not_a_fleet("its `fsm_fleet_meta` table has no schema version"));
    };
    match text.parse::<i64>() {
        Ok(version) if version > SCHEMA_VERSION => Err(FleetError::Schema {
            message: format!(
                "`{name}` has schema version {version}, written by a newer fsm-fleet; this build \
                 reads version {SCHEMA_VERSION}: upgrade it"
            ),
        }),
        Ok(version) if version >= 1 => Ok(conn),
        _ => Err(not_a_fleet(&format!(
            "its schema version `{text}` is not one fsm-fleet writes"
        ))),
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
    conn: &Connection,
    machine: Option<&str>,
    state: Option<&str>,
    limit: usize,
) -> Result<Vec<InstanceSummary>, FleetError> {
    let mut select = conn.prepare(
        "SELECT id, machine, state, version, next_wake, error FROM fsm_instances
         WHERE (?1 IS NULL OR machine = ?1) AND (?2 IS NULL OR state = ?2)
         ORDER BY id LIMIT ?3",
    )?;
    let rows = select.query_map(params![machine, state, sql_limit(limit)], |row| {
        Ok(InstanceSummary {
            id: row.get(0)?,
            machine: row.get(1)?,
            state: row.get(2)?,
            version: row.get(3)?,
            next_wake: row.get::<_, Option<i64>>(4)?.map(timestamp),
            parked: row.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// How many instances each machine has in each state, by machine then
/// state.
///
/// # Errors
///
/// A database error.
pub fn counts(conn: &Connection) -> Result<Vec<StateCount>, FleetError> {
    counts_of(conn, None, None)
}

/// [`counts`] of `machine`'s instances (any when `None`) in `state` (any
/// when `None`): the totals behind [`instances`] with the same filters.
///
/// # Errors
///
/// A database error.
pub fn counts_of(
    conn: &Connection,
    machine: Option<&str>,
    state: Option<&str>,
) -> Result<Vec<StateCount>, FleetError> {
    let mut select = conn.prepare(
        "SELECT machine, state, COUNT(*), COUNT(error) FROM fsm_instances
         WHERE (?1 IS NULL OR machine = ?1) AND (?2 IS NULL OR state = ?2)
         GROUP BY machine, state ORDER BY machine, state",
    )?;
    let rows = select.query_map(params![machine, state], |row| {
        Ok(StateCount {
            machine: row.get(0)?,
            state: row.get(1)?,
            instances: count(row.get(2)?),
            parked: count(row.get(3)?),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
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
    /// The current state.
    pub state: String,
    /// The context, for a machine with one.
    pub context: Option<serde_json::Value>,
    /// The armed timers, innermost state first.
    pub timers: Vec<TimerDetail>,
    /// The history memory of a machine with nested states, as `(composite,
    /// leaf)` names.
    pub last_active: Vec<(String, String)>,
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
    /// Why it is dead, for a dead one.
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
pub fn instance(conn: &Connection, id: &str) -> Result<Option<InstanceDetail>, FleetError> {
    instance_with_limit(conn, id, DETAIL_LIMIT)
}

/// [`instance`], listing at most `limit` events and outputs of each kind.
///
/// # Errors
///
/// A database error.
pub fn instance_with_limit(
    conn: &Connection,
    id: &str,
    limit: usize,
) -> Result<Option<InstanceDetail>, FleetError> {
    let row = conn
        .query_row(
            "SELECT id, machine, fingerprint, state, snapshot, version, next_wake, error, created_at, updated_at
             FROM fsm_instances WHERE id = ?1",
            [id],
            |row| {
                Ok((
                    InstanceDetail {
                        id: row.get(0)?,
                        machine: row.get(1)?,
                        fingerprint: row.get(2)?,
                        state: row.get(3)?,
                        version: row.get(5)?,
                        next_wake: row.get::<_, Option<i64>>(6)?.map(timestamp),
                        parked: row.get(7)?,
                        created_at: timestamp(row.get(8)?),
                        updated_at: timestamp(row.get(9)?),
                        snapshot: Err(String::new()),
                        inbox: InboxCounts::default(),
                        pending_events: Vec::new(),
                        dead_events: Vec::new(),
                        outbox: OutboxCounts::default(),
                        pending_outputs: Vec::new(),
                        dead_outputs: Vec::new(),
                    },
                    row.get::<_, String>(4)?,
                ))
            },
        )
        .optional()?;
    let Some((mut detail, snapshot)) = row else {
        return Ok(None);
    };
    detail.snapshot = snapshot_detail(&snapshot);
    drop(snapshot);

    let mut select =
        conn.prepare("SELECT status, COUNT(*) FROM fsm_inbox WHERE instance = ?1 GROUP BY status")?;
    let mut rows = select.query([id])?;
    while let Some(row) = rows.next()? {
        let n = count(row.get(1)?);
        match row.get_ref(0)?.as_str().unwrap_or_default() {
            "pending" => detail.inbox.pending = n,
            "done" => detail.inbox.done = n,
            "rejected" => detail.inbox.rejected = n,
            "dead" => detail.inbox.dead = n,
            _ => {}
        }
    }
    detail.pending_events = events(conn, id, "pending", limit)?;
    detail.dead_events = events(conn, id, "dead", limit)?;

    let mut select =
        conn.prepare("SELECT status, COUNT(*) FROM fsm_outbox WHERE instance = ?1 GROUP BY status")?;
    let mut rows = select.query([id])?;
    while let Some(row) = rows.next()? {
        let n = count(row.get(1)?);
        match row.get_ref(0)?.as_str().unwrap_or_default() {
            "pending" => detail.outbox.pending = n,
            "done" => detail.outbox.done = n,
            "dead" => detail.outbox.dead = n,
            _ => {}
        }
    }
    detail.pending_outputs = outputs(conn, id, "pending", limit)?;
    detail.dead_outputs = outputs(conn, id, "dead", limit)?;
    Ok(Some(detail))
}

/// The snapshot's contents, or why it does not read.
fn snapshot_detail(json: &str) -> Result<SnapshotDetail, String> {
    let snapshot: Snapshot = serde_json::from_str(json).map_err(|e| e.to_string())?;
    Ok(SnapshotDetail {
        state: snapshot.current_state().to_owned(),
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
            .last_active()
            .map(|(state, leaf)| (state.to_owned(), leaf.to_owned()))
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

fn events(conn: &Connection, id: &str, status: &str, limit: usize) -> Result<Vec<InboxEvent>, FleetError> {
    let mut select = conn.prepare(
        "SELECT seq, dedup_key, event, sent_at, error FROM fsm_inbox
         WHERE instance = ?1 AND status = ?2 ORDER BY seq LIMIT ?3",
    )?;
    let rows = select.query_map(params![id, status, sql_limit(limit)], |row| {
        Ok(InboxEvent {
            seq: row.get(0)?,
            dedup_key: row.get(1)?,
            event: row.get(2)?,
            sent_at: timestamp(row.get(3)?),
            error: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn outputs(conn: &Connection, id: &str, status: &str, limit: usize) -> Result<Vec<OutboxOutput>, FleetError> {
    let mut select = conn.prepare(
        "SELECT key, output, attempts, next_attempt, leased_until, error FROM fsm_outbox
         WHERE instance = ?1 AND status = ?2 ORDER BY step, idx LIMIT ?3",
    )?;
    let rows = select.query_map(params![id, status, sql_limit(limit)], |row| {
        Ok(OutboxOutput {
            key: row.get(0)?,
            output: row.get(1)?,
            attempts: row.get(2)?,
            next_attempt: timestamp(row.get(3)?),
            leased_until: row.get::<_, Option<i64>>(4)?.map(timestamp),
            error: row.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What is due in a fleet at a moment, as [`due`] counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DueCounts {
    /// Instances a worker would step now: their next wake has passed.
    pub instances_due: u64,
    /// Instances with a next wake still to come.
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
pub fn due(conn: &Connection, now: Timestamp) -> Result<DueCounts, FleetError> {
    let now = i64::try_from(now.unix_millis()).unwrap_or(i64::MAX);
    let (instances_due, instances_waiting, next_wake) = conn.query_row(
        "SELECT COUNT(*) FILTER (WHERE next_wake <= ?1), COUNT(*) FILTER (WHERE next_wake > ?1),
                MIN(next_wake) FILTER (WHERE next_wake > ?1)
         FROM fsm_instances WHERE next_wake IS NOT NULL",
        [now],
        |row| {
            Ok((
                count(row.get(0)?),
                count(row.get(1)?),
                row.get::<_, Option<i64>>(2)?.map(timestamp),
            ))
        },
    )?;
    let parked = conn.query_row(
        "SELECT COUNT(*) FROM fsm_instances WHERE error IS NOT NULL",
        [],
        |row| row.get(0).map(count),
    )?;
    let events_pending = conn.query_row(
        "SELECT COUNT(*) FROM fsm_inbox WHERE status = 'pending'",
        [],
        |row| row.get(0).map(count),
    )?;
    let events_dead = conn.query_row(
        "SELECT COUNT(*) FROM fsm_inbox WHERE status = 'dead'",
        [],
        |row| row.get(0).map(count),
    )?;
    let (outputs_due, outputs_leased, outputs_waiting) = conn.query_row(
        "SELECT COUNT(*) FILTER (WHERE (leased_until IS NULL OR leased_until <= ?1) AND next_attempt <= ?1),
                COUNT(*) FILTER (WHERE leased_until > ?1),
                COUNT(*) FILTER (WHERE (leased_until IS NULL OR leased_until <= ?1) AND next_attempt > ?1)
         FROM fsm_outbox WHERE status = 'pending'",
        [now],
        |row| Ok((count(row.get(0)?), count(row.get(1)?), count(row.get(2)?))),
    )?;
    let outputs_dead = conn.query_row(
        "SELECT COUNT(*) FROM fsm_outbox WHERE status = 'dead'",
        [],
        |row| row.get(0).map(count),
    )?;
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

fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
