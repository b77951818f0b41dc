//! Properties: what `fsmc verify` checks of the configurations a machine
//! can reach. They are stated in the machine (`never F;`, `reachable F;`,
//! `recoverable F;`) or on the command line; nothing runs them, and they
//! are no part of the machine's behaviour (nor of its fingerprint).
//!
//! A [`Formula`] is read from a `.fsm` file by lowering, or from text alone
//! by [`Formula::parse`] (`fsmc verify --never F`); both read one language.

use super::{ActionId, Machine, StateId};
pub use crate::ast::PropertyKind;
use crate::span::Span;
use std::fmt;

/// A property stated in a machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// What it asks.
    pub kind: PropertyKind,
    /// The name after `property`, if written.
    pub name: Option<String>,
    /// The span of that name.
    pub name_span: Option<Span>,
    /// Of which configurations.
    pub formula: Formula,
    /// The span of the formula.
    pub formula_span: Span,
    /// The whole property, from `property` (or its kind's keyword) to `;`.
    pub span: Span,
    /// Doc comment lines.
    pub docs: Vec<String>,
    /// For `F leads to G`: `G` and the fairness assumed.
    pub leads_to: Option<LeadsTo>,
}

/// What `F leads to G assuming a, b` says after `F`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeadsTo {
    /// `G`.
    pub formula: Formula,
    /// The span of `G`.
    pub formula_span: Span,
    /// The actions the environment keeps sending (strong fairness), each
    /// with the span of its name.
    pub assuming: Vec<(ActionId, Span)>,
}

impl Property {
    /// The property as `fsmc verify` names it: its name, or else its kind
    /// and formula (`never in(a) && in(b)`).
    pub fn label(&self, machine: &Machine) -> String {
        match &self.name {
            Some(name) => name.clone(),
            None => self.text(machine),
        }
    }

    /// The property as written, without its name: `never in(a)`, or
    /// `in(a) leads to in(b) assuming go`.
    pub fn text(&self, machine: &Machine) -> String {
        match &self.leads_to {
            None => format!("{} {}", self.kind.keyword(), self.formula.display(machine)),
            Some(l) => {
                let mut text = format!(
                    "{} leads to {}",
                    self.formula.display(machine),
                    l.formula.display(machine)
                );
                if !l.assuming.is_empty() {
                    let names: Vec<&str> = l
                        .assuming
                        .iter()
                        .map(|&(a, _)| machine.actions[a.index()].name.as_str())
                        .collect();
                    text += &format!(" assuming {}", names.join(", "));
                }
                text
            }
        }
    }
}

/// A formula over one configuration of a machine.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Formula {
    /// `in(S)`: state `S` (a leaf or a state holding states) is active.
    In(StateId),
    /// `terminal`: some active leaf is a `terminal` state.
    Terminal,
    /// `!f`
    Not(Box<Formula>),
    /// `a && b`
    And(Box<Formula>, Box<Formula>),
    /// `a || b`
    Or(Box<Formula>, Box<Formula>),
}

/// Why a formula's text is refused, with the byte offset it points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormulaError {
    /// Where in the text, in bytes.
    pub offset: usize,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for FormulaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at column {})", self.message, self.offset + 1)
    }
}

impl std::error::Error for FormulaError {}

/// The most operators and atoms a formula read from text holds: larger
/// ones are refused before they could exhaust the stack (a file's formulas
/// are bounded as guards are, by `limits`).
const MAX_NODES: usize = crate::limits::MAX_GUARD_OPERATORS;

impl Formula {
    /// Read `text` as a formula over `machine`'s states.
    ///
    /// # Errors
    ///
    /// A syntax error, or a state `machine` does not have (with the closest
    /// name it has, when one is close).
    pub fn parse(machine: &Machine, text: &str) -> Result<Formula, FormulaError> {
        let mut parser = Parser {
            machine,
            text,
            at: 0,
            nodes: 0,
        };
        let formula = parser.or()?;
        parser.skip_space();
        if parser.at < text.len() {
            return Err(parser.error(format!(
                "expected `&&`, `||` or the end of the formula, found `{}`",
                parser.rest_word()
            )));
        }
        Ok(formula)
    }

    /// The value of the formula in the configuration `active` answers for;
    /// `terminal` is true when some active leaf is terminal.
    pub fn holds(&self, active: &impl Fn(StateId) -> bool, terminal: bool) -> bool {
        match self {
            Formula::In(s) => active(*s),
            Formula::Terminal => terminal,
            Formula::Not(f) => !f.holds(active, terminal),
            Formula::And(a, b) => a.holds(active, terminal) && b.holds(active, terminal),
            Formula::Or(a, b) => a.holds(active, terminal) || b.holds(active, terminal),
        }
    }

    /// `Some(value)` when the formula has that value in every configuration
    /// of `machine`, as far as its structure tells: two states that cannot
    /// be active together, a state active without the states holding it,
    /// are ruled out. `None` when it can be either (or when it has too many
    /// atoms to tell cheaply: never a false warning).
    pub fn constant(&self, machine: &Machine) -> Option<bool> {
        let mut atoms: Vec<Option<StateId>> = Vec::new();
        self.atoms(&mut atoms);
        if atoms.len() > 12 {
            return None;
        }
        let mut seen: Option<bool> = None;
        for assignment in 0u32..1 << atoms.len() {
            let on = |i: usize| assignment >> i & 1 == 1;
            let states: Vec<(StateId, bool)> = atoms
                .iter()
                .enumerate()
                .filter_map(|(i, a)| a.map(|s| (s, on(i))))
                .collect();
            if !possible(machine, &states) {
                continue;
            }
            let terminal = atoms.iter().position(Option::is_none).is_some_and(on);
            let active = |s: StateId| states.iter().any(|&(t, v)| t == s && v);
            let value = self.holds(&active, terminal);
            match seen {
                None => seen = Some(value),
                Some(v) if v != value => return None,
                Some(_) => {}
            }
        }
        seen
    }

    /// Every state tested by `in(...)` in the formula, left to right.
    pub fn states(&self, out: &mut Vec<StateId>) {
        match self {
            Formula::In(s) => out.push(*s),
            Formula::Terminal => {}
            Formula::Not(f) => f.states(out),
            Formula::And(a, b) | Formula::Or(a, b) => {
                a.states(out);
                b.states(out);
            }
        }
    }

    /// Each distinct atom once: `Some(state)` for `in(state)`, `None` for
    /// `terminal`.
    fn atoms(&self, out: &mut Vec<Option<StateId>>) {
        let atom = match self {
            Formula::In(s) => Some(*s),
            Formula::Terminal => None,
            Formula::Not(f) => return f.atoms(out),
            Formula::And(a, b) | Formula::Or(a, b) => {
                a.atoms(out);
                return b.atoms(out);
            }
        };
        if !out.contains(&atom) {
            out.push(atom);
        }
    }

    /// The formula as text, with the fewest parentheses that keep its reading.
    pub fn display<'a>(&'a self, machine: &'a Machine) -> impl fmt::Display + 'a {
        Shown(self, machine)
    }
}

/// True unless the states said active and inactive are impossible together:
/// two active states that cannot be active together, or an active state
/// whose parent is said inactive.
fn possible(machine: &Machine, states: &[(StateId, bool)]) -> bool {
    let value = |s: StateId| states.iter().find(|&&(t, _)| t == s).map(|&(_, v)| v);
    for &(s, on) in states {
        if !on {
            continue;
        }
        if machine.ancestors(s).any(|a| value(a) == Some(false)) {
            return false;
        }
        for &(t, other) in states {
            if other && t != s && !machine.can_be_active_together(s, t) {
                return false;
            }
        }
    }
    true
}

struct Shown<'a>(&'a Formula, &'a Machine);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.1;
        // Parentheses only where the text would otherwise read otherwise:
        // `||` inside `&&`, and any operator under `!`.
        let wrapped = |x: &'_ Formula, under_and: bool, f: &mut fmt::Formatter<'_>| match x {
            Formula::Or(..) => write!(f, "({})", Shown(x, m)),
            Formula::And(..) if !under_and => write!(f, "({})", Shown(x, m)),
            _ => write!(f, "{}", Shown(x, m)),
        };
        match self.0 {
            Formula::In(s) => write!(f, "in({})", m.state(*s).name),
            Formula::Terminal => f.write_str("terminal"),
            Formula::Not(x) => {
                f.write_str("!")?;
                wrapped(x, false, f)
            }
            Formula::And(a, b) => {
                wrapped(a, true, f)?;
                f.write_str(" && ")?;
                wrapped(b, true, f)
            }
            Formula::Or(a, b) => write!(f, "{} || {}", Shown(a, m), Shown(b, m)),
        }
    }
}

/// A recursive descent over the text: `||` binds loosest, then `&&`, then
/// `!`, as in guards.
struct Parser<'a> {
    machine: &'a Machine,
    text: &'a str,
    at: usize,
    nodes: usize,
}

impl Parser<'_> {
    fn error(&self, message: String) -> FormulaError {
        FormulaError {
            offset: self.at,
            message,
        }
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.text[self.at..].starts_with(token) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    /// The word at the cursor, for messages.
    fn rest_word(&self) -> &str {
        let rest = &self.text[self.at..];
        let end = rest
            .char_indices()
            .find(|&(i, c)| i > 0 && (c.is_whitespace() || "()!&|".contains(c)))
            .map_or(rest.len(), |(i, _)| i);
        &rest[..end]
    }

    fn identifier(&mut self) -> &str {
        self.skip_space();
        let rest = &self.text[self.at..];
        let end = rest
            .char_indices()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(rest.len(), |(i, _)| i);
        self.at += end;
        &rest[..end]
    }

    fn node(&mut self) -> Result<(), FormulaError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.error(format!(
                "the formula has more than {MAX_NODES} operators and atoms"
            )));
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Formula, FormulaError> {
        let mut left = self.and()?;
        while self.eat("||") {
            self.node()?;
            left = Formula::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Formula, FormulaError> {
        let mut left = self.unary()?;
        while self.eat("&&") {
            self.node()?;
            left = Formula::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Formula, FormulaError> {
        self.node()?;
        if self.eat("!") {
            return Ok(Formula::Not(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let inner = self.or()?;
            if !self.eat(")") {
                return Err(self.error("expected `)`".into()));
            }
            return Ok(inner);
        }
        let start = self.at;
        match self.identifier() {
            "terminal" => Ok(Formula::Terminal),
            "in" => {
                if !self.eat("(") {
                    return Err(self.error("expected `(` after `in`".into()));
                }
                self.skip_space();
                let at = self.at;
                let name = self.identifier().to_owned();
                let machine = self.machine;
                let Some(state) = machine.state_by_name(&name) else {
                    let names = machine.states.iter().map(|s| s.name.as_str());
                    let hint = crate::closest(&name, names)
                        .map(|c| format!(" (did you mean `{c}`?)"))
                        .unwrap_or_default();
                    let message = if name.is_empty() {
                        "expected a state name in `in(...)`".to_owned()
                    } else {
                        format!("machine `{}` has no state `{name}`{hint}", machine.name)
                    };
                    return Err(FormulaError { offset: at, message });
                };
                if !self.eat(")") {
                    return Err(self.error("expected `)` after the state name".into()));
                }
                Ok(Formula::In(state))
            }
            "" => {
                self.at = start;
                let found = self.rest_word();
                Err(self.error(if found.is_empty() {
                    "expected `in(STATE)`, `terminal`, `!` or `(`, found the end of the formula".into()
                } else {
                    format!("expected `in(STATE)`, `terminal`, `!` or `(`, found `{found}`")
                }))
            }
            word => {
                let word = word.to_owned();
                self.at = start;
                Err(self.error(format!(
                    "expected `in(STATE)`, `terminal`, `!` or `(`, found `{word}` (a state is written `in({word})`)"
                )))
            }
        }
    }
}
