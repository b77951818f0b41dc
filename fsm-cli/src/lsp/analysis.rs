//! What the server knows about one version of a document: the front end's
//! result (the same call `fsmc check` makes), the diagnostics after the lint
//! options, and the index of names. Every request reads it; only an edit
//! makes a new one.

use super::index::{Index, Kind};
use fsm_grammar::model::Machine;
use fsm_grammar::{Checked, Diagnostic, LintOptions};
use std::collections::{BTreeMap, BTreeSet};

/// The analysis of one text.
pub struct Analysis {
    /// The syntax tree, model and raw diagnostics.
    pub checked: Checked,
    /// The diagnostics to show: the raw ones with the lint options applied.
    pub diagnostics: Vec<Diagnostic>,
    /// The names of the machines that parse.
    pub index: Index,
}

impl Analysis {
    /// Check `text` as `fsmc check` does with `lints`.
    pub fn new(text: &str, lints: &LintOptions) -> Analysis {
        let checked = fsm_grammar::check(text);
        let diagnostics = lints.apply(checked.diagnostics.clone());
        let index = Index::new(&checked.file);
        Analysis {
            checked,
            diagnostics,
            index,
        }
    }

    /// The model of the syntax tree's machine `machine`, when lowering made one.
    pub fn model(&self, machine: usize) -> Option<&Machine> {
        let ast = self.checked.file.machines.get(machine)?;
        self.checked
            .model
            .machines
            .iter()
            .find(|m| m.span == ast.name.span)
    }

    /// The index of the syntax tree's machine whose text holds `offset`.
    pub fn machine_at(&self, offset: usize) -> Option<usize> {
        self.checked
            .file
            .machines
            .iter()
            .position(|m| m.span.start <= offset && offset <= m.span.end)
    }

    /// The names of each kind in each machine that parses, by machine name:
    /// what completion offers while the machine being edited does not parse.
    pub fn known_names(&self) -> KnownNames {
        let mut known = KnownNames::new();
        for name in &self.index.names {
            let machine = &self.checked.file.machines[name.machine].name.name;
            known
                .entry(machine.clone())
                .or_default()
                .entry(name.kind)
                .or_default()
                .insert(name.text.clone());
        }
        known
    }
}

/// Names by machine name, then kind.
pub type KnownNames = BTreeMap<String, BTreeMap<Kind, BTreeSet<String>>>;
