//! The two databases behind one small interface: statements with numbered
//! parameters, rows of integers and text, transactions and savepoints. The
//! fleet's queries are written once, against [`Db`]; where the dialects
//! differ (the schema, `MIN` of two values, row locks) the query asks
//! [`Db::dialect`].
//!
//! Statements are written with SQLite's `?1` parameters; PostgreSQL's
//! connection rewrites them to `$1` and keeps each prepared statement.

use crate::error::FleetError;
use std::fmt;

/// Which database a [`Db`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    #[cfg(feature = "postgres")]
    Postgres,
}

impl Dialect {
    /// What ends a `SELECT` that claims rows: nothing in SQLite, whose
    /// writer holds the whole database; in PostgreSQL, a lock on the rows
    /// of `table` that other claimers skip rather than wait for.
    pub fn claim(self, table: &str) -> String {
        match self {
            Dialect::Sqlite => {
                let _ = table;
                String::new()
            }
            #[cfg(feature = "postgres")]
            Dialect::Postgres => format!(" FOR UPDATE OF {table} SKIP LOCKED"),
        }
    }
}

/// A statement's parameter.
#[derive(Clone, Copy, Debug)]
pub enum Param<'a> {
    Null,
    Int(i64),
    Text(&'a str),
}

impl From<i64> for Param<'_> {
    fn from(n: i64) -> Self {
        Param::Int(n)
    }
}

impl From<u32> for Param<'_> {
    fn from(n: u32) -> Self {
        Param::Int(i64::from(n))
    }
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(s: &'a str) -> Self {
        Param::Text(s)
    }
}

impl<'a> From<&'a String> for Param<'a> {
    fn from(s: &'a String) -> Self {
        Param::Text(s)
    }
}

impl<'a, T: Into<Param<'a>>> From<Option<T>> for Param<'a> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Param::Null, Into::into)
    }
}

/// `[Param]` from a list of values of different types.
macro_rules! params {
    ($($value:expr),* $(,)?) => {
        &[$($crate::db::Param::from($value)),*] as &[$crate::db::Param<'_>]
    };
}
pub(crate) use params;

/// A value read from a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Null,
    Int(i64),
    Text(String),
}

/// A row read: its values, in the order selected.
pub struct Row(Vec<Value>);

impl Row {
    fn take(&mut self, i: usize) -> Value {
        self.0
            .get_mut(i)
            .map_or(Value::Null, |v| std::mem::replace(v, Value::Null))
    }

    /// Column `i` as an integer.
    pub fn int(&mut self, i: usize) -> Result<i64, DatabaseError> {
        self.opt_int(i)?
            .ok_or_else(|| DatabaseError::decode(format!("column {i} is NULL where an integer was expected")))
    }

    /// Column `i` as an integer, or `None` for `NULL`.
    pub fn opt_int(&mut self, i: usize) -> Result<Option<i64>, DatabaseError> {
        match self.take(i) {
            Value::Null => Ok(None),
            Value::Int(n) => Ok(Some(n)),
            Value::Text(text) => Err(DatabaseError::decode(format!(
                "column {i} holds the text `{text}` where an integer was expected"
            ))),
        }
    }

    /// Column `i` as text.
    pub fn text(&mut self, i: usize) -> Result<String, DatabaseError> {
        self.opt_text(i)?
            .ok_or_else(|| DatabaseError::decode(format!("column {i} is NULL where text was expected")))
    }

    /// Column `i` as text, or `None` for `NULL`.
    pub fn opt_text(&mut self, i: usize) -> Result<Option<String>, DatabaseError> {
        match self.take(i) {
            Value::Null => Ok(None),
            Value::Text(text) => Ok(Some(text)),
            Value::Int(n) => Err(DatabaseError::decode(format!(
                "column {i} holds the integer {n} where text was expected"
            ))),
        }
    }
}

/// A database's error, with what the fleet needs to tell apart.
#[derive(Debug)]
pub struct DatabaseError {
    kind: DatabaseErrorKind,
    /// What the database said, with its cause: `postgres` says only `db
    /// error`, and keeps the server's message as the cause.
    message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DatabaseErrorKind {
    /// A unique key already held the value.
    Unique,
    /// The connection was lost: the next call connects again.
    Closed,
    Other,
}

impl DatabaseError {
    fn decode(message: String) -> DatabaseError {
        DatabaseError {
            kind: DatabaseErrorKind::Other,
            message,
        }
    }

    /// Whether a unique key (a primary key) already held the value.
    pub fn is_unique_violation(&self) -> bool {
        self.kind == DatabaseErrorKind::Unique
    }

    /// Whether the connection to the server was lost (the next call
    /// connects again).
    pub fn is_closed(&self) -> bool {
        self.kind == DatabaseErrorKind::Closed
    }
}

impl fmt::Display for DatabaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Its causes are in its message.
impl std::error::Error for DatabaseError {}

impl From<rusqlite::Error> for DatabaseError {
    fn from(error: rusqlite::Error) -> DatabaseError {
        let kind = match error.sqlite_error_code() {
            Some(rusqlite::ErrorCode::ConstraintViolation) => DatabaseErrorKind::Unique,
            _ => DatabaseErrorKind::Other,
        };
        DatabaseError {
            kind,
            message: error.to_string(),
        }
    }
}

#[cfg(feature = "postgres")]
impl From<postgres::Error> for DatabaseError {
    fn from(error: postgres::Error) -> DatabaseError {
        let kind = if error.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) {
            DatabaseErrorKind::Unique
        } else if error.is_closed()
            || error.code().is_some_and(|code| {
                // The server ended this backend (`pg_terminate_backend`, a
                // shutdown): the connection is gone with it.
                code.code().starts_with("57P") || code.code().starts_with("08")
            })
        {
            DatabaseErrorKind::Closed
        } else {
            DatabaseErrorKind::Other
        };
        let message = match std::error::Error::source(&error) {
            Some(cause) => format!("{error}: {cause}"),
            None => error.to_string(),
        };
        DatabaseError { kind, message }
    }
}

impl From<DatabaseError> for FleetError {
    fn from(error: DatabaseError) -> FleetError {
        FleetError::Database(error)
    }
}

/// A connection or transaction of the caller's that [`send`](crate::send)
/// writes through, so that an event is sent exactly when the caller's own
/// writes commit: a `rusqlite` [`Connection`](rusqlite::Connection) or
/// [`Transaction`](rusqlite::Transaction) on the fleet's SQLite file, or,
/// with the `postgres` feature, a `postgres` `Client` or `Transaction` on
/// its database. Sealed: the fleet's statements are written for these.
pub trait Client: Db {}

impl Client for rusqlite::Connection {}
impl Client for rusqlite::Transaction<'_> {}
#[cfg(feature = "postgres")]
impl Client for postgres::Client {}
#[cfg(feature = "postgres")]
impl Client for postgres::Transaction<'_> {}

/// The fleet's own connection: SQLite's, or PostgreSQL's.
pub(crate) enum Backend {
    Sqlite(rusqlite::Connection),
    #[cfg(feature = "postgres")]
    Postgres(Box<PgConnection>),
}

impl Db for Backend {
    fn dialect(&self) -> Dialect {
        match self {
            Backend::Sqlite(conn) => conn.dialect(),
            #[cfg(feature = "postgres")]
            Backend::Postgres(conn) => conn.dialect(),
        }
    }

    fn batch(&mut self, sql: &str) -> Result<(), DatabaseError> {
        match self {
            Backend::Sqlite(conn) => conn.batch(sql),
            #[cfg(feature = "postgres")]
            Backend::Postgres(conn) => conn.batch(sql),
        }
    }

    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DatabaseError> {
        match self {
            Backend::Sqlite(conn) => Db::execute(conn, sql, params),
            #[cfg(feature = "postgres")]
            Backend::Postgres(conn) => conn.execute(sql, params),
        }
    }

    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DatabaseError> {
        match self {
            Backend::Sqlite(conn) => conn.query(sql, params),
            #[cfg(feature = "postgres")]
            Backend::Postgres(conn) => conn.query(sql, params),
        }
    }
}

/// The statements' interface; sealed, its methods hidden.
pub trait Db {
    /// Which database this is.
    #[doc(hidden)]
    fn dialect(&self) -> Dialect;

    /// Run `sql` (no parameters, any number of statements).
    #[doc(hidden)]
    fn batch(&mut self, sql: &str) -> Result<(), DatabaseError>;

    /// Run `sql` with `params`; how many rows it changed.
    #[doc(hidden)]
    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DatabaseError>;

    /// The rows `sql` selects with `params`.
    #[doc(hidden)]
    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DatabaseError>;

    /// The first row `sql` selects, if any.
    #[doc(hidden)]
    fn query_opt(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Option<Row>, DatabaseError> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// The one row `sql` selects (an aggregate).
    #[doc(hidden)]
    fn query_one(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Row, DatabaseError> {
        self.query_opt(sql, params)?
            .ok_or_else(|| DatabaseError::decode(format!("no row from `{sql}`")))
    }
}

/// Run `body` in a transaction on `db`: committed when it returns `Ok`,
/// rolled back when it returns `Err`. SQLite's begins `IMMEDIATE`, taking
/// the write lock first, so that it never has to upgrade a read lock (which
/// fails at once when another process wrote in between).
pub(crate) fn transaction<D: Db + ?Sized, T, E: From<DatabaseError>>(
    db: &mut D,
    body: impl FnOnce(&mut D) -> Result<T, E>,
) -> Result<T, E> {
    db.batch(match db.dialect() {
        Dialect::Sqlite => "BEGIN IMMEDIATE",
        #[cfg(feature = "postgres")]
        Dialect::Postgres => "BEGIN",
    })?;
    match body(db) {
        Ok(value) => {
            db.batch("COMMIT")?;
            Ok(value)
        }
        Err(error) => {
            // The connection may be gone; the error that matters is `error`.
            let _ = db.batch("ROLLBACK");
            Err(error)
        }
    }
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match *self {
            Param::Null => ValueRef::Null,
            Param::Int(n) => ValueRef::Integer(n),
            Param::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

fn sqlite_rows(
    conn: &rusqlite::Connection,
    sql: &str,
    params: &[Param<'_>],
) -> Result<Vec<Row>, DatabaseError> {
    let mut statement = conn.prepare_cached(sql)?;
    let columns = statement.column_count();
    let mut rows = statement.query(rusqlite::params_from_iter(params))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut values = Vec::with_capacity(columns);
        for i in 0..columns {
            values.push(match row.get_ref(i)? {
                rusqlite::types::ValueRef::Null => Value::Null,
                rusqlite::types::ValueRef::Integer(n) => Value::Int(n),
                rusqlite::types::ValueRef::Text(bytes) => Value::Text(
                    std::str::from_utf8(bytes)
                        .map_err(|e| DatabaseError::decode(format!("column {i} is not UTF-8: {e}")))?
                        .to_owned(),
                ),
                other => {
                    return Err(DatabaseError::decode(format!(
                        "column {i} holds a {} where an integer or text was expected",
                        other.data_type()
                    )))
                }
            });
        }
        out.push(Row(values));
    }
    Ok(out)
}

/// A connection or transaction on the fleet's SQLite file (a transaction
/// derefs to its connection).
macro_rules! sqlite_db {
    ($($ty:ty),*) => {$(
        impl Db for $ty {
            fn dialect(&self) -> Dialect {
                Dialect::Sqlite
            }

            fn batch(&mut self, sql: &str) -> Result<(), DatabaseError> {
                Ok(self.execute_batch(sql)?)
            }

            fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DatabaseError> {
                let changed = self
                    .prepare_cached(sql)?
                    .execute(rusqlite::params_from_iter(params))?;
                Ok(changed as u64)
            }

            fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DatabaseError> {
                sqlite_rows(self, sql, params)
            }
        }
    )*};
}

sqlite_db!(rusqlite::Connection, rusqlite::Transaction<'_>);

#[cfg(feature = "postgres")]
pub(crate) use pg::PgConnection;

#[cfg(feature = "postgres")]
mod pg {
    use super::{DatabaseError, Db, Dialect, Param, Row, Value};
    use postgres::types::{IsNull, ToSql, Type};
    use std::collections::HashMap;

    impl ToSql for Param<'_> {
        fn to_sql(
            &self,
            ty: &Type,
            out: &mut postgres::types::private::BytesMut,
        ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
            match *self {
                Param::Null => Ok(IsNull::Yes),
                Param::Int(n) => match *ty {
                    Type::INT8 => n.to_sql(ty, out),
                    Type::INT4 => i32::try_from(n)?.to_sql(ty, out),
                    Type::INT2 => i16::try_from(n)?.to_sql(ty, out),
                    _ => Err(format!("an integer cannot be a parameter of type {ty}").into()),
                },
                Param::Text(s) => s.to_sql(ty, out),
            }
        }

        fn accepts(_: &Type) -> bool {
            true
        }

        postgres::types::to_sql_checked!();
    }

    /// `?1` → `$1`: the fleet's statements are written with SQLite's
    /// parameters. Text in quotes is left alone.
    pub(crate) fn rewrite(sql: &str) -> String {
        let mut out = String::with_capacity(sql.len());
        let mut quoted = false;
        for c in sql.chars() {
            match c {
                '\'' => {
                    quoted = !quoted;
                    out.push(c);
                }
                '?' if !quoted => out.push('$'),
                _ => out.push(c),
            }
        }
        out
    }

    pub(crate) fn pg_params<'a>(params: &'a [Param<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
        params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
    }

    /// The rows as the fleet reads them: integers of any width, text and
    /// booleans (as 0 or 1).
    pub(crate) fn rows(rows: Vec<postgres::Row>) -> Result<Vec<Row>, DatabaseError> {
        rows.into_iter()
            .map(|row| {
                (0..row.len())
                    .map(|i| {
                        let ty = row.columns()[i].type_().clone();
                        let value = match ty {
                            Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map(Value::Int),
                            Type::INT4 => row.try_get::<_, Option<i32>>(i)?.map(|n| Value::Int(n.into())),
                            Type::INT2 => row.try_get::<_, Option<i16>>(i)?.map(|n| Value::Int(n.into())),
                            Type::BOOL => row.try_get::<_, Option<bool>>(i)?.map(|b| Value::Int(b.into())),
                            _ => row.try_get::<_, Option<String>>(i)?.map(Value::Text),
                        };
                        Ok(value.unwrap_or(Value::Null))
                    })
                    .collect::<Result<Vec<_>, DatabaseError>>()
                    .map(Row)
            })
            .collect()
    }

    /// A PostgreSQL connection that keeps its prepared statements and
    /// connects again, before its next transaction, after losing the server.
    pub(crate) struct PgConnection {
        config: postgres::Config,
        client: postgres::Client,
        statements: HashMap<String, postgres::Statement>,
        /// A statement failed because the server dropped the connection.
        lost: bool,
        /// Between `BEGIN` and `COMMIT` or `ROLLBACK`.
        in_transaction: bool,
    }

    impl PgConnection {
        pub(crate) fn connect(config: postgres::Config) -> Result<PgConnection, DatabaseError> {
            let client = config.connect(postgres::NoTls)?;
            Ok(PgConnection {
                config,
                client,
                statements: HashMap::new(),
                lost: false,
                in_transaction: false,
            })
        }

        pub(crate) fn client(&mut self) -> &mut postgres::Client {
            &mut self.client
        }

        /// Outside a transaction, a lost connection is replaced: what it
        /// was doing was rolled back by the server. Inside one, the
        /// transaction's calls fail until it ends.
        fn reconnect_if_lost(&mut self) -> Result<(), DatabaseError> {
            if (self.lost || self.client.is_closed()) && !self.in_transaction {
                self.client = self.config.connect(postgres::NoTls)?;
                self.statements.clear();
                self.lost = false;
            }
            Ok(())
        }

        fn statement(&mut self, sql: &str) -> Result<postgres::Statement, DatabaseError> {
            self.reconnect_if_lost()?;
            if let Some(statement) = self.statements.get(sql) {
                return Ok(statement.clone());
            }
            let statement = self.client.prepare(&rewrite(sql)).map_err(|e| self.failed(e))?;
            self.statements.insert(sql.to_owned(), statement.clone());
            Ok(statement)
        }

        /// `error`, remembering when it lost the connection.
        fn failed(&mut self, error: postgres::Error) -> DatabaseError {
            let error = DatabaseError::from(error);
            self.lost |= error.is_closed();
            error
        }
    }

    impl Db for PgConnection {
        fn dialect(&self) -> Dialect {
            Dialect::Postgres
        }

        fn batch(&mut self, sql: &str) -> Result<(), DatabaseError> {
            self.reconnect_if_lost()?;
            let result = self.client.batch_execute(sql).map_err(|e| self.failed(e));
            match sql {
                "BEGIN" => self.in_transaction = result.is_ok(),
                "COMMIT" | "ROLLBACK" => self.in_transaction = false,
                _ => {}
            }
            result
        }

        fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DatabaseError> {
            let statement = self.statement(sql)?;
            self.client
                .execute(&statement, &pg_params(params))
                .map_err(|e| self.failed(e))
        }

        fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DatabaseError> {
            let statement = self.statement(sql)?;
            let found = self
                .client
                .query(&statement, &pg_params(params))
                .map_err(|e| self.failed(e))?;
            rows(found)
        }
    }

    /// The parameters with their types, so that a statement runs in one
    /// round trip, unprepared; `None` when one is `NULL`, whose type only
    /// the server can infer.
    fn typed<'a>(params: &'a [Param<'a>]) -> Option<Vec<(&'a (dyn ToSql + Sync), Type)>> {
        params
            .iter()
            .map(|p| match p {
                Param::Null => None,
                Param::Int(_) => Some((p as &(dyn ToSql + Sync), Type::INT8)),
                Param::Text(_) => Some((p as &(dyn ToSql + Sync), Type::TEXT)),
            })
            .collect()
    }

    /// A caller's client or transaction ([`send`](crate::send)): it has no
    /// statement cache of ours, so statements go unprepared when they can.
    macro_rules! generic_client_db {
        ($($ty:ty),*) => {$(
            impl Db for $ty {
                fn dialect(&self) -> Dialect {
                    Dialect::Postgres
                }

                fn batch(&mut self, sql: &str) -> Result<(), DatabaseError> {
                    Ok(postgres::GenericClient::batch_execute(self, sql)?)
                }

                fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DatabaseError> {
                    let sql = rewrite(sql);
                    Ok(match typed(params) {
                        Some(typed) => postgres::GenericClient::execute_typed(self, &sql, &typed)?,
                        None => postgres::GenericClient::execute(self, sql.as_str(), &pg_params(params))?,
                    })
                }

                fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DatabaseError> {
                    let sql = rewrite(sql);
                    rows(match typed(params) {
                        Some(typed) => postgres::GenericClient::query_typed(self, &sql, &typed)?,
                        None => postgres::GenericClient::query(self, sql.as_str(), &pg_params(params))?,
                    })
                }
            }
        )*};
    }

    generic_client_db!(postgres::Client, postgres::Transaction<'_>);

    #[cfg(test)]
    mod tests {
        #[test]
        fn parameters_are_rewritten_outside_quotes() {
            assert_eq!(
                super::rewrite("SELECT ?1, '?' FROM t WHERE a = ?2"),
                "SELECT $1, '?' FROM t WHERE a = $2"
            );
        }
    }
}
