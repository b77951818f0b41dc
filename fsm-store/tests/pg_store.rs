//! `PgStore` against a real PostgreSQL server, named by the connection string
//! in `FSM_TEST_POSTGRES_URL` (`.ci/run` starts one and sets it).
//!
//! Without that variable, or without the `postgres` feature, every test that
//! needs a server says that it was skipped and why, on stderr, past the test
//! harness's output capture: these tests never pass silently. In CI (`CI` set,
//! as `.ci/run` runs there) a missing server fails them instead: a skip never
//! counts as a pass. Each test works in tables of its own, dropped at its end.
//!
//! The race test runs this binary twice more as worker processes: with
//! `FSM_TEST_PG_RACE_TABLE` set, that test is the worker's body instead.

use std::io::Write;

/// The variable naming the server.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
const URL_VAR: &str = "FSM_TEST_POSTGRES_URL";

/// True in CI (`CI` set and not `false` or `0`), where a test whose server is
/// missing must fail rather than skip.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
fn required_in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Writes a line to stderr directly: the harness captures `eprintln!` (and
/// shows it only for failures), not writes to the stream itself.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[cfg(not(feature = "postgres"))]
#[test]
fn pg_store_tests_were_skipped_or_ran() {
    say("skipped: fsm-store was built without the `postgres` feature \
         (run `cargo test -p fsm-store --features postgres --test pg_store`)");
}

#[cfg(feature = "postgres")]
mod pg {
    use super::{required_in_ci, say, URL_VAR};
    use fsm_runtime::{ArmedTimer, History, Snapshot, Timestamp};
    use fsm_store::{PgSetupError, PgStore, Store, StoreError, Version};
    use postgres::{Client, NoTls};
    use std::collections::BTreeSet;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::{Child, ChildStdout, Command, Stdio};
    use std::sync::Arc;
    use std::thread::JoinHandle;

    /// The server's connection string, or `None` after saying that `test` is
    /// skipped. Fails in CI, where the server is required.
    fn server_url(test: &str) -> Option<String> {
        match std::env::var(URL_VAR) {
            Ok(url) if !url.trim().is_empty() => Some(url),
            _ => {
                assert!(
                    !required_in_ci(),
                    "{URL_VAR} is not set, and in CI the PgStore tests need a server \
                     (.ci/postgres.sh starts one) [pg::{test}]"
                );
                say(&format!(
                    "skipped: {URL_VAR} is not set (see .ci/run) [pg::{test}]"
                ));
                None
            }
        }
    }

    fn admin_client(url: &str) -> Client {
        Client::connect(url, NoTls)
            .unwrap_or_else(|error| panic!("{URL_VAR} is set, but connecting failed: {error}"))
    }

    /// A table (or schema) of the test's own, dropped before and after it, and
    /// a plain client to look at it and tamper with it.
    struct Scratch {
        url: String,
        admin: Client,
        /// The table name, unique to this process and test.
        table: String,
        /// What to drop at the end: `TABLE "x"` or `SCHEMA "x" CASCADE`.
        drop: String,
    }

    impl Scratch {
        fn table(url: &str, tag: &str) -> Scratch {
            let table = format!("fsm_test_{}_{tag}", std::process::id());
            Scratch::new(url, table.clone(), format!("TABLE IF EXISTS \"{table}\""))
        }

        fn schema(url: &str, tag: &str) -> Scratch {
            let schema = format!("fsm_test_{}_{tag}", std::process::id());
            let drop = format!("SCHEMA IF EXISTS \"{schema}\" CASCADE");
            let mut scratch = Scratch::new(url, format!("{schema}.instances"), drop);
            scratch.execute(&format!("CREATE SCHEMA \"{schema}\""));
            scratch
        }

        fn new(url: &str, table: String, drop: String) -> Scratch {
            let mut admin = admin_client(url);
            admin.batch_execute(&format!("DROP {drop}")).unwrap();
            Scratch {
                url: url.to_owned(),
                admin,
                table,
                drop,
            }
        }

        fn store(&self) -> PgStore {
            PgStore::connect_with_table(&self.url, &self.table)
                .unwrap_or_else(|error| panic!("setting up {}: {error}", self.table))
        }

        fn execute(&mut self, sql: &str) {
            self.admin
                .batch_execute(sql)
                .unwrap_or_else(|error| panic!("{sql}: {error}"));
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = self.admin.batch_execute(&format!("DROP {}", self.drop));
        }
    }

    fn snapshot(state: &str) -> Snapshot {
        Snapshot::new("Door", "0123456789abcdef", state.to_owned())
    }

    fn conflict(result: Result<Version, StoreError>) -> (String, Version, Version) {
        match result {
            Err(StoreError::Conflict {
                id,
                expected,
                current,
            }) => (id, expected, current),
            other => panic!("expected a conflict, got {other:?}"),
        }
    }

    fn corrupt<T: std::fmt::Debug>(result: Result<T, StoreError>) -> (String, String, String) {
        match result {
            Err(StoreError::Corrupt { id, location, reason }) => (id, location, reason),
            other => panic!("expected a corrupt-data error, got {other:?}"),
        }
    }

    fn backend<T: std::fmt::Debug>(result: Result<T, StoreError>) -> (String, String) {
        match result {
            Err(StoreError::Backend { id, message }) => (id, message),
            other => panic!("expected a backend error, got {other:?}"),
        }
    }

    fn incompatible(result: Result<PgStore, PgSetupError>) -> String {
        match result {
            Err(PgSetupError::IncompatibleTable { reason, .. }) => reason,
            other => panic!("expected an incompatible table, got {other:?}"),
        }
    }

    /// Says which way this binary ran, so that a run's output shows whether
    /// the server tests did anything.
    #[test]
    fn pg_store_tests_were_skipped_or_ran() {
        let Some(url) = server_url("pg_store_tests_were_skipped_or_ran") else {
            say("skipped: every PgStore test that needs a server passed without running");
            return;
        };
        let version: String = admin_client(&url)
            .query_one("SHOW server_version", &[])
            .unwrap()
            .get(0);
        say(&format!(
            "ran: the PgStore tests run against PostgreSQL {version} ({URL_VAR} is set)"
        ));
    }

    #[test]
    fn saves_create_then_advance_the_instance() {
        let Some(url) = server_url("saves_create_then_advance_the_instance") else {
            return;
        };
        let mut scratch = Scratch::table(&url, "create");
        let store = scratch.store();
        assert_eq!(store.table(), scratch.table);
        let exists: bool = scratch
            .admin
            .query_one("SELECT to_regclass($1) IS NOT NULL", &[&scratch.table])
            .unwrap()
            .get(0);
        assert!(exists, "the store did not create its table");

        let id = "tenant/α β:1";
        assert_eq!(store.load(id).unwrap(), None);
        assert_eq!(store.save(id, 0, &snapshot("closed")).unwrap(), 1);
        assert_eq!(store.load(id).unwrap(), Some((1, snapshot("closed"))));
        assert_eq!(store.save(id, 1, &snapshot("opened")).unwrap(), 2);
        assert_eq!(store.load(id).unwrap(), Some((2, snapshot("opened"))));
        assert_eq!(store.load("another").unwrap(), None);

        // The row holds the snapshot as JSON, and when it was last written.
        let row = scratch
            .admin
            .query_one(
                &format!(
                    "SELECT version, snapshot, updated_at > now() - interval '1 hour' \
                     FROM \"{}\" WHERE id = $1",
                    scratch.table
                ),
                &[&id],
            )
            .unwrap();
        assert_eq!(row.get::<_, i64>(0), 2);
        assert_eq!(
            row.get::<_, serde_json::Value>(1),
            serde_json::json!({
                "type": "fsm",
                "machine": "Door",
                "fingerprint": "0123456789abcdef",
                "current_state": "opened",
            })
        );
        assert!(row.get::<_, bool>(2), "updated_at is not recent");

        // Another store on the existing table, as another process would have,
        // sees the same instance and continues from it.
        let other = scratch.store();
        assert_eq!(other.load(id).unwrap(), Some((2, snapshot("opened"))));
        assert_eq!(other.save(id, 2, &snapshot("closed")).unwrap(), 3);
        assert_eq!(store.load(id).unwrap(), Some((3, snapshot("closed"))));
    }

    #[test]
    fn stale_saves_are_conflicts_carrying_the_current_version() {
        let Some(url) = server_url("stale_saves_are_conflicts_carrying_the_current_version") else {
            return;
        };
        let scratch = Scratch::table(&url, "conflict");
        let store = scratch.store();
        let id = "door";

        // Nothing stored: only a creation (expected 0) can succeed.
        assert_eq!(
            conflict(store.save(id, 3, &snapshot("opened"))),
            (id.to_owned(), 3, 0)
        );
        assert_eq!(store.load(id).unwrap(), None);

        assert_eq!(store.save(id, 0, &snapshot("closed")).unwrap(), 1);
        assert_eq!(
            conflict(store.save(id, 0, &snapshot("opened"))),
            (id.to_owned(), 0, 1)
        );
        assert_eq!(store.save(id, 1, &snapshot("opened")).unwrap(), 2);
        assert_eq!(
            conflict(store.save(id, 1, &snapshot("locked"))),
            (id.to_owned(), 1, 2)
        );
        assert_eq!(
            conflict(store.save(id, 7, &snapshot("locked"))),
            (id.to_owned(), 7, 2)
        );
        // Beyond what a `bigint` holds: it cannot match, and does not fail otherwise.
        let (_, expected, current) = conflict(store.save(id, u64::MAX, &snapshot("locked")));
        assert_eq!((expected, current), (u64::MAX, 2));

        // The losers wrote nothing.
        assert_eq!(store.load(id).unwrap(), Some((2, snapshot("opened"))));
        let error = store.save(id, 1, &snapshot("locked")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "instance `door` was saved by someone else: expected version 1, found version 2; \
             reload it and try again"
        );
    }

    #[test]
    fn ids_text_cannot_hold_are_refused() {
        let Some(url) = server_url("ids_text_cannot_hold_are_refused") else {
            return;
        };
        let scratch = Scratch::table(&url, "ids");
        let store = scratch.store();
        for id in ["", "a\0b"] {
            for result in [
                store.load(id).map(|_| ()),
                store.save(id, 0, &snapshot("closed")).map(|_| ()),
            ] {
                match result {
                    Err(StoreError::InvalidId { id: found, .. }) => assert_eq!(found, id),
                    other => panic!("{id:?}: expected an invalid id, got {other:?}"),
                }
            }
        }
    }

    #[test]
    fn corrupt_rows_are_reported_with_table_and_id() {
        let Some(url) = server_url("corrupt_rows_are_reported_with_table_and_id") else {
            return;
        };
        let mut scratch = Scratch::table(&url, "corrupt");
        let store = scratch.store();
        let table = scratch.table.clone();
        scratch.execute(&format!(
            r#"INSERT INTO "{table}" (id, version, snapshot) VALUES
                ('partial', 1, '{{"type": "fsm", "machine": "Door"}}'),
                ('foreign', 4, '{{"type": "invoice", "machine": "Door", "fingerprint": "f", "current_state": "s"}}'),
                ('number', 2, '42')"#
        ));
        for (id, reason) in [
            (
                "partial",
                "its snapshot is not an fsm snapshot: missing field `fingerprint`",
            ),
            (
                "foreign",
                "its snapshot is not an fsm snapshot: not an fsm snapshot: `type` is `invoice`, \
                 expected `fsm`",
            ),
            (
                "number",
                "its snapshot is not an fsm snapshot: invalid type: integer `42`, expected an fsm \
                 snapshot with `type`, `machine`, `fingerprint` and `current_state`",
            ),
        ] {
            let location = format!("PostgreSQL table `{table}`, row with id \"{id}\"");
            assert_eq!(
                corrupt(store.load(id)),
                (id.to_owned(), location.clone(), reason.to_owned())
            );
            let message = store.load(id).unwrap_err().to_string();
            assert_eq!(
                message,
                format!("the stored data of instance `{id}` at {location} is corrupt: {reason}")
            );
        }
        // The rows are untouched.
        let count: i64 = scratch
            .admin
            .query_one(&format!("SELECT count(*) FROM \"{table}\""), &[])
            .unwrap()
            .get(0);
        assert_eq!(count, 3);
    }

    #[test]
    fn versions_that_are_not_positive_are_corrupt() {
        let Some(url) = server_url("versions_that_are_not_positive_are_corrupt") else {
            return;
        };
        // A table made by hand, without the store's CHECK on the version: the
        // store adopts it, and still refuses the bad rows.
        let mut scratch = Scratch::table(&url, "version");
        let table = scratch.table.clone();
        scratch.execute(&format!(
            r#"CREATE TABLE "{table}" (id text PRIMARY KEY, version bigint NOT NULL,
                   snapshot jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
               INSERT INTO "{table}" (id, version, snapshot) VALUES
                   ('zero', 0, '{{"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s"}}'),
                   ('negative', -3, '{{"type": "fsm", "machine": "Door", "fingerprint": "f", "current_state": "s"}}')"#
        ));
        let store = scratch.store();
        let (_, _, reason) = corrupt(store.load("zero"));
        assert_eq!(reason, "its version is 0, not positive");
        let (_, _, reason) = corrupt(store.load("negative"));
        assert_eq!(reason, "its version is -3, not positive");
        // A save against such a row cannot say which version is current.
        let (id, _, reason) = corrupt(store.save("zero", 0, &snapshot("s")));
        assert_eq!(
            (id.as_str(), reason.as_str()),
            ("zero", "its version is 0, not positive")
        );
    }

    /// A snapshot with every key a snapshot can have, as JSON.
    fn full_snapshot() -> serde_json::Value {
        let due = Timestamp::from_unix_millis(1_768_037_535_000).unwrap();
        let mut history = History::new();
        history.record_names("fetch", "done", "process");
        let snapshot = Snapshot::new("Job", "0123456789abcdef", "fetch")
            .with_context(serde_json::json!({"name": "nightly"}))
            .with_timers([ArmedTimer::new("fetch", 0, due), ArmedTimer::new("work", 0, due)])
            .with_last_active([("work", "fetch")])
            .with_history(&history);
        serde_json::to_value(&snapshot).unwrap()
    }

    #[test]
    fn a_misspelled_key_is_corrupt_and_kept() {
        let Some(url) = server_url("a_misspelled_key_is_corrupt_and_kept") else {
            return;
        };
        let mut scratch = Scratch::table(&url, "keys");
        let store = scratch.store();
        let table = scratch.table.clone();
        let full = full_snapshot();
        // Each key misspelled (`timers` as `timer`): at the top, in each
        // timer and in the history entry.
        let mut cases = Vec::new();
        let rename = |object: &mut serde_json::Value, key: &str| {
            let object = object.as_object_mut().unwrap();
            let value = object.remove(key).unwrap();
            object.insert(key[..key.len() - 1].to_owned(), value);
        };
        for key in full.as_object().unwrap().keys() {
            let mut copy = full.clone();
            rename(&mut copy, key);
            cases.push((copy, key.clone(), "the snapshot".to_owned()));
        }
        for (list, index) in [("timers", 0), ("timers", 1), ("history", 0)] {
            for key in full[list][index].as_object().unwrap().keys() {
                let mut copy = full.clone();
                rename(&mut copy[list][index], key);
                cases.push((copy, key.clone(), format!("`{list}[{index}]`")));
            }
        }
        assert_eq!(cases.len(), 8 + 3 + 3 + 5);
        for (index, (copy, _, _)) in cases.iter().enumerate() {
            scratch
                .admin
                .execute(
                    &format!(r#"INSERT INTO "{table}" (id, version, snapshot) VALUES ($1, 1, $2)"#),
                    &[&format!("job-{index}"), copy],
                )
                .unwrap();
        }
        for (index, (copy, key, place)) in cases.iter().enumerate() {
            let id = format!("job-{index}");
            let (_, location, reason) = corrupt(store.load(&id));
            assert_eq!(
                location,
                format!("PostgreSQL table `{table}`, row with id \"{id}\"")
            );
            let misspelled = &key[..key.len() - 1];
            assert!(
                reason.starts_with(&format!(
                    "its snapshot is not an fsm snapshot: unknown field `{misspelled}` in {place}, expected "
                )),
                "{reason}"
            );
            // The row is untouched.
            let row = scratch
                .admin
                .query_one(
                    &format!(r#"SELECT snapshot FROM "{table}" WHERE id = $1"#),
                    &[&id],
                )
                .unwrap();
            assert_eq!(row.get::<_, serde_json::Value>(0), *copy);
        }
        // The snapshot as written reads back.
        scratch
            .admin
            .execute(
                &format!(r#"INSERT INTO "{table}" (id, version, snapshot) VALUES ('job', 1, $1)"#),
                &[&full],
            )
            .unwrap();
        let (_, snapshot) = store.load("job").unwrap().unwrap();
        assert_eq!(serde_json::to_value(&snapshot).unwrap(), full);

        // A hand edit that raises the version as well keeps a writer that
        // loaded the row before the edit from saving over it.
        scratch.execute(&format!(
            r#"UPDATE "{table}" SET version = 2, snapshot = snapshot - 'timers' || '{{"timer": []}}'
               WHERE id = 'job'"#
        ));
        assert!(matches!(
            store.save("job", 1, &snapshot),
            Err(StoreError::Conflict { current: 2, .. })
        ));
        let (_, _, reason) = corrupt(store.load("job"));
        assert!(
            reason.contains("unknown field `timer` in the snapshot"),
            "{reason}"
        );
    }

    #[test]
    fn tables_of_another_shape_are_refused() {
        let Some(url) = server_url("tables_of_another_shape_are_refused") else {
            return;
        };
        let mut scratch = Scratch::table(&url, "shape");
        let table = scratch.table.clone();
        let columns = "id text PRIMARY KEY, snapshot jsonb NOT NULL, \
                       updated_at timestamptz NOT NULL DEFAULT now()";

        scratch.execute(&format!(
            r#"CREATE TABLE "{table}" ({columns}, version integer NOT NULL)"#
        ));
        assert_eq!(
            incompatible(PgStore::connect_with_table(&url, &table)),
            "column `version` has type int4, not int8"
        );

        scratch.execute(&format!(
            r#"DROP TABLE "{table}"; CREATE TABLE "{table}" (id text PRIMARY KEY, version bigint NOT NULL)"#
        ));
        let reason = incompatible(PgStore::connect_with_table(&url, &table));
        assert!(
            reason.starts_with("ERROR 42703: column \"snapshot\" does not exist"),
            "{reason}"
        );

        scratch.execute(&format!(
            r#"DROP TABLE "{table}"; CREATE TABLE "{table}" (id text NOT NULL, version bigint NOT NULL,
                   snapshot jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())"#
        ));
        let reason = incompatible(PgStore::connect_with_table(&url, &table));
        assert!(
            reason.starts_with(
                "ERROR 42P10: there is no unique or exclusion constraint matching the ON \
                 CONFLICT specification"
            ),
            "{reason}"
        );

        let error = PgStore::connect_with_table(&url, &table).unwrap_err();
        assert!(
            error.to_string().starts_with(&format!(
                "PostgreSQL table `{table}` cannot hold fsm instances: ERROR 42P10: "
            )),
            "{error}"
        );
    }

    #[test]
    fn schema_qualified_tables_are_created_in_their_schema() {
        let Some(url) = server_url("schema_qualified_tables_are_created_in_their_schema") else {
            return;
        };
        let scratch = Scratch::schema(&url, "schema");
        let store = scratch.store();
        assert_eq!(store.save("door", 0, &snapshot("closed")).unwrap(), 1);
        let (schema, table) = scratch.table.split_once('.').unwrap();
        let mut admin = admin_client(&url);
        let stored: i64 = admin
            .query_one(
                &format!("SELECT version FROM \"{schema}\".\"{table}\" WHERE id = 'door'"),
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(stored, 1);
        assert_eq!(
            scratch.store().load("door").unwrap(),
            Some((1, snapshot("closed")))
        );
    }

    #[test]
    fn server_errors_are_backend_errors_with_the_servers_message() {
        let Some(url) = server_url("server_errors_are_backend_errors_with_the_servers_message") else {
            return;
        };
        let mut scratch = Scratch::table(&url, "backend");
        let store = scratch.store();
        let table = scratch.table.clone();
        scratch.execute(&format!("DROP TABLE \"{table}\""));
        let expected = format!("ERROR 42P01: relation \"{table}\" does not exist");
        let (id, message) = backend(store.load("door"));
        assert_eq!((id.as_str(), message.as_str()), ("door", expected.as_str()));
        let (id, message) = backend(store.save("door", 0, &snapshot("closed")));
        assert_eq!((id.as_str(), message.as_str()), ("door", expected.as_str()));
        assert_eq!(
            store.load("door").unwrap_err().to_string(),
            format!("store backend error (instance `door`): {expected}")
        );
    }

    /// `url` with an `application_name`, so that the test can find the
    /// store's server process.
    fn with_application_name(url: &str, name: &str) -> String {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let separator = if url.contains('?') { '&' } else { '?' };
            format!("{url}{separator}application_name={name}")
        } else {
            format!("{url} application_name={name}")
        }
    }

    #[test]
    fn a_connected_store_reconnects_after_its_connection_is_killed() {
        let Some(url) = server_url("a_connected_store_reconnects_after_its_connection_is_killed") else {
            return;
        };
        let mut scratch = Scratch::table(&url, "reconnect");
        let name = format!("fsm_test_reconnect_{}", std::process::id());
        let store = PgStore::connect_with_table(&with_application_name(&url, &name), &scratch.table).unwrap();
        assert_eq!(store.save("door", 0, &snapshot("closed")).unwrap(), 1);

        let killed: i64 = scratch
            .admin
            .query_one(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
                 WHERE application_name = $1",
                &[&name],
            )
            .unwrap()
            .get(0);
        assert_eq!(killed, 1);

        // The call that finds the connection dead fails; the next reconnects.
        match store.load("door") {
            Ok(loaded) => assert_eq!(loaded, Some((1, snapshot("closed")))),
            Err(error) => {
                let (id, _) = backend(Err::<(), _>(error));
                assert_eq!(id, "door");
                assert_eq!(store.load("door").unwrap(), Some((1, snapshot("closed"))));
            }
        }
        assert_eq!(store.save("door", 1, &snapshot("opened")).unwrap(), 2);
    }

    #[test]
    fn setup_errors_say_what_failed() {
        // No server needed: these fail before reaching one.
        let error = PgStore::connect_with_table("host=/nonexistent", "fsm instances").unwrap_err();
        assert_eq!(
            error,
            PgSetupError::InvalidTable {
                table: "fsm instances".to_owned(),
                reason: "`fsm instances` contains ' '; use ASCII letters, digits and `_`".to_owned(),
            }
        );
        match PgStore::connect("port=not-a-number") {
            Err(PgSetupError::Connect { message }) => {
                assert_eq!(
                    message,
                    "invalid connection string: invalid value for option `port`"
                )
            }
            other => panic!("expected a connection error, got {other:?}"),
        }
        let error = PgStore::connect("host=/nonexistent/fsm-test user=postgres").unwrap_err();
        match &error {
            PgSetupError::Connect { message } => {
                assert!(message.starts_with("error connecting to server: "), "{message}");
            }
            other => panic!("expected a connection error, got {other:?}"),
        }
        assert!(error.to_string().starts_with("could not connect to PostgreSQL: "));
    }

    /// The race's instance, its counter kept in the snapshot's state.
    const RACE_ID: &str = "counter";
    /// Set in a worker process: the table to race in.
    const RACE_TABLE_VAR: &str = "FSM_TEST_PG_RACE_TABLE";
    /// Set in a worker process: how many saves it must win.
    const RACE_SAVES_VAR: &str = "FSM_TEST_PG_RACE_SAVES";
    const RACE_TEST: &str = "pg::two_processes_racing_on_one_instance_lose_no_update";
    const RACE_WORKERS: usize = 2;
    const RACE_SAVES: usize = 300;

    fn counter(count: u64) -> Snapshot {
        Snapshot::new("Counter", "race", count.to_string())
    }

    /// Each of two processes loads the counter, increments it and saves it
    /// back against the version it loaded, retrying on conflicts, until it has
    /// won its share of saves. If a conflict went unreported (a save
    /// overwriting another), two saves would claim one version and the counter
    /// would fall behind the number of successful saves.
    #[test]
    fn two_processes_racing_on_one_instance_lose_no_update() {
        if let Ok(table) = std::env::var(RACE_TABLE_VAR) {
            return race_worker(&table);
        }
        let Some(url) = server_url("two_processes_racing_on_one_instance_lose_no_update") else {
            return;
        };
        let scratch = Scratch::table(&url, "race");
        let store = scratch.store();
        assert_eq!(store.save(RACE_ID, 0, &counter(0)).unwrap(), 1);

        let mut workers: Vec<Worker> = (0..RACE_WORKERS)
            .map(|_| Worker::spawn(&url, &scratch.table))
            .collect();
        for worker in &mut workers {
            worker.expect_line("race-worker ready");
        }
        for worker in &mut workers {
            worker.start();
        }
        let results: Vec<(u64, Vec<Version>)> = workers.into_iter().map(Worker::finish).collect();

        let conflicts: u64 = results.iter().map(|(conflicts, _)| conflicts).sum();
        let mut won = BTreeSet::new();
        for (_, versions) in &results {
            assert_eq!(versions.len(), RACE_SAVES);
            for &version in versions {
                assert!(won.insert(version), "two saves both created version {version}");
            }
        }
        let total = (RACE_WORKERS * RACE_SAVES) as u64;
        assert_eq!(won, (2..=total + 1).collect::<BTreeSet<_>>());
        assert_eq!(store.load(RACE_ID).unwrap(), Some((total + 1, counter(total))));
        assert!(
            conflicts > 0,
            "{RACE_WORKERS} processes made {total} saves without a single conflict: they did not race"
        );
        say(&format!(
            "pg race: {RACE_WORKERS} processes won {total} saves, {conflicts} conflicts reported, \
             final counter {total}"
        ));
    }

    /// The body of a worker process: waits for `go` on stdin, then wins
    /// `RACE_SAVES` saves and reports its conflicts and the versions it
    /// created.
    fn race_worker(table: &str) {
        let url = std::env::var(URL_VAR).expect("the parent passes the server's url");
        let saves: usize = std::env::var(RACE_SAVES_VAR).unwrap().parse().unwrap();
        let store = PgStore::connect_with_table(&url, table).unwrap();
        println!("race-worker ready");
        std::io::stdout().flush().unwrap();
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "go", "the parent went away before the race");

        let mut won = Vec::with_capacity(saves);
        let mut conflicts = 0u64;
        while won.len() < saves {
            let (version, loaded) = store.load(RACE_ID).unwrap().expect("the parent created it");
            let count: u64 = loaded.current_state().parse().unwrap();
            assert_eq!(count + 1, version, "the counter and the version disagree");
            match store.save(RACE_ID, version, &counter(count + 1)) {
                Ok(saved) => {
                    assert_eq!(saved, version + 1);
                    won.push(saved);
                }
                Err(StoreError::Conflict {
                    id,
                    expected,
                    current,
                }) => {
                    assert_eq!((id.as_str(), expected), (RACE_ID, version));
                    assert!(current > expected, "a conflict at {expected} reported {current}");
                    conflicts += 1;
                }
                Err(other) => panic!("save failed: {other}"),
            }
        }
        let won: Vec<String> = won.iter().map(Version::to_string).collect();
        println!("race-worker done conflicts={conflicts} won={}", won.join(","));
    }

    /// A worker process, with its stderr collected on a thread.
    struct Worker {
        child: Child,
        stdout: BufReader<ChildStdout>,
        stderr: Option<JoinHandle<String>>,
    }

    impl Worker {
        fn spawn(url: &str, table: &str) -> Worker {
            let mut child = Command::new(std::env::current_exe().unwrap())
                .args(["--exact", RACE_TEST, "--nocapture", "--test-threads=1"])
                .env(URL_VAR, url)
                .env(RACE_TABLE_VAR, table)
                .env(RACE_SAVES_VAR, RACE_SAVES.to_string())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let stdout = BufReader::new(child.stdout.take().unwrap());
            let mut stderr = child.stderr.take().unwrap();
            let stderr = std::thread::spawn(move || {
                let mut text = String::new();
                let _ = stderr.read_to_string(&mut text);
                text
            });
            Worker {
                child,
                stdout,
                stderr: Some(stderr),
            }
        }

        /// Reads stdout up to the line holding `marker` (the harness prints
        /// its own lines around the worker's), and returns what follows the
        /// marker.
        fn expect_line(&mut self, marker: &str) -> String {
            let mut line = String::new();
            loop {
                line.clear();
                let read = self.stdout.read_line(&mut line).unwrap();
                if read == 0 {
                    self.fail(&format!("exited without printing {marker:?}"));
                }
                if let Some(at) = line.find(marker) {
                    return line[at + marker.len()..].trim().to_owned();
                }
            }
        }

        fn start(&mut self) {
            let stdin = self.child.stdin.as_mut().unwrap();
            stdin.write_all(b"go\n").unwrap();
            stdin.flush().unwrap();
        }

        /// Waits for the worker; returns its conflicts and the versions its
        /// saves created.
        fn finish(mut self) -> (u64, Vec<Version>) {
            let report = self.expect_line("race-worker done");
            let status = self.child.wait().unwrap();
            if !status.success() {
                self.fail(&format!("failed ({status})"));
            }
            let fields = report
                .strip_prefix("conflicts=")
                .and_then(|rest| rest.split_once(" won="));
            let Some((conflicts, won)) = fields else {
                self.fail(&format!("reported {report:?}"));
            };
            let won = won.split(',').map(|version| version.parse().unwrap()).collect();
            (conflicts.parse().unwrap(), won)
        }

        fn fail(&mut self, what: &str) -> ! {
            let _ = self.child.kill();
            let _ = self.child.wait();
            let stderr = self.stderr.take().map(|thread| thread.join().unwrap());
            panic!("race worker {what}; its stderr:\n{}", stderr.unwrap_or_default());
        }
    }

    /// One store shared by threads (it is `Send + Sync`): their load and save
    /// calls interleave, and the compare-and-swap still loses nothing.
    #[test]
    fn threads_sharing_one_store_lose_no_update() {
        let Some(url) = server_url("threads_sharing_one_store_lose_no_update") else {
            return;
        };
        const THREADS: usize = 4;
        const SAVES: usize = 25;
        let scratch = Scratch::table(&url, "threads");
        let store = Arc::new(scratch.store());
        assert_eq!(store.save(RACE_ID, 0, &counter(0)).unwrap(), 1);
        let threads: Vec<_> = (0..THREADS)
            .map(|_| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    let mut won = 0;
                    while won < SAVES {
                        let (version, loaded) = store.load(RACE_ID).unwrap().unwrap();
                        let count: u64 = loaded.current_state().parse().unwrap();
                        match store.save(RACE_ID, version, &counter(count + 1)) {
                            Ok(_) => won += 1,
                            Err(StoreError::Conflict { current, .. }) => assert!(current > version),
                            Err(other) => panic!("save failed: {other}"),
                        }
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let total = (THREADS * SAVES) as u64;
        assert_eq!(store.load(RACE_ID).unwrap(), Some((total + 1, counter(total))));
    }
}
