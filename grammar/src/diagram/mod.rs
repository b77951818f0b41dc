//! Diagrams of a machine: Mermaid, Graphviz DOT, and (with the `svg`
//! feature) SVG drawn without any external program.
//!
//! All three draw the same picture, computed once by `view.rs`:
//!
//! - the initial state is pointed at from a start marker (`[*]`, a dot);
//! - terminal states lead to the end marker (Mermaid) or are double circles
//!   (DOT, SVG);
//! - an edge per transition with a target, labelled
//!   `action [guard] (pN) / outputs`, where the priority `(pN)` appears
//!   only on transitions that compete with another candidate for the same
//!   action in a state where they apply;
//! - inside each state, its `enter / ...` and `exit / ...` hooks and its
//!   internal transitions (no target: no state change, no hooks), labelled
//!   the same way;
//! - `any` transitions are drawn once, from a dashed pseudo-state named
//!   `any` that stands for every non-terminal state, rather than repeated
//!   from every state.
//!
//! Names are `.fsm` identifiers, so labels need no escaping in any of the
//! formats; the few state names Mermaid reads as keywords (`state`, `note`,
//! `class`, ...) are drawn under an alias.

mod dot;
#[cfg(feature = "svg")]
mod layout;
mod mermaid;
#[cfg(feature = "svg")]
mod svg;
mod view;

pub use dot::dot;
pub use mermaid::mermaid;
#[cfg(feature = "svg")]
pub use svg::svg;
