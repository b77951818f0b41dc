//! The fleet's tables, created and migrated by [`migrate`]; the version is
//! kept in `fsm_fleet_meta`. SQLite's and PostgreSQL's are the same tables,
//! column for column, in each one's types.
//!
//! - `fsm_instances`: one row per instance: its machine, fingerprint,
//!   current state, snapshot (JSON), version, next wake (Unix milliseconds:
//!   the earliest armed deadline; `NULL` when no timer is armed) and, for an
//!   instance a worker cannot step, the error that parked it.
//! - `fsm_inbox`: the events sent to each instance, in order (`seq`), each
//!   with its instance's machine, its deduplication key (unique per
//!   instance) and its status: `pending`, `held` (waiting for its parked
//!   instance), `done`, `rejected` (the machine refused it), `runaway` (the
//!   machine took it and moved, its outputs in the outbox, but its `always`
//!   and `done` transitions ran away: `error` says how) or `dead` (it is
//!   not an event of the machine). An instance with a `pending` event is due:
//!   a sender writes only the event, never the instance's row, so it never
//!   waits for a worker stepping that instance. Rows are kept after they are
//!   consumed, so a late repeat of a key is still recognized, until
//!   [`Fleet::prune`](crate::Fleet::prune) deletes them; `consumed_at` is
//!   when the step that consumed it was done.
//! - `fsm_outbox`: every output of every step, keyed `instance/step/index`,
//!   with its status (`pending`, `done`, `dead`), attempts, the time of its
//!   next attempt, its lease (until when, and the claim's number), its last
//!   error and, since version 3, `settled_at`: when it was done, or dead.
//!
//! A worker claims the instances whose deadline passed through
//! `fsm_instances_due`, one machine at a time, in deadline order (see
//! [`MIGRATE_V4_SQLITE`]).

use crate::db::{self, params, Db, Dialect};
use crate::error::FleetError;

/// The schema this build writes and reads.
pub const SCHEMA_VERSION: i64 = 5;

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

/// Version 1, in SQLite: `STRICT` tables, so a value of the wrong type is
/// refused rather than kept. A new database is created at version 1 and
/// migrated, so that every database runs the same migrations.
const CREATE_V1_SQLITE: &str = "
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

/// Version 1, in PostgreSQL: every integer a `BIGINT`, as SQLite's are.
#[cfg(feature = "postgres")]
const CREATE_V1_POSTGRES: &str = "
CREATE TABLE fsm_instances (
    id          TEXT PRIMARY KEY,
    machine     TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state       TEXT NOT NULL,
    snapshot    TEXT NOT NULL,
    version     BIGINT NOT NULL,
    next_wake   BIGINT,
    error       TEXT,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX fsm_instances_due ON fsm_instances (machine, next_wake) WHERE next_wake IS NOT NULL;
CREATE INDEX fsm_instances_machine_state ON fsm_instances (machine, state);

CREATE TABLE fsm_inbox (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    instance    TEXT NOT NULL,
    dedup_key   TEXT NOT NULL,
    event       TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending',
    error       TEXT,
    sent_at     BIGINT NOT NULL,
    consumed_at BIGINT,
    UNIQUE (instance, dedup_key)
);
CREATE INDEX fsm_inbox_pending ON fsm_inbox (instance, seq) WHERE status = 'pending';

CREATE TABLE fsm_outbox (
    key          TEXT PRIMARY KEY,
    instance     TEXT NOT NULL,
    step         BIGINT NOT NULL,
    idx          BIGINT NOT NULL,
    output       TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending',
    attempts     BIGINT NOT NULL DEFAULT 0,
    next_attempt BIGINT NOT NULL,
    leased_until BIGINT,
    lease        BIGINT NOT NULL DEFAULT 0,
    error        TEXT,
    created_at   BIGINT NOT NULL
);
CREATE INDEX fsm_outbox_pending ON fsm_outbox (next_attempt) WHERE status = 'pending';
CREATE INDEX fsm_outbox_instance_pending ON fsm_outbox (instance, step, idx) WHERE status = 'pending';
";

/// Version 1 to 2, in SQLite: the inbox knows each event's machine, and
/// its pending events are what makes an instance due for them; a parked
/// instance's events are `held`. Workers claim the oldest pending events of
/// their machines through `fsm_inbox_due`, and the earliest deadlines
/// through `fsm_instances_wake`, read in order (PostgreSQL's planner, whose
/// statistics lag a table whose deadlines come and go, otherwise reads
/// every due row of the worker's machines from `fsm_instances_due` and
/// sorts them at each claim), or `fsm_instances_due` (SQLite's choice).
/// (An index of pending events by `seq` alone would serve a worker of
/// several machines better, but PostgreSQL's planner then reads it for
/// queries by instance too, every pending event each time.)
const MIGRATE_V2_SQLITE: &str = "
ALTER TABLE fsm_inbox ADD COLUMN machine TEXT NOT NULL DEFAULT '';
UPDATE fsm_inbox SET machine = COALESCE((SELECT machine FROM fsm_instances i WHERE i.id = fsm_inbox.instance), '');
UPDATE fsm_inbox SET status = 'held'
WHERE status = 'pending' AND instance IN (SELECT id FROM fsm_instances WHERE error IS NOT NULL);
CREATE INDEX fsm_inbox_due ON fsm_inbox (machine, seq) WHERE status = 'pending';
CREATE INDEX fsm_instances_wake ON fsm_instances (next_wake) WHERE next_wake IS NOT NULL;
";

/// Version 1 to 2, in PostgreSQL: as [`MIGRATE_V2_SQLITE`].
#[cfg(feature = "postgres")]
const MIGRATE_V2_POSTGRES: &str = "
ALTER TABLE fsm_inbox ADD COLUMN machine TEXT NOT NULL DEFAULT '';
UPDATE fsm_inbox e SET machine = i.machine FROM fsm_instances i WHERE i.id = e.instance;
UPDATE fsm_inbox SET status = 'held'
WHERE status = 'pending' AND instance IN (SELECT id FROM fsm_instances WHERE error IS NOT NULL);
CREATE INDEX fsm_inbox_due ON fsm_inbox (machine, seq) WHERE status = 'pending';
CREATE INDEX fsm_instances_wake ON fsm_instances (next_wake) WHERE next_wake IS NOT NULL;
";

/// Version 2 to 3, in SQLite: what [`Fleet::prune`](crate::Fleet::prune)
/// deletes, it finds through an index, never by reading a whole table at
/// each batch:
/// - the outbox knows when each output was settled (`settled_at`, set by
///   `output_done` and by the failure that makes it `dead`; rows settled
///   before version 3 count as settled when they were created, the nearest
///   time their row holds), and `fsm_outbox_settled` finds the oldest done
///   or dead ones; `fsm_outbox_instance` finds an instance's outputs (the
///   key's prefix is not an index range under every collation);
/// - `fsm_inbox_consumed` finds the oldest consumed events (pending and held
///   ones, whose `consumed_at` is `NULL`, are not in it, so a send costs
///   nothing more); an instance's events are found through its unique key;
/// - `fsm_instances_machine_state` ends with the id, so that the instances
///   in a terminal state are read once per prune, a page at a time in id
///   order, however many of them are kept. (`id` never changes: the index
///   is written when the state changes, as before.)
const MIGRATE_V3_SQLITE: &str = "
ALTER TABLE fsm_outbox ADD COLUMN settled_at INTEGER;
UPDATE fsm_outbox SET settled_at = created_at WHERE status <> 'pending';
CREATE INDEX fsm_outbox_settled ON fsm_outbox (status, settled_at) WHERE settled_at IS NOT NULL;
CREATE INDEX fsm_outbox_instance ON fsm_outbox (instance);
CREATE INDEX fsm_inbox_consumed ON fsm_inbox (status, consumed_at) WHERE consumed_at IS NOT NULL;
DROP INDEX fsm_instances_machine_state;
CREATE INDEX fsm_instances_machine_state ON fsm_instances (machine, state, id);
";

/// Version 2 to 3, in PostgreSQL: as [`MIGRATE_V3_SQLITE`].
#[cfg(feature = "postgres")]
const MIGRATE_V3_POSTGRES: &str = "
ALTER TABLE fsm_outbox ADD COLUMN settled_at BIGINT;
UPDATE fsm_outbox SET settled_at = created_at WHERE status <> 'pending';
CREATE INDEX fsm_outbox_settled ON fsm_outbox (status, settled_at) WHERE settled_at IS NOT NULL;
CREATE INDEX fsm_outbox_instance ON fsm_outbox (instance);
CREATE INDEX fsm_inbox_consumed ON fsm_inbox (status, consumed_at) WHERE consumed_at IS NOT NULL;
DROP INDEX fsm_instances_machine_state;
CREATE INDEX fsm_instances_machine_state ON fsm_instances (machine, state, id);
";

/// Version 3 to 4, in SQLite: `fsm_instances_due` ends with the id, and
/// `fsm_instances_wake`, the index of deadlines alone, is dropped. A worker
/// claims the due instances of each of its machines on its own (`machine =
/// ?`), in the order of `fsm_instances_due (machine, next_wake, id)`: the
/// scan starts past the worker's lower bound of that machine's `(next_wake,
/// id)` and stops after the batch, without a sort, whatever the planner's
/// statistics say. The id makes each entry's key its own, so that a bound
/// falls between the many instances of a burst due at the same millisecond
/// (and PostgreSQL keeps no list of rows under one key, which its scans
/// could mark dead only as a whole). The index of deadlines alone was
/// then one more index that every step wrote, and one more plan for
/// PostgreSQL's planner to guess between (on a table without statistics
/// it read and sorted every due row).
const MIGRATE_V4_SQLITE: &str = "
DROP INDEX fsm_instances_wake;
DROP INDEX fsm_instances_due;
CREATE INDEX fsm_instances_due ON fsm_instances (machine, next_wake, id) WHERE next_wake IS NOT NULL;
";

/// Version 3 to 4, in PostgreSQL: as [`MIGRATE_V4_SQLITE`].
#[cfg(feature = "postgres")]
const MIGRATE_V4_POSTGRES: &str = "
DROP INDEX fsm_instances_wake;
DROP INDEX fsm_instances_due;
CREATE INDEX fsm_instances_due ON fsm_instances (machine, next_wake, id) WHERE next_wake IS NOT NULL;
";

/// Version 4 to 5, in SQLite: `fsm_instances_parked`, the parked instances
/// by machine and state (only they are in it: a step writes it only when it
/// parks an instance or one is fixed), and `fsm_instances_definition`, the
/// instances by machine and the fingerprint of the definition that saved
/// them (written when an instance is created or deleted; a step keeps its
/// fingerprint). With them and `fsm_instances_machine_state`,
/// [`inspect::tallies`](crate::inspect::tallies) counts a fleet by state,
/// parked and definition from indexes alone, never reading the rows and
/// their snapshots.
const MIGRATE_V5_SQLITE: &str = "
CREATE INDEX fsm_instances_parked ON fsm_instances (machine, state) WHERE error IS NOT NULL;
CREATE INDEX fsm_instances_definition ON fsm_instances (machine, fingerprint);
";

/// Version 4 to 5, in PostgreSQL: as [`MIGRATE_V5_SQLITE`].
#[cfg(feature = "postgres")]
const MIGRATE_V5_POSTGRES: &str = MIGRATE_V5_SQLITE;

/// The schema version a database holds: `None` when it has no fleet yet.
///
/// # Errors
///
/// [`FleetError::Schema`] when the version is not a number fsm-fleet wrote,
/// or is newer than [`SCHEMA_VERSION`].
pub(crate) fn check_version(text: Option<String>, name: &str) -> Result<Option<i64>, FleetError> {
    let Some(text) = text else {
        return Ok(None);
    };
    match text.parse::<i64>() {
        Ok(version) if version > SCHEMA_VERSION => Err(FleetError::Schema {
            message: format!(
                "{name} has schema version {version}, written by a newer fsm-fleet; this build \
                 reads version {SCHEMA_VERSION}: upgrade it"
            ),
        }),
        Ok(version) if version >= 1 => Ok(Some(version)),
        _ => Err(FleetError::Schema {
            message: format!(
                "{name} is not a fleet database: its schema version `{text}` is not one fsm-fleet writes"
            ),
        }),
    }
}

/// Create the tables, or check that those there are of a version this build
/// reads. Runs in one transaction (in PostgreSQL, under an advisory lock),
/// so two processes opening a new database at once create them once.
pub(crate) fn migrate(db: &mut impl Db, name: &str) -> Result<(), FleetError> {
    db::transaction(db, |tx| {
        let (meta, create, to_v2, to_v3, to_v4, to_v5) = match tx.dialect() {
            Dialect::Sqlite => (
                "CREATE TABLE IF NOT EXISTS fsm_fleet_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT",
                CREATE_V1_SQLITE,
                MIGRATE_V2_SQLITE,
                MIGRATE_V3_SQLITE,
                MIGRATE_V4_SQLITE,
                MIGRATE_V5_SQLITE,
            ),
            #[cfg(feature = "postgres")]
            Dialect::Postgres => {
                // DDL is transactional in PostgreSQL, but two `CREATE TABLE
                // IF NOT EXISTS` at once can still both try: one waits here.
                tx.batch("SELECT pg_advisory_xact_lock(7415989313441546551)")?;
                (
                    "CREATE TABLE IF NOT EXISTS fsm_fleet_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                    CREATE_V1_POSTGRES,
                    MIGRATE_V2_POSTGRES,
                    MIGRATE_V3_POSTGRES,
                    MIGRATE_V4_POSTGRES,
                    MIGRATE_V5_POSTGRES,
                )
            }
        };
        tx.batch(meta)?;
        let found = tx
            .query_opt(
                "SELECT value FROM fsm_fleet_meta WHERE key = 'schema_version'",
                &[],
            )?
            .map(|mut row| row.text(0))
            .transpose()?;
        let mut version = match check_version(found, name)? {
            Some(version) => version,
            None => {
                tx.batch(create)?;
                tx.execute(
                    "INSERT INTO fsm_fleet_meta (key, value) VALUES ('schema_version', '1')",
                    &[],
                )?;
                1
            }
        };
        if version == 1 {
            tx.batch(to_v2)?;
            version = 2;
        }
        if version == 2 {
            tx.batch(to_v3)?;
            version = 3;
        }
        if version == 3 {
            tx.batch(to_v4)?;
            version = 4;
        }
        if version == 4 {
            tx.batch(to_v5)?;
            version = 5;
        }
        tx.execute(
            "UPDATE fsm_fleet_meta SET value = ?1 WHERE key = 'schema_version'",
            params![version.to_string().as_str()],
        )?;
        Ok(())
    })
}
