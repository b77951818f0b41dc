//! Reading the JSON document into machine specifications, reporting every
//! problem of its shape at its JSON path.
//!
//! Names are turned into `.fsm` identifiers as they are read (see
//! [`super::names`]). References to states (`initial_state`,
//! `terminal_states`, every `to`) are resolved here, so that a misspelled
//! state is reported with the document's other problems; everything else
//! that can be wrong with a well-shaped document is left to the `.fsm`
//! checks, which see the written machine.

use super::diagnostics::Sink;
use super::guard;
use super::names::{identifier, Kind, Name, Names};
use super::path::JsonPath;
use crate::diagnostic::Severity;
use crate::interchange::json_value::JsonValue;
use crate::suggest;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

/// The members a machine object may have (`$schema` is accepted and ignored).
const MACHINE_FIELDS: &[&str] = &[
    "$schema",
    "fsm_id",
    "version",
    "description",
    "allow",
    "initial_state",
    "terminal_states",
    "context",
    "actions",
    "guards",
    "outputs",
    "effects",
    "delays",
    "states",
    "any",
    "properties",
];
/// The members of a property object.
const PROPERTY_FIELDS: &[&str] = &["name", "description", "kind", "formula", "target", "assuming"];
const STATE_FIELDS: &[&str] = &[
    "description",
    "allow",
    "enter",
    "exit",
    "enter_effects",
    "exit_effects",
    "on",
    "after",
    "done",
    "always",
    "final",
    "parallel",
    "initial",
    "states",
];
const CANDIDATE_FIELDS: &[&str] = &[
    "description",
    "guard",
    "priority",
    "to",
    "history",
    "effects",
    "emit",
];
const TIMER_FIELDS: &[&str] = &[
    "delay",
    "description",
    "guard",
    "priority",
    "to",
    "history",
    "effects",
    "emit",
];
const DECLARATION_FIELDS: &[&str] = &["description"];
/// The fields of a declaration of a kind whose names take payloads.
const TYPED_DECLARATION_FIELDS: &[&str] = &["description", "payload"];

/// One machine of the document.
#[derive(Debug)]
pub(super) struct MachineSpec {
    /// The machine object.
    pub path: JsonPath,
    pub name: Option<Name>,
    pub docs: Vec<String>,
    pub allow: Vec<Code>,
    /// The context type in canonical `.fsm` text, and its path.
    pub context: Option<(String, JsonPath)>,
    /// `action`, `guard`, `output`, `effect` and `delay` declarations, for
    /// the kinds declared.
    pub declarations: Vec<Declarations>,
    pub states: Vec<StateSpec>,
    pub any: Vec<ActionSpec>,
    pub properties: Vec<PropertySpec>,
}

/// A property object: `.fsm` text for its name, kind and formula (the
/// formula checked to be one), each with its path.
#[derive(Debug)]
pub(super) struct PropertySpec {
    pub path: JsonPath,
    pub docs: Vec<String>,
    pub name: Option<(String, JsonPath)>,
    pub kind: &'static str,
    pub formula: (String, JsonPath),
    /// For `leads to`: the target formula, and the actions assumed, each
    /// with its path.
    pub leads_to: Option<(Located, Vec<Located>)>,
}

/// A text of the document and where it was.
pub(super) type Located = (String, JsonPath);

/// An `#[allow(...)]` entry as written.
#[derive(Debug)]
pub(super) struct Code {
    pub name: String,
    pub path: JsonPath,
}

/// The declared names of one kind.
#[derive(Debug)]
pub(super) struct Declarations {
    /// `action`, `guard`, `output`, `effect` or `delay`.
    pub keyword: &'static str,
    pub symbols: Vec<SymbolSpec>,
}

/// One declared name.
#[derive(Debug)]
pub(super) struct SymbolSpec {
    pub name: Name,
    pub docs: Vec<String>,
    /// The payload type in canonical `.fsm` text, and its path.
    pub payload: Option<(String, JsonPath)>,
}

/// One state.
#[derive(Debug)]
pub(super) struct StateSpec {
    pub name: Name,
    pub docs: Vec<String>,
    pub allow: Vec<Code>,
    /// Whether it is initial, and the member that says so: `initial_state`
    /// for a top-level state, its parent's `initial` for a child.
    pub initial: Option<JsonPath>,
    /// Whether it is terminal, and its entry in `terminal_states`.
    pub terminal: Option<JsonPath>,
    pub enter: Vec<Name>,
    pub exit: Vec<Name>,
    pub enter_effects: Vec<Name>,
    pub exit_effects: Vec<Name>,
    pub on: Vec<ActionSpec>,
    pub after: Vec<TimerSpec>,
    /// Its `done`, `always`, `final` and `parallel` members, boxed: most
    /// states have none, and a state spec stays as small as it was.
    pub statechart: Option<Box<StatechartSpec>>,
    /// The states inside this one, from its `states` member.
    pub children: Vec<StateSpec>,
    /// Its `initial` member: the child it starts in.
    pub initial_child: Option<(Name, JsonPath)>,
    /// Its `states` member is nested too deep and was not read.
    pub children_unread: bool,
}

impl StateSpec {
    /// This state and every state inside it, parents before children.
    pub(super) fn subtree(&self) -> Vec<&StateSpec> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(s) = stack.pop() {
            out.push(s);
            stack.extend(s.children.iter().rev());
        }
        out
    }
}

/// A state's members for parallel and final states and transitions without
/// an action.
#[derive(Debug, Default)]
pub(super) struct StatechartSpec {
    /// Its `done` transitions, in declaration order.
    pub done: Vec<CandidateSpec>,
    /// Its `always` transitions, in declaration order.
    pub always: Vec<CandidateSpec>,
    /// `"final": true`, and that member.
    pub final_: Option<JsonPath>,
    /// `"parallel": true`, and that member.
    pub parallel: Option<JsonPath>,
}

/// Every state of `states` and inside them, parents before children.
pub(super) fn all_states(states: &[StateSpec]) -> Vec<&StateSpec> {
    states.iter().flat_map(StateSpec::subtree).collect()
}

/// One timer: its delay (a literal such as `30s`, or a delay's name) and
/// the rest, as for a transition.
#[derive(Debug)]
pub(super) struct TimerSpec {
    pub delay: Option<DelaySpec>,
    pub body: CandidateSpec,
}

/// The delay of a timer.
#[derive(Debug)]
pub(super) enum DelaySpec {
    /// A duration literal, lexically well formed; the checks read its value.
    Literal(String, JsonPath),
    /// The name of a delay.
    Name(Name),
}

/// The candidates of one action in a state or the `any` block.
#[derive(Debug)]
pub(super) struct ActionSpec {
    pub name: Name,
    pub candidates: Vec<CandidateSpec>,
}

/// One transition.
#[derive(Debug)]
pub(super) struct CandidateSpec {
    pub path: JsonPath,
    pub docs: Vec<String>,
    /// `.fsm` guard text and its path.
    pub guard: Option<(String, JsonPath)>,
    pub priority: Option<(i32, JsonPath)>,
    pub to: Option<Name>,
    /// `"history": "shallow"` or `"deep"`: `to` is entered through its history.
    pub history: Option<(crate::ast::HistoryKind, JsonPath)>,
    pub effects: Vec<Name>,
    pub emit: Vec<Name>,
}

/// Read every machine of the document. Problems go to `sink`; the specs are
/// only complete when it holds no errors.
pub(super) fn document(value: &JsonValue, sink: &mut Sink) -> Vec<MachineSpec> {
    let mut machine_names = Names::default();
    let root = JsonPath::root();
    let mut reader = Reader {
        sink,
        suggestions: suggest::Budget::per_file(),
        unread: Unread::default(),
    };
    match value {
        JsonValue::Object(_) => reader
            .machine(value, &root, &mut machine_names)
            .into_iter()
            .collect(),
        JsonValue::Array(items) => items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| reader.machine(item, &root.index(i), &mut machine_names))
            .collect(),
        other => {
            reader.sink.error(
                &root,
                format!(
                    "expected a machine object or an array of machine objects, found {}",
                    other.kind()
                ),
                "see docs/json.md for the format",
            );
            Vec::new()
        }
    }
}

/// The members of an object, looked up by key.
struct Members<'v>(Vec<(&'v str, &'v JsonValue)>);

impl<'v> Members<'v> {
    fn get(&self, key: &str) -> Option<&'v JsonValue> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
}

struct Reader<'s> {
    sink: &'s mut Sink,
    /// What the document's "did you mean" searches may still spend.
    suggestions: suggest::Budget,
    /// The states of the current machine nested too deep to be read.
    unread: Unread,
}

/// The states the reader skips because they are nested too deep: a
/// reference to one of them is not an unknown state, only a consequence of
/// the `nesting-too-deep` already reported.
#[derive(Default)]
struct Unread {
    /// Their identifiers.
    idents: HashSet<String>,
    /// Some are deeper than the JSON reader keeps ([`JsonValue::TooDeep`]),
    /// so their names are not known either.
    beyond: bool,
}

impl Unread {
    /// Whether a reference to `ident` may name one of them.
    fn may_hold(&self, ident: &str) -> bool {
        self.beyond || self.idents.contains(ident)
    }

    /// Remember every state in the `states` object `value` and inside it,
    /// without recursion. Malformed members are skipped: nothing in them is
    /// read, so nothing in them is reported.
    fn collect(&mut self, value: &JsonValue) {
        let mut stack = vec![value];
        while let Some(value) = stack.pop() {
            let members = match value {
                JsonValue::Object(members) => members,
                JsonValue::TooDeep => {
                    self.beyond = true;
                    continue;
                }
                _ => continue,
            };
            for (key, state) in members {
                self.idents.insert(identifier(key));
                match state {
                    JsonValue::Object(fields) => stack.extend(
                        fields
                            .iter()
                            .filter(|(field, _)| field == "states")
                            .map(|(_, states)| states),
                    ),
                    JsonValue::TooDeep => self.beyond = true,
                    _ => {}
                }
            }
        }
    }
}

impl Reader<'_> {
    fn type_error(&mut self, path: &JsonPath, expected: &str, found: &JsonValue) {
        self.sink.error(
            path,
            format!("expected {expected}, found {}", found.kind()),
            "see docs/json.md for the format",
        );
    }

    /// The members of an object whose keys are names (`states`, `on`, ...).
    /// A key given twice is an error, and only its first member is kept.
    fn entries<'v>(
        &mut self,
        value: &'v JsonValue,
        path: &JsonPath,
        expected: &str,
        entry: &str,
    ) -> Option<Members<'v>> {
        let JsonValue::Object(members) = value else {
            self.type_error(path, expected, value);
            return None;
        };
        let mut kept: Vec<(&str, &JsonValue)> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for (key, member) in members {
            if !seen.insert(key) {
                self.sink.error(
                    &path.key(key),
                    format!("{entry} `{key}` is given more than once in this object"),
                    "JSON objects keep one member per key; merge the two",
                );
            } else {
                kept.push((key, member));
            }
        }
        Some(Members(kept))
    }

    /// The members of an object with a fixed set of fields. Unknown fields
    /// are errors that suggest the closest known field.
    fn fields<'v>(
        &mut self,
        value: &'v JsonValue,
        path: &JsonPath,
        expected: &str,
        known: &[&str],
    ) -> Option<Members<'v>> {
        let members = self.entries(value, path, expected, "field")?;
        for (key, _) in &members.0 {
            if !known.contains(key) {
                let help = suggest::help_for(
                    key,
                    known.iter().copied(),
                    &mut self.suggestions,
                    format!("the fields here are {}", listing(known)),
                );
                self.sink
                    .error(&path.key(key), format!("unknown field `{key}`"), help);
            }
        }
        Some(members)
    }

    fn string<'v>(&mut self, value: &'v JsonValue, path: &JsonPath) -> Option<&'v str> {
        match value {
            JsonValue::String(s) => Some(s),
            other => {
                self.type_error(path, "a string", other);
                None
            }
        }
    }

    /// The strings of an array, each with its path.
    fn strings<'v>(&mut self, value: &'v JsonValue, path: &JsonPath) -> Vec<(&'v str, JsonPath)> {
        let JsonValue::Array(items) = value else {
            self.type_error(path, "an array of strings", value);
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                let path = path.index(i);
                self.string(item, &path).map(|s| (s, path))
            })
            .collect()
    }

    fn names(
        &mut self,
        value: Option<&JsonValue>,
        path: &JsonPath,
        kind: Kind,
        names: &mut Names,
    ) -> Vec<Name> {
        let Some(value) = value else {
            return Vec::new();
        };
        self.strings(value, path)
            .into_iter()
            .map(|(s, path)| names.resolve(kind, s, &path, self.sink))
            .collect()
    }

    /// A `description` as doc lines: split at newlines, each line without
    /// trailing whitespace (doc comments cannot keep it).
    fn docs(&mut self, members: &Members<'_>, path: &JsonPath) -> Vec<String> {
        let Some(value) = members.get("description") else {
            return Vec::new();
        };
        match self.string(value, &path.key("description")) {
            Some(text) => text.split('\n').map(|line| line.trim_end().to_string()).collect(),
            None => Vec::new(),
        }
    }

    fn allow(&mut self, members: &Members<'_>, path: &JsonPath) -> Vec<Code> {
        let Some(value) = members.get("allow") else {
            return Vec::new();
        };
        let mut codes = Vec::new();
        for (name, path) in self.strings(value, &path.key("allow")) {
            let mut chars = name.chars();
            let well_formed = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if well_formed {
                codes.push(Code {
                    name: name.to_string(),
                    path,
                });
            } else {
                self.sink.error(
                    &path,
                    format!("`{name}` is not a diagnostic code"),
                    "codes are kebab-case warning names such as `unreachable-state`; `fsmc explain` lists them",
                );
            }
        }
        codes
    }

    fn machine(
        &mut self,
        value: &JsonValue,
        path: &JsonPath,
        machine_names: &mut Names,
    ) -> Option<MachineSpec> {
        let members = self.fields(value, path, "a machine object", MACHINE_FIELDS)?;
        self.unread = Unread::default();
        for (key, help) in [
            ("fsm_id", "name the machine: `\"fsm_id\": \"door\"`"),
            (
                "initial_state",
                "name the state the machine starts in: `\"initial_state\": \"idle\"`",
            ),
            ("states", "list the states: `\"states\": {\"idle\": {}}`"),
        ] {
            if members.get(key).is_none() {
                self.sink.error(path, format!("missing field `{key}`"), help);
            }
        }
        let mut names = Names::default();
        if let Some(schema) = members.get("$schema") {
            self.string(schema, &path.key("$schema"));
        }
        let name = members
            .get("fsm_id")
            .and_then(|v| self.string(v, &path.key("fsm_id")))
            .map(|s| machine_names.resolve(Kind::Machine, s, &path.key("fsm_id"), self.sink));
        if let Some(version) = members.get("version") {
            self.version(version, &path.key("version"));
        }
        let docs = self.docs(&members, path);
        let allow = self.allow(&members, path);

        let context = members.get("context").and_then(|value| {
            let path = path.key("context");
            self.rust_type(value, &path).map(|text| (text, path))
        });
        let mut declarations = Vec::new();
        for (key, keyword, kind) in [
            ("actions", "action", Kind::Action),
            ("guards", "guard", Kind::Guard),
            ("outputs", "output", Kind::Output),
            ("effects", "effect", Kind::Effect),
            ("delays", "delay", Kind::Delay),
        ] {
            if let Some(value) = members.get(key) {
                let symbols = self.declarations(value, &path.key(key), keyword, kind, &mut names);
                declarations.push(Declarations { keyword, symbols });
            }
        }

        let states_value = members.get("states");
        let mut states = match states_value {
            Some(value) => self
                .states(value, &path.key("states"), &mut names, 1)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let any = match members.get("any") {
            Some(value) => self.on(value, &path.key("any"), &mut names),
            None => Vec::new(),
        };
        let properties = match members.get("properties") {
            Some(value) => self.properties(value, &path.key("properties")),
            None => Vec::new(),
        };

        // `initial_state`, `terminal_states` and every `to` refer to states,
        // at any depth (names are unique in the whole machine).
        let flat = all_states(&states);
        let by_ident: HashMap<&str, usize> = flat
            .iter()
            .enumerate()
            .map(|(i, s)| (&*s.name.ident, i))
            .collect();
        let mut state_ref = |reader: &mut Self, value: &JsonValue, path: &JsonPath| -> Option<usize> {
            let text = reader.string(value, path)?;
            let ident = names.resolve(Kind::State, text, path, reader.sink).ident;
            let found = by_ident.get(&*ident).copied();
            if found.is_none() && states_value.is_some() && !reader.unread.may_hold(&ident) {
                reader.unknown_state(text, &ident, path, &flat);
            }
            found
        };
        let initial = members
            .get("initial_state")
            .and_then(|v| state_ref(self, v, &path.key("initial_state")));
        // Each terminal state and its entry in `terminal_states`.
        let mut terminals: HashMap<usize, JsonPath> = HashMap::new();
        if let Some(value) = members.get("terminal_states") {
            let list_path = path.key("terminal_states");
            match value {
                JsonValue::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        let item_path = list_path.index(i);
                        let Some(index) = state_ref(self, item, &item_path) else {
                            continue;
                        };
                        match terminals.entry(index) {
                            Entry::Vacant(entry) => {
                                entry.insert(item_path);
                            }
                            Entry::Occupied(_) => self.sink.error(
                                &item_path,
                                format!("state `{}` is listed twice", flat[index].name.ident),
                                "list each terminal state once",
                            ),
                        }
                    }
                }
                other => self.type_error(&list_path, "an array of state names", other),
            }
        }
        if states_value.is_some() {
            let timers = flat.iter().flat_map(|s| &s.after).map(|t| &t.body);
            let eventless = flat
                .iter()
                .filter_map(|s| s.statechart.as_deref())
                .flat_map(|more| more.done.iter().chain(&more.always));
            let targets = flat
                .iter()
                .flat_map(|s| &s.on)
                .chain(&any)
                .flat_map(|a| &a.candidates)
                .chain(timers)
                .chain(eventless)
                .filter_map(|c| c.to.as_ref());
            for to in targets {
                if !by_ident.contains_key(&*to.ident) && !self.unread.may_hold(&to.ident) {
                    self.unknown_state(&to.text, &to.ident, &to.path, &flat);
                }
            }
            for s in &flat {
                let Some((child, path)) = &s.initial_child else {
                    continue;
                };
                if s.children_unread {
                    continue;
                }
                if !s.children.iter().any(|c| c.name.ident == child.ident) {
                    let help = suggest::help_for(
                        &child.ident,
                        s.children.iter().map(|c| &*c.name.ident),
                        &mut self.suggestions,
                        "name one of the keys of this state's `states`".to_string(),
                    );
                    self.sink.error(
                        path,
                        format!("`{}` is not a state inside `{}`", child.text, s.name.ident),
                        help,
                    );
                }
            }
        }
        // Marks go on the states by name: the top-level initial state, and
        // every terminal state at any depth.
        let terminal_names: HashMap<String, JsonPath> = terminals
            .into_iter()
            .map(|(i, path)| (flat[i].name.ident.to_string(), path))
            .collect();
        let initial_name = initial.map(|i| flat[i].name.ident.to_string());
        drop(flat);
        if let Some(name) = initial_name {
            match states.iter_mut().find(|s| *s.name.ident == *name) {
                Some(s) => s.initial = Some(path.key("initial_state")),
                None => self.sink.error(
                    &path.key("initial_state"),
                    format!("`{name}` is not a top-level state"),
                    "the machine starts in one of the keys of the top-level `states`; a composite state names its own start with `initial`",
                ),
            }
        }
        let mut stack: Vec<&mut StateSpec> = states.iter_mut().collect();
        while let Some(s) = stack.pop() {
            s.terminal = terminal_names.get(&*s.name.ident).cloned();
            if let Some((child, path)) = &s.initial_child {
                for c in &mut s.children {
                    c.initial = (c.name.ident == child.ident).then(|| path.clone());
                }
            }
            stack.extend(s.children.iter_mut());
        }

        Some(MachineSpec {
            path: path.clone(),
            name,
            docs,
            allow,
            context,
            declarations,
            states,
            any,
            properties,
        })
    }

    /// The `properties` array: each property's name, kind and formula.
    fn properties(&mut self, value: &JsonValue, path: &JsonPath) -> Vec<PropertySpec> {
        let JsonValue::Array(items) = value else {
            self.type_error(path, "an array of property objects", value);
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = path.index(i);
            let Some(members) = self.fields(item, &path, "a property object", PROPERTY_FIELDS) else {
                continue;
            };
            let docs = self.docs(&members, &path);
            let name = members.get("name").and_then(|value| {
                let name_path = path.key("name");
                let text = self.string(value, &name_path)?;
                let valid = text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !valid {
                    self.sink.error(
                        &name_path,
                        format!("`{text}` is not a property name"),
                        "a property's name is an identifier: letters, digits and `_`, not starting with a digit",
                    );
                    return None;
                }
                Some((text.to_string(), name_path))
            });
            let kind = match members.get("kind") {
                None => {
                    self.sink.error(
                        &path,
                        "missing field `kind`",
                        "say what the property asks: `\"kind\": \"never\"`, `\"reachable\"`, `\"recoverable\"`, `\"escapable\"` or `\"leads to\"`",
                    );
                    None
                }
                Some(value) => {
                    let kind_path = path.key("kind");
                    self.string(value, &kind_path).and_then(|text| {
                        let kind = crate::ast::PropertyKind::from_keyword(text);
                        if kind.is_none() {
                            self.sink.error(
                                &kind_path,
                                format!("unknown kind of property `{text}`"),
                                "the kinds are `never`, `reachable`, `recoverable`, `escapable` and `leads to`",
                            );
                        }
                        kind
                    })
                }
            };
            let formula = self.property_formula(&members, &path, "formula");
            let leads_to = match kind {
                Some(crate::ast::PropertyKind::LeadsTo) => {
                    if name.is_none() && members.get("name").is_none() {
                        self.sink.error(
                            &path,
                            "a `leads to` property has no `name`",
                            "a `leads to` property is always named: `\"name\": \"every_run_ends\"`",
                        );
                    }
                    let target = self.property_formula(&members, &path, "target");
                    let assuming = self.assuming(&members, &path);
                    match (target, assuming) {
                        (Some(target), Some(assuming)) if name.is_some() => Some(Some((target, assuming))),
                        _ => None,
                    }
                }
                _ => {
                    for key in ["target", "assuming"] {
                        if members.get(key).is_some() {
                            self.sink.error(
                                &path.key(key),
                                format!("`{key}` belongs to a `leads to` property"),
                                "only `\"kind\": \"leads to\"` has a `target` and `assuming`",
                            );
                        }
                    }
                    Some(None)
                }
            };
            if let (Some(kind), Some(formula), Some(leads_to)) = (kind, formula, leads_to) {
                out.push(PropertySpec {
                    path,
                    docs,
                    name,
                    kind: kind.keyword(),
                    formula,
                    leads_to,
                });
            }
        }
        out
    }

    /// The formula in member `key` of a property object, checked to be one.
    fn property_formula(
        &mut self,
        members: &Members<'_>,
        path: &JsonPath,
        key: &str,
    ) -> Option<(String, JsonPath)> {
        match members.get(key) {
            None => {
                self.sink.error(
                    path,
                    format!("missing field `{key}`"),
                    "give the formula as `.fsm` text: `\"formula\": \"in(done) || terminal\"`",
                );
                None
            }
            Some(value) => {
                let formula_path = path.key(key);
                self.string(value, &formula_path)
                        .and_then(|text| match guard::formula(text) {
                            Ok(fsm) => Some((fsm, formula_path)),
                            Err(problem) => {
                                self.sink.error(
                                    &formula_path,
                                    format!("invalid formula `{text}`: {problem}"),
                                    "formulas use `.fsm` syntax: `in(state)`, `terminal`, `!`, `&&`, `||` and parentheses",
                                );
                                None
                            }
                        })
            }
        }
    }

    /// The `assuming` array of a `leads to` property: action names.
    fn assuming(&mut self, members: &Members<'_>, path: &JsonPath) -> Option<Vec<(String, JsonPath)>> {
        let Some(value) = members.get("assuming") else {
            return Some(Vec::new());
        };
        let list_path = path.key("assuming");
        let JsonValue::Array(items) = value else {
            self.type_error(&list_path, "an array of action names", value);
            return None;
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let item_path = list_path.index(i);
            let text = self.string(item, &item_path)?;
            let valid = text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                self.sink.error(
                    &item_path,
                    format!("`{text}` is not an action name"),
                    "an action's name is an identifier: letters, digits and `_`, not starting with a digit",
                );
                return None;
            }
            out.push((text.to_string(), item_path));
        }
        Some(out)
    }

    /// A reference at `path` to the state `text` (identifier `ident`) that
    /// `states` does not define.
    fn unknown_state(&mut self, text: &str, ident: &str, path: &JsonPath, states: &[&StateSpec]) {
        let help = suggest::help_for(
            ident,
            states.iter().map(|s| &*s.name.ident),
            &mut self.suggestions,
            "name one of the keys of `states`".to_string(),
        );
        self.sink.error(path, format!("unknown state `{text}`"), help);
    }

    /// The format version: `"1"` or `"1.<minor>"`.
    fn version(&mut self, value: &JsonValue, path: &JsonPath) {
        let Some(version) = self.string(value, path) else {
            return;
        };
        let supported = version == "1"
            || version
                .strip_prefix("1.")
                .is_some_and(|minor| !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit()));
        if !supported {
            self.sink.error(
                path,
                format!("unsupported format version `{version}`"),
                format!(
                    "this fsmc reads version 1 documents (`\"version\": \"{}\"`)",
                    crate::interchange::FORMAT_VERSION
                ),
            );
        }
    }

    fn declarations(
        &mut self,
        value: &JsonValue,
        path: &JsonPath,
        keyword: &str,
        kind: Kind,
        names: &mut Names,
    ) -> Vec<SymbolSpec> {
        let expected = format!("an object of {keyword} declarations");
        let Some(members) = self.entries(value, path, &expected, keyword) else {
            return Vec::new();
        };
        let typed = matches!(kind, Kind::Action | Kind::Guard | Kind::Effect);
        let known = if typed {
            TYPED_DECLARATION_FIELDS
        } else {
            DECLARATION_FIELDS
        };
        let mut symbols = Vec::new();
        for (key, value) in members.0 {
            let path = path.key(key);
            let name = names.resolve(kind, key, &path, self.sink);
            let expected = format!("an {keyword} declaration object (`{{}}` or `{{\"description\": ...}}`)");
            let (docs, payload) = match self.fields(value, &path, &expected, known) {
                Some(fields) => {
                    let payload = fields.get("payload").and_then(|value| {
                        let path = path.key("payload");
                        self.rust_type(value, &path).map(|text| (text, path))
                    });
                    (self.docs(&fields, &path), payload)
                }
                None => (Vec::new(), None),
            };
            symbols.push(SymbolSpec { name, docs, payload });
        }
        symbols
    }

    /// The states of a `states` object at `depth` (1 for the machine's),
    /// with the states inside them. Nesting deeper than
    /// [`crate::MAX_STATE_DEPTH`] is `nesting-too-deep`, and is not
    /// read (`None`): the recursion stays bounded, and the states skipped
    /// are remembered so that references to them are not reported as well.
    fn states(
        &mut self,
        value: &JsonValue,
        path: &JsonPath,
        names: &mut Names,
        depth: usize,
    ) -> Option<Vec<StateSpec>> {
        let max = crate::limits::MAX_STATE_DEPTH;
        if depth > max {
            // Worded as the `.fsm` check words it, naming the first state.
            let message = match value {
                JsonValue::Object(members) if !members.is_empty() => {
                    format!("state `{}` is nested more than {max} levels deep", members[0].0)
                }
                _ => format!("states are nested more than {max} levels deep"),
            };
            self.sink.push(
                Severity::Error,
                Some(crate::diagnostic::Code::NestingTooDeep),
                path,
                message,
                Some(format!(
                    "states may nest at most {max} levels; flatten the hierarchy (an `any` block or a shared parent higher up often says the same)"
                )),
            );
            self.unread.collect(value);
            return None;
        }
        let Some(members) = self.entries(value, path, "an object of states", "state") else {
            return Some(Vec::new());
        };
        let mut states: Vec<StateSpec> = Vec::new();
        for (key, value) in members.0 {
            let path = path.key(key);
            let name = names.resolve(Kind::State, key, &path, self.sink);
            let mut state = StateSpec {
                name,
                docs: Vec::new(),
                allow: Vec::new(),
                initial: None,
                terminal: None,
                enter: Vec::new(),
                exit: Vec::new(),
                enter_effects: Vec::new(),
                exit_effects: Vec::new(),
                on: Vec::new(),
                after: Vec::new(),
                statechart: None,
                children: Vec::new(),
                initial_child: None,
                children_unread: false,
            };
            if let Some(fields) = self.fields(value, &path, "a state object", STATE_FIELDS) {
                state.docs = self.docs(&fields, &path);
                state.allow = self.allow(&fields, &path);
                state.enter = self.names(fields.get("enter"), &path.key("enter"), Kind::Output, names);
                state.exit = self.names(fields.get("exit"), &path.key("exit"), Kind::Output, names);
                for (key, list) in [
                    ("enter_effects", &mut state.enter_effects),
                    ("exit_effects", &mut state.exit_effects),
                ] {
                    *list = self.names(fields.get(key), &path.key(key), Kind::Effect, names);
                }
                if let Some(on) = fields.get("on") {
                    state.on = self.on(on, &path.key("on"), names);
                }
                if let Some(after) = fields.get("after") {
                    state.after = self.timers(after, &path.key("after"), names);
                }
                if ["done", "always", "final", "parallel"]
                    .iter()
                    .any(|key| fields.get(key).is_some())
                {
                    let mut more = StatechartSpec::default();
                    for (key, list) in [("done", &mut more.done), ("always", &mut more.always)] {
                        if let Some(value) = fields.get(key) {
                            *list = self.eventless(value, &path.key(key), names);
                        }
                    }
                    for (key, mark) in [("final", &mut more.final_), ("parallel", &mut more.parallel)] {
                        if let Some(value) = fields.get(key) {
                            let path = path.key(key);
                            *mark = self.flag(value, &path).then_some(path);
                        }
                    }
                    state.statechart = Some(Box::new(more));
                }
                if let Some(children) = fields.get("states") {
                    match self.states(children, &path.key("states"), names, depth + 1) {
                        Some(children) => state.children = children,
                        None => state.children_unread = true,
                    }
                }
                if let Some(value) = fields.get("initial") {
                    let path = path.key("initial");
                    if let Some(text) = self.string(value, &path) {
                        let name = names.resolve(Kind::State, text, &path, self.sink);
                        state.initial_child = Some((name, path));
                    }
                }
            }
            states.push(state);
        }
        Some(states)
    }

    /// An `on` (or `any`) object: action → one transition object, or an
    /// array of them in declaration order.
    fn on(&mut self, value: &JsonValue, path: &JsonPath, names: &mut Names) -> Vec<ActionSpec> {
        let Some(members) = self.entries(value, path, "an object of actions", "action") else {
            return Vec::new();
        };
        let mut actions = Vec::new();
        for (key, value) in members.0 {
            let path = path.key(key);
            let name = names.resolve(Kind::Action, key, &path, self.sink);
            let candidates = match value {
                JsonValue::Object(_) => self
                    .candidate(value, &path, names, CANDIDATE_FIELDS)
                    .map(|(c, _)| c)
                    .into_iter()
                    .collect(),
                JsonValue::Array(items) if items.is_empty() => {
                    self.sink.error(
                        &path,
                        format!("action `{key}` has an empty list of transitions"),
                        "give at least one transition, or remove the action",
                    );
                    Vec::new()
                }
                JsonValue::Array(items) => items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| {
                        self.candidate(item, &path.index(i), names, CANDIDATE_FIELDS)
                            .map(|(c, _)| c)
                    })
                    .collect(),
                other => {
                    self.type_error(&path, "a transition object or an array of them", other);
                    Vec::new()
                }
            };
            actions.push(ActionSpec { name, candidates });
        }
        actions
    }

    /// A state's `done` or `always`: an array of transition objects in
    /// declaration order.
    fn eventless(&mut self, value: &JsonValue, path: &JsonPath, names: &mut Names) -> Vec<CandidateSpec> {
        let JsonValue::Array(items) = value else {
            self.type_error(path, "an array of transition objects", value);
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                self.candidate(item, &path.index(i), names, CANDIDATE_FIELDS)
                    .map(|(c, _)| c)
            })
            .collect()
    }

    /// A member that marks a state (`"final": true`, `"parallel": true`);
    /// `false` says the same as leaving it out.
    fn flag(&mut self, value: &JsonValue, path: &JsonPath) -> bool {
        match value {
            JsonValue::Bool(b) => *b,
            other => {
                self.type_error(path, "`true` or `false`", other);
                false
            }
        }
    }

    /// A state's `after`: an array of timer objects in declaration order.
    fn timers(&mut self, value: &JsonValue, path: &JsonPath, names: &mut Names) -> Vec<TimerSpec> {
        let JsonValue::Array(items) = value else {
            self.type_error(path, "an array of timer objects", value);
            return Vec::new();
        };
        let mut timers = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = path.index(i);
            let Some((body, fields)) = self.candidate(item, &path, names, TIMER_FIELDS) else {
                continue;
            };
            let delay = match fields.get("delay") {
                Some(value) => self.delay(value, &path.key("delay"), names),
                None => {
                    self.sink.error(
                        &path,
                        "missing field `delay`",
                        "say how long the timer waits: `\"delay\": \"30s\"`, or the name of a delay",
                    );
                    None
                }
            };
            timers.push(TimerSpec { delay, body });
        }
        timers
    }

    /// A timer's `delay`: a duration literal when it starts with a digit,
    /// else the name of a delay.
    fn delay(&mut self, value: &JsonValue, path: &JsonPath, names: &mut Names) -> Option<DelaySpec> {
        let text = self.string(value, path)?;
        if !text.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(DelaySpec::Name(names.resolve(Kind::Delay, text, path, self.sink)));
        }
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        if text
            .bytes()
            .skip(digits)
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Some(DelaySpec::Literal(text.to_string(), path.clone()));
        }
        self.sink.error(
            path,
            format!("invalid delay `{text}`"),
            "a delay is a whole number and a unit (`250ms`, `30s`, `10m`, `2h`), or the name of a delay",
        );
        None
    }

    /// A Rust type (a context or payload) in canonical `.fsm` text.
    fn rust_type(&mut self, value: &JsonValue, path: &JsonPath) -> Option<String> {
        let text = self.string(value, path)?;
        match crate::parser::canonical_type(text) {
            Some(canonical) => Some(canonical),
            None => {
                self.sink.error(
                    path,
                    format!("invalid Rust type `{text}`"),
                    "types are Rust paths with generic arguments (`crate::llm::Decision`, `Vec<String>`), tuples or arrays; no references or lifetimes",
                );
                None
            }
        }
    }

    /// A transition object, or a timer object when `known` is
    /// [`TIMER_FIELDS`]; the members come back for the timer's `delay`.
    fn candidate<'v>(
        &mut self,
        value: &'v JsonValue,
        path: &JsonPath,
        names: &mut Names,
        known: &[&str],
    ) -> Option<(CandidateSpec, Members<'v>)> {
        let expected = if known == TIMER_FIELDS {
            "a timer object"
        } else {
            "a transition object"
        };
        let fields = self.fields(value, path, expected, known)?;
        let docs = self.docs(&fields, path);
        let guard = fields.get("guard").and_then(|value| {
            let path = path.key("guard");
            let text = self.string(value, &path)?;
            match guard::parse(text) {
                Ok(fsm) => Some((fsm, path)),
                Err(problem) => {
                    self.sink.error(
                        &path,
                        format!("invalid guard `{text}`: {problem}"),
                        "guards use `.fsm` syntax: names, `in(state)`, `!`, `&&`, `||` and parentheses",
                    );
                    None
                }
            }
        });
        let priority = fields.get("priority").and_then(|value| {
            let path = path.key("priority");
            self.priority(value, &path).map(|p| (p, path))
        });
        let to = fields.get("to").and_then(|value| {
            let path = path.key("to");
            let text = self.string(value, &path)?;
            Some(names.resolve(Kind::State, text, &path, self.sink))
        });
        let history = fields.get("history").and_then(|value| {
            let path = path.key("history");
            let kind = match self.string(value, &path)? {
                "shallow" => crate::ast::HistoryKind::Shallow,
                "deep" => crate::ast::HistoryKind::Deep,
                other => {
                    self.sink.error(
                        &path,
                        format!("unknown history `{other}`"),
                        "`\"history\": \"shallow\"` enters the child last active in the target, `\"deep\"` the state last active anywhere inside it",
                    );
                    return None;
                }
            };
            if to.is_none() {
                self.sink.error(
                    &path,
                    "`history` without `to`",
                    "name the composite state whose history is entered: `\"to\": \"connected\", \"history\": \"shallow\"`",
                );
            }
            Some((kind, path))
        });
        let effects = self.names(fields.get("effects"), &path.key("effects"), Kind::Effect, names);
        let emit = self.names(fields.get("emit"), &path.key("emit"), Kind::Output, names);
        let candidate = CandidateSpec {
            path: path.clone(),
            docs,
            guard,
            priority,
            to,
            history,
            effects,
            emit,
        };
        Some((candidate, fields))
    }

    fn priority(&mut self, value: &JsonValue, path: &JsonPath) -> Option<i32> {
        let JsonValue::Number(number) = value else {
            self.type_error(path, "an integer", value);
            return None;
        };
        let Some(wide) = number.as_i64().or_else(|| number.as_u64().map(|_| i64::MAX)) else {
            self.sink.error(
                path,
                format!("priority `{number}` is not an integer"),
                "priorities are whole numbers, e.g. `1` or `-1`",
            );
            return None;
        };
        match i32::try_from(wide) {
            Ok(priority) => Some(priority),
            Err(_) => {
                self.sink.error(
                    path,
                    format!("priority `{number}` is out of range"),
                    format!(
                        "priorities are 32-bit signed integers, {} to {}",
                        i32::MIN,
                        i32::MAX
                    ),
                );
                None
            }
        }
    }
}

/// `` `a`, `b` and `c` ``.
fn listing(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
