//! Retention: [`Fleet::prune`](crate::Fleet::prune) deletes what a fleet no
//! longer needs (events consumed long ago, outputs done long ago, instances
//! that finished long ago), by rules of age, a bounded batch at a time.
//!
//! Every rule finds its rows through an index (schema version 3, see
//! `schema.rs`), and deletes them in statements of at most a batch of rows,
//! each batch its own transaction: a backlog of any size never holds one
//! long transaction, and memory follows the batch, not the tables.

use crate::db::{self, params, DatabaseError, Db, Param};
use crate::error::FleetError;
use crate::fleet::sql_limit;
use crate::schema::now_millis;
use std::time::Duration;

/// The most rows one statement of [`Fleet::prune`](crate::Fleet::prune)
/// deletes, unless [`Prune::batch_size`] says otherwise.
pub const PRUNE_BATCH: usize = 10_000;

/// The most instances one statement names (an `IN` list of parameters).
const IDS_PER_STATEMENT: usize = 500;

/// The terminal states of the machines a fleet holds, by machine and
/// definition (its fingerprint): what tells a finished instance, since its
/// row holds only its state's name.
/// [`Machines::terminal_states`](crate::Machines::terminal_states) gives
/// them for the machines a worker steps; `fsmc fleet prune` reads them from
/// the machines' `.fsm` files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TerminalStates {
    machines: Vec<TerminalMachine>,
}

/// One definition's terminal states.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TerminalMachine {
    machine: String,
    fingerprint: String,
    states: Vec<String>,
}

impl TerminalStates {
    /// None.
    pub fn new() -> TerminalStates {
        TerminalStates::default()
    }

    /// These and the terminal `states` of machine `machine` as the
    /// definition of fingerprint `fingerprint` has them (replacing what was
    /// given for that definition before). Only instances saved by that very
    /// definition are judged by them: another definition of the machine may
    /// have other states, or the same names not terminal.
    pub fn with<S: AsRef<str>>(
        mut self,
        machine: &str,
        fingerprint: &str,
        states: impl IntoIterator<Item = S>,
    ) -> TerminalStates {
        let states = states.into_iter().map(|s| s.as_ref().to_owned()).collect();
        self.machines
            .retain(|m| !(m.machine == machine && m.fingerprint == fingerprint));
        self.machines.push(TerminalMachine {
            machine: machine.to_owned(),
            fingerprint: fingerprint.to_owned(),
            states,
        });
        self
    }

    /// True when no terminal state is known: a finished rule deletes nothing.
    pub fn is_empty(&self) -> bool {
        self.machines.iter().all(|m| m.states.is_empty())
    }
}

/// What [`Fleet::prune`](crate::Fleet::prune) deletes: each rule is an age,
/// measured back from the moment the prune starts, by the fleet's clock (the
/// times its rows hold); a rule left out deletes nothing.
///
/// ```
/// use fsm_fleet::Prune;
/// use std::time::Duration;
///
/// const DAY: Duration = Duration::from_secs(24 * 3600);
/// let rules = Prune::new().events(30 * DAY).outputs(7 * DAY);
/// assert!(!rules.is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Prune {
    events: Option<Duration>,
    outputs: Option<Duration>,
    finished: Option<(Duration, TerminalStates)>,
    dead: Option<Duration>,
    batch: Option<usize>,
    dry_run: bool,
}

impl Prune {
    /// No rule: nothing is deleted.
    pub fn new() -> Prune {
        Prune::default()
    }

    /// Delete the events consumed (`done`, `rejected` or `runaway`) more than `age`
    /// ago, from every instance's inbox.
    ///
    /// An event's row is what recognizes a repeat of its deduplication key:
    /// once it is gone, an event sent again under the same key is accepted
    /// again, and stepped again, as a new one (as SQS forgets a message's
    /// deduplication id after its window). Keep `age` longer than any
    /// sender retries an event, replies of output handlers
    /// ([`ClaimedOutput::reply_key`](crate::ClaimedOutput::reply_key))
    /// included.
    pub fn events(mut self, age: Duration) -> Prune {
        self.events = Some(age);
        self
    }

    /// Delete the outputs done more than `age` ago from the outbox (by the
    /// time they were done; one done before schema version 3, by the time
    /// it was written). Their keys are not reused: a step's outputs are
    /// numbered by the instance's history, which only goes on.
    pub fn outputs(mut self, age: Duration) -> Prune {
        self.outputs = Some(age);
        self
    }

    /// Delete the instances that finished: in a terminal state (as
    /// `terminal` has them for the definition that saved the instance; see
    /// [`TerminalStates`]), not parked, with no pending or held event, no
    /// pending output and no dead event or output left (those are kept as
    /// evidence, unless [`Prune::dead`] deletes them first), and unchanged
    /// for more than `age`; together with every row of their inboxes and of
    /// the outbox. An event sent afterwards to a deleted instance's id is
    /// refused ([`FleetError::UnknownInstance`](crate::FleetError)), and its
    /// id can be created again.
    pub fn finished(mut self, age: Duration, terminal: impl Into<TerminalStates>) -> Prune {
        self.finished = Some((age, terminal.into()));
        self
    }

    /// Delete the dead events and dead outputs settled more than `age` ago.
    /// The other rules never delete them: they are the operator's evidence
    /// of what went wrong.
    pub fn dead(mut self, age: Duration) -> Prune {
        self.dead = Some(age);
        self
    }

    /// Delete at most `rows` rows a statement, each batch of them in a
    /// transaction of its own (default [`PRUNE_BATCH`]; at least 1).
    pub fn batch_size(mut self, rows: usize) -> Prune {
        self.batch = Some(rows.max(1));
        self
    }

    /// With `true`, count what the rules would delete and delete nothing.
    pub fn dry_run(mut self, dry_run: bool) -> Prune {
        self.dry_run = dry_run;
        self
    }

    /// True when no rule is given.
    pub fn is_empty(&self) -> bool {
        self.events.is_none() && self.outputs.is_none() && self.finished.is_none() && self.dead.is_none()
    }
}

/// What one [`Fleet::prune`](crate::Fleet::prune) deleted (or, in a dry
/// run, would delete). The rows of finished instances count with the others
/// of their kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Consumed events (`done`, `rejected` or `runaway`).
    pub events: u64,
    /// Dead events.
    pub dead_events: u64,
    /// Done outputs.
    pub outputs: u64,
    /// Dead outputs.
    pub dead_outputs: u64,
    /// Finished instances.
    pub instances: u64,
    /// Instances the finished rule did not judge because the definition
    /// that saved them is not one it was given: of a machine it was given,
    /// in a state one of that machine's given definitions calls terminal,
    /// unchanged for longer than the rule's age, but saved under another
    /// fingerprint (an older or newer `.fsm` than the one given). They are
    /// kept, and counted so that a prune given the wrong definition does
    /// not report nothing to do in silence: give it the definition that
    /// saved them too. Counted in a dry run alike; 0 without a finished
    /// rule.
    pub skipped: u64,
}

/// Each rule's limit: rows settled before it are deleted. A rule left out
/// has `i64::MIN`, before which nothing is, so every statement is written
/// once with all of them.
struct Cutoffs {
    events: i64,
    outputs: i64,
    dead: i64,
}

/// The events a finished instance keeps that the other rules delete
/// (`?1`: the events' limit, `?3`: the dead ones'). `consumed_at IS NOT
/// NULL` first, so that the condition is false, never `NULL`, for a row
/// without the time.
const EVENTS_TAKEN: &str =
    "((e.status IN ('done', 'rejected', 'runaway') AND e.consumed_at IS NOT NULL AND e.consumed_at < ?1)
      OR (e.status = 'dead' AND e.consumed_at IS NOT NULL AND e.consumed_at < ?3))";

/// The outputs a finished instance keeps that the other rules delete
/// (`?2`: the outputs' limit, `?3`: the dead ones').
const OUTPUTS_TAKEN: &str = "((o.status = 'done' AND o.settled_at IS NOT NULL AND o.settled_at < ?2)
      OR (o.status = 'dead' AND o.settled_at IS NOT NULL AND o.settled_at < ?3))";

/// Apply `rules` to the fleet in `db`: see
/// [`Fleet::prune`](crate::Fleet::prune).
pub(crate) fn prune<D: Db + ?Sized>(db: &mut D, rules: &Prune) -> Result<Pruned, FleetError> {
    let now = now_millis();
    let before = |age: Option<Duration>| {
        age.map_or(i64::MIN, |age| {
            now.saturating_sub(i64::try_from(age.as_millis()).unwrap_or(i64::MAX))
        })
    };
    let cut = Cutoffs {
        events: before(rules.events),
        outputs: before(rules.outputs),
        dead: before(rules.dead),
    };
    let batch = rules.batch.unwrap_or(PRUNE_BATCH).max(1);
    let dry_run = rules.dry_run;
    let mut pruned = Pruned::default();
    // Dead rows first: an instance whose last dead rows go is finished.
    if rules.dead.is_some() {
        pruned.dead_events = delete_rows(db, dry_run, batch, INBOX, "dead", cut.dead)?;
        pruned.dead_outputs = delete_rows(db, dry_run, batch, OUTBOX, "dead", cut.dead)?;
    }
    if rules.events.is_some() {
        pruned.events = delete_rows(db, dry_run, batch, INBOX, "done", cut.events)?
            + delete_rows(db, dry_run, batch, INBOX, "rejected", cut.events)?
            + delete_rows(db, dry_run, batch, INBOX, "runaway", cut.events)?;
    }
    if rules.outputs.is_some() {
        pruned.outputs = delete_rows(db, dry_run, batch, OUTBOX, "done", cut.outputs)?;
    }
    if let Some((age, terminal)) = &rules.finished {
        let finished_before = before(Some(*age));
        for machine in &terminal.machines {
            for state in &machine.states {
                let mut after: Option<String> = None;
                loop {
                    let page = if dry_run {
                        finished_page(
                            db,
                            &cut,
                            finished_before,
                            machine,
                            state,
                            after.as_deref(),
                            batch,
                            true,
                        )?
                    } else {
                        db::transaction(db, |tx| {
                            finished_page(
                                tx,
                                &cut,
                                finished_before,
                                machine,
                                state,
                                after.as_deref(),
                                batch,
                                false,
                            )
                        })?
                    };
                    pruned.instances += page.instances;
                    pruned.events += page.events;
                    pruned.outputs += page.outputs;
                    match page.next {
                        Some(next) => after = Some(next),
                        None => break,
                    }
                }
            }
        }
        if !dry_run {
            pruned.events += sweep_orphans(db, batch)?;
        }
        pruned.skipped = count_skipped(db, terminal, finished_before)?;
    }
    Ok(pruned)
}

/// How many instances the finished rule did not judge for their
/// fingerprint (see [`Pruned::skipped`]): for each machine `terminal`
/// names, those in a state one of its definitions there calls terminal,
/// unchanged before `finished_before`, saved by none of them. One count a
/// machine and state, read through `fsm_instances_machine_state`: the
/// instances in terminal states, which the rule reads anyway.
fn count_skipped<D: Db + ?Sized>(
    db: &mut D,
    terminal: &TerminalStates,
    finished_before: i64,
) -> Result<u64, FleetError> {
    let mut names: Vec<&str> = terminal.machines.iter().map(|m| m.machine.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let mut skipped = 0;
    for name in names {
        let definitions = || terminal.machines.iter().filter(move |m| m.machine == name);
        let mut states: Vec<&str> = definitions()
            .flat_map(|m| m.states.iter().map(String::as_str))
            .collect();
        states.sort_unstable();
        states.dedup();
        let fingerprints: Vec<&str> = definitions().map(|m| m.fingerprint.as_str()).collect();
        // `?1` the machine, `?2` the state, `?3` the time, then the
        // fingerprints: a definition's fingerprint is 16 hex digits, and a
        // machine has a few definitions at most.
        let not_in = (4..4 + fingerprints.len())
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT COUNT(*) FROM fsm_instances
             WHERE machine = ?1 AND state = ?2 AND updated_at < ?3 AND fingerprint NOT IN ({not_in})"
        );
        for state in states {
            let mut values = vec![Param::Text(name), Param::Text(state), Param::Int(finished_before)];
            values.extend(fingerprints.iter().map(|f| Param::Text(f)));
            skipped += count(db.query_one(&sql, &values)?.int(0)?);
        }
    }
    Ok(skipped)
}

/// A table whose settled rows the simple rules delete: its name, its key
/// and the column of when a row was settled.
struct Table {
    name: &'static str,
    key: &'static str,
    settled: &'static str,
}

/// The inbox: an event is settled when consumed.
const INBOX: Table = Table {
    name: "fsm_inbox",
    key: "seq",
    settled: "consumed_at",
};

/// The outbox: an output is settled when done, or dead.
const OUTBOX: Table = Table {
    name: "fsm_outbox",
    key: "key",
    settled: "settled_at",
};

/// Delete the rows of `table` in `status` settled before `cutoff`, the
/// oldest first, at most `batch` a statement, each statement its own
/// transaction, until none is left; or, in a dry run, count them.
///
/// Both databases read the rows through `fsm_inbox_consumed` or
/// `fsm_outbox_settled` (status, then time: one range, in order), so a
/// batch reads the rows it deletes, and the last one finds none at once,
/// however many rows are kept. The batch is written into the statement, not
/// passed: PostgreSQL's generic plan, not knowing the `LIMIT`, would guess a
/// tenth of the table and read all of it.
fn delete_rows<D: Db + ?Sized>(
    db: &mut D,
    dry_run: bool,
    batch: usize,
    table: Table,
    status: &str,
    cutoff: i64,
) -> Result<u64, FleetError> {
    let Table { name, key, settled } = table;
    if dry_run {
        let sql = format!("SELECT COUNT(*) FROM {name} WHERE status = '{status}' AND {settled} < ?1");
        return Ok(count(db.query_one(&sql, params![cutoff])?.int(0)?));
    }
    let sql = format!(
        "DELETE FROM {name} WHERE {key} IN (
             SELECT {key} FROM {name} WHERE status = '{status}' AND {settled} < ?1
             ORDER BY {settled} LIMIT {batch})"
    );
    let mut deleted = 0;
    loop {
        let n = db::transaction(db, |tx| tx.execute(&sql, params![cutoff]))?;
        deleted += n;
        if n < batch as u64 {
            return Ok(deleted);
        }
    }
}

/// What one page of a finished rule deleted (or would), and the id the
/// next page starts after.
struct Page {
    instances: u64,
    events: u64,
    outputs: u64,
    next: Option<String>,
}

/// One page of instances of `machine` in its terminal `state`, after id
/// `after`: at most `batch` of them read, in id order through
/// `fsm_instances_machine_state` (so a prune reads each terminal instance
/// once, however many are kept); those finished before `finished_before`
/// deleted with their rows, as many as make about `batch` rows, in the
/// caller's transaction; the rest of the page is the next page's.
#[allow(clippy::too_many_arguments)]
fn finished_page<D: Db + ?Sized>(
    tx: &mut D,
    cut: &Cutoffs,
    finished_before: i64,
    machine: &TerminalMachine,
    state: &str,
    after: Option<&str>,
    batch: usize,
    dry_run: bool,
) -> Result<Page, DatabaseError> {
    // The page's last id: its end, or `None` for the last page. Each bound
    // is written only when there is one, so that PostgreSQL's plan is an
    // index range, never a filter on every terminal instance.
    let mut values = vec![
        Param::Text(&machine.machine),
        Param::Text(state),
        Param::Int(sql_limit(batch - 1)),
    ];
    let mut above = String::new();
    if let Some(after) = after {
        values.push(Param::Text(after));
        above = format!(" AND id > ?{}", values.len());
    }
    let end = tx
        .query_opt(
            &format!(
                "SELECT id FROM fsm_instances WHERE machine = ?1 AND state = ?2{above}
                 ORDER BY id LIMIT 1 OFFSET ?3"
            ),
            &values,
        )?
        .map(|mut row| row.text(0))
        .transpose()?;

    // The page's finished instances, each with the rows it keeps that the
    // other rules do not delete (in a real run those are gone already). The
    // conditions are checked again under the transaction's locks: SQLite's
    // writer holds the whole database, and PostgreSQL's rows are locked
    // (those a worker holds are skipped, for a later prune).
    let mut values = vec![
        Param::Int(cut.events),
        Param::Int(cut.outputs),
        Param::Int(cut.dead),
        Param::Text(&machine.machine),
        Param::Text(state),
        Param::Text(&machine.fingerprint),
        Param::Int(finished_before),
    ];
    let mut bounds = String::new();
    if let Some(after) = after {
        values.push(Param::Text(after));
        bounds.push_str(&format!(" AND i.id > ?{}", values.len()));
    }
    if let Some(end) = &end {
        values.push(Param::Text(end));
        bounds.push_str(&format!(" AND i.id <= ?{}", values.len()));
    }
    let lock = if dry_run {
        String::new()
    } else {
        tx.dialect().claim("i")
    };
    let sql = format!(
        "SELECT i.id,
                (SELECT COUNT(*) FROM fsm_inbox e WHERE e.instance = i.id AND NOT {EVENTS_TAKEN}),
                (SELECT COUNT(*) FROM fsm_outbox o WHERE o.instance = i.id AND NOT {OUTPUTS_TAKEN})
         FROM fsm_instances i
         WHERE i.machine = ?4 AND i.state = ?5{bounds}
           AND i.fingerprint = ?6 AND i.error IS NULL AND i.updated_at < ?7
           AND NOT EXISTS (
               SELECT 1 FROM fsm_inbox e WHERE e.instance = i.id
                 AND (e.status IN ('pending', 'held') OR (e.status = 'dead' AND NOT {EVENTS_TAKEN})))
           AND NOT EXISTS (
               SELECT 1 FROM fsm_outbox o WHERE o.instance = i.id
                 AND (o.status = 'pending' OR (o.status = 'dead' AND NOT {OUTPUTS_TAKEN})))
         ORDER BY i.id{lock}"
    );
    let found = tx
        .query(&sql, &values)?
        .into_iter()
        .map(|mut row| Ok((row.text(0)?, count(row.int(1)?), count(row.int(2)?))))
        .collect::<Result<Vec<_>, DatabaseError>>()?;

    // As many as make about `batch` rows, one at least: an instance of many
    // rows is deleted whole, in one transaction.
    let mut taken = 0;
    let mut rows = 0u64;
    for (_, events, outputs) in &found {
        if taken > 0 && rows + 1 + events + outputs > batch as u64 {
            break;
        }
        rows += 1 + events + outputs;
        taken += 1;
    }
    let next = if taken < found.len() {
        Some(found[taken - 1].0.clone())
    } else {
        end
    };
    let found = &found[..taken];
    if dry_run {
        return Ok(Page {
            instances: found.len() as u64,
            events: found.iter().map(|(_, events, _)| events).sum(),
            outputs: found.iter().map(|(_, _, outputs)| outputs).sum(),
            next,
        });
    }
    let mut page = Page {
        instances: 0,
        events: 0,
        outputs: 0,
        next,
    };
    for chunk in found.chunks(IDS_PER_STATEMENT) {
        let ids: Vec<Param<'_>> = chunk.iter().map(|(id, ..)| Param::Text(id)).collect();
        let in_list = (1..=ids.len())
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        // The instances first: on PostgreSQL, a send that read one of them
        // before this transaction commits may still add an event, which the
        // inbox's statement, run after, sees once the send commits first
        // (see `sweep_orphans` for one that commits later).
        page.instances += tx.execute(
            &format!("DELETE FROM fsm_instances WHERE id IN ({in_list})"),
            &ids,
        )?;
        // Their rows through the inbox's unique key and `fsm_outbox_instance`.
        page.events += delete_all(
            tx,
            &format!(
                "DELETE FROM fsm_inbox WHERE seq IN (
                     SELECT seq FROM fsm_inbox WHERE instance IN ({in_list}) LIMIT {batch})"
            ),
            &ids,
            batch,
        )?;
        page.outputs += delete_all(
            tx,
            &format!(
                "DELETE FROM fsm_outbox WHERE key IN (
                     SELECT key FROM fsm_outbox WHERE instance IN ({in_list}) LIMIT {batch})"
            ),
            &ids,
            batch,
        )?;
    }
    Ok(page)
}

/// Run `sql`, a delete of at most `batch` rows, until it deletes fewer;
/// how many it deleted.
fn delete_all<D: Db + ?Sized>(
    tx: &mut D,
    sql: &str,
    values: &[Param<'_>],
    batch: usize,
) -> Result<u64, DatabaseError> {
    let mut deleted = 0;
    loop {
        let n = tx.execute(sql, values)?;
        deleted += n;
        if n < batch as u64 {
            return Ok(deleted);
        }
    }
}

/// Delete the pending events of instances that no longer exist. On
/// PostgreSQL a send reads its instance without locking it (so that it
/// never waits for a worker), and one that read an instance just before a
/// prune deleted it, and committed after, adds an event to an inbox that is
/// gone. Such an event would only have been rejected (its instance was in a
/// terminal state); left pending, it would be counted as waiting forever.
/// (On SQLite, whose writer holds the whole database, there are none.)
/// Pending events are few (those no worker has taken yet) and read through
/// `fsm_inbox_pending`. One that commits after this sweep is deleted by the
/// next prune with a finished rule.
fn sweep_orphans<D: Db + ?Sized>(db: &mut D, batch: usize) -> Result<u64, FleetError> {
    let sql = format!(
        "DELETE FROM fsm_inbox WHERE seq IN (
             SELECT seq FROM fsm_inbox e
             WHERE e.status = 'pending'
               AND NOT EXISTS (SELECT 1 FROM fsm_instances i WHERE i.id = e.instance)
             LIMIT {batch})"
    );
    let mut deleted = 0;
    loop {
        let n = db::transaction(db, |tx| tx.execute(&sql, &[]))?;
        deleted += n;
        if n < batch as u64 {
            return Ok(deleted);
        }
    }
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
