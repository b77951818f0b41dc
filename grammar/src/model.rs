//! The semantic model: names resolved to typed ids, everything in a
//! deterministic order (declaration order), spans kept for diagnostics.
//!
//! Code generation, the dynamic engine and the JSON export all read this.

mod configuration;
mod eventless;
mod hierarchy;
mod property;
mod regions;
mod restore;
#[cfg(test)]
pub(crate) mod testing;

pub use crate::ast::{EventlessKind, HistoryKind};
use crate::diagnostic::Code;
use crate::span::Span;
pub use configuration::{Chosen, Configuration, Domain, MAX_MICROSTEPS};
pub use eventless::{cycle_order, cycles, longest_path};
pub use property::{Formula, FormulaError, LeadsTo, Property, PropertyKind};
use std::fmt::Write as _;

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The index into the machine's list of this kind.
            pub fn index(self) -> usize {
                self.0 as usize
            }

            /// The id of index `i` into the machine's list of this kind (the
            /// inverse of [`index`](Self::index)). Panics past `u32::MAX`.
            pub fn from_index(i: usize) -> Self {
                $name(u32::try_from(i).expect("fewer than 2^32 items"))
            }
        }
    )*};
}

ids! {
    /// Index of a state in [`Machine::states`].
    StateId;
    /// Index of an action in [`Machine::actions`].
    ActionId;
    /// Index of a guard in [`Machine::guards`].
    GuardId;
    /// Index of an output in [`Machine::outputs`].
    OutputId;
    /// Index of a transition in [`Machine::transitions`].
    TransitionId;
    /// Index of an effect in [`Machine::effects`].
    EffectId;
    /// Index of a delay in [`Machine::delays`].
    DelayId;
    /// Index of a timer in [`Machine::timers`].
    TimerId;
}

/// A Rust type named in the machine (the context, a payload). fsmc does not
/// check it; rustc does where the machine is generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustType {
    /// Canonical text (see [`crate::ast::TypeAst::text`]); two types are the
    /// same payload when their texts are equal.
    pub text: String,
    /// Where it was written.
    pub span: Span,
}

/// Every machine of one text, in source order.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// The machines.
    pub machines: Vec<Machine>,
}

/// An action, guard, output, effect or delay name.
#[derive(Clone, Debug)]
pub struct Symbol {
    /// The name as written.
    pub name: String,
    /// The payload type of an action, guard or effect declared with one
    /// (`action decided(Decision);`).
    pub payload: Option<RustType>,
    /// Doc comment lines from its declaration.
    pub docs: Vec<String>,
    /// The span of the name in its declaration, if declared.
    pub declared: Option<Span>,
    /// Every place it is used, in source order.
    pub uses: Vec<Span>,
}

impl Symbol {
    /// Where to point at this name: its declaration, else its first use.
    pub fn span(&self) -> Span {
        self.declared
            .or_else(|| self.uses.first().copied())
            .unwrap_or_default()
    }
}

/// A state.
#[derive(Clone, Debug)]
pub struct State {
    /// The name as written.
    pub name: String,
    /// The span of the name.
    pub span: Span,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// Marked `initial`.
    pub initial: bool,
    /// The `terminal` keyword, if the state is terminal.
    pub terminal: Option<Span>,
    /// Plain, `final` or `parallel`.
    pub kind: StateKind,
    /// Outputs emitted on entering, in order.
    pub enter: Vec<OutputId>,
    /// Outputs emitted on leaving, in order.
    pub exit: Vec<OutputId>,
    /// Effects run on entering (`enter do ...;`), in order, before `enter`'s outputs.
    pub enter_effects: Vec<EffectId>,
    /// Effects run on leaving (`exit do ...;`), in order.
    pub exit_effects: Vec<EffectId>,
    /// Warnings silenced by `#[allow(...)]` on this state.
    pub allows: Vec<Code>,
    /// The state whose body holds this one; `None` at the top level.
    pub parent: Option<StateId>,
    /// The states in this one's body, in declaration order. A state with
    /// children is *composite*; one without is a *leaf*.
    pub children: Vec<StateId>,
    /// 1 at the top level, 2 for a child of a top-level state, and so on
    /// (the `any` block is level 0). At most [`crate::MAX_STATE_DEPTH`].
    pub depth: u32,
}

impl State {
    /// True for a terminal state.
    pub fn is_terminal(&self) -> bool {
        self.terminal.is_some()
    }

    /// True for a state that holds states.
    pub fn is_composite(&self) -> bool {
        !self.children.is_empty()
    }

    /// True for a `final` state.
    pub fn is_final(&self) -> bool {
        self.kind == StateKind::Final
    }

    /// True for a `parallel` state.
    pub fn is_parallel(&self) -> bool {
        self.kind == StateKind::Parallel
    }
}

/// What kind of state a [`State`] is, beyond leaf or composite: one field,
/// since a state is never both (`final` is a leaf; lowering reports a state
/// written with both keywords, and keeps `parallel`). The keywords' spans are
/// the syntax tree's: the checks that point at them run in lowering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StateKind {
    /// Neither `final` nor `parallel`.
    #[default]
    Plain,
    /// `final`: a leaf that completes the state holding it.
    Final,
    /// `parallel`: each child is a region, and all of them are active while
    /// the state is.
    Parallel,
}

/// Where a transition was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// In this state's body.
    State(StateId),
    /// In an `any` block: it applies to every non-terminal state.
    Any,
}

/// A guard expression over the machine's guards and `in(...)` tests.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GuardExpr {
    /// A guard.
    Var(GuardId),
    /// `in(S)`: state `S` is active, in the configuration before the step.
    In(StateId),
    /// `!e`
    Not(Box<GuardExpr>),
    /// `a && b`
    And(Box<GuardExpr>, Box<GuardExpr>),
    /// `a || b`
    Or(Box<GuardExpr>, Box<GuardExpr>),
}

impl GuardExpr {
    /// Evaluate, left to right and lazily, with `value` giving each guard's
    /// truth and `active` telling whether a state is active.
    pub fn eval(
        &self,
        value: &mut impl FnMut(GuardId) -> bool,
        active: &mut impl FnMut(StateId) -> bool,
    ) -> bool {
        match self {
            GuardExpr::Var(g) => value(*g),
            GuardExpr::In(s) => active(*s),
            GuardExpr::Not(e) => !e.eval(value, active),
            GuardExpr::And(a, b) => a.eval(value, active) && b.eval(value, active),
            GuardExpr::Or(a, b) => a.eval(value, active) || b.eval(value, active),
        }
    }

    /// The expression with every `in(...)` replaced by its value, as
    /// `active` tells it, and simplified: `Err(value)` when that decides it
    /// whatever the guards say (guards are pure, so not asking them changes
    /// nothing), `Ok(rest)` otherwise. In a machine without parallel states
    /// the configuration before a step is known from the leaf alone, so code
    /// generation decides every `in(...)` this way.
    pub fn decide_states(&self, active: &impl Fn(StateId) -> bool) -> Result<GuardExpr, bool> {
        match self {
            GuardExpr::Var(_) => Ok(self.clone()),
            GuardExpr::In(s) => Err(active(*s)),
            GuardExpr::Not(e) => match e.decide_states(active) {
                Ok(e) => Ok(GuardExpr::Not(Box::new(e))),
                Err(value) => Err(!value),
            },
            GuardExpr::And(a, b) => match (a.decide_states(active), b.decide_states(active)) {
                (Err(false), _) | (_, Err(false)) => Err(false),
                (Err(true), rest) | (rest, Err(true)) => rest,
                (Ok(a), Ok(b)) => Ok(GuardExpr::And(Box::new(a), Box::new(b))),
            },
            GuardExpr::Or(a, b) => match (a.decide_states(active), b.decide_states(active)) {
                (Err(true), _) | (_, Err(true)) => Err(true),
                (Err(false), rest) | (rest, Err(false)) => rest,
                (Ok(a), Ok(b)) => Ok(GuardExpr::Or(Box::new(a), Box::new(b))),
            },
        }
    }

    /// Every state tested by `in(...)` in the expression, left to right.
    pub fn in_states(&self, out: &mut Vec<StateId>) {
        match self {
            GuardExpr::Var(_) => {}
            GuardExpr::In(s) => out.push(*s),
            GuardExpr::Not(e) => e.in_states(out),
            GuardExpr::And(a, b) | GuardExpr::Or(a, b) => {
                a.in_states(out);
                b.in_states(out);
            }
        }
    }

    /// Every guard in the expression, left to right, with repeats (not the
    /// states of `in(...)`).
    pub fn vars(&self, out: &mut Vec<GuardId>) {
        match self {
            GuardExpr::Var(g) => out.push(*g),
            GuardExpr::In(_) => {}
            GuardExpr::Not(e) => e.vars(out),
            GuardExpr::And(a, b) | GuardExpr::Or(a, b) => {
                a.vars(out);
                b.vars(out);
            }
        }
    }
}

/// A guard expression and where it was written.
#[derive(Clone, Debug)]
pub struct Guard {
    /// The expression.
    pub expr: GuardExpr,
    /// The span inside the brackets.
    pub span: Span,
}

/// What makes a transition fire (the model's [`TriggerAst`](crate::ast::TriggerAst)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// `on ACTION`: an action sent to the machine.
    On(ActionId),
    /// `after DELAY`: a timer, armed when its state is entered and disarmed
    /// when it is left.
    After(Delay),
    /// `done` (tried when a step leaves its composite or parallel state
    /// done) or `always` (tried after every step that leaves the machine in
    /// its state).
    Eventless(EventlessKind),
}

impl Trigger {
    /// The keyword the trigger starts with: `on`, `after`, `done` or `always`.
    pub fn keyword(self) -> &'static str {
        match self {
            Trigger::On(_) => "on",
            Trigger::After(_) => "after",
            Trigger::Eventless(kind) => kind.keyword(),
        }
    }
}

/// A transition of any kind: `on ACTION` ones are in
/// [`Machine::transitions`], `after DELAY` ones (timers) in
/// [`Machine::timers`], `done` and `always` ones in [`Machine::eventless`].
/// Each list holds one kind only, so code that walks transitions by action
/// keeps working, and code that cannot run timers must look at
/// [`Machine::timers`] to refuse them.
#[derive(Clone, Debug)]
pub struct Transition {
    /// What makes it fire.
    pub trigger: Trigger,
    /// The span of the action name, the duration or delay name, or the
    /// `done`/`always` keyword.
    pub trigger_span: Span,
    /// Where it was written: a state's body, or an `any` block (only `on`
    /// transitions).
    pub source: Source,
    /// The guard, if any (a timer's is evaluated when the timer fires).
    pub guard: Option<Guard>,
    /// The priority; 0 when not written (a timer's is among its state's
    /// timers with the same delay).
    pub priority: i32,
    /// The state entered; `None` for an internal transition.
    pub target: Option<StateId>,
    /// `-> X.history` / `-> X.deep_history`: the target (a composite state)
    /// is entered through its history (docs/dsl.md, "History").
    pub history: Option<HistoryKind>,
    /// Effects of the transition itself (`do ...`), in order.
    pub effects: Vec<EffectId>,
    /// Outputs of the transition itself, in order.
    pub emits: Vec<OutputId>,
    /// The whole transition, from the trigger's keyword to `;`.
    pub span: Span,
    /// Doc comment lines.
    pub docs: Vec<String>,
}

impl Transition {
    /// The action of an `on` transition.
    pub fn action(&self) -> Option<ActionId> {
        match self.trigger {
            Trigger::On(a) => Some(a),
            _ => None,
        }
    }

    /// The delay of a timer.
    pub fn delay(&self) -> Option<Delay> {
        match self.trigger {
            Trigger::After(d) => Some(d),
            _ => None,
        }
    }

    /// Whether a `done` or an `always` transition, for those.
    pub fn eventless_kind(&self) -> Option<EventlessKind> {
        match self.trigger {
            Trigger::Eventless(k) => Some(k),
            _ => None,
        }
    }

    /// The state whose body holds it; `None` for an `any` transition.
    pub fn state(&self) -> Option<StateId> {
        match self.source {
            Source::State(s) => Some(s),
            Source::Any => None,
        }
    }

    /// The state whose body holds it, for a transition known to be written
    /// in one: timers and `done`/`always` transitions always are. Panics
    /// for an `any` transition.
    pub fn expect_state(&self) -> StateId {
        self.state().expect("a transition written in a state's body")
    }

    /// The action of a transition known to be an `on` one, as every one in
    /// [`Machine::transitions`] is. Panics for the others.
    pub fn expect_action(&self) -> ActionId {
        self.action().expect("an `on` transition")
    }

    /// The delay of a transition known to be a timer, as every one in
    /// [`Machine::timers`] is. Panics for the others.
    pub fn expect_delay(&self) -> Delay {
        self.delay().expect("an `after` transition")
    }
}

/// How long a timer waits after its state is entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Delay {
    /// A literal duration (`30s`), between 1 ms and a week.
    Literal(core::time::Duration),
    /// A declared `delay`, computed by the context when the state is entered.
    Named(DelayId),
}

/// One machine.
#[derive(Clone, Debug)]
pub struct Machine {
    /// The name as written.
    pub name: String,
    /// The span of the name.
    pub span: Span,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// Warnings silenced by `#[allow(...)]` on the machine.
    pub allows: Vec<Code>,
    /// States in declaration order.
    pub states: Vec<State>,
    /// Actions: declared ones first, then in order of first use.
    pub actions: Vec<Symbol>,
    /// Guards: declared ones first, then in order of first use.
    pub guards: Vec<Symbol>,
    /// Outputs: declared ones first, then in order of first use.
    pub outputs: Vec<Symbol>,
    /// The context type (`context T;`), if declared.
    pub context: Option<RustType>,
    /// Effects: declared ones first, then in order of first use.
    pub effects: Vec<Symbol>,
    /// Delays: declared ones first, then in order of first use.
    pub delays: Vec<Symbol>,
    /// Timers (`after` transitions) in declaration order.
    pub timers: Vec<Transition>,
    /// `done` and `always` transitions in declaration order, so ordered by
    /// the state that declares them ([`Machine::eventless_of`]).
    pub eventless: Vec<Transition>,
    /// The initial state among the top-level states (possibly composite:
    /// the machine starts in [`Machine::initial_leaf`]).
    pub initial: StateId,
    /// Every `on` transition in declaration order (state bodies and `any` blocks).
    pub transitions: Vec<Transition>,
    /// The properties `fsmc verify` checks, in declaration order. They are
    /// no part of the behaviour: no engine reads them, and they are not in
    /// [`Machine::canonical`] (so not in the fingerprint).
    pub properties: Vec<Property>,
    /// True when the machine declares actions (so all must be declared).
    pub declares_actions: bool,
    /// True when the machine declares guards.
    pub declares_guards: bool,
    /// True when the machine declares outputs.
    pub declares_outputs: bool,
    /// True when the machine declares effects.
    pub declares_effects: bool,
    /// True when the machine declares delays.
    pub declares_delays: bool,
    /// For each state, its own transitions in declaration order.
    pub(crate) own: Vec<Vec<TransitionId>>,
    /// The `any` transitions in declaration order.
    pub(crate) any: Vec<TransitionId>,
    /// Lowering dropped a transition to an unknown state with no plausible
    /// intended target, so the graph is not the one the user wrote and the
    /// graph checks stay silent rather than report phantoms.
    pub(crate) incomplete: bool,
    /// Edges the model lacks but the user evidently meant: a misspelled
    /// target's "did you mean" state, and the edges of a duplicate state's
    /// body (counted as the first definition's). Only the graph checks use them.
    pub(crate) guessed_edges: Vec<(Source, StateId)>,
    /// The span of every `in(...)` in the machine's guards, from `in` to
    /// `)`, sorted: kept here rather than in each [`Guard`], so that
    /// transitions stay as small as they were before `in(...)` existed.
    pub(crate) in_calls: Vec<Span>,
}

impl Machine {
    /// The spans of the `in(...)` tests of `guard`, from `in` to `)`, in
    /// the order of [`GuardExpr::in_states`].
    pub fn in_spans(&self, guard: &Guard) -> &[Span] {
        let start = self.in_calls.partition_point(|s| s.start < guard.span.start);
        let end = self.in_calls.partition_point(|s| s.start < guard.span.end);
        &self.in_calls[start..end]
    }

    /// The state with id `id`.
    pub fn state(&self, id: StateId) -> &State {
        &self.states[id.index()]
    }

    /// The transition with id `id`.
    pub fn transition(&self, id: TransitionId) -> &Transition {
        &self.transitions[id.index()]
    }

    /// The action of `on` transition `id`.
    pub fn action_of(&self, id: TransitionId) -> ActionId {
        self.transition(id).expect_action()
    }

    /// The timer with id `id`.
    pub fn timer(&self, id: TimerId) -> &Transition {
        &self.timers[id.index()]
    }

    /// The delay of timer `id`.
    pub fn delay_of(&self, id: TimerId) -> Delay {
        self.timer(id).expect_delay()
    }

    /// Ids of all states.
    pub fn state_ids(&self) -> impl Iterator<Item = StateId> {
        (0..self.states.len()).map(StateId::from_index)
    }

    /// Look a state up by name.
    pub fn state_by_name(&self, name: &str) -> Option<StateId> {
        self.states
            .iter()
            .position(|s| s.name == name)
            .map(StateId::from_index)
    }

    /// The transitions that apply in `state`, grouped by action, each group in
    /// the order they are tried: highest priority first; at equal priority the
    /// innermost first (the state's own transitions, then its parent's, and
    /// so on out to the `any` block's); then in declaration order. Groups
    /// follow the order of [`Machine::actions`]. Terminal states have none.
    pub fn candidate_groups(&self, state: StateId) -> Vec<(ActionId, Vec<TransitionId>)> {
        if self.state(state).is_terminal() {
            return Vec::new();
        }
        let levels = self.ancestors_or_self(state).map(|s| &self.own[s.index()]);
        let mut all: Vec<TransitionId> = levels.chain([&self.any]).flatten().copied().collect();
        // Stable: equal keys keep innermost first, then declaration order.
        all.sort_by_key(|&t| (self.action_of(t), std::cmp::Reverse(self.transition(t).priority)));
        let mut groups: Vec<(ActionId, Vec<TransitionId>)> = Vec::new();
        for t in all {
            let action = self.action_of(t);
            match groups.last_mut() {
                Some((a, ts)) if *a == action => ts.push(t),
                _ => groups.push((action, vec![t])),
            }
        }
        groups
    }

    /// The candidates for `action` in `state`, in the order they are tried.
    pub fn candidates(&self, state: StateId, action: ActionId) -> Vec<TransitionId> {
        self.candidate_groups(state)
            .into_iter()
            .find(|(a, _)| *a == action)
            .map(|(_, ts)| ts)
            .unwrap_or_default()
    }

    /// The transitions written in `state`'s own body (none are lost for terminal states).
    pub fn own_transitions(&self, state: StateId) -> &[TransitionId] {
        &self.own[state.index()]
    }

    /// The `done` and `always` transitions written in `state`'s body, in
    /// declaration order, with their indices in [`Machine::eventless`].
    pub fn eventless_of(&self, state: StateId) -> impl Iterator<Item = (usize, &Transition)> {
        debug_assert!(self
            .eventless
            .windows(2)
            .all(|w| w[0].expect_state() <= w[1].expect_state()));
        let first = self.eventless.partition_point(|e| e.expect_state() < state);
        let end = self.eventless.partition_point(|e| e.expect_state() <= state);
        (first..end).map(|i| (i, &self.eventless[i]))
    }

    /// The transitions of the `any` blocks.
    pub fn any_transitions(&self) -> &[TransitionId] {
        &self.any
    }

    /// The timers written in `state`'s body, in declaration order.
    pub fn timers_of(&self, state: StateId) -> impl Iterator<Item = (TimerId, &Transition)> {
        self.timers
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.expect_state() == state)
            .map(|(i, t)| (TimerId::from_index(i), t))
    }

    /// Whether the machine uses a context, a payload, an effect, a delay or a
    /// timer: what gives its generated code the `Event`/`Context` API rather
    /// than the plain state-only one.
    pub fn has_data_or_timers(&self) -> bool {
        self.context.is_some()
            || !self.timers.is_empty()
            || !self.effects.is_empty()
            || !self.delays.is_empty()
            || self
                .actions
                .iter()
                .chain(&self.guards)
                .any(|s| s.payload.is_some())
    }

    /// A delay as written canonically: a literal in the largest unit that
    /// divides it (`90s`, `2m`, `250ms`), or the delay's name.
    pub fn delay_text(&self, delay: Delay) -> String {
        match delay {
            Delay::Named(d) => self.delays[d.index()].name.clone(),
            Delay::Literal(d) => duration_text(d),
        }
    }

    /// A guard expression as canonical text, with the fewest parentheses that
    /// keep its meaning. A chain of one operator is printed flat however it
    /// nests (`a || (b || c)` as `a || b || c`); the checked model nests such
    /// chains to the left, so its text parses back to exactly its tree.
    pub fn guard_text(&self, expr: &GuardExpr) -> String {
        let mut out = String::new();
        self.write_guard(expr, 0, &mut out);
        out
    }

    fn write_guard(&self, expr: &GuardExpr, min_prec: u8, out: &mut String) {
        let (prec, paren) = match expr {
            GuardExpr::Or(..) => (1, min_prec > 1),
            GuardExpr::And(..) => (2, min_prec > 2),
            _ => (3, false),
        };
        if paren {
            out.push('(');
        }
        match expr {
            GuardExpr::Var(g) => out.push_str(&self.guards[g.index()].name),
            GuardExpr::In(s) => {
                out.push_str("in(");
                out.push_str(&self.states[s.index()].name);
                out.push(')');
            }
            GuardExpr::Not(e) => {
                out.push('!');
                self.write_guard(e, 3, out);
            }
            GuardExpr::And(a, b) | GuardExpr::Or(a, b) => {
                self.write_guard(a, prec, out);
                out.push_str(if prec == 1 { " || " } else { " && " });
                // `||` and `&&` are associative: a right operand of the same
                // operator needs no parentheses.
                let same = matches!(
                    (expr, &**b),
                    (GuardExpr::Or(..), GuardExpr::Or(..)) | (GuardExpr::And(..), GuardExpr::And(..))
                );
                self.write_guard(b, if same { prec } else { prec + 1 }, out);
            }
        }
        if paren {
            out.push(')');
        }
    }

    /// The machine's canonical definition: names, states, hooks and
    /// transitions in declaration order, without comments, docs or spans.
    /// Two machines with the same canonical text behave identically.
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        let names = |ids: &[OutputId]| {
            ids.iter()
                .map(|o| self.outputs[o.index()].name.as_str())
                .collect::<Vec<_>>()
                .join(",")
        };
        let effects = |ids: &[EffectId]| {
            ids.iter()
                .map(|e| self.effects[e.index()].name.as_str())
                .collect::<Vec<_>>()
                .join(",")
        };
        // The constructs of contexts, payloads, effects and timers add lines
        // and fields only where a machine uses them, so the fingerprint of a
        // machine without them is what it was before they existed (snapshots
        // taken then still restore).
        let _ = writeln!(out, "machine {}", self.name);
        if let Some(c) = &self.context {
            let _ = writeln!(out, "context {}", c.text);
        }
        for (kind, list) in [("action", &self.actions), ("guard", &self.guards)] {
            for s in list {
                if let Some(p) = &s.payload {
                    let _ = writeln!(out, "{kind} {}({})", s.name, p.text);
                }
            }
        }
        for s in &self.effects {
            match &s.payload {
                Some(p) => writeln!(out, "effect {}({})", s.name, p.text),
                None => writeln!(out, "effect {}", s.name),
            }
            .ok();
        }
        for s in &self.delays {
            let _ = writeln!(out, "delay {}", s.name);
        }
        for (i, s) in self.states.iter().enumerate() {
            let _ = write!(
                out,
                "state {} initial={} terminal={} enter=[{}] exit=[{}]",
                s.name,
                i == self.initial.index(),
                s.is_terminal(),
                names(&s.enter),
                names(&s.exit)
            );
            if !s.enter_effects.is_empty() || !s.exit_effects.is_empty() {
                let _ = write!(
                    out,
                    " enter_do=[{}] exit_do=[{}]",
                    effects(&s.enter_effects),
                    effects(&s.exit_effects)
                );
            }
            // Nesting adds to the line only where it is used, as above. A
            // child's `initial=` is its own mark (the machine's is for the
            // top level).
            if let Some(p) = s.parent {
                let _ = write!(out, " parent={} child_initial={}", self.state(p).name, s.initial);
            }
            // So do final and parallel states.
            match s.kind {
                StateKind::Plain => {}
                StateKind::Final => out.push_str(" final"),
                StateKind::Parallel => out.push_str(" parallel"),
            }
            out.push('\n');
        }
        // Per source (each state's body, then `any`), transitions grouped by
        // action in order of the action's first transition there, declaration
        // order within a group: interleaving actions in a body changes nothing
        // about firing, so it must not change the fingerprint either.
        let sources = self.own.iter().map(Vec::as_slice).chain([self.any.as_slice()]);
        for list in sources {
            let mut grouped: Vec<TransitionId> = list.to_vec();
            let first_seen = |a: ActionId| list.iter().position(|&t| self.action_of(t) == a);
            grouped.sort_by_key(|&t| first_seen(self.action_of(t)));
            for t in grouped.into_iter().map(|t| self.transition(t)) {
                let from = match t.source {
                    Source::State(s) => self.state(s).name.as_str(),
                    Source::Any => "*",
                };
                let _ = write!(
                    out,
                    "on {} {} [{}] priority={} -> {}",
                    from,
                    self.actions[t.expect_action().index()].name,
                    t.guard
                        .as_ref()
                        .map(|g| self.guard_text(&g.expr))
                        .unwrap_or_default(),
                    t.priority,
                    self.target_text(t.target, t.history),
                );
                if !t.effects.is_empty() {
                    let _ = write!(out, " do=[{}]", effects(&t.effects));
                }
                let _ = writeln!(out, " emit=[{}]", names(&t.emits));
            }
        }
        for t in &self.timers {
            let _ = writeln!(
                out,
                "after {} {} [{}] priority={} -> {} do=[{}] emit=[{}]",
                self.state(t.expect_state()).name,
                match t.expect_delay() {
                    Delay::Literal(d) => format!("{}ms", d.as_millis()),
                    Delay::Named(d) => self.delays[d.index()].name.clone(),
                },
                t.guard
                    .as_ref()
                    .map(|g| self.guard_text(&g.expr))
                    .unwrap_or_default(),
                t.priority,
                self.target_text(t.target, t.history),
                effects(&t.effects),
                names(&t.emits)
            );
        }
        // Per state, `done` before `always`, declaration order within each:
        // the two are tried at different moments of a step, so interleaving
        // them in a body changes nothing about firing, and must not change
        // the fingerprint either (as for actions above).
        let mut eventless: Vec<&Transition> = self.eventless.iter().collect();
        eventless.sort_by_key(|t| (t.expect_state(), t.eventless_kind()));
        for t in eventless {
            let _ = writeln!(
                out,
                "{} {} [{}] priority={} -> {} do=[{}] emit=[{}]",
                t.trigger.keyword(),
                self.state(t.expect_state()).name,
                t.guard
                    .as_ref()
                    .map(|g| self.guard_text(&g.expr))
                    .unwrap_or_default(),
                t.priority,
                self.target_text(t.target, t.history),
                effects(&t.effects),
                names(&t.emits)
            );
        }
        out
    }

    /// A target as the canonical text writes it: `.` for none, the state's
    /// name, or `name.history` / `name.deep_history`.
    fn target_text(&self, target: Option<StateId>, history: Option<HistoryKind>) -> String {
        match (target, history) {
            (None, _) => ".".to_string(),
            (Some(s), None) => self.state(s).name.clone(),
            (Some(s), Some(h)) => format!("{}.{}", self.state(s).name, h.keyword()),
        }
    }

    /// A stable hash of [`Machine::canonical`]: 16 hex digits of 64-bit FNV-1a.
    /// It is the same however the machine reached us (macro, `fsmc build`,
    /// build script, JSON), and changes when behaviour can change.
    pub fn fingerprint(&self) -> String {
        format!("{:016x}", fnv1a64(self.canonical().as_bytes()))
    }
}

/// A duration in the largest of `h`, `m`, `s`, `ms` that divides it.
pub fn duration_text(d: core::time::Duration) -> String {
    let ms = d.as_millis();
    for (unit, size) in [("h", 3_600_000), ("m", 60_000), ("s", 1_000)] {
        if ms > 0 && ms.is_multiple_of(size) {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms}ms")
}

/// 64-bit FNV-1a: tiny, dependency-free, and fixed forever by its definition.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    fn fingerprint(text: &str) -> String {
        let checked = crate::check(text);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        checked.model.machines[0].fingerprint()
    }

    #[test]
    fn properties_are_no_part_of_the_fingerprint() {
        let plain = "machine M { initial state s { on a -> t; } state t { on b -> s; } }";
        let with = "machine M { initial state s { on a -> t; } \
                    property p: never in(s) && in(t); state t { on b -> s; } \
                    recoverable in(s); reachable terminal || !in(t); }";
        let checked = crate::check(with);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        assert_eq!(checked.model.machines[0].properties.len(), 3);
        assert_eq!(fingerprint(plain), fingerprint(with));
        // The fingerprint of a machine without properties is what it was
        // before they existed.
        assert_eq!(fingerprint(plain), "10e48fe93698b7bc");
    }

    #[test]
    fn a_formula_reads_the_same_from_a_file_and_from_text() {
        let text = "machine M { initial state s { on a -> t; } state t { on b -> s; } \
                    never in(s) && (in(t) || !terminal) && in(s); recoverable !!(in(s)); }";
        let checked = crate::check(text);
        let m = &checked.model.machines[0];
        for p in &m.properties {
            let shown = p.formula.display(m).to_string();
            assert_eq!(
                super::Formula::parse(m, &shown).as_ref(),
                Ok(&p.formula),
                "{shown}"
            );
        }
        assert_eq!(
            m.properties[0].label(m),
            "never in(s) && (in(t) || !terminal) && in(s)"
        );
        assert_eq!(m.properties[1].label(m), "recoverable !!in(s)");
    }

    #[test]
    fn interleaving_actions_in_a_body_keeps_the_fingerprint() {
        let a =
            "machine M { initial state s { on a [g] -> t; on b -> t; on a -> s; } state t { on b -> s; } }";
        let b =
            "machine M { initial state s { on a [g] -> t; on a -> s; on b -> t; } state t { on b -> s; } }";
        assert_eq!(fingerprint(a), fingerprint(b));
    }

    fn guard_text(guard: &str) -> String {
        let text =
            format!("machine M {{ initial state s {{ on a [{guard}] -> t; }} state t {{ on b -> s; }} }}");
        let checked = crate::check(&text);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let m = &checked.model.machines[0];
        m.guard_text(&m.transitions[0].guard.as_ref().expect("guarded").expr)
    }

    #[test]
    fn chains_of_one_operator_print_flat_however_they_are_grouped() {
        for (written, canonical) in [
            ("a || (b || c)", "a || b || c"),
            ("(a || b) || c", "a || b || c"),
            ("a || (b || (c || d))", "a || b || c || d"),
            ("(a || (b || c)) || d", "a || b || c || d"),
            ("a && (b && c)", "a && b && c"),
            ("a && (!b && (c && d))", "a && !b && c && d"),
            ("x || (a && (b && c)) || (d || e)", "x || a && b && c || d || e"),
            // Different operators keep the parentheses their meaning needs.
            ("a && (b || c)", "a && (b || c)"),
            ("(a && b) || c", "a && b || c"),
            ("!(a || b) || (c || !d)", "!(a || b) || c || !d"),
            ("a && (b || c) && (d && e)", "a && (b || c) && d && e"),
        ] {
            assert_eq!(guard_text(written), canonical, "{written}");
        }
        let m = |g: &str| {
            format!("machine M {{ initial state s {{ on a [{g}] -> t; }} state t {{ on b -> s; }} }}")
        };
        assert_eq!(fingerprint(&m("a || (b || c)")), fingerprint(&m("a || b || c")));
        assert_eq!(fingerprint(&m("a && (b && c)")), fingerprint(&m("a && b && c")));
        // The order of the operands is the order of evaluation: it stays.
        assert_ne!(fingerprint(&m("a || (c || b)")), fingerprint(&m("a || b || c")));
        assert_ne!(fingerprint(&m("a && (b || c)")), fingerprint(&m("(a && b) || c")));
    }

    #[test]
    fn the_model_nests_chains_to_the_left_as_their_flat_text_parses() {
        let tree = |g: &str| {
            let text =
                format!("machine M {{ initial state s {{ on x [{g}] -> t; }} state t {{ on y -> s; }} }}");
            let checked = crate::check(&text);
            assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
            checked.model.machines[0].transitions[0]
                .guard
                .clone()
                .expect("guarded")
                .expr
        };
        assert_eq!(tree("a || (b || (c || d))"), tree("a || b || c || d"));
        assert_eq!(tree("(a && b) && (c && d)"), tree("a && b && c && d"));
        assert_eq!(tree("a || (b && (c && d)) || e"), tree("a || b && c && d || e"));
    }

    #[test]
    fn flat_machines_keep_their_fingerprints_and_nesting_adds_to_them() {
        // Fingerprints from before nesting existed (tests/snapshots holds the same).
        let fixture = |name: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures/ok")
                .join(name);
            fingerprint(&std::fs::read_to_string(path).unwrap())
        };
        assert_eq!(fixture("hooks.fsm"), "e7e1390e5251bbe7");
        assert_eq!(fixture("initial-terminal.fsm"), "804e6387e34c91f7");
        // Nesting a state, or entering through history, changes it.
        let flat = "machine M { initial state p { on x -> a; } state a { on y -> p; } }";
        let nested = "machine M { initial state p { on x -> a; initial state a { on y -> p; } } }";
        let history =
            "machine M { initial state p { on x -> a; initial state a { on y -> p; } } state q { on z -> p.history; } }";
        let plain = "machine M { initial state p { on x -> a; initial state a { on y -> p; } } state q { on z -> p; } }";
        let checked = |t: &str| crate::check(t).model.machines[0].fingerprint();
        assert_ne!(checked(flat), checked(nested));
        assert_ne!(checked(history), checked(plain));
        assert!(crate::check(history).model.machines[0]
            .canonical()
            .contains("-> p.history"));
    }

    #[test]
    fn reordering_candidates_of_one_action_changes_the_fingerprint() {
        let a = "machine M { initial state s { on a [g] -> t; on a [h] -> s; } state t { on b -> s; } }";
        let b = "machine M { initial state s { on a [h] -> s; on a [g] -> t; } state t { on b -> s; } }";
        assert_ne!(fingerprint(a), fingerprint(b));
    }
}
