//! Folding ranges: machines, state bodies, `any` blocks, and runs of
//! comment lines.

use super::analysis::Analysis;
use super::documents::Document;
use fsm_grammar::ast::MachineItem;
use fsm_grammar::Span;
use lsp_types::{FoldingRange, FoldingRangeKind};

/// The folding ranges of the machines that parse and of the comments.
pub fn folding_ranges(document: &Document, analysis: &Analysis) -> Vec<FoldingRange> {
    let mut out = Vec::new();
    let mut fold = |span: Span, kind: Option<FoldingRangeKind>| {
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
    for m in &file.machines {
        fold(m.span, None);
        for item in &m.items {
            match item {
                MachineItem::State(s) if s.body.is_some() => fold(s.span, None),
                MachineItem::Any(a) => fold(a.span, None),
                _ => {}
            }
        }
    }
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
