//! The databases the fleet's tests run on, so that one suite passes on both
//! backends: a fresh SQLite file, or a fresh schema of the PostgreSQL server
//! that `FSM_TEST_POSTGRES_URL` names (`.ci/run` starts one and sets it).
//!
//! Without that variable, or without the `postgres` feature, a PostgreSQL
//! test says it was skipped and why, on stderr, past the harness's capture:
//! it never passes silently. In CI (`CI` set, as `.ci/run` runs there) it
//! fails instead: a skip never counts as a pass.

#![allow(dead_code)]

use fsm_fleet::Fleet;
use std::io::Write;

/// The variable naming the server.
pub const URL_VAR: &str = "FSM_TEST_POSTGRES_URL";

/// Runs each named test body (a `fn(&TestDb)`) on SQLite and on PostgreSQL,
/// as `sqlite::NAME` and `postgres::NAME`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(&$crate::support::TestDb::sqlite());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    if let Some(db) = $crate::support::TestDb::postgres(stringify!($name)) {
                        super::$name(&db);
                    }
                }
            )*
        }
    };
}

/// True in CI (`CI` set and not `false` or `0`), where a test whose server is
/// missing must fail rather than skip.
pub fn required_in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Writes a line to stderr directly: the harness captures `eprintln!` (and
/// shows it only for failures), not writes to the stream itself.
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// A database of the test's own.
pub struct TestDb {
    kind: Kind,
}

enum Kind {
    Sqlite(tempfile::TempDir),
    #[cfg(feature = "postgres")]
    Postgres {
        /// The connection parameters, with the test's schema first on the
        /// search path.
        params: String,
        schema: String,
        admin: Box<std::cell::RefCell<postgres::Client>>,
    },
}

impl TestDb {
    /// A fresh SQLite file in a temporary directory.
    pub fn sqlite() -> TestDb {
        TestDb {
            kind: Kind::Sqlite(tempfile::tempdir().unwrap()),
        }
    }

    /// A fresh schema on the test server, dropped at the end; `None` after
    /// saying that `test` is skipped. Fails in CI, where the server is
    /// required.
    pub fn postgres(test: &str) -> Option<TestDb> {
        let skip = |why: &str| {
            assert!(
                !required_in_ci(),
                "{why}, and in CI the fleet's PostgreSQL tests need a server \
                 (.ci/postgres.sh starts one) [postgres::{test}]"
            );
            say(&format!("skipped: {why} [postgres::{test}]"));
            None
        };
        #[cfg(not(feature = "postgres"))]
        return skip("fsm-fleet was built without its `postgres` feature");
        #[cfg(feature = "postgres")]
        {
            let url = match std::env::var(URL_VAR) {
                Ok(url) if !url.trim().is_empty() => url,
                _ => return skip(&format!("{URL_VAR} is not set (see .ci/run)")),
            };
            let schema = format!("fsm_fleet_test_{}_{test}", std::process::id());
            let mut admin = postgres::Client::connect(&url, postgres::NoTls)
                .unwrap_or_else(|error| panic!("{URL_VAR} is set, but connecting failed: {error}"));
            admin
                .batch_execute(&format!(
                    "DROP SCHEMA IF EXISTS \"{schema}\" CASCADE; CREATE SCHEMA \"{schema}\"; \
                     SET search_path TO \"{schema}\""
                ))
                .unwrap();
            let params = with_search_path(&url, &schema);
            Some(TestDb {
                kind: Kind::Postgres {
                    params,
                    schema,
                    admin: Box::new(std::cell::RefCell::new(admin)),
                },
            })
        }
    }

    /// Which backend, for messages.
    pub fn backend(&self) -> &'static str {
        match self.kind {
            Kind::Sqlite(_) => "sqlite",
            #[cfg(feature = "postgres")]
            Kind::Postgres { .. } => "postgres",
        }
    }

    /// What `Fleet::open` or `Fleet::connect` takes: the file's path, or the
    /// connection parameters.
    pub fn target(&self) -> String {
        match &self.kind {
            Kind::Sqlite(dir) => dir.path().join("fleet.db").display().to_string(),
            #[cfg(feature = "postgres")]
            Kind::Postgres { params, .. } => params.clone(),
        }
    }

    /// The fleet, opened (its tables created) on this database.
    pub fn open(&self) -> Fleet {
        open_target(&self.target())
    }

    /// Run `sql` beside the fleet (editing rows by hand).
    pub fn execute(&self, sql: &str) {
        match &self.kind {
            Kind::Sqlite(_) => {
                let conn = rusqlite::Connection::open(self.target()).unwrap();
                conn.busy_timeout(std::time::Duration::from_secs(30)).unwrap();
                conn.execute_batch(sql)
                    .unwrap_or_else(|error| panic!("{sql}: {error}"));
            }
            #[cfg(feature = "postgres")]
            Kind::Postgres { admin, .. } => {
                admin
                    .borrow_mut()
                    .batch_execute(sql)
                    .unwrap_or_else(|error| panic!("{sql}: {error}"));
            }
        }
    }

    /// The rows `sql` selects, each value as text (`NULL` for null).
    pub fn rows(&self, sql: &str) -> Vec<Vec<String>> {
        match &self.kind {
            Kind::Sqlite(_) => {
                let conn = rusqlite::Connection::open(self.target()).unwrap();
                conn.busy_timeout(std::time::Duration::from_secs(30)).unwrap();
                let mut select = conn.prepare(sql).unwrap();
                let columns = select.column_count();
                select
                    .query_map([], |row| {
                        (0..columns)
                            .map(|i| {
                                Ok(match row.get_ref(i)? {
                                    rusqlite::types::ValueRef::Null => "NULL".to_owned(),
                                    rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                                    rusqlite::types::ValueRef::Text(t) => {
                                        String::from_utf8_lossy(t).into_owned()
                                    }
                                    other => format!("{other:?}"),
                                })
                            })
                            .collect()
                    })
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap()
            }
            #[cfg(feature = "postgres")]
            Kind::Postgres { admin, .. } => admin
                .borrow_mut()
                .query(sql, &[])
                .unwrap_or_else(|error| panic!("{sql}: {error}"))
                .iter()
                .map(|row| {
                    (0..row.len())
                        .map(|i| match *row.columns()[i].type_() {
                            postgres::types::Type::INT8 => row
                                .get::<_, Option<i64>>(i)
                                .map_or("NULL".to_owned(), |n| n.to_string()),
                            postgres::types::Type::INT4 => row
                                .get::<_, Option<i32>>(i)
                                .map_or("NULL".to_owned(), |n| n.to_string()),
                            _ => row
                                .get::<_, Option<String>>(i)
                                .unwrap_or_else(|| "NULL".to_owned()),
                        })
                        .collect()
                })
                .collect(),
        }
    }

    /// The one value `sql` selects.
    pub fn value(&self, sql: &str) -> String {
        let rows = self.rows(sql);
        assert_eq!(rows.len(), 1, "{sql}: {rows:?}");
        rows[0][0].clone()
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        #[cfg(feature = "postgres")]
        if let Kind::Postgres { schema, admin, .. } = &self.kind {
            let _ = admin
                .borrow_mut()
                .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"));
        }
    }
}

/// The fleet at `target`: PostgreSQL's connection parameters, or an SQLite
/// file's path.
pub fn open_target(target: &str) -> Fleet {
    if fsm_fleet::inspect::is_postgres(target) {
        #[cfg(feature = "postgres")]
        return Fleet::connect(target).unwrap_or_else(|error| panic!("connecting to the fleet: {error}"));
    }
    Fleet::open(target).unwrap_or_else(|error| panic!("opening {target}: {error}"))
}

/// `url` (a URL or `key=value` parameters) with `schema` as its search path.
#[cfg(feature = "postgres")]
fn with_search_path(url: &str, schema: &str) -> String {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let separator = if url.contains('?') { '&' } else { '?' };
        format!("{url}{separator}options=-c%20search_path%3D{schema}")
    } else {
        format!("{url} options='-c search_path={schema}'")
    }
}
