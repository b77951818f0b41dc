//! [`PgStore`]: instances in one PostgreSQL table, for applications whose
//! instances are shared by processes on many machines.

use super::{Store, StoreError, Version};
use fsm_runtime::Snapshot;
use postgres::error::SqlState;
use postgres::types::{Json, Type};
use postgres::{Client, Config, NoTls, Statement};
use std::fmt;
use std::sync::{Mutex, MutexGuard};

/// A [`Store`] that keeps every instance as one row of a PostgreSQL table
/// (feature `postgres`).
///
/// The table is created if it does not exist:
///
/// ```sql
/// CREATE TABLE fsm_instances (
///     id         text        PRIMARY KEY,
///     version    bigint      NOT NULL CHECK (version > 0),
///     snapshot   jsonb       NOT NULL,
///     updated_at timestamptz NOT NULL DEFAULT now()
/// );
/// ```
///
/// A table that already exists is used if its columns have these names and
/// types, and refused with [`PgSetupError::IncompatibleTable`] otherwise.
///
/// Every save is one statement, so the compare-and-swap is atomic for any
/// number of processes on any number of machines: the first save of an
/// instance is an `INSERT … ON CONFLICT DO NOTHING`, every later one an
/// `UPDATE … WHERE id = $1 AND version = $2`. When no row matches, the save
/// fails with [`StoreError::Conflict`] carrying the version stored at that
/// moment. A save is durable once it returns, as durable as the server's
/// commits are (`synchronous_commit`).
///
/// A [`StoreError::Backend`] from [`save`](Store::save) (the connection broke,
/// the server went away) does not tell whether the save was committed: load
/// again before deciding what to save. A store made by [`connect`](Self::connect)
/// reconnects on its next call after its connection closed; one made from a
/// client by [`new`](Self::new) cannot, and keeps failing.
///
/// `postgres::Client` needs exclusive access, so the store serializes the
/// calls of its threads on one connection. Give threads that save a lot their
/// own store.
///
/// ```no_run
/// use fsm_store::{PgStore, Store};
/// use fsm_runtime::Snapshot;
///
/// let store = PgStore::connect("host=/var/run/postgresql user=app dbname=app")?;
/// let snapshot = Snapshot::new("Door", "0123456789abcdef", "closed");
/// let version = store.save("door-1", 0, &snapshot)?;
/// assert_eq!(store.load("door-1")?, Some((version, snapshot)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PgStore {
    table: Table,
    /// How to reconnect when the connection closed; `None` for a store made
    /// from a client.
    config: Option<Config>,
    session: Mutex<Session>,
}

impl PgStore {
    /// The table [`connect`](Self::connect) and [`new`](Self::new) use.
    pub const DEFAULT_TABLE: &'static str = "fsm_instances";

    /// Connects, without TLS, to the server that `params` names, and uses
    /// table [`DEFAULT_TABLE`](Self::DEFAULT_TABLE), creating it if missing.
    ///
    /// `params` is a libpq-style connection string, as key-value pairs
    /// (`host=/var/run/postgresql user=app dbname=app`) or as a URL
    /// (`postgresql://app@db.example.com/app`). For TLS, connect a client
    /// yourself and pass it to [`new`](Self::new).
    pub fn connect(params: &str) -> Result<PgStore, PgSetupError> {
        PgStore::connect_with_table(params, PgStore::DEFAULT_TABLE)
    }

    /// [`connect`](Self::connect), with the instances in `table`: a name, or
    /// a schema and a name (`fsm.instances`), each an ASCII letter or `_`
    /// followed by up to 62 ASCII letters, digits or `_`. Names are used as
    /// given (quoted), so `Instances` and `instances` are different tables.
    pub fn connect_with_table(params: &str, table: &str) -> Result<PgStore, PgSetupError> {
        let table = Table::parse(table)?;
        let config: Config = params.parse().map_err(|error| PgSetupError::Connect {
            message: describe(&error),
        })?;
        let client = config.connect(NoTls).map_err(|error| PgSetupError::Connect {
            message: describe(&error),
        })?;
        PgStore::open(client, table, Some(config))
    }

    /// Uses an open client (for example one connected with TLS) and table
    /// [`DEFAULT_TABLE`](Self::DEFAULT_TABLE), creating it if missing.
    pub fn new(client: Client) -> Result<PgStore, PgSetupError> {
        PgStore::with_table(client, PgStore::DEFAULT_TABLE)
    }

    /// [`new`](Self::new), with the instances in `table` (named as for
    /// [`connect_with_table`](Self::connect_with_table)).
    pub fn with_table(client: Client, table: &str) -> Result<PgStore, PgSetupError> {
        PgStore::open(client, Table::parse(table)?, None)
    }

    /// The table holding the instances, as given.
    pub fn table(&self) -> &str {
        &self.table.name
    }

    fn open(mut client: Client, table: Table, config: Option<Config>) -> Result<PgStore, PgSetupError> {
        create_table_if_missing(&mut client, &table)?;
        let session = Session::prepare(client, &table)?;
        Ok(PgStore {
            table,
            config,
            session: Mutex::new(session),
        })
    }

    /// The session, reconnected first if its connection closed and the store
    /// knows how to reconnect.
    fn session(&self, id: &str) -> Result<MutexGuard<'_, Session>, StoreError> {
        // A thread that panicked while holding the lock leaves nothing half
        // done: every call is one statement, committed or not by the server.
        let mut session = self
            .session
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if session.lost || session.client.is_closed() {
            if let Some(config) = &self.config {
                let reconnect = config
                    .connect(NoTls)
                    .map_err(|error| describe(&error))
                    .and_then(|client| {
                        Session::prepare(client, &self.table).map_err(|error| error.to_string())
                    });
                *session = reconnect.map_err(|message| StoreError::Backend {
                    id: id.to_owned(),
                    message: format!("the connection closed and reconnecting failed: {message}"),
                })?;
            }
        }
        Ok(session)
    }

    /// The version stored for `id` now, `0` if there is none: what a
    /// conflict reports. A statement of its own, so that it sees what the
    /// winning writer committed.
    fn current_version(&self, session: &mut Session, id: &str) -> Result<Version, StoreError> {
        let row = session
            .client
            .query_opt(&session.current, &[&id])
            .map_err(|error| session.fail(id, &error))?;
        match row {
            None => Ok(0),
            Some(row) => self.version_in(id, row.try_get(0).map_err(|error| backend(id, &error))?),
        }
    }

    /// A stored version as a [`Version`], or why it cannot be one.
    fn version_in(&self, id: &str, stored: Option<i64>) -> Result<Version, StoreError> {
        match stored {
            Some(version) if version > 0 => Ok(version.unsigned_abs()),
            Some(version) => Err(self.corrupt(id, format!("its version is {version}, not positive"))),
            None => Err(self.corrupt(id, "its version is NULL".to_owned())),
        }
    }

    fn corrupt(&self, id: &str, reason: String) -> StoreError {
        StoreError::Corrupt {
            id: id.to_owned(),
            location: format!("PostgreSQL table `{}`, row with id {id:?}", self.table.name),
            reason,
        }
    }
}

impl Store for PgStore {
    fn load(&self, id: &str) -> Result<Option<(Version, Snapshot)>, StoreError> {
        check_id(id)?;
        let mut session = self.session(id)?;
        let session = &mut *session;
        let Some(row) = session
            .client
            .query_opt(&session.load, &[&id])
            .map_err(|error| session.fail(id, &error))?
        else {
            return Ok(None);
        };
        let version = self.version_in(id, row.try_get(0).map_err(|error| backend(id, &error))?)?;
        // A `jsonb` column holds no duplicate keys: PostgreSQL keeps one
        // value per key when it stores a document, so unlike `FileStore` this
        // reader has none to refuse.
        let json: Option<serde_json::Value> = row.try_get(1).map_err(|error| backend(id, &error))?;
        let json = json.ok_or_else(|| self.corrupt(id, "its snapshot is NULL".to_owned()))?;
        let snapshot = serde_json::from_value(json)
            .map_err(|error| self.corrupt(id, format!("its snapshot is not an fsm snapshot: {error}")))?;
        Ok(Some((version, snapshot)))
    }

    fn save(&self, id: &str, expected: Version, snapshot: &Snapshot) -> Result<Version, StoreError> {
        check_id(id)?;
        let mut session = self.session(id)?;
        let session = &mut *session;
        let conflict = |current| StoreError::Conflict {
            id: id.to_owned(),
            expected,
            current,
        };
        if expected == 0 {
            let inserted = session
                .client
                .execute(&session.insert, &[&id, &Json(snapshot)])
                .map_err(|error| session.fail(id, &error))?;
            return if inserted == 1 {
                Ok(1)
            } else {
                Err(conflict(self.current_version(session, id)?))
            };
        }
        // A version beyond `bigint` cannot be stored, so it never matches.
        if let Ok(expected) = i64::try_from(expected) {
            let updated = session
                .client
                .query_opt(&session.update, &[&id, &expected, &Json(snapshot)])
                .map_err(|error| session.fail(id, &error))?;
            if let Some(row) = updated {
                let version: i64 = row.try_get(0).map_err(|error| backend(id, &error))?;
                return Ok(version.unsigned_abs());
            }
        }
        Err(conflict(self.current_version(session, id)?))
    }
}

impl fmt::Debug for PgStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgStore")
            .field("table", &self.table.name)
            .field("reconnects", &self.config.is_some())
            .finish_non_exhaustive()
    }
}

/// Why a [`PgStore`] could not be set up.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PgSetupError {
    /// The table name cannot be used.
    InvalidTable {
        /// The name as given.
        table: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The connection string is invalid, or connecting failed.
    Connect {
        /// The client's or the server's message.
        message: String,
    },
    /// Checking for the table, creating it, or preparing the store's
    /// statements on it failed.
    Setup {
        /// The table.
        table: String,
        /// The server's message.
        message: String,
    },
    /// The table exists but is not shaped as the store needs (see
    /// [`PgStore`]).
    IncompatibleTable {
        /// The table.
        table: String,
        /// What differs.
        reason: String,
    },
}

impl fmt::Display for PgSetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgSetupError::InvalidTable { table, reason } => {
                write!(f, "invalid table name {table:?}: {reason}")
            }
            PgSetupError::Connect { message } => {
                write!(f, "could not connect to PostgreSQL: {message}")
            }
            PgSetupError::Setup { table, message } => {
                write!(f, "could not set up PostgreSQL table `{table}`: {message}")
            }
            PgSetupError::IncompatibleTable { table, reason } => write!(
                f,
                "PostgreSQL table `{table}` cannot hold fsm instances: {reason}; the store needs \
                 columns `id text`, `version bigint`, `snapshot jsonb` and `updated_at \
                 timestamptz`, with `id` the primary key"
            ),
        }
    }
}

impl std::error::Error for PgSetupError {}

/// A validated table name and its quoted SQL form.
struct Table {
    name: String,
    quoted: String,
}

impl Table {
    /// PostgreSQL truncates longer identifiers, silently.
    const MAX_PART_LEN: usize = 63;

    fn parse(name: &str) -> Result<Table, PgSetupError> {
        let invalid = |reason: String| PgSetupError::InvalidTable {
            table: name.to_owned(),
            reason,
        };
        let parts: Vec<&str> = name.split('.').collect();
        if parts.len() > 2 {
            return Err(invalid(
                "expected a name or `schema.name`, found more than one `.`".to_owned(),
            ));
        }
        for part in &parts {
            let mut chars = part.chars();
            match chars.next() {
                None => return Err(invalid("a name is empty".to_owned())),
                Some(first) if !(first.is_ascii_alphabetic() || first == '_') => {
                    return Err(invalid(format!(
                        "`{part}` must start with an ASCII letter or `_`"
                    )))
                }
                Some(_) => {}
            }
            if let Some(bad) = chars.find(|c| !(c.is_ascii_alphanumeric() || *c == '_')) {
                return Err(invalid(format!(
                    "`{part}` contains {bad:?}; use ASCII letters, digits and `_`"
                )));
            }
            if part.len() > Table::MAX_PART_LEN {
                return Err(invalid(format!(
                    "`{part}` is {} bytes long; PostgreSQL names have at most {}",
                    part.len(),
                    Table::MAX_PART_LEN
                )));
            }
        }
        let quoted = parts
            .iter()
            .map(|part| format!("\"{part}\""))
            .collect::<Vec<_>>()
            .join(".");
        Ok(Table {
            name: name.to_owned(),
            quoted,
        })
    }
}

/// A connection and the store's statements, prepared on it.
struct Session {
    client: Client,
    load: Statement,
    current: Statement,
    insert: Statement,
    update: Statement,
    /// A call failed in a way that leaves the connection unusable. The
    /// client may not know yet (`is_closed` turns true only once its
    /// connection task has seen the socket close), so the store keeps
    /// track itself and reconnects on the next call.
    lost: bool,
}

impl Session {
    /// Checks the table's shape and prepares the statements.
    fn prepare(mut client: Client, table: &Table) -> Result<Session, PgSetupError> {
        let t = &table.quoted;
        let columns = client
            .prepare(&format!(
                "SELECT id, version, snapshot, updated_at FROM {t} WHERE false"
            ))
            .map_err(|error| incompatible(table, &error))?;
        for (column, expected) in
            columns
                .columns()
                .iter()
                .zip([Type::TEXT, Type::INT8, Type::JSONB, Type::TIMESTAMPTZ])
        {
            if *column.type_() != expected {
                return Err(PgSetupError::IncompatibleTable {
                    table: table.name.clone(),
                    reason: format!(
                        "column `{}` has type {}, not {expected}",
                        column.name(),
                        column.type_()
                    ),
                });
            }
        }
        // Planning, which `EXPLAIN` does and preparing does not, refuses
        // `ON CONFLICT (id)` unless a unique index on `id` can arbitrate.
        client
            .batch_execute(&format!(
                "EXPLAIN INSERT INTO {t} (id, version, snapshot) VALUES ('', 1, 'null') \
                 ON CONFLICT (id) DO NOTHING"
            ))
            .map_err(|error| incompatible(table, &error))?;
        let mut prepare = |sql: String| client.prepare(&sql).map_err(|error| incompatible(table, &error));
        let load = prepare(format!("SELECT version, snapshot FROM {t} WHERE id = $1"))?;
        let current = prepare(format!("SELECT version FROM {t} WHERE id = $1"))?;
        let insert = prepare(format!(
            "INSERT INTO {t} (id, version, snapshot) VALUES ($1, 1, $2) ON CONFLICT (id) DO NOTHING"
        ))?;
        let update = prepare(format!(
            "UPDATE {t} SET version = version + 1, snapshot = $3, updated_at = now() \
             WHERE id = $1 AND version = $2 RETURNING version"
        ))?;
        Ok(Session {
            client,
            load,
            current,
            insert,
            update,
            lost: false,
        })
    }

    /// `error`, from a call on this session's client, as the store reports
    /// it; marks the session lost unless the server answered the statement
    /// with an ordinary error, after which the connection is still good.
    fn fail(&mut self, id: &str, error: &postgres::Error) -> StoreError {
        let answered = error
            .as_db_error()
            .is_some_and(|db| !matches!(db.severity(), "FATAL" | "PANIC"));
        if error.is_closed() || !answered {
            self.lost = true;
        }
        backend(id, error)
    }
}

/// Creates the table unless it exists. Checking first lets a role without
/// `CREATE` on the schema use a table made for it; the advisory lock keeps
/// two processes starting at once from both creating it (`IF NOT EXISTS`
/// alone can fail on the catalog's unique index).
fn create_table_if_missing(client: &mut Client, table: &Table) -> Result<(), PgSetupError> {
    /// Any constant works; this one spells "fsm-tbl" in ASCII.
    const CREATE_LOCK: i64 = 0x0066_736d_2d74_626c;
    let setup = |error: postgres::Error| PgSetupError::Setup {
        table: table.name.clone(),
        message: describe(&error),
    };
    let exists = |client: &mut Client| -> Result<bool, postgres::Error> {
        client
            .query_one("SELECT to_regclass($1) IS NOT NULL", &[&table.quoted])?
            .try_get(0)
    };
    if exists(client).map_err(setup)? {
        return Ok(());
    }
    let mut transaction = client.transaction().map_err(setup)?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&CREATE_LOCK])
        .map_err(setup)?;
    transaction
        .batch_execute(&format!(
            "CREATE TABLE IF NOT EXISTS {} (
                id         text        PRIMARY KEY,
                version    bigint      NOT NULL CHECK (version > 0),
                snapshot   jsonb       NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now()
            )",
            table.quoted
        ))
        .map_err(setup)?;
    transaction.commit().map_err(setup)
}

/// PostgreSQL `text` holds any string but one with NUL characters; an empty
/// id is refused as by every store.
fn check_id(id: &str) -> Result<(), StoreError> {
    let reason = if id.is_empty() {
        "the id is empty"
    } else if id.contains('\0') {
        "PostgreSQL text cannot hold NUL characters"
    } else {
        return Ok(());
    };
    Err(StoreError::InvalidId {
        id: id.to_owned(),
        reason: reason.to_owned(),
    })
}

fn backend(id: &str, error: &postgres::Error) -> StoreError {
    StoreError::Backend {
        id: id.to_owned(),
        message: describe(error),
    }
}

fn incompatible(table: &Table, error: &postgres::Error) -> PgSetupError {
    match error.as_db_error() {
        // Syntax and access rule violations (class 42: a missing column, no
        // unique index for `ON CONFLICT`) say the table has the wrong shape;
        // others (a missing privilege, a broken connection) are failures to
        // set up.
        Some(db) if db.code().code().starts_with("42") && *db.code() != SqlState::INSUFFICIENT_PRIVILEGE => {
            PgSetupError::IncompatibleTable {
                table: table.name.clone(),
                reason: describe(error),
            }
        }
        _ => PgSetupError::Setup {
            table: table.name.clone(),
            message: describe(error),
        },
    }
}

/// One line about a client or server error: the server's severity, SQLSTATE,
/// message, detail and hint, or the client's error and its causes.
fn describe(error: &postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        let mut text = format!("{} {}: {}", db.severity(), db.code().code(), db.message());
        if let Some(detail) = db.detail() {
            text.push_str(&format!("; detail: {detail}"));
        }
        if let Some(hint) = db.hint() {
            text.push_str(&format!("; hint: {hint}"));
        }
        return text;
    }
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(source) = cause {
        text.push_str(&format!(": {source}"));
        cause = source.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{check_id, PgSetupError, Table};
    use crate::StoreError;

    fn table_error(name: &str) -> String {
        match Table::parse(name) {
            Ok(table) => panic!("{name:?} was accepted as {}", table.quoted),
            Err(PgSetupError::InvalidTable { table, reason }) => {
                assert_eq!(table, name);
                reason
            }
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }

    #[test]
    fn table_names_are_quoted_as_given() {
        assert_eq!(
            Table::parse("fsm_instances").unwrap().quoted,
            r#""fsm_instances""#
        );
        assert_eq!(
            Table::parse("Fsm.Instances_2").unwrap().quoted,
            r#""Fsm"."Instances_2""#
        );
        assert_eq!(Table::parse("_x").unwrap().quoted, r#""_x""#);
        let longest = "a".repeat(63);
        assert_eq!(Table::parse(&longest).unwrap().name, longest);
    }

    #[test]
    fn bad_table_names_say_what_is_wrong() {
        assert_eq!(table_error(""), "a name is empty");
        assert_eq!(table_error("fsm."), "a name is empty");
        assert_eq!(table_error(".t"), "a name is empty");
        assert_eq!(
            table_error("a.b.c"),
            "expected a name or `schema.name`, found more than one `.`"
        );
        assert_eq!(table_error("1st"), "`1st` must start with an ASCII letter or `_`");
        assert_eq!(
            table_error("fsm; DROP TABLE x"),
            "`fsm; DROP TABLE x` contains ';'; use ASCII letters, digits and `_`"
        );
        assert_eq!(
            table_error("t\"x"),
            "`t\"x` contains '\"'; use ASCII letters, digits and `_`"
        );
        assert_eq!(
            table_error("état"),
            "`état` must start with an ASCII letter or `_`"
        );
        assert_eq!(
            table_error(&"a".repeat(64)),
            format!(
                "`{}` is 64 bytes long; PostgreSQL names have at most 63",
                "a".repeat(64)
            )
        );
    }

    #[test]
    fn invalid_table_error_names_the_table() {
        let error = Table::parse("a b").err().unwrap();
        assert_eq!(
            error.to_string(),
            "invalid table name \"a b\": `a b` contains ' '; use ASCII letters, digits and `_`"
        );
    }

    #[test]
    fn ids_that_text_cannot_hold_are_refused() {
        assert!(check_id("door-1").is_ok());
        assert!(check_id("any text: ünïcode, spaces/slashes").is_ok());
        for (id, reason) in [
            ("", "the id is empty"),
            ("a\0b", "PostgreSQL text cannot hold NUL characters"),
        ] {
            match check_id(id) {
                Err(StoreError::InvalidId {
                    id: found,
                    reason: why,
                }) => {
                    assert_eq!((found.as_str(), why.as_str()), (id, reason));
                }
                other => panic!("{id:?}: {other:?}"),
            }
        }
    }
}
