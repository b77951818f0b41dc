//! XState v5 machine config (JSON) → the JSON machine document:
//! [`from_xstate`], the way back of [`to_xstate`](super::to_xstate).
//!
//! The config is read into the [`JsonValue`] that the JSON importer reads,
//! recording where in the config each path of that document came from; the
//! JSON importer then reports its diagnostics (names, the `.fsm` checks) at
//! those places, JSON paths of the XState config
//! (`$.states.idle.on.start[0].target`). What fsmc cannot express is refused
//! here, at its place; what it has no place for is reported and skipped.

use super::import::names::identifier;
use super::import::path::JsonPath;
use super::import::{import_value, ImportDiagnostic, Imported, Sink};
use super::json_value::JsonValue;
use crate::diagnostic::Severity;
use std::collections::HashMap;

/// The context type of an imported machine whose effects or delays need
/// one: XState configs hold context values, not types.
const CONTEXT_TYPE: &str = "Context";
/// The id XState gives a machine whose config has none.
const DEFAULT_MACHINE_ID: &str = "(machine)";

/// Read an XState v5 machine config in JSON and return the equivalent
/// `.fsm` source.
///
/// Reads what [`to_xstate`](super::to_xstate) writes, and the same
/// constructs written by hand or by Stately's editor: `id`, `initial`,
/// `states`, `type` (`parallel`, `final`, `history` with `history` and
/// `target`), `on`, `after` (milliseconds or named delays), `always`,
/// `onDone`, `entry`/`exit`, guards and actions by name, `emit` actions as
/// outputs, `description`s as doc comments, and targets as state ids
/// (`#Machine.a.b`), sibling names or `.child`. Refuses what fsmc cannot
/// express (`invoke`, built-in actions and guards such as `xstate.assign`,
/// wildcard events, several targets) with an error at its JSON path; skips
/// what it has no place for (`context`, `meta`, `tags`, `params`) with a
/// warning naming it. Never panics.
///
/// ```
/// let config = r##"{
///   "id": "door",
///   "initial": "closed",
///   "states": {
///     "closed": {"on": {"open": "opened"}},
///     "opened": {"on": {"close": {"target": "#door.closed"}}}
///   }
/// }"##;
/// let imported = fsm_grammar::interchange::from_xstate(config).unwrap();
/// assert!(imported.source.contains("initial state closed {\n        on open -> opened;"));
///
/// let errors = fsm_grammar::interchange::from_xstate(&config.replace("\"opened\"}}", "\"opend\"}}")).unwrap_err();
/// assert_eq!(errors[0].to_string(), "$.states.closed.on.open: unknown target `opend`");
/// ```
pub fn from_xstate(text: &str) -> Result<Imported, Vec<ImportDiagnostic>> {
    let value = match JsonValue::parse(text) {
        Ok(value) => value,
        Err(error) => {
            let mut sink = Sink::default();
            sink.error(
                &JsonPath::root(),
                format!("invalid JSON: {error}"),
                "the file must be an XState machine config in JSON, as `fsmc export --format xstate` writes",
            );
            return Err(sink.into_vec());
        }
    };
    let mut reader = Reader::default();
    let document = reader.document(&value);
    // The nodes borrow the config: dropped with it, before the import.
    let (locations, problems) = (reader.locations, reader.problems);
    drop(value);
    let mut sink = Sink::located(locations);
    for p in problems {
        sink.at(p.severity, p.place, p.message, p.help);
    }
    match document {
        Some(document) if !sink.has_errors() => import_value(document, sink),
        _ => Err(sink.into_vec()),
    }
}

/// Whether `text` looks like an XState machine config rather than fsmc's
/// JSON machine document: a JSON object with `states` and `id` or
/// `initial`, and none of fsmc's `fsm_id`, `initial_state` and
/// `terminal_states`. Reads the text once, without keeping it.
pub fn looks_like_xstate(text: &str) -> bool {
    let Ok(members) = serde_json::from_str::<HashMap<String, serde::de::IgnoredAny>>(text) else {
        return false;
    };
    let has = |key: &str| members.contains_key(key);
    has("states")
        && (has("id") || has("initial"))
        && !has("fsm_id")
        && !has("initial_state")
        && !has("terminal_states")
}

struct Problem {
    severity: Severity,
    place: String,
    message: String,
    help: String,
}

/// A state node of the config.
struct Node<'v> {
    /// Its key in its parent's `states` (the machine's id for the root).
    key: String,
    /// Where it is in the config.
    path: JsonPath,
    value: &'v JsonValue,
    /// `None` for the root.
    parent: Option<usize>,
    /// Its child state nodes by key, history nodes included.
    children: Vec<usize>,
    /// For a history node: deep or not.
    history: Option<bool>,
}

#[derive(Default)]
struct Reader<'v> {
    /// Node 0 is the machine.
    nodes: Vec<Node<'v>>,
    /// The machine's id: a state's default id is it and the state's path,
    /// `Machine.a.b`.
    machine_id: String,
    /// The `id`s the config gives state nodes, and the machine's, to nodes.
    /// Default ids are not kept (they would repeat every ancestor's key):
    /// they are walked.
    ids: HashMap<String, usize>,
    /// Each node's children by key.
    children: HashMap<(usize, String), usize>,
    /// Paths of the fsmc document to the config's paths they came from.
    locations: HashMap<String, String>,
    problems: Vec<Problem>,
    /// The first effect or named delay: what needs a context type.
    needs_context: Option<JsonPath>,
}

/// A transition read, with the places of its members in the config.
struct Candidate {
    value: Vec<(String, JsonValue)>,
    place: JsonPath,
    member_places: Vec<(&'static str, JsonPath)>,
    list_places: Vec<(&'static str, Vec<JsonPath>)>,
}

/// Effects and outputs of an `entry`, `exit` or `actions`, with their places.
#[derive(Default)]
struct Actions {
    effects: Vec<(String, JsonPath)>,
    outputs: Vec<(String, JsonPath)>,
}

const MACHINE_FIELDS: &[&str] = &[
    "id",
    "description",
    "initial",
    "states",
    "on",
    "context",
    "version",
];
const STATE_FIELDS: &[&str] = &[
    "id",
    "description",
    "type",
    "initial",
    "states",
    "on",
    "after",
    "always",
    "onDone",
    "entry",
    "exit",
];
/// A history node's fields; its `description` has no place in fsmc.
const HISTORY_FIELDS: &[&str] = &["id", "type", "history", "target"];
const TRANSITION_FIELDS: &[&str] = &["target", "guard", "actions", "description", "reenter"];

impl<'v> Reader<'v> {
    fn problem(&mut self, severity: Severity, path: &JsonPath, message: String, help: impl Into<String>) {
        self.problems.push(Problem {
            severity,
            place: path.to_string(),
            message,
            help: help.into(),
        });
    }

    fn error(&mut self, path: &JsonPath, message: String, help: impl Into<String>) {
        self.problem(Severity::Error, path, message, help);
    }

    fn warning(&mut self, path: &JsonPath, message: String, help: impl Into<String>) {
        self.problem(Severity::Warning, path, message, help);
    }

    fn locate(&mut self, fsmc: &JsonPath, xstate: &JsonPath) {
        self.locations.insert(fsmc.to_string(), xstate.to_string());
    }

    fn type_error(&mut self, path: &JsonPath, expected: &str, found: &JsonValue) {
        let message = match found {
            JsonValue::TooDeep => format!(
                "expected {expected}, found a value nested more than {} levels deep",
                super::json_value::MAX_JSON_DEPTH
            ),
            _ => format!("expected {expected}, found {}", found.kind()),
        };
        self.error(
            path,
            message,
            "docs/export-import.md lists the XState that fsmc reads",
        );
    }

    /// The members of an object, each key once: a key given twice is an
    /// error, and only its first member is kept.
    fn members(
        &mut self,
        value: &'v JsonValue,
        path: &JsonPath,
        expected: &str,
    ) -> Option<Vec<(&'v str, &'v JsonValue)>> {
        let JsonValue::Object(members) = value else {
            self.type_error(path, expected, value);
            return None;
        };
        let mut kept: Vec<(&str, &JsonValue)> = Vec::with_capacity(members.len());
        let mut seen = std::collections::HashSet::new();
        for (key, member) in members {
            if seen.insert(key.as_str()) {
                kept.push((key, member));
            } else {
                self.error(
                    &path.key(key),
                    format!("`{key}` is given more than once in this object"),
                    "JSON objects keep one member per key; merge the two",
                );
            }
        }
        Some(kept)
    }

    fn string(&mut self, value: &'v JsonValue, path: &JsonPath) -> Option<&'v str> {
        match value {
            JsonValue::String(s) => Some(s),
            other => {
                self.type_error(path, "a string", other);
                None
            }
        }
    }

    /// Every state node of the config, before anything is read, so that
    /// targets can name any of them. States nested deeper than
    /// [`MAX_STATE_DEPTH`](crate::limits::MAX_STATE_DEPTH) are refused.
    fn collect(&mut self, root: &'v JsonValue, machine_id: &str) {
        self.nodes.push(Node {
            key: machine_id.to_string(),
            path: JsonPath::root(),
            value: root,
            parent: None,
            children: Vec::new(),
            history: None,
        });
        self.machine_id = machine_id.to_string();
        self.ids.insert(machine_id.to_string(), 0);
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        while let Some((index, depth)) = stack.pop() {
            let JsonValue::Object(fields) = self.nodes[index].value else {
                continue;
            };
            let Some((_, states)) = fields.iter().find(|(k, _)| k == "states") else {
                continue;
            };
            let states_path = self.nodes[index].path.key("states");
            let Some(members) = self.members(states, &states_path, "an object of states") else {
                continue;
            };
            let max = crate::limits::MAX_STATE_DEPTH;
            if depth + 1 > max {
                if let Some((key, _)) = members.first() {
                    self.error(
                        &states_path.key(key),
                        format!("state `{key}` is nested more than {max} levels deep"),
                        format!("states may nest at most {max} levels; flatten the hierarchy"),
                    );
                }
                continue;
            }
            for (key, value) in members {
                let child = self.nodes.len();
                let path = states_path.key(key);
                let history = match value {
                    JsonValue::Object(f)
                        if f.iter()
                            .any(|(k, v)| k == "type" && *v == JsonValue::string("history")) =>
                    {
                        let kind = f.iter().find(|(k, _)| k == "history").map(|(_, v)| v);
                        Some(matches!(kind, Some(JsonValue::String(s)) if s == "deep"))
                    }
                    _ => None,
                };
                self.children.insert((index, key.to_string()), child);
                if let JsonValue::Object(f) = value {
                    if let Some((_, JsonValue::String(custom))) = f.iter().find(|(k, _)| k == "id") {
                        if let Some(&other) = self.ids.get(custom.as_str()) {
                            if other != child {
                                let at = path.key("id");
                                self.error(
                                    &at,
                                    format!("the id `{custom}` names two state nodes"),
                                    "give each state node its own id",
                                );
                            }
                        } else {
                            self.ids.insert(custom.clone(), child);
                        }
                    }
                }
                self.nodes.push(Node {
                    key: key.to_string(),
                    path,
                    value,
                    parent: Some(index),
                    children: Vec::new(),
                    history,
                });
                self.nodes[index].children.push(child);
                stack.push((child, depth + 1));
            }
        }
    }

    fn document(&mut self, root: &'v JsonValue) -> Option<JsonValue> {
        let path = JsonPath::root();
        let JsonValue::Object(_) = root else {
            self.type_error(&path, "an XState machine config (an object)", root);
            return None;
        };
        let fields = self.members(root, &path, "an XState machine config")?;
        let get = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        self.locate(&path, &path);
        let mut members: Vec<(String, JsonValue)> = Vec::new();
        let name = match get("id") {
            Some(value) => self.string(value, &path.key("id")).map(str::to_string),
            None => {
                self.warning(
                    &path,
                    "the config has no `id`; the machine is imported as `Machine`".into(),
                    "give the machine an id: `\"id\": \"door\"`",
                );
                None
            }
        };
        self.collect(root, name.as_deref().unwrap_or(DEFAULT_MACHINE_ID));
        self.locate(&path.key("fsm_id"), &path.key("id"));
        members.push((
            "fsm_id".into(),
            JsonValue::string(name.unwrap_or_else(|| "Machine".to_string())),
        ));
        if let Some(docs) = self.description(get("description"), &path) {
            members.push(("description".into(), docs));
        }
        for (key, value) in &fields {
            let at = path.key(key);
            match *key {
                _ if MACHINE_FIELDS.contains(key) => {}
                "type" if **value == JsonValue::string("parallel") => self.error(
                    &at,
                    "a parallel machine is not supported by fsmc".into(),
                    "an fsmc machine starts in one state; put the regions in a parallel state: `\"initial\": \"main\", \"states\": {\"main\": {\"type\": \"parallel\", ...}}`",
                ),
                "entry" | "exit" | "after" | "always" | "onDone" => self.error(
                    &at,
                    format!("`{key}` on the machine itself is not supported by fsmc"),
                    "fsmc's machine-wide transitions are `on` transitions (`any`); put the rest in the top-level states",
                ),
                _ => self.field(key, value, &at, "the machine"),
            }
        }
        if let Some(context) = get("context") {
            if !matches!(context, JsonValue::Null) {
                self.warning(
                    &path.key("context"),
                    "the `context` values are not imported".into(),
                    "an fsmc machine holds no data: the program owns the context, whose type the .fsm file names with `context Type;`",
                );
            }
        }
        if get("version").is_some() {
            self.warning(
                &path.key("version"),
                "the machine's `version` is not imported".into(),
                "a `.fsm` machine has no version; its fingerprint, which changes with its behaviour, tells versions apart",
            );
        }
        match get("initial") {
            Some(value) => {
                if let Some(initial) = self.string(value, &path.key("initial")) {
                    self.locate(&path.key("initial_state"), &path.key("initial"));
                    members.push(("initial_state".into(), JsonValue::string(initial)));
                }
            }
            None => self.error(
                &path,
                "the config has no `initial`".into(),
                "name the state the machine starts in: `\"initial\": \"idle\"`",
            ),
        }
        // Top-level final states end the machine: fsmc's terminal states.
        let mut terminals = Vec::new();
        for &child in &self.nodes[0].children.clone() {
            let node = &self.nodes[child];
            if let JsonValue::Object(f) = node.value {
                if f.iter()
                    .any(|(k, v)| k == "type" && *v == JsonValue::string("final"))
                {
                    let fsmc = path.key("terminal_states").index(terminals.len());
                    let at = node.path.key("type");
                    terminals.push(node.key.clone());
                    self.locate(&fsmc, &at);
                }
            }
        }
        members.push((
            "terminal_states".into(),
            JsonValue::strings(terminals.iter().map(String::as_str)),
        ));
        if get("states").is_none() {
            self.error(
                &path,
                "the config has no `states`".into(),
                "list the states: `\"states\": {\"idle\": {}}`",
            );
        }
        let states = self.states(0, &path.key("states"));
        members.push(("states".into(), states));
        if let Some(on) = get("on") {
            if let Some(any) = self.on(on, &path.key("on"), 0, &path.key("any")) {
                members.push(("any".into(), any));
            }
        }
        if let Some(at) = self.needs_context.take() {
            self.warning(
                &at,
                format!("effects and named delays need a context type, which an XState config does not hold; the machine is imported with `context {CONTEXT_TYPE};`"),
                format!("replace `{CONTEXT_TYPE}` with the Rust type whose methods the effects and delays are"),
            );
            self.locate(&path.key("context"), &at);
            members.push(("context".into(), JsonValue::string(CONTEXT_TYPE)));
        }
        Some(JsonValue::Object(members))
    }

    /// A field fsmc has no place for: `invoke` is refused, anything else is
    /// skipped with a warning.
    fn field(&mut self, key: &str, _value: &JsonValue, at: &JsonPath, owner: &str) {
        match key {
            "invoke" => self.error(
                at,
                "`invoke` is not supported by fsmc".into(),
                "fsmc machines invoke nothing; run the actor, promise or callback from the program, and fire its results as actions",
            ),
            _ => self.warning(
                at,
                format!("field `{key}` of {owner} is not imported"),
                "fsmc has nothing that holds it; docs/export-import.md lists the XState it reads",
            ),
        }
    }

    /// A `description` as the fsmc document's.
    fn description(&mut self, value: Option<&'v JsonValue>, path: &JsonPath) -> Option<JsonValue> {
        let value = value?;
        self.string(value, &path.key("description"))
            .map(JsonValue::string)
    }

    /// The `states` object of fsmc's document for node `parent`'s children,
    /// history nodes left out (transitions name them by their state).
    fn states(&mut self, parent: usize, fsmc_path: &JsonPath) -> JsonValue {
        let children = self.nodes[parent].children.clone();
        let mut values = Vec::new();
        for child in children {
            if self.nodes[child].history.is_some() {
                self.history(child);
                continue;
            }
            let key = self.nodes[child].key.clone();
            if let Some(value) = self.state(child, &fsmc_path.key(&key)) {
                values.push((key, value));
            }
        }
        JsonValue::Object(values)
    }

    /// A history node: `history` and its default `target` are checked;
    /// transitions to it enter its state's history.
    fn history(&mut self, index: usize) {
        let path = self.nodes[index].path.clone();
        let value = self.nodes[index].value;
        let Some(fields) = self.members(value, &path, "a state node") else {
            return;
        };
        for (key, value) in &fields {
            let at = path.key(key);
            match *key {
                "history" => match value {
                    JsonValue::String(s) if s == "shallow" || s == "deep" => {}
                    other => {
                        let text = match other {
                            JsonValue::String(s) => format!("`{s}`"),
                            other => other.kind().to_string(),
                        };
                        self.error(
                            &at,
                            format!("unknown history {text}"),
                            "a history node is `\"history\": \"shallow\"` (the default) or `\"deep\"`",
                        );
                    }
                },
                "target" => {
                    let parent = self.nodes[index].parent.unwrap_or(0);
                    let expected = self.initial_child(parent);
                    let target = match value {
                        JsonValue::String(t) => self.resolve(Some(index), t).ok(),
                        _ => None,
                    };
                    if target.is_none() || target != expected {
                        let name = self.nodes[index].key.clone();
                        let state = self.nodes[parent].key.clone();
                        self.warning(
                            &at,
                            format!("the default target of history `{name}` is not imported"),
                            format!("before a state has been left, fsmc enters its history as the state itself (`{state}`), in its initial child"),
                        );
                    }
                }
                _ if HISTORY_FIELDS.contains(key) => {}
                _ => {
                    let owner = format!("history `{}`", self.nodes[index].key);
                    self.field(key, value, &at, &owner);
                }
            }
        }
    }

    /// The child node a compound node starts in, from its `initial`.
    fn initial_child(&self, index: usize) -> Option<usize> {
        let JsonValue::Object(f) = self.nodes[index].value else {
            return None;
        };
        let (_, JsonValue::String(initial)) = f.iter().find(|(k, _)| k == "initial")? else {
            return None;
        };
        self.nodes[index]
            .children
            .iter()
            .copied()
            .find(|&c| self.nodes[c].key == *initial)
    }

    /// One state node as a state of fsmc's document.
    fn state(&mut self, index: usize, fsmc: &JsonPath) -> Option<JsonValue> {
        let path = self.nodes[index].path.clone();
        let value = self.nodes[index].value;
        let fields = self.members(value, &path, "a state node")?;
        self.locate(fsmc, &path);
        let get = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        let name = self.nodes[index].key.clone();
        let top = self.nodes[index].parent == Some(0);
        for (key, value) in &fields {
            if !STATE_FIELDS.contains(key) {
                let at = path.key(key);
                let owner = format!("state `{name}`");
                self.field(key, value, &at, &owner);
            }
        }
        let mut members: Vec<(String, JsonValue)> = Vec::new();
        if let Some(docs) = self.description(get("description"), &path) {
            members.push(("description".into(), docs));
        }
        let kind = match get("type") {
            None => None,
            Some(value) => match self.string(value, &path.key("type")) {
                Some(kind @ ("atomic" | "compound" | "parallel" | "final")) => Some(kind),
                Some(other) => {
                    self.error(
                        &path.key("type"),
                        format!("unknown state type `{other}`"),
                        "a state node's type is `atomic`, `compound`, `parallel`, `final` or `history`",
                    );
                    None
                }
                None => None,
            },
        };
        for (key, outputs_key, effects_key) in [
            ("entry", "enter", "enter_effects"),
            ("exit", "exit", "exit_effects"),
        ] {
            if let Some(value) = get(key) {
                let actions = self.actions(value, &path.key(key));
                self.names_member(fsmc, outputs_key, actions.outputs, &mut members);
                self.names_member(fsmc, effects_key, actions.effects, &mut members);
            }
        }
        if let Some(on) = get("on") {
            if let Some(on) = self.on(on, &path.key("on"), index, &fsmc.key("on")) {
                members.push(("on".into(), on));
            }
        }
        if let Some(after) = get("after") {
            let list = self.after(after, &path.key("after"), index);
            if let Some(list) = self.list_value(list, &fsmc.key("after")) {
                members.push(("after".into(), list));
            }
        }
        for (key, fsmc_key) in [("onDone", "done"), ("always", "always")] {
            if let Some(value) = get(key) {
                let list = self.candidates(value, &path.key(key), index);
                if let Some(list) = self.list_value(list, &fsmc.key(fsmc_key)) {
                    members.push((fsmc_key.into(), list));
                }
            }
        }
        match kind {
            Some("final") if !top => {
                self.locate(&fsmc.key("final"), &path.key("type"));
                members.push(("final".into(), JsonValue::Bool(true)));
            }
            Some("parallel") => {
                self.locate(&fsmc.key("parallel"), &path.key("type"));
                members.push(("parallel".into(), JsonValue::Bool(true)));
            }
            _ => {}
        }
        if let Some(value) = get("initial") {
            let at = path.key("initial");
            if let Some(initial) = self.string(value, &at) {
                if kind == Some("parallel") {
                    self.warning(
                        &at,
                        format!("`initial` of parallel state `{name}` is not imported"),
                        "a parallel state starts in all of its regions",
                    );
                } else {
                    self.locate(&fsmc.key("initial"), &at);
                    members.push(("initial".into(), JsonValue::string(initial)));
                }
            }
        }
        if self.nodes[index]
            .children
            .iter()
            .any(|&c| self.nodes[c].history.is_none())
        {
            let states = self.states(index, &fsmc.key("states"));
            self.locate(&fsmc.key("states"), &path.key("states"));
            members.push(("states".into(), states));
        } else {
            // History nodes only: still checked.
            for child in self.nodes[index].children.clone() {
                self.history(child);
            }
        }
        Some(JsonValue::Object(members))
    }

    /// A list of names (`enter`, `exit_effects`, ...), each located.
    fn names_member(
        &mut self,
        fsmc: &JsonPath,
        key: &str,
        names: Vec<(String, JsonPath)>,
        members: &mut Vec<(String, JsonValue)>,
    ) {
        if names.is_empty() {
            return;
        }
        for (i, (_, at)) in names.iter().enumerate() {
            self.locate(&fsmc.key(key).index(i), at);
        }
        members.push((
            key.into(),
            JsonValue::strings(names.iter().map(|(n, _)| n.as_str())),
        ));
    }

    /// An `on` object: each event's candidates.
    fn on(
        &mut self,
        value: &'v JsonValue,
        path: &JsonPath,
        source: usize,
        fsmc: &JsonPath,
    ) -> Option<JsonValue> {
        let members = self.members(value, path, "an object of events")?;
        let mut out = Vec::new();
        for (event, value) in members {
            let at = path.key(event);
            if event.is_empty() {
                self.error(
                    &at,
                    "the event `\"\"` is not supported by fsmc".into(),
                    "an eventless transition is an `always` transition in XState v5",
                );
                continue;
            }
            if event == "*" || event.ends_with(".*") {
                self.error(
                    &at,
                    format!("event `{event}` is a wildcard"),
                    "fsmc's transitions name one action each; list the events",
                );
                continue;
            }
            if event.starts_with("xstate.") {
                self.error(
                    &at,
                    format!("event `{event}` is raised by XState, which fsmc has no equivalent of"),
                    "fsmc raises no built-in events: a state's completion is `onDone`, and a timer is `after`",
                );
                continue;
            }
            let list = self.candidates(value, &at, source);
            if let Some(list) = self.list_value(list, &fsmc.key(event)) {
                out.push((event.to_string(), list));
            }
        }
        (!out.is_empty()).then_some(JsonValue::Object(out))
    }

    /// `after`: candidates by delay, each with its `delay`.
    fn after(&mut self, value: &'v JsonValue, path: &JsonPath, source: usize) -> Vec<Candidate> {
        let Some(members) = self.members(value, path, "an object of delays") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, value) in members {
            let at = path.key(key);
            let delay = if !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()) {
                match key.parse::<u64>() {
                    Ok(ms) => crate::model::duration_text(core::time::Duration::from_millis(ms)),
                    Err(_) => {
                        self.error(
                            &at,
                            format!("delay `{key}` is out of range"),
                            "delays are whole milliseconds that fit in 64 bits",
                        );
                        continue;
                    }
                }
            } else if key.starts_with(|c: char| c.is_ascii_digit()) {
                self.error(
                    &at,
                    format!("delay `{key}` is not a whole number of milliseconds"),
                    "XState's delays are milliseconds (`\"after\": {\"1000\": ...}`) or the names of delays",
                );
                continue;
            } else {
                self.needs_context.get_or_insert_with(|| at.clone());
                key.to_string()
            };
            for mut c in self.candidates(value, &at, source) {
                c.value
                    .insert(0, ("delay".into(), JsonValue::string(delay.clone())));
                c.member_places.push(("delay", at.clone()));
                out.push(c);
            }
        }
        out
    }

    /// A transition: a target string, a transition object, or an array of them.
    fn candidates(&mut self, value: &'v JsonValue, path: &JsonPath, source: usize) -> Vec<Candidate> {
        match value {
            JsonValue::Array(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| self.candidate(item, &path.index(i), source))
                .collect(),
            other => self.candidate(other, path, source).into_iter().collect(),
        }
    }

    fn candidate(&mut self, value: &'v JsonValue, path: &JsonPath, source: usize) -> Option<Candidate> {
        let mut c = Candidate {
            value: Vec::new(),
            place: path.clone(),
            member_places: Vec::new(),
            list_places: Vec::new(),
        };
        if let JsonValue::String(target) = value {
            self.target(target, path, source, false, &mut c);
            return Some(c);
        }
        let fields = self.members(value, path, "a target or a transition object")?;
        let get = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        for (key, value) in &fields {
            if !TRANSITION_FIELDS.contains(key) {
                self.field(key, value, &path.key(key), "a transition");
            }
        }
        if let Some(docs) = self.description(get("description"), path) {
            c.value.push(("description".into(), docs));
        }
        let reenter = match get("reenter") {
            None => false,
            Some(JsonValue::Bool(b)) => *b,
            Some(other) => {
                self.type_error(&path.key("reenter"), "`true` or `false`", other);
                false
            }
        };
        if let Some(guard) = get("guard") {
            if let Some(text) = self.guard(guard, &path.key("guard")) {
                c.value.push(("guard".into(), JsonValue::string(text)));
                c.member_places.push(("guard", path.key("guard")));
            }
        }
        match get("target") {
            None => {}
            Some(JsonValue::String(target)) => self.target(target, &path.key("target"), source, reenter, &mut c),
            Some(JsonValue::Array(items)) => match items.as_slice() {
                [] => {}
                [JsonValue::String(target)] => {
                    self.target(target, &path.key("target").index(0), source, reenter, &mut c)
                }
                [_] => self.type_error(&path.key("target").index(0), "a string", &items[0]),
                _ => self.error(
                    &path.key("target"),
                    format!("the transition has {} targets", items.len()),
                    "an fsmc transition has one target; to enter several regions of a parallel state, target the parallel state",
                ),
            },
            Some(other) => self.type_error(&path.key("target"), "a target or an array of targets", other),
        }
        if let Some(actions) = get("actions") {
            let actions = self.actions(actions, &path.key("actions"));
            for (key, list) in [("effects", actions.effects), ("emit", actions.outputs)] {
                if !list.is_empty() {
                    c.value.push((
                        key.into(),
                        JsonValue::strings(list.iter().map(|(n, _)| n.as_str())),
                    ));
                    c.list_places
                        .push((key, list.into_iter().map(|(_, p)| p).collect()));
                }
            }
        }
        Some(c)
    }

    /// A guard: a name, `.fsm` guard text (as fsmc's export writes
    /// expressions), or `{"type": "name"}`.
    fn guard(&mut self, value: &'v JsonValue, path: &JsonPath) -> Option<String> {
        let text = match value {
            JsonValue::String(text) => text.as_str(),
            JsonValue::Object(_) => {
                let fields = self.members(value, path, "a guard")?;
                let mut name = None;
                for (key, value) in &fields {
                    let at = path.key(key);
                    match *key {
                        "type" => name = self.string(value, &at),
                        "params" => self.warning(
                            &at,
                            "the `params` of this guard are not imported".into(),
                            "fsmc's guards take no parameters; the program evaluates each guard by its name",
                        ),
                        _ => self.field(key, value, &at, "a guard"),
                    }
                }
                let Some(name) = name else {
                    self.error(
                        path,
                        "a guard object without `type`".into(),
                        "name the guard: `{\"type\": \"isReady\"}`, or just `\"isReady\"`",
                    );
                    return None;
                };
                if name.starts_with("xstate.") {
                    self.error(
                        path,
                        format!("the built-in guard `{name}` is not supported by fsmc"),
                        "write the guard as `.fsm` text, which fsmc's export writes for expressions: `\"guard\": \"a && !b\"`, `\"guard\": \"in(state)\"`",
                    );
                    return None;
                }
                name
            }
            other => {
                self.type_error(path, "a guard name or a guard object", other);
                return None;
            }
        };
        // `.fsm` guard text (names, `!`, `&&`, `||`, parentheses, `in(s)`)
        // is passed on, and checked by the JSON importer. A name that is
        // not an identifier is rewritten, as every other name.
        if text.contains(['!', '&', '|', '(', ')']) {
            return Some(text.to_string());
        }
        let trimmed = text.trim();
        let ident = identifier(trimmed);
        if ident != trimmed {
            self.warning(
                path,
                format!("guard `{trimmed}` is not a valid .fsm name; it is imported as `{ident}`"),
                "names match `[A-Za-z_][A-Za-z0-9_]*`; other characters become `_`",
            );
        }
        Some(ident)
    }

    /// `entry`, `exit` or `actions`: one action or an array of them. A name
    /// or `{"type": "name"}` is an effect, an `emit` an output.
    fn actions(&mut self, value: &'v JsonValue, path: &JsonPath) -> Actions {
        let mut out = Actions::default();
        match value {
            JsonValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.action(item, &path.index(i), &mut out);
                }
            }
            other => self.action(other, path, &mut out),
        }
        out
    }

    fn action(&mut self, value: &'v JsonValue, path: &JsonPath, out: &mut Actions) {
        let fields = match value {
            JsonValue::String(name) => {
                self.needs_context.get_or_insert_with(|| path.clone());
                out.effects.push((name.clone(), path.clone()));
                return;
            }
            JsonValue::Object(_) => match self.members(value, path, "an action") {
                Some(fields) => fields,
                None => return,
            },
            other => {
                self.type_error(path, "an action name or an action object", other);
                return;
            }
        };
        let get = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        let Some(name) = get("type").and_then(|v| self.string(v, &path.key("type"))) else {
            if get("type").is_none() {
                self.error(
                    path,
                    "an action object without `type`".into(),
                    "name the action: `{\"type\": \"save\"}`, or just `\"save\"`",
                );
            }
            return;
        };
        if name.starts_with("xstate.") {
            let help = match name {
                "xstate.assign" => "fsmc machines hold no data; the program updates its context in an effect (a named action)",
                "xstate.raise" | "xstate.sendTo" | "xstate.sendParent" | "xstate.forwardTo" => {
                    "fsmc machines send no events; an output (`{\"type\": \"emit\", \"params\": {\"output\": \"name\"}}`) tells the program, which fires actions"
                }
                "xstate.spawnChild" | "xstate.stopChild" => "fsmc machines spawn no actors; run other machines from the program",
                _ => "fsmc's actions are effects (named actions the program implements) and outputs (`{\"type\": \"emit\", \"params\": {\"output\": \"name\"}}`)",
            };
            self.error(
                path,
                format!("the built-in action `{name}` is not supported by fsmc"),
                help,
            );
            return;
        }
        if name == "emit" {
            let output = match get("params") {
                Some(JsonValue::Object(params)) => params.iter().find(|(k, _)| k == "output").map(|(_, v)| v),
                _ => None,
            };
            match output {
                Some(JsonValue::String(output)) => {
                    out.outputs
                        .push((output.clone(), path.key("params").key("output")));
                }
                _ => self.error(
                    path,
                    "an `emit` action without `params.output`".into(),
                    "fsmc reads outputs as `{\"type\": \"emit\", \"params\": {\"output\": \"name\"}}`",
                ),
            }
            for (key, value) in &fields {
                let at = path.key(key);
                match (*key, value) {
                    ("type", _) => {}
                    ("params", JsonValue::Object(params)) => {
                        for (param, _) in params.iter().filter(|(k, _)| k != "output") {
                            self.warning(
                                &at.key(param),
                                format!("parameter `{param}` of an `emit` is not imported"),
                                "an fsmc output is a name; its payload is the program's",
                            );
                        }
                    }
                    ("params", _) => {}
                    _ => self.field(key, value, &at, "an action"),
                }
            }
            return;
        }
        for (key, value) in &fields {
            let at = path.key(key);
            match *key {
                "type" => {}
                "params" => self.warning(
                    &at,
                    format!("the `params` of action `{name}` are not imported"),
                    "fsmc's effects take no parameters; the program runs each effect by its name",
                ),
                _ => self.field(key, value, &at, "an action"),
            }
        }
        self.needs_context.get_or_insert_with(|| path.clone());
        out.effects.push((name.to_string(), path.clone()));
    }

    /// Resolve `text` as XState resolves a target from `source` (node 0 is
    /// the machine): `#id` and `#id.path`, `.child.path`, or a sibling's
    /// `name.path`.
    fn resolve(&self, source: Option<usize>, text: &str) -> Result<usize, String> {
        let unknown = || format!("unknown target `{text}`");
        let walk = |from: usize, path: &str| -> Result<usize, String> {
            let mut at = from;
            for key in path.split('.') {
                if key.is_empty() {
                    continue;
                }
                at = *self.children.get(&(at, key.to_string())).ok_or_else(unknown)?;
            }
            Ok(at)
        };
        if let Some(id) = text.strip_prefix('#') {
            if let Some(&node) = self.ids.get(id) {
                return Ok(node);
            }
            // A default id: the machine's id and a path.
            let in_machine = id
                .strip_prefix(self.machine_id.as_str())
                .and_then(|rest| rest.strip_prefix('.'));
            if let Some(Ok(node)) = in_machine.map(|path| walk(0, path)) {
                return Ok(node);
            }
            let (first, rest) = id.split_once('.').unwrap_or((id, ""));
            let &node = self.ids.get(first).ok_or_else(unknown)?;
            return walk(node, rest);
        }
        let source = source.unwrap_or(0);
        if let Some(child) = text.strip_prefix('.') {
            return walk(source, child);
        }
        match self.nodes[source].parent {
            Some(parent) => walk(parent, text),
            None => Err(format!(
                "target `{text}` is not valid from the machine's root; did you mean `.{text}`?"
            )),
        }
    }

    /// A transition's target: `to`, and `history` for a history node.
    fn target(&mut self, text: &str, at: &JsonPath, source: usize, reenter: bool, c: &mut Candidate) {
        let node = match self.resolve(Some(source), text) {
            Ok(node) => node,
            Err(message) => {
                self.error(
                    at,
                    message,
                    "targets are state ids (`#Machine.parent.child`), the names of sibling states, or `.child` for a state's own children",
                );
                return;
            }
        };
        if node == 0 {
            self.error(
                at,
                format!("target `{text}` is the machine itself"),
                "an fsmc transition targets a state; target the machine's initial state",
            );
            return;
        }
        c.member_places.push(("to", at.clone()));
        if let Some(deep) = self.nodes[node].history {
            let state = self.nodes[node].parent.unwrap_or(0);
            if state == 0 {
                self.error(
                    at,
                    format!("target `{text}` is a history of the machine itself"),
                    "fsmc enters the history of a compound or parallel state",
                );
                return;
            }
            c.value
                .push(("to".into(), JsonValue::string(self.nodes[state].key.clone())));
            c.value.push((
                "history".into(),
                JsonValue::string(if deep { "deep" } else { "shallow" }),
            ));
            c.member_places.push(("history", at.clone()));
            return;
        }
        c.value
            .push(("to".into(), JsonValue::string(self.nodes[node].key.clone())));
        if source == 0 {
            return;
        }
        // fsmc re-enters the source when the target is it or holds it, and
        // never leaves it for a target inside it; XState v5 re-enters only
        // with `reenter: true`.
        let holds = |outer: usize, inner: usize| {
            let mut at = Some(inner);
            while let Some(n) = at {
                if n == outer {
                    return true;
                }
                at = self.nodes[n].parent;
            }
            false
        };
        let name = self.nodes[source].key.clone();
        let target = self.nodes[node].key.clone();
        if holds(node, source) && !reenter {
            self.warning(
                at,
                format!("this transition from `{name}` to `{target}` without `reenter: true` is imported as one that exits and re-enters `{target}`"),
                "fsmc always exits and re-enters the target of a transition to the state that declares it, or to a state holding it; add `\"reenter\": true` to say so in XState too",
            );
        } else if node != source && holds(source, node) && reenter {
            self.warning(
                at,
                format!("this transition from `{name}` to `{target}` inside it with `reenter: true` is imported as one that stays in `{name}`"),
                "fsmc's transition from a state to a state inside it never leaves it; drop `reenter` for XState to agree",
            );
        }
    }

    /// A list of candidates, each located at its place in the config.
    fn list_value(&mut self, list: Vec<Candidate>, fsmc: &JsonPath) -> Option<JsonValue> {
        if list.is_empty() {
            return None;
        }
        let values = list
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let path = fsmc.index(i);
                self.locate(&path, &c.place);
                for (key, place) in c.member_places {
                    self.locate(&path.key(key), &place);
                }
                for (key, places) in c.list_places {
                    for (j, place) in places.into_iter().enumerate() {
                        self.locate(&path.key(key).index(j), &place);
                    }
                }
                JsonValue::Object(c.value)
            })
            .collect();
        Some(JsonValue::Array(values))
    }
}
