//! `fsmc inspect --fleet DB [FILE...]`: a fleet's database, read-only, as a
//! page. Each machine whose `.fsm` file is given is drawn with, on each
//! state, how many instances are in it (and how many of those are parked,
//! due and dead); the others are listed by state. A state lists its
//! instances, a page at a time; an instance shows what `fsmc fleet show`
//! prints.
//!
//! Counting reads indexes ([`inspect::tallies`]), on a thread and a
//! connection of its own, so the page's other requests never wait for it;
//! and it never counts more often than the database can afford: again only
//! while a page has asked in the last 30 s, when an SQLite fleet changed
//! (`PRAGMA data_version`, one pragma per check) or 10 s have passed
//! (deadlines fall due without a write), and never sooner than four times
//! the last count took (at least 0.5 s; 2 s on PostgreSQL, which has no
//! such number and is counted on that timer).
//!
//! Routes, under `/TOKEN/`:
//!
//! | method | path | answer |
//! | --- | --- | --- |
//! | GET | `` (the page), `fleet.js`, `app.css`, `icon.svg` | the page, built into the binary |
//! | GET | `api/fleet` | the counts, as JSON (`?since=V`: unless they are still version V) |
//! | GET | `api/diagram.svg?machine=M` | the diagram of a machine whose file was given |
//! | GET | `api/instances?machine=M&state=S[&after=ID]` | a page of the instances in a state, by id |
//! | GET | `api/instance?id=ID` | one instance, as `fsmc fleet show` prints it |

use super::page;
use super::server::{method_not_allowed, App, Reply, Request};
use crate::exit::Exit;
use crate::{checked_source, console};
use fsm_fleet::inspect::{self, DefinitionCount, Reader, Tallies, Tally};
use fsm_grammar::model::{Machine, StateId};
use fsm_runtime::Timestamp;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How many instances one page of a state's list holds.
const PAGE: usize = 50;
/// The most of a machine's configurations a state's list reads, each through
/// the index; a state in more lists the instances of the first ones.
const MAX_CONFIGURATIONS: usize = 256;
/// The most rows shown for a machine without a file.
const MAX_ROWS: usize = 1_000;

/// A machine of the given files: drawn, and its states counted.
struct Drawn {
    file: String,
    machine: Machine,
    fingerprint: String,
    svg: Result<String, String>,
}

/// A count, as the page shows it.
struct Counted {
    tallies: Tallies,
    json: Value,
}

/// What the counting thread and the server share.
struct Latest {
    counted: Option<Arc<Counted>>,
    /// The last error of a count, shown on the page until one succeeds.
    failure: Option<String>,
    /// Changes whenever `counted` or `failure` do.
    version: u64,
    /// When the page last asked: with no page open, nothing is counted.
    asked: Instant,
}

/// How long after the page last asked the counts are kept up to date.
const WATCHED: Duration = Duration::from_secs(30);

/// The counting thread's side: a connection of its own, so that a count,
/// which may take a second on a large fleet, never holds up the page's
/// other requests.
struct Counter {
    name: String,
    reader: Reader,
    drawn: Arc<Vec<Drawn>>,
    latest: Arc<Mutex<Latest>>,
    /// When the last count ended, how long it took, and the change counter
    /// it saw.
    at: Instant,
    took: Duration,
    changes: Option<i64>,
}

impl Counter {
    /// Count again whenever it is worth it (see the module's docs) while a
    /// page is watching.
    fn run(mut self) {
        loop {
            std::thread::sleep(Duration::from_millis(100));
            let watched = lock(&self.latest).asked.elapsed() < WATCHED;
            if watched && self.stale() {
                let _ = self.count();
            }
        }
    }

    fn stale(&mut self) -> bool {
        let postgres = self.changes.is_none();
        let floor = if postgres {
            Duration::from_secs(2)
        } else {
            Duration::from_millis(500)
        };
        let elapsed = self.at.elapsed();
        if elapsed < floor.max(self.took * 4) {
            return false;
        }
        postgres
            || elapsed >= Duration::from_secs(10)
            || inspect::change_counter(&mut self.reader).ok().flatten() != self.changes
    }

    fn count(&mut self) -> Result<(), fsm_fleet::FleetError> {
        let started = Instant::now();
        let result = inspect::change_counter(&mut self.reader)
            .and_then(|changes| Ok((changes, inspect::tallies(&mut self.reader, Timestamp::now())?)));
        self.at = Instant::now();
        self.took = started.elapsed();
        match result {
            Ok((changes, tallies)) => {
                self.changes = changes;
                let json = summary(&self.name, &self.drawn, &tallies, self.took);
                let mut latest = lock(&self.latest);
                let same = latest.counted.as_ref().is_some_and(|c| c.json == json);
                if !same || latest.failure.is_some() {
                    latest.version += 1;
                }
                latest.failure = None;
                latest.counted = Some(Arc::new(Counted { tallies, json }));
                Ok(())
            }
            Err(error) => {
                let message = error.to_string();
                let mut latest = lock(&self.latest);
                if latest.failure.as_deref() != Some(&message) {
                    latest.version += 1;
                }
                latest.failure = Some(message);
                Err(error)
            }
        }
    }
}

/// `latest`, locked; a thread that panicked while holding it left nothing
/// half-written that matters here.
fn lock(latest: &Mutex<Latest>) -> MutexGuard<'_, Latest> {
    latest.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The counts the page shows, by machine.
fn summary(name: &str, drawn: &[Drawn], tallies: &Tallies, took: Duration) -> Value {
    let mut machines: BTreeMap<&str, (Vec<&Tally>, Vec<&DefinitionCount>)> = BTreeMap::new();
    for tally in &tallies.states {
        machines.entry(&tally.machine).or_default().0.push(tally);
    }
    for definition in &tallies.definitions {
        machines
            .entry(&definition.machine)
            .or_default()
            .1
            .push(definition);
    }
    for one in drawn {
        machines.entry(&one.machine.name).or_default();
    }
    let machines: Vec<Value> = machines
        .into_iter()
        .map(
            |(machine, (rows, definitions))| match drawn.iter().find(|d| d.machine.name == machine) {
                Some(drawn) => drawn_summary(drawn, &rows, &definitions),
                None => rows_summary(machine, &rows, &definitions),
            },
        )
        .collect();
    let all: Vec<&Tally> = tallies.states.iter().collect();
    json!({
        "database": name,
        "took_ms": took.as_millis(),
        "truncated": tallies.truncated.then_some(inspect::TALLY_LIMIT),
        "totals": totals(&all),
        "machines": machines,
    })
}

/// A fleet, served.
pub struct FleetView {
    name: String,
    reader: Reader,
    drawn: Arc<Vec<Drawn>>,
    latest: Arc<Mutex<Latest>>,
}

impl FleetView {
    /// Open `db` read-only (twice: the counts have a connection of their
    /// own) and check `files`, whose machines it draws, then count the fleet
    /// once. Errors are reported; the exit status is returned.
    pub fn open(db: &str, files: &[PathBuf]) -> Result<FleetView, Exit> {
        let mut drawn: Vec<Drawn> = Vec::new();
        for path in files {
            let model = checked_source::load_machines(path, "inspected")?;
            for machine in model.machines {
                if let Some(other) = drawn.iter().find(|d| d.machine.name == machine.name) {
                    console::error(format_args!(
                        "machine `{}` is defined in both `{}` and `{}`; give one of them",
                        machine.name,
                        other.file,
                        path.display()
                    ));
                    return Err(Exit::Trouble);
                }
                let svg = fsm_diagram::svg(&machine).map_err(|too_large| {
                    format!("machine `{}` is too large to draw: {too_large}", machine.name)
                });
                drawn.push(Drawn {
                    file: path.display().to_string(),
                    fingerprint: machine.fingerprint(),
                    machine,
                    svg,
                });
            }
        }
        let drawn = Arc::new(drawn);
        let name = crate::fleet::database_name(db);
        let reader = crate::fleet::open(db)?;
        let latest = Arc::new(Mutex::new(Latest {
            counted: None,
            failure: None,
            version: 0,
            asked: Instant::now(),
        }));
        let mut counter = Counter {
            name: name.clone(),
            reader: crate::fleet::open(db)?,
            drawn: Arc::clone(&drawn),
            latest: Arc::clone(&latest),
            at: Instant::now(),
            took: Duration::ZERO,
            changes: None,
        };
        // The first count, before the URL is printed: a database that
        // cannot be counted is said at once.
        if let Err(error) = counter.count() {
            console::error(&error);
            return Err(Exit::Trouble);
        }
        std::thread::spawn(move || counter.run());
        Ok(FleetView {
            name,
            reader,
            drawn,
            latest,
        })
    }

    /// The counts, as the page asks for them: unchanged since `since`, or
    /// the whole of them.
    fn counts(&self, since: Option<u64>) -> Value {
        let mut latest = lock(&self.latest);
        latest.asked = Instant::now();
        if since == Some(latest.version) {
            return json!({"version": latest.version, "unchanged": true});
        }
        let mut value = latest
            .counted
            .as_ref()
            .map_or_else(|| json!({}), |c| c.json.clone());
        value["version"] = json!(latest.version);
        value["error"] = json!(latest.failure);
        value
    }

    fn drawn(&self, machine: &str) -> Option<&Drawn> {
        self.drawn.iter().find(|d| d.machine.name == machine)
    }

    /// A page of the instances of `machine` in `state`: a state of its
    /// diagram (any configuration holding it or a state inside it), or, for
    /// a machine without a file, a state as the fleet keeps it.
    fn instances(&mut self, machine: &str, state: &str, after: Option<&str>) -> Result<Value, String> {
        let Some(counted) = lock(&self.latest).counted.clone() else {
            return Err("the fleet has not been counted yet".to_owned());
        };
        let rows = counted.tallies.states.iter().filter(|t| t.machine == machine);
        let matching: BTreeSet<&str> = match self.drawn(machine) {
            Some(drawn) => {
                let Some(wanted) = drawn.machine.state_by_name(state) else {
                    return Err(format!("machine `{machine}` has no state `{state}`"));
                };
                rows.filter(|t| {
                    leaves(&t.state)
                        .filter_map(|leaf| drawn.machine.state_by_name(leaf))
                        .any(|leaf| drawn.machine.ancestors_or_self(leaf).any(|s| s == wanted))
                })
                .map(|t| t.state.as_str())
                .collect()
            }
            None => rows
                .filter(|t| t.state == state)
                .map(|t| t.state.as_str())
                .collect(),
        };
        let total: u64 = counted
            .tallies
            .states
            .iter()
            .filter(|t| t.machine == machine && matching.contains(t.state.as_str()))
            .map(|t| t.instances)
            .sum();
        let configurations: Vec<&str> = matching.iter().copied().collect();
        let read = &configurations[..configurations.len().min(MAX_CONFIGURATIONS)];
        let found = inspect::instances_in(&mut self.reader, machine, read, after, PAGE + 1)
            .map_err(|e| e.to_string())?;
        let more = found.len() > PAGE;
        let listed: Vec<Value> = found
            .iter()
            .take(PAGE)
            .map(|i| {
                json!({
                    "id": i.id,
                    "state": i.state,
                    "version": i.version,
                    "next_wake": i.next_wake.map(|t| t.to_string()),
                    "parked": i.parked,
                })
            })
            .collect();
        Ok(json!({
            "machine": machine,
            "state": state,
            "total": total,
            "instances": listed,
            "more": more,
            "configurations_skipped": configurations.len() - read.len(),
        }))
    }

    fn instance(&mut self, id: &str) -> Result<Option<Value>, String> {
        let detail = inspect::instance(&mut self.reader, id).map_err(|e| e.to_string())?;
        Ok(detail.map(|detail| {
            let leaves: Vec<&str> = match &detail.snapshot {
                Ok(snapshot) => match &snapshot.configuration {
                    Some(configuration) => configuration.iter().map(String::as_str).collect(),
                    None => vec![snapshot.state.as_str()],
                },
                Err(_) => leaves(&detail.state).collect(),
            };
            json!({
                "id": detail.id,
                "machine": detail.machine,
                "leaves": leaves,
                "text": crate::fleet::detail_text(&detail),
            })
        }))
    }
}

/// The leaves a state of the fleet names: one, or with parallel states
/// several, separated by `, `.
fn leaves(state: &str) -> impl Iterator<Item = &str> {
    state.split(", ")
}

/// `instances`, `parked`, `due` and `dead`, summed over `rows`.
fn totals(rows: &[&Tally]) -> Value {
    let sum = |f: fn(&Tally) -> u64| rows.iter().map(|t| f(t)).sum::<u64>();
    json!({
        "instances": sum(|t| t.instances),
        "parked": sum(|t| t.parked),
        "due": sum(|t| t.due),
        "dead": sum(|t| t.dead),
    })
}

/// A drawn machine's counts on each state of its diagram: an instance
/// counts in each state it is in, its leaves and every state around them.
fn drawn_summary(drawn: &Drawn, rows: &[&Tally], definitions: &[&DefinitionCount]) -> Value {
    let m = &drawn.machine;
    let mut by_state: BTreeMap<StateId, [u64; 4]> = BTreeMap::new();
    let mut unknown: BTreeMap<&str, u64> = BTreeMap::new();
    for row in rows {
        let mut states: BTreeSet<StateId> = BTreeSet::new();
        let mut known = true;
        for leaf in leaves(&row.state) {
            match m.state_by_name(leaf) {
                Some(id) => states.extend(m.ancestors_or_self(id)),
                None => known = false,
            }
        }
        if !known || states.is_empty() {
            *unknown.entry(&row.state).or_default() += row.instances;
            continue;
        }
        for state in states {
            let counts = by_state.entry(state).or_default();
            for (count, add) in counts
                .iter_mut()
                .zip([row.instances, row.parked, row.due, row.dead])
            {
                *count += add;
            }
        }
    }
    let states: Map<String, Value> = by_state
        .into_iter()
        .map(|(id, [instances, parked, due, dead])| {
            (
                m.state(id).name.clone(),
                json!({"instances": instances, "parked": parked, "due": due, "dead": dead}),
            )
        })
        .collect();
    let other_definitions: Vec<Value> = definitions
        .iter()
        .filter(|d| d.fingerprint != drawn.fingerprint)
        .map(|d| json!({"fingerprint": d.fingerprint, "instances": d.instances}))
        .collect();
    json!({
        "name": m.name,
        "file": drawn.file,
        "fingerprint": drawn.fingerprint,
        "drawn": drawn.svg.is_ok(),
        "diagram_error": drawn.svg.as_ref().err(),
        "totals": totals(rows),
        "states": states,
        "other_definitions": other_definitions,
        "unknown_states": unknown
            .into_iter()
            .map(|(state, instances)| json!({"state": state, "instances": instances}))
            .collect::<Vec<_>>(),
    })
}

/// A machine without a file: its instances by state, and by definition.
fn rows_summary(name: &str, rows: &[&Tally], definitions: &[&DefinitionCount]) -> Value {
    let listed: Vec<Value> = rows
        .iter()
        .take(MAX_ROWS)
        .map(|t| {
            json!({
                "state": t.state,
                "instances": t.instances,
                "parked": t.parked,
                "due": t.due,
                "dead": t.dead,
            })
        })
        .collect();
    json!({
        "name": name,
        "file": null,
        "totals": totals(rows),
        "rows": listed,
        "rows_skipped": rows.len().saturating_sub(MAX_ROWS),
        "definitions": definitions
            .iter()
            .map(|d| json!({"fingerprint": d.fingerprint, "instances": d.instances}))
            .collect::<Vec<_>>(),
    })
}

/// The value of `key` in a query string, percent-decoded.
fn query_value(query: &str, key: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == key).then(|| {
            let v = v.replace('+', " ");
            percent_encoding::percent_decode_str(&v)
                .decode_utf8_lossy()
                .into_owned()
        })
    })
}

impl App for FleetView {
    fn banner(&self) -> String {
        format!("the fleet in {}", self.name)
    }

    fn answer(&mut self, request: &Request) -> Reply {
        let query = request.query.as_str();
        match (request.method.as_str(), request.rest.as_str()) {
            ("GET", "") => Reply::bytes(200, "text/html; charset=utf-8", page::FLEET_HTML),
            ("GET", "fleet.js") => Reply::bytes(200, "text/javascript; charset=utf-8", page::FLEET_JS),
            ("GET", "app.css") => Reply::bytes(200, "text/css; charset=utf-8", page::APP_CSS),
            ("GET", "icon.svg") => Reply::bytes(200, "image/svg+xml", page::ICON_SVG),
            ("GET", "api/fleet") => {
                let since = query_value(query, "since").and_then(|v| v.parse::<u64>().ok());
                Reply::json(200, &self.counts(since))
            }
            ("GET", "api/diagram.svg") => {
                let machine = query_value(query, "machine").unwrap_or_default();
                match self.drawn(&machine).map(|d| &d.svg) {
                    Some(Ok(svg)) => Reply::bytes(200, "image/svg+xml", svg),
                    Some(Err(message)) => Reply::text(409, &format!("{message}\n")),
                    None => Reply::text(404, &format!("no file given defines machine `{machine}`\n")),
                }
            }
            ("GET", "api/instances") => {
                let (Some(machine), Some(state)) =
                    (query_value(query, "machine"), query_value(query, "state"))
                else {
                    return Reply::error(400, "`api/instances` takes `machine` and `state`");
                };
                let after = query_value(query, "after");
                match self.instances(&machine, &state, after.as_deref()) {
                    Ok(value) => Reply::json(200, &value),
                    Err(message) => Reply::error(409, &message),
                }
            }
            ("GET", "api/instance") => {
                let Some(id) = query_value(query, "id") else {
                    return Reply::error(400, "`api/instance` takes `id`");
                };
                match self.instance(&id) {
                    Ok(Some(value)) => Reply::json(200, &value),
                    Ok(None) => Reply::error(404, &format!("{} has no instance `{id}`", self.name)),
                    Err(message) => Reply::error(409, &message),
                }
            }
            (
                _,
                "" | "fleet.js" | "app.css" | "icon.svg" | "api/fleet" | "api/diagram.svg" | "api/instances"
                | "api/instance",
            ) => method_not_allowed("GET"),
            (_, rest) => Reply::text(404, &format!("not found: /{rest}\n")),
        }
    }
}
