//! SCXML → the JSON machine document: the subset of SCXML that `fsmc
//! export --format scxml` writes, and that hand-written documents and
//! editors use for the same constructs.
//!
//! The document is read into the [`JsonValue`] that the JSON importer
//! reads, recording where in the XML each JSON path came from; the JSON
//! importer then reports its diagnostics (names, the `.fsm` checks) at
//! those places. What fsmc cannot express is refused here, at its element.

use super::{ANY_ID, FSM_NS, SCXML_NS};
use crate::diagnostic::Severity;
use crate::interchange::import::names::identifier;
use crate::interchange::import::path::JsonPath;
use crate::interchange::json_value::JsonValue;
use roxmltree::{Document, Node};
use std::collections::HashMap;

/// A problem found in the XML, at `line:column`.
pub(super) struct Problem {
    pub severity: Severity,
    pub place: String,
    pub message: String,
    pub help: String,
}

/// The document as a JSON machine document, where each path came from, and
/// the problems found.
pub(super) struct Read {
    pub value: Option<JsonValue>,
    pub locations: HashMap<String, String>,
    pub problems: Vec<Problem>,
}

/// Read an SCXML document.
pub(super) fn read(text: &str) -> Read {
    let mut read = Read {
        value: None,
        locations: HashMap::new(),
        problems: Vec::new(),
    };
    let doc = match Document::parse(text) {
        Ok(doc) => doc,
        Err(error) => {
            let pos = error.pos();
            let message = error.to_string();
            let message = message.strip_suffix(&format!(" at {pos}")).unwrap_or(&message);
            read.problems.push(Problem {
                severity: Severity::Error,
                place: format!("{}:{}", pos.row, pos.col),
                message: format!("malformed XML: {message}"),
                help: "the file must be a well-formed XML document with an `<scxml>` root element".into(),
            });
            return read;
        }
    };
    if let Some(problem) = too_deep(&doc) {
        read.problems.push(problem);
        return read;
    }
    let mut reader = Reader {
        doc: &doc,
        locations: HashMap::new(),
        problems: Vec::new(),
        histories: HashMap::new(),
        parents: HashMap::new(),
        foreign: None,
        local: Vec::new(),
    };
    let value = reader.document();
    read.value = value;
    read.locations = reader.locations;
    read.problems = reader.problems;
    read
}

/// The deepest nesting of elements a machine's document needs, with room to
/// spare: states nest at most [`MAX_STATE_DEPTH`](crate::limits::MAX_STATE_DEPTH)
/// levels, inside `<scxml>` and the `any` state, with a few levels of
/// transitions and executable content below the deepest.
const MAX_ELEMENT_DEPTH: usize = 4 * crate::limits::MAX_STATE_DEPTH;

/// An error at the first element nested deeper than [`MAX_ELEMENT_DEPTH`],
/// found in one pass: the reader looks up through an element's ancestors,
/// which only a bounded depth keeps linear.
fn too_deep(doc: &Document) -> Option<Problem> {
    let mut depth = vec![0usize; doc.descendants().len()];
    for node in doc.descendants() {
        let d = node.parent().map_or(0, |p| depth[p.id().get_usize()] + 1);
        depth[node.id().get_usize()] = d;
        if node.is_element() && d > MAX_ELEMENT_DEPTH {
            let pos = doc.text_pos_at(node.range().start);
            return Some(Problem {
                severity: Severity::Error,
                place: format!("{}:{}", pos.row, pos.col),
                message: format!(
                    "elements are nested more than {MAX_ELEMENT_DEPTH} levels deep here, deeper than any machine needs"
                ),
                help: format!(
                    "states nest at most {} levels; an fsmc machine's document is never nested this deep",
                    crate::limits::MAX_STATE_DEPTH
                ),
            });
        }
    }
    None
}

/// A `<history>` pseudo-state: the state it belongs to and its kind.
struct History {
    state: String,
    deep: bool,
}

struct Reader<'a, 'input> {
    doc: &'a Document<'input>,
    locations: HashMap<String, String>,
    problems: Vec<Problem>,
    /// Every `<history>` of the document, by id.
    histories: HashMap<String, History>,
    /// Each state's parent state (`None` at the top level), by id.
    parents: HashMap<String, Option<String>>,
    /// Elements and attributes of other namespaces: how many, and the first.
    foreign: Option<(usize, String, String)>,
    /// External transitions from a state to a state inside it (source,
    /// target, place), checked once the tree is known.
    local: Vec<(String, String, String)>,
}

/// What a state's `<onentry>`, `<onexit>` or a transition does.
#[derive(Default)]
struct Content {
    effects: Vec<(String, String)>,
    outputs: Vec<(String, String)>,
}

/// A delayed `<send>` of a state's `<onentry>`: a timer.
struct TimerSend {
    event: String,
    id: Option<String>,
    /// The `.fsm` delay (`30s`, or a delay's name), and its place.
    delay: Option<(String, String)>,
    place: String,
    used: bool,
}

/// A transition read, before it is sorted into its list.
struct Candidate {
    value: Vec<(String, JsonValue)>,
    declared: Option<usize>,
    place: String,
    /// Places of the members, recorded under the candidate's path.
    member_places: Vec<(&'static str, String)>,
    /// Places of the entries of `effects` and `emit`.
    list_places: Vec<(&'static str, Vec<String>)>,
}

/// The lists of one state's transitions.
#[derive(Default)]
struct Lists {
    /// By action, in order of first appearance.
    on: Vec<(String, Vec<Candidate>)>,
    after: Vec<Candidate>,
    done: Vec<Candidate>,
    always: Vec<Candidate>,
}

impl<'a, 'input> Reader<'a, 'input> {
    fn place_of(&self, pos: usize) -> String {
        let p = self.doc.text_pos_at(pos);
        format!("{}:{}", p.row, p.col)
    }

    fn place(&self, node: Node) -> String {
        self.place_of(node.range().start)
    }

    fn attr_place(&self, node: Node, name: &str) -> String {
        match node.attribute_node(name) {
            Some(attr) => self.place_of(attr.range().start),
            None => self.place(node),
        }
    }

    fn fsm_attr_place(&self, node: Node, name: &str) -> String {
        match node.attribute_node((FSM_NS, name)) {
            Some(attr) => self.place_of(attr.range().start),
            None => self.place(node),
        }
    }

    fn problem(&mut self, severity: Severity, place: String, message: String, help: impl Into<String>) {
        self.problems.push(Problem {
            severity,
            place,
            message,
            help: help.into(),
        });
    }

    fn error(&mut self, node: Node, message: String, help: impl Into<String>) {
        let place = self.place(node);
        self.problem(Severity::Error, place, message, help);
    }

    fn warning(&mut self, node: Node, message: String, help: impl Into<String>) {
        let place = self.place(node);
        self.problem(Severity::Warning, place, message, help);
    }

    fn locate(&mut self, path: &JsonPath, place: String) {
        self.locations.insert(path.to_string(), place);
    }

    /// Whether `node` is the SCXML element `name` (documents without the
    /// SCXML namespace are read too).
    fn is(node: Node, name: &str) -> bool {
        node.is_element()
            && node.tag_name().name() == name
            && matches!(node.tag_name().namespace(), None | Some(SCXML_NS))
    }

    fn is_fsm(node: Node) -> bool {
        node.is_element() && node.tag_name().namespace() == Some(FSM_NS)
    }

    /// An element of another namespace (an editor's layout, say): skipped,
    /// and counted for one warning at the end.
    fn is_foreign(&mut self, node: Node) -> bool {
        let foreign =
            node.is_element() && !matches!(node.tag_name().namespace(), None | Some(SCXML_NS) | Some(FSM_NS));
        if foreign {
            let place = self.place(node);
            self.note_foreign(format!("<{}>", node.tag_name().name()), place);
        }
        foreign
    }

    fn note_foreign(&mut self, what: String, place: String) {
        match &mut self.foreign {
            Some((count, _, _)) => *count += 1,
            None => self.foreign = Some((1, what, place)),
        }
    }

    /// The element's name as the user wrote it, for messages: `<send>`, `<fsm:do>`.
    fn tag(node: Node) -> String {
        match node.tag_name().namespace() {
            Some(FSM_NS) => format!("<fsm:{}>", node.tag_name().name()),
            _ => format!("<{}>", node.tag_name().name()),
        }
    }

    /// Check the attributes of `node`: SCXML attributes outside `known`
    /// and `fsm:` attributes outside `known_fsm` are not imported, with a
    /// warning; other namespaces' are counted.
    fn attributes(&mut self, node: Node, known: &[&str], known_fsm: &[&str]) {
        for attr in node.attributes() {
            let place = self.place_of(attr.range().start);
            match attr.namespace() {
                None if known.contains(&attr.name()) => {}
                Some(FSM_NS) if known_fsm.contains(&attr.name()) => {}
                None | Some(FSM_NS) => {
                    let prefix = if attr.namespace().is_some() { "fsm:" } else { "" };
                    self.problem(
                        Severity::Warning,
                        place,
                        format!(
                            "attribute `{prefix}{}` of {} is not imported",
                            attr.name(),
                            Self::tag(node)
                        ),
                        "fsmc has nothing that holds it; docs/export-import.md lists the SCXML it reads",
                    );
                }
                Some(_) => self.note_foreign(format!("attribute `{}`", attr.name()), place),
            }
        }
    }

    /// Text children other than whitespace are not imported.
    fn no_text(&mut self, node: Node) {
        for child in node.children() {
            if child.is_text() && !child.text().unwrap_or("").trim().is_empty() {
                self.warning(
                    child,
                    format!("text inside {} is not imported", Self::tag(node)),
                    "fsmc reads elements and attributes only here",
                );
            }
        }
    }

    fn document(&mut self) -> Option<JsonValue> {
        let root = self.doc.root_element();
        if !Self::is(root, "scxml") {
            self.error(
                root,
                format!("the root element is {}, not <scxml>", Self::tag(root)),
                "an SCXML document's root is `<scxml xmlns=\"http://www.w3.org/2005/07/scxml\" version=\"1.0\">`",
            );
            return None;
        }
        self.attributes(
            root,
            &["xmlns", "version", "name", "initial", "datamodel", "binding"],
            &["description", "allow", "context", "declares", "order"],
        );
        if let Some(model) = root.attribute("datamodel") {
            if !matches!(model, "null" | "ecmascript") {
                let place = self.attr_place(root, "datamodel");
                self.problem(
                    Severity::Warning,
                    place,
                    format!("data model `{model}` is not read"),
                    "fsmc reads conditions made of names, `In('state')`, `!`, `&&`, `||` and parentheses, in any data model",
                );
            }
        }
        self.no_text(root);
        self.collect_tree(root);
        let path = JsonPath::root();
        let here = self.place(root);
        self.locate(&path, here);

        let mut members: Vec<(String, JsonValue)> = Vec::new();
        let name = match root.attribute("name") {
            Some(name) => name.to_string(),
            None => {
                self.warning(
                    root,
                    "the <scxml> element has no `name`; the machine is imported as `Machine`".into(),
                    "give the machine a name: `<scxml name=\"door\" ...>`",
                );
                "Machine".to_string()
            }
        };
        let name_place = self.attr_place(root, "name");
        self.locate(&path.key("fsm_id"), name_place);
        members.push(("fsm_id".into(), JsonValue::string(name)));
        self.docs_and_allows(root, &path, &mut members);

        // The top-level states, and `any` when the machine wraps them.
        let mut top: Vec<Node> = Vec::new();
        let mut wrapper: Option<Node> = None;
        let mut declarations: Vec<(&'static str, Vec<(String, JsonValue)>)> = Vec::new();
        let mut initial_element: Option<Node> = None;
        for child in root.children().filter(Node::is_element) {
            if self.is_foreign(child) {
                continue;
            }
            if Self::is_fsm(child) {
                let kind = match child.tag_name().name() {
                    "action" => "actions",
                    "guard" => "guards",
                    "output" => "outputs",
                    "effect" => "effects",
                    "delay" => "delays",
                    other => {
                        self.warning(
                            child,
                            format!("<fsm:{other}> is not imported"),
                            "the fsm: elements of a machine are <fsm:action>, <fsm:guard>, <fsm:output>, <fsm:effect> and <fsm:delay>",
                        );
                        continue;
                    }
                };
                self.declaration(child, kind, &path, &mut declarations);
                continue;
            }
            match child.tag_name().name() {
                "state" | "parallel" | "final"
                    if Self::is(child, "state")
                        || Self::is(child, "parallel")
                        || Self::is(child, "final") =>
                {
                    if child.attribute((FSM_NS, "any")) == Some("true") && Self::is(child, "state") {
                        if wrapper.is_some() {
                            self.error(
                                child,
                                "a second state marked `fsm:any`".into(),
                                "one state at the top level may hold the `any` transitions",
                            );
                        }
                        wrapper = Some(child);
                    } else {
                        top.push(child);
                    }
                }
                "initial" if Self::is(child, "initial") => initial_element = Some(child),
                _ => self.unsupported(child),
            }
        }
        // `fsm:declares` lists the kinds declared, even with no names.
        if let Some(kinds) = root.attribute((FSM_NS, "declares")) {
            for kind in kinds.split_whitespace() {
                let key = match kind {
                    "action" => "actions",
                    "guard" => "guards",
                    "output" => "outputs",
                    "effect" => "effects",
                    "delay" => "delays",
                    other => {
                        let place = self.fsm_attr_place(root, "declares");
                        self.problem(
                            Severity::Warning,
                            place,
                            format!("`fsm:declares` names `{other}`, which is not a kind of declaration"),
                            "the kinds are `action`, `guard`, `output`, `effect` and `delay`",
                        );
                        continue;
                    }
                };
                if !declarations.iter().any(|(k, _)| *k == key) {
                    declarations.push((key, Vec::new()));
                }
            }
        }

        let mut states: Vec<(Node, bool)> = Vec::new();
        let mut any_lists = Lists::default();
        if let Some(wrapper) = wrapper {
            self.attributes(wrapper, &["id", "initial"], &["any"]);
            for child in wrapper.children().filter(Node::is_element) {
                if self.is_foreign(child) {
                    continue;
                }
                if Self::is(child, "transition") {
                    self.transition(child, None, &[], &mut any_lists);
                } else if Self::is(child, "state") || Self::is(child, "parallel") || Self::is(child, "final")
                {
                    states.push((child, false));
                } else {
                    self.unsupported(child);
                }
            }
        }
        states.extend(top.iter().map(|&s| (s, true)));
        // `fsm:order`: the declaration order of the top-level states, when
        // the `any` wrapper changed it.
        if let Some(order) = root.attribute((FSM_NS, "order")) {
            let rank: HashMap<&str, usize> = order
                .split_whitespace()
                .enumerate()
                .map(|(i, n)| (n, i))
                .collect();
            states.sort_by_key(|(node, _)| {
                rank.get(node.attribute("id").unwrap_or(""))
                    .copied()
                    .unwrap_or(usize::MAX)
            });
        }

        // The initial state: `initial`, an `<initial>` element, or the first state.
        let initial = self.initial(root, initial_element, states.first().map(|s| s.0));
        let initial = match (initial, wrapper) {
            (Some(id), Some(wrapper)) if id == ANY_ID => {
                let inside = states.iter().find(|(_, top)| !top).map(|s| s.0);
                self.initial(wrapper, None, inside)
            }
            (initial, _) => initial,
        };
        if let Some(initial) = initial {
            let place = self.attr_place(root, "initial");
            self.locate(&path.key("initial_state"), place);
            members.push(("initial_state".into(), JsonValue::string(initial)));
        } else {
            self.error(
                root,
                "the machine has no states".into(),
                "add a `<state id=\"idle\"/>`",
            );
        }
        // Top-level `<final>` states end the machine: fsmc's terminal states.
        let mut terminals: Vec<String> = states
            .iter()
            .filter(|(node, top)| *top && Self::is(*node, "final"))
            .filter_map(|(node, _)| node.attribute("id").map(str::to_string))
            .collect();
        // And so do the states marked `fsm:terminal`, which SCXML cannot say.
        terminals.extend(
            root.descendants()
                .filter(|n| Self::is(*n, "state") && n.attribute((FSM_NS, "terminal")) == Some("true"))
                .filter_map(|n| n.attribute("id").map(str::to_string)),
        );
        members.push((
            "terminal_states".into(),
            JsonValue::strings(terminals.iter().map(String::as_str)),
        ));
        if let Some(context) = root.attribute((FSM_NS, "context")) {
            let place = self.fsm_attr_place(root, "context");
            self.locate(&path.key("context"), place);
            members.push(("context".into(), JsonValue::string(context)));
        }
        for (key, symbols) in declarations {
            members.push((key.into(), JsonValue::Object(symbols)));
        }
        let states_path = path.key("states");
        let mut state_values = Vec::new();
        for (node, top) in &states {
            if let Some(state) = self.state(*node, &states_path, *top, 1) {
                state_values.push(state);
            }
        }
        members.push(("states".into(), JsonValue::Object(state_values)));
        let any = self.on_value(any_lists.on, &path.key("any"));
        if let Some(any) = any {
            members.push(("any".into(), any));
        }
        self.local_transitions();
        if let Some((count, what, place)) = self.foreign.take() {
            let more = match count {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            self.problem(
                Severity::Warning,
                place,
                format!("{what}{more} of other namespaces are not imported"),
                "elements and attributes of other namespaces (an editor's layout, say) have no place in a `.fsm` machine",
            );
        }
        Some(JsonValue::Object(members))
    }

    /// Every state's parent and every `<history>`, before the states are read,
    /// so that transitions can target them wherever they are.
    fn collect_tree(&mut self, root: Node) {
        for node in root.descendants().filter(|n| n.is_element()) {
            let is_state = Self::is(node, "state") || Self::is(node, "parallel") || Self::is(node, "final");
            let parent = node
                .ancestors()
                .skip(1)
                .find(|a| {
                    (Self::is(*a, "state") || Self::is(*a, "parallel"))
                        && a.attribute((FSM_NS, "any")) != Some("true")
                })
                .and_then(|a| a.attribute("id"))
                .map(str::to_string);
            if is_state {
                if let Some(id) = node.attribute("id") {
                    self.parents.insert(id.to_string(), parent);
                }
            } else if Self::is(node, "history") {
                let Some(id) = node.attribute("id") else { continue };
                let Some(state) = parent else { continue };
                let deep = node.attribute("type") == Some("deep");
                self.histories.insert(id.to_string(), History { state, deep });
            }
        }
    }

    /// `fsm:description` and `fsm:allow`.
    fn docs_and_allows(&mut self, node: Node, path: &JsonPath, members: &mut Vec<(String, JsonValue)>) {
        if let Some(text) = node.attribute((FSM_NS, "description")) {
            members.push(("description".into(), JsonValue::string(text)));
        }
        if let Some(codes) = node.attribute((FSM_NS, "allow")) {
            let place = self.fsm_attr_place(node, "allow");
            self.locate(&path.key("allow"), place);
            members.push(("allow".into(), JsonValue::strings(codes.split_whitespace())));
        }
    }

    fn declaration(
        &mut self,
        node: Node,
        kind: &'static str,
        path: &JsonPath,
        declarations: &mut Vec<(&'static str, Vec<(String, JsonValue)>)>,
    ) {
        self.attributes(node, &["name", "payload", "description"], &[]);
        let Some(name) = node.attribute("name") else {
            self.error(
                node,
                format!("{} without `name`", Self::tag(node)),
                "name what is declared: `<fsm:action name=\"start\"/>`",
            );
            return;
        };
        let symbol_path = path.key(kind).key(name);
        let place = self.place(node);
        self.locate(&symbol_path, place);
        let mut members = Vec::new();
        if let Some(text) = node.attribute("description") {
            members.push(("description".to_string(), JsonValue::string(text)));
        }
        if let Some(payload) = node.attribute("payload") {
            let place = self.attr_place(node, "payload");
            self.locate(&symbol_path.key("payload"), place);
            members.push(("payload".to_string(), JsonValue::string(payload)));
        }
        let index = match declarations.iter().position(|(k, _)| *k == kind) {
            Some(i) => i,
            None => {
                declarations.push((kind, Vec::new()));
                declarations.len() - 1
            }
        };
        declarations[index]
            .1
            .push((name.to_string(), JsonValue::Object(members)));
    }

    /// The child a state (or the document) starts in: its `initial`
    /// attribute, its `<initial>` element's transition, or its first state.
    fn initial(&mut self, node: Node, element: Option<Node>, first: Option<Node>) -> Option<String> {
        let (text, at) = if let Some(text) = node.attribute("initial") {
            (text.to_string(), node)
        } else if let Some(element) = element {
            self.attributes(element, &["id"], &[]);
            let transitions: Vec<Node> = element
                .children()
                .filter(|c| Self::is(*c, "transition"))
                .collect();
            match transitions.as_slice() {
                [t] if t.children().all(|c| !c.is_element()) => {
                    self.attributes(*t, &["target", "type"], &[]);
                    (t.attribute("target").unwrap_or("").to_string(), *t)
                }
                _ => {
                    self.error(
                        element,
                        "an <initial> element other than one transition without content".into(),
                        "fsmc starts a state in one child and runs nothing then; write `initial=\"child\"` on the state",
                    );
                    return None;
                }
            }
        } else {
            return first.and_then(|n| n.attribute("id")).map(str::to_string);
        };
        let targets: Vec<&str> = text.split_whitespace().collect();
        match targets.as_slice() {
            [one] => Some((*one).to_string()),
            _ => {
                self.error(
                    at,
                    format!("initial `{text}` names {} states", targets.len()),
                    "fsmc starts a compound state in exactly one child; a parallel state starts in all of its regions by itself",
                );
                None
            }
        }
    }

    /// An element fsmc does not read, refused with what to do instead.
    fn unsupported(&mut self, node: Node) {
        let name = node.tag_name().name();
        let help = match name {
            "script" => "fsmc machines run no scripts; what a script does belongs in an effect (`<fsm:do effect=\"name\"/>`), which the program implements",
            "datamodel" | "data" | "assign" => "fsmc machines have no data model; data lives in the program's context, and conditions name guards the program evaluates",
            "invoke" | "finalize" => "fsmc machines invoke nothing; run the other machine from the program, and fire its results as actions",
            "raise" => "fsmc has no internal events; use an `always` transition (a transition without `event`) or an output (`<send target=\"#_parent\"/>`)",
            "if" | "elseif" | "else" | "foreach" => "fsmc's executable content is a fixed list of effects and outputs; put the choice in guarded transitions",
            "donedata" | "content" | "param" => "fsmc's events carry no data in the machine; payloads are typed by the program",
            "log" => "fsmc machines do not log",
            "history" => "a <history> belongs in a compound or parallel state",
            _ => "docs/export-import.md lists the SCXML that fsmc reads",
        };
        if name == "datamodel" && node.children().all(|c| !c.is_element()) {
            return; // An empty data model says nothing.
        }
        self.error(
            node,
            format!("{} is not supported by fsmc", Self::tag(node)),
            help,
        );
    }

    /// One state and everything inside it, as a member of a `states` object.
    fn state(
        &mut self,
        node: Node,
        states_path: &JsonPath,
        top: bool,
        depth: usize,
    ) -> Option<(String, JsonValue)> {
        let kind = node.tag_name().name();
        let Some(id) = node.attribute("id") else {
            self.error(
                node,
                format!("<{kind}> without `id`"),
                "fsmc names every state: `<state id=\"idle\">`",
            );
            return None;
        };
        let path = states_path.key(id);
        let place = self.place(node);
        self.locate(&path, place);
        let max = crate::limits::MAX_STATE_DEPTH;
        if depth > max {
            self.error(
                node,
                format!("state `{id}` is nested more than {max} levels deep"),
                format!("states may nest at most {max} levels; flatten the hierarchy"),
            );
            return None;
        }
        match kind {
            "state" => self.attributes(node, &["id", "initial"], &["description", "allow", "terminal"]),
            _ => self.attributes(node, &["id"], &["description", "allow"]),
        }
        self.no_text(node);
        let mut members: Vec<(String, JsonValue)> = Vec::new();
        self.docs_and_allows(node, &path, &mut members);

        let mut enter = Content::default();
        let mut exit = Content::default();
        let mut sends: Vec<TimerSend> = Vec::new();
        let mut transitions: Vec<Node> = Vec::new();
        let mut children: Vec<Node> = Vec::new();
        let mut initial_element = None;
        let mut cancels: Vec<(String, String)> = Vec::new();
        for child in node.children().filter(Node::is_element) {
            if self.is_foreign(child) {
                continue;
            }
            if Self::is(child, "onentry") {
                self.executable(child, &mut enter, Some(&mut sends), None);
            } else if Self::is(child, "onexit") {
                self.executable(child, &mut exit, None, Some(&mut cancels));
            } else if Self::is(child, "transition") && kind != "final" {
                transitions.push(child);
            } else if (Self::is(child, "state") || Self::is(child, "parallel") || Self::is(child, "final"))
                && kind != "final"
            {
                children.push(child);
            } else if Self::is(child, "history") && kind != "final" {
                self.history(child, node);
            } else if Self::is(child, "initial") && kind == "state" {
                initial_element = Some(child);
            } else {
                self.unsupported(child);
            }
        }
        // `<cancel>` in `<onexit>` disarms this state's timers: nothing more.
        for (sendid, place) in cancels {
            if !sends.iter().any(|s| s.id.as_deref() == Some(sendid.as_str())) {
                self.problem(
                    Severity::Error,
                    place,
                    format!(
                        "<cancel sendid=\"{sendid}\"> cancels no delayed <send> of this state's <onentry>"
                    ),
                    "fsmc reads `<cancel>` in `<onexit>` as disarming a timer the state arms on entry",
                );
            }
        }
        for (content, outputs_key, effects_key) in [
            (&enter, "enter", "enter_effects"),
            (&exit, "exit", "exit_effects"),
        ] {
            self.names_member(&path, outputs_key, &content.outputs, &mut members);
            self.names_member(&path, effects_key, &content.effects, &mut members);
        }

        let mut lists = Lists::default();
        for t in transitions {
            self.transition(t, Some(id), &sends, &mut lists);
            // `sends` marks the events its transitions use.
            for send in &mut sends {
                if t.attribute("event")
                    .is_some_and(|e| e.split_whitespace().any(|d| d == send.event))
                {
                    send.used = true;
                }
            }
        }
        for send in sends.iter().filter(|s| !s.used) {
            self.problem(
                Severity::Warning,
                send.place.clone(),
                format!("the delayed <send event=\"{}\"> is not imported: no transition of `{id}` takes its event", send.event),
                "fsmc reads a delayed <send> in <onentry> as a timer of the state's transitions on its event",
            );
        }
        if let Some(on) = self.on_value(lists.on, &path.key("on")) {
            members.push(("on".into(), on));
        }
        for (key, list) in [
            ("after", lists.after),
            ("done", lists.done),
            ("always", lists.always),
        ] {
            if let Some(value) = self.list_value(list, &path.key(key)) {
                members.push((key.into(), value));
            }
        }
        if kind == "final" && !top {
            members.push(("final".into(), JsonValue::Bool(true)));
        }
        if kind == "parallel" {
            members.push(("parallel".into(), JsonValue::Bool(true)));
        }
        if !children.is_empty() {
            if kind == "state" {
                if let Some(initial) = self.initial(node, initial_element, children.first().copied()) {
                    let place = self.attr_place(node, "initial");
                    self.locate(&path.key("initial"), place);
                    members.push(("initial".into(), JsonValue::string(initial)));
                }
            }
            let children_path = path.key("states");
            let mut values = Vec::new();
            for child in children {
                if let Some(value) = self.state(child, &children_path, false, depth + 1) {
                    values.push(value);
                }
            }
            members.push(("states".into(), JsonValue::Object(values)));
        }
        Some((id.to_string(), JsonValue::Object(members)))
    }

    /// A `<history>` pseudo-state: its default transition must be the
    /// default entry of its state, which is what fsmc enters without memory.
    fn history(&mut self, node: Node, state: Node) {
        self.attributes(node, &["id", "type"], &[]);
        if node.attribute("id").is_none() {
            self.error(
                node,
                "<history> without `id`".into(),
                "transitions target a history by its id",
            );
        }
        match node.attribute("type") {
            None | Some("shallow") | Some("deep") => {}
            Some(other) => {
                let place = self.attr_place(node, "type");
                self.problem(
                    Severity::Error,
                    place,
                    format!("unknown history type `{other}`"),
                    "a history is `shallow` or `deep`",
                );
            }
        }
        let expected: Vec<&str> = if Self::is(state, "parallel") {
            state
                .children()
                .filter(|c| Self::is(*c, "state") || Self::is(*c, "parallel") || Self::is(*c, "final"))
                .filter_map(|c| c.attribute("id"))
                .collect()
        } else {
            let first = state
                .children()
                .find(|c| Self::is(*c, "state") || Self::is(*c, "parallel") || Self::is(*c, "final"))
                .and_then(|c| c.attribute("id"));
            state.attribute("initial").or(first).into_iter().collect()
        };
        for child in node.children().filter(Node::is_element) {
            if Self::is(child, "transition") {
                let targets: Vec<&str> = child
                    .attribute("target")
                    .unwrap_or("")
                    .split_whitespace()
                    .collect();
                let mut sorted = targets.clone();
                sorted.sort_unstable();
                let mut wanted = expected.clone();
                wanted.sort_unstable();
                if sorted != wanted || child.children().any(|c| c.is_element()) {
                    self.warning(
                        child,
                        format!(
                            "the default transition of history `{}` is not imported",
                            node.attribute("id").unwrap_or("")
                        ),
                        format!(
                            "before a state has been left, fsmc enters its history as the state itself (`{}`), running nothing else",
                            expected.join(" ")
                        ),
                    );
                }
            } else if !self.is_foreign(child) {
                self.unsupported(child);
            }
        }
    }

    /// `<onentry>`, `<onexit>` or a transition's content: effects, outputs,
    /// and (in `<onentry>`) delayed sends, (in `<onexit>`) their cancels.
    fn executable(
        &mut self,
        node: Node,
        content: &mut Content,
        mut sends: Option<&mut Vec<TimerSend>>,
        mut cancels: Option<&mut Vec<(String, String)>>,
    ) {
        self.no_text(node);
        for child in node.children().filter(Node::is_element) {
            if self.is_foreign(child) {
                continue;
            }
            if Self::is_fsm(child) && child.tag_name().name() == "do" {
                self.attributes(child, &["effect"], &[]);
                match child.attribute("effect") {
                    Some(effect) => {
                        let place = self.place(child);
                        content.effects.push((effect.to_string(), place));
                    }
                    None => self.error(
                        child,
                        "<fsm:do> without `effect`".into(),
                        "name the effect: `<fsm:do effect=\"save\"/>`",
                    ),
                }
            } else if Self::is(child, "send") {
                self.send(child, content, sends.as_deref_mut());
            } else if Self::is(child, "cancel") && cancels.is_some() {
                self.attributes(child, &["sendid"], &[]);
                let place = self.place(child);
                if let Some(cancels) = cancels.as_deref_mut() {
                    cancels.push((child.attribute("sendid").unwrap_or("").to_string(), place));
                }
            } else if Self::is(child, "log") {
                self.warning(
                    child,
                    "<log> is not imported".into(),
                    "fsmc machines do not log; an output (`<send event=\"...\" target=\"#_parent\"/>`) tells the program",
                );
            } else {
                self.unsupported(child);
            }
        }
    }

    /// A `<send>`: an output (`target="#_parent"`), or in `<onentry>` a
    /// delayed send, which arms a timer.
    fn send(&mut self, node: Node, content: &mut Content, sends: Option<&mut Vec<TimerSend>>) {
        if let Some(child) = node.children().find(Node::is_element) {
            self.unsupported(child);
        }
        let event = node.attribute("event");
        let target = node.attribute("target");
        let delayed = node.attribute("delay").is_some() || node.attribute("delayexpr").is_some();
        match (event, target, delayed, sends) {
            (Some(event), Some("#_parent"), false, _) => {
                self.attributes(node, &["event", "target", "type"], &[]);
                let place = self.place(node);
                content.outputs.push((event.to_string(), place));
            }
            (Some(event), None, true, Some(sends)) => {
                self.attributes(node, &["event", "id", "delay", "delayexpr", "type"], &[]);
                let delay = if let Some(text) = node.attribute("delay") {
                    let place = self.attr_place(node, "delay");
                    match css_time(text) {
                        Some(ms) => Some((crate::model::duration_text(core::time::Duration::from_millis(ms)), place)),
                        None => {
                            self.problem(
                                Severity::Error,
                                place,
                                format!("delay `{text}` is not a whole number of milliseconds"),
                                "SCXML delays are `250ms`, `30s` or `1.5s`; fsmc's timers count whole milliseconds",
                            );
                            None
                        }
                    }
                } else {
                    let text = node.attribute("delayexpr").unwrap_or("");
                    let place = self.attr_place(node, "delayexpr");
                    if is_identifier(text) {
                        Some((text.to_string(), place))
                    } else {
                        self.problem(
                            Severity::Error,
                            place,
                            format!("delay expression `{text}` is not the name of a delay"),
                            "fsmc reads a `delayexpr` that names a delay the program computes when the state is entered, such as `delayexpr=\"tool_timeout\"`",
                        );
                        None
                    }
                };
                let place = self.place(node);
                sends.push(TimerSend {
                    event: event.to_string(),
                    id: node.attribute("id").map(str::to_string),
                    delay,
                    place,
                    used: false,
                });
            }
            _ => self.error(
                node,
                "this <send> is not one fsmc reads".into(),
                "fsmc reads `<send event=\"output\" target=\"#_parent\"/>` as an output, and `<send event=\"e\" delay=\"30s\"/>` in <onentry> as a timer of the state's transitions on `e`",
            ),
        }
    }

    /// A transition of the state `source` (`None` for the `any` wrapper),
    /// sorted into `lists`.
    fn transition(&mut self, node: Node, source: Option<&str>, sends: &[TimerSend], lists: &mut Lists) {
        self.attributes(
            node,
            &["event", "cond", "target", "type"],
            &["priority", "description", "declared"],
        );
        self.no_text(node);
        let place = self.place(node);
        let mut value: Vec<(String, JsonValue)> = Vec::new();
        let mut member_places: Vec<(&'static str, String)> = Vec::new();
        if let Some(text) = node.attribute((FSM_NS, "description")) {
            value.push(("description".into(), JsonValue::string(text)));
        }
        if let Some(cond) = node.attribute("cond") {
            let cond_place = self.attr_place(node, "cond");
            match guard(cond) {
                Ok(guard) => {
                    value.push(("guard".into(), JsonValue::string(guard)));
                    member_places.push(("guard", cond_place));
                }
                Err(problem) => self.problem(
                    Severity::Error,
                    cond_place,
                    format!("condition `{cond}` is not one fsmc reads: {problem}"),
                    "conditions are guard names, `In('state')`, `!`, `&&`, `||` and parentheses; the program evaluates the guards",
                ),
            }
        }
        if let Some(text) = node.attribute((FSM_NS, "priority")) {
            let at = self.fsm_attr_place(node, "priority");
            match text.trim().parse::<i64>() {
                Ok(p) => {
                    value.push(("priority".into(), JsonValue::Number(p.into())));
                    member_places.push(("priority", at));
                }
                Err(_) => self.problem(
                    Severity::Error,
                    at,
                    format!("priority `{text}` is not an integer"),
                    "priorities are whole numbers, e.g. `1` or `-1`",
                ),
            }
        }
        let declared = match node.attribute((FSM_NS, "declared")) {
            Some(text) => match text.trim().parse::<usize>() {
                Ok(i) => Some(i),
                Err(_) => {
                    let at = self.fsm_attr_place(node, "declared");
                    self.problem(
                        Severity::Warning,
                        at,
                        format!("`fsm:declared=\"{text}\"` is not an index; it is ignored"),
                        "`fsm:declared` is the transition's place in its state's declaration order",
                    );
                    None
                }
            },
            None => None,
        };
        if let Some(target) = node.attribute("target") {
            let at = self.attr_place(node, "target");
            let targets: Vec<&str> = target.split_whitespace().collect();
            match targets.as_slice() {
                [] => {}
                [one] => {
                    if let Some(history) = self.histories.get(*one) {
                        value.push(("to".into(), JsonValue::string(history.state.clone())));
                        value.push((
                            "history".into(),
                            JsonValue::string(if history.deep { "deep" } else { "shallow" }),
                        ));
                    } else {
                        value.push(("to".into(), JsonValue::string(*one)));
                        if let Some(source) = source {
                            if node.attribute("type") != Some("internal") && self.is_inside(one, source) {
                                self.local.push((source.to_string(), (*one).to_string(), place.clone()));
                            }
                        }
                    }
                    member_places.push(("to", at));
                }
                _ => self.problem(
                    Severity::Error,
                    at,
                    format!("the transition has {} targets", targets.len()),
                    "an fsmc transition has one target; to enter several regions of a parallel state, target the parallel state",
                ),
            }
        }
        let mut effects = Content::default();
        self.executable(node, &mut effects, None, None);
        let mut list_places = Vec::new();
        for (key, names) in [("effects", &effects.effects), ("emit", &effects.outputs)] {
            if !names.is_empty() {
                value.push((
                    key.into(),
                    JsonValue::strings(names.iter().map(|(n, _)| n.as_str())),
                ));
                list_places.push((key, names.iter().map(|(_, p)| p.clone()).collect()));
            }
        }
        let candidate = |value: Vec<(String, JsonValue)>| Candidate {
            value,
            declared,
            place: place.clone(),
            member_places: member_places.clone(),
            list_places: list_places.clone(),
        };
        let Some(events) = node.attribute("event") else {
            if source.is_none() {
                self.error(
                    node,
                    "an `any` transition without `event`".into(),
                    "`any` holds transitions on actions",
                );
                return;
            }
            lists.always.push(candidate(value));
            return;
        };
        let event_place = self.attr_place(node, "event");
        let descriptors: Vec<&str> = events.split_whitespace().collect();
        if descriptors.is_empty() {
            self.problem(
                Severity::Error,
                event_place.clone(),
                "`event` is empty".into(),
                "name the event, or leave `event` out for a transition taken as soon as its condition holds",
            );
        }
        for event in descriptors {
            if event.contains('*') {
                self.problem(
                    Severity::Error,
                    event_place.clone(),
                    format!("event `{event}` is a wildcard"),
                    "fsmc's transitions name one action each; list the events, or put the transition in `any`",
                );
                continue;
            }
            let event = event.strip_suffix(".").unwrap_or(event);
            if let Some(state) = event.strip_prefix("done.state.") {
                if Some(state) == source {
                    lists.done.push(candidate(value.clone()));
                } else {
                    self.problem(
                        Severity::Error,
                        event_place.clone(),
                        format!("`{event}` is taken by another state than `{state}`"),
                        format!("fsmc's `done` is a transition of the state that completes; move it into `{state}`"),
                    );
                }
                continue;
            }
            if event.starts_with("done.") || event.starts_with("error.") {
                self.problem(
                    Severity::Error,
                    event_place.clone(),
                    format!(
                        "event `{event}` is raised by the SCXML processor, which fsmc has no equivalent of"
                    ),
                    "fsmc raises no platform events; errors are the program's to report, as actions",
                );
                continue;
            }
            if let Some(send) = sends.iter().find(|s| s.event == event) {
                let mut timer = vec![];
                if let Some((delay, delay_place)) = &send.delay {
                    timer.push(("delay".to_string(), JsonValue::string(delay.clone())));
                    let mut c = candidate(timer.into_iter().chain(value.clone()).collect());
                    c.member_places.push(("delay", delay_place.clone()));
                    lists.after.push(c);
                }
                continue;
            }
            match lists.on.iter_mut().find(|(a, _)| a == event) {
                Some((_, list)) => list.push(candidate(value.clone())),
                None => lists.on.push((event.to_string(), vec![candidate(value.clone())])),
            }
        }
    }

    /// Whether state `inner` lies strictly inside state `outer`.
    fn is_inside(&self, inner: &str, outer: &str) -> bool {
        let mut at = self.parents.get(inner).cloned().flatten();
        let mut steps = 0;
        while let Some(state) = at {
            if state == outer {
                return true;
            }
            steps += 1;
            if steps > crate::limits::MAX_STATE_DEPTH + 1 {
                return false;
            }
            at = self.parents.get(&state).cloned().flatten();
        }
        false
    }

    /// SCXML's external transitions from a state into itself exit and
    /// re-enter it; fsmc's never do. Reported, since the behaviour changes.
    fn local_transitions(&mut self) {
        for (source, target, place) in std::mem::take(&mut self.local) {
            self.problem(
                Severity::Warning,
                place,
                format!("this external transition from `{source}` to `{target}` inside it is imported as a local one"),
                format!("SCXML exits and re-enters `{source}` on an external transition; fsmc's transition from a state to a state inside it never leaves it (SCXML's `type=\"internal\"`)"),
            );
        }
    }

    /// The `on` object of the candidates by action.
    fn on_value(&mut self, on: Vec<(String, Vec<Candidate>)>, path: &JsonPath) -> Option<JsonValue> {
        if on.is_empty() {
            return None;
        }
        let members = on
            .into_iter()
            .filter_map(|(action, list)| {
                let value = self.list_value(list, &path.key(&action))?;
                Some((action, value))
            })
            .collect();
        Some(JsonValue::Object(members))
    }

    /// A list of candidates, in declaration order (`fsm:declared`), each
    /// located at its element.
    fn list_value(&mut self, mut list: Vec<Candidate>, path: &JsonPath) -> Option<JsonValue> {
        if list.is_empty() {
            return None;
        }
        if list.iter().any(|c| c.declared.is_some()) {
            list.sort_by_key(|c| c.declared.unwrap_or(usize::MAX));
        }
        let values = list
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let path = path.index(i);
                self.locate(&path, c.place);
                for (key, place) in c.member_places {
                    self.locate(&path.key(key), place);
                }
                for (key, places) in c.list_places {
                    for (j, place) in places.into_iter().enumerate() {
                        self.locate(&path.key(key).index(j), place);
                    }
                }
                JsonValue::Object(c.value)
            })
            .collect();
        Some(JsonValue::Array(values))
    }

    /// A list of names (`enter`, `exit_effects`, ...), each located at its element.
    fn names_member(
        &mut self,
        path: &JsonPath,
        key: &str,
        names: &[(String, String)],
        members: &mut Vec<(String, JsonValue)>,
    ) {
        if names.is_empty() {
            return;
        }
        for (i, (_, place)) in names.iter().enumerate() {
            self.locate(&path.key(key).index(i), place.clone());
        }
        members.push((
            key.into(),
            JsonValue::strings(names.iter().map(|(n, _)| n.as_str())),
        ));
    }
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A CSS2 time (`250ms`, `30s`, `1.5s`), as SCXML writes delays, in whole
/// milliseconds; `None` when it is not one, or not a whole number of them.
fn css_time(text: &str) -> Option<u64> {
    let text = text.trim();
    let (number, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1000)
    } else {
        return None;
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
        || fraction.len() > 3
    {
        return None;
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let mut fraction_ms: u64 = 0;
    let mut digits = 0;
    for b in fraction.bytes() {
        fraction_ms = fraction_ms * 10 + u64::from(b - b'0');
        digits += 1;
    }
    // `fraction` of `scale`: exact only when it is a whole number of ms.
    let denominator = 10u64.pow(digits);
    let fraction_total = fraction_ms * scale;
    if !fraction_total.is_multiple_of(denominator) {
        return None;
    }
    whole
        .checked_mul(scale)?
        .checked_add(fraction_total / denominator)
}

/// An SCXML condition as `.fsm` guard text: names, `In('s')` (or
/// `In("s")`) as `in(s)`, `!`, `&&`, `||` and parentheses. The JSON
/// importer then checks its structure.
pub(super) fn guard(cond: &str) -> Result<String, String> {
    let mut out = String::with_capacity(cond.len());
    let mut rest = cond.trim_start();
    while !rest.is_empty() {
        let (token, after) = if let Some(after) = rest.strip_prefix("&&") {
            ("&&".to_string(), after)
        } else if let Some(after) = rest.strip_prefix("||") {
            ("||".to_string(), after)
        } else if let Some(after) = rest.strip_prefix('!').filter(|a| !a.starts_with('=')) {
            ("!".to_string(), after)
        } else if let Some(after) = rest.strip_prefix('(') {
            ("(".to_string(), after)
        } else if let Some(after) = rest.strip_prefix(')') {
            (")".to_string(), after)
        } else if rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let (name, after) = rest.split_at(end);
            if name == "In" && after.trim_start().starts_with('(') {
                let inner = after.trim_start()[1..].trim_start();
                let quote = inner.chars().next().filter(|c| *c == '\'' || *c == '"');
                let Some(quote) = quote else {
                    return Err("`In(...)` takes a quoted state id".into());
                };
                let Some(close) = inner[1..].find(quote) else {
                    return Err("unclosed quote in `In(...)`".into());
                };
                let state = &inner[1..1 + close];
                let after = inner[1 + close + 1..].trim_start();
                let Some(after) = after.strip_prefix(')') else {
                    return Err("`In(...)` takes one state id".into());
                };
                (format!("in({})", identifier(state)), after)
            } else if matches!(name, "true" | "false") {
                return Err(format!("`{name}` is a constant, and fsmc guards have none; leave out `cond` for `true`, and the transition for `false`"));
            } else if after.starts_with(['.', '(', '[']) {
                return Err(format!(
                    "`{name}{}` is an expression of the data model",
                    &after[..1]
                ));
            } else {
                (name.to_string(), after)
            }
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            return Err(format!("unexpected `{c}`"));
        };
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&token);
        rest = after.trim_start();
    }
    if out.is_empty() {
        return Err("it is empty".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{css_time, guard};

    #[test]
    fn conditions_become_guards() {
        assert_eq!(guard("a && !In('done')").unwrap(), "a && ! in(done)");
        assert_eq!(guard("In(\"x\")||(b)").unwrap(), "in(x) || ( b )");
        assert!(guard("x == 1").unwrap_err().contains("unexpected `=`"));
        assert!(guard("_event.data").unwrap_err().contains("data model"));
        assert!(guard("true").unwrap_err().contains("constant"));
        assert!(guard("In(x)").is_err());
        assert!(guard("").is_err());
    }

    #[test]
    fn css_times_in_milliseconds() {
        assert_eq!(css_time("30s"), Some(30_000));
        assert_eq!(css_time("250ms"), Some(250));
        assert_eq!(css_time("1.5s"), Some(1_500));
        assert_eq!(css_time(".25s"), Some(250));
        assert_eq!(css_time("1.5ms"), None);
        assert_eq!(css_time("10m"), None);
        assert_eq!(css_time("s"), None);
        assert_eq!(css_time("99999999999999999999s"), None);
    }
}
