//! Every name of a document, with where it is declared and used: what
//! navigation, rename, hover and semantic tokens look up. Built from the
//! syntax tree, so the machines that parse are covered even when others in
//! the file do not. The keywords of parallel states (`parallel`, `final`,
//! `done`, `always` and the `in` of `in(S)`) are listed too, for hover and
//! semantic tokens: each is also a name wherever a name is expected.

use fsm_grammar::ast::visit::{self, Visit};
use fsm_grammar::ast::{
    self, DeclKind, DelayAst, EventlessKind, FormulaAst, GuardAst, ModifierKind, PropertyAst, PropertyKind,
    TransitionAst, TriggerAst,
};
use fsm_grammar::Span;
use std::collections::HashMap;

/// What a name names. Each machine has its own names of each kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A machine.
    Machine,
    /// A state.
    State,
    /// An action.
    Action,
    /// A guard.
    Guard,
    /// An output.
    Output,
    /// An effect.
    Effect,
    /// A delay.
    Delay,
    /// A named property (`property NAME: never ...;`).
    Property,
}

impl Kind {
    /// The word the language uses for it.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Machine => "machine",
            Kind::State => "state",
            Kind::Action => "action",
            Kind::Guard => "guard",
            Kind::Output => "output",
            Kind::Effect => "effect",
            Kind::Delay => "delay",
            Kind::Property => "property",
        }
    }

    /// The kind a declaration keyword declares.
    pub fn of_decl(kind: DeclKind) -> Kind {
        match kind {
            DeclKind::Action => Kind::Action,
            DeclKind::Guard => Kind::Guard,
            DeclKind::Output => Kind::Output,
            DeclKind::Effect => Kind::Effect,
            DeclKind::Delay => Kind::Delay,
        }
    }
}

/// One name of one kind in one machine.
#[derive(Clone, Debug)]
pub struct Name {
    /// What it names.
    pub kind: Kind,
    /// The machine's index in the syntax tree.
    pub machine: usize,
    /// The name as written.
    pub text: String,
    /// Where it is declared (more than once for duplicates), in source order.
    pub declarations: Vec<Span>,
    /// Where it is used, in source order.
    pub uses: Vec<Span>,
}

impl Name {
    /// Where "go to definition" goes: the first declaration, else the first use.
    pub fn definition(&self) -> Span {
        self.declarations
            .first()
            .or(self.uses.first())
            .copied()
            .unwrap_or_default()
    }

    /// Every occurrence, declarations first.
    pub fn occurrences(&self) -> impl Iterator<Item = Span> + '_ {
        self.declarations.iter().chain(&self.uses).copied()
    }
}

/// A name's occurrence at a place in the text.
#[derive(Clone, Copy, Debug)]
pub struct Occurrence {
    /// The span of the word.
    pub span: Span,
    /// Index into [`Index::names`].
    pub name: usize,
    /// True where it is declared.
    pub declaration: bool,
}

/// A keyword of parallel states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    /// `parallel state P`.
    Parallel,
    /// `final state F`.
    Final,
    /// `done ...;` or `always ...;`.
    Eventless(EventlessKind),
    /// The `in` of `in(S)` in a guard or a property's formula.
    In,
    /// The kind of a property: `never`, `reachable`, `recoverable`,
    /// `escapable`.
    Property(PropertyKind),
    /// `terminal` in a property's formula.
    Terminal,
}

impl Keyword {
    /// The keyword as written.
    pub fn word(self) -> &'static str {
        match self {
            Keyword::Parallel => "parallel",
            Keyword::Final => "final",
            Keyword::Eventless(kind) => kind.keyword(),
            Keyword::In => "in",
            Keyword::Property(kind) => kind.keyword(),
            Keyword::Terminal => "terminal",
        }
    }
}

/// A keyword's occurrence.
#[derive(Clone, Copy, Debug)]
pub struct KeywordUse {
    /// The span of the word.
    pub span: Span,
    /// Which keyword.
    pub keyword: Keyword,
    /// The machine's index in the syntax tree.
    pub machine: usize,
    /// The state it is about: the state a `parallel` or `final` modifies,
    /// the state a `done` or `always` is declared in, the state `in(...)`
    /// tests; for a property's kind and `terminal`, the whole property.
    pub state: Span,
}

/// The names of a document.
#[derive(Debug, Default)]
pub struct Index {
    /// Every name, in order of first occurrence per machine.
    pub names: Vec<Name>,
    /// Every occurrence, sorted by position.
    pub occurrences: Vec<Occurrence>,
    /// The keywords of parallel states, sorted by position.
    pub keywords: Vec<KeywordUse>,
}

impl Index {
    /// Index the machines of `file`.
    pub fn new(file: &ast::File) -> Index {
        let mut builder = Builder::default();
        builder.visit_file(file);
        let mut index = builder.index;
        index.occurrences.sort_by_key(|o| (o.span.start, o.span.end));
        index.keywords.sort_by_key(|k| k.span.start);
        index
    }

    /// The keyword of parallel states under `offset` (a cursor just after
    /// it is on it).
    pub fn keyword_at(&self, offset: usize) -> Option<KeywordUse> {
        let after = self.keywords.partition_point(|k| k.span.start <= offset);
        let k = *self.keywords[..after].last()?;
        (offset <= k.span.end).then_some(k)
    }

    /// The occurrence under `offset` (a cursor just after a word is on it).
    pub fn at(&self, offset: usize) -> Option<(&Name, Occurrence)> {
        let after = self.occurrences.partition_point(|o| o.span.start <= offset);
        let o = *self.occurrences[..after].last()?;
        (offset <= o.span.end).then(|| (&self.names[o.name], o))
    }

    /// The names of `kind` in machine `machine`.
    pub fn names_of(&self, machine: usize, kind: Kind) -> impl Iterator<Item = &Name> {
        self.names
            .iter()
            .filter(move |n| n.machine == machine && n.kind == kind)
    }

    /// The name `text` of `kind` in machine `machine`.
    pub fn find(&self, machine: usize, kind: Kind, text: &str) -> Option<&Name> {
        self.names_of(machine, kind).find(|n| n.text == text)
    }
}

/// The walk that builds an [`Index`].
#[derive(Default)]
struct Builder {
    index: Index,
    by_key: HashMap<(usize, Kind, String), usize>,
    /// The machine being walked, counting from 0.
    machine: usize,
    /// The names of the states holding the node being walked, outermost
    /// first.
    states: Vec<Span>,
}

impl Builder {
    fn add(&mut self, machine: usize, kind: Kind, ident: &ast::Ident, declaration: bool) {
        let names = &mut self.index.names;
        let name = *self
            .by_key
            .entry((machine, kind, ident.name.clone()))
            .or_insert_with(|| {
                names.push(Name {
                    kind,
                    machine,
                    text: ident.name.clone(),
                    declarations: Vec::new(),
                    uses: Vec::new(),
                });
                names.len() - 1
            });
        let entry = &mut self.index.names[name];
        if declaration {
            entry.declarations.push(ident.span);
        } else {
            entry.uses.push(ident.span);
        }
        self.index.occurrences.push(Occurrence {
            span: ident.span,
            name,
            declaration,
        });
    }

    /// The guards a guard expression names, and the states its `in(...)`
    /// tests (uses of those states), with the keyword `in`.
    fn guard(&mut self, m: usize, guard: Option<&GuardAst>) {
        let Some(guard) = guard else { return };
        for name in guard.names() {
            self.add(m, Kind::Guard, name, false);
        }
        for state in guard.in_states() {
            self.add(m, Kind::State, state, false);
        }
        in_keywords(guard, &mut |span, state| {
            self.keyword(m, span, Keyword::In, state)
        });
    }

    fn keyword(&mut self, machine: usize, span: Span, keyword: Keyword, state: Span) {
        self.index.keywords.push(KeywordUse {
            span,
            keyword,
            machine,
            state,
        });
    }

    fn uses(&mut self, m: usize, kind: Kind, idents: &[ast::Ident]) {
        for ident in idents {
            self.add(m, kind, ident, false);
        }
    }
}

impl<'a> Visit<'a> for Builder {
    fn visit_machine(&mut self, machine: &'a ast::MachineAst) {
        self.add(self.machine, Kind::Machine, &machine.name, true);
        visit::walk_machine(self, machine);
        self.machine += 1;
    }

    fn visit_decl(&mut self, decl: &'a ast::DeclAst) {
        for name in &decl.names {
            self.add(self.machine, Kind::of_decl(decl.kind), name, true);
        }
    }

    fn visit_state(&mut self, state: &'a ast::StateAst) {
        let m = self.machine;
        for modifier in &state.modifiers {
            let keyword = match modifier.kind {
                ModifierKind::Parallel => Keyword::Parallel,
                ModifierKind::Final => Keyword::Final,
                ModifierKind::Initial | ModifierKind::Terminal => continue,
            };
            self.keyword(m, modifier.span, keyword, state.name.span);
        }
        self.add(m, Kind::State, &state.name, true);
        self.states.push(state.name.span);
        visit::walk_state(self, state);
        self.states.pop();
    }

    fn visit_hook(&mut self, hook: &'a ast::HookAst) {
        self.uses(self.machine, Kind::Effect, &hook.effects);
        self.uses(self.machine, Kind::Output, &hook.outputs);
    }

    /// A property's name (declared), the states its formulas test and the
    /// actions it assumes (uses), and its keywords: its kind, `in` and
    /// `terminal`.
    fn visit_property(&mut self, p: &'a PropertyAst) {
        let m = self.machine;
        if let Some(name) = &p.name {
            self.add(m, Kind::Property, name, true);
        }
        self.keyword(m, p.keyword, Keyword::Property(p.kind), p.span);
        let target = p.leads_to.as_ref().map(|l| &l.formula);
        for formula in std::iter::once(&p.formula).chain(target) {
            formula_keywords(formula, &mut |keyword, span, state| match keyword {
                Keyword::In => self.keyword(m, span, keyword, state.map_or(span, |s| s.span)),
                _ => self.keyword(m, span, keyword, p.span),
            });
            for (_, state) in formula.in_calls() {
                self.add(m, Kind::State, state, false);
            }
        }
        for action in p.leads_to.iter().flat_map(|l| &l.assuming) {
            self.add(m, Kind::Action, action, false);
        }
    }

    fn visit_transition(&mut self, t: &'a TransitionAst) {
        let m = self.machine;
        match &t.trigger {
            TriggerAst::On { action, .. } => self.add(m, Kind::Action, action, false),
            TriggerAst::After { delay, .. } => {
                if let DelayAst::Name(name) = delay {
                    self.add(m, Kind::Delay, name, false);
                }
            }
            TriggerAst::Eventless { kind, keyword } => {
                let state = self.states.last().copied().unwrap_or(t.span);
                self.keyword(m, *keyword, Keyword::Eventless(*kind), state);
            }
        }
        self.guard(m, t.guard.as_ref());
        self.uses(m, Kind::State, t.target.as_slice());
        self.uses(m, Kind::Effect, &t.effects);
        self.uses(m, Kind::Output, &t.emits);
    }
}

/// The `in` keywords of a formula's `in(...)` tests, with their states, and
/// its `terminal` keywords.
fn formula_keywords<'a>(
    formula: &'a FormulaAst,
    out: &mut impl FnMut(Keyword, Span, Option<&'a ast::Ident>),
) {
    match formula {
        FormulaAst::In(span, state) => out(
            Keyword::In,
            Span::new(span.start, span.start + "in".len()),
            Some(state),
        ),
        FormulaAst::Terminal(span) => out(Keyword::Terminal, *span, None),
        FormulaAst::Not(_, e) | FormulaAst::Paren(_, e) => formula_keywords(e, out),
        FormulaAst::And(_, a, b) | FormulaAst::Or(_, a, b) => {
            formula_keywords(a, out);
            formula_keywords(b, out);
        }
    }
}

/// The span of each `in` keyword of `guard`'s `in(...)` tests (the call's
/// first two bytes: `in(S)` starts with its keyword), with the state's.
fn in_keywords(guard: &GuardAst, out: &mut impl FnMut(Span, Span)) {
    match guard {
        GuardAst::Name(_) => {}
        GuardAst::In(span, state) => out(Span::new(span.start, span.start + "in".len()), state.span),
        GuardAst::Not(_, e) | GuardAst::Paren(_, e) => in_keywords(e, out),
        GuardAst::And(_, a, b) | GuardAst::Or(_, a, b) => {
            in_keywords(a, out);
            in_keywords(b, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_per_machine_and_kind() {
        let text = "machine A { action go; initial state go { on go -> go; } }\n\
                    machine B { initial state go { after d -> go; } }";
        let index = Index::new(&fsm_grammar::parse(text).file);
        let state = index.find(0, Kind::State, "go").unwrap();
        assert_eq!(state.declarations.len(), 1);
        assert_eq!(state.uses.len(), 1);
        let action = index.find(0, Kind::Action, "go").unwrap();
        assert_eq!((action.declarations.len(), action.uses.len()), (1, 1));
        let other = index.find(1, Kind::State, "go").unwrap();
        assert_eq!(other.uses.len(), 1);
        // A delay used but not declared goes to its first use.
        let delay = index.find(1, Kind::Delay, "d").unwrap();
        assert_eq!(&text[delay.definition().start..delay.definition().end], "d");
        // The cursor right after `go` in `-> go;` is on the state.
        let target = text.find("-> go").unwrap() + 5;
        let (name, occurrence) = index.at(target).unwrap();
        assert_eq!((name.kind, occurrence.declaration), (Kind::State, false));
        assert!(index.at(text.find("{").unwrap()).is_none());
    }

    #[test]
    fn in_tests_use_states_and_the_keywords_of_parallel_states_are_listed() {
        let text = "machine M { guard in; initial parallel state p {\n\
                    done [in(a2) && !in] -> x emit o;\n\
                    state a { initial state a1 { always [in(p)] -> a2; } final state a2; }\n\
                    state b { initial state b1 { on go [in ( a2 )] -> b1; } } } state x; }";
        let index = Index::new(&fsm_grammar::parse(text).file);
        let a2 = index.find(0, Kind::State, "a2").unwrap();
        assert_eq!((a2.declarations.len(), a2.uses.len()), (1, 3));
        assert_eq!(index.find(0, Kind::State, "p").unwrap().uses.len(), 1);
        // `in` not before `(` is a guard.
        let guard = index.find(0, Kind::Guard, "in").unwrap();
        assert_eq!((guard.declarations.len(), guard.uses.len()), (1, 1));
        let keywords: Vec<(&str, Keyword)> = index
            .keywords
            .iter()
            .map(|k| (&text[k.span.start..k.span.end], k.keyword))
            .collect();
        assert_eq!(
            keywords,
            [
                ("parallel", Keyword::Parallel),
                ("done", Keyword::Eventless(EventlessKind::Done)),
                ("in", Keyword::In),
                ("always", Keyword::Eventless(EventlessKind::Always)),
                ("in", Keyword::In),
                ("final", Keyword::Final),
                ("in", Keyword::In),
            ]
        );
        let done = text.find("done").unwrap();
        assert_eq!(index.keyword_at(done + 4).unwrap().keyword.word(), "done");
        assert!(index.keyword_at(done + 5).is_none());
        // The cursor on the state inside `in(...)` is on a use of the state.
        let (name, occurrence) = index.at(text.find("a2)").unwrap()).unwrap();
        assert_eq!(
            (name.kind, name.text.as_str(), occurrence.declaration),
            (Kind::State, "a2", false)
        );
    }
}
