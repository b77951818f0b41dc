//! Lowering: the syntax tree into the semantic model. Resolves names, and
//! reports the problems found while doing so: duplicate machines and states,
//! unknown targets, initial-state problems, transitions in terminal states,
//! and undeclared or duplicated declarations.

use crate::ast::visit::{self, Visit};
use crate::ast::{self, DeclKind, EventlessKind, GuardAst, HookKind, ModifierKind};
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::model::*;
use crate::span::Span;
use crate::suggest;
use std::collections::HashMap;

/// Lower every machine of `file`.
pub fn lower(file: &ast::File, diagnostics: &mut Vec<Diagnostic>) -> Model {
    let mut seen: HashMap<&str, Span> = HashMap::new();
    let mut machines = Vec::new();
    // "Did you mean" searches compare a name with every candidate: one
    // budget bounds them over the whole file, however many typos it holds.
    let mut suggestions = suggest::Budget::per_file();
    for m in &file.machines {
        if let Some(first) = seen.get(m.name.name.as_str()) {
            diagnostics.push(
                Diagnostic::new(
                    Code::DuplicateMachine,
                    m.name.span,
                    format!("machine `{}` is defined more than once", m.name.name),
                    "defined again here",
                    "rename one of the machines; every machine in a file needs its own name",
                )
                .with_label(*first, "first defined here"),
            );
        } else {
            seen.insert(&m.name.name, m.name.span);
        }
        // Warnings found while lowering obey the machine's `#[allow(...)]`.
        let mut local = Vec::new();
        let lowered = Lowerer::new(&mut local, &mut suggestions).machine(m);
        let allows = lowered.as_ref().map(|m| m.allows.as_slice()).unwrap_or_default();
        diagnostics.extend(
            local
                .into_iter()
                .filter(|d| d.is_error() || !allows.contains(&d.code)),
        );
        machines.extend(lowered);
    }
    Model { machines }
}

/// Interns action, guard or output names in order.
#[derive(Default)]
struct Symbols {
    list: Vec<Symbol>,
    index: HashMap<String, usize>,
}

impl Symbols {
    fn declare(
        &mut self,
        ident: &ast::Ident,
        docs: &[String],
        payload: Option<RustType>,
    ) -> Result<(), Span> {
        if let Some(&i) = self.index.get(&ident.name) {
            return Err(self.list[i].declared.unwrap_or_default());
        }
        self.index.insert(ident.name.clone(), self.list.len());
        self.list.push(Symbol {
            name: ident.name.clone(),
            payload,
            docs: docs.to_vec(),
            declared: Some(ident.span),
            uses: Vec::new(),
        });
        Ok(())
    }

    fn use_(&mut self, ident: &ast::Ident) -> usize {
        let i = *self.index.entry(ident.name.clone()).or_insert_with(|| {
            self.list.push(Symbol {
                name: ident.name.clone(),
                payload: None,
                docs: Vec::new(),
                declared: None,
                uses: Vec::new(),
            });
            self.list.len() - 1
        });
        self.list[i].uses.push(ident.span);
        i
    }
}

struct Lowerer<'d> {
    diagnostics: &'d mut Vec<Diagnostic>,
    /// A transition was dropped and there is no telling where it went.
    incomplete: bool,
    /// What the file's "did you mean" searches may still spend.
    suggestions: &'d mut suggest::Budget,
    /// Where dropped transitions probably went: a misspelled target's
    /// suggestion, a duplicate state's edges.
    guessed_edges: Vec<(Source, StateId)>,
    /// The span of every `in(...)` lowered, for `Machine::in_spans`.
    in_calls: Vec<Span>,
    /// Per state, whether it holds states (for `history-of-leaf`).
    composite: Vec<bool>,
    actions: Symbols,
    guards: Symbols,
    outputs: Symbols,
    effects: Symbols,
    delays: Symbols,
}

impl<'d> Lowerer<'d> {
    fn new(diagnostics: &'d mut Vec<Diagnostic>, suggestions: &'d mut suggest::Budget) -> Self {
        Lowerer {
            diagnostics,
            incomplete: false,
            suggestions,
            guessed_edges: Vec::new(),
            in_calls: Vec::new(),
            composite: Vec::new(),
            actions: Symbols::default(),
            guards: Symbols::default(),
            outputs: Symbols::default(),
            effects: Symbols::default(),
            delays: Symbols::default(),
        }
    }

    fn allows(&mut self, attrs: &[ast::Attr]) -> Vec<Code> {
        let mut out = Vec::new();
        for code in attrs.iter().flat_map(|a| &a.codes) {
            match Code::from_name(&code.name) {
                Some(c) if c.default_severity() == Severity::Warning => out.push(c),
                Some(c) => self.diagnostics.push(Diagnostic::new(
                    Code::InvalidAllow,
                    code.span,
                    format!("`{}` is an error and cannot be allowed", c.name()),
                    "errors cannot be allowed",
                    "fix the error instead; `#[allow(...)]` only silences warnings",
                )),
                None => {
                    let names = Code::ALL.iter().map(|c| c.name());
                    let meant = suggest::closest_within(&code.name, names, self.suggestions);
                    let help = match meant {
                        Some(meant) => format!("did you mean `{meant}`?"),
                        None => "`fsmc explain` lists the codes".into(),
                    };
                    let diagnostic = Diagnostic::new(
                        Code::InvalidAllow,
                        code.span,
                        format!("`{}` is not a diagnostic code", code.name),
                        "unknown code",
                        help,
                    );
                    self.diagnostics.push(match meant {
                        Some(meant) => diagnostic.with_suggestion(meant),
                        None => diagnostic,
                    })
                }
            }
        }
        out
    }

    fn machine(mut self, m: &ast::MachineAst) -> Option<Machine> {
        let allows = self.allows(&m.attrs);

        // Declarations first, so declared names come first in every list.
        let mut decls = Declarations {
            lowerer: &mut self,
            machine: &m.name.name,
            declares: [false; 5],
            context: None,
        };
        decls.visit_machine(m);
        let Declarations {
            declares, context, ..
        } = decls;

        // States, in declaration order (a parent before its children), with
        // the index of their parent in this list. The walk recurses once per
        // level of states, which the parser bounds (`MAX_STATE_DEPTH`).
        let mut list = StateList::default();
        list.visit_machine(m);
        let state_asts = list.list;
        // The state each entry of `state_asts` became: its own, or the first
        // definition of its name for a duplicate.
        let mut lowered_as: Vec<StateId> = Vec::with_capacity(state_asts.len());
        let mut states: Vec<State> = Vec::with_capacity(state_asts.len());
        let mut bodies: Vec<&ast::StateAst> = Vec::with_capacity(state_asts.len());
        let mut by_name: HashMap<&str, StateId> = HashMap::new();
        let mut initial: Option<(StateId, Span)> = None;
        let mut duplicates: Vec<(StateId, &ast::StateAst)> = Vec::new();
        debug_assert!(lowered_as.is_empty());
        for &(s, parent) in &state_asts {
            let parent = parent.map(|p| lowered_as[p]);
            if let Some(&first) = by_name.get(s.name.name.as_str()) {
                lowered_as.push(first);
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::DuplicateState,
                        s.name.span,
                        format!(
                            "state `{}` is defined more than once in machine `{}`",
                            s.name.name, m.name.name
                        ),
                        "defined again here",
                        "rename one of the states, or merge their transitions into one",
                    )
                    .with_label(states[first.index()].span, "first defined here"),
                );
                duplicates.push((first, s));
                continue;
            }
            let id = StateId::from_index(states.len());
            let depth = parent.map_or(1, |p| states[p.index()].depth + 1);
            if depth as usize > crate::limits::MAX_STATE_DEPTH {
                // A state without a body one level too deep: the parser's
                // scan only sees the braces of bodies.
                self.diagnostics
                    .push(crate::limits::too_deep(s.name.span, &s.name.name));
            }
            lowered_as.push(id);
            by_name.insert(&s.name.name, id);
            let allows = self.allows(&s.attrs);
            let init = s.modifier(ModifierKind::Initial);
            if let (Some(kw), None) = (init, parent) {
                match initial {
                    None => initial = Some((id, kw.span)),
                    Some((first, first_kw)) => self.diagnostics.push(
                        Diagnostic::new(
                            Code::MultipleInitial,
                            kw.span,
                            format!(
                                "machine `{}` has more than one initial state: `{}` and `{}`",
                                m.name.name,
                                states[first.index()].name,
                                s.name.name
                            ),
                            "second initial state",
                            "a machine starts in exactly one state; remove `initial` from all but one",
                        )
                        .with_label(first_kw, "first initial state"),
                    ),
                }
            }
            states.push(State {
                name: s.name.name.clone(),
                span: s.name.span,
                docs: s.docs.clone(),
                initial: init.is_some(),
                terminal: s.modifier(ModifierKind::Terminal).map(|k| k.span),
                kind: match (
                    s.modifier(ModifierKind::Parallel),
                    s.modifier(ModifierKind::Final),
                ) {
                    (Some(_), _) => StateKind::Parallel,
                    (None, Some(_)) => StateKind::Final,
                    (None, None) => StateKind::Plain,
                },
                enter: Vec::new(),
                exit: Vec::new(),
                enter_effects: Vec::new(),
                exit_effects: Vec::new(),
                allows,
                parent,
                children: Vec::new(),
                depth,
            });
            if let Some(p) = parent {
                states[p.index()].children.push(id);
            }
            bodies.push(s);
        }
        self.composites(&m.name.name, &states, &bodies);
        self.finals(&states, &bodies);
        self.composite = states.iter().map(|s| !s.children.is_empty()).collect();
        if states.is_empty() {
            self.diagnostics.push(Diagnostic::new(
                Code::MissingInitial,
                m.name.span,
                format!("machine `{}` has no states", m.name.name),
                "no states",
                "add at least one state and mark it `initial`: `initial state idle;`",
            ));
            return None;
        }
        let initial = match initial {
            Some((id, _)) => id,
            None => {
                self.diagnostics.push(Diagnostic::new(
                    Code::MissingInitial,
                    m.name.span,
                    format!("machine `{}` has no initial state", m.name.name),
                    "no state is marked `initial`",
                    format!(
                        "mark the state the machine starts in as initial, e.g. `initial state {}`",
                        states[0].name
                    ),
                ));
                StateId(0)
            }
        };

        // Bodies: hooks and transitions.
        let state_names: Vec<&str> = bodies.iter().map(|s| s.name.name.as_str()).collect();
        debug_assert!(state_names.iter().zip(&states).all(|(a, b)| *a == b.name));
        // Each state's own body in the order of the list, then the
        // duplicates', then the `any` blocks': the order in which names are
        // interned and problems reported, so not one walk in source order.
        let mut count = OnTransitions(0);
        for s in &bodies {
            visit::walk_state(&mut count, s);
        }
        let mut lowered = Lowered {
            transitions: Vec::with_capacity(count.0),
            timers: Vec::new(),
            eventless: Vec::new(),
            own: vec![Vec::new(); states.len()],
            any: Vec::new(),
        };
        let mut body = Body {
            lowerer: &mut self,
            by_name: &by_name,
            state_names: &state_names,
            states: &mut states,
            lowered: &mut lowered,
            owner: Owner::Any,
        };
        for (i, s) in bodies.iter().enumerate() {
            body.owner = Owner::State(StateId::from_index(i));
            visit::walk_state(&mut body, s);
        }
        for &(first, s) in &duplicates {
            body.owner = Owner::Duplicate(first);
            visit::walk_state(&mut body, s);
        }
        body.owner = Owner::Any;
        body.visit_machine(m);
        let Lowered {
            transitions,
            timers,
            eventless,
            own,
            any,
        } = lowered;

        let properties = self.properties(m, &by_name, &state_names);
        self.undeclared(declares);
        if context.is_none() {
            self.missing_context();
        }
        let machine = Machine {
            name: m.name.name.clone(),
            span: m.name.span,
            docs: m.docs.clone(),
            allows,
            states,
            actions: self.actions.list,
            guards: self.guards.list,
            outputs: self.outputs.list,
            context,
            effects: self.effects.list,
            delays: self.delays.list,
            timers,
            eventless,
            initial,
            transitions,
            properties,
            declares_actions: declares[DeclKind::Action as usize],
            declares_guards: declares[DeclKind::Guard as usize],
            declares_outputs: declares[DeclKind::Output as usize],
            declares_effects: declares[DeclKind::Effect as usize],
            declares_delays: declares[DeclKind::Delay as usize],
            own,
            any,
            incomplete: self.incomplete,
            guessed_edges: self.guessed_edges,
            in_calls: {
                let mut calls = self.in_calls;
                calls.sort_unstable_by_key(|s| (s.start, s.end));
                calls.dedup();
                calls
            },
        };
        Some(machine)
    }

    fn effects(&mut self, list: &[ast::Ident]) -> Vec<EffectId> {
        list.iter()
            .map(|e| EffectId::from_index(self.effects.use_(e)))
            .collect()
    }

    /// A guard or effect declared with a payload type may only be used where
    /// that payload is carried: on an action with the same payload type.
    fn check_payloads(&mut self, carrier: &Carrier<'_>, guard: Option<&GuardAst>, effects: &[ast::Ident]) {
        let names = guard.map(GuardAst::names).unwrap_or_default();
        let uses = names
            .into_iter()
            .map(|i| ("guard", &self.guards, i))
            .chain(effects.iter().map(|i| ("effect", &self.effects, i)));
        let mut found = Vec::new();
        for (kind, table, ident) in uses {
            let Some(payload) = table
                .index
                .get(&ident.name)
                .and_then(|&i| table.list[i].payload.as_ref())
            else {
                continue;
            };
            let carries = match carrier {
                Carrier::Action(_, Some(p)) if *p == payload.text => continue,
                Carrier::Action(action, Some(p)) => format!("action `{action}` carries `{p}`"),
                Carrier::Action(action, None) => format!("action `{action}` carries no payload"),
                Carrier::Timer => "timers carry no payload".to_string(),
                Carrier::Eventless(kind) => format!("`{}` transitions carry no payload", kind.keyword()),
                Carrier::Hook(HookKind::Enter) => "`enter` hooks carry no payload".to_string(),
                Carrier::Hook(HookKind::Exit) => "`exit` hooks carry no payload".to_string(),
            };
            found.push(
                Diagnostic::new(
                    Code::PayloadMismatch,
                    ident.span,
                    format!("{kind} `{}` reads a `{}` payload, but {carries}", ident.name, payload.text),
                    format!("needs a `{}` payload", payload.text),
                    format!(
                        "use `{}` only on actions declared with `({})`, or declare {} {kind} without a payload",
                        ident.name,
                        payload.text,
                        if kind == "effect" { "an" } else { "a" }
                    ),
                )
                .with_label(payload.span, "payload type declared here"),
            );
        }
        self.diagnostics.extend(found);
    }

    /// Effects and delays need a context to act on.
    fn missing_context(&mut self) {
        for (kind, table) in [("effect", &self.effects), ("delay", &self.delays)] {
            for sym in &table.list {
                self.diagnostics.push(Diagnostic::new(
                    Code::MissingContext,
                    sym.span(),
                    format!("{kind} `{}` needs a context, and this machine has none", sym.name),
                    format!("{kind} without a context"),
                    format!(
                        "declare the Rust type the machine owns, e.g. `context MyContext;`; the {kind} is one of its methods"
                    ),
                ));
            }
        }
    }

    /// An `after` transition (`t`, whose delay is `delay`) of `state`.
    fn timer(
        &mut self,
        t: &ast::TransitionAst,
        delay: &ast::DelayAst,
        state: StateId,
        by_name: &HashMap<&str, StateId>,
        state_names: &[&str],
    ) -> Option<Transition> {
        let delay_span = delay.ident().span;
        let delay = match delay {
            ast::DelayAst::Name(name) => Some(Delay::Named(DelayId::from_index(self.delays.use_(name)))),
            ast::DelayAst::Literal(lit) => match crate::duration::parse(&lit.name) {
                Ok(d) => Some(Delay::Literal(d)),
                Err(problem) => {
                    self.diagnostics.push(Diagnostic::new(
                        Code::InvalidDuration,
                        lit.span,
                        format!("`{}` is not a valid timer duration: {problem}", lit.name),
                        problem,
                        "a duration is a whole number and a unit (`ms`, `s`, `m`, `h`), from 1ms to a week (`168h`)",
                    ));
                    None
                }
            },
        };
        let trigger = delay.map(|d| (Trigger::After(d), delay_span));
        let source = Source::State(state);
        self.lowered(t, trigger, source, Carrier::Timer, by_name, state_names)
    }

    /// A `done` or `always` transition (`t`, of `kind`, its keyword at
    /// `keyword`) of `state`.
    fn eventless(
        &mut self,
        t: &ast::TransitionAst,
        kind: EventlessKind,
        keyword: Span,
        state: StateId,
        by_name: &HashMap<&str, StateId>,
        state_names: &[&str],
    ) -> Option<Transition> {
        let trigger = Some((Trigger::Eventless(kind), keyword));
        let source = Source::State(state);
        self.lowered(t, trigger, source, Carrier::Eventless(kind), by_name, state_names)
    }

    /// An `on` transition (`t`, on `action`) of `source`.
    fn transition(
        &mut self,
        t: &ast::TransitionAst,
        action: &ast::Ident,
        source: Source,
        by_name: &HashMap<&str, StateId>,
        state_names: &[&str],
    ) -> Option<Transition> {
        let id = ActionId::from_index(self.actions.use_(action));
        let carried = self.actions.list[id.index()]
            .payload
            .as_ref()
            .map(|p| p.text.clone());
        let carrier = Carrier::Action(&action.name, carried.as_deref());
        self.lowered(
            t,
            Some((Trigger::On(id), action.span)),
            source,
            carrier,
            by_name,
            state_names,
        )
    }

    /// What every kind of transition shares, after its trigger (and its
    /// span): `None` for a trigger that could not be lowered (an invalid
    /// duration), of which only the edge is kept, for the graph checks.
    /// `carrier` tells the kind apart for diagnostics.
    fn lowered(
        &mut self,
        t: &ast::TransitionAst,
        trigger: Option<(Trigger, Span)>,
        source: Source,
        carrier: Carrier<'_>,
        by_name: &HashMap<&str, StateId>,
        state_names: &[&str],
    ) -> Option<Transition> {
        if let Some(g) = &t.guard {
            self.reserved_guard_names(g);
        }
        let guard = t.guard.as_ref().map(|g| Guard {
            expr: self.guard(g, by_name, state_names),
            span: g.span(),
        });
        let effects = self.effects(&t.effects);
        self.check_payloads(&carrier, t.guard.as_ref(), &t.effects);
        let emits = t
            .emits
            .iter()
            .map(|o| OutputId::from_index(self.outputs.use_(o)))
            .collect();
        let target = match &t.target {
            None => None,
            Some(ident) => {
                let what = match carrier {
                    Carrier::Action(action, _) => format!("transition on `{action}`"),
                    Carrier::Timer => "timer".to_string(),
                    Carrier::Eventless(kind) => format!("`{}` transition", kind.keyword()),
                    Carrier::Hook(_) => unreachable!("a hook is no transition"),
                };
                Some(self.resolve_target(ident, &what, source, by_name, state_names)?)
            }
        };
        let history = self.history(t.target.as_ref(), target, t.history);
        let Some((trigger, trigger_span)) = trigger else {
            // The graph checks still see where it went.
            if let Some(to) = target {
                self.guessed_edges.push((source, to));
            }
            return None;
        };
        Some(Transition {
            trigger,
            trigger_span,
            source,
            guard,
            priority: t.priority.map_or(0, |p| p.value),
            target,
            history,
            effects,
            emits,
            span: t.span,
            docs: t.docs.clone(),
        })
    }

    /// The history a target enters, if written; `history-of-leaf` (and no
    /// history) when the target holds no states.
    fn history(
        &mut self,
        ident: Option<&ast::Ident>,
        target: Option<StateId>,
        history: Option<ast::HistoryAst>,
    ) -> Option<HistoryKind> {
        let (ident, target, history) = (ident?, target?, history?);
        if self.composite.get(target.index()).copied().unwrap_or(false) {
            return Some(history.kind);
        }
        self.diagnostics.push(Diagnostic::new(
            Code::HistoryOfLeaf,
            ident.span.to(history.span),
            format!(
                "`{}.{}` names the history of `{}`, which holds no states",
                ident.name,
                history.kind.keyword(),
                ident.name
            ),
            "no history: not a composite state",
            format!(
                "only a state with states inside has a history; target `{}` itself",
                ident.name
            ),
        ));
        None
    }

    /// What `final` allows: a leaf below the top level, without
    /// transitions or timers of its own, neither `terminal` nor `parallel`.
    fn finals(&mut self, states: &[State], bodies: &[&ast::StateAst]) {
        for (state, ast) in states.iter().zip(bodies) {
            let Some(kw) = ast.modifier(ModifierKind::Final) else {
                continue;
            };
            if state.parent.is_none() {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::FinalAtTopLevel,
                        kw.span,
                        format!("top-level state `{}` is marked `final`", state.name),
                        "`final` completes the state holding it, and none does",
                        format!(
                            "did you mean `terminal`? A machine ends in a terminal state: `terminal state {}`",
                            state.name
                        ),
                    )
                    .with_suggestion("terminal"),
                );
                continue;
            }
            let conflict = [
                (ModifierKind::Terminal, "terminal", "a terminal state ends the machine, and a final one completes the state holding it: keep one"),
                (ModifierKind::Parallel, "parallel", "a final state is a leaf: remove `parallel`, or `final`"),
            ];
            for (kind, word, help) in conflict {
                if let Some(other) = ast.modifier(kind) {
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::FinalHasTransitions,
                            other.span,
                            format!("final state `{}` is also `{word}`", state.name),
                            format!("`{word}` and `final` together"),
                            help,
                        )
                        .with_label(kw.span, "marked final here"),
                    );
                }
            }
            let mut inside = InFinal {
                diagnostics: self.diagnostics,
                state: &state.name,
                keyword: kw.span,
            };
            visit::walk_state(&mut inside, ast);
        }
    }

    /// Per composite state: exactly one `initial` child (reported on the
    /// composite's name), or none in a parallel state, and no `terminal`.
    fn composites(&mut self, machine: &str, states: &[State], bodies: &[&ast::StateAst]) {
        for (index, (state, ast)) in states.iter().zip(bodies).enumerate() {
            if let (Some(kw), true, None) = (
                ast.modifier(ModifierKind::Terminal),
                state.children.is_empty(),
                ast.modifier(ModifierKind::Parallel),
            ) {
                // A leaf inside a region: the innermost parallel state
                // holding it, and the region on the way.
                let (mut region, mut at) = (index, state.parent);
                while let Some(parent) = at {
                    if states[parent.index()].is_parallel() {
                        let (parallel, region) = (&states[parent.index()], &states[region]);
                        self.diagnostics.push(
                            Diagnostic::new(
                                Code::CompositeTerminal,
                                kw.span,
                                format!(
                                    "state `{}` in region `{}` of parallel state `{}` cannot be terminal",
                                    state.name, region.name, parallel.name
                                ),
                                "the other regions are still active here",
                                format!(
                                    "did you mean `final`? A final state completes region `{}`: `final state {}`",
                                    region.name, state.name
                                ),
                            )
                            .with_label(parallel.span, "parallel state")
                            .with_suggestion("final"),
                        );
                        break;
                    }
                    region = parent.index();
                    at = states[parent.index()].parent;
                }
            }
            if let (Some(parallel), Some(kw), true) = (
                ast.modifier(ModifierKind::Parallel),
                ast.modifier(ModifierKind::Terminal),
                state.children.is_empty(),
            ) {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::CompositeTerminal,
                        kw.span,
                        format!("parallel state `{}` cannot be terminal", state.name),
                        "a parallel state is never where the machine ends",
                        format!("remove `terminal` from `{}`", state.name),
                    )
                    .with_label(parallel.span, "parallel"),
                );
            }
            let Some(&first) = state.children.first() else {
                continue;
            };
            if let Some(parallel) = ast.modifier(ModifierKind::Parallel) {
                for &child in &state.children {
                    let Some(init) = bodies[child.index()].modifier(ModifierKind::Initial) else {
                        continue;
                    };
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::InitialInParallel,
                            init.span,
                            format!(
                                "region `{}` of parallel state `{}` is marked `initial`",
                                states[child.index()].name,
                                state.name
                            ),
                            "every region is entered",
                            format!(
                                "entering `{}` enters every one of its regions, each through its own initial state: remove `initial`",
                                state.name
                            ),
                        )
                        .with_label(parallel.span, "parallel"),
                    );
                }
            }
            if let Some(kw) = ast.modifier(ModifierKind::Terminal) {
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::CompositeTerminal,
                        kw.span,
                        if state.is_parallel() {
                            format!("parallel state `{}` cannot be terminal", state.name)
                        } else {
                            format!("state `{}` holds states, so it cannot be terminal", state.name)
                        },
                        if state.is_parallel() {
                            "a parallel state is never where the machine ends"
                        } else {
                            "a composite state is never where the machine ends"
                        },
                        if state.is_parallel() {
                            format!(
                                "remove `terminal` from `{0}`; to end the machine when every region is done, mark the states the regions end in `final` and leave `{0}` with `done -> ...;` for a terminal state",
                                state.name
                            )
                        } else {
                            format!(
                                "remove `terminal` from `{}`, and mark the child the machine ends in as `terminal` instead",
                                state.name
                            )
                        },
                    )
                    .with_label(
                        state.span,
                        if state.is_parallel() { "holds regions" } else { "holds states" },
                    ),
                );
            }
            if state.is_parallel() {
                continue;
            }
            let initials: Vec<(StateId, Span)> = state
                .children
                .iter()
                .filter_map(|&c| Some((c, bodies[c.index()].modifier(ModifierKind::Initial)?.span)))
                .collect();
            match initials.as_slice() {
                [] => self.diagnostics.push(Diagnostic::new(
                    Code::MissingInitial,
                    state.span,
                    format!(
                        "composite state `{}` in machine `{machine}` has no initial state",
                        state.name
                    ),
                    "none of its states is marked `initial`",
                    format!(
                        "mark the state entering `{}` starts in, e.g. `initial state {}`",
                        state.name,
                        states[first.index()].name
                    ),
                )),
                [_] => {}
                [(a, first_kw), rest @ ..] => {
                    let names: Vec<String> = std::iter::once(a)
                        .chain(rest.iter().map(|(c, _)| c))
                        .map(|c| format!("`{}`", states[c.index()].name))
                        .collect();
                    let mut d = Diagnostic::new(
                        Code::MultipleInitial,
                        state.span,
                        format!(
                            "composite state `{}` has more than one initial state: {}",
                            state.name,
                            names.join(" and ")
                        ),
                        "more than one initial state inside",
                        "entering a composite state enters exactly one of its states; remove `initial` from all but one",
                    )
                    .with_label(*first_kw, "first initial state");
                    for (_, kw) in rest {
                        d = d.with_label(*kw, "another initial state");
                    }
                    self.diagnostics.push(d);
                }
            }
        }
    }

    /// The state a transition or timer targets; `None` (reported) when
    /// there is no such state.
    fn resolve_target(
        &mut self,
        ident: &ast::Ident,
        what: &str,
        source: Source,
        by_name: &HashMap<&str, StateId>,
        state_names: &[&str],
    ) -> Option<StateId> {
        if let Some(&id) = by_name.get(ident.name.as_str()) {
            return Some(id);
        }
        let meant = suggest::closest_within(&ident.name, state_names.iter().copied(), self.suggestions);
        let diagnostic = Diagnostic::new(
            Code::UnknownState,
            ident.span,
            format!("{what} targets unknown state `{}`", ident.name),
            "no state with this name",
            match meant {
                Some(meant) => format!("did you mean `{meant}`?"),
                None => format!(
                    "define it with `state {};` or target an existing state",
                    ident.name
                ),
            },
        );
        self.diagnostics.push(match meant {
            Some(meant) => diagnostic.with_suggestion(meant),
            None => diagnostic,
        });
        // The graph checks assume the suggested state was meant;
        // with no plausible match they cannot know, and stay silent.
        match meant {
            Some(meant) => self.guessed_edges.push((source, by_name[meant])),
            None => self.incomplete = true,
        }
        None
    }

    /// `true` and `false` are not guards: a guard of its own, `[true]` or
    /// `[false]`, says nothing a transition cannot say without it, and one
    /// inside an expression can be simplified away.
    fn reserved_guard_names(&mut self, g: &GuardAst) {
        let mut whole = g;
        while let GuardAst::Paren(_, inner) = whole {
            whole = inner;
        }
        for ident in g.names() {
            if !is_reserved_guard_name(&ident.name) {
                continue;
            }
            let alone = matches!(whole, GuardAst::Name(i) if std::ptr::eq(i, ident));
            let help = match (alone, ident.name.as_str()) {
                (true, "true") => "a transition without a guard always applies: remove the guard".to_string(),
                (true, _) => "a transition that can never fire does nothing: remove it, or comment it out".to_string(),
                (false, word) => format!(
                    "guards are names the program evaluates, and there are no constants: simplify the expression without `{word}`"
                ),
            };
            self.diagnostics.push(Diagnostic::new(
                Code::ReservedName,
                ident.span,
                format!("`{}` is not a guard", ident.name),
                "reserved in guard expressions",
                help,
            ));
        }
    }

    /// A guard expression; an `in(...)` of an unknown state is reported and
    /// read as never holding (the machine is not generated).
    fn guard(&mut self, g: &GuardAst, by_name: &HashMap<&str, StateId>, state_names: &[&str]) -> GuardExpr {
        let sub = |this: &mut Self, e: &GuardAst| this.guard(e, by_name, state_names);
        match g {
            GuardAst::Name(i) => GuardExpr::Var(GuardId::from_index(self.guards.use_(i))),
            GuardAst::In(span, state) => {
                self.in_calls.push(*span);
                match by_name.get(state.name.as_str()) {
                    Some(&id) => GuardExpr::In(id),
                    None => {
                        self.unknown_in_state(state, state_names);
                        GuardExpr::Not(Box::new(GuardExpr::In(StateId(0))))
                    }
                }
            }
            GuardAst::Paren(_, e) => sub(self, e),
            GuardAst::Not(_, e) => GuardExpr::Not(Box::new(sub(self, e))),
            GuardAst::And(_, a, b) => {
                let (a, b) = (sub(self, a), sub(self, b));
                chain(true, a, b)
            }
            GuardAst::Or(_, a, b) => {
                let (a, b) = (sub(self, a), sub(self, b));
                chain(false, a, b)
            }
        }
    }

    /// The machine's properties, their states resolved. One that names a
    /// state the machine lacks is reported (`unknown-state`) and left out:
    /// the file has an error, so nothing is verified. Two with one name are
    /// `duplicate-property`.
    fn properties(
        &mut self,
        m: &ast::MachineAst,
        by_name: &HashMap<&str, StateId>,
        state_names: &[&str],
    ) -> Vec<Property> {
        let mut properties = Vec::new();
        let mut named: HashMap<&str, Span> = HashMap::new();
        for item in &m.items {
            let ast::MachineItem::Property(p) = item else {
                continue;
            };
            if let Some(name) = &p.name {
                if let Some(&first) = named.get(name.name.as_str()) {
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::DuplicateProperty,
                            name.span,
                            format!(
                                "property `{}` is defined more than once in machine `{}`",
                                name.name, m.name.name
                            ),
                            "defined again here",
                            "rename one of the properties: `fsmc verify` reports each by its name",
                        )
                        .with_label(first, "first defined here"),
                    );
                } else {
                    named.insert(&name.name, name.span);
                }
            }
            let formula = self.formula(&p.formula, by_name, state_names);
            let leads_to = p
                .leads_to
                .as_ref()
                .map(|l| self.leads_to(l, by_name, state_names));
            let leads_to = match leads_to {
                None => Some(None),
                Some(lowered) => lowered.map(Some),
            };
            if let (Some(formula), Some(leads_to)) = (formula, leads_to) {
                properties.push(Property {
                    kind: p.kind,
                    name: p.name.as_ref().map(|n| n.name.clone()),
                    name_span: p.name.as_ref().map(|n| n.span),
                    formula,
                    formula_span: p.formula.span(),
                    span: p.span,
                    docs: p.docs.clone(),
                    leads_to,
                });
            }
        }
        properties
    }

    /// `leads to G assuming a, b`: `G` and the actions, each unknown state
    /// and action reported; `None` when there was one. An action named
    /// twice is kept once.
    fn leads_to(
        &mut self,
        l: &ast::LeadsToAst,
        by_name: &HashMap<&str, StateId>,
        state_names: &[&str],
    ) -> Option<LeadsTo> {
        let formula = self.formula(&l.formula, by_name, state_names);
        let mut assuming: Vec<(ActionId, Span)> = Vec::new();
        let mut known = true;
        for name in &l.assuming {
            match self.actions.index.get(&name.name) {
                Some(&i) => {
                    let id = ActionId::from_index(i);
                    if !assuming.iter().any(|&(a, _)| a == id) {
                        assuming.push((id, name.span));
                    }
                }
                None => {
                    known = false;
                    let names: Vec<&str> = self.actions.list.iter().map(|s| s.name.as_str()).collect();
                    let meant = suggest::closest_within(&name.name, names.iter().copied(), self.suggestions);
                    self.diagnostics.push(Diagnostic::new(
                        Code::UndeclaredAction,
                        name.span,
                        format!("`assuming {}` names no action of this machine", name.name),
                        "no action with this name",
                        match meant {
                            Some(meant) => format!("did you mean `{meant}`?"),
                            None => "`assuming` names actions the machine takes with `on`".to_string(),
                        },
                    ));
                }
            }
        }
        Some(LeadsTo {
            formula: formula?,
            formula_span: l.formula.span(),
            assuming: known.then_some(assuming)?,
        })
    }

    /// A property's formula, every unknown state in it reported; `None` when
    /// there was one. Chains of one operator nest to the left, as guards'
    /// do, so the formula's text reads back to the same tree.
    fn formula(
        &mut self,
        f: &ast::FormulaAst,
        by_name: &HashMap<&str, StateId>,
        state_names: &[&str],
    ) -> Option<Formula> {
        use ast::FormulaAst as F;
        let sub = |this: &mut Self, e: &F| this.formula(e, by_name, state_names);
        Some(match f {
            F::In(_, state) => match by_name.get(state.name.as_str()) {
                Some(&id) => Formula::In(id),
                None => {
                    let d = self.unknown_in_state_diagnostic(state, state_names);
                    self.diagnostics.push(d);
                    return None;
                }
            },
            F::Terminal(_) => Formula::Terminal,
            F::Paren(_, e) => sub(self, e)?,
            F::Not(_, e) => Formula::Not(Box::new(sub(self, e)?)),
            F::And(_, a, b) | F::Or(_, a, b) => {
                let (a, b) = (sub(self, a), sub(self, b));
                chain(matches!(f, F::And(..)), a?, b?)
            }
        })
    }

    /// `unknown-state` for `in(S)` of a state that does not exist. The
    /// guard then reads as never holding; the machine is not generated, and
    /// the checks that would reason about it stay silent.
    fn unknown_in_state(&mut self, state: &ast::Ident, state_names: &[&str]) {
        self.incomplete = true;
        let diagnostic = self.unknown_in_state_diagnostic(state, state_names);
        self.diagnostics.push(diagnostic);
    }

    /// The `unknown-state` diagnostic of `in(S)` (in a guard or a property).
    fn unknown_in_state_diagnostic(&mut self, state: &ast::Ident, state_names: &[&str]) -> Diagnostic {
        let meant = suggest::closest_within(&state.name, state_names.iter().copied(), self.suggestions);
        let diagnostic = Diagnostic::new(
            Code::UnknownState,
            state.span,
            format!("`in({})` tests unknown state `{}`", state.name, state.name),
            "no state with this name",
            match meant {
                Some(meant) => format!("did you mean `{meant}`?"),
                None => "`in(...)` takes the name of a state of this machine".to_string(),
            },
        );
        match meant {
            Some(meant) => diagnostic.with_suggestion(meant),
            None => diagnostic,
        }
    }

    /// In a machine that declares names of a kind, every use of an undeclared
    /// name of that kind is an error.
    fn undeclared(&mut self, declares: [bool; 5]) {
        let kinds = [
            (DeclKind::Action, Code::UndeclaredAction, &self.actions),
            (DeclKind::Guard, Code::UndeclaredGuard, &self.guards),
            (DeclKind::Output, Code::UndeclaredOutput, &self.outputs),
            (DeclKind::Effect, Code::UndeclaredEffect, &self.effects),
            (DeclKind::Delay, Code::UndeclaredDelay, &self.delays),
        ];
        for (kind, code, table) in kinds {
            if !declares[kind as usize] {
                continue;
            }
            let declared = || {
                table
                    .list
                    .iter()
                    .filter(|s| s.declared.is_some())
                    .map(|s| s.name.as_str())
            };
            // `true` and `false` are reported as reserved, not as undeclared:
            // declaring them is no fix.
            let undeclared = table
                .list
                .iter()
                .filter(|s| s.declared.is_none())
                .filter(|s| kind != DeclKind::Guard || !is_reserved_guard_name(&s.name));
            for sym in undeclared {
                let meant = suggest::closest_within(&sym.name, declared(), self.suggestions);
                let help = match meant {
                    Some(meant) => format!("did you mean `{meant}`?"),
                    None => format!(
                        "this machine declares its {}s, so add `{} {};`",
                        kind.keyword(),
                        kind.keyword(),
                        sym.name
                    ),
                };
                for &span in &sym.uses {
                    let diagnostic = Diagnostic::new(
                        code,
                        span,
                        format!("{} `{}` is not declared", kind.keyword(), sym.name),
                        format!("undeclared {}", kind.keyword()),
                        help.clone(),
                    );
                    self.diagnostics.push(match meant {
                        Some(meant) => diagnostic.with_suggestion(meant),
                        None => diagnostic,
                    });
                }
            }
        }
    }
}

/// The walk over a machine's declarations (`context T;`, `action a;`, ...),
/// in source order, into the lowerer's symbol tables.
struct Declarations<'l, 'd> {
    lowerer: &'l mut Lowerer<'d>,
    /// The machine's name.
    machine: &'l str,
    /// Per [`DeclKind`], whether the machine declares names of that kind.
    declares: [bool; 5],
    /// The first `context` declared.
    context: Option<RustType>,
}

impl<'a> Visit<'a> for Declarations<'_, '_> {
    fn visit_context(&mut self, c: &'a ast::ContextAst) {
        match &self.context {
            None => {
                self.context = Some(RustType {
                    text: c.ty.text.clone(),
                    span: c.ty.span,
                })
            }
            Some(first) => self.lowerer.diagnostics.push(
                Diagnostic::new(
                    Code::DuplicateDeclaration,
                    c.keyword,
                    format!("machine `{}` declares its context more than once", self.machine),
                    "declared again here",
                    "a machine owns one context; remove this declaration",
                )
                .with_label(first.span, "first declared here"),
            ),
        }
    }

    fn visit_decl(&mut self, d: &'a ast::DeclAst) {
        let lowerer = &mut *self.lowerer;
        self.declares[d.kind as usize] = true;
        for (name, payload) in d.names.iter().zip(&d.payloads) {
            if d.kind == DeclKind::Guard && is_reserved_guard_name(&name.name) {
                lowerer.diagnostics.push(Diagnostic::new(
                    Code::ReservedName,
                    name.span,
                    format!("`{}` cannot be the name of a guard", name.name),
                    "reserved in guard expressions",
                    "`true` and `false` are reserved so that `[true]` cannot look like a constant; give the guard a name that says what it checks",
                ));
            }
            let table = match d.kind {
                DeclKind::Action => &mut lowerer.actions,
                DeclKind::Guard => &mut lowerer.guards,
                DeclKind::Output => &mut lowerer.outputs,
                DeclKind::Effect => &mut lowerer.effects,
                DeclKind::Delay => &mut lowerer.delays,
            };
            let payload = payload.as_ref().map(|t| RustType {
                text: t.text.clone(),
                span: t.span,
            });
            if let Err(first) = table.declare(name, &d.docs, payload) {
                lowerer.diagnostics.push(
                    Diagnostic::new(
                        Code::DuplicateDeclaration,
                        name.span,
                        format!("{} `{}` is declared more than once", d.kind.keyword(), name.name),
                        "declared again here",
                        "remove the second declaration",
                    )
                    .with_label(first, "first declared here"),
                );
            }
        }
    }

    // Declarations are items of the machine itself: nothing to read inside
    // states and `any` blocks.
    fn visit_state(&mut self, _: &'a ast::StateAst) {}

    fn visit_any(&mut self, _: &'a ast::AnyAst) {}
}

/// The walk listing a machine's states in declaration order (a parent
/// before its children), each with the index of its parent in the list.
#[derive(Default)]
struct StateList<'a> {
    list: Vec<(&'a ast::StateAst, Option<usize>)>,
    /// The indices of the states holding the one being walked.
    open: Vec<usize>,
}

impl<'a> Visit<'a> for StateList<'a> {
    fn visit_state(&mut self, s: &'a ast::StateAst) {
        let index = self.list.len();
        self.list.push((s, self.open.last().copied()));
        self.open.push(index);
        visit::walk_state(self, s);
        self.open.pop();
    }
}

/// Counts the `on` transitions of the bodies walked (the states nested in
/// them are counted in their own turn).
struct OnTransitions(usize);

impl<'a> Visit<'a> for OnTransitions {
    fn visit_state(&mut self, _: &'a ast::StateAst) {}

    fn visit_transition(&mut self, t: &'a ast::TransitionAst) {
        self.0 += usize::from(t.action().is_some());
    }
}

/// What the bodies of a machine lower into.
struct Lowered {
    transitions: Vec<Transition>,
    timers: Vec<Transition>,
    eventless: Vec<Transition>,
    /// Per state, its own `on` transitions.
    own: Vec<Vec<TransitionId>>,
    /// The `on` transitions of the `any` blocks.
    any: Vec<TransitionId>,
}

/// Whose hooks and transitions a [`Body`] walk lowers.
#[derive(Clone, Copy)]
enum Owner {
    /// A state of the model.
    State(StateId),
    /// A second definition of the name of this state. Its body is not part
    /// of the model, but its names are still resolved so that their
    /// problems are reported too; for the graph checks, its edges count as
    /// the first definition's.
    Duplicate(StateId),
    /// The `any` blocks.
    Any,
}

/// The walk lowering hooks and transitions: a state's own, walked from the
/// state (the states nested in it are lowered in their own turn, as states
/// of the list), or the `any` blocks', walked from the machine.
struct Body<'l, 'd, 'n> {
    lowerer: &'l mut Lowerer<'d>,
    by_name: &'l HashMap<&'n str, StateId>,
    state_names: &'l [&'n str],
    states: &'l mut [State],
    lowered: &'l mut Lowered,
    owner: Owner,
}

impl<'a> Visit<'a> for Body<'_, '_, '_> {
    fn visit_state(&mut self, _: &'a ast::StateAst) {}

    fn visit_hook(&mut self, h: &'a ast::HookAst) {
        let lowerer = &mut *self.lowerer;
        match self.owner {
            Owner::State(id) => {
                let outs: Vec<OutputId> = h
                    .outputs
                    .iter()
                    .map(|o| OutputId::from_index(lowerer.outputs.use_(o)))
                    .collect();
                let effects = lowerer.effects(&h.effects);
                lowerer.check_payloads(&Carrier::Hook(h.kind), None, &h.effects);
                let st = &mut self.states[id.index()];
                match h.kind {
                    HookKind::Enter => {
                        st.enter.extend(outs);
                        st.enter_effects.extend(effects);
                    }
                    HookKind::Exit => {
                        st.exit.extend(outs);
                        st.exit_effects.extend(effects);
                    }
                }
            }
            Owner::Duplicate(_) => {
                h.outputs.iter().for_each(|o| {
                    lowerer.outputs.use_(o);
                });
                lowerer.effects(&h.effects);
            }
            // `any` blocks hold transitions only.
            Owner::Any => {}
        }
    }

    fn visit_transition(&mut self, t: &'a ast::TransitionAst) {
        let (by_name, state_names) = (self.by_name, self.state_names);
        let lowerer = &mut *self.lowerer;
        let lowered = &mut *self.lowered;
        match self.owner {
            Owner::State(id) => {
                let i = id.index();
                if let Some(kw) = self.states[i].terminal {
                    let name = state_names[i];
                    let (what, label, noun) = match &t.trigger {
                        ast::TriggerAst::On { action, .. } => (
                            format!("a transition on `{}`", action.name),
                            "transition out of a terminal state",
                            "transition",
                        ),
                        ast::TriggerAst::After { .. } => {
                            ("a timer".to_owned(), "timer in a terminal state", "timer")
                        }
                        ast::TriggerAst::Eventless { kind, .. } => (
                            format!("a `{}` transition", kind.keyword()),
                            "transition out of a terminal state",
                            "transition",
                        ),
                    };
                    lowerer.diagnostics.push(
                        Diagnostic::new(
                            Code::TerminalHasTransitions,
                            t.span,
                            format!("terminal state `{name}` has {what}"),
                            label,
                            format!(
                                "a terminal state ends the machine; remove this {noun} or drop `terminal` from `{name}`"
                            ),
                        )
                        .with_label(kw, "declared terminal here"),
                    );
                }
                match &t.trigger {
                    ast::TriggerAst::On { action, .. } => {
                        if let Some(tr) =
                            lowerer.transition(t, action, Source::State(id), by_name, state_names)
                        {
                            lowered.own[i].push(TransitionId::from_index(lowered.transitions.len()));
                            lowered.transitions.push(tr);
                        }
                    }
                    ast::TriggerAst::After { delay, .. } => {
                        if let Some(timer) = lowerer.timer(t, delay, id, by_name, state_names) {
                            lowered.timers.push(timer);
                        }
                    }
                    ast::TriggerAst::Eventless { kind, keyword } => {
                        if let Some(e) = lowerer.eventless(t, *kind, *keyword, id, by_name, state_names) {
                            lowered.eventless.push(e);
                        }
                    }
                }
            }
            Owner::Duplicate(first) => {
                let source = Source::State(first);
                let to = match &t.trigger {
                    ast::TriggerAst::On { action, .. } => lowerer
                        .transition(t, action, source, by_name, state_names)
                        .and_then(|t| t.target),
                    ast::TriggerAst::After { delay, .. } => lowerer
                        .timer(t, delay, first, by_name, state_names)
                        .and_then(|t| t.target),
                    ast::TriggerAst::Eventless { kind, keyword } => lowerer
                        .eventless(t, *kind, *keyword, first, by_name, state_names)
                        .and_then(|t| t.target),
                };
                if let Some(to) = to {
                    lowerer.guessed_edges.push((source, to));
                }
            }
            Owner::Any => {
                let Some(action) = t.action() else { return };
                if let Some(tr) = lowerer.transition(t, action, Source::Any, by_name, state_names) {
                    lowered
                        .any
                        .push(TransitionId::from_index(lowered.transitions.len()));
                    lowered.transitions.push(tr);
                }
            }
        }
    }
}

/// The walk over a final state's own body, reporting each transition and
/// state in it: a final state is a leaf without transitions.
struct InFinal<'l> {
    diagnostics: &'l mut Vec<Diagnostic>,
    /// The final state's name.
    state: &'l str,
    /// Its `final` keyword.
    keyword: Span,
}

impl InFinal<'_> {
    fn report(&mut self, span: Span, what: &str) {
        self.diagnostics.push(
            Diagnostic::new(
                Code::FinalHasTransitions,
                span,
                format!("final state `{}` {what}", self.state),
                "inside a final state",
                "a final state is a leaf that completes the state holding it; the transitions of the states around it still apply: move this one to the state it completes",
            )
            .with_label(self.keyword, "marked final here"),
        );
    }
}

impl<'a> Visit<'a> for InFinal<'_> {
    fn visit_state(&mut self, s: &'a ast::StateAst) {
        self.report(s.span, "holds a state");
    }

    fn visit_transition(&mut self, t: &'a ast::TransitionAst) {
        let what = match t.trigger {
            ast::TriggerAst::On { .. } => "has a transition",
            ast::TriggerAst::After { .. } => "has a timer",
            ast::TriggerAst::Eventless {
                kind: EventlessKind::Done,
                ..
            } => "has a `done` transition",
            ast::TriggerAst::Eventless {
                kind: EventlessKind::Always,
                ..
            } => "has an `always` transition",
        };
        self.report(t.span, what);
    }
}

/// What a transition, timer or hook carries, for the payload check.
enum Carrier<'a> {
    /// An action, with its name and payload type.
    Action(&'a str, Option<&'a str>),
    /// A timer: no payload.
    Timer,
    /// A hook: no payload.
    Hook(HookKind),
    /// A `done` or `always` transition: no payload.
    Eventless(EventlessKind),
}

/// `true` and `false`, which cannot name guards.
fn is_reserved_guard_name(name: &str) -> bool {
    matches!(name, "true" | "false")
}

/// `a && b` (`and`) or `a || b` with a chain of one operator kept
/// left-nested: `a || (b || c)` becomes `(a || b) || c`, the tree that
/// `a || b || c` parses to. The operands stay in order, so evaluation order
/// and short-circuiting are unchanged, and the model (so its canonical text
/// and fingerprint) does not depend on how such a chain was parenthesised.
fn chain<E: Chained>(and: bool, left: E, right: E) -> E {
    // The right operand is already left-nested: take its operands off its
    // left spine, then hang them after `left` in order.
    let mut rest = Vec::new();
    let mut first = right;
    loop {
        match first.split(and) {
            Ok((l, r)) => {
                rest.push(r);
                first = l;
            }
            Err(operand) => {
                first = operand;
                break;
            }
        }
    }
    let mut out = E::join(and, left, Box::new(first));
    for operand in rest.into_iter().rev() {
        out = E::join(and, out, operand);
    }
    out
}

/// A tree of `&&` and `||` that [`chain`] keeps left-nested: guards and
/// property formulas.
trait Chained: Sized {
    /// `a && b` (`and`) or `a || b`.
    fn join(and: bool, a: Self, b: Box<Self>) -> Self;
    /// The operands of `self` when it is that operator, or `self` back.
    fn split(self, and: bool) -> Result<(Self, Box<Self>), Self>;
}

impl Chained for GuardExpr {
    fn join(and: bool, a: Self, b: Box<Self>) -> Self {
        match and {
            true => GuardExpr::And(Box::new(a), b),
            false => GuardExpr::Or(Box::new(a), b),
        }
    }

    fn split(self, and: bool) -> Result<(Self, Box<Self>), Self> {
        match self {
            GuardExpr::And(l, r) if and => Ok((*l, r)),
            GuardExpr::Or(l, r) if !and => Ok((*l, r)),
            other => Err(other),
        }
    }
}

impl Chained for Formula {
    fn join(and: bool, a: Self, b: Box<Self>) -> Self {
        match and {
            true => Formula::And(Box::new(a), b),
            false => Formula::Or(Box::new(a), b),
        }
    }

    fn split(self, and: bool) -> Result<(Self, Box<Self>), Self> {
        match self {
            Formula::And(l, r) if and => Ok((*l, r)),
            Formula::Or(l, r) if !and => Ok((*l, r)),
            other => Err(other),
        }
    }
}
