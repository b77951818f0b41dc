//! Semantic tokens: each kind of name its own token type, so that states,
//! actions, guards, outputs, effects and delays get distinct colours;
//! declarations carry the `declaration` modifier. Durations and priorities
//! are numbers, Rust types (the context, payloads) types, comments comments.
//! Keywords are left to the syntax grammars, except those of parallel states
//! (`parallel`, `final`, `done`, `always`, and `in` of `in(S)`) and of
//! properties (`never`, `reachable`, `recoverable`, `escapable`, `terminal` in a
//! formula): each is a name elsewhere, and `in` is a keyword only before
//! `(`, which a line-by-line grammar may not see.

use super::analysis::Analysis;
use super::documents::Document;
use super::index::Kind;
use fsm_grammar::ast::visit::Visit;
use fsm_grammar::ast::{ContextAst, DeclAst, DelayAst, TransitionAst, TriggerAst};
use fsm_grammar::Span;
use lsp_types::{SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokensLegend};

/// The token types, in legend order.
const TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::CLASS,       // machine
    SemanticTokenType::ENUM_MEMBER, // state
    SemanticTokenType::EVENT,       // action
    SemanticTokenType::FUNCTION,    // guard
    SemanticTokenType::PROPERTY,    // output
    SemanticTokenType::METHOD,      // effect
    SemanticTokenType::VARIABLE,    // delay
    SemanticTokenType::NUMBER,
    SemanticTokenType::TYPE,
    SemanticTokenType::COMMENT,
    SemanticTokenType::KEYWORD,
    SemanticTokenType::INTERFACE, // property
];
const NUMBER: u32 = 7;
const TYPE: u32 = 8;
const COMMENT: u32 = 9;
const KEYWORD: u32 = 10;
const PROPERTY: u32 = 11;

/// The modifiers, in legend order (bit `i` is modifier `i`).
const MODIFIERS: &[SemanticTokenModifier] = &[
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::DOCUMENTATION,
];
const DECLARATION: u32 = 1;
const DOCUMENTATION: u32 = 2;

/// The legend the server announces.
pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: MODIFIERS.to_vec(),
    }
}

fn type_of(kind: Kind) -> u32 {
    match kind {
        Kind::Machine => 0,
        Kind::State => 1,
        Kind::Action => 2,
        Kind::Guard => 3,
        Kind::Output => 4,
        Kind::Effect => 5,
        Kind::Delay => 6,
        Kind::Property => PROPERTY,
    }
}

/// The tokens of the whole document, encoded relative to each other.
pub fn tokens(document: &Document, analysis: &Analysis) -> Vec<SemanticToken> {
    let mut raw: Vec<(Span, u32, u32)> = Vec::new();
    for o in &analysis.index.occurrences {
        let kind = analysis.index.names[o.name].kind;
        raw.push((o.span, type_of(kind), if o.declaration { DECLARATION } else { 0 }));
    }
    raw.extend(analysis.index.keywords.iter().map(|k| (k.span, KEYWORD, 0)));
    let file = &analysis.checked.file;
    for c in &file.comments {
        raw.push((c.span, COMMENT, if c.doc { DOCUMENTATION } else { 0 }));
    }
    let mut extra = Extra::default();
    extra.visit_file(file);
    raw.extend(extra.0);
    raw.sort_by_key(|(span, ..)| (span.start, span.end));
    encode(document, &raw)
}

/// The tokens the index does not list: types (the context's, payloads)
/// and numbers (durations, priorities).
#[derive(Default)]
struct Extra(Vec<(Span, u32, u32)>);

impl<'a> Visit<'a> for Extra {
    fn visit_context(&mut self, context: &'a ContextAst) {
        self.0.push((context.ty.span, TYPE, 0));
    }

    fn visit_decl(&mut self, decl: &'a DeclAst) {
        self.0
            .extend(decl.payloads.iter().flatten().map(|p| (p.span, TYPE, 0)));
    }

    fn visit_transition(&mut self, t: &'a TransitionAst) {
        if let TriggerAst::After {
            delay: DelayAst::Literal(literal),
            ..
        } = &t.trigger
        {
            self.0.push((literal.span, NUMBER, 0));
        }
        self.0.extend(t.priority.map(|p| (p.span, NUMBER, 0)));
    }
}

/// Relative encoding; overlapping and multi-line tokens are left out.
fn encode(document: &Document, raw: &[(Span, u32, u32)]) -> Vec<SemanticToken> {
    let mut out = Vec::with_capacity(raw.len());
    let (mut line, mut start, mut end) = (0, 0, 0);
    for &(span, token_type, modifiers) in raw {
        if span.start < end || span.is_empty() {
            continue;
        }
        let (from, to) = (document.position(span.start), document.position(span.end));
        if from.line != to.line {
            continue;
        }
        let delta_line = from.line - line;
        let delta_start = if delta_line == 0 {
            from.character - start
        } else {
            from.character
        };
        out.push(SemanticToken {
            delta_line,
            delta_start,
            length: to.character - from.character,
            token_type,
            token_modifiers_bitset: modifiers,
        });
        (line, start, end) = (from.line, from.character, span.end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::documents::Encoding;
    use super::*;
    use fsm_grammar::LintOptions;

    #[test]
    fn kinds_get_their_own_types_in_utf16_columns() {
        let text = "// é\nmachine M { guard g; initial state a { on go [g] -> a; after 2s -> a; } }";
        let document = Document::new(text.into(), 1, Encoding::Utf16);
        let analysis = Analysis::new(text, &LintOptions::default());
        let tokens = tokens(&document, &analysis);
        let decoded: Vec<(u32, u32, u32, u32)> = tokens
            .iter()
            .map(|t| (t.delta_line, t.delta_start, t.length, t.token_type))
            .collect();
        assert_eq!(
            decoded,
            [
                (0, 0, 4, COMMENT),
                (1, 8, 1, 0),  // M
                (0, 10, 1, 3), // g
                (0, 17, 1, 1), // a
                (0, 7, 2, 2),  // go
                (0, 4, 1, 3),  // g
                (0, 6, 1, 1),  // a
                (0, 9, 2, NUMBER),
                (0, 6, 1, 1),
            ]
        );
    }

    #[test]
    fn the_keywords_of_parallel_states_and_the_state_in_in_are_tokens() {
        let text = "machine M { guard in; initial parallel state p {\n\
                    done [in(b) && !in] priority 2 -> p;\n\
                    state a { initial state a1 { always -> a2; } final state a2; } } }";
        let document = Document::new(text.into(), 1, Encoding::Utf16);
        let analysis = Analysis::new(text, &LintOptions::default());
        let mut column = 0;
        let mut line = 0;
        let decoded: Vec<(&str, u32)> = tokens(&document, &analysis)
            .iter()
            .map(|t| {
                if t.delta_line > 0 {
                    column = 0;
                }
                line += t.delta_line;
                column += t.delta_start;
                let start = text
                    .split_inclusive('\n')
                    .take(line as usize)
                    .map(str::len)
                    .sum::<usize>()
                    + column as usize;
                (&text[start..start + t.length as usize], t.token_type)
            })
            .collect();
        assert_eq!(
            decoded,
            [
                ("M", 0),
                ("in", 3), // a guard named `in`
                ("parallel", KEYWORD),
                ("p", 1),
                ("done", KEYWORD),
                ("in", KEYWORD),
                ("b", 1), // `in(b)`: an unknown state is still a state
                ("in", 3),
                ("2", NUMBER),
                ("p", 1),
                ("a", 1),
                ("a1", 1),
                ("always", KEYWORD),
                ("a2", 1),
                ("final", KEYWORD),
                ("a2", 1),
            ]
        );
    }
}
