//! Go to definition and find references, for states, actions, guards,
//! outputs, effects and delays (and machines). A name used but never
//! declared is defined where it is first used, as the model has it.

use super::analysis::Analysis;
use super::documents::Document;
use lsp_types::{Location, Uri};

/// Where the name under `offset` is defined.
pub fn definition(document: &Document, analysis: &Analysis, uri: &Uri, offset: usize) -> Option<Location> {
    let (name, _) = analysis.index.at(offset)?;
    Some(Location::new(uri.clone(), document.range(name.definition())))
}

/// Every occurrence of the name under `offset`, in source order; its
/// declarations only when `declarations` is set.
pub fn references(
    document: &Document,
    analysis: &Analysis,
    uri: &Uri,
    offset: usize,
    declarations: bool,
) -> Option<Vec<Location>> {
    let (name, _) = analysis.index.at(offset)?;
    let mut spans: Vec<_> = if declarations {
        name.occurrences().collect()
    } else {
        name.uses.clone()
    };
    spans.sort();
    Some(
        spans
            .into_iter()
            .map(|span| Location::new(uri.clone(), document.range(span)))
            .collect(),
    )
}
