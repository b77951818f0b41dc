//! Every name of a document, with where it is declared and used: what
//! navigation, rename, hover and semantic tokens look up. Built from the
//! syntax tree, so the machines that parse are covered even when others in
//! the file do not.

use fsm_grammar::ast::{self, DeclKind, DelayAst, MachineItem, StateItem, TransitionAst};
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

/// The names of a document.
#[derive(Debug, Default)]
pub struct Index {
    /// Every name, in order of first occurrence per machine.
    pub names: Vec<Name>,
    /// Every occurrence, sorted by position.
    pub occurrences: Vec<Occurrence>,
}

impl Index {
    /// Index the machines of `file`.
    pub fn new(file: &ast::File) -> Index {
        let mut builder = Builder::default();
        for (m, machine) in file.machines.iter().enumerate() {
            builder.machine(m, machine);
        }
        let mut index = builder.index;
        index.occurrences.sort_by_key(|o| (o.span.start, o.span.end));
        index
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

#[derive(Default)]
struct Builder {
    index: Index,
    by_key: HashMap<(usize, Kind, String), usize>,
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

    fn machine(&mut self, m: usize, machine: &ast::MachineAst) {
        self.add(m, Kind::Machine, &machine.name, true);
        for item in &machine.items {
            match item {
                MachineItem::Context(_) => {}
                MachineItem::Decl(decl) => {
                    for name in &decl.names {
                        self.add(m, Kind::of_decl(decl.kind), name, true);
                    }
                }
                MachineItem::State(state) => self.state(m, state),
                MachineItem::Any(any) => {
                    for t in &any.transitions {
                        self.transition(m, t);
                    }
                }
            }
        }
    }

    /// A state and, nested inside it, its children (the parser bounds the
    /// depth, so the recursion is too).
    fn state(&mut self, m: usize, state: &ast::StateAst) {
        self.add(m, Kind::State, &state.name, true);
        for item in state.body.iter().flatten() {
            match item {
                StateItem::Hook(hook) => {
                    self.uses(m, Kind::Effect, &hook.effects);
                    self.uses(m, Kind::Output, &hook.outputs);
                }
                StateItem::Transition(t) => self.transition(m, t),
                StateItem::Timer(timer) => {
                    if let DelayAst::Name(name) = &timer.delay {
                        self.add(m, Kind::Delay, name, false);
                    }
                    for name in timer.guard.iter().flat_map(|g| g.names()) {
                        self.add(m, Kind::Guard, name, false);
                    }
                    self.uses(m, Kind::State, timer.target.as_slice());
                    self.uses(m, Kind::Effect, &timer.effects);
                    self.uses(m, Kind::Output, &timer.emits);
                }
                StateItem::State(child) => self.state(m, child),
            }
        }
    }

    fn transition(&mut self, m: usize, t: &TransitionAst) {
        self.add(m, Kind::Action, &t.action, false);
        for name in t.guard.iter().flat_map(|g| g.names()) {
            self.add(m, Kind::Guard, name, false);
        }
        self.uses(m, Kind::State, t.target.as_slice());
        self.uses(m, Kind::Effect, &t.effects);
        self.uses(m, Kind::Output, &t.emits);
    }

    fn uses(&mut self, m: usize, kind: Kind, idents: &[ast::Ident]) {
        for ident in idents {
            self.add(m, kind, ident, false);
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
}
