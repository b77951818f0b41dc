//! The fleet's tables, created and migrated by [`migrate`]; the version is
//! kept in `fsm_fleet_meta`.
//!
//! - `fsm_instances`: one row per instance: its machine, fingerprint,
//!   current state, snapshot (JSON), version, next wake (Unix milliseconds:
//!   the earliest armed deadline, or the time an event was sent; `NULL` when
//!   nothing is due) and, for an instance a worker cannot step, the error
//!   that parked it.
//! - `fsm_inbox`: the events sent to each instance, in order (`seq`), each
//!   with its deduplication key (unique per instance) and its status:
//!   `pending`, `done`, `rejected` (the machine refused it) or `dead` (it is
//!   not an event of the machine). Rows are kept after they are consumed, so
//!   a late repeat of a key is still recognized; `consumed_at` is when the
//!   step that consumed it was done.
//! - `fsm_outbox`: every output of every step, keyed `instance/step/index`,
//!   with its status (`pending`, `done`, `dead`), attempts, the time of its
//!   next attempt, its lease (until when, and the claim's number) and its
//!   last error.

use crate::error::FleetError;
use rusqlite::{Connection, OptionalExtension};

/// The schema this build writes and reads.
pub const SCHEMA_VERSION: i64 = 1;

/// Now, as the tables keep times: Unix milliseconds.
pub(crate) fn now_millis() -> i64 {
    millis(fsm_runtime::Timestamp::now())
}

/// `at` as the tables keep times.
pub(crate) fn millis(at: fsm_runtime::Timestamp) -> i64 {
    // At most 9999-12-31: far below `i64::MAX`.
    i64::try_from(at.unix_millis()).unwrap_or(i64::MAX)
}

/// A time read from the tables; one out of range (a row edited by hand) is
/// the latest there is.
pub(crate) fn timestamp(millis: i64) -> fsm_runtime::Timestamp {
    u64::try_from(millis)
        .ok()
        .and_then(fsm_runtime::Timestamp::from_unix_millis)
        .unwrap_or(fsm_runtime::Timestamp::MAX)
}

const CREATE_V1: &str = "
CREATE TABLE fsm_instances (
    id          TEXT PRIMARY KEY NOT NULL,
    machine     TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state       TEXT NOT NULL,
    snapshot    TEXT NOT NULL,
    version     INTEGER NOT NULL,
    next_wake   INTEGER,
    error       TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
-- Claiming due work reads this index, never the whole table: a worker asks
-- for the due instances of its machines, a range of next wakes per machine.
CREATE INDEX fsm_instances_due ON fsm_instances (machine, next_wake) WHERE next_wake IS NOT NULL;
CREATE INDEX fsm_instances_machine_state ON fsm_instances (machine, state);

CREATE TABLE fsm_inbox (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    instance    TEXT NOT NULL,
    dedup_key   TEXT NOT NULL,
    event       TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending',
    error       TEXT,
    sent_at     INTEGER NOT NULL,
    consumed_at INTEGER,
    UNIQUE (instance, dedup_key)
) STRICT;
CREATE INDEX fsm_inbox_pending ON fsm_inbox (instance, seq) WHERE status = 'pending';

CREATE TABLE fsm_outbox (
    key          TEXT PRIMARY KEY NOT NULL,
    instance     TEXT NOT NULL,
    step         INTEGER NOT NULL,
    idx          INTEGER NOT NULL,
    output       TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending',
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_attempt INTEGER NOT NULL,
    leased_until INTEGER,
    lease        INTEGER NOT NULL DEFAULT 0,
    error        TEXT,
    created_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX fsm_outbox_pending ON fsm_outbox (next_attempt) WHERE status = 'pending';
-- An instance's earliest pending output, read for every claim: pending rows
-- only, so the done ones piling up cost nothing.
CREATE INDEX fsm_outbox_instance_pending ON fsm_outbox (instance, step, idx) WHERE status = 'pending';
";

/// Create the tables, or check that those there are of a version this build
/// reads. Runs in one transaction, so two processes opening a new file at
/// once create them once.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), FleetError> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute_batch("CREATE TABLE IF NOT EXISTS fsm_fleet_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT;")?;
    let found: Option<String> = tx
        .query_row(
            "SELECT value FROM fsm_fleet_meta WHERE key = 'schema_version'",
            [],
            |row| row.get(0),
        )
        .optional()?;
    match found {
        None => {
            tx.execute_batch(CREATE_V1)?;
            tx.execute(
                "INSERT INTO fsm_fleet_meta (key, value) VALUES ('schema_version', ?1)",
                [SCHEMA_VERSION.to_string()],
            )?;
        }
        Some(text) => {
            let found: i64 = text.parse().map_err(|_| FleetError::Schema {
                message: format!("the schema version `{text}` is not a number"),
            })?;
            if found > SCHEMA_VERSION {
                return Err(FleetError::Schema {
                    message: format!(
                        "the database has schema version {found}, written by a newer fsm-fleet; \
                         this build reads version {SCHEMA_VERSION}: upgrade it"
                    ),
                });
            }
            // Version 1 is the first: nothing to migrate from yet.
        }
    }
    tx.commit()?;
    Ok(())
}
