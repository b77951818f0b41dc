//! `fsm-diagram`: diagrams of an fsmc machine ([`fsm_grammar::model::Machine`]):
//! Mermaid and Graphviz DOT text, and SVG drawn without any external program.
//!
//! ```
//! let model = fsm_grammar::check("machine M { initial state a { on go -> b; } terminal state b; }").model;
//! let machine = &model.machines[0];
//! assert!(fsm_diagram::mermaid(machine).contains("stateDiagram-v2"));
//! assert!(fsm_diagram::dot(machine).starts_with("digraph"));
//! assert!(fsm_diagram::svg(machine).unwrap().contains("<svg"));
//! ```
//!
//! - `view.rs` decides what every diagram shows (below);
//! - `mermaid.rs` and `dot.rs` spell it for a program that lays it out;
//! - `layout/` is fsmc's own layered (Sugiyama) layout of labelled
//!   directed graphs, in time close to linear: each edge label is a node on
//!   its own edge, edges are routed around every box, and crossings are
//!   reduced by barycenter sweeps. Its module docs say why it is ours
//!   rather than the `dagre` or `rust-sugiyama` crates, and how composite
//!   states are boxes laid out around their states;
//! - `svg.rs` sizes the boxes to their text (a monospace font, so widths
//!   are exact), runs the layout and writes the SVG.
//!
//! All three draw the same picture, computed once by `view.rs`:
//!
//! - the initial state is pointed at from a start marker (`[*]`, a dot);
//! - terminal states lead to the end marker (Mermaid), are double circles
//!   (DOT) or double-bordered boxes (SVG);
//! - an edge per transition with a target, labelled
//!   `action [guard] (pN) / effects emit outputs`, where the priority `(pN)`
//!   appears only on transitions that compete with another candidate for
//!   the same action in a state where they apply;
//! - after ` / `, what firing does, in the order it happens: the effects,
//!   then the outputs, introduced by `emit` when effects come before them
//!   (`decided [wants_tool] / count_step, record emit execute_tool`). Without
//!   effects, outputs read as they always have (`llm_error / display_error`),
//!   and effects alone read `decided [ready_to_answer] / count_step, record`,
//!   as the context documentation spells them; the names tell effects and outputs apart, and
//!   the `.fsm` or JSON says which is which;
//! - an edge per timer with a target, labelled the same way with
//!   `after DELAY` for the action (`after 30s`, `after tool_timeout [g] /
//!   report_timeout`); `(pN)` appears when another timer of the state has
//!   the same delay, the timers' own candidate group;
//! - inside each state, its hooks (`enter / arm emit started`,
//!   `exit / stopped`), then its internal transitions (no target: no state
//!   change, no hooks), then its internal timers, labelled the same way;
//! - a composite state holds its states: a `state X { ... }` block
//!   starting at its initial state (Mermaid), a cluster with a start point
//!   of its own pointing at its initial state (DOT), a box with
//!   its name and lines at the top left and a start marker of its own
//!   pointing at its initial state (SVG); an edge to or from the
//!   composite itself ends at its border, and a target entered through its
//!   history is marked ` (H)` or ` (H*)` in the label;
//! - a parallel state is one box divided into its regions, side by side:
//!   concurrent sections separated by `--` (Mermaid), dashed clusters
//!   inside its cluster (DOT), dashed lines between its regions, which have
//!   no border of their own (SVG); it has no start marker, each region has
//!   its own;
//! - `done` and `always` transitions are edges labelled `done` or `always`
//!   for the action, then as other labels (`done [in(a_done)] (p1) /
//!   spawn_synthesizer`); without a target, a line inside their state;
//! - a final state is UML's final state, a circled dot: it leads to the end
//!   marker of its block (Mermaid), or is the terminal state's double
//!   circle or double border filled dark with its name in white (DOT, SVG).
//!   Both end something, so both are double; the terminal state ends the
//!   machine and stays hollow, the final state completes its parent and is
//!   the dot;
//! - `any` transitions are drawn once, from a dashed pseudo-state named
//!   `any` that stands for every non-terminal state, rather than repeated
//!   from every state.
//!
//! Names are `.fsm` identifiers, so labels need little escaping: DOT
//! quotes them, SVG escapes the `&&` of guards as XML, and the few state
//! names Mermaid reads as keywords (`state`, `note`, `class`, ...) are
//! drawn under an alias.

mod dot;
mod layout;
mod mermaid;
mod svg;
mod view;

pub use dot::dot;
pub use layout::{TooLarge, MAX_NODES};
pub use mermaid::mermaid;
pub use svg::svg;
