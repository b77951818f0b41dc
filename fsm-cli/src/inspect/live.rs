//! `fsmc inspect --listen ADDR`: the machines of running programs, watched
//! live. Programs observed with fsm-runtime's `inspect` feature connect to
//! ADDR and send one JSON object a line (`hello`, `step`, `gone`, stamped
//! with the machine's name, the instance id and the fingerprint); the page
//! lists the instances and follows the one chosen, read-only.
//!
//! Routes, under `/TOKEN/`: `` (the page), `live.js`, `live.css`,
//! `app.css`, `icon.svg`; `api/live` (everything the page shows, as JSON;
//! `?instance=ID&after=N` adds that instance's steps after the `N`th, and
//! `since=V` waits for a change after version V); `api/live/events` (the
//! same as server-sent events, one each time something changes);
//! `api/live/diagram.svg?instance=ID`.
//!
//! Memory is bounded: at most [`MAX_INSTANCES`] instances (ended ones are
//! forgotten first, then new ones are refused and counted), each keeping
//! its last [`MAX_STEPS`] steps and at most [`MAX_STEP_BYTES`] of them; a
//! line longer than [`MAX_LINE`] is skipped; at most [`MAX_OBSERVERS`]
//! programs at once. A line that is not what the protocol says is counted
//! and the last few are shown, never more.

use super::page;
use super::server::{self, Reply, Request};
use crate::exit::Exit;
use fsm_dynamic::Definition;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// The most instances kept.
pub const MAX_INSTANCES: usize = 1000;
/// The most steps kept of one instance: the latest.
pub const MAX_STEPS: usize = 1000;
/// The most bytes of steps (as received) kept of one instance.
pub const MAX_STEP_BYTES: usize = 256 << 10;
/// The longest line a program may send (a hello carries a definition).
pub const MAX_LINE: usize = 4 << 20;
/// The most programs connected at once.
pub const MAX_OBSERVERS: usize = 64;
/// The most malformed lines shown.
const MAX_SAMPLES: usize = 5;
/// The most definitions drawn and kept.
const MAX_DIAGRAMS: usize = 64;
/// The most steps one answer to the page carries.
const STEPS_PER_ANSWER: usize = 500;
/// The least time between two events to the page.
const EVENT_GAP: Duration = Duration::from_millis(15);
/// How long the page's request waits for a change before it is answered
/// anyway.
const LONG_POLL: Duration = Duration::from_secs(15);

/// A machine drawn: its diagram and, for the highlight, each state's
/// ancestors.
struct Drawn {
    svg: Result<String, String>,
    ancestors: Map<String, Value>,
}

/// A machine of a FILE given on the command line.
struct FileMachine {
    /// The file, as given.
    file: String,
    name: String,
    fingerprint: String,
    drawn: Arc<Drawn>,
}

struct Instance {
    id: u64,
    machine: String,
    instance: String,
    fingerprint: String,
    /// The connection it last came on; `None` once it ended.
    connection: Option<u64>,
    /// Why it is no longer live: `gone` (the program dropped it) or
    /// `disconnected`.
    ended: Option<&'static str>,
    state: Vec<String>,
    dropped: u64,
    /// Steps received, in all.
    received: u64,
    /// Each with its size as received.
    steps: VecDeque<(usize, Value)>,
    bytes: usize,
    context: Option<Value>,
    drawn: Result<Arc<Drawn>, String>,
    /// The version of its last change.
    updated: u64,
}

#[derive(Default)]
struct State {
    version: u64,
    next_id: u64,
    instances: BTreeMap<u64, Instance>,
    by_key: HashMap<(String, String), u64>,
    malformed: u64,
    samples: VecDeque<String>,
    refused: u64,
    observers: usize,
    diagrams: HashMap<(String, String), Result<Arc<Drawn>, String>>,
}

/// The inspector's view of the programs watched.
pub struct Live {
    state: Mutex<State>,
    changed: Condvar,
    listen: SocketAddr,
    file: Option<String>,
    files: Vec<FileMachine>,
}

/// Listen for programs on `listen` and serve the page through `server`;
/// the files at `paths` give the machines' definitions (before what the
/// programs send). Runs until stopped.
pub fn run(listen: SocketAddr, paths: Vec<PathBuf>, server: server::Server) -> Exit {
    let mut files = Vec::new();
    for path in &paths {
        let text = match crate::files::read(path) {
            Ok(text) => text,
            Err(error) => {
                crate::console::error(error);
                return Exit::Trouble;
            }
        };
        let name = path.display().to_string();
        let checked = fsm_grammar::check(&text);
        if checked.has_errors() {
            crate::console::stderr(&fsm_grammar::report::human(
                &name,
                &text,
                &checked.diagnostics,
                100,
                false,
            ));
            return Exit::Trouble;
        }
        for machine in &checked.model.machines {
            files.push(FileMachine {
                file: name.clone(),
                name: machine.name.clone(),
                fingerprint: machine.fingerprint(),
                drawn: Arc::new(draw(machine)),
            });
        }
    }
    let listener = match TcpListener::bind(listen) {
        Ok(listener) => listener,
        Err(error) => {
            crate::console::error(format_args!("cannot listen for programs on {listen}: {error}"));
            return Exit::Trouble;
        }
    };
    let listen = listener.local_addr().unwrap_or(listen);
    let live = Arc::new(Live {
        state: Mutex::new(State::default()),
        changed: Condvar::new(),
        listen,
        file: (!paths.is_empty()).then(|| {
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }),
        files,
    });
    let handler_live = Arc::clone(&live);
    server.serve_with(
        &format!("watching programs that connect to {listen}"),
        Arc::new(move |request| Some(route(&handler_live, &request))),
    );
    accept(&live, &listener);
    Exit::Trouble
}

fn draw(machine: &fsm_grammar::model::Machine) -> Drawn {
    let definition = Definition::from_machine(machine);
    let ancestors = definition
        .states()
        .map(|s| {
            let names: Vec<&str> = definition
                .ancestors(s)
                .iter()
                .map(|&a| definition.state_name(a))
                .collect();
            (definition.state_name(s).to_owned(), json!(names))
        })
        .collect();
    Drawn {
        svg: fsm_diagram::svg(machine)
            .map_err(|too_large| format!("machine `{}` is too large to draw: {too_large}", machine.name)),
        ancestors,
    }
}

fn lock(live: &Live) -> MutexGuard<'_, State> {
    live.state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Accept programs, each on a thread of its own, at most [`MAX_OBSERVERS`]
/// at once (more are closed at once).
fn accept(live: &Arc<Live>, listener: &TcpListener) {
    let open = Arc::new(AtomicUsize::new(0));
    let mut connection = 0u64;
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        if open.load(Ordering::Acquire) >= MAX_OBSERVERS {
            live.malformed(format!(
                "a program was turned away: {MAX_OBSERVERS} are connected already"
            ));
            continue;
        }
        connection += 1;
        let slot = Slot::take(&open);
        let (live, id) = (Arc::clone(live), connection);
        // Out of threads, the program is dropped unread, and its slot with it.
        let _ = std::thread::Builder::new().spawn(move || {
            let _slot = slot;
            live.observe(stream, id);
        });
    }
}

/// One of the [`MAX_OBSERVERS`], given back when dropped.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(open: &Arc<AtomicUsize>) -> Slot {
        open.fetch_add(1, Ordering::AcqRel);
        Slot(Arc::clone(open))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Live {
    fn touch(&self, state: &mut State) -> u64 {
        state.version += 1;
        self.changed.notify_all();
        state.version
    }

    fn malformed(&self, why: String) {
        let mut state = lock(self);
        state.malformed += 1;
        if state.samples.len() == MAX_SAMPLES {
            state.samples.pop_front();
        }
        state.samples.push_back(why);
        self.touch(&mut state);
    }

    /// Read one program's lines until it disconnects.
    fn observe(&self, stream: TcpStream, connection: u64) {
        {
            let mut state = lock(self);
            state.observers += 1;
            self.touch(&mut state);
        }
        let mut reader = BufReader::with_capacity(64 << 10, stream);
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = (&mut reader)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut line);
            match read {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
                self.malformed(format!("a line longer than {MAX_LINE} bytes was skipped"));
                // The rest of it, to its end.
                if skip_line(&mut reader).is_err() {
                    break;
                }
                continue;
            }
            let text = match std::str::from_utf8(&line) {
                Ok(text) => text.trim_end_matches(['\n', '\r']),
                Err(error) => {
                    self.malformed(format!(
                        "a line is not UTF-8 (byte {} is not)",
                        error.valid_up_to() + 1
                    ));
                    continue;
                }
            };
            if text.trim().is_empty() {
                continue;
            }
            if let Err(why) = self.line(text, connection) {
                self.malformed(format!("{why}: {}", excerpt(text)));
            }
        }
        let mut state = lock(self);
        state.observers -= 1;
        let version = state.version + 1;
        for instance in state.instances.values_mut() {
            if instance.connection == Some(connection) {
                instance.connection = None;
                instance.ended.get_or_insert("disconnected");
                instance.updated = version;
            }
        }
        self.touch(&mut state);
    }

    /// Apply one line of the protocol.
    fn line(&self, text: &str, connection: u64) -> Result<(), String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
        let Value::Object(mut object) = value else {
            return Err("not a JSON object".to_owned());
        };
        let field = |object: &Map<String, Value>, name: &str| -> Result<String, String> {
            object
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("no string `{name}`"))
        };
        let kind = field(&object, "kind")?;
        let machine = field(&object, "machine")?;
        let instance = field(&object, "instance")?;
        let fingerprint = field(&object, "fingerprint")?;
        let dropped = object.get("dropped").and_then(Value::as_u64).unwrap_or(0);
        match kind.as_str() {
            "hello" => {
                let state = names(object.get("state")).ok_or("`state` is not a list of names")?;
                let drawn = self.drawn(
                    &machine,
                    &fingerprint,
                    object.get("definition").and_then(Value::as_str),
                );
                let mut live = lock(self);
                let id = self.instance(&mut live, &machine, &instance, &fingerprint, drawn.clone())?;
                let version = live.version + 1;
                let entry = live.instances.get_mut(&id).expect("just made");
                // A later hello may bring the definition an earlier one lacked.
                if drawn.is_ok() || entry.drawn.is_err() {
                    entry.drawn = drawn;
                }
                entry.connection = Some(connection);
                entry.ended = None;
                entry.state = state;
                entry.dropped = entry.dropped.max(dropped);
                entry.updated = version;
                self.touch(&mut live);
            }
            "gone" => {
                let mut live = lock(self);
                let Some(&id) = live.by_key.get(&(machine, instance)) else {
                    return Err("`gone` of an instance never announced".to_owned());
                };
                let version = live.version + 1;
                let entry = live.instances.get_mut(&id).expect("indexed");
                entry.connection = None;
                entry.ended = Some("gone");
                entry.dropped = entry.dropped.max(dropped);
                entry.updated = version;
                self.touch(&mut live);
            }
            "step" => {
                let step = field(&object, "step")?;
                if !["fired", "rejected", "timer", "timer_rejected"].contains(&step.as_str()) {
                    return Err(format!("unknown step `{step}`"));
                }
                field(&object, "action")?;
                let to = names(object.get("to")).ok_or("`to` is not a list of names")?;
                names(object.get("from")).ok_or("`from` is not a list of names")?;
                for name in ["seq", "at_us"] {
                    object
                        .get(name)
                        .and_then(Value::as_u64)
                        .ok_or_else(|| format!("no number `{name}`"))?;
                }
                let context = object.remove("context");
                for stamp in ["kind", "machine", "instance", "fingerprint"] {
                    object.remove(stamp);
                }
                // The diagram is looked for only for an instance not seen
                // before (or seen with another fingerprint).
                let seen = {
                    let live = lock(self);
                    live.by_key
                        .get(&(machine.clone(), instance.clone()))
                        .and_then(|id| live.instances.get(id))
                        .is_some_and(|i| i.fingerprint == fingerprint)
                };
                let drawn = match seen {
                    true => Err(String::new()),
                    false => self.drawn(&machine, &fingerprint, None),
                };
                let mut live = lock(self);
                let id = self.instance(&mut live, &machine, &instance, &fingerprint, drawn)?;
                let version = live.version + 1;
                let entry = live.instances.get_mut(&id).expect("just made");
                entry.connection = Some(connection);
                entry.received += 1;
                object.insert("n".to_owned(), json!(entry.received));
                // Without its context, which is kept apart, the latest only.
                let size = text.len();
                entry.steps.push_back((size, Value::Object(object)));
                entry.bytes += size;
                while entry.steps.len() > MAX_STEPS || (entry.bytes > MAX_STEP_BYTES && entry.steps.len() > 1)
                {
                    if let Some((old, _)) = entry.steps.pop_front() {
                        entry.bytes -= old;
                    }
                }
                if step == "fired" || step == "timer" {
                    entry.state = to;
                }
                if context.is_some() {
                    entry.context = context;
                }
                entry.dropped = entry.dropped.max(dropped);
                entry.updated = version;
                self.touch(&mut live);
            }
            other => return Err(format!("unknown kind `{other}`")),
        }
        Ok(())
    }

    /// The instance `(machine, instance)`, made if new; refused when
    /// [`MAX_INSTANCES`] are kept and none has ended.
    fn instance(
        &self,
        state: &mut State,
        machine: &str,
        instance: &str,
        fingerprint: &str,
        drawn: Result<Arc<Drawn>, String>,
    ) -> Result<u64, String> {
        let key = (machine.to_owned(), instance.to_owned());
        if let Some(&id) = state.by_key.get(&key) {
            let entry = state.instances.get_mut(&id).expect("indexed");
            if entry.fingerprint != fingerprint {
                // The program restarted with another definition.
                entry.fingerprint = fingerprint.to_owned();
                entry.drawn = drawn;
                entry.steps.clear();
                entry.bytes = 0;
            }
            return Ok(id);
        }
        if state.instances.len() >= MAX_INSTANCES {
            let oldest_ended = state
                .instances
                .values()
                .filter(|i| i.ended.is_some())
                .min_by_key(|i| i.updated)
                .map(|i| i.id);
            match oldest_ended {
                Some(id) => {
                    if let Some(old) = state.instances.remove(&id) {
                        state.by_key.remove(&(old.machine, old.instance));
                    }
                }
                None => {
                    state.refused += 1;
                    return Err(format!(
                        "refused: {MAX_INSTANCES} live instances are shown already, the most kept"
                    ));
                }
            }
        }
        state.next_id += 1;
        let id = state.next_id;
        state.by_key.insert(key, id);
        state.instances.insert(
            id,
            Instance {
                id,
                machine: machine.to_owned(),
                instance: instance.to_owned(),
                fingerprint: fingerprint.to_owned(),
                connection: None,
                ended: None,
                state: Vec::new(),
                dropped: 0,
                received: 0,
                steps: VecDeque::new(),
                bytes: 0,
                context: None,
                drawn,
                updated: 0,
            },
        );
        Ok(id)
    }

    /// The diagram of `machine` with `fingerprint`: from the FILE when it
    /// defines the machine (and has the same fingerprint), else from the
    /// definition the program sent (checked the same way), else why not.
    fn drawn(
        &self,
        machine: &str,
        fingerprint: &str,
        definition: Option<&str>,
    ) -> Result<Arc<Drawn>, String> {
        if let Some(ours) = self.files.iter().find(|m| m.name == machine) {
            let file = &ours.file;
            if ours.fingerprint == fingerprint {
                return Ok(Arc::clone(&ours.drawn));
            }
            return Err(format!(
                "`{file}` defines `{machine}` with fingerprint {}, but the program runs fingerprint {fingerprint}: \
                 another version of the machine, so its diagram would mislead",
                ours.fingerprint
            ));
        }
        let key = (machine.to_owned(), fingerprint.to_owned());
        if let Some(known) = lock(self).diagrams.get(&key) {
            if known.is_ok() || definition.is_none() {
                return known.clone();
            }
        }
        let Some(text) = definition else {
            return Err(format!(
                "the program sent no definition of `{machine}`: give it to the program \
                 (`Observed::with_definition`), or the file to `fsmc inspect --listen ADDR FILE.fsm`"
            ));
        };
        let parsed = if text.trim_start().starts_with('{') {
            Definition::from_json_named(text, machine)
        } else {
            Definition::from_fsm_named(text, machine)
        };
        let drawn = match parsed {
            Err(error) => Err(format!("the definition the program sent does not load: {error}")),
            Ok(definition) if definition.fingerprint() != fingerprint => Err(format!(
                "the definition the program sent has fingerprint {}, but the machine runs {fingerprint}: \
                 it is not the definition the machine was built from",
                definition.fingerprint()
            )),
            Ok(definition) => Ok(Arc::new(draw(definition.machine()))),
        };
        let mut state = lock(self);
        if state.diagrams.len() >= MAX_DIAGRAMS {
            state.diagrams.clear();
        }
        state.diagrams.insert(key, drawn.clone());
        drawn
    }

    /// Everything the page shows, waiting for a change when it has seen
    /// version `since` already.
    fn answer(&self, query: &Query) -> Value {
        let mut state = lock(self);
        if query.since == Some(state.version) {
            let (waited, _) = self
                .changed
                .wait_timeout_while(state, LONG_POLL, |s| Some(s.version) == query.since)
                .unwrap_or_else(PoisonError::into_inner);
            state = waited;
        }
        let instances: Vec<Value> = state
            .instances
            .values()
            .map(|i| {
                json!({
                    "id": i.id,
                    "machine": i.machine,
                    "instance": i.instance,
                    "fingerprint": i.fingerprint,
                    "live": i.ended.is_none(),
                    "ended": i.ended,
                    "state": i.state,
                    "last": i.steps.back().map(|(_, s)| s),
                    "steps": i.received,
                    "dropped": i.dropped,
                    "diagram_error": i.drawn.as_ref().err(),
                })
            })
            .collect();
        let selected = query
            .instance
            .and_then(|id| state.instances.get(&id))
            .map(|i| selected(i, query.after));
        json!({
            "version": state.version,
            "listen": self.listen.to_string(),
            "file": self.file,
            "observers": state.observers,
            "malformed": {"count": state.malformed, "last": state.samples},
            "refused": state.refused,
            "limits": {"instances": MAX_INSTANCES, "steps": MAX_STEPS, "step_bytes": MAX_STEP_BYTES, "line": MAX_LINE},
            "instances": instances,
            "selected": selected,
        })
    }

    fn svg(&self, id: u64) -> Result<String, String> {
        let state = lock(self);
        let instance = state
            .instances
            .get(&id)
            .ok_or_else(|| format!("no instance {id}"))?;
        let drawn = instance.drawn.as_ref().map_err(Clone::clone)?;
        drawn.svg.clone()
    }
}

/// The instance the page follows: its steps after the `after`-th, its
/// active states and what the highlight needs.
fn selected(instance: &Instance, after: u64) -> Value {
    let ancestors = instance
        .drawn
        .as_ref()
        .map(|d| d.ancestors.clone())
        .unwrap_or_default();
    let mut active: Vec<&str> = Vec::new();
    for leaf in &instance.state {
        if let Some(Value::Array(up)) = ancestors.get(leaf) {
            for a in up.iter().filter_map(Value::as_str) {
                if !active.contains(&a) {
                    active.push(a);
                }
            }
        }
        active.push(leaf);
    }
    let new: Vec<&Value> = instance
        .steps
        .iter()
        .map(|(_, s)| s)
        .filter(|s| s.get("n").and_then(Value::as_u64).is_some_and(|n| n > after))
        .collect();
    let skip = new.len().saturating_sub(STEPS_PER_ANSWER);
    json!({
        "id": instance.id,
        "fingerprint": instance.fingerprint,
        "leaves": instance.state,
        "active": active,
        "ancestors": ancestors,
        "context": instance.context,
        "steps": &new[skip..],
        "diagram_error": instance.drawn.as_ref().err(),
    })
}

/// The rest of a line too long to keep, read and dropped.
fn skip_line(reader: &mut BufReader<TcpStream>) -> std::io::Result<()> {
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(());
            }
            None => {
                let all = buffer.len();
                reader.consume(all);
            }
        }
    }
}

/// A list of strings, owned.
fn names(value: Option<&Value>) -> Option<Vec<String>> {
    value?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// The start of a line, for a message.
fn excerpt(text: &str) -> String {
    const LONGEST: usize = 160;
    match text.char_indices().nth(LONGEST) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// `since=V&instance=ID&after=N`.
struct Query {
    since: Option<u64>,
    instance: Option<u64>,
    after: u64,
}

fn query(text: &str) -> Query {
    let mut query = Query {
        since: None,
        instance: None,
        after: 0,
    };
    for pair in text.split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let number = value.parse::<u64>().ok();
        match name {
            "since" => query.since = number,
            "instance" => query.instance = number,
            "after" => query.after = number.unwrap_or(0),
            _ => {}
        }
    }
    query
}

/// Send the page's view as server-sent events, one each time something
/// changes (and one every [`LONG_POLL`] when nothing does), each with the
/// chosen instance's steps since the last, until the page goes.
fn stream(live: &Live, out: &mut TcpStream, mut query: Query) {
    query.since = None;
    let mut sent = std::time::Instant::now() - EVENT_GAP;
    loop {
        // Changes that come closer together than this go in one event: the
        // page draws each event once, and no faster than its frames.
        std::thread::sleep(EVENT_GAP.saturating_sub(sent.elapsed()));
        sent = std::time::Instant::now();
        let answer = live.answer(&query);
        query.since = answer["version"].as_u64();
        if let Some(steps) = answer["selected"]["steps"].as_array() {
            if let Some(n) = steps.last().and_then(|s| s["n"].as_u64()) {
                query.after = n;
            }
        }
        let event = format!("data: {answer}\n\n");
        if out
            .write_all(event.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}

/// The answer to a request whose token was checked.
fn route(live: &Arc<Live>, request: &Request) -> Reply {
    match (request.method.as_str(), request.rest.as_str()) {
        ("GET", "") => Reply::bytes(200, "text/html; charset=utf-8", page::LIVE_HTML),
        ("GET", "live.js") => Reply::bytes(200, "text/javascript; charset=utf-8", page::LIVE_JS),
        ("GET", "app.css") => Reply::bytes(200, "text/css; charset=utf-8", page::APP_CSS),
        ("GET", "live.css") => Reply::bytes(200, "text/css; charset=utf-8", page::LIVE_CSS),
        ("GET", "icon.svg") => Reply::bytes(200, "image/svg+xml", page::ICON_SVG),
        ("GET", "api/live") => Reply::json(200, &live.answer(&query(&request.query))),
        ("GET", "api/live/events") => {
            let (live, query) = (Arc::clone(live), query(&request.query));
            Reply::events(Box::new(move |out| stream(&live, out, query)))
        }
        ("GET", "api/live/diagram.svg") => match query(&request.query).instance {
            None => Reply::error(400, "which instance? `?instance=ID`"),
            Some(id) => match live.svg(id) {
                Ok(svg) => Reply::bytes(200, "image/svg+xml", &svg),
                Err(message) => Reply::text(409, &format!("{message}\n")),
            },
        },
        (
            _,
            ""
            | "live.js"
            | "app.css"
            | "live.css"
            | "icon.svg"
            | "api/live"
            | "api/live/events"
            | "api/live/diagram.svg",
        ) => server::method_not_allowed("GET"),
        _ => Reply::text(404, &format!("not found: {}\n", request.path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_read_what_they_can() {
        let q = query("since=4&instance=2&after=17&x=1");
        assert_eq!((q.since, q.instance, q.after), (Some(4), Some(2), 17));
        let q = query("since=&instance=no");
        assert_eq!((q.since, q.instance, q.after), (None, None, 0));
    }

    #[test]
    fn excerpts_are_short() {
        assert_eq!(excerpt("abc"), "abc");
        let long = "é".repeat(500);
        assert_eq!(excerpt(&long).chars().count(), 161);
    }
}
