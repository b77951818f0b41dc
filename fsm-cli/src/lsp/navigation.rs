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

#[cfg(test)]
mod tests {
    use super::super::documents::Encoding;
    use super::*;
    use fsm_grammar::LintOptions;

    #[test]
    fn the_state_of_in_goes_to_its_declaration_and_is_among_its_references() {
        let text = "machine M {\n    initial parallel state p {\n        done [in(a2)] -> x;\n        \
                    state a { initial state a1 { on go [!in(a2)] -> a2; } final state a2; }\n    }\n    state x;\n}\n";
        let document = Document::new(text.into(), 1, Encoding::Utf16);
        let analysis = Analysis::new(text, &LintOptions::default());
        let uri: Uri = "file:///m.fsm".parse().unwrap();
        let at = |offset: usize| {
            let p = document.position(offset);
            (p.line, p.character)
        };
        let declaration = text.rfind("a2;").unwrap();
        let definition = definition(&document, &analysis, &uri, text.find("a2)").unwrap()).unwrap();
        let start = definition.range.start;
        assert_eq!((start.line, start.character), at(declaration));
        let found = |declarations| {
            references(&document, &analysis, &uri, declaration, declarations)
                .unwrap()
                .iter()
                .map(|l| (l.range.start.line, l.range.start.character))
                .collect::<Vec<_>>()
        };
        let uses: Vec<_> = text.match_indices("a2").map(|(i, _)| at(i)).collect();
        assert_eq!(uses.len(), 4);
        assert_eq!(found(true), uses);
        assert_eq!(found(false), uses[..3]);
    }
}
