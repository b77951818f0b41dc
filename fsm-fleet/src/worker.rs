//! A worker's batch: claim the due instances, read their events in one
//! query, step each in memory, and write every result in a few statements
//! for the whole batch.
//!
//! The writes of the batch go in one savepoint. When one of them fails (an
//! output key taken because a snapshot's history was set back by hand, a
//! version that moved), the savepoint is rolled back and the batch is
//! written again one instance at a time, each in a savepoint of its own, so
//! that the instance at fault is parked and the others are saved.

use crate::db::{params, DatabaseError, Db, Dialect, Param, Row};
use crate::fleet::{sql_limit, Parked, Worked};
use crate::machines::{InboxEvent, Machines, Outcome, Stepped};
use crate::schema::{millis, now_millis, timestamp};
use crate::stored;
use std::collections::HashMap;
use std::num::NonZeroUsize;

/// The most events one instance consumes in one step: an instance sent more
/// stays due, and a later batch goes on with them.
const MAX_EVENTS_PER_STEP: i64 = 1_000;

/// The most rows one statement writes.
const ROWS_PER_STATEMENT: usize = 100;

/// How many of the oldest pending events a worker looks through for
/// instances to claim, per instance of its batch: instances that other
/// workers hold (their events pending until they commit) are skipped within
/// this window.
const EVENT_WINDOW_PER_INSTANCE: usize = 64;

/// An instance a worker claimed, as its row holds it.
struct Claimed {
    id: String,
    machine: String,
    fingerprint: String,
    snapshot: String,
    version: i64,
    /// Claimed because its earliest deadline passed (else for its events).
    for_timer: bool,
}

/// An instance stepped in memory, to be written.
struct Step {
    id: String,
    machine: String,
    version: i64,
    stepped: Stepped,
}

/// Step up to `batch` due instances of `machines` in `tx`: see
/// [`Fleet::work`](crate::Fleet::work).
pub(crate) fn work<D: Db + ?Sized>(
    tx: &mut D,
    machines: &Machines,
    claims: &mut Claims,
    keep: NonZeroUsize,
    batch: usize,
) -> Result<Worked, DatabaseError> {
    let now = now_millis();
    // Only the machines this worker knows: a worker built for some machines
    // leaves the others' instances to the workers that know them.
    let names: Vec<&str> = machines.names().collect();
    let mut worked = Worked::default();
    if names.is_empty() || batch == 0 {
        return Ok(worked);
    }
    let claimed = claim(tx, claims, &names, now, batch)?;
    if claimed.is_empty() {
        return Ok(worked);
    }
    let mut events = read_events(tx, &claimed)?;
    let mut steps = Vec::with_capacity(claimed.len());
    let mut parks = Vec::new();
    for instance in claimed {
        let span = tracing::info_span!(
            "fsm_fleet_step",
            instance = %instance.id,
            machine = %instance.machine,
            version = instance.version
        );
        let _entered = span.enter();
        let events = events.remove(&instance.id).unwrap_or_default();
        if events.is_empty() && !instance.for_timer {
            // Its events were consumed by a worker that committed between
            // this claim's view of the inbox and its lock (PostgreSQL
            // re-checks a locked row's own columns, not the inbox): nothing
            // is left to do, and a step would only save it again.
            tracing::debug!("nothing left to step");
            continue;
        }
        match step(machines, keep, &instance, &events) {
            Ok(stepped) => steps.push(Step {
                id: instance.id,
                machine: instance.machine,
                version: instance.version,
                stepped,
            }),
            Err(error) => parks.push(Parked {
                id: instance.id,
                error,
            }),
        }
    }
    let consumed_at = now_millis();
    tx.batch("SAVEPOINT fsm_fleet_batch")?;
    match write(tx, &steps, now, consumed_at) {
        Ok(()) => tx.batch("RELEASE fsm_fleet_batch")?,
        Err(error) => {
            // One instance's write failed: each on its own, to find it.
            tracing::debug!(%error, "the batch's writes failed; writing each instance alone");
            tx.batch("ROLLBACK TO fsm_fleet_batch; RELEASE fsm_fleet_batch")?;
            let mut written = Vec::with_capacity(steps.len());
            for one in steps {
                tx.batch("SAVEPOINT fsm_fleet_step")?;
                match write(tx, std::slice::from_ref(&one), now, consumed_at) {
                    Ok(()) => {
                        tx.batch("RELEASE fsm_fleet_step")?;
                        written.push(one);
                    }
                    Err(error) => {
                        tx.batch("ROLLBACK TO fsm_fleet_step; RELEASE fsm_fleet_step")?;
                        let error = match error {
                            WriteError::Refused(why) => why,
                            WriteError::Database(error) => {
                                format!("instance `{}` of machine `{}`: {error}", one.id, one.machine)
                            }
                        };
                        parks.push(Parked { id: one.id, error });
                    }
                }
            }
            steps = written;
        }
    }
    for parked in &mut parks {
        // A snapshot's or a panic's message can be as long as the user made it.
        parked.error = stored::bounded(&parked.error);
        tracing::warn!(instance = %parked.id, error = %parked.error, "instance parked");
        tx.execute(
            "UPDATE fsm_instances SET next_wake = NULL, error = ?2, updated_at = ?3 WHERE id = ?1",
            params![parked.id.as_str(), parked.error.as_str(), now],
        )?;
        // Its events wait for it, out of the way of claims.
        tx.execute(
            "UPDATE fsm_inbox SET status = 'held' WHERE instance = ?1 AND status = 'pending'",
            params![parked.id.as_str()],
        )?;
    }
    for one in &steps {
        tracing::debug!(
            instance = %one.id,
            events = one.stepped.outcomes.len(),
            timers = one.stepped.timers,
            outputs = one.stepped.outputs.len(),
            state = %one.stepped.state,
            "stepped"
        );
        worked.instances += 1;
        worked.events += one.stepped.outcomes.len();
        worked.timers += one.stepped.timers;
        worked.outputs += one.stepped.outputs.len();
    }
    worked.parked = parks;
    Ok(worked)
}

/// How often a worker's claim of a machine's timers reads that machine's
/// deadlines from the start, below its lower bound ([`Claims`]): an
/// instance whose deadline was already behind the bound when its row
/// became visible (created in a transaction that took longer than
/// [`BOUND_GRACE_MS`], re-armed with a deadline long past, unparked by
/// hand, armed by a worker whose clock is more than that behind, or claimed
/// by a worker that then rolled back or was killed) fires within this time,
/// or within [`SWEEP_BEHIND_EVERY`] while the machine's claims are behind.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// How often the claims of a machine read its deadlines from the start
/// while they are behind (their last batch was full): a sweep then reads
/// every deadline that fired since the last one, and the many due past the
/// bound are late already.
const SWEEP_BEHIND_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// How far behind now a claim that found every due timer of its machine
/// puts the next claim's lower bound: a step or a creation that arms a
/// deadline already due, and commits within this time, is claimed at once.
const BOUND_GRACE_MS: i64 = 1_000;

/// What a worker remembers between its claims: where each machine's due
/// deadlines start, and which machine goes first.
///
/// A deadline that fired leaves its entry in `fsm_instances_due` on
/// PostgreSQL (a dead row version, until vacuum removes it), at the head
/// of the machine's range, where a claim that starts at the beginning reads
/// past every one of them. So a claim starts past a lower bound of the
/// machine's `(deadline, id)`, the index's own order: after a full batch,
/// the last one it took (more are due from there; the id tells apart the
/// many instances of a burst due at the same millisecond); after a batch
/// that took every due deadline, [`BOUND_GRACE_MS`] before now. Its cost is
/// then the batch, and the rows other workers hold, however many timers
/// already fired. Every [`SWEEP_EVERY`] (every [`SWEEP_BEHIND_EVERY`] while
/// its batches are full) a claim starts at the beginning instead, for
/// deadlines that became visible behind the bound.
#[derive(Debug, Default)]
pub(crate) struct Claims {
    bounds: HashMap<String, Bound>,
    /// Which machine's timers the next claim asks for first: each claim
    /// starts one machine further, so that one machine's burst of timers
    /// does not hold the others' back.
    first: usize,
}

/// A machine's lower bound, `(deadline, id)`, claims start past, and when
/// a claim last read from the start.
#[derive(Debug)]
struct Bound {
    at: (i64, String),
    swept: std::time::Instant,
    /// The last claim's batch was full: more were due past it.
    behind: bool,
}

/// Where a claim that reads from the start starts past: before every
/// deadline.
const START: (i64, String) = (i64::MIN, String::new());

/// The statement that claims a machine's due timers: `?1` now, `?2` how
/// many, `?3` the machine, `?4` and `?5` the `(deadline, id)` it starts
/// past. The partial index's own condition is written out, so that every
/// planner sees that it holds.
fn timers_statement(dialect: Dialect) -> String {
    format!(
        "SELECT id, machine, fingerprint, snapshot, version, next_wake FROM fsm_instances
         WHERE machine = ?3 AND next_wake IS NOT NULL AND (next_wake, id) > (?4, ?5) AND next_wake <= ?1
         ORDER BY next_wake, id LIMIT ?2{}",
        dialect.claim("fsm_instances")
    )
}

/// What the claims of due timers set on PostgreSQL, for their own
/// statements only ([`ORDERED_SCANS_END`] sets them back): plans that read
/// an index in its order, never a bitmap of every entry in range, sorted.
/// The planner chooses by its estimate of how many rows are due, which on a
/// table filled at once, before its statistics are gathered, is a handful
/// where a burst has a hundred thousand; with a bitmap such a claim reads
/// every due entry, dead ones too, at each batch. Without these plans the
/// only one left is the scan of `fsm_instances_due` in its order, which
/// stops after the batch.
const ORDERED_SCANS: &str =
    "SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off";

/// [`ORDERED_SCANS`] set back, for the rest of the transaction.
const ORDERED_SCANS_END: &str = "SET LOCAL enable_bitmapscan TO DEFAULT; \
     SET LOCAL enable_sort TO DEFAULT; SET LOCAL enable_seqscan TO DEFAULT";

/// The settings ([`ORDERED_SCANS`], as they are written in a transaction)
/// under which a worker runs [`timers_claim_statement`] on PostgreSQL: for
/// tests of its query plan. Not part of the API.
#[doc(hidden)]
pub fn timers_claim_settings() -> &'static str {
    ORDERED_SCANS
}

/// The statement a worker claims a machine's due timers with, as it runs on
/// PostgreSQL (`postgres`) or SQLite, with SQLite's parameters (`?1` now,
/// `?2` how many, `?3` the machine, `?4` and `?5` the `(deadline, id)` it
/// starts past): for tests of its query plan. Not part of the API.
#[doc(hidden)]
pub fn timers_claim_statement(postgres: bool) -> String {
    #[cfg(feature = "postgres")]
    if postgres {
        return timers_statement(Dialect::Postgres);
    }
    let _ = postgres;
    timers_statement(Dialect::Sqlite)
}

/// Claim up to `batch` due instances of the machines `names`: those whose
/// earliest deadline has passed, earliest first within each machine (one
/// query a machine, each reading `fsm_instances_due` in its order from the
/// machine's lower bound, see [`Claims`]), then those with pending events,
/// oldest event first (each machine's oldest, read through `fsm_inbox_due`
/// in order). Each is claimed once; on PostgreSQL each row is locked, and
/// rows other workers hold are skipped.
fn claim<D: Db + ?Sized>(
    tx: &mut D,
    claims: &mut Claims,
    names: &[&str],
    now: i64,
    batch: usize,
) -> Result<Vec<Claimed>, DatabaseError> {
    let lock = tx.dialect().claim("fsm_instances");
    let mut claimed: Vec<Claimed> = Vec::with_capacity(batch);
    let timers = timers_statement(tx.dialect());
    let first = claims.first % names.len();
    claims.first = claims.first.wrapping_add(1);
    let postgres = tx.dialect() != Dialect::Sqlite;
    if postgres {
        tx.batch(ORDERED_SCANS)?;
    }
    for name in names[first..].iter().chain(&names[..first]) {
        let left = batch - claimed.len().min(batch);
        if left == 0 {
            break;
        }
        let bound = claims.bounds.entry((*name).to_owned()).or_insert_with(|| Bound {
            at: START,
            swept: std::time::Instant::now(),
            behind: false,
        });
        let every = if bound.behind {
            SWEEP_BEHIND_EVERY
        } else {
            SWEEP_EVERY
        };
        if bound.at == START || bound.swept.elapsed() >= every {
            bound.at = START;
            bound.swept = std::time::Instant::now();
        }
        let rows = tx.query(
            &timers,
            &[
                Param::Int(now),
                Param::Int(sql_limit(left)),
                Param::Text(name),
                Param::Int(bound.at.0),
                Param::Text(&bound.at.1),
            ],
        )?;
        let full = rows.len() >= left;
        // Behind: its own claim filled a whole batch, not the rest of one
        // that other machines' timers had mostly filled.
        let behind = full && left == batch;
        let mut last = None;
        for mut row in rows {
            let at = row.int(5)?;
            let before = claimed.len();
            read_claimed(vec![row], true, &mut claimed)?;
            if let Some(one) = claimed[before..].last() {
                last = Some((at, one.id.clone()));
            }
        }
        // After a full batch more are due past the last one taken (rows
        // come in the index's order); after a short one every due deadline
        // was taken, or is held by another worker, which steps it.
        bound.behind = behind && last.is_some();
        bound.at = match last {
            Some(last) if full => last,
            _ => (now.saturating_sub(BOUND_GRACE_MS), String::new()),
        };
    }
    if postgres {
        tx.batch(ORDERED_SCANS_END)?;
    }
    let left = batch - claimed.len().min(batch);
    if left > 0 {
        // Each machine's oldest pending events, in `fsm_inbox_due`'s
        // order: a list of machines (`machine IN (...)`) would read every
        // pending event of them all, and sort them, at each claim.
        let oldest = (0..names.len())
            .map(|i| {
                format!(
                    "SELECT instance FROM (SELECT instance FROM fsm_inbox
                     WHERE status = 'pending' AND machine = ?{} ORDER BY seq LIMIT ?2) AS m{i}",
                    i + 3
                )
            })
            .collect::<Vec<_>>()
            .join(" UNION ALL ");
        let events = format!(
            "SELECT id, machine, fingerprint, snapshot, version FROM fsm_instances
             WHERE error IS NULL AND id IN ({oldest})
             LIMIT ?1{lock}"
        );
        let window = batch.saturating_mul(EVENT_WINDOW_PER_INSTANCE).max(1_000);
        let mut values = vec![Param::Int(sql_limit(left)), Param::Int(sql_limit(window))];
        values.extend(names.iter().map(|name| Param::Text(name)));
        read_claimed(tx.query(&events, &values)?, false, &mut claimed)?;
    }
    Ok(claimed)
}

/// The instances `rows` claimed, added to `claimed` unless there already:
/// due both for a timer and for events, an instance is claimed (and
/// locked) by the first query.
fn read_claimed(rows: Vec<Row>, for_timer: bool, claimed: &mut Vec<Claimed>) -> Result<(), DatabaseError> {
    for mut row in rows {
        let id = row.text(0)?;
        if claimed.iter().any(|c| c.id == id) {
            continue;
        }
        claimed.push(Claimed {
            id,
            machine: row.text(1)?,
            fingerprint: row.text(2)?,
            snapshot: row.text(3)?,
            version: row.int(4)?,
            for_timer,
        });
    }
    Ok(())
}

/// The pending events of the `claimed` instances, at most
/// [`MAX_EVENTS_PER_STEP`] each, in order: one query for the batch.
fn read_events<D: Db + ?Sized>(
    tx: &mut D,
    claimed: &[Claimed],
) -> Result<HashMap<String, Vec<InboxEvent>>, DatabaseError> {
    let mut events: HashMap<String, Vec<InboxEvent>> = HashMap::new();
    for chunk in claimed.chunks(ROWS_PER_STATEMENT) {
        let in_list = (0..chunk.len())
            .map(|i| format!("?{}", i + 2))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT instance, seq, event, sent_at FROM (
                 SELECT instance, seq, event, sent_at,
                        ROW_NUMBER() OVER (PARTITION BY instance ORDER BY seq) AS n
                 FROM fsm_inbox WHERE status = 'pending' AND instance IN ({in_list})) e
             WHERE n <= ?1 ORDER BY instance, seq"
        );
        let mut values = vec![Param::Int(MAX_EVENTS_PER_STEP)];
        values.extend(chunk.iter().map(|c| Param::Text(&c.id)));
        for mut row in tx.query(&sql, &values)? {
            events.entry(row.text(0)?).or_default().push(InboxEvent {
                seq: row.int(1)?,
                event: row.text(2)?,
                sent_at: timestamp(row.int(3)?),
            });
        }
    }
    Ok(events)
}

/// Step `instance` in memory: its `events` in order, its due timers, its
/// snapshot taken. `Err` with the reason to park it: its machine or
/// fingerprint is not this worker's, its snapshot does not restore, or a
/// guard, effect, delay or `Deserialize` of the user's panicked.
fn step(
    machines: &Machines,
    keep: NonZeroUsize,
    instance: &Claimed,
    events: &[InboxEvent],
) -> Result<Stepped, String> {
    let Claimed {
        id,
        machine,
        fingerprint,
        snapshot,
        ..
    } = instance;
    let Some(driver) = machines.get(machine) else {
        return Err(format!(
            "instance `{id}`: no machine called `{machine}` is registered with this worker"
        ));
    };
    if driver.fingerprint() != fingerprint {
        return Err(format!(
            "instance `{id}` of machine `{machine}` was saved by a different definition \
             (fingerprint {fingerprint}, this worker has {})",
            driver.fingerprint()
        ));
    }
    // A panic parks the instance rather than take the worker down with the
    // whole batch.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        driver.step(snapshot, events, keep)
    }))
    .unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned());
        Err(format!("the step panicked: {message}"))
    })
    .map_err(|error| format!("instance `{id}` of machine `{machine}`: {error}"))
}

/// Why a batch's writes failed.
enum WriteError {
    /// The database refused them (an output key taken, a version moved):
    /// the reason to park the instance, when it is one instance's.
    Refused(String),
    Database(DatabaseError),
}

impl From<DatabaseError> for WriteError {
    fn from(error: DatabaseError) -> WriteError {
        WriteError::Database(error)
    }
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Refused(why) => f.write_str(why),
            WriteError::Database(error) => write!(f, "{error}"),
        }
    }
}

/// Write what `steps` did: their events consumed, their outputs in the
/// outbox, their snapshots saved with a version check and their next wakes.
fn write<D: Db + ?Sized>(tx: &mut D, steps: &[Step], now: i64, consumed_at: i64) -> Result<(), WriteError> {
    // Every event read is consumed, and only those: one statement marks
    // them `done` by their numbers. Never by a range of numbers: on
    // PostgreSQL a number is taken when the row is inserted, not when it
    // commits, so an event numbered below the last one read can commit
    // while this step runs, unread, and must stay pending for the next.
    let consumed: Vec<i64> = steps
        .iter()
        .flat_map(|one| one.stepped.outcomes.iter().map(|(seq, _)| *seq))
        .collect();
    for chunk in consumed.chunks(ROWS_PER_STATEMENT) {
        let mut values = vec![Param::Int(consumed_at)];
        let seqs = numbered(chunk.len(), 1, ", ", |at| format!("?{at}"));
        values.extend(chunk.iter().map(|seq| Param::Int(*seq)));
        tx.execute(
            &format!(
                "UPDATE fsm_inbox SET status = 'done', consumed_at = ?1
                 WHERE status = 'pending' AND seq IN ({seqs})"
            ),
            &values,
        )?;
    }
    // ...then one each the few the machine refused or could not read.
    for one in steps {
        for (seq, outcome) in &one.stepped.outcomes {
            let (status, error) = match outcome {
                Outcome::Done => continue,
                Outcome::Rejected(error) => ("rejected", error.as_str()),
                Outcome::Runaway(error) => {
                    tracing::warn!(instance = %one.id, seq, %error, "runaway event");
                    ("runaway", error.as_str())
                }
                Outcome::Dead(error) => {
                    tracing::warn!(instance = %one.id, seq, %error, "dead event");
                    ("dead", error.as_str())
                }
            };
            tx.execute(
                "UPDATE fsm_inbox SET status = ?2, error = ?3 WHERE seq = ?1",
                params![*seq, status, error],
            )?;
        }
    }
    // The outputs.
    let outputs: Vec<(String, &Step, &fsm_runtime::OutputKey, &str)> = steps
        .iter()
        .flat_map(|one| {
            one.stepped
                .outputs
                .iter()
                .map(move |(key, output)| (format!("{}/{key}", one.id), one, key, *output))
        })
        .collect();
    for chunk in outputs.chunks(ROWS_PER_STATEMENT) {
        let mut values = vec![Param::Int(now)];
        let rows = rows_of(chunk.len(), 5, |at| {
            format!(
                "(?{at}, ?{}, ?{}, ?{}, ?{}, ?1, ?1)",
                at + 1,
                at + 2,
                at + 3,
                at + 4
            )
        });
        for (key, one, output_key, output) in chunk {
            values.extend([
                Param::Text(key),
                Param::Text(&one.id),
                Param::Int(i64::try_from(output_key.step()).unwrap_or(i64::MAX)),
                Param::Int(i64::from(output_key.index())),
                Param::Text(output),
            ]);
        }
        tx.execute(
            &format!(
                "INSERT INTO fsm_outbox (key, instance, step, idx, output, next_attempt, created_at) VALUES {rows}"
            ),
            &values,
        )
        .map_err(|error| match (error.is_unique_violation(), steps) {
            // A key that exists: the snapshot's history was set back (edited
            // by hand), and a new step took an old step's number.
            (true, [one]) => WriteError::Refused(format!(
                "instance `{}` of machine `{}`: an output of this step is in the outbox already ({}): \
                 its history numbers a step it numbered before",
                one.id,
                one.machine,
                chunk
                    .iter()
                    .map(|(key, ..)| format!("`{key}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            _ => WriteError::Database(error),
        })?;
    }
    // The snapshots, with the version each step read: a row whose version
    // moved is not saved. One join of the rows with their new values (both
    // databases have `UPDATE … FROM`), rather than a lookup in them per
    // column and row.
    for chunk in steps.chunks(ROWS_PER_STATEMENT) {
        let mut values = vec![Param::Int(now)];
        let rows = rows_of(chunk.len(), 5, |at| {
            format!(
                "(?{at}, ?{}, ?{}, CAST(?{} AS BIGINT), CAST(?{} AS BIGINT))",
                at + 1,
                at + 2,
                at + 3,
                at + 4
            )
        });
        for one in chunk {
            values.extend([
                Param::Text(&one.id),
                Param::Text(&one.stepped.snapshot),
                Param::Text(&one.stepped.state),
                // Events left for the next step keep it due by themselves.
                one.stepped.next_deadline.map(millis).into(),
                Param::Int(one.version),
            ]);
        }
        let saved = tx.execute(
            &format!(
                "WITH v (id, snapshot, state, next_wake, version) AS (VALUES {rows})
                 UPDATE fsm_instances SET
                     snapshot = v.snapshot, state = v.state, next_wake = v.next_wake,
                     version = fsm_instances.version + 1, error = NULL, updated_at = ?1
                 FROM v
                 WHERE fsm_instances.id = v.id AND fsm_instances.version = v.version"
            ),
            &values,
        )?;
        if saved != chunk.len() as u64 {
            return Err(WriteError::Refused(match chunk {
                [one] => format!(
                    "instance `{}` of machine `{}`: its version moved from {} during the step",
                    one.id, one.machine, one.version
                ),
                _ => format!(
                    "{} of {} versions moved during the step",
                    chunk.len() as u64 - saved,
                    chunk.len()
                ),
            }));
        }
    }
    Ok(())
}

/// `n` rows of a `VALUES` list, each of `width` parameters numbered from
/// `?2` on (`?1` is the statement's own), written by `row` from its first
/// parameter's number.
fn rows_of(n: usize, width: usize, row: impl Fn(usize) -> String) -> String {
    numbered(n, width, ", ", row)
}

/// `n` pieces of a statement, each of `width` parameters numbered from `?2`
/// on, written by `piece` from its first parameter's number and joined by
/// `separator`.
fn numbered(n: usize, width: usize, separator: &str, piece: impl Fn(usize) -> String) -> String {
    (0..n)
        .map(|i| piece(2 + i * width))
        .collect::<Vec<_>>()
        .join(separator)
}

#[cfg(test)]
mod tests {
    #[test]
    fn rows_are_numbered_after_the_statement_s_own_parameter() {
        assert_eq!(
            super::rows_of(2, 2, |at| format!("(?{at}, ?{})", at + 1)),
            "(?2, ?3), (?4, ?5)"
        );
    }
}
