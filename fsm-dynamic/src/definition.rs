//! [`Definition`]: a checked machine with its names interned and its
//! selection tables built, ready for any number of engines.

use super::builder::DefinitionBuilder;
use super::definition_error::DefinitionError;
use super::engine::ConfiguredPlan;
use super::ids::{ActionId, OutputId, StateId};
use super::name_index::NameIndex;
use super::tables::Tables;
use fsm_grammar::interchange::ImportDiagnostic;
use fsm_grammar::model::{Configuration, Machine};
use fsm_grammar::{Checked, Diagnostic};
use fsm_runtime::RestoreError;
use fsm_runtime::{FingerprintPolicy, Snapshot};
use std::fmt;
use std::sync::Arc;

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
    /// For a machine with parallel states, whose steps run over
    /// configurations: the plan they render.
    pub(crate) configured: Option<Box<ConfiguredPlan>>,
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
    /// use fsm_dynamic::Definition;
    ///
    /// let definition = Definition::from_fsm("machine Door { initial state closed { on open -> opened; } state opened { on close -> closed; } }")?;
    /// assert_eq!(definition.name(), "Door");
    ///
    /// let error = Definition::from_fsm("machine Door { initial state closed { on open -> opend; } state opened; }").unwrap_err();
    /// assert!(error.to_string().contains("targets unknown state `opend`"));
    /// # Ok::<(), fsm_dynamic::DefinitionError>(())
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

    /// The most states a machine may have: its configurations are sets of
    /// at most this many state ids, in fixed arrays, for the one step
    /// (`fsm_step::MAX_STATES`); the checks refuse a larger machine
    /// (`too-many-states`).
    pub const MAX_STATES: usize = fsm_runtime::__private::chart::MAX_STATES;

    /// [`MAX_STATES`](Self::MAX_STATES), which holds for every machine.
    #[deprecated(note = "the limit holds for every machine: use `Definition::MAX_STATES`")]
    pub const MAX_PARALLEL_STATES: usize = Definition::MAX_STATES;

    /// The definition of `machine`, which must come from a text without
    /// errors ([`fsm_grammar::Checked::into_model`]). A machine from a text
    /// with errors gives a definition that behaves as its model says, which
    /// is not necessarily what the text meant.
    ///
    /// # Panics
    ///
    /// When the machine has more than [`MAX_STATES`](Self::MAX_STATES)
    /// states;
    /// [`try_from_machine`](Self::try_from_machine) and the constructors
    /// from text and JSON return [`DefinitionError::TooLarge`] instead.
    pub fn from_machine(machine: &Machine) -> Definition {
        match Definition::try_from_machine(machine) {
            Ok(definition) => definition,
            Err(error) => panic!("{error}"),
        }
    }

    /// [`from_machine`](Self::from_machine), or
    /// [`DefinitionError::TooLarge`] for a machine with more than
    /// [`MAX_STATES`](Self::MAX_STATES) states.
    pub fn try_from_machine(machine: &Machine) -> Result<Definition, DefinitionError> {
        Definition::size_allowed(machine)?;
        Ok(Definition::new(machine.clone(), Vec::new()))
    }

    /// `Err(TooLarge)` for a machine with more than
    /// [`MAX_STATES`](Self::MAX_STATES) states.
    fn size_allowed(machine: &Machine) -> Result<(), DefinitionError> {
        if machine.states.len() > Definition::MAX_STATES {
            return Err(DefinitionError::TooLarge {
                machine: machine.name.clone(),
                states: machine.states.len(),
            });
        }
        Ok(())
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
        Definition::size_allowed(&machine)?;
        Ok(Definition::new(machine, warnings))
    }

    fn new(machine: Machine, warnings: Vec<Diagnostic>) -> Definition {
        let plan = fsm_grammar::plan::Plan::new(&machine);
        Definition {
            fingerprint: machine.fingerprint().into(),
            states: NameIndex::new(machine.states.iter().map(|s| s.name.as_str())),
            actions: NameIndex::new(machine.actions.iter().map(|a| a.name.as_str())),
            outputs: NameIndex::new(machine.outputs.iter().map(|o| o.name.as_str())),
            tables: Tables::new(&machine, &plan),
            // A machine without parallel states has one active leaf: its
            // `always` and `done` steps run from the tables, as code
            // generation lays them out.
            configured: machine
                .has_parallel()
                .then(|| Box::new(ConfiguredPlan::new(&machine, plan))),
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

    /// The state an engine starts in: the initial state or, when that one
    /// holds states, the leaf its chain of initial children ends in.
    pub fn initial(&self) -> StateId {
        StateId::from_index(self.machine.initial_leaf().index())
    }

    /// Every state, in declaration order: with nested states, composites
    /// and leaves alike, each after the state holding it.
    pub fn states(&self) -> impl ExactSizeIterator<Item = StateId> {
        (0..self.machine.states.len()).map(StateId::from_index)
    }

    /// True when `state` holds states. A composite state is never the
    /// current state: the machine is in one of the leaves inside it.
    ///
    /// # Panics
    ///
    /// When `state` is not a state of this definition.
    pub fn is_composite(&self, state: StateId) -> bool {
        self.machine.states[state.index()].is_composite()
    }

    /// The states holding `state`, innermost first: empty for a state at the
    /// top level, and so for every state of a flat machine. Generated code's
    /// `ancestors()`.
    ///
    /// # Panics
    ///
    /// When `state` is not a state of this definition.
    pub fn ancestors(&self, state: StateId) -> &[StateId] {
        self.tables.ancestors(state)
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

    /// The delay of timer number `timer` of `state`, as written: `30s`, or
    /// the name of a delay. For the reports of a timer that came due.
    pub(crate) fn delay_text(&self, state: StateId, timer: usize) -> String {
        let state = self
            .machine
            .state_ids()
            .nth(state.index())
            .expect("a state of the definition");
        let (_, timer) = self
            .machine
            .timers_of(state)
            .nth(timer)
            .expect("a timer that came due is a timer of its state");
        self.machine.delay_text(timer.expect_delay())
    }

    /// The name of `action`.
    ///
    /// # Panics
    ///
    /// When `action` is not an action of this definition.
    pub fn action_name(&self, action: ActionId) -> &str {
        &self.machine.actions[action.index()].name
    }

    /// The name of `state`, shared: what a history entry holds.
    pub(crate) fn shared_state_name(&self, state: StateId) -> &Arc<str> {
        self.states.name(state.index())
    }

    /// The name of `action`, shared: what a history entry holds.
    pub(crate) fn shared_action_name(&self, action: ActionId) -> &Arc<str> {
        self.actions.name(action.index())
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

    /// True when `state` is terminal: no action is valid in it (a composite
    /// state never is).
    ///
    /// # Panics
    ///
    /// When `state` is not a state of this definition.
    pub fn is_terminal(&self, state: StateId) -> bool {
        self.machine.states[state.index()].is_terminal()
    }

    /// The actions that have a transition in `state`, whether or not its
    /// guards would let it fire, in the order of [`Definition::actions`]:
    /// its own, those it inherits from the states holding it, and `any`'s.
    /// Empty for terminal states and for composite states (the machine is
    /// never in one but in a leaf inside it). The same list as generated
    /// code's `valid_actions_in`.
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
    /// ignores that), and that the state exists and is a leaf (a composite
    /// state is never current; [`RestoreError::UnknownState`] lists the
    /// leaves).
    ///
    /// For a machine with parallel states, `final` states, `done`, `always`
    /// or `in(...)`, the leaves the snapshot names must form a configuration
    /// of the machine (the one step's rule, `Chart::configuration_of_leaves`,
    /// which generated code applies too; [`RestoreError::InvalidConfiguration`]
    /// says what is wrong), and the state returned is the innermost state
    /// holding every active leaf.
    pub fn state_of(&self, snapshot: &Snapshot, policy: FingerprintPolicy) -> Result<StateId, RestoreError> {
        self.check_identity(snapshot, policy)?;
        if self.configured.is_some() {
            let config = self.configuration_of(snapshot)?;
            return Ok(crate::engine::summary_of(&self.machine, &config));
        }
        self.state_id(snapshot.current_state())
            .filter(|&state| !self.is_composite(state))
            .ok_or_else(|| RestoreError::UnknownState {
                machine: self.name().to_owned(),
                state: snapshot.current_state().to_owned(),
                known: self
                    .machine
                    .leaves()
                    .map(|s| self.machine.state(s).name.clone())
                    .collect(),
            })
    }

    /// The configuration the leaves of `snapshot` form, checked by the one
    /// step's rule. Only for a definition over configurations.
    pub(crate) fn configuration_of(&self, snapshot: &Snapshot) -> Result<Configuration, RestoreError> {
        let m = &self.machine;
        let mut leaves = Vec::with_capacity(snapshot.leaves().len());
        for name in snapshot.leaves() {
            match self.state_id(name).filter(|&s| !self.is_composite(s)) {
                Some(leaf) => leaves.push(fsm_grammar::model::StateId::from_index(leaf.index())),
                None => {
                    return Err(RestoreError::UnknownState {
                        machine: self.name().to_owned(),
                        state: name.to_string(),
                        known: m.leaves().map(|s| m.state(s).name.clone()).collect(),
                    })
                }
            }
        }
        let configured = self
            .configured
            .as_deref()
            .expect("a definition over configurations");
        let ids: Vec<u32> = leaves.iter().map(|l| l.index() as u32).collect();
        configured
            .leaves_configuration(m, &ids, None)
            .map(|states| {
                states
                    .into_iter()
                    .map(|s| fsm_grammar::model::StateId::from_index(s as usize))
                    .collect()
            })
            .map_err(|reason| RestoreError::InvalidConfiguration {
                machine: self.name().to_owned(),
                leaves: snapshot.leaves().iter().map(|l| l.to_string()).collect(),
                reason,
            })
    }

    /// Checks that `snapshot` is of this machine and, unless `policy`
    /// ignores it, of this definition.
    pub(crate) fn check_identity(
        &self,
        snapshot: &Snapshot,
        policy: FingerprintPolicy,
    ) -> Result<(), RestoreError> {
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
        Ok(())
    }

    /// The history memory `snapshot` carries, checked: per history slot,
    /// the leaf remembered. Every pair must name a composite state whose
    /// history some transition enters, once, and a leaf inside it.
    pub(crate) fn memory_of(&self, snapshot: &Snapshot) -> Result<Vec<Option<StateId>>, RestoreError> {
        let slots = self.tables.history_slots();
        let mut memory = vec![None; slots.len()];
        for (state, leaf) in snapshot.checked_last_active()? {
            let invalid = |reason: String| RestoreError::InvalidLastActive {
                machine: self.name().to_owned(),
                state: state.to_owned(),
                leaf: leaf.to_owned(),
                reason,
            };
            let Some(slot) = slots.iter().position(|s| self.state_name(s.composite) == state) else {
                return Err(invalid(format!(
                    "`{state}` is not a composite state that a transition enters through its history"
                )));
            };
            let Some(remembered) = self.state_id(leaf).filter(|&l| !self.is_composite(l)) else {
                return Err(invalid(format!("`{leaf}` is not a leaf state of the machine")));
            };
            if !self.tables.remembers(slot, remembered) {
                return Err(invalid(format!("`{leaf}` is not inside `{state}`")));
            }
            memory[slot] = Some(remembered);
        }
        Ok(memory)
    }

    /// A snapshot of this machine in `state`, with no timer armed and no
    /// history remembered.
    ///
    /// # Panics
    ///
    /// When `state` is not a state of this definition, or is a composite
    /// state (the machine is always in a leaf).
    pub fn snapshot_in(&self, state: StateId) -> Snapshot {
        assert!(
            !self.is_composite(state),
            "state `{}` of machine `{}` holds states: a snapshot names the leaf the machine is in",
            self.state_name(state),
            self.name()
        );
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
