//! `fsmc inspect --fleet DB [FILE...]`: a fleet's database, read-only, as a
//! page. Each machine whose `.fsm` file is given is drawn with, on each
//! state, how many instances are in it (and how many of those are parked,
//! due and dead); the others are listed by state. A state lists its
//! instances, a page at a time; an instance shows what `fsmc fleet show`
//! prints.
//!
//! Counting reads the instances' table once ([`inspect::tallies`]), so the
//! page never counts more often than the database can afford: again only
//! when an SQLite fleet changed (`PRAGMA data_version`, one pragma per
//! poll) or 10 s have passed (deadlines fall due without a write), and
//! never sooner than four times the last count took (at least 0.5 s; 2 s on
//! PostgreSQL, which has no such number and is counted on that timer).
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

/// The last count.
struct Counted {
    tallies: Tallies,
    json: Value,
    at: Instant,
    took: Duration,
    changes: Option<i64>,
}

/// A fleet, served.
pub struct FleetView {
    name: String,
    reader: Reader,
    drawn: Vec<Drawn>,
    counted: Option<Counted>,
    version: u64,
    /// The last error of a count, shown on the page until one succeeds.
    failure: Option<String>,
}

impl FleetView {
    /// Open `db` read-only and check `files`, whose machines it draws.
    /// Errors are reported; the exit status is returned.
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
                let svg = fsm_diagram::svg(&machine)
                    .map_err(|too_large| format!("machine `{}` is too large to draw: {too_large}", machine.name));
                drawn.push(Drawn {
                    file: path.display().to_string(),
                    fingerprint: machine.fingerprint(),
                    machine,
                    svg,
                });
            }
        }
        let reader = crate::fleet::open(db)?;
        let mut view = FleetView {
            name: crate::fleet::database_name(db),
            reader,
            drawn,
            counted: None,
            version: 0,
            failure: None,
        };
        // The first count, before the URL is printed: a database that
        // cannot be counted is said at once.
        if let Err(error) = view.count() {
            console::error(&error);
            return Err(Exit::Trouble);
        }
        Ok(view)
    }

    /// Count again when it is worth it (see the module's docs).
    fn refresh(&mut self) {
        let Some(last) = &self.counted else {
            let _ = self.count();
            return;
        };
        let postgres = last.changes.is_none();
        let floor = if postgres { Duration::from_secs(2) } else { Duration::from_millis(500) };
        let elapsed = last.at.elapsed();
        if elapsed < floor.max(last.took * 4) {
            return;
        }
        let stale = postgres || elapsed >= Duration::from_secs(10) || {
            let changes = inspect::change_counter(&mut self.reader).ok().flatten();
            changes != last.changes
        };
        if stale {
            let _ = self.count();
        }
    }

    fn count(&mut self) -> Result<(), fsm_fleet::FleetError> {
        let started = Instant::now();
        let result = inspect::change_counter(&mut self.reader).and_then(|changes| {
            Ok((changes, inspect::tallies(&mut self.reader, Timestamp::now())?))
        });
        match result {
            Ok((changes, tallies)) => {
                let took = started.elapsed();
                let json = self.summary(&tallies, took);
                let same = self.counted.as_ref().is_some_and(|c| c.json == json);
                if !same || self.failure.is_some() {
                    self.version += 1;
                }
                self.failure = None;
                self.counted = Some(Counted {
                    tallies,
                    json,
                    at: Instant::now(),
                    took,
                    changes,
                });
                Ok(())
            }
            Err(error) => {
                let message = error.to_string();
                if self.failure.as_deref() != Some(&message) {
                    self.version += 1;
                }
                self.failure = Some(message);
                if let Some(counted) = &mut self.counted {
                    counted.at = Instant::now();
                }
                Err(error)
            }
        }
    }

    /// The counts the page shows, by machine.
    fn summary(&self, tallies: &Tallies, took: Duration) -> Value {
        let mut machines: BTreeMap<&str, (Vec<&Tally>, Vec<&DefinitionCount>)> = BTreeMap::new();
        for tally in &tallies.states {
            machines.entry(&tally.machine).or_default().0.push(tally);
        }
        for definition in &tallies.definitions {
            machines.entry(&definition.machine).or_default().1.push(definition);
        }
        for drawn in &self.drawn {
            machines.entry(&drawn.machine.name).or_default();
        }
        let machines: Vec<Value> = machines
            .into_iter()
            .map(|(name, (rows, definitions))| match self.drawn(name) {
                Some(drawn) => drawn_summary(drawn, &rows, &definitions),
                None => rows_summary(name, &rows, &definitions),
            })
            .collect();
        let all: Vec<&Tally> = tallies.states.iter().collect();
        json!({
            "database": self.name,
            "took_ms": took.as_millis(),
            "truncated": tallies.truncated.then_some(inspect::TALLY_LIMIT),
            "totals": totals(&all),
            "machines": machines,
        })
    }

    fn state_json(&self) -> Value {
        let mut value = self
            .counted
            .as_ref()
            .map_or_else(|| json!({}), |c| c.json.clone());
        value["version"] = json!(self.version);
        value["error"] = json!(self.failure);
        value
    }

    fn drawn(&self, machine: &str) -> Option<&Drawn> {
        self.drawn.iter().find(|d| d.machine.name == machine)
    }

    /// A page of the instances of `machine` in `state`: a state of its
    /// diagram (any configuration holding it or a state inside it), or, for
    /// a machine without a file, a state as the fleet keeps it.
    fn instances(&mut self, machine: &str, state: &str, after: Option<&str>) -> Result<Value, String> {
        let Some(counted) = &self.counted else {
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
            None => rows.filter(|t| t.state == state).map(|t| t.state.as_str()).collect(),
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
            for (count, add) in counts.iter_mut().zip([row.instances, row.parked, row.due, row.dead]) {
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
            percent_encoding::percent_decode_str(&v).decode_utf8_lossy().into_owned()
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
                self.refresh();
                match query_value(query, "since").and_then(|v| v.parse::<u64>().ok()) {
                    Some(since) if since == self.version => {
                        Reply::json(200, &json!({"version": since, "unchanged": true}))
                    }
                    _ => Reply::json(200, &self.state_json()),
                }
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
                let (Some(machine), Some(state)) = (query_value(query, "machine"), query_value(query, "state"))
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
            (_, "" | "fleet.js" | "app.css" | "icon.svg" | "api/fleet" | "api/diagram.svg" | "api/instances" | "api/instance") => {
                method_not_allowed("GET")
            }
            (_, rest) => Reply::text(404, &format!("not found: /{rest}\n")),
        }
    }
}
