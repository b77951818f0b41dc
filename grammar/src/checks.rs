//! Diagnostic checks over the model. Filled in next.
use crate::diagnostic::Diagnostic;
use crate::model::Model;
pub(crate) fn run(_model: &Model, _out: &mut Vec<Diagnostic>) {}
