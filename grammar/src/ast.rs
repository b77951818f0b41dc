//! The spanned syntax tree: what the user wrote, before names are resolved.
//!
//! Every node keeps its span so diagnostics can point at the exact token and
//! the formatter can put comments back where they were.

use crate::span::Span;

pub mod visit;

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The text of the name.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A whole `.fsm` file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct File {
    /// The machines, in source order. Machines that failed to parse are absent.
    pub machines: Vec<MachineAst>,
    /// The names of the machines that failed to parse, where a name could be
    /// read (`machine Name` at the start of the broken text), so that code
    /// generation can still emit a stand-in for each.
    pub unparsed: Vec<Ident>,
    /// Every comment in the file (line and doc), in source order.
    pub comments: Vec<Comment>,
}

/// A `//` or `///` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The span of the whole comment, from the first `/` to the end of the line.
    pub span: Span,
    /// True for a `///` doc comment.
    pub doc: bool,
    /// The text after the slashes (for docs, one leading space removed).
    pub text: String,
}

/// `#[allow(code, ...)]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attr {
    /// The whole attribute.
    pub span: Span,
    /// The codes listed, as written.
    pub codes: Vec<Ident>,
}

/// `machine Name { ... }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineAst {
    /// From the first attribute (or `machine`) to the closing brace.
    pub span: Span,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// `#[allow(...)]` attributes.
    pub attrs: Vec<Attr>,
    /// The machine's name.
    pub name: Ident,
    /// Declarations, states and `any` blocks, in source order.
    pub items: Vec<MachineItem>,
}

/// One item of a machine body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MachineItem {
    /// `context TYPE;`.
    Context(ContextAst),
    /// `action a, b;`, `guard g(T);`, `output o;`, `effect e;` or `delay d;`.
    Decl(DeclAst),
    /// A state.
    State(StateAst),
    /// `any { ... }`.
    Any(AnyAst),
    /// `never F;`, `reachable F;`, `recoverable F;`, `escapable F;`,
    /// possibly named, or `property NAME: F leads to G;`. Boxed: properties are few, and a machine's items are as large as
    /// their largest kind.
    Property(Box<PropertyAst>),
}

impl MachineItem {
    /// The span of the item.
    pub fn span(&self) -> Span {
        match self {
            MachineItem::Context(c) => c.span,
            MachineItem::Decl(d) => d.span,
            MachineItem::State(s) => s.span,
            MachineItem::Any(a) => a.span,
            MachineItem::Property(p) => p.span,
        }
    }
}

/// Which kind of name a declaration declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DeclKind {
    /// `action`
    Action,
    /// `guard`
    Guard,
    /// `output`
    Output,
    /// `effect`
    Effect,
    /// `delay`
    Delay,
}

impl DeclKind {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            DeclKind::Action => "action",
            DeclKind::Guard => "guard",
            DeclKind::Output => "output",
            DeclKind::Effect => "effect",
            DeclKind::Delay => "delay",
        }
    }

    /// Whether its names may carry a payload type (`action a(T);`).
    pub fn takes_payload(self) -> bool {
        matches!(self, DeclKind::Action | DeclKind::Guard | DeclKind::Effect)
    }
}

/// A Rust type as written in a `.fsm` file (`Decision`, `Vec<String>`).
/// fsmc does not check it; rustc does, where the machine is generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeAst {
    /// The whole type.
    pub span: Span,
    /// The type in canonical form: no whitespace except `, ` between
    /// arguments and `; ` in arrays; no trailing commas except in a
    /// one-element tuple (`(T,)`).
    pub text: String,
}

/// `context TYPE;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextAst {
    /// The whole declaration.
    pub span: Span,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// The `context` keyword.
    pub keyword: Span,
    /// The type.
    pub ty: TypeAst,
}

/// `action a, b;` and friends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclAst {
    /// The whole declaration.
    pub span: Span,
    /// Doc comment lines; they apply to every name declared.
    pub docs: Vec<String>,
    /// Which kind of name.
    pub kind: DeclKind,
    /// The names declared.
    pub names: Vec<Ident>,
    /// The payload type of each name, in the order of `names`
    /// (`action a(T), b;` gives `[Some(T), None]`).
    pub payloads: Vec<Option<TypeAst>>,
}

/// `initial`, `terminal` or `final`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModifierKind {
    /// `initial`
    Initial,
    /// `terminal`
    Terminal,
    /// `final`: a leaf that completes the state holding it.
    Final,
    /// `parallel`: the state's children are regions, all active at once.
    /// Written after the other modifiers, just before `state`.
    Parallel,
}

impl ModifierKind {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            ModifierKind::Initial => "initial",
            ModifierKind::Terminal => "terminal",
            ModifierKind::Final => "final",
            ModifierKind::Parallel => "parallel",
        }
    }
}

/// A state modifier keyword with its span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modifier {
    /// Which modifier.
    pub kind: ModifierKind,
    /// The keyword's span.
    pub span: Span,
}

/// `initial? terminal? final? parallel? state name (; | { ... })`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateAst {
    /// From the first attribute or modifier to `;` or `}`.
    pub span: Span,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// `#[allow(...)]` attributes.
    pub attrs: Vec<Attr>,
    /// Modifiers in source order, `parallel` last if written.
    pub modifiers: Vec<Modifier>,
    /// The state's name.
    pub name: Ident,
    /// `None` for `state x;`, `Some` for `state x { ... }`.
    pub body: Option<Vec<StateItem>>,
}

impl StateAst {
    /// The states declared directly in this state's body, in source order.
    pub fn children(&self) -> impl Iterator<Item = &StateAst> {
        self.body.iter().flatten().filter_map(|item| match item {
            StateItem::State(s) => Some(s),
            _ => None,
        })
    }
}

impl StateAst {
    /// The first modifier of `kind`, if present.
    pub fn modifier(&self, kind: ModifierKind) -> Option<Modifier> {
        self.modifiers.iter().copied().find(|m| m.kind == kind)
    }
}

/// One item of a state body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateItem {
    /// `enter emit ...;` or `exit emit ...;`.
    Hook(HookAst),
    /// `on ...;`, `after ...;`, `done ...;` or `always ...;`.
    Transition(TransitionAst),
    /// A nested state: the state holding it is composite.
    State(StateAst),
}

impl StateItem {
    /// The span of the item.
    pub fn span(&self) -> Span {
        match self {
            StateItem::Hook(h) => h.span,
            StateItem::Transition(t) => t.span,
            StateItem::State(s) => s.span,
        }
    }
}

/// `enter` or `exit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookKind {
    /// Outputs emitted when the state is entered.
    Enter,
    /// Outputs emitted when the state is left.
    Exit,
}

/// `enter do e emit a, b;` / `exit emit c;`: `do`, `emit` or both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookAst {
    /// The whole clause.
    pub span: Span,
    /// Enter or exit.
    pub kind: HookKind,
    /// The effects (`do`), run before the outputs are emitted.
    pub effects: Vec<Ident>,
    /// The outputs.
    pub outputs: Vec<Ident>,
}

/// `any { on ...; }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnyAst {
    /// The whole block.
    pub span: Span,
    /// The `any` keyword.
    pub keyword: Span,
    /// Its transitions.
    pub transitions: Vec<TransitionAst>,
}

/// `TRIGGER [GUARD]? (priority INT)? (-> TARGET)? (do EFFECT, ...)? (emit OUTPUT, ...)? ;`:
/// a transition of any kind, told apart by its [`TriggerAst`]. Everything
/// after the trigger reads the same for every kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransitionAst {
    /// From the trigger's keyword to `;`.
    pub span: Span,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// What makes it fire: an action, a delay, or none.
    pub trigger: TriggerAst,
    /// The guard expression, without the brackets.
    pub guard: Option<GuardAst>,
    /// `priority N`.
    pub priority: Option<Priority>,
    /// `-> target`; `None` for an internal transition.
    pub target: Option<Ident>,
    /// `.history` or `.deep_history` after the target.
    pub history: Option<HistoryAst>,
    /// `do e, f`.
    pub effects: Vec<Ident>,
    /// `emit a, b`.
    pub emits: Vec<Ident>,
}

impl TransitionAst {
    /// The action of an `on` transition; `None` for the other kinds.
    pub fn action(&self) -> Option<&Ident> {
        match &self.trigger {
            TriggerAst::On { action, .. } => Some(action),
            TriggerAst::After { .. } | TriggerAst::Eventless { .. } => None,
        }
    }
}

/// What makes a transition fire: the part of a [`TransitionAst`] before its
/// guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TriggerAst {
    /// `on ACTION`: an action sent to the machine.
    On {
        /// The `on` keyword.
        keyword: Span,
        /// The action.
        action: Ident,
    },
    /// `after DELAY`: a timer, armed when its state is entered.
    After {
        /// The `after` keyword.
        keyword: Span,
        /// How long after entering the state it fires.
        delay: DelayAst,
    },
    /// `done` or `always`: no action.
    Eventless {
        /// Which one.
        kind: EventlessKind,
        /// The keyword.
        keyword: Span,
    },
}

impl TriggerAst {
    /// The keyword the trigger starts with: `on`, `after`, `done` or `always`.
    pub fn keyword(&self) -> &'static str {
        match self {
            TriggerAst::On { .. } => "on",
            TriggerAst::After { .. } => "after",
            TriggerAst::Eventless { kind, .. } => kind.keyword(),
        }
    }

    /// Where that keyword was written.
    pub fn keyword_span(&self) -> Span {
        match self {
            TriggerAst::On { keyword, .. }
            | TriggerAst::After { keyword, .. }
            | TriggerAst::Eventless { keyword, .. } => *keyword,
        }
    }
}

/// Which transition without an action a [`TriggerAst::Eventless`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventlessKind {
    /// `done`: tried when a step leaves its (composite or parallel) state done.
    Done,
    /// `always`: tried after every step that leaves the machine in its state.
    Always,
}

impl EventlessKind {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            EventlessKind::Done => "done",
            EventlessKind::Always => "always",
        }
    }
}

/// Which history a target enters (`-> X.history`, `-> X.deep_history`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HistoryKind {
    /// `.history`: the child of `X` last active, or `X`'s initial child the first time.
    Shallow,
    /// `.deep_history`: the leaf last active inside `X`, or `X`'s initial leaf the first time.
    Deep,
}

impl HistoryKind {
    /// The word after the dot.
    pub fn keyword(self) -> &'static str {
        match self {
            HistoryKind::Shallow => "history",
            HistoryKind::Deep => "deep_history",
        }
    }
}

/// `.history` or `.deep_history` after a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryAst {
    /// Which history.
    pub kind: HistoryKind,
    /// The span of the word after the dot.
    pub span: Span,
}

/// The delay of a timer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DelayAst {
    /// A literal such as `30s`, unchecked: lowering reads the number and unit.
    Literal(Ident),
    /// The name of a declared `delay`, computed by the context.
    Name(Ident),
}

impl DelayAst {
    /// The literal or name as written.
    pub fn ident(&self) -> &Ident {
        match self {
            DelayAst::Literal(i) | DelayAst::Name(i) => i,
        }
    }
}

/// `priority N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Priority {
    /// The value.
    pub value: i32,
    /// The span of the number.
    pub span: Span,
}

/// A guard expression as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GuardAst {
    /// A guard name.
    Name(Ident),
    /// `in(state)`: the span of the whole call, and the state (boxed, so
    /// that every guard stays as small as a name).
    In(Span, Box<Ident>),
    /// `!inner`
    Not(Span, Box<GuardAst>),
    /// `lhs && rhs`
    And(Span, Box<GuardAst>, Box<GuardAst>),
    /// `lhs || rhs`
    Or(Span, Box<GuardAst>, Box<GuardAst>),
    /// `(inner)`, kept so the formatter keeps the user's grouping.
    Paren(Span, Box<GuardAst>),
}

impl GuardAst {
    /// The span of the whole expression.
    pub fn span(&self) -> Span {
        match self {
            GuardAst::Name(i) => i.span,
            GuardAst::In(s, _) => *s,
            GuardAst::Not(s, _) | GuardAst::And(s, ..) | GuardAst::Or(s, ..) | GuardAst::Paren(s, _) => *s,
        }
    }

    /// Every guard name in the expression, left to right (not the states
    /// of `in(...)`).
    pub fn names(&self) -> Vec<&Ident> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out
    }

    /// The states named in `in(...)`, left to right.
    pub fn in_states(&self) -> Vec<&Ident> {
        let mut out = Vec::new();
        self.collect_in_states(&mut out);
        out
    }

    fn collect_in_states<'a>(&'a self, out: &mut Vec<&'a Ident>) {
        match self {
            GuardAst::Name(_) => {}
            GuardAst::In(_, state) => out.push(state),
            GuardAst::Not(_, e) | GuardAst::Paren(_, e) => e.collect_in_states(out),
            GuardAst::And(_, a, b) | GuardAst::Or(_, a, b) => {
                a.collect_in_states(out);
                b.collect_in_states(out);
            }
        }
    }

    fn collect_names<'a>(&'a self, out: &mut Vec<&'a Ident>) {
        match self {
            GuardAst::Name(i) => out.push(i),
            GuardAst::In(..) => {}
            GuardAst::Not(_, e) | GuardAst::Paren(_, e) => e.collect_names(out),
            GuardAst::And(_, a, b) | GuardAst::Or(_, a, b) => {
                a.collect_names(out);
                b.collect_names(out);
            }
        }
    }
}

/// What a property asks of the configurations a machine can reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PropertyKind {
    /// `never F`: no reachable configuration satisfies `F`.
    Never,
    /// `reachable F`: some reachable configuration satisfies `F`.
    Reachable,
    /// `recoverable F`: from every reachable configuration, some path
    /// reaches one satisfying `F` (CTL `AG EF F`).
    Recoverable,
    /// `escapable F`: no loop of death inside `F`. From every reachable
    /// configuration, some path leaves `F` or comes to rest (no timer
    /// armed: the machine waits for an event); a state where a timer is
    /// always armed and `F` always holds, whatever happens, is a loop of
    /// death.
    Escapable,
    /// `F leads to G`: on every path, under the stated fairness, a
    /// configuration satisfying `F` is followed (then or later) by one
    /// satisfying `G`. Written `property NAME: F leads to G;`.
    LeadsTo,
}

impl PropertyKind {
    /// Every kind, in the order `fsmc verify` lists them.
    pub const ALL: [PropertyKind; 5] = [
        PropertyKind::Never,
        PropertyKind::Reachable,
        PropertyKind::Recoverable,
        PropertyKind::Escapable,
        PropertyKind::LeadsTo,
    ];

    /// True for the kinds written before their formula (`never F`); false
    /// for `F leads to G`.
    pub fn is_prefix(self) -> bool {
        self != PropertyKind::LeadsTo
    }

    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            PropertyKind::Never => "never",
            PropertyKind::Reachable => "reachable",
            PropertyKind::Recoverable => "recoverable",
            PropertyKind::Escapable => "escapable",
            PropertyKind::LeadsTo => "leads to",
        }
    }

    /// Whether a property of this kind holds when its formula has `value`
    /// in every configuration, whatever the machine does; `None` when it
    /// still depends on the machine's steps (`escapable` of a formula
    /// always true asks about the whole machine).
    pub fn holds_when_constant(self, value: bool) -> Option<bool> {
        match (self, value) {
            (PropertyKind::Never, v) => Some(!v),
            (PropertyKind::Reachable | PropertyKind::Recoverable, v) => Some(v),
            (PropertyKind::Escapable, false) => Some(true),
            (PropertyKind::Escapable, true) => None,
            // `F leads to G` with `F` never true.
            (PropertyKind::LeadsTo, false) => Some(true),
            (PropertyKind::LeadsTo, true) => None,
        }
    }

    /// The kind a keyword names.
    pub fn from_keyword(word: &str) -> Option<PropertyKind> {
        PropertyKind::ALL.into_iter().find(|k| k.keyword() == word)
    }
}

/// `property NAME: KIND FORMULA;` or `KIND FORMULA;`: a property of the
/// machine, which `fsmc verify` checks and nothing runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyAst {
    /// From `property` (or the kind's keyword) to `;`.
    pub span: Span,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// The name after `property`, if written.
    pub name: Option<Ident>,
    /// What it asks.
    pub kind: PropertyKind,
    /// The kind's keyword.
    pub keyword: Span,
    /// Of which configurations.
    pub formula: FormulaAst,
    /// For `F leads to G`: `G`, and the actions after `assuming`.
    pub leads_to: Option<LeadsToAst>,
}

/// The part of `F leads to G assuming a, b` after `F`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeadsToAst {
    /// `G`.
    pub formula: FormulaAst,
    /// The actions the environment keeps sending, each once.
    pub assuming: Vec<Ident>,
    /// The `assuming` keyword, if written.
    pub assuming_keyword: Option<Span>,
}

/// A state formula as written: a guard expression over `in(S)` and
/// `terminal` only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormulaAst {
    /// `in(state)`: the span of the whole call, and the state.
    In(Span, Box<Ident>),
    /// `terminal`: some active leaf is a terminal state.
    Terminal(Span),
    /// `!inner`
    Not(Span, Box<FormulaAst>),
    /// `lhs && rhs`
    And(Span, Box<FormulaAst>, Box<FormulaAst>),
    /// `lhs || rhs`
    Or(Span, Box<FormulaAst>, Box<FormulaAst>),
    /// `(inner)`, kept so the formatter keeps the user's grouping.
    Paren(Span, Box<FormulaAst>),
}

impl FormulaAst {
    /// The span of the whole formula.
    pub fn span(&self) -> Span {
        match self {
            FormulaAst::In(s, _)
            | FormulaAst::Terminal(s)
            | FormulaAst::Not(s, _)
            | FormulaAst::And(s, ..)
            | FormulaAst::Or(s, ..)
            | FormulaAst::Paren(s, _) => *s,
        }
    }

    /// Each `in(...)`, left to right: the span of the call and the state.
    pub fn in_calls(&self) -> Vec<(Span, &Ident)> {
        let mut out = Vec::new();
        self.collect_in_calls(&mut out);
        out
    }

    fn collect_in_calls<'a>(&'a self, out: &mut Vec<(Span, &'a Ident)>) {
        match self {
            FormulaAst::In(span, state) => out.push((*span, state)),
            FormulaAst::Terminal(_) => {}
            FormulaAst::Not(_, e) | FormulaAst::Paren(_, e) => e.collect_in_calls(out),
            FormulaAst::And(_, a, b) | FormulaAst::Or(_, a, b) => {
                a.collect_in_calls(out);
                b.collect_in_calls(out);
            }
        }
    }
}
