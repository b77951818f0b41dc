//! [`Definition`]: a checked machine with its names interned and its
//! selection tables built, ready for any number of engines.

use super::builder::DefinitionBuilder;
use super::definition_error::DefinitionError;
use super::ids::{ActionId, OutputId, StateId};
use super::name_index::NameIndex;
use super::tables::Tables;
use crate::snapshot::{FingerprintPolicy, Snapshot};
use crate::RestoreError;
use fsm_grammar::interchange::ImportDiagnostic;
use fsm_grammar::model::Machine;
use fsm_grammar::{Checked, Diagnostic};
use std::fmt;

/// A machine definition for the dynamic engine, built from `.fsm` text
/// ([`Definition::from_fsm`]), from JSON ([`Definition::from_json`]), from a
/// [`DefinitionBuilder`], or from a checked model
/// ([`Definition::from_machine`]).
///
/// Every way goes through the front end of `fsmc`: the definition passed the
/// same checks as `fsmc check`, and has the same [fingerprint](Self::fingerprint)
/// as code generated from the same source.
///
/// A definition is immutable. Share one between engines with an
/// [`Arc`](std::sync::Arc).
#[derive(Clone)]
pub struct Definition {
    machine: Machine,
    fingerprint: Box<str>,
    states: NameIndex,
    actions: NameIndex,
    outputs: NameIndex,
    pub(crate) tables: Tables,
    warnings: Vec<Diagnostic>,
    import_warnings: Vec<ImportDiagnostic>,
}

impl Definition {
    /// The only machine of `text`, in the `.fsm` language.
    ///
    /// Fails with the diagnostics of `fsmc check` when the text has errors,
    /// and when it defines no machine or several (see
    /// [`Definition::from_fsm_named`]).
    ///
    /// ```
    /// use fsm_runtime::dynamic::Definition;
    ///
    /// let definition = Definition::from_fsm("machine Door { initial state closed { on open -> opened; } state opened { on close -> closed; } }")?;
    /// assert_eq!(definition.name(), "Door");
    ///
    /// let error = Definition::from_fsm("machine Door { initial state closed { on open -> opend; } state opened; }").unwrap_err();
    /// assert!(error.to_string().contains("targets unknown state `opend`"));
    /// # Ok::<(), fsm_runtime::dynamic::DefinitionError>(())
    /// ```
    pub fn from_fsm(text: &str) -> Result<Definition, DefinitionError> {
        Definition::from_checked(text, fsm_grammar::check(text), None)
    }

    /// The machine called `name` in `text`, which may define several. The
    /// whole text must check without errors, as for `fsmc check`.
    pub fn from_fsm_named(text: &str, name: &str) -> Result<Definition, DefinitionError> {
        Definition::from_checked(text, fsm_grammar::check(text), Some(name))
    }

    /// A builder for a definition, shaped like a string-keyed FSM strategy
    /// builder: states, transitions, guards and priorities, by name.
    pub fn builder(machine: &str) -> DefinitionBuilder {
        DefinitionBuilder::new(machine)
    }

    /// The definition of `machine`, which must come from a text without
    /// errors ([`fsm_grammar::Checked::into_model`]). A machine from a text
    /// with errors gives a definition that behaves as its model says, which
    /// is not necessarily what the text meant.
    ///
    /// # Panics
    ///
    /// If the machine has nested states, which the engine does not run yet:
    /// running them flat would be wrong, silently. [`Definition::from_fsm`]
    /// returns [`DefinitionError::Unsupported`] instead.
    pub fn from_machine(machine: &Machine) -> Definition {
        // TODO(issue 10): run nested machines (Machine::step gives the path).
        if let Some((construct, span)) = machine.unsupported_nesting() {
            panic!(
                "machine `{}` uses {construct} (bytes {}..{}), which the dynamic engine does not support yet",
                machine.name, span.start, span.end
            );
        }
        Definition::new(machine.clone(), Vec::new())
    }

    /// Pick the machine from a checked text.
    pub(crate) fn from_checked(
        text: &str,
        checked: Checked,
        name: Option<&str>,
    ) -> Result<Definition, DefinitionError> {
        if checked.has_errors() {
            return Err(DefinitionError::Check {
                text: text.to_owned(),
                diagnostics: checked.diagnostics,
            });
        }
        let names = || checked.model.machines.iter().map(|m| m.name.clone()).collect();
        let index = match name {
            Some(name) => checked
                .model
                .machines
                .iter()
                .position(|m| m.name == name)
                .ok_or_else(|| DefinitionError::UnknownMachine {
                    name: name.to_owned(),
                    known: names(),
                })?,
            None => match checked.model.machines.len() {
                0 => return Err(DefinitionError::NoMachine),
                1 => 0,
                _ => return Err(DefinitionError::SeveralMachines { names: names() }),
            },
        };
        // The warnings inside this machine's text (all of them belong to
        // some machine, and machines do not overlap).
        let ast = checked
            .file
            .machines
            .iter()
            .find(|m| m.name.name == checked.model.machines[index].name);
        let warnings = checked
            .diagnostics
            .into_iter()
            .filter(|d| ast.is_none_or(|m| m.span.start <= d.span.start && d.span.end <= m.span.end))
            .collect();
        let machine = checked
            .model
            .machines
            .into_iter()
            .nth(index)
            .expect("index found above");
        // TODO(issue 10): run nested machines.
        if let Some((construct, span)) = machine.unsupported_nesting() {
            return Err(DefinitionError::Unsupported {
                machine: machine.name,
                construct,
                span,
            });
        }
        Ok(Definition::new(machine, warnings))
    }

    fn new(machine: Machine, warnings: Vec<Diagnostic>) -> Definition {
        Definition {
            fingerprint: machine.fingerprint().into(),
            states: NameIndex::new(machine.states.iter().map(|s| s.name.as_str())),
            actions: NameIndex::new(machine.actions.iter().map(|a| a.name.as_str())),
            outputs: NameIndex::new(machine.outputs.iter().map(|o| o.name.as_str())),
            tables: Tables::new(&machine),
            machine,
            warnings,
            import_warnings: Vec::new(),
        }
    }

    /// The same definition, remembering the warnings of the JSON import it
    /// came from.
    pub(crate) fn with_import_warnings(mut self, warnings: Vec<ImportDiagnostic>) -> Definition {
        self.import_warnings = warnings;
        self
    }

    /// The machine's name, as written.
    pub fn name(&self) -> &str {
        &self.machine.name
    }

    /// A stable hash of the machine's canonical definition (16 hex digits),
    /// the same as generated code's `FINGERPRINT` for the same source.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The checked model of the machine, for everything the front end can do
    /// with it (JSON export, diagrams, the canonical text).
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The warnings `fsmc check` reports for the machine (errors would have
    /// refused it). Empty for [`Definition::from_machine`].
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// For a definition from JSON, the warnings of the import, located by
    /// JSON path: names rewritten to be valid `.fsm` names
    /// (`fsm.transition` becomes `fsm_transition`), and the warnings of the
    /// checks. Empty for other definitions.
    pub fn import_warnings(&self) -> &[ImportDiagnostic] {
        &self.import_warnings
    }

    /// The machine as a JSON document, in the format that
    /// [`Definition::from_json`] reads and `fsmc export` writes.
    pub fn to_json(&self) -> String {
        fsm_grammar::interchange::to_json(&self.machine)
    }

    /// The initial state.
    pub fn initial(&self) -> StateId {
        StateId::from_index(self.machine.initial.index())
    }

    /// Every state, in declaration order.
    pub fn states(&self) -> impl ExactSizeIterator<Item = StateId> {
        (0..self.machine.states.len()).map(StateId::from_index)
    }

    /// Every action: declared ones first, then in order of first use.
    pub fn actions(&self) -> impl ExactSizeIterator<Item = ActionId> {
        (0..self.machine.actions.len()).map(ActionId::from_index)
    }

    /// Every output: declared ones first, then in order of first use.
    pub fn outputs(&self) -> impl ExactSizeIterator<Item = OutputId> {
        (0..self.machine.outputs.len()).map(OutputId::from_index)
    }

    /// The name of every guard: declared ones first, then in order of first
    /// use. An engine binds each of them.
    pub fn guard_names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.machine.guards.iter().map(|g| g.name.as_str())
    }

    /// The name of every effect: declared ones first, then in order of
    /// first use. An engine binds each of them.
    pub fn effect_names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.machine.effects.iter().map(|e| e.name.as_str())
    }

    /// The name of every declared delay. An engine binds each of them.
    pub fn delay_names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.machine.delays.iter().map(|d| d.name.as_str())
    }

    /// True when the machine declares a context (`context T;`): its
    /// snapshots carry the engine's context.
    pub fn has_context(&self) -> bool {
        self.machine.context.is_some()
    }

    /// The name of `state`.
    ///
    /// # Panics
    ///
    /// When `state` is not a state of this definition.
    pub fn state_name(&self, state: StateId) -> &str {
        &self.machine.states[state.index()].name
    }

    /// The name of `action`.
    ///
    /// # Panics
    ///
    /// When `action` is not an action of this definition.
    pub fn action_name(&self, action: ActionId) -> &str {
        &self.machine.actions[action.index()].name
    }

    /// The name of `output`.
    ///
    /// # Panics
    ///
    /// When `output` is not an output of this definition.
    pub fn output_name(&self, output: OutputId) -> &str {
        &self.machine.outputs[output.index()].name
    }

    /// The state called `name`.
    pub fn state_id(&self, name: &str) -> Option<StateId> {
        self.states.get(name).map(StateId::from_index)
    }

    /// The action called `name`: resolve it once, then fire it with
    /// [`Engine::fire_id`](super::Engine::fire_id) in a hot loop.
    #[inline]
    pub fn action_id(&self, name: &str) -> Option<ActionId> {
        self.actions.get(name).map(ActionId::from_index)
    }

    /// The output called `name`.
    pub fn output_id(&self, name: &str) -> Option<OutputId> {
        self.outputs.get(name).map(OutputId::from_index)
    }

    /// True when `state` is terminal: no action is valid in it.
    ///
    /// # Panics
    ///
    /// When `state` is not a state of this definition.
    pub fn is_terminal(&self, state: StateId) -> bool {
        self.machine.states[state.index()].is_terminal()
    }

    /// The actions that have a transition in `state`, whether or not its
    /// guards would let it fire, in the order of [`Definition::actions`].
    /// Empty for terminal states. The same list as generated code's
    /// `valid_actions_in`.
    ///
    /// # Panics
    ///
    /// When `state` is not a state of this definition.
    pub fn valid_actions(&self, state: StateId) -> &[ActionId] {
        self.tables.valid_actions(state)
    }

    /// The state `snapshot` holds. Checks, in this order and with the same
    /// errors as generated code's `restore_with`, that it is a snapshot of
    /// this machine, that the definition is the same (unless `policy`
    /// ignores that), and that the state exists.
    pub fn state_of(&self, snapshot: &Snapshot, policy: FingerprintPolicy) -> Result<StateId, RestoreError> {
        if snapshot.machine() != self.name() {
            return Err(RestoreError::OtherMachine {
                expected: self.name().to_owned(),
                found: snapshot.machine().to_owned(),
            });
        }
        if policy == FingerprintPolicy::Strict && snapshot.fingerprint() != self.fingerprint() {
            return Err(RestoreError::FingerprintMismatch {
                machine: self.name().to_owned(),
                expected: self.fingerprint().to_owned(),
                found: snapshot.fingerprint().to_owned(),
            });
        }
        self.state_id(snapshot.current_state())
            .ok_or_else(|| RestoreError::UnknownState {
                machine: self.name().to_owned(),
                state: snapshot.current_state().to_owned(),
                known: self.machine.states.iter().map(|s| s.name.clone()).collect(),
            })
    }

    /// A snapshot of this machine in `state`.
    ///
    /// # Panics
    ///
    /// When `state` is not a state of this definition.
    pub fn snapshot_in(&self, state: StateId) -> Snapshot {
        Snapshot::new(
            self.name().to_owned(),
            self.fingerprint().to_owned(),
            self.state_name(state).to_owned(),
        )
    }
}

impl fmt::Debug for Definition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Definition")
            .field("name", &self.name())
            .field("fingerprint", &self.fingerprint())
            .field("states", &self.machine.states.len())
            .field("actions", &self.machine.actions.len())
            .field("guards", &self.machine.guards.len())
            .field("outputs", &self.machine.outputs.len())
            .field("transitions", &self.machine.transitions.len())
            .finish()
    }
}
