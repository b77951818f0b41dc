//! A fleet in one database: instances, their inboxes, the worker's step and
//! the outbox, each written once for both backends.

use crate::db::{self, params, Backend, Client, DatabaseError, Db};
use crate::error::FleetError;
use crate::machines::Machines;
use crate::prune::{Prune, Pruned};
use crate::schema::{self, millis, now_millis, timestamp};
use crate::stored;
use crate::worker;
use fsm_runtime::{History, Machine, Persist, Recorded, Timestamp};
use std::num::NonZeroUsize;
use std::path::Path;
use std::time::Duration;

/// How long a call waits for another process's write to finish before
/// failing with [`FleetError::Database`] (`database is locked`).
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// A fleet of machine instances kept in one database, which any number of
/// processes open at once (each its own `Fleet`): an SQLite file
/// ([`Fleet::open`]) shared by the processes of one machine, or a PostgreSQL
/// database ([`Fleet::connect`], with the `postgres` feature) shared by
/// processes anywhere.
///
/// Every call that writes is one transaction: a process killed at any
/// moment leaves each instance before or after a whole step, never between.
/// SQLite lets one transaction write at a time, so workers in several
/// processes take turns, a batch each; PostgreSQL's workers claim disjoint
/// batches (`FOR UPDATE SKIP LOCKED`) and step them at once.
#[cfg_attr(not(feature = "postgres"), doc = "", doc = "[`Fleet::connect`]: crate")]
pub struct Fleet {
    conn: Backend,
    keep: NonZeroUsize,
    max_attempts: u32,
    /// Where this worker's claims of each machine's timers start.
    claims: worker::Claims,
}

/// What [`Fleet::send`] did with an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sent {
    /// Appended to the instance's inbox.
    Accepted,
    /// An event with the same deduplication key was sent to this instance
    /// before: this one is dropped.
    Duplicate,
}

/// What one [`Fleet::work`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Worked {
    /// Instances stepped.
    pub instances: usize,
    /// Events consumed (taken, rejected by the machine, run away, or dead).
    pub events: usize,
    /// Timers fired.
    pub timers: usize,
    /// Outputs written to the outbox.
    pub outputs: usize,
    /// Instances that could not be stepped, with why: they are parked
    /// (`next_wake` cleared, the error on their row) until fixed.
    pub parked: Vec<Parked>,
}

/// An instance [`Fleet::work`] parked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parked {
    /// Its id.
    pub id: String,
    /// Why: the error on its row, which names it.
    pub error: String,
}

/// An output claimed from the outbox, for its handler to perform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedOutput {
    /// `instance/step/index`: the idempotency key.
    pub key: String,
    /// The instance that emitted it.
    pub instance: String,
    /// The instance's machine.
    pub machine: String,
    /// The step that emitted it (its `seq` in the instance's history).
    pub step: u64,
    /// Its place among the step's outputs.
    pub index: u32,
    /// The output's name.
    pub output: String,
    /// How many attempts failed before this one.
    pub attempts: u32,
    /// The claim's number: settling it checks that no later claim took the
    /// output over after this one's lease ran out.
    lease: i64,
}

/// What [`Fleet::output_failed`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failed {
    /// It will be claimable again at this time.
    RetryAt(Timestamp),
    /// It ran out of attempts: it is `dead`, and the instance's later
    /// outputs go on.
    Dead,
    /// The claim's lease ran out and another handler claimed it since:
    /// nothing changed.
    LeaseLost,
}

impl ClaimedOutput {
    /// The deduplication key for an event that brings this output's result
    /// back to the machine: the same for every attempt, so a retried
    /// handler's reply is taken once.
    pub fn reply_key(&self) -> String {
        format!("reply:{}", self.key)
    }
}

/// One instance, as [`Fleet::instance`] reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// Its id.
    pub id: String,
    /// Its machine's name.
    pub machine: String,
    /// The fingerprint of the definition it was saved by.
    pub fingerprint: String,
    /// Its current state.
    pub state: String,
    /// Its snapshot, as JSON.
    pub snapshot: String,
    /// How many times a worker stepped and saved it (a step takes all the
    /// events and timers due, so this counts saves, not transitions).
    pub version: i64,
    /// Its earliest armed deadline, when a worker steps it for its timers;
    /// `None` when none is armed (or it is parked). Events waiting for it
    /// make it due besides.
    pub next_wake: Option<Timestamp>,
    /// Why it is parked, when it is.
    pub error: Option<String>,
}

/// The longest instance id [`Fleet::create`] takes, in bytes of UTF-8.
///
/// PostgreSQL indexes an id whole (the instances' primary key, the inbox's
/// unique key of instance and deduplication key) and refuses an index row
/// above 2,704 bytes (`index row size … exceeds btree version 4 maximum`),
/// or 8,191 compressed; SQLite takes any length. Both backends hold ids and
/// keys to the same limits, checked before any statement, so that what one
/// accepts the other does: an id of at most 512 bytes and a key of at most
/// [`MAX_DEDUP_KEY_BYTES`] fit one index row together, with room for a
/// reply's key ([`ClaimedOutput::reply_key`]: `reply:`, the id, the step
/// and the index).
pub const MAX_INSTANCE_ID_BYTES: usize = 512;

/// The longest deduplication key a send takes, in bytes of UTF-8: 1,024
/// (see [`MAX_INSTANCE_ID_BYTES`] for why there is one). A longer key is
/// refused with [`FleetError::DedupKeyTooLong`] before any statement, by
/// every send on both backends; a caller whose natural key is longer sends
/// a hash of it.
pub const MAX_DEDUP_KEY_BYTES: usize = 1024;

/// Append `event` to instance `id`'s inbox through `conn`, a connection or
/// transaction of the caller's ([`Client`]: on SQLite a `rusqlite`
/// connection or transaction on the fleet's file; on PostgreSQL a
/// `postgres` client or transaction), so that the event is sent exactly
/// when the caller's own writes commit. A repeated `dedup_key` for the same
/// instance is accepted once: senders that retry are safe.
///
/// `event` is any value that serializes, and is read as an event of the
/// instance's machine only when a worker steps it: one that is not (a value
/// of another machine, JSON from another language that does not match) is
/// then `dead`. A caller that holds the machine's type sends through
/// [`send_to`] instead, which the compiler and the instance's row check.
///
/// Outside a transaction the event and the instance's wake-up commit one
/// after the other. On SQLite, begin that transaction as `IMMEDIATE`
/// (`transaction_with_behavior(TransactionBehavior::Immediate)`): a
/// deferred one that reads first can find, when it comes to write, that a
/// worker wrote in between, and SQLite then fails it at once with `database
/// is locked` rather than wait.
///
/// # Errors
///
/// [`FleetError::UnknownInstance`], [`FleetError::DedupKeyTooLong`] (a key
/// longer than [`MAX_DEDUP_KEY_BYTES`]), a database error, or an event that
/// does not serialize.
pub fn send<C: Client + ?Sized, E: serde::Serialize + ?Sized>(
    conn: &mut C,
    id: &str,
    event: &E,
    dedup_key: &str,
) -> Result<Sent, FleetError> {
    check_key(id, dedup_key)?;
    send_json(conn, id, &event_json(id, event)?, dedup_key, None)
}

/// [`send`] of an event of machine `M`, to an instance of `M`: an event of
/// another machine does not compile, and an instance of another machine is
/// refused ([`FleetError::WrongMachine`]) with nothing sent, in the same
/// one statement that inserts the event. The machine is named, since an
/// event's type does not say whose it is:
///
/// ```
/// # fsm_runtime::fsm! {
/// #     machine Order {
/// #         initial state placed { on pay -> paid; }
/// #         terminal state paid;
/// #     }
/// # }
/// # let dir = tempfile::tempdir()?;
/// # let mut fleet = fsm_fleet::Fleet::open(dir.path().join("fleet.db"))?;
/// # fleet.create("order-17", order::Order::new())?;
/// let conn = fleet.sqlite().expect("a fleet on SQLite");
/// let mut tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
/// // … the caller's own writes, then the event, sent when they commit:
/// fsm_fleet::send_to::<order::Order>(&mut tx, "order-17", &order::Action::Pay, "pay-1")?;
/// tx.commit()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`send`], and [`FleetError::WrongMachine`].
pub fn send_to<M>(
    conn: &mut (impl Client + ?Sized),
    id: &str,
    event: &M::Event,
    dedup_key: &str,
) -> Result<Sent, FleetError>
where
    M: Machine,
    M::Event: serde::Serialize,
{
    check_key(id, dedup_key)?;
    send_json(conn, id, &event_json(id, event)?, dedup_key, Some(M::NAME))
}

/// `event`, sent to instance `id`, as the inbox keeps it.
fn event_json<E: serde::Serialize + ?Sized>(id: &str, event: &E) -> Result<String, FleetError> {
    serde_json::to_string(event).map_err(|e| FleetError::Serialize {
        id: id.to_owned(),
        message: e.to_string(),
    })
}

/// Refuse a deduplication key longer than [`MAX_DEDUP_KEY_BYTES`], before
/// any statement: every send checks it first.
fn check_key(id: &str, dedup_key: &str) -> Result<(), FleetError> {
    if dedup_key.len() > MAX_DEDUP_KEY_BYTES {
        return Err(FleetError::DedupKeyTooLong {
            id: id.to_owned(),
            length: dedup_key.len(),
            limit: MAX_DEDUP_KEY_BYTES,
        });
    }
    Ok(())
}

/// Serialize a batch's events, checking each key, in the order given: the
/// first event that does not serialize, or whose key is too long, fails
/// the batch before any statement.
fn batch_json<'a, E: serde::Serialize>(
    events: &'a [(&'a str, E, &'a str)],
) -> Result<Vec<(&'a str, String, &'a str)>, FleetError> {
    events
        .iter()
        .map(|(id, event, key)| {
            check_key(id, key)?;
            event_json(id, event).map(|json| (*id, json, *key))
        })
        .collect()
}

/// What a send that inserted nothing means: a repeated key, or an instance
/// that does not exist.
fn duplicate_or_unknown<D: Db + ?Sized>(conn: &mut D, id: &str) -> Result<Sent, FleetError> {
    let exists = conn
        .query_opt("SELECT 1 FROM fsm_instances WHERE id = ?1", params![id])?
        .is_some();
    if exists {
        Ok(Sent::Duplicate)
    } else {
        Err(FleetError::UnknownInstance { id: id.to_owned() })
    }
}

/// What a typed send (of an event of machine `sent`) that inserted nothing
/// means: an instance that does not exist, one of another machine, or a
/// repeated key. Read only when nothing was inserted: an accepted send
/// costs its one statement.
fn not_inserted<D: Db + ?Sized>(conn: &mut D, id: &str, sent: &str) -> Result<Sent, FleetError> {
    let machine = conn
        .query_opt("SELECT machine FROM fsm_instances WHERE id = ?1", params![id])?
        .map(|mut row| row.text(0))
        .transpose()?;
    match machine {
        None => Err(FleetError::UnknownInstance { id: id.to_owned() }),
        Some(machine) if machine != sent => Err(FleetError::WrongMachine {
            id: id.to_owned(),
            machine,
            sent: sent.to_owned(),
        }),
        Some(_) => Ok(Sent::Duplicate),
    }
}

/// [`send`] of an event already serialized: one statement, which inserts
/// the event only if the instance exists (`held` if it is parked) and, for
/// a typed send, is of machine `machine`. It never writes the instance's
/// row, so it never waits for a worker stepping the instance: the pending
/// event is what makes the instance due.
fn send_json<D: Db + ?Sized>(
    conn: &mut D,
    id: &str,
    json: &str,
    dedup_key: &str,
    machine: Option<&str>,
) -> Result<Sent, FleetError> {
    let inserted = match machine {
        None => conn.execute(
            "INSERT INTO fsm_inbox (instance, machine, dedup_key, event, status, sent_at)
             SELECT i.id, i.machine, ?2, ?3, CASE WHEN i.error IS NULL THEN 'pending' ELSE 'held' END, ?4
             FROM fsm_instances i WHERE i.id = ?1
             ON CONFLICT (instance, dedup_key) DO NOTHING",
            params![id, dedup_key, json, now_millis()],
        )?,
        Some(machine) => conn.execute(
            "INSERT INTO fsm_inbox (instance, machine, dedup_key, event, status, sent_at)
             SELECT i.id, i.machine, ?2, ?3, CASE WHEN i.error IS NULL THEN 'pending' ELSE 'held' END, ?4
             FROM fsm_instances i WHERE i.id = ?1 AND i.machine = ?5
             ON CONFLICT (instance, dedup_key) DO NOTHING",
            params![id, dedup_key, json, now_millis(), machine],
        )?,
    };
    if inserted == 1 {
        return Ok(Sent::Accepted);
    }
    match machine {
        None => duplicate_or_unknown(conn, id),
        Some(machine) => not_inserted(conn, id, machine),
    }
}

/// The most instances one statement of [`check_machines`] names (an `IN`
/// list of parameters).
const IDS_PER_SELECT: usize = 500;

/// Check, in the batch's transaction and before its inserts, that every
/// instance `events` name exists and is of machine `sent`: the first in
/// the order given that does not fails the batch, as
/// [`FleetError::UnknownInstance`] or [`FleetError::WrongMachine`].
fn check_machines<D: Db + ?Sized>(
    conn: &mut D,
    events: &[(&str, String, &str)],
    sent: &str,
) -> Result<(), FleetError> {
    let mut ids: Vec<&str> = events.iter().map(|(id, ..)| *id).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut machines = std::collections::HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_PER_SELECT) {
        let values: Vec<db::Param<'_>> = chunk.iter().map(|id| db::Param::Text(id)).collect();
        let in_list = (1..=values.len())
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        for mut row in conn.query(
            &format!("SELECT id, machine FROM fsm_instances WHERE id IN ({in_list})"),
            &values,
        )? {
            machines.insert(row.text(0)?, row.text(1)?);
        }
    }
    for (id, ..) in events {
        match machines.get(*id) {
            None => return Err(FleetError::UnknownInstance { id: (*id).to_owned() }),
            Some(machine) if machine != sent => {
                return Err(FleetError::WrongMachine {
                    id: (*id).to_owned(),
                    machine: machine.clone(),
                    sent: sent.to_owned(),
                })
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The most events one statement of [`Fleet::send_batch`] inserts.
const EVENTS_PER_INSERT: usize = 100;

/// [`Fleet::send_batch`] of events already serialized, `(instance, event,
/// deduplication key)`, inside the caller's transaction: one statement a
/// hundred events.
fn send_json_batch<D: Db + ?Sized>(
    conn: &mut D,
    events: &[(&str, String, &str)],
) -> Result<Vec<Sent>, FleetError> {
    let now = now_millis();
    let mut sent = Vec::with_capacity(events.len());
    // The keys this batch inserted: a key given again later in the batch is
    // a duplicate of it, as it would be sent alone after it.
    let mut accepted: std::collections::HashSet<(&str, &str)> = std::collections::HashSet::new();
    for chunk in events.chunks(EVENTS_PER_INSERT) {
        // `n` orders the rows as given: their `seq`, so the order each
        // instance takes them in.
        let mut sql = String::from("WITH v (n, instance, dedup_key, event) AS (VALUES ");
        let mut values = vec![db::Param::Int(now)];
        for (n, (id, json, key)) in chunk.iter().enumerate() {
            let at = values.len() + 1;
            if n > 0 {
                sql.push_str(", ");
            }
            sql.push_str(&format!("({n}, ?{at}, ?{}, ?{})", at + 1, at + 2));
            values.extend([db::Param::Text(id), db::Param::Text(key), db::Param::Text(json)]);
        }
        sql.push_str(
            ") INSERT INTO fsm_inbox (instance, machine, dedup_key, event, status, sent_at)
             SELECT i.id, i.machine, v.dedup_key, v.event,
                    CASE WHEN i.error IS NULL THEN 'pending' ELSE 'held' END, ?1
             FROM v JOIN fsm_instances i ON i.id = v.instance
             ORDER BY v.n
             ON CONFLICT (instance, dedup_key) DO NOTHING
             RETURNING instance, dedup_key",
        );
        let inserted: std::collections::HashSet<(String, String)> = conn
            .query(&sql, &values)?
            .into_iter()
            .map(|mut row| Ok((row.text(0)?, row.text(1)?)))
            .collect::<Result<_, DatabaseError>>()?;
        for (id, _, key) in chunk {
            // The statement inserts a key given twice once, for its first.
            if inserted.contains(&((*id).to_owned(), (*key).to_owned())) && accepted.insert((id, key)) {
                sent.push(Sent::Accepted);
                continue;
            }
            sent.push(duplicate_or_unknown(conn, id)?);
        }
    }
    Ok(sent)
}

impl Fleet {
    /// The fleet in the SQLite file at `path`, created (with its tables) if
    /// missing. Opened in WAL mode, so readers never wait for the writer.
    ///
    /// # Errors
    ///
    /// When the file cannot be opened, or holds a schema from a newer
    /// version ([`FleetError::Schema`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Fleet, FleetError> {
        let open = || -> Result<rusqlite::Connection, rusqlite::Error> {
            let conn = rusqlite::Connection::open(path.as_ref())?;
            conn.busy_timeout(BUSY_TIMEOUT)?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            // In WAL mode `NORMAL` can lose the last commits on power loss,
            // not on a process crash; `FULL` keeps them.
            conn.pragma_update(None, "synchronous", "FULL")?;
            Ok(conn)
        };
        let mut conn = Backend::Sqlite(open().map_err(DatabaseError::from)?);
        schema::migrate(&mut conn, "the database")?;
        Ok(Fleet::with_backend(conn))
    }

    /// The fleet in the PostgreSQL database that `params` names, as a URL
    /// (`postgresql://user@host/db`) or as `key=value` pairs (`host=/run/pg
    /// dbname=fleet`), its tables created if missing (in the connection's
    /// `search_path`, so `options='-c search_path=s'` puts a fleet in schema
    /// `s`). A connection the server drops is replaced before the next
    /// call's transaction: the call that saw it fails, and what it was doing
    /// was rolled back.
    ///
    /// # Errors
    ///
    /// [`FleetError::Schema`] when `params` does not parse or the database
    /// holds a schema from a newer version; a database error when the server
    /// cannot be reached.
    #[cfg(feature = "postgres")]
    pub fn connect(params: &str) -> Result<Fleet, FleetError> {
        let config: postgres::Config = params.parse().map_err(|error| FleetError::Schema {
            message: format!("the PostgreSQL connection parameters do not parse: {error}"),
        })?;
        let mut conn = Backend::Postgres(Box::new(db::PgConnection::connect(config)?));
        schema::migrate(&mut conn, "the database")?;
        Ok(Fleet::with_backend(conn))
    }

    fn with_backend(conn: Backend) -> Fleet {
        Fleet {
            conn,
            keep: NonZeroUsize::new(20).unwrap_or(NonZeroUsize::MIN),
            max_attempts: 5,
            claims: worker::Claims::default(),
        }
    }

    /// This fleet, keeping the last `keep` history entries in each
    /// instance's snapshot (default 20).
    pub fn keeping_history(mut self, keep: NonZeroUsize) -> Fleet {
        self.keep = keep;
        self
    }

    /// This fleet, giving up on an output after `max_attempts` failed
    /// attempts (default 5): it is then `dead`.
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Fleet {
        self.max_attempts = max_attempts.max(1);
        self
    }

    /// The SQLite connection of a fleet opened with [`Fleet::open`], for
    /// the caller's own transactions (see [`send`]); `None` on PostgreSQL.
    pub fn sqlite(&mut self) -> Option<&mut rusqlite::Connection> {
        match &mut self.conn {
            Backend::Sqlite(conn) => Some(conn),
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => None,
        }
    }

    /// The PostgreSQL client of a fleet opened with [`Fleet::connect`], for
    /// the caller's own transactions (see [`send`]); `None` on SQLite.
    #[cfg(feature = "postgres")]
    pub fn postgres(&mut self) -> Option<&mut postgres::Client> {
        match &mut self.conn {
            Backend::Sqlite(_) => None,
            Backend::Postgres(conn) => Some(conn.client()),
        }
    }

    /// Create instance `id` of `machine`'s type in its current state (a new
    /// machine, with its context): its snapshot, with an empty outbox, and
    /// its next wake, the first deadline its timers hold.
    ///
    /// **Timers start here.** A timer of the initial state (`after 1h`) is
    /// armed when `machine` is made, so its hour runs from the creation,
    /// not from the first event, and not from the first time a worker
    /// steps the instance: instances created long before their first
    /// events (a backlog loaded in advance, workers started late) can
    /// expire before any event arrives. That is the rule of every driver
    /// (a state's timers run from when it is entered), but it surprises.
    /// To start a timer later, give the machine an initial state without
    /// it, left on an event the caller sends when the clock should start:
    ///
    /// ```
    /// use fsm_fleet::{Fleet, Machines};
    ///
    /// fsm_runtime::fsm! {
    ///     machine Offer {
    ///         // No timer here: creating an offer arms nothing.
    ///         initial state idle { on start -> waiting; }
    ///         // The hour runs from `start`.
    ///         state waiting { on accept -> accepted; after 1h -> lapsed emit expired; }
    ///         terminal state accepted;
    ///         terminal state lapsed;
    ///     }
    /// }
    /// use offer::{Action, Offer};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let mut fleet = Fleet::open(dir.path().join("fleet.db"))?;
    /// fleet.create("offer-1", Offer::new())?;
    /// assert_eq!(fleet.instance("offer-1")?.unwrap().next_wake, None);
    ///
    /// // Later, when the offer is made: its hour starts with this step.
    /// fleet.send_to::<Offer>("offer-1", &Action::Start, "start")?;
    /// fleet.work(&Machines::new().with::<Offer>(), 10)?;
    /// let offer = fleet.instance("offer-1")?.unwrap();
    /// assert_eq!(offer.state, "waiting");
    /// assert!(offer.next_wake.is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FleetError::DuplicateInstance`] when `id` is taken;
    /// [`FleetError::InstanceIdTooLong`] when it is longer than
    /// [`MAX_INSTANCE_ID_BYTES`] (before any statement); a context that
    /// does not serialize.
    pub fn create<M: Persist>(&mut self, id: &str, machine: M) -> Result<(), FleetError> {
        if id.len() > MAX_INSTANCE_ID_BYTES {
            return Err(FleetError::InstanceIdTooLong {
                id: id.to_owned(),
                length: id.len(),
                limit: MAX_INSTANCE_ID_BYTES,
            });
        }
        let state = crate::machines::state_name(&machine.state());
        let run = Recorded::with_history(machine, History::bounded(self.keep)).with_outbox();
        let snapshot = run.snapshot().map_err(|e| FleetError::Serialize {
            id: id.to_owned(),
            message: e.to_string(),
        })?;
        // The earliest of its armed timers, which its snapshot lists (so a
        // machine whose timers fire with guards passed per call is created
        // as any other).
        let next_wake = snapshot.timers().iter().map(|timer| millis(timer.due())).min();
        let snapshot = serde_json::to_string(&snapshot).map_err(|e| FleetError::Serialize {
            id: id.to_owned(),
            message: e.to_string(),
        })?;
        let now = now_millis();
        let inserted = self.conn.execute(
            "INSERT INTO fsm_instances
                 (id, machine, fingerprint, state, snapshot, version, next_wake, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?7, ?7)
             ON CONFLICT (id) DO NOTHING",
            params![
                id,
                M::NAME,
                M::FINGERPRINT,
                state.as_ref(),
                snapshot.as_str(),
                next_wake,
                now
            ],
        )?;
        if inserted == 0 {
            return Err(FleetError::DuplicateInstance { id: id.to_owned() });
        }
        Ok(())
    }

    /// Send `event` to instance `id` (see [`send`], which does it inside a
    /// transaction of the caller's). `event` is any value that serializes:
    /// the path for JSON built by hand or from other languages; a worker
    /// finds out whether it is an event of the instance's machine, and sets
    /// it aside as `dead` if not. From Rust, [`Fleet::send_to`] checks both
    /// when sending.
    ///
    /// # Errors
    ///
    /// As [`send`].
    pub fn send<E: serde::Serialize + ?Sized>(
        &mut self,
        id: &str,
        event: &E,
        dedup_key: &str,
    ) -> Result<Sent, FleetError> {
        check_key(id, dedup_key)?;
        let json = event_json(id, event)?;
        db::transaction(&mut self.conn, |tx| send_json(tx, id, &json, dedup_key, None))
    }

    /// Send `event`, an event of machine `M`, to instance `id`, an instance
    /// of `M` (see [`send_to`], which does it inside a transaction of the
    /// caller's): an event of another machine does not compile, and an
    /// instance of another machine is refused with
    /// [`FleetError::WrongMachine`], nothing sent. The machine is named,
    /// since an event's type does not say whose it is:
    ///
    /// ```
    /// use fsm_fleet::{Fleet, FleetError, Sent};
    ///
    /// fsm_runtime::fsm! {
    ///     machine Order {
    ///         initial state placed { on pay -> paid; }
    ///         terminal state paid;
    ///     }
    /// }
    /// fsm_runtime::fsm! {
    ///     machine Refund {
    ///         initial state requested { on approve -> approved; }
    ///         terminal state approved;
    ///     }
    /// }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let mut fleet = Fleet::open(dir.path().join("fleet.db"))?;
    /// fleet.create("order-17", order::Order::new())?;
    /// let sent = fleet.send_to::<order::Order>("order-17", &order::Action::Pay, "pay-1")?;
    /// assert_eq!(sent, Sent::Accepted);
    ///
    /// // A refund's event, to an order: refused, not sent.
    /// let refused = fleet.send_to::<refund::Refund>("order-17", &refund::Action::Approve, "approve-1");
    /// assert!(matches!(refused, Err(FleetError::WrongMachine { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`send_to`].
    pub fn send_to<M>(&mut self, id: &str, event: &M::Event, dedup_key: &str) -> Result<Sent, FleetError>
    where
        M: Machine,
        M::Event: serde::Serialize,
    {
        check_key(id, dedup_key)?;
        let json = event_json(id, event)?;
        db::transaction(&mut self.conn, |tx| {
            send_json(tx, id, &json, dedup_key, Some(M::NAME))
        })
    }

    /// Send many events at once, each `(instance, event, deduplication
    /// key)`, in one transaction: as [`Fleet::send`] each, in the order
    /// given, in a few statements for every hundred events. What became of
    /// each, in the same order.
    ///
    /// # Errors
    ///
    /// [`FleetError::UnknownInstance`] for the first event whose instance
    /// does not exist, an event that does not serialize or whose key is
    /// longer than [`MAX_DEDUP_KEY_BYTES`] ([`FleetError::DedupKeyTooLong`]),
    /// or a database error: none of the batch is sent.
    pub fn send_batch<E: serde::Serialize>(
        &mut self,
        events: &[(&str, E, &str)],
    ) -> Result<Vec<Sent>, FleetError> {
        let events = batch_json(events)?;
        db::transaction(&mut self.conn, |tx| send_json_batch(tx, &events))
    }

    /// [`Fleet::send_batch`] of events of machine `M`, to instances of `M`,
    /// as [`Fleet::send_to`] each: in the batch's transaction, before its
    /// inserts, every instance named is read, and the first (in the order
    /// given) that does not exist or is of another machine fails the whole
    /// batch. (On PostgreSQL the instances are read without a lock, so that
    /// a sender never waits for a worker: an instance deleted and created
    /// again as another machine between that read and the inserts, a few
    /// milliseconds, would take the event, which its worker then sets
    /// aside as `dead`.)
    ///
    /// # Errors
    ///
    /// As [`Fleet::send_batch`], and [`FleetError::WrongMachine`]: none of
    /// the batch is sent.
    pub fn send_batch_to<M>(&mut self, events: &[(&str, M::Event, &str)]) -> Result<Vec<Sent>, FleetError>
    where
        M: Machine,
        M::Event: serde::Serialize,
    {
        let events = batch_json(events)?;
        db::transaction(&mut self.conn, |tx| {
            check_machines(tx, &events, M::NAME)?;
            send_json_batch(tx, &events)
        })
    }

    /// Put parked instance `id` back to work, once what parked it is fixed
    /// (a worker that knows its machine deployed, its row repaired): its
    /// error is cleared and it is due now, with its pending events. Returns
    /// whether it was parked.
    ///
    /// # Errors
    ///
    /// [`FleetError::UnknownInstance`], or a database error.
    pub fn unpark(&mut self, id: &str) -> Result<bool, FleetError> {
        db::transaction(&mut self.conn, |tx| {
            let Some(mut row) = tx.query_opt(
                "SELECT CASE WHEN error IS NULL THEN 0 ELSE 1 END FROM fsm_instances WHERE id = ?1",
                params![id],
            )?
            else {
                return Err(FleetError::UnknownInstance { id: id.to_owned() });
            };
            let parked = row.int(0)? != 0;
            if parked {
                tx.execute(
                    "UPDATE fsm_instances SET error = NULL, next_wake = ?2, updated_at = ?2 WHERE id = ?1",
                    params![id, now_millis()],
                )?;
                tx.execute(
                    "UPDATE fsm_inbox SET status = 'pending' WHERE instance = ?1 AND status = 'held'",
                    params![id],
                )?;
            }
            Ok(parked)
        })
    }

    /// Instance `id`, if there is one.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn instance(&mut self, id: &str) -> Result<Option<Instance>, FleetError> {
        let row = self.conn.query_opt(
            "SELECT id, machine, fingerprint, state, snapshot, version, next_wake, error
             FROM fsm_instances WHERE id = ?1",
            params![id],
        )?;
        let Some(mut row) = row else {
            return Ok(None);
        };
        Ok(Some(Instance {
            id: row.text(0)?,
            machine: row.text(1)?,
            fingerprint: row.text(2)?,
            state: row.text(3)?,
            snapshot: row.text(4)?,
            version: row.int(5)?,
            next_wake: row.opt_int(6)?.map(timestamp),
            error: row.opt_text(7)?,
        }))
    }

    /// Step up to `batch` instances whose next wake has passed (earliest
    /// first within each machine, each call starting with the next of
    /// `machines`) or that have pending events, in one transaction. Each
    /// `Fleet` remembers where its machines' due deadlines start, so that a
    /// claim reads only the batch, however many timers fired before it; a
    /// deadline that was already behind that point when its row committed
    /// (its transaction took more than a second) fires within a second, or
    /// ten while that machine's batches are full.
    /// For each instance: its pending events in the order
    /// sent, then its due timers at their deadlines, then the snapshot saved
    /// (its version one higher), the next wake re-armed, and every output
    /// written to the outbox under its key. An event that is not the
    /// machine's is `dead`, one the machine refuses `rejected`, one after
    /// which the machine ran away (`FireError::Runaway`: it moved, and its
    /// outputs go to the outbox as a taken event's) `runaway`, with the
    /// error; an instance
    /// whose machine is not in `machines`, whose fingerprint differs or whose
    /// snapshot does not restore is parked with the error, its row and
    /// events untouched. Neither stops the batch.
    ///
    /// On PostgreSQL the batch's rows are locked (`FOR UPDATE SKIP
    /// LOCKED`): workers at once claim disjoint batches.
    ///
    /// # Errors
    ///
    /// A database error: the transaction rolls back, nothing is stepped.
    pub fn work(&mut self, machines: &Machines, batch: usize) -> Result<Worked, FleetError> {
        let keep = self.keep;
        let claims = &mut self.claims;
        db::transaction(&mut self.conn, |tx| {
            Ok(worker::work(tx, machines, claims, keep, batch)?)
        })
    }

    /// Delete what the fleet no longer needs, by `rules` ([`Prune`]: events
    /// consumed, outputs done, instances finished and dead rows, each
    /// older than an age), and count it; with [`Prune::dry_run`], only
    /// count it. Pending and held events, pending outputs, instances not
    /// finished and rows younger than their rule's age are never deleted;
    /// dead events and outputs only by [`Prune::dead`].
    ///
    /// Rows are deleted at most [`Prune::batch_size`] a statement, each
    /// batch in a transaction of its own (a finished instance with all its
    /// rows, in one), found through indexes: workers, senders and handlers
    /// go on meanwhile, and a prune stopped midway has deleted whole
    /// batches. The dead rows go first, then consumed events, done outputs
    /// and finished instances. With no rule, nothing is deleted.
    ///
    /// # Errors
    ///
    /// A database error: the batches committed before it stay deleted.
    pub fn prune(&mut self, rules: &Prune) -> Result<Pruned, FleetError> {
        crate::prune::prune(&mut self.conn, rules)
    }

    /// Claim up to `limit` outputs to perform, each for `lease`: the
    /// earliest pending output of each instance whose next attempt is due
    /// (so an instance's outputs are performed in order), none leased to
    /// another handler. A handler that dies lets its lease run out, and the
    /// output is claimed again: delivery is at least once, under the same
    /// key. The claim is one transaction however many it takes: a handler
    /// that claims a hundred at a time and settles them with
    /// [`Fleet::outputs_done`] commits twice per hundred, where one at a
    /// time commits twice per output.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn claim_outputs(&mut self, limit: usize, lease: Duration) -> Result<Vec<ClaimedOutput>, FleetError> {
        db::transaction(&mut self.conn, |tx| {
            let now = now_millis();
            // An output is its instance's earliest pending one when no
            // pending output of the instance comes before it: one descent
            // of `fsm_outbox_instance_pending` to the place before it (a
            // comparison of `(step, idx)` as a whole is a range of that
            // index; written as `step < ? OR ...` it was a filter over every
            // pending output of the instance, six times slower for a batch
            // of a hundred).
            let sql = format!(
                "SELECT o.key, o.instance, o.output, o.attempts, o.lease + 1, i.machine, o.step, o.idx
                 FROM fsm_outbox o JOIN fsm_instances i ON i.id = o.instance
                 WHERE o.status = 'pending' AND o.next_attempt <= ?1
                   AND (o.leased_until IS NULL OR o.leased_until <= ?1)
                   AND NOT EXISTS (
                       SELECT 1 FROM fsm_outbox e
                       WHERE e.instance = o.instance AND e.status = 'pending'
                         AND (e.step, e.idx) < (o.step, o.idx))
                 ORDER BY o.next_attempt, o.instance LIMIT ?2{}",
                tx.dialect().claim("o")
            );
            let rows = tx.query(&sql, params![now, sql_limit(limit)])?;
            let claimed = rows
                .into_iter()
                .map(|mut row| {
                    Ok(ClaimedOutput {
                        key: row.text(0)?,
                        instance: row.text(1)?,
                        output: row.text(2)?,
                        attempts: u32::try_from(row.int(3)?).unwrap_or(u32::MAX),
                        lease: row.int(4)?,
                        machine: row.text(5)?,
                        step: u64::try_from(row.int(6)?).unwrap_or(0),
                        index: u32::try_from(row.int(7)?).unwrap_or(u32::MAX),
                    })
                })
                .collect::<Result<Vec<_>, DatabaseError>>()?;
            let until = now.saturating_add(i64::try_from(lease.as_millis()).unwrap_or(i64::MAX));
            // The rows are locked (in SQLite, the whole database is): each
            // lease becomes the number read, a hundred outputs a statement.
            for chunk in claimed.chunks(OUTPUTS_PER_STATEMENT) {
                let keys = (0..chunk.len())
                    .map(|i| format!("?{}", i + 2))
                    .collect::<Vec<_>>()
                    .join(", ");
                let mut values = vec![db::Param::Int(until)];
                values.extend(chunk.iter().map(|output| db::Param::Text(&output.key)));
                tx.execute(
                    &format!(
                        "UPDATE fsm_outbox SET leased_until = ?1, lease = lease + 1 WHERE key IN ({keys})"
                    ),
                    &values,
                )?;
            }
            Ok(claimed)
        })
    }

    /// `output` was performed: it is `done`. False when the claim's lease
    /// ran out and another handler claimed it since (that handler settles
    /// it); nothing changes then. [`Fleet::outputs_done`] settles many in
    /// one transaction.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn output_done(&mut self, output: &ClaimedOutput) -> Result<bool, FleetError> {
        let changed = self.conn.execute(
            "UPDATE fsm_outbox SET status = 'done', leased_until = NULL, error = NULL, settled_at = ?3
             WHERE key = ?1 AND status = 'pending' AND lease = ?2",
            params![output.key.as_str(), output.lease, now_millis()],
        )?;
        Ok(changed == 1)
    }

    /// `outputs` were performed: each is `done`, as by
    /// [`Fleet::output_done`], all in one transaction (one commit, and so
    /// one flush to disk, for the batch, in a statement for every hundred).
    /// Whether each settled, in the same order: false for one whose claim's
    /// lease ran out and that another handler claimed since (that handler
    /// settles it), and for a claim given twice, the second time. The
    /// others settle all the same.
    ///
    /// # Errors
    ///
    /// A database error: none of them is settled.
    pub fn outputs_done(&mut self, outputs: &[ClaimedOutput]) -> Result<Vec<bool>, FleetError> {
        db::transaction(&mut self.conn, |tx| {
            let now = now_millis();
            let mut settled = std::collections::HashSet::new();
            for chunk in outputs.chunks(OUTPUTS_PER_STATEMENT) {
                let claims = (0..chunk.len())
                    .map(|i| format!("(key = ?{} AND lease = ?{})", 2 + 2 * i, 3 + 2 * i))
                    .collect::<Vec<_>>()
                    .join(" OR ");
                let mut values = vec![db::Param::Int(now)];
                for output in chunk {
                    values.extend([db::Param::Text(&output.key), db::Param::Int(output.lease)]);
                }
                let rows = tx.query(
                    &format!(
                        "UPDATE fsm_outbox SET status = 'done', leased_until = NULL, error = NULL, settled_at = ?1
                         WHERE status = 'pending' AND ({claims})
                         RETURNING key, lease"
                    ),
                    &values,
                )?;
                for mut row in rows {
                    settled.insert((row.text(0)?, row.int(1)?));
                }
            }
            Ok(outputs
                .iter()
                .map(|output| settled.remove(&(output.key.clone(), output.lease)))
                .collect())
        })
    }

    /// Performing `output` failed with `error`: it is tried again after a
    /// backoff (1 s, doubling, at most 5 minutes), or, after the fleet's
    /// maximum attempts, it is `dead`, with the error, and the instance's
    /// later outputs go on. Nothing changes when the claim's lease ran out
    /// and another handler claimed the output since.
    /// [`Fleet::outputs_failed`] fails many in one transaction.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn output_failed(&mut self, output: &ClaimedOutput, error: &str) -> Result<Failed, FleetError> {
        let max_attempts = self.max_attempts;
        Ok(fail(
            &mut self.conn,
            output,
            &stored::bounded(error),
            max_attempts,
            now_millis(),
        )?)
    }

    /// Performing `outputs` failed, all with `error` (a batch sent at once,
    /// refused at once): each is failed as by [`Fleet::output_failed`], all
    /// in one transaction (one commit for the batch). What became of each,
    /// in the same order: [`Failed::LeaseLost`] for one another handler
    /// claimed since its lease ran out; the others are failed all the same.
    ///
    /// # Errors
    ///
    /// A database error: none of them is failed.
    pub fn outputs_failed(
        &mut self,
        outputs: &[ClaimedOutput],
        error: &str,
    ) -> Result<Vec<Failed>, FleetError> {
        let max_attempts = self.max_attempts;
        let error = stored::bounded(error);
        db::transaction(&mut self.conn, |tx| {
            let now = now_millis();
            outputs
                .iter()
                .map(|output| Ok(fail(tx, output, &error, max_attempts, now)?))
                .collect()
        })
    }
}

/// The most outputs one statement of the outbox's batches names.
const OUTPUTS_PER_STATEMENT: usize = 100;

/// Fail `output` with `error` (bounded already) at `now`: retried after its
/// backoff, or `dead` after `max_attempts`; [`Failed::LeaseLost`] when its
/// claim no longer holds it.
fn fail<D: Db + ?Sized>(
    conn: &mut D,
    output: &ClaimedOutput,
    error: &str,
    max_attempts: u32,
    now: i64,
) -> Result<Failed, DatabaseError> {
    let attempts = output.attempts.saturating_add(1);
    let dead = attempts >= max_attempts;
    let backoff = 1_000i64
        .saturating_mul(1 << attempts.saturating_sub(1).min(20))
        .min(300_000);
    let next_attempt = now.saturating_add(backoff);
    let changed = conn.execute(
        "UPDATE fsm_outbox
         SET attempts = ?3, status = ?4, next_attempt = ?5, leased_until = NULL, error = ?6,
             settled_at = ?7
         WHERE key = ?1 AND status = 'pending' AND lease = ?2",
        params![
            output.key.as_str(),
            output.lease,
            attempts,
            if dead { "dead" } else { "pending" },
            next_attempt,
            error,
            dead.then_some(now)
        ],
    )?;
    Ok(match (changed, dead) {
        (0, _) => Failed::LeaseLost,
        (_, true) => {
            tracing::warn!(key = output.key, error, attempts, "dead output");
            Failed::Dead
        }
        (_, false) => Failed::RetryAt(timestamp(next_attempt)),
    })
}

/// `limit` as a query's `LIMIT`.
pub(crate) fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}
