//! `fsmc fleet`: inspect a fleet's database (`fsm-fleet`, on SQLite or
//! PostgreSQL) directly, read-only, without the machines' Rust code; and
//! prune it (`fsmc fleet prune`, which writes).

use crate::console;
use crate::exit::Exit;
use crate::table::{name, text, Align, Table};
use clap::{Args, Subcommand, ValueEnum};
use fsm_fleet::inspect::{self, DueCounts, InboxEvent, InstanceDetail, OutboxOutput, StateCount};
use fsm_fleet::FleetError;
use fsm_runtime::Timestamp;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `fsmc fleet`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
DB is the SQLite file of a fleet (`fsm_fleet::Fleet::open`), or the PostgreSQL database of one \
(`Fleet::connect`), named by a `postgres://` URL or `key=value` parameters (`\"host=/run/pg \
dbname=fleet\"`). `list`, `show` and `due` read it read-only: nothing is changed, and workers may run \
meanwhile; `prune` deletes rows (workers may run meanwhile too). Times are in UTC, as RFC 3339 with \
milliseconds. docs/fleet.md describes what each command prints.

Exit status:
  0  printed
  1  the file is not a fleet database (not SQLite, or without the fleet's tables), or has a schema \
from a newer fsm-fleet
  2  usage errors, files that cannot be opened, database errors, and an unknown instance id")]
pub struct FleetArgs {
    #[command(subcommand)]
    command: FleetCommand,
}

/// The subcommands of `fsmc fleet`.
#[derive(Debug, Subcommand)]
enum FleetCommand {
    /// List instances (id, machine, state, version, next wake), then count them by machine and state.
    List(ListArgs),
    /// Show one instance: state, context, deadlines, inbox and outbox backlog, recent history.
    Show(ShowArgs),
    /// Count what is due now: instances to step, parked instances, events and outputs waiting.
    Due(DueArgs),
    /// Delete old rows: events consumed, outputs done, instances finished, dead rows (by age).
    Prune(PruneArgs),
}

/// Arguments of `fsmc fleet list`.
#[derive(Debug, Args)]
struct ListArgs {
    /// The fleet's SQLite file, or its PostgreSQL database (a URL or `key=value` parameters).
    #[arg(value_name = "DB")]
    db: String,

    /// Only instances of this machine.
    #[arg(long, value_name = "NAME")]
    machine: Option<String>,

    /// Only instances in this state.
    #[arg(long, value_name = "STATE")]
    state: Option<String>,

    /// List at most this many instances, by id (the counts cover every one that matches).
    #[arg(long, value_name = "N", default_value_t = 100)]
    limit: usize,

    /// How to print.
    #[arg(long, value_enum, default_value_t = FleetFormat::Human)]
    format: FleetFormat,
}

/// Arguments of `fsmc fleet show`.
#[derive(Debug, Args)]
struct ShowArgs {
    /// The fleet's SQLite file, or its PostgreSQL database (a URL or `key=value` parameters).
    #[arg(value_name = "DB")]
    db: String,

    /// The instance's id.
    #[arg(value_name = "ID")]
    id: String,

    /// List at most this many pending events, dead events, pending outputs and dead outputs each.
    #[arg(long, value_name = "N", default_value_t = inspect::DETAIL_LIMIT)]
    limit: usize,

    /// How to print.
    #[arg(long, value_enum, default_value_t = FleetFormat::Human)]
    format: FleetFormat,
}

/// Arguments of `fsmc fleet due`.
#[derive(Debug, Args)]
struct DueArgs {
    /// The fleet's SQLite file, or its PostgreSQL database (a URL or `key=value` parameters).
    #[arg(value_name = "DB")]
    db: String,

    /// How to print.
    #[arg(long, value_enum, default_value_t = FleetFormat::Human)]
    format: FleetFormat,
}

/// Arguments of `fsmc fleet prune`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
AGE is digits then `d`, `h`, `m` or `s` (`30d`, `12h`): a row is deleted when what its rule names \
happened more than AGE ago. Deleting an event forgets its deduplication key: a sender that repeats \
the key afterwards has its event accepted again, so --events must be longer than any sender retries. \
Dead events and outputs are deleted by --dead alone. Rows go at most --batch a statement, each batch \
in a transaction of its own. docs/fleet.md has an example.")]
struct PruneArgs {
    /// The fleet's SQLite file, or its PostgreSQL database (a URL or `key=value` parameters).
    #[arg(value_name = "DB")]
    db: String,

    /// Delete the events consumed (taken or rejected) more than AGE ago.
    #[arg(long, value_name = "AGE", value_parser = parse_age)]
    events: Option<Duration>,

    /// Delete the outputs done more than AGE ago.
    #[arg(long, value_name = "AGE", value_parser = parse_age)]
    outputs: Option<Duration>,

    /// Delete the instances in a terminal state, with nothing pending, dead or parked, unchanged
    /// for more than AGE, with their events and outputs (needs --machines).
    #[arg(long, value_name = "AGE", value_parser = parse_age, requires = "machines")]
    finished: Option<Duration>,

    /// A `.fsm` file of the fleet's machines, which says which states are terminal (for
    /// --finished; repeat it for several files): an instance is judged only by the definition
    /// that saved it (the same fingerprint); one saved by another is kept, and counted as skipped.
    #[arg(long, value_name = "FILE")]
    machines: Vec<PathBuf>,

    /// Delete the dead events and dead outputs settled more than AGE ago.
    #[arg(long, value_name = "AGE", value_parser = parse_age)]
    dead: Option<Duration>,

    /// Count what would be deleted, and delete nothing.
    #[arg(long)]
    dry_run: bool,

    /// Delete at most N rows a statement, each batch in a transaction of its own.
    #[arg(long, value_name = "N", default_value_t = fsm_fleet::PRUNE_BATCH,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    batch: usize,

    /// How to print.
    #[arg(long, value_enum, default_value_t = FleetFormat::Human)]
    format: FleetFormat,
}

/// An age for `fsmc fleet prune`: digits then `d`, `h`, `m` or `s`. (fsmc's
/// timer durations, `fsm_grammar::duration`, stop at a week and have no
/// days: too short for retention.)
fn parse_age(text: &str) -> Result<Duration, String> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let seconds: u64 = match unit {
        "d" => 86_400,
        "h" => 3_600,
        "m" => 60,
        "s" => 1,
        _ => {
            return Err(format!(
                "`{text}` is not an age like `30d`, `12h`, `30m` or `45s` (digits, then `d`, `h`, `m` or `s`)"
            ))
        }
    };
    if number.is_empty() {
        return Err(format!("`{text}` has no number: an age is like `30d`"));
    }
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(seconds))
        .filter(|&s| s <= MAX_AGE_SECONDS)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("`{text}` is longer than the 100 years an age can be"))
}

/// The longest age: a hundred years, far from any overflow of the clock.
const MAX_AGE_SECONDS: u64 = 100 * 366 * 86_400;

/// How `fsmc fleet` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FleetFormat {
    /// Aligned tables and labelled lines.
    Human,
    /// One JSON object.
    Json,
}

/// Run the subcommand; see [`FleetArgs`] for the exit status.
pub fn run(args: &FleetArgs) -> Exit {
    let printed = match &args.command {
        FleetCommand::List(args) => list(args),
        FleetCommand::Show(args) => show(args),
        FleetCommand::Due(args) => due(args),
        FleetCommand::Prune(args) => prune(args),
    };
    match printed {
        Ok(text) => {
            console::stdout(&text);
            Exit::Clean
        }
        Err(exit) => exit,
    }
}

/// The database `db` names, read-only; or the error, reported.
pub(crate) fn open(db: &str) -> Result<inspect::Reader, Exit> {
    if inspect::is_postgres(db) {
        return inspect::open(db).map_err(failed);
    }
    let name = db;
    match std::fs::metadata(db) {
        Err(error) => {
            console::error(format_args!("cannot open `{name}`: {error}"));
            return Err(Exit::Trouble);
        }
        Ok(metadata) if metadata.is_dir() => {
            console::error(format_args!("cannot open `{name}`: it is a directory"));
            return Err(Exit::Trouble);
        }
        Ok(_) => {}
    }
    inspect::open_read_only(db).map_err(failed)
}

/// `db` for messages: a file's name, quoted; a PostgreSQL database as
/// such, without its parameters (which may hold a password).
pub(crate) fn database_name(db: &str) -> String {
    if inspect::is_postgres(db) {
        "the PostgreSQL database".to_owned()
    } else {
        format!("`{db}`")
    }
}

/// Report `error`: a database that is not a fleet's, or newer, is a problem
/// of the input (1); one that fails is trouble (2).
fn failed(error: FleetError) -> Exit {
    console::error(&error);
    match error {
        FleetError::Schema { .. } => Exit::Problems,
        _ => Exit::Trouble,
    }
}

fn list(args: &ListArgs) -> Result<String, Exit> {
    let mut conn = open(&args.db)?;
    let machine = args.machine.as_deref();
    let state = args.state.as_deref();
    let instances = inspect::instances(&mut conn, machine, state, args.limit).map_err(failed)?;
    let counts = inspect::counts_of(&mut conn, machine, state).map_err(failed)?;
    let total: u64 = counts.iter().map(|c| c.instances).sum();
    let parked: u64 = counts.iter().map(|c| c.parked).sum();
    if args.format == FleetFormat::Json {
        return Ok(to_json(&json!({
            "instances": instances.iter().map(|i| json!({
                "id": i.id,
                "machine": i.machine,
                "state": i.state,
                "version": i.version,
                "next_wake": time_json(i.next_wake),
                "parked": i.parked,
            })).collect::<Vec<_>>(),
            "counts": counts.iter().map(|c| json!({
                "machine": c.machine,
                "state": c.state,
                "instances": c.instances,
                "parked": c.parked,
            })).collect::<Vec<_>>(),
            "total": total,
            "parked": parked,
        })));
    }
    if total == 0 {
        return Ok(match (machine, state) {
            (None, None) => "the fleet has no instances\n".to_owned(),
            _ => format!("no instances{}\n", filters(machine, state)),
        });
    }
    let mut table = Table::new(&[
        ("id", Align::Left),
        ("machine", Align::Left),
        ("state", Align::Left),
        ("version", Align::Right),
        ("next wake", Align::Left),
        ("", Align::Left),
    ]);
    for instance in &instances {
        table.row(vec![
            text(&instance.id),
            name(&instance.machine),
            name(&instance.state),
            instance.version.to_string().into(),
            time(instance.next_wake).into(),
            instance.parked.as_deref().map_or(Cow::Borrowed(""), |error| {
                format!("parked: {}", text(error)).into()
            }),
        ]);
    }
    let mut out = table.render("");
    let shown = instances.len() as u64;
    if shown < total {
        out.push_str(&format!(
            "… {} more{} (--limit {total} lists them all)\n",
            total - shown,
            filters(machine, state)
        ));
    }
    out.push('\n');
    out.push_str(&counts_table(&counts, total, parked));
    Ok(out)
}

/// ` of machine `M` in state `S``, as the filters say.
fn filters(machine: Option<&str>, state: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(machine) = machine {
        out.push_str(&format!(" of machine `{}`", text(machine)));
    }
    if let Some(state) = state {
        out.push_str(&format!(" in state `{}`", text(state)));
    }
    out
}

fn counts_table(counts: &[StateCount], total: u64, parked: u64) -> String {
    let mut table = Table::new(&[
        ("machine", Align::Left),
        ("state", Align::Left),
        ("instances", Align::Right),
        ("parked", Align::Right),
    ]);
    for count in counts {
        table.row(vec![
            name(&count.machine),
            name(&count.state),
            count.instances.to_string().into(),
            count.parked.to_string().into(),
        ]);
    }
    table.row(vec![
        "total".into(),
        "".into(),
        total.to_string().into(),
        parked.to_string().into(),
    ]);
    table.render("")
}

fn show(args: &ShowArgs) -> Result<String, Exit> {
    let mut conn = open(&args.db)?;
    let Some(detail) = inspect::instance_with_limit(&mut conn, &args.id, args.limit).map_err(failed)? else {
        console::error(format_args!(
            "{} has no instance `{}` (`fsmc fleet list` lists them)",
            database_name(&args.db),
            text(&args.id)
        ));
        return Err(Exit::Trouble);
    };
    Ok(match args.format {
        FleetFormat::Json => to_json(&detail_json(&detail)),
        FleetFormat::Human => detail_text(&detail),
    })
}

pub(crate) fn detail_text(detail: &InstanceDetail) -> String {
    let mut fields: Vec<(&str, Cow<'_, str>)> = vec![
        ("instance", text(&detail.id)),
        ("machine", text(&detail.machine)),
        ("fingerprint", text(&detail.fingerprint)),
        ("state", text(&detail.state)),
        ("version", detail.version.to_string().into()),
        ("next wake", time(detail.next_wake).into()),
    ];
    if let Some(error) = &detail.parked {
        fields.push(("parked", text(error)));
    }
    fields.push(("created", detail.created_at.to_string().into()));
    fields.push(("updated", detail.updated_at.to_string().into()));
    let label_width = fields.iter().map(|(label, _)| label.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (label, value) in &fields {
        out.push_str(&format!("{label:label_width$}  {value}\n"));
    }

    match &detail.snapshot {
        Err(error) => out.push_str(&format!("\nsnapshot: does not read: {}\n", text(error))),
        Ok(snapshot) => {
            match &snapshot.context {
                None => out.push_str("\ncontext: none\n"),
                Some(context) => {
                    out.push_str("\ncontext:\n");
                    let pretty = serde_json::to_string_pretty(context).unwrap_or_default();
                    for line in pretty.lines() {
                        out.push_str(&format!("  {line}\n"));
                    }
                }
            }
            if snapshot.timers.is_empty() {
                out.push_str("\ndeadlines: none\n");
            } else {
                out.push_str("\ndeadlines:\n");
                let mut table = Table::new(&[
                    ("state", Align::Left),
                    ("timer", Align::Right),
                    ("due", Align::Left),
                ]);
                for timer in &snapshot.timers {
                    table.row(vec![
                        name(&timer.state),
                        timer.timer.to_string().into(),
                        timer.due.to_string().into(),
                    ]);
                }
                out.push_str(&table.render("  "));
            }
            if !snapshot.last_active.is_empty() {
                out.push_str("\nlast active:\n");
                let mut table = Table::new(&[("state", Align::Left), ("leaf", Align::Left)]);
                for (state, leaves) in &snapshot.last_active {
                    let leaves = leaves
                        .iter()
                        .map(|leaf| name(leaf))
                        .collect::<Vec<_>>()
                        .join(", ");
                    table.row(vec![name(state), Cow::Owned(leaves)]);
                }
                out.push_str(&table.render("  "));
            }
        }
    }

    let inbox = &detail.inbox;
    // Runaway events (taken, then the machine ran away) only when some are.
    let runaway = match inbox.runaway {
        0 => String::new(),
        n => format!(", {n} runaway"),
    };
    out.push_str(&format!(
        "\ninbox: {} pending, {} done, {} rejected, {} dead{runaway}\n",
        inbox.pending, inbox.done, inbox.rejected, inbox.dead
    ));
    events_text(
        &mut out,
        "pending events",
        &detail.pending_events,
        inbox.pending,
        false,
    );
    events_text(&mut out, "dead events", &detail.dead_events, inbox.dead, true);
    events_text(
        &mut out,
        "runaway events",
        &detail.runaway_events,
        inbox.runaway,
        true,
    );

    let outbox = &detail.outbox;
    out.push_str(&format!(
        "\noutbox: {} pending, {} done, {} dead\n",
        outbox.pending, outbox.done, outbox.dead
    ));
    outputs_text(
        &mut out,
        "pending outputs",
        &detail.pending_outputs,
        outbox.pending,
    );
    outputs_text(&mut out, "dead outputs", &detail.dead_outputs, outbox.dead);

    if let Ok(snapshot) = &detail.snapshot {
        if snapshot.history.is_empty() {
            out.push_str("\nhistory: none\n");
        } else {
            out.push_str("\nhistory:\n");
            // The columns of `fsmc history`.
            let mut table = Table::new(&[
                ("seq", Align::Right),
                ("time", Align::Left),
                ("from", Align::Left),
                ("action", Align::Left),
                ("to", Align::Left),
            ]);
            for entry in &snapshot.history {
                table.row(vec![
                    entry.seq.to_string().into(),
                    entry.at.to_string().into(),
                    name(&entry.from),
                    name(&entry.action),
                    name(&entry.to),
                ]);
            }
            out.push_str(&table.render("  "));
        }
    }
    out
}

fn events_text(out: &mut String, what: &str, events: &[InboxEvent], total: u64, dead: bool) {
    if events.is_empty() {
        return;
    }
    out.push_str(&format!("  {what}:\n"));
    let mut columns = vec![
        ("seq", Align::Right),
        ("key", Align::Left),
        ("sent", Align::Left),
        ("event", Align::Left),
    ];
    if dead {
        columns.push(("error", Align::Left));
    }
    let mut table = Table::new(&columns);
    for event in events {
        let mut row = vec![
            event.seq.to_string().into(),
            name(&event.dedup_key),
            event.sent_at.to_string().into(),
            name(&event.event),
        ];
        if dead {
            row.push(event.error.as_deref().map_or(Cow::Borrowed(""), text));
        }
        table.row(row);
    }
    out.push_str(&table.render("    "));
    more(out, events.len(), total);
}

fn outputs_text(out: &mut String, what: &str, outputs: &[OutboxOutput], total: u64) {
    if outputs.is_empty() {
        return;
    }
    out.push_str(&format!("  {what}:\n"));
    let mut table = Table::new(&[
        ("key", Align::Left),
        ("output", Align::Left),
        ("attempts", Align::Right),
        ("next attempt", Align::Left),
        ("leased until", Align::Left),
        ("error", Align::Left),
    ]);
    for output in outputs {
        table.row(vec![
            text(&output.key),
            name(&output.output),
            output.attempts.to_string().into(),
            output.next_attempt.to_string().into(),
            time(output.leased_until).into(),
            output.error.as_deref().map_or(Cow::Borrowed(""), text),
        ]);
    }
    out.push_str(&table.render("    "));
    more(out, outputs.len(), total);
}

/// `… N more` when a list was cut at its limit.
fn more(out: &mut String, shown: usize, total: u64) {
    let shown = shown as u64;
    if shown < total {
        out.push_str(&format!(
            "    … {} more (--limit {total} lists them all)\n",
            total - shown
        ));
    }
}

fn detail_json(detail: &InstanceDetail) -> Value {
    let events = |events: &[InboxEvent]| -> Vec<Value> {
        events
            .iter()
            .map(|e| {
                json!({
                    "seq": e.seq,
                    "dedup_key": e.dedup_key,
                    // Written by `serde_json`; a row written by hand may not be JSON.
                    "event": serde_json::from_str::<Value>(&e.event).unwrap_or_else(|_| Value::from(e.event.as_str())),
                    "sent_at": e.sent_at.to_string(),
                    "error": e.error,
                })
            })
            .collect()
    };
    let outputs = |outputs: &[OutboxOutput]| -> Vec<Value> {
        outputs
            .iter()
            .map(|o| {
                json!({
                    "key": o.key,
                    "output": o.output,
                    "attempts": o.attempts,
                    "next_attempt": o.next_attempt.to_string(),
                    "leased_until": time_json(o.leased_until),
                    "error": o.error,
                })
            })
            .collect()
    };
    let mut object = json!({
        "id": detail.id,
        "machine": detail.machine,
        "fingerprint": detail.fingerprint,
        "state": detail.state,
        "version": detail.version,
        "next_wake": time_json(detail.next_wake),
        "parked": detail.parked,
        "created_at": detail.created_at.to_string(),
        "updated_at": detail.updated_at.to_string(),
    });
    let snapshot = match &detail.snapshot {
        Err(error) => json!({ "error": error }),
        Ok(snapshot) => json!({
            // As the snapshot writes it: `configuration` in place of
            // `current_state` for a machine with parallel states.
            (if snapshot.configuration.is_some() { "configuration" } else { "current_state" }):
                snapshot.configuration.as_ref().map_or_else(|| Value::from(snapshot.state.as_str()), |leaves| Value::from(leaves.clone())),
            "context": snapshot.context,
            "timers": snapshot.timers.iter().map(|t| json!({
                "state": t.state,
                "timer": t.timer,
                "due": t.due.to_string(),
            })).collect::<Vec<_>>(),
            "last_active": snapshot.last_active.iter()
                .map(|(state, leaves)| {
                    let leaves = match leaves.as_slice() {
                        [leaf] => Value::from(leaf.as_str()),
                        several => Value::from(several.to_vec()),
                    };
                    (state.clone(), leaves)
                })
                .collect::<serde_json::Map<_, _>>(),
            "history": snapshot.history.iter().map(|h| json!({
                "seq": h.seq,
                "timestamp": h.at.to_string(),
                "from": h.from,
                "action": h.action,
                "to": h.to,
            })).collect::<Vec<_>>(),
        }),
    };
    let inbox = &detail.inbox;
    let outbox = &detail.outbox;
    let rest = json!({
        "snapshot": snapshot,
        "inbox": {
            "pending": inbox.pending,
            "done": inbox.done,
            "rejected": inbox.rejected,
            "dead": inbox.dead,
            "pending_events": events(&detail.pending_events),
            "dead_events": events(&detail.dead_events),
        },
        "outbox": {
            "pending": outbox.pending,
            "done": outbox.done,
            "dead": outbox.dead,
            "pending_outputs": outputs(&detail.pending_outputs),
            "dead_outputs": outputs(&detail.dead_outputs),
        },
    });
    if let (Some(object), Value::Object(rest)) = (object.as_object_mut(), rest) {
        object.extend(rest);
    }
    // Runaway events (taken, then the machine ran away) only when some are.
    if inbox.runaway > 0 {
        if let Some(Value::Object(counts)) = object.get_mut("inbox") {
            counts.insert("runaway".into(), inbox.runaway.into());
            counts.insert("runaway_events".into(), events(&detail.runaway_events).into());
        }
    }
    object
}

fn due(args: &DueArgs) -> Result<String, Exit> {
    let mut conn = open(&args.db)?;
    let now = Timestamp::now();
    let due = inspect::due(&mut conn, now).map_err(failed)?;
    Ok(match args.format {
        FleetFormat::Json => to_json(&json!({
            "now": now.to_string(),
            "instances_due": due.instances_due,
            "instances_waiting": due.instances_waiting,
            "next_wake": time_json(due.next_wake),
            "parked": due.parked,
            "events_pending": due.events_pending,
            "events_dead": due.events_dead,
            "outputs_due": due.outputs_due,
            "outputs_leased": due.outputs_leased,
            "outputs_waiting": due.outputs_waiting,
            "outputs_dead": due.outputs_dead,
        })),
        FleetFormat::Human => due_text(&due),
    })
}

fn due_text(due: &DueCounts) -> String {
    let mut table = Table::headless(&[Align::Left, Align::Right, Align::Left]);
    let mut line = |label: &'static str, n: u64, note: String| {
        table.row(vec![label.into(), n.to_string().into(), note.into()]);
    };
    line("instances due", due.instances_due, String::new());
    line(
        "instances waiting",
        due.instances_waiting,
        due.next_wake
            .map_or_else(String::new, |at| format!("the next at {at}")),
    );
    line("parked instances", due.parked, String::new());
    line("pending events", due.events_pending, String::new());
    line("dead events", due.events_dead, String::new());
    line("outputs due", due.outputs_due, String::new());
    line("outputs leased", due.outputs_leased, String::new());
    line("outputs waiting", due.outputs_waiting, "to be retried".to_owned());
    line("dead outputs", due.outputs_dead, String::new());
    table.render("")
}

fn prune(args: &PruneArgs) -> Result<String, Exit> {
    let mut rules = fsm_fleet::Prune::new()
        .batch_size(args.batch)
        .dry_run(args.dry_run);
    if let Some(age) = args.events {
        rules = rules.events(age);
    }
    if let Some(age) = args.outputs {
        rules = rules.outputs(age);
    }
    if let Some(age) = args.dead {
        rules = rules.dead(age);
    }
    if let Some(age) = args.finished {
        rules = rules.finished(age, terminal_states(&args.machines)?);
    }
    if rules.is_empty() {
        console::error(
            "`fsmc fleet prune` needs a rule: --events AGE, --outputs AGE, --finished AGE (with \
             --machines FILE) or --dead AGE\nhelp: an age is like `30d`, `12h` or `30m`; --dry-run counts \
             what a prune would delete",
        );
        return Err(Exit::Trouble);
    }
    // Checked as the other commands check it first (a file that is missing
    // or not a fleet is refused, never created), then opened to write.
    drop(open(&args.db)?);
    let mut fleet = open_to_write(&args.db)?;
    let pruned = fleet.prune(&rules).map_err(failed)?;
    Ok(match args.format {
        FleetFormat::Json => to_json(&json!({
            "dry_run": args.dry_run,
            "events": pruned.events,
            "dead_events": pruned.dead_events,
            "outputs": pruned.outputs,
            "dead_outputs": pruned.dead_outputs,
            "instances": pruned.instances,
            "skipped": pruned.skipped,
        })),
        FleetFormat::Human => prune_text(args, &pruned),
    })
}

/// The fleet `db` names, to write: as `Fleet::open` or `Fleet::connect`
/// opens it (migrating its schema to this build's).
fn open_to_write(db: &str) -> Result<fsm_fleet::Fleet, Exit> {
    if inspect::is_postgres(db) {
        #[cfg(feature = "postgres")]
        return fsm_fleet::Fleet::connect(db).map_err(failed);
    }
    fsm_fleet::Fleet::open(db).map_err(failed)
}

/// The terminal states of the machines the `.fsm` files define, each
/// by its fingerprint.
fn terminal_states(files: &[PathBuf]) -> Result<fsm_fleet::TerminalStates, Exit> {
    if files.is_empty() {
        console::error("--finished needs the machines' definitions: --machines FILE.fsm");
        return Err(Exit::Trouble);
    }
    let mut terminal = fsm_fleet::TerminalStates::new();
    for file in files {
        let model = crate::checked_source::load_machines(file, "pruned")?;
        for machine in &model.machines {
            let states = machine
                .states
                .iter()
                .filter(|state| state.is_terminal())
                .map(|state| state.name.as_str());
            terminal = terminal.with(&machine.name, &machine.fingerprint(), states);
        }
    }
    Ok(terminal)
}

fn prune_text(args: &PruneArgs, pruned: &fsm_fleet::Pruned) -> String {
    let mut table = Table::headless(&[Align::Left, Align::Right, Align::Left]);
    let mut line = |label: &'static str, n: u64, note: String| {
        table.row(vec![label.into(), n.to_string().into(), note.into()]);
    };
    let age = |age: Duration| {
        let seconds = age.as_secs();
        [("d", 86_400), ("h", 3_600), ("m", 60)]
            .into_iter()
            .find(|(_, size)| seconds > 0 && seconds.is_multiple_of(*size))
            .map_or_else(
                || format!("{seconds}s"),
                |(unit, size)| format!("{}{unit}", seconds / size),
            )
    };
    let with_finished = if args.finished.is_some() {
        " (the finished instances' included)"
    } else {
        ""
    };
    if args.events.is_some() || args.finished.is_some() {
        let rule = args
            .events
            .map_or_else(String::new, |a| format!("consumed more than {} ago", age(a)));
        line(
            "events",
            pruned.events,
            format!("{rule}{with_finished}").trim().to_owned(),
        );
    }
    if args.outputs.is_some() || args.finished.is_some() {
        let rule = args
            .outputs
            .map_or_else(String::new, |a| format!("done more than {} ago", age(a)));
        line(
            "outputs",
            pruned.outputs,
            format!("{rule}{with_finished}").trim().to_owned(),
        );
    }
    if let Some(dead) = args.dead {
        let note = format!("settled more than {} ago", age(dead));
        line("dead events", pruned.dead_events, note.clone());
        line("dead outputs", pruned.dead_outputs, note);
    }
    if let Some(finished) = args.finished {
        line(
            "finished instances",
            pruned.instances,
            format!("unchanged for more than {}", age(finished)),
        );
        line(
            "skipped instances",
            pruned.skipped,
            "in a terminal state, saved by a definition --machines does not give: not judged".to_owned(),
        );
    }
    let title = if args.dry_run {
        "dry run: nothing deleted; a prune would delete\n"
    } else {
        "deleted\n"
    };
    let mut text = format!("{title}{}", table.render("  "));
    if pruned.skipped > 0 {
        // A prune given an older (or newer) `.fsm` than the one that saved
        // the instances would otherwise report nothing finished, and no why.
        let (instances, their, them) = if pruned.skipped == 1 {
            ("instance was", "its", "it")
        } else {
            ("instances were", "their", "them")
        };
        text.push_str(&format!(
            "{} {instances} skipped: {their} fingerprint is not that of any definition the --machines files \
             give; give the .fsm that saved {them} (`fsmc fleet show` prints an instance's fingerprint)\n",
            pruned.skipped
        ));
    }
    text
}

fn to_json(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

fn time(at: Option<Timestamp>) -> String {
    at.map_or_else(|| "-".to_owned(), |at| at.to_string())
}

fn time_json(at: Option<Timestamp>) -> Value {
    at.map_or(Value::Null, |at| Value::from(at.to_string()))
}

#[cfg(test)]
mod tests {
    use super::parse_age;
    use std::time::Duration;

    #[test]
    fn ages_are_days_hours_minutes_or_seconds() {
        assert_eq!(parse_age("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_age("12h"), Ok(Duration::from_secs(12 * 3_600)));
        assert_eq!(parse_age("30m"), Ok(Duration::from_secs(1_800)));
        assert_eq!(parse_age("0s"), Ok(Duration::ZERO));
        assert!(parse_age("7").unwrap_err().contains("not an age like `30d`"));
        assert!(parse_age("d").unwrap_err().contains("has no number"));
        assert!(parse_age("1w").is_err());
        assert!(parse_age("99999999999999999999d")
            .unwrap_err()
            .contains("100 years"));
    }
}
