//! [`DefinitionBuilder`]: a definition from code, by name, in the shape of a
//! string-keyed FSM strategy builder.
//!
//! The builder validates nothing itself beyond what it must: it writes the
//! machine as `.fsm` text and hands that to the front end, so a built
//! definition passed exactly the checks of `fsmc check`, with the same
//! diagnostics. Only what cannot be written as `.fsm` at all (a name that is
//! not an identifier, a transition from a state never declared) is reported
//! before that, as [`BuilderProblem`]s.

use super::builder_problem::{BuilderProblem, NameKind, StateUse};
use super::definition::Definition;
use super::definition_error::DefinitionError;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Builds a [`Definition`] from states and transitions given by name.
///
/// States are declared with [`state`](Self::state), [`initial`](Self::initial)
/// or [`terminal`](Self::terminal), in the order they are first mentioned;
/// declaring one again only adds the modifier. Transitions keep the order they
/// were added in within their state, which, with priorities, decides which
/// candidate is tried first.
///
/// ```
/// use fsm_dynamic::{Definition, TransitionDef};
///
/// let definition = Definition::builder("Review")
///     .initial("idle")
///     .state("running")
///     .state("revising")
///     .terminal("done")
///     .transition("idle", "start", "running")
///     .transition("running", "finish", "done")
///     .guarded_transition("running", "review", "done", "quality_guard", 1)
///     .transition("running", "review", "revising")
///     .add_transition(TransitionDef::on("revising", "restart").to("running").emit("notify"))
///     .build()?;
/// assert_eq!(definition.guard_names().collect::<Vec<_>>(), ["quality_guard"]);
/// # Ok::<(), fsm_dynamic::DefinitionError>(())
/// ```
#[derive(Clone, Debug)]
pub struct DefinitionBuilder {
    machine: String,
    states: Vec<StateDef>,
    hooks: Vec<Hook>,
    transitions: Vec<TransitionDef>,
}

/// A declared state.
#[derive(Clone, Debug)]
struct StateDef {
    name: String,
    initial: bool,
    terminal: bool,
}

/// An `enter emit` or `exit emit` of one output.
#[derive(Clone, Debug)]
struct Hook {
    state: String,
    exit: bool,
    output: String,
}

/// A transition for [`DefinitionBuilder::add_transition`]: from a state or from every
/// state (`any`), on an action, with an optional guard, priority, target and
/// outputs.
///
/// Without [`to`](Self::to) it is an internal transition: it emits its
/// outputs and stays, without running exit and enter outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransitionDef {
    from: Option<String>,
    action: String,
    guard: Option<String>,
    priority: i32,
    target: Option<String>,
    emits: Vec<String>,
}

impl TransitionDef {
    /// A transition from state `from` on `action`.
    pub fn on(from: &str, action: &str) -> Self {
        TransitionDef::new(Some(from.to_owned()), action)
    }

    /// A transition on `action` from every non-terminal state: an `any`
    /// transition, tried after the state's own ones of the same priority.
    pub fn on_any(action: &str) -> Self {
        TransitionDef::new(None, action)
    }

    fn new(from: Option<String>, action: &str) -> Self {
        TransitionDef {
            from,
            action: action.to_owned(),
            guard: None,
            priority: 0,
            target: None,
            emits: Vec::new(),
        }
    }

    /// The state it leads to.
    pub fn to(mut self, target: &str) -> Self {
        self.target = Some(target.to_owned());
        self
    }

    /// Its guard: a guard name, or an expression of guard names with `!`,
    /// `&&`, `||` and parentheses (`"ready && !cancelled"`).
    pub fn guard(mut self, guard: &str) -> Self {
        self.guard = Some(guard.to_owned());
        self
    }

    /// Its priority: candidates with a higher one are tried first. 0 unless
    /// given.
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    /// Add an output to emit when it fires.
    pub fn emit(mut self, output: &str) -> Self {
        self.emits.push(output.to_owned());
        self
    }
}

impl DefinitionBuilder {
    /// A builder for machine `machine`, with nothing in it.
    pub fn new(machine: &str) -> Self {
        DefinitionBuilder {
            machine: machine.to_owned(),
            states: Vec::new(),
            hooks: Vec::new(),
            transitions: Vec::new(),
        }
    }

    /// Declare state `name`.
    pub fn state(mut self, name: &str) -> Self {
        self.declare(name);
        self
    }

    /// Declare state `name` and make it the initial state.
    pub fn initial(mut self, name: &str) -> Self {
        self.declare(name).initial = true;
        self
    }

    /// Declare state `name` and make it terminal: no action is valid in it,
    /// and `any` transitions do not apply to it.
    pub fn terminal(mut self, name: &str) -> Self {
        self.declare(name).terminal = true;
        self
    }

    fn declare(&mut self, name: &str) -> &mut StateDef {
        let index = match self.states.iter().position(|s| s.name == name) {
            Some(index) => index,
            None => {
                self.states.push(StateDef {
                    name: name.to_owned(),
                    initial: false,
                    terminal: false,
                });
                self.states.len() - 1
            }
        };
        &mut self.states[index]
    }

    /// Emit `output` whenever `state` is entered by a transition (after the
    /// transition's own outputs).
    pub fn enter_emit(mut self, state: &str, output: &str) -> Self {
        self.hooks.push(Hook {
            state: state.to_owned(),
            exit: false,
            output: output.to_owned(),
        });
        self
    }

    /// Emit `output` whenever a transition leaves `state` (before the
    /// transition's own outputs).
    pub fn exit_emit(mut self, state: &str, output: &str) -> Self {
        self.hooks.push(Hook {
            state: state.to_owned(),
            exit: true,
            output: output.to_owned(),
        });
        self
    }

    /// An unguarded transition from `from` on `action` to `to`.
    pub fn transition(self, from: &str, action: &str, to: &str) -> Self {
        self.add_transition(TransitionDef::on(from, action).to(to))
    }

    /// A guarded transition from `from` on `action` to `to`, tried before
    /// the candidates of lower `priority`. See [`TransitionDef::guard`].
    pub fn guarded_transition(self, from: &str, action: &str, to: &str, guard: &str, priority: i32) -> Self {
        self.add_transition(
            TransitionDef::on(from, action)
                .to(to)
                .guard(guard)
                .priority(priority),
        )
    }

    /// An unguarded transition on `action` to `to` from every non-terminal
    /// state.
    pub fn any_transition(self, action: &str, to: &str) -> Self {
        self.add_transition(TransitionDef::on_any(action).to(to))
    }

    /// Add `transition`.
    pub fn add_transition(mut self, transition: TransitionDef) -> Self {
        self.transitions.push(transition);
        self
    }

    /// Check the machine with the checks of `fsmc check` and build it.
    pub fn build(&self) -> Result<Definition, DefinitionError> {
        let text = self.to_fsm()?;
        Definition::from_fsm(&text)
    }

    /// The machine as `.fsm` source in the canonical layout of `fsmc fmt`:
    /// states in the order they were declared, each with its hooks and its
    /// transitions in the order they were added, then one `any` block.
    ///
    /// The text is not checked; [`build`](Self::build) checks it. Fails only
    /// when something cannot be written as `.fsm`.
    pub fn to_fsm(&self) -> Result<String, DefinitionError> {
        let problems = self.problems();
        if !problems.is_empty() {
            return Err(DefinitionError::Builder {
                machine: self.machine.clone(),
                problems,
            });
        }
        let text = self.write();
        // The formatter breaks long lines; it accepts all the writer writes
        // except guards with syntax errors, which the checks then report.
        Ok(fsm_grammar::format::format(&text).unwrap_or(text))
    }

    /// Everything that cannot be written, in the order it was given.
    fn problems(&self) -> Vec<BuilderProblem> {
        let mut problems = Vec::new();
        let mut name = |kind: NameKind, name: &str| {
            if !is_identifier(name) {
                problems.push(BuilderProblem::InvalidName {
                    kind,
                    name: name.to_owned(),
                });
            }
        };
        name(NameKind::Machine, &self.machine);
        for state in &self.states {
            name(NameKind::State, &state.name);
        }
        for hook in &self.hooks {
            name(NameKind::Output, &hook.output);
        }
        for transition in &self.transitions {
            name(NameKind::Action, &transition.action);
            if let Some(target) = &transition.target {
                name(NameKind::State, target);
            }
            for output in &transition.emits {
                name(NameKind::Output, output);
            }
        }

        let undeclared = |state: &str, used_by: StateUse| {
            if self.states.iter().any(|s| s.name == state) {
                return None;
            }
            let declared = self.states.iter().map(|s| s.name.as_str());
            Some(BuilderProblem::UndeclaredState {
                state: state.to_owned(),
                used_by,
                suggestion: fsm_grammar::closest(state, declared).map(str::to_owned),
            })
        };
        for hook in &self.hooks {
            let used_by = if hook.exit {
                StateUse::Exit
            } else {
                StateUse::Enter
            };
            problems.extend(undeclared(&hook.state, used_by));
        }
        for transition in &self.transitions {
            if let Some(from) = &transition.from {
                let used_by = StateUse::Transition {
                    action: transition.action.clone(),
                };
                problems.extend(undeclared(from, used_by));
            }
            if let Some(guard) = &transition.guard {
                let character = guard.chars().find(|&c| !is_guard_char(c));
                if character.is_some() || guard.trim().is_empty() {
                    problems.push(BuilderProblem::InvalidGuard {
                        action: transition.action.clone(),
                        guard: guard.clone(),
                        character,
                    });
                }
            }
        }
        problems
    }

    /// The `.fsm` text; every name was checked by [`Self::problems`].
    fn write(&self) -> String {
        let index: HashMap<&str, usize> = self
            .states
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect();
        let mut enter = vec![Vec::new(); self.states.len()];
        let mut exit = vec![Vec::new(); self.states.len()];
        for hook in &self.hooks {
            let hooks = if hook.exit { &mut exit } else { &mut enter };
            hooks[index[hook.state.as_str()]].push(hook.output.as_str());
        }
        let mut own = vec![Vec::new(); self.states.len()];
        let mut any = Vec::new();
        for transition in &self.transitions {
            match &transition.from {
                Some(from) => own[index[from.as_str()]].push(transition),
                None => any.push(transition),
            }
        }

        let mut out = format!("machine {} {{\n", self.machine);
        for (i, state) in self.states.iter().enumerate() {
            out.push_str("    ");
            if state.initial {
                out.push_str("initial ");
            }
            if state.terminal {
                out.push_str("terminal ");
            }
            let _ = write!(out, "state {}", state.name);
            if enter[i].is_empty() && exit[i].is_empty() && own[i].is_empty() {
                out.push_str(";\n");
                continue;
            }
            out.push_str(" {\n");
            for (keyword, outputs) in [("enter", &enter[i]), ("exit", &exit[i])] {
                if !outputs.is_empty() {
                    let _ = writeln!(out, "        {keyword} emit {};", outputs.join(", "));
                }
            }
            for transition in &own[i] {
                write_transition(&mut out, transition);
            }
            out.push_str("    }\n");
        }
        if !any.is_empty() {
            out.push_str("    any {\n");
            for transition in any {
                write_transition(&mut out, transition);
            }
            out.push_str("    }\n");
        }
        out.push_str("}\n");
        out
    }
}

/// `        on action [guard] priority 1 -> target emit a, b;`
fn write_transition(out: &mut String, transition: &TransitionDef) {
    let _ = write!(out, "        on {}", transition.action);
    if let Some(guard) = &transition.guard {
        let _ = write!(out, " [{}]", guard.trim());
    }
    if transition.priority != 0 {
        let _ = write!(out, " priority {}", transition.priority);
    }
    if let Some(target) = &transition.target {
        let _ = write!(out, " -> {target}");
    }
    if !transition.emits.is_empty() {
        let _ = write!(out, " emit {}", transition.emits.join(", "));
    }
    out.push_str(";\n");
}

/// An identifier of the `.fsm` language: `[A-Za-z_][A-Za-z0-9_]*`.
/// Keywords are contextual, so every identifier is a valid name.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A character of a guard expression: names, operators, parentheses and
/// spaces. Anything else (`]`, `;`, `/`) could end the guard or start a
/// comment and change the meaning of the text around it.
fn is_guard_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '!' | '&' | '|' | '(' | ')' | ' ' | '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_canonical_layout() {
        let builder = DefinitionBuilder::new("Agent")
            .initial("waiting")
            .state("calling")
            .terminal("shut_down")
            .enter_emit("calling", "start_timer")
            .exit_emit("calling", "stop_timer")
            .add_transition(
                TransitionDef::on("waiting", "user_input")
                    .to("calling")
                    .emit("send_llm_request"),
            )
            .add_transition(TransitionDef::on("calling", "text_delta").emit("display_text"))
            .guarded_transition("calling", "llm_error", "waiting", "retries_left && !fatal", -1)
            .any_transition("shutdown", "shut_down");
        let text = builder.to_fsm().unwrap();
        assert_eq!(
            text,
            "machine Agent {
    initial state waiting {
        on user_input -> calling emit send_llm_request;
    }
    state calling {
        enter emit start_timer;
        exit emit stop_timer;
        on text_delta emit display_text;
        on llm_error [retries_left && !fatal] priority -1 -> waiting;
    }
    terminal state shut_down;
    any {
        on shutdown -> shut_down;
    }
}
"
        );
        assert_eq!(fsm_grammar::format::format(&text).unwrap(), text);
    }

    #[test]
    fn redeclaring_a_state_adds_modifiers_in_place() {
        let text = DefinitionBuilder::new("M")
            .state("a")
            .state("b")
            .initial("a")
            .terminal("b")
            .state("a")
            .to_fsm()
            .unwrap();
        assert_eq!(
            text,
            "machine M {\n    initial state a;\n    terminal state b;\n}\n"
        );
    }

    #[test]
    fn identifiers() {
        for ok in ["a", "_", "_a1", "Abc_9", "state", "on"] {
            assert!(is_identifier(ok), "{ok}");
        }
        for bad in ["", "1a", "a-b", "a b", "é", "a;", "a}"] {
            assert!(!is_identifier(bad), "{bad}");
        }
    }

    #[test]
    fn reports_everything_that_cannot_be_written() {
        let error = DefinitionBuilder::new("my machine")
            .initial("idle")
            .state("bad state")
            .exit_emit("idel", "o")
            .add_transition(
                TransitionDef::on("idle", "go")
                    .to("x y")
                    .emit("a.b")
                    .guard("ok]; state evil"),
            )
            .transition("runing", "stop", "idle")
            .add_transition(TransitionDef::on_any("reset").to("idle").guard("  "))
            .to_fsm()
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "the builder's definition of machine `my machine` has 8 problems:
- `my machine` is not a valid machine name: a name is ASCII letters, digits and `_`, and does not start with a digit
- `bad state` is not a valid state name: a name is ASCII letters, digits and `_`, and does not start with a digit
- `x y` is not a valid state name: a name is ASCII letters, digits and `_`, and does not start with a digit
- `a.b` is not a valid output name: a name is ASCII letters, digits and `_`, and does not start with a digit
- exit outputs are given for state `idel`, which is not declared (did you mean `idle`?)
- the guard `ok]; state evil` of the transition on `go` contains `]`: a guard is guard names joined by `!`, `&&`, `||` and parentheses
- the transition on `stop` leaves state `runing`, which is not declared; declare it with `.state(\"runing\")`
- the guard `  ` of the transition on `reset` is empty: a guard is guard names joined by `!`, `&&`, `||` and parentheses"
        );
    }
}
