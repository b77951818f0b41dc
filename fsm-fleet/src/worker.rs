//! A worker's batch: claim the due instances, read their events in one
//! query, step each in memory, and write every result in a few statements
//! for the whole batch.
//!
//! The writes of the batch go in one savepoint. When one of them fails (an
//! output key taken because a snapshot's history was set back by hand, a
//! version that moved), the savepoint is rolled back and the batch is
//! written again one instance at a time, each in a savepoint of its own, so
//! that the instance at fault is parked and the others are saved.

use crate::db::{params, DatabaseError, Db, Param, Row};
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
    let claimed = claim(tx, &names, now, batch)?;
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
            state = one.stepped.state,
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

/// Claim up to `batch` due instances of the machines `names`: those whose
/// earliest deadline has passed, earliest first, then those with pending
/// events, oldest event first. Each is claimed once; on PostgreSQL each row
/// is locked, and rows other workers hold are skipped.
fn claim<D: Db + ?Sized>(
    tx: &mut D,
    names: &[&str],
    now: i64,
    batch: usize,
) -> Result<Vec<Claimed>, DatabaseError> {
    // The machines' names are the parameters from `?3` on.
    let in_list = (0..names.len())
        .map(|i| format!("?{}", i + 3))
        .collect::<Vec<_>>()
        .join(", ");
    let lock = tx.dialect().claim("fsm_instances");
    let mut claimed: Vec<Claimed> = Vec::with_capacity(batch);
    let timers = format!(
        "SELECT id, machine, fingerprint, snapshot, version FROM fsm_instances
         WHERE next_wake IS NOT NULL AND next_wake <= ?1 AND machine IN ({in_list})
         ORDER BY next_wake LIMIT ?2{lock}"
    );
    let mut values = vec![Param::Int(now), Param::Int(sql_limit(batch))];
    values.extend(names.iter().map(|name| Param::Text(name)));
    read_claimed(tx.query(&timers, &values)?, true, &mut claimed)?;
    let left = batch - claimed.len().min(batch);
    if left > 0 {
        let events = format!(
            "SELECT id, machine, fingerprint, snapshot, version FROM fsm_instances
             WHERE error IS NULL AND id IN (
                 SELECT instance FROM fsm_inbox
                 WHERE status = 'pending' AND machine IN ({in_list})
                 ORDER BY seq LIMIT ?2)
             LIMIT ?1{lock}"
        );
        let window = batch.saturating_mul(EVENT_WINDOW_PER_INSTANCE).max(1_000);
        values[0] = Param::Int(sql_limit(left));
        values[1] = Param::Int(sql_limit(window));
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
    // moved is not saved.
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
                Param::Text(one.stepped.state),
                // Events left for the next step keep it due by themselves.
                one.stepped.next_deadline.map(millis).into(),
                Param::Int(one.version),
            ]);
        }
        let saved = tx.execute(
            &format!(
                "WITH v (id, snapshot, state, next_wake, version) AS (VALUES {rows})
                 UPDATE fsm_instances SET
                     snapshot = (SELECT snapshot FROM v WHERE v.id = fsm_instances.id),
                     state = (SELECT state FROM v WHERE v.id = fsm_instances.id),
                     next_wake = (SELECT next_wake FROM v WHERE v.id = fsm_instances.id),
                     version = version + 1, error = NULL, updated_at = ?1
                 WHERE id IN (SELECT id FROM v)
                   AND version = (SELECT version FROM v WHERE v.id = fsm_instances.id)"
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
