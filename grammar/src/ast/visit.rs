//! One walk over the syntax tree, for every tool that reads it: the
//! language server's index, tokens, folds and outline, the lowering's
//! declarations, list of states and bodies.
//!
//! A [`Visit`] implementation overrides the `visit_*` methods of the nodes it
//! cares about; each default walks on into the node's children through the
//! matching `walk_*` function, which an override calls to keep walking (as
//! in `syn::visit`), or leaves out to stop there. The walk is in source
//! order, and nested states are visited inside the state that holds them,
//! so a visitor that needs the enclosing state keeps its own stack in
//! `visit_state`, and one that reads a single state's body calls
//! [`walk_state`] on that state with a `visit_state` that does nothing:
//!
//! ```
//! use fsm_grammar::ast::visit::{self, Visit};
//! use fsm_grammar::ast::{StateAst, TransitionAst};
//!
//! /// Each transition's trigger keyword, with the state that holds it.
//! #[derive(Default)]
//! struct Triggers<'a> {
//!     states: Vec<&'a str>,
//!     found: Vec<(&'a str, &'static str)>,
//! }
//!
//! impl<'a> Visit<'a> for Triggers<'a> {
//!     fn visit_state(&mut self, state: &'a StateAst) {
//!         self.states.push(&state.name.name);
//!         visit::walk_state(self, state);
//!         self.states.pop();
//!     }
//!
//!     fn visit_transition(&mut self, t: &'a TransitionAst) {
//!         let state = self.states.last().copied().unwrap_or("any");
//!         self.found.push((state, t.trigger.keyword()));
//!     }
//! }
//!
//! let parsed = fsm_grammar::parse(
//!     "machine M { initial state a { on go -> b; state c { after 1s -> b; } } state b; any { on stop -> b; } }",
//! );
//! let mut triggers = Triggers::default();
//! triggers.visit_file(&parsed.file);
//! assert_eq!(triggers.found, [("a", "on"), ("c", "after"), ("any", "on")]);
//! ```

use super::{
    AnyAst, ContextAst, DeclAst, File, HookAst, MachineAst, MachineItem, PropertyAst, StateAst, StateItem,
    TransitionAst,
};

/// A walk over the syntax tree: see the [module](self).
pub trait Visit<'ast> {
    /// A whole file: its machines, in order.
    fn visit_file(&mut self, file: &'ast File) {
        walk_file(self, file);
    }

    /// A machine: its items, in order.
    fn visit_machine(&mut self, machine: &'ast MachineAst) {
        walk_machine(self, machine);
    }

    /// `context T;`.
    fn visit_context(&mut self, _context: &'ast ContextAst) {}

    /// A declaration (`action a, b;`).
    fn visit_decl(&mut self, _decl: &'ast DeclAst) {}

    /// A state: its hooks, transitions and nested states, in order.
    fn visit_state(&mut self, state: &'ast StateAst) {
        walk_state(self, state);
    }

    /// `any { ... }`: its transitions, in order.
    fn visit_any(&mut self, any: &'ast AnyAst) {
        walk_any(self, any);
    }

    /// `enter ...;` or `exit ...;`.
    fn visit_hook(&mut self, _hook: &'ast HookAst) {}

    /// A transition of any kind (`on`, `after`, `done`, `always`), in a
    /// state or an `any` block.
    fn visit_transition(&mut self, _transition: &'ast TransitionAst) {}

    /// A property (`never F;`, `reachable F;`, `recoverable F;`).
    fn visit_property(&mut self, _property: &'ast PropertyAst) {}
}

/// Visit each machine of `file`.
pub fn walk_file<'ast, V: Visit<'ast> + ?Sized>(visitor: &mut V, file: &'ast File) {
    for machine in &file.machines {
        visitor.visit_machine(machine);
    }
}

/// Visit each item of `machine`.
pub fn walk_machine<'ast, V: Visit<'ast> + ?Sized>(visitor: &mut V, machine: &'ast MachineAst) {
    for item in &machine.items {
        match item {
            MachineItem::Context(context) => visitor.visit_context(context),
            MachineItem::Decl(decl) => visitor.visit_decl(decl),
            MachineItem::State(state) => visitor.visit_state(state),
            MachineItem::Any(any) => visitor.visit_any(any),
            MachineItem::Property(property) => visitor.visit_property(property),
        }
    }
}

/// Visit each item of `state`'s body. The parser bounds how deep states
/// nest ([`MAX_STATE_DEPTH`](crate::MAX_STATE_DEPTH)), so the recursion is bounded too.
pub fn walk_state<'ast, V: Visit<'ast> + ?Sized>(visitor: &mut V, state: &'ast StateAst) {
    for item in state.body.iter().flatten() {
        match item {
            StateItem::Hook(hook) => visitor.visit_hook(hook),
            StateItem::Transition(transition) => visitor.visit_transition(transition),
            StateItem::State(child) => visitor.visit_state(child),
        }
    }
}

/// Visit each transition of `any`.
pub fn walk_any<'ast, V: Visit<'ast> + ?Sized>(visitor: &mut V, any: &'ast AnyAst) {
    for transition in &any.transitions {
        visitor.visit_transition(transition);
    }
}
