//! Folding ranges: machines, state bodies (nested states' too, so the
//! regions of a parallel state fold), `any` blocks, and runs of comment
//! lines.

use super::analysis::Analysis;
use super::documents::Document;
use fsm_grammar::ast::visit::{self, Visit};
use fsm_grammar::ast::{AnyAst, MachineAst, StateAst};
use fsm_grammar::Span;
use lsp_types::{FoldingRange, FoldingRangeKind};

/// The folding ranges of the machines that parse and of the comments.
pub fn folding_ranges(document: &Document, analysis: &Analysis) -> Vec<FoldingRange> {
    let mut out = Vec::new();
    let fold = |span: Span, kind: Option<FoldingRangeKind>| {
        let (start, end) = (document.position(span.start), document.position(span.end));
        if end.line > start.line {
            out.push(FoldingRange {
                start_line: start.line,
                end_line: end.line,
                kind,
                ..FoldingRange::default()
            });
        }
    };
    let file = &analysis.checked.file;
    let mut folds = Folds(fold);
    folds.visit_file(file);
    let Folds(mut fold) = folds;
    // Consecutive comment lines fold together.
    let mut run: Option<Span> = None;
    for comment in &file.comments {
        run = match run {
            Some(r) if document.position(comment.span.start).line == document.position(r.end).line + 1 => {
                Some(r.to(comment.span))
            }
            Some(r) => {
                fold(r, Some(FoldingRangeKind::Comment));
                Some(comment.span)
            }
            None => Some(comment.span),
        };
    }
    if let Some(r) = run {
        fold(r, Some(FoldingRangeKind::Comment));
    }
    out.sort_by_key(|r| (r.start_line, r.end_line));
    out
}

/// The walk that folds machines, states with a body (nested ones too) and
/// `any` blocks, through the function it holds.
struct Folds<F>(F);

impl<'a, F: FnMut(Span, Option<FoldingRangeKind>)> Visit<'a> for Folds<F> {
    fn visit_machine(&mut self, machine: &'a MachineAst) {
        (self.0)(machine.span, None);
        visit::walk_machine(self, machine);
    }

    fn visit_state(&mut self, state: &'a StateAst) {
        if state.body.is_some() {
            (self.0)(state.span, None);
        }
        visit::walk_state(self, state);
    }

    fn visit_any(&mut self, any: &'a AnyAst) {
        (self.0)(any.span, None);
    }
}

#[cfg(test)]
mod tests {
    use super::super::documents::Encoding;
    use super::*;
    use fsm_grammar::LintOptions;

    #[test]
    fn parallel_states_and_their_regions_fold_as_other_state_bodies() {
        let text = "machine M {\n\
                    initial parallel state p {\n\
                    state a {\n\
                    initial state a1;\n\
                    final state a2;\n\
                    }\n\
                    state b { initial state b1; }\n\
                    }\n\
                    // one\n\
                    // two\n\
                    }\n";
        let document = Document::new(text.into(), 1, Encoding::Utf16);
        let analysis = Analysis::new(text, &LintOptions::default());
        let ranges: Vec<(u32, u32, bool)> = folding_ranges(&document, &analysis)
            .iter()
            .map(|r| (r.start_line, r.end_line, r.kind.is_some()))
            .collect();
        assert_eq!(
            ranges,
            [(0, 10, false), (1, 7, false), (2, 5, false), (8, 9, true)]
        );
    }
}
