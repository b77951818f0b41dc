//! Definitions from JSON machine documents (see `docs/json.md`), a format
//! that builds on the `execution_fsm_v1.json` format in which an execution
//! runtime declares its machines.
//!
//! There is one front end: the document is imported as `.fsm` source by
//! [`fsm_grammar::interchange::from_json`], which reports problems by JSON
//! path, and that source is checked and loaded like any other.

use super::definition::Definition;
use super::definition_error::DefinitionError;

impl Definition {
    /// The only machine of a JSON document: one machine object, or an array
    /// holding one.
    ///
    /// Names that are not identifiers of the `.fsm` language are rewritten
    /// by the import (`fsm.transition` becomes an identifier); the
    /// definition knows them by their rewritten names, and
    /// [`Definition::import_warnings`] says which.
    ///
    /// ```
    /// use fsm_dynamic::Definition;
    ///
    /// let definition = Definition::from_json(r#"{
    ///   "fsm_id": "execution",
    ///   "initial_state": "idle",
    ///   "terminal_states": ["done"],
    ///   "states": {
    ///     "idle": {"on": {"start": {"to": "done"}}},
    ///     "done": {}
    ///   }
    /// }"#)?;
    /// assert_eq!(definition.name(), "execution");
    /// # Ok::<(), fsm_dynamic::DefinitionError>(())
    /// ```
    pub fn from_json(text: &str) -> Result<Definition, DefinitionError> {
        Definition::from_json_machine(text, None)
    }

    /// The machine whose `fsm_id` is `name` in a JSON document, which may
    /// hold an array of machines.
    pub fn from_json_named(text: &str, name: &str) -> Result<Definition, DefinitionError> {
        Definition::from_json_machine(text, Some(name))
    }

    fn from_json_machine(text: &str, name: Option<&str>) -> Result<Definition, DefinitionError> {
        let imported = fsm_grammar::interchange::from_json(text)
            .map_err(|diagnostics| DefinitionError::Json { diagnostics })?;
        let source = imported.source;
        let definition = Definition::from_checked(&source, fsm_grammar::check(&source), name)?;
        Ok(definition.with_import_warnings(imported.diagnostics))
    }
}
