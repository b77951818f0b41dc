//! Parsing: `.fsm` text into the spanned AST, with recovery at machine level.
//!
//! `fsm.pest` defines the language; two parsers implement it, each for what
//! it does best.
//!
//! - `direct`, a hand-written recursive-descent parser, builds the AST
//!   straight from the text. Every text that parses goes through it: the
//!   whole file in the common case, one machine at a time when another
//!   machine of the file is broken. pest's per-rule bookkeeping was most of
//!   the cost of `fsmc check`, and this parser is the only AST builder.
//! - `FsmParser`, the grammar of `fsm.pest` whose every token is a named
//!   rule, only finds syntax errors: it runs when `direct` refuses a machine,
//!   says what was expected in words, and drives recovery.
//!
//! There used to be a third, a copy of `fsm.pest` with silent tokens that
//! built the AST of the machines `direct` had not been trusted with. Each
//! change of the language had to be made three times; it went before the
//! language grew (context, payloads, effects, timers). Keeping two in step is
//! the `the_parsers_agree` test's job: on every fixture, and every fixture
//! with a token removed or doubled, both accept the same texts, and the AST
//! holds every leaf token of the pest parse (names, lint codes, numbers,
//! types, durations) at the same span. A change of the language is a change
//! of `fsm.pest`, of `direct`, and of that test's leaf list.
//!
//! A syntax error inside one machine does not hide the others: when the whole
//! file fails to parse, it is split at top-level braces and every machine is
//! parsed on its own, so each broken machine reports its own syntax error and
//! the intact ones are still checked.

use crate::ast::*;
use crate::comments::{self, DocIndex};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::syntax_error;
use pest::Parser as _;

#[derive(pest_derive::Parser)]
#[grammar = "fsm.pest"]
pub(crate) struct FsmParser;

/// The result of parsing: the machines that parsed, and the syntax errors.
#[derive(Debug)]
pub struct Parsed {
    /// The syntax tree. Machines with syntax errors are missing from it.
    pub file: File,
    /// Syntax diagnostics, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parse a whole `.fsm` text.
pub fn parse(text: &str) -> Parsed {
    let comments = comments::scan(text);
    let mut diagnostics = Vec::new();
    // Guards over the size limits are reported and blanked, so the rest of
    // the file is still parsed; the machines holding them are not checked.
    // So are states nested too deep: their bodies become `;`, and the
    // parsers, which recurse on nesting, never see the depth.
    let mut not_checked = crate::limits::oversized_guards(text);
    let nesting = crate::limits::oversized_nesting(text);
    let blanked;
    let text = if not_checked.is_empty() && nesting.is_empty() {
        text
    } else {
        let mut copy = text.to_string();
        for (diagnostic, guard) in &not_checked {
            blank(&mut copy, guard.start, guard.end);
            diagnostics.push(diagnostic.clone());
        }
        for (diagnostic, body) in &nesting {
            blank(&mut copy, body.start, body.end);
            copy.replace_range(body.start..body.start + 1, ";");
            diagnostics.push(diagnostic.clone());
        }
        not_checked.extend(nesting);
        blanked = copy;
        &blanked
    };
    // A `}` too many is reported once, at the brace, and blanked, so the
    // rest of the file is read at the right level; its machine is not
    // checked further.
    let (strays, without_strays) = stray_braces(text);
    for stray in &strays {
        let diagnostic = stray.diagnostic();
        diagnostics.push(diagnostic.clone());
        not_checked.push((diagnostic, Span::new(stray.at, stray.at + 1)));
    }
    diagnostics.sort_by_key(|d| d.span.start);
    let text = without_strays.as_deref().unwrap_or(text);
    let docs = DocIndex::new(text, &comments);
    let mut unparsed = Vec::new();
    // The hand-written parser handles text without syntax errors; pest
    // finds and names the errors of the rest.
    let mut machines = match direct::parse(text, &docs, &mut diagnostics) {
        Some(machines) => machines,
        None => parse_segments(text, &comments, &docs, &mut diagnostics, &mut unparsed),
    };
    if !not_checked.is_empty() {
        let (broken, kept): (Vec<MachineAst>, Vec<MachineAst>) = machines.into_iter().partition(|m| {
            not_checked
                .iter()
                .any(|(_, g)| m.span.start <= g.start && g.start < m.span.end)
        });
        machines = kept;
        unparsed.extend(broken.into_iter().map(|m| m.name));
        unparsed.sort_by_key(|i| i.span.start);
        diagnostics.sort_by_key(|d| d.span.start);
    }
    Parsed {
        file: File {
            machines,
            unparsed,
            comments,
        },
        diagnostics,
    }
}

/// The `}` too many in `text` (see `braces.rs`), and the text without them.
fn stray_braces(text: &str) -> (Vec<crate::braces::StrayBrace>, Option<String>) {
    crate::braces::strays(text, |region| {
        let docs = DocIndex::new(region, &[]);
        direct::parse(region, &docs, &mut Vec::new()).is_some()
    })
}

/// A Rust type written alone (a JSON document's context or payload), in
/// the canonical text the parser gives it, or `None` when it is not a type
/// of the language. Types nested more than 64 deep are refused, as the
/// parser recurses on them.
#[cfg(feature = "interchange")]
pub(crate) fn canonical_type(text: &str) -> Option<String> {
    let depth = text.bytes().filter(|b| matches!(b, b'<' | b'(' | b'[')).count();
    if depth > 64 || text.contains("//") {
        return None;
    }
    direct::rust_type_alone(text)
}

fn parse_segments(
    text: &str,
    comments: &[Comment],
    docs: &DocIndex<'_>,
    diagnostics: &mut Vec<Diagnostic>,
    unparsed: &mut Vec<Ident>,
) -> Vec<MachineAst> {
    let mut machines = Vec::new();
    // A copy of the text in which recovery blanks the broken statements.
    let mut buf: Option<String> = None;
    for (start, end) in top_level_segments(text) {
        let segment = &text[start..end];
        if let Some(machine) = direct::parse_segment(text, start, end, docs, diagnostics) {
            machines.push(machine);
            continue;
        }
        match FsmParser::parse(Rule::machine_entry, segment) {
            // The two grammars accept the same texts.
            Ok(_) => {
                // The parsers accept the same texts (`the_parsers_agree`);
                // should they ever not, say so rather than drop the machine.
                debug_assert!(false, "only the hand-written parser refused {segment:?}");
                unparsed.extend(machine_name(text, start, end));
                diagnostics.push(Diagnostic::new(
                    Code::Syntax,
                    Span::new(start, end),
                    "this machine could not be parsed",
                    "not parsed",
                    "this is a bug in fsmc: please report it with this text",
                ));
            }
            Err(err) => {
                unparsed.extend(machine_name(text, start, end));
                diagnostics.push(syntax_error::from_pest(&err, text, comments, start, start));
                let buf = buf.get_or_insert_with(|| text.to_string());
                more_syntax_errors(buf, comments, start, end, start + error_offset(&err), diagnostics);
            }
        }
    }
    machines
}

/// Most syntax errors a single machine reports.
const MAX_ERRORS_PER_MACHINE: usize = 20;

/// Find the further syntax errors of the machine in `buf[start..end]`: blank
/// out the statement holding the error (spaces, so positions stay put) and
/// parse on from there, until the rest parses or no progress is made. Each
/// step parses only from the blanked statement to the next error, so the
/// whole recovery is linear in the machine's length. The machine itself is
/// not checked further: its model would be missing the broken statements,
/// and every diagnostic that caused would be noise.
fn more_syntax_errors(
    buf: &mut String,
    comments: &[Comment],
    start: usize,
    end: usize,
    first: usize,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut err_pos = first;
    for _ in 1..MAX_ERRORS_PER_MACHINE {
        let Some((from, to)) = statement_around(&buf[start..end], err_pos - start) else {
            return;
        };
        blank(buf, start + from, start + to);
        if only_comments(&buf[start..end]) {
            return; // what was left was the stray text itself
        }
        let (rule, at) = resume_point(buf, start, start + to);
        match FsmParser::parse(rule, &buf[at..end]) {
            Ok(_) => return,
            Err(err) => {
                let pos = at + error_offset(&err);
                if pos <= err_pos {
                    return; // no progress: the rest is one broken construct
                }
                diagnostics.push(syntax_error::from_pest(&err, buf, comments, start, at));
                err_pos = pos;
            }
        }
    }
}

/// Where to parse the rest of the machine starting at `buf[start..]` from,
/// after a statement that ends at `at`: the entry rule for the block open at
/// `at` (the machine body, a state body or an `any` block), or the whole
/// machine again when the blocks open there are not one of those.
fn resume_point(buf: &str, start: usize, at: usize) -> (Rule, usize) {
    #[derive(Clone, Copy, PartialEq)]
    enum Block {
        Machine,
        State,
        Any,
        Other,
    }
    let bytes = buf.as_bytes();
    let mut open: Vec<Block> = Vec::new();
    let mut i = start;
    while i < at {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = buf[i..at].find('\n').map_or(at, |n| i + n);
                continue;
            }
            b'{' => {
                // The word before the brace (the text after the last
                // character that cannot be part of one, which may be wider
                // than a byte: a BOM counts as whitespace).
                let before = buf[start..i].trim_end();
                let word = before
                    .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or_default();
                let block = match open.len() {
                    0 => Block::Machine,
                    1 if word == "any" => Block::Any,
                    1 => Block::State,
                    _ => Block::Other,
                };
                open.push(block);
            }
            b'}' => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    match open.as_slice() {
        [Block::Machine] => (Rule::machine_rest, at),
        [Block::Machine, Block::State] => (Rule::state_rest, at),
        [Block::Machine, Block::Any] => (Rule::any_rest, at),
        _ => (Rule::machine_entry, start),
    }
}

fn error_offset(err: &pest::error::Error<Rule>) -> usize {
    match err.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    }
}

/// The statement containing byte `pos`: from just after the previous `;`, `{`
/// or `}` to the next `;` (inclusive), or to just before the next `}`. When a
/// `{` comes first, the statement is a block and runs to its matching `}`.
fn statement_around(buf: &str, pos: usize) -> Option<(usize, usize)> {
    let bytes = buf.as_bytes();
    if pos >= bytes.len() {
        return None;
    }
    let from = bytes[..pos]
        .iter()
        .rposition(|b| matches!(b, b';' | b'{' | b'}'))
        .map_or(0, |i| i + 1);
    let mut depth = 0usize;
    let mut i = pos;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            // The statement before a `}` ends there; a stray `}` is its own statement.
            b'}' if depth == 0 => {
                let stmt_end = if buf[from..i].trim().is_empty() { i + 1 } else { i };
                return Some((from, stmt_end));
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((from, i + 1));
                }
            }
            b';' if depth == 0 => return Some((from, i + 1)),
            _ => {}
        }
        i += 1;
    }
    Some((from, bytes.len()))
}

/// Replace `buf[from..to]` with spaces, keeping newlines and the byte length.
fn blank(buf: &mut String, from: usize, to: usize) {
    let replacement: String = buf[from..to]
        .chars()
        .flat_map(|c| {
            let keep = c == '\n';
            std::iter::repeat_n(if keep { '\n' } else { ' ' }, if keep { 1 } else { c.len_utf8() })
        })
        .collect();
    buf.replace_range(from..to, &replacement);
}

/// Split `text` into chunks that each end where a top-level `}` closes, skipping
/// comments. Leading comments and whitespace go with the following chunk; a
/// trailing chunk without a closing brace runs to the end of the text.
fn top_level_segments(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut segments = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(text.len(), |n| i + n);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    segments.push((start, i + 1));
                    start = i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if !text[start..].trim().is_empty() && !only_comments(&text[start..]) {
        segments.push((start, text.len()));
    }
    segments
}

/// The `Name` of `machine Name` in `text[start..end]`, if the segment starts
/// (after comments and attributes) with those two words.
fn machine_name(text: &str, start: usize, end: usize) -> Option<Ident> {
    let segment = &text[start..end];
    let mut offset = 0;
    for line in segment.split_inclusive('\n') {
        let code = line.split("//").next().unwrap_or("");
        if let Some(at) = find_word(code, "machine") {
            let after = &code[at + "machine".len()..];
            let name_start = after.len() - after.trim_start().len();
            let name: String = after[name_start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let first_ok = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
            if !first_ok || name_start == 0 {
                return None;
            }
            let s = start + offset + at + "machine".len() + name_start;
            return Some(Ident {
                span: Span::new(s, s + name.len()),
                name,
            });
        }
        if !code.trim().is_empty() && !code.trim_start().starts_with('#') {
            return None;
        }
        offset += line.len();
    }
    None
}

/// The byte offset of `word` in `code` as a whole word.
fn find_word(code: &str, word: &str) -> Option<usize> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices(word).map(|(i, _)| i).find(|&i| {
        let before = code[..i].chars().next_back();
        let after = code[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

fn only_comments(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with("//")
    })
}

/// A hand-written recursive-descent parser of the language of `fsm.pest`,
/// for the common case of a text without syntax errors: it builds the AST
/// straight from the bytes, without pest's per-rule bookkeeping, and gives up
/// (returns `None`) at the first thing it does not accept. The caller then
/// parses with pest, which finds and names the syntax errors. It accepts
/// exactly the texts `fsm.pest` accepts (`the_parsers_agree`).
mod direct {
    use super::*;

    pub(super) fn parse(
        text: &str,
        docs: &DocIndex<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Vec<MachineAst>> {
        let mut p = Direct {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            docs,
            diagnostics: Vec::new(),
        };
        let mut machines = Vec::new();
        p.skip();
        while p.pos < p.bytes.len() {
            machines.push(p.machine()?);
            p.skip();
        }
        diagnostics.append(&mut p.diagnostics);
        Some(machines)
    }

    /// The one machine of `text[start..end]` (rule `machine_entry`), with
    /// spans in the whole text, or `None` when the segment does not parse.
    pub(super) fn parse_segment(
        text: &str,
        start: usize,
        end: usize,
        docs: &DocIndex<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<MachineAst> {
        let text = &text[..end];
        let mut p = Direct {
            text,
            bytes: text.as_bytes(),
            pos: start,
            docs,
            diagnostics: Vec::new(),
        };
        p.skip();
        let machine = p.machine()?;
        p.skip();
        if p.pos < p.bytes.len() {
            return None;
        }
        diagnostics.append(&mut p.diagnostics);
        Some(machine)
    }

    /// The whole of `text` as one Rust type, in canonical text.
    #[cfg(feature = "interchange")]
    pub(super) fn rust_type_alone(text: &str) -> Option<String> {
        let docs = DocIndex::new(text, &[]);
        let mut p = Direct {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            docs: &docs,
            diagnostics: Vec::new(),
        };
        let ty = p.rust_type()?;
        p.skip();
        (p.pos == p.bytes.len()).then_some(ty.text)
    }

    struct Direct<'t, 'd> {
        text: &'t str,
        bytes: &'t [u8],
        pos: usize,
        docs: &'d DocIndex<'d>,
        diagnostics: Vec<Diagnostic>,
    }

    fn is_word(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'_'
    }

    impl Direct<'_, '_> {
        /// Skip whitespace (`WHITESPACE`) and comments (`COMMENT`).
        fn skip(&mut self) {
            let b = self.bytes;
            loop {
                match b.get(self.pos) {
                    Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                    Some(0xEF) if b[self.pos..].starts_with("\u{FEFF}".as_bytes()) => self.pos += 3,
                    Some(b'/') if b.get(self.pos + 1) == Some(&b'/') => {
                        self.pos = memchr_newline(b, self.pos);
                    }
                    _ => return,
                }
            }
        }

        /// Punctuation `s` after skipping.
        fn punct(&mut self, s: &str) -> Option<Span> {
            self.skip();
            if self.bytes[self.pos..].starts_with(s.as_bytes()) {
                let start = self.pos;
                self.pos += s.len();
                Some(Span::new(start, self.pos))
            } else {
                None
            }
        }

        /// Whether keyword `kw` (a whole word) comes next, after skipping;
        /// consumes it if so.
        fn keyword(&mut self, kw: &str) -> Option<Span> {
            self.skip();
            let rest = &self.bytes[self.pos..];
            if rest.starts_with(kw.as_bytes()) && !rest.get(kw.len()).is_some_and(|&b| is_word(b)) {
                let start = self.pos;
                self.pos += kw.len();
                Some(Span::new(start, self.pos))
            } else {
                None
            }
        }

        fn ident(&mut self) -> Option<Ident> {
            self.skip();
            let start = self.pos;
            let b = self.bytes;
            if !b
                .get(start)
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
            {
                return None;
            }
            let mut end = start + 1;
            while b.get(end).is_some_and(|&c| is_word(c)) {
                end += 1;
            }
            self.pos = end;
            Some(Ident {
                name: self.text[start..end].to_string(),
                span: Span::new(start, end),
            })
        }

        fn ident_list(&mut self) -> Option<Vec<Ident>> {
            let mut list = vec![self.ident()?];
            while self.punct(",").is_some() {
                list.push(self.ident()?);
            }
            Some(list)
        }

        fn attrs(&mut self) -> Option<Vec<Attr>> {
            let mut attrs = Vec::new();
            while let Some(hash) = self.punct("#") {
                self.punct("[")?;
                self.keyword("allow")?;
                self.punct("(")?;
                let mut codes = Vec::new();
                self.skip();
                while let Some(code) = self.lint_code() {
                    codes.push(code);
                    if self.punct(",").is_none() {
                        break;
                    }
                    self.skip();
                }
                self.punct(")")?;
                let close = self.punct("]")?;
                attrs.push(Attr {
                    span: hash.to(close),
                    codes,
                });
            }
            Some(attrs)
        }

        /// `lint_code` at the current position (already skipped).
        fn lint_code(&mut self) -> Option<Ident> {
            let start = self.pos;
            let b = self.bytes;
            if !b.get(start).is_some_and(|c| c.is_ascii_alphabetic()) {
                return None;
            }
            let mut end = start + 1;
            while b.get(end).is_some_and(|&c| is_word(c) || c == b'-') {
                end += 1;
            }
            self.pos = end;
            Some(Ident {
                name: self.text[start..end].to_string(),
                span: Span::new(start, end),
            })
        }

        fn machine(&mut self) -> Option<MachineAst> {
            self.skip();
            let start = self.pos;
            let attrs = self.attrs()?;
            self.keyword("machine")?;
            let name = self.ident()?;
            self.punct("{")?;
            let mut items = Vec::new();
            let close = loop {
                if let Some(close) = self.punct("}") {
                    break close;
                }
                items.push(self.machine_item()?);
            };
            items.shrink_to_fit();
            let span = Span::new(start, close.end);
            Some(MachineAst {
                docs: self.docs.docs_before(span.start),
                span,
                attrs,
                name,
                items,
            })
        }

        /// A declaration, an `any` block or a state (the current position is
        /// skipped and is not `}`).
        fn machine_item(&mut self) -> Option<MachineItem> {
            let start = self.pos;
            if let Some(keyword) = self.keyword("context") {
                let ty = self.rust_type()?;
                let semi = self.punct(";")?;
                let span = Span::new(start, semi.end);
                return Some(MachineItem::Context(ContextAst {
                    docs: self.docs.docs_before(span.start),
                    span,
                    keyword,
                    ty,
                }));
            }
            for (kw, kind) in [
                ("action", DeclKind::Action),
                ("guard", DeclKind::Guard),
                ("output", DeclKind::Output),
                ("effect", DeclKind::Effect),
                ("delay", DeclKind::Delay),
            ] {
                if self.keyword(kw).is_some() {
                    let (names, payloads) = if kind.takes_payload() {
                        self.typed_names()?
                    } else {
                        let names = self.ident_list()?;
                        let payloads = vec![None; names.len()];
                        (names, payloads)
                    };
                    let semi = self.punct(";")?;
                    let span = Span::new(start, semi.end);
                    return Some(MachineItem::Decl(DeclAst {
                        docs: self.docs.docs_before(span.start),
                        span,
                        kind,
                        names,
                        payloads,
                    }));
                }
            }
            if let Some(property) = self.property(start)? {
                return Some(MachineItem::Property(property));
            }
            if let Some(keyword) = self.keyword("any") {
                self.punct("{")?;
                let mut transitions = Vec::new();
                let close = loop {
                    if let Some(close) = self.punct("}") {
                        break close;
                    }
                    let on = self.keyword("on")?;
                    transitions.push(self.transition_after_on(on)?);
                };
                return Some(MachineItem::Any(AnyAst {
                    span: keyword.to(close),
                    keyword,
                    transitions,
                }));
            }
            self.state(start).map(MachineItem::State)
        }

        fn state(&mut self, start: usize) -> Option<StateAst> {
            let attrs = self.attrs()?;
            let mut modifiers: Vec<Modifier> = Vec::new();
            while let Some((kind, span)) =
                [ModifierKind::Initial, ModifierKind::Terminal, ModifierKind::Final]
                    .into_iter()
                    .find_map(|kind| self.keyword(kind.keyword()).map(|span| (kind, span)))
            {
                let word = kind.keyword();
                if let Some(first) = modifiers.iter().find(|x| x.kind == kind) {
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::Syntax,
                            span,
                            format!("`{word}` is written twice"),
                            "written again here",
                            format!("remove the second `{word}`"),
                        )
                        .with_label(first.span, "first written here"),
                    );
                } else {
                    modifiers.push(Modifier { kind, span });
                }
            }
            if let Some(span) = self.keyword("parallel") {
                modifiers.push(Modifier {
                    kind: ModifierKind::Parallel,
                    span,
                });
            }
            self.keyword("state")?;
            let name = self.ident()?;
            let (end, body) = if let Some(semi) = self.punct(";") {
                (semi.end, None)
            } else {
                self.punct("{")?;
                let mut items = Vec::new();
                let close = loop {
                    if let Some(close) = self.punct("}") {
                        break close;
                    }
                    items.push(self.state_item()?);
                };
                // Most bodies hold a transition or two: without the slack of
                // a growing vector, a 100,000-state file's tree is 4× smaller.
                items.shrink_to_fit();
                (close.end, Some(items))
            };
            let span = Span::new(start, end);
            Some(StateAst {
                docs: self.docs.docs_before(span.start),
                span,
                attrs,
                modifiers,
                name,
                body,
            })
        }

        fn state_item(&mut self) -> Option<StateItem> {
            self.skip();
            let start = self.pos;
            let kind = if self.keyword("enter").is_some() {
                HookKind::Enter
            } else if self.keyword("exit").is_some() {
                HookKind::Exit
            } else if let Some(keyword) = self.keyword("after") {
                return self.timer_after_keyword(keyword).map(StateItem::Transition);
            } else if let Some(keyword) = self.keyword("on") {
                return self.transition_after_on(keyword).map(StateItem::Transition);
            } else if let Some((kind, keyword)) = [EventlessKind::Done, EventlessKind::Always]
                .into_iter()
                .find_map(|kind| self.keyword(kind.keyword()).map(|span| (kind, span)))
            {
                return self
                    .transition_after(TriggerAst::Eventless { kind, keyword })
                    .map(StateItem::Transition);
            } else {
                // A nested state. Depth is bounded before parsing starts
                // (`limits::oversized_nesting`), so this recursion is too.
                return self.state(start).map(StateItem::State);
            };
            let effects = self.effects()?;
            let outputs = self.emits()?;
            if effects.is_empty() && outputs.is_empty() {
                return None;
            }
            let semi = self.punct(";")?;
            Some(StateItem::Hook(HookAst {
                span: Span::new(start, semi.end),
                kind,
                effects,
                outputs,
            }))
        }

        /// `do e, f` if it comes next; `None` if it is broken.
        fn effects(&mut self) -> Option<Vec<Ident>> {
            if self.keyword("do").is_some() {
                self.ident_list()
            } else {
                Some(Vec::new())
            }
        }

        /// `emit a, b` if it comes next; `None` if it is broken.
        fn emits(&mut self) -> Option<Vec<Ident>> {
            if self.keyword("emit").is_some() {
                self.ident_list()
            } else {
                Some(Vec::new())
            }
        }

        /// `name(TYPE)?, ...` of a declaration whose names take payloads.
        fn typed_names(&mut self) -> Option<(Vec<Ident>, Vec<Option<TypeAst>>)> {
            let mut names = Vec::new();
            let mut payloads = Vec::new();
            loop {
                names.push(self.ident()?);
                payloads.push(if self.punct("(").is_some() {
                    let ty = self.rust_type()?;
                    self.punct(")")?;
                    Some(ty)
                } else {
                    None
                });
                if self.punct(",").is_none() {
                    return Some((names, payloads));
                }
            }
        }

        /// A Rust type (`rust_type`), in canonical text.
        fn rust_type(&mut self) -> Option<TypeAst> {
            self.skip();
            let start = self.pos;
            let mut text = String::new();
            self.type_into(&mut text)?;
            Some(TypeAst {
                span: Span::new(start, self.pos),
                text,
            })
        }

        fn type_into(&mut self, out: &mut String) -> Option<()> {
            if self.punct("(").is_some() {
                out.push('(');
                let n = self.type_list(")", out)?;
                if n == (1, true) {
                    out.push(',');
                }
                out.push(')');
            } else if self.punct("[").is_some() {
                out.push('[');
                self.type_into(out)?;
                self.punct(";")?;
                self.skip();
                let digits = self.bytes[self.pos..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                if digits == 0 {
                    return None;
                }
                out.push_str("; ");
                out.push_str(&self.text[self.pos..self.pos + digits]);
                self.pos += digits;
                self.punct("]")?;
                out.push(']');
            } else {
                if self.punct("::").is_some() {
                    out.push_str("::");
                }
                out.push_str(&self.ident()?.name);
                while self.punct("::").is_some() {
                    out.push_str("::");
                    out.push_str(&self.ident()?.name);
                }
                if self.punct("<").is_some() {
                    out.push('<');
                    self.type_list(">", out)?;
                    out.push('>');
                }
            }
            Some(())
        }

        /// `(TYPE (, TYPE)* ,?)? CLOSE` after the opening token, for tuples
        /// (which may be empty) and generic arguments (which may not): the
        /// number of types and whether a comma trailed.
        fn type_list(&mut self, close: &str, out: &mut String) -> Option<(usize, bool)> {
            let mut n = 0;
            if close == ")" && self.punct(close).is_some() {
                return Some((0, false));
            }
            loop {
                if n > 0 {
                    out.push_str(", ");
                }
                self.type_into(out)?;
                n += 1;
                if self.punct(",").is_some() {
                    if self.punct(close).is_some() {
                        return Some((n, true));
                    }
                } else {
                    self.punct(close)?;
                    return Some((n, false));
                }
            }
        }

        /// A timer whose `after` was just read.
        fn timer_after_keyword(&mut self, keyword: Span) -> Option<TransitionAst> {
            self.skip();
            let delay = if self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
                let start = self.pos;
                let mut end = start;
                while self.bytes.get(end).is_some_and(|&c| is_word(c)) {
                    end += 1;
                }
                self.pos = end;
                DelayAst::Literal(Ident {
                    name: self.text[start..end].to_string(),
                    span: Span::new(start, end),
                })
            } else {
                DelayAst::Name(self.ident()?)
            };
            self.transition_after(TriggerAst::After { keyword, delay })
        }

        /// A transition whose `on` was just read.
        fn transition_after_on(&mut self, keyword: Span) -> Option<TransitionAst> {
            let action = self.ident()?;
            self.transition_after(TriggerAst::On { keyword, action })
        }

        /// A transition whose trigger was just read: the rest, to the `;`.
        fn transition_after(&mut self, trigger: TriggerAst) -> Option<TransitionAst> {
            let (guard, priority, (target, history), effects, emits, semi) = self.transition_tail()?;
            let span = trigger.keyword_span().to(semi);
            Some(TransitionAst {
                docs: self.docs.docs_before(span.start),
                span,
                trigger,
                guard,
                priority,
                target,
                history,
                effects,
                emits,
            })
        }

        /// What follows a transition's trigger, to the `;`.
        #[allow(clippy::type_complexity)]
        fn transition_tail(
            &mut self,
        ) -> Option<(
            Option<GuardAst>,
            Option<Priority>,
            (Option<Ident>, Option<HistoryAst>),
            Vec<Ident>,
            Vec<Ident>,
            Span,
        )> {
            let guard = if self.punct("[").is_some() {
                let g = self.guard_or()?;
                self.punct("]")?;
                Some(g)
            } else {
                None
            };
            let priority = if self.keyword("priority").is_some() {
                Some(self.int()?)
            } else {
                None
            };
            let target = if self.punct("->").is_some() {
                let state = self.ident()?;
                let history = if self.punct(".").is_some() {
                    let kind = if let Some(span) = self.keyword("deep_history") {
                        (HistoryKind::Deep, span)
                    } else {
                        (HistoryKind::Shallow, self.keyword("history")?)
                    };
                    Some(HistoryAst {
                        kind: kind.0,
                        span: kind.1,
                    })
                } else {
                    None
                };
                (Some(state), history)
            } else {
                (None, None)
            };
            let effects = self.effects()?;
            let emits = self.emits()?;
            let semi = self.punct(";")?;
            Some((guard, priority, target, effects, emits, semi))
        }

        fn int(&mut self) -> Option<Priority> {
            self.skip();
            let start = self.pos;
            let b = self.bytes;
            let mut end = start + usize::from(b.get(start) == Some(&b'-'));
            let digits = end;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if end == digits {
                return None;
            }
            self.pos = end;
            let span = Span::new(start, end);
            let literal = &self.text[start..end];
            let value = literal.parse::<i32>().unwrap_or_else(|_| {
                self.diagnostics.push(Diagnostic::new(
                    Code::Syntax,
                    span,
                    format!("priority `{literal}` is out of range"),
                    "out of range",
                    format!("a priority is a whole number from {} to {}", i32::MIN, i32::MAX),
                ));
                0
            });
            Some(Priority { value, span })
        }

        /// A property, if one starts here (`Some(None)` when none does;
        /// `None` when one is broken).
        fn property(&mut self, start: usize) -> Option<Option<Box<PropertyAst>>> {
            let name = if self.keyword("property").is_some() {
                let name = self.ident()?;
                self.punct(":")?;
                Some(name)
            } else {
                None
            };
            let prefix = PropertyKind::ALL
                .into_iter()
                .filter(|kind| kind.is_prefix())
                .find_map(|kind| self.keyword(kind.keyword()).map(|span| (kind, span)));
            let (kind, keyword, formula, leads_to) = match prefix {
                Some((kind, keyword)) => (kind, keyword, self.formula_or()?, None),
                // `property NAME: F leads to G assuming a, b;`
                None if name.is_some() => {
                    let formula = self.formula_or()?;
                    let leads = self.keyword("leads")?;
                    let keyword = leads.to(self.keyword("to")?);
                    let target = self.formula_or()?;
                    let assuming_keyword = self.keyword("assuming");
                    let assuming = match assuming_keyword {
                        Some(_) => self.ident_list()?,
                        None => Vec::new(),
                    };
                    let leads_to = LeadsToAst {
                        formula: target,
                        assuming,
                        assuming_keyword,
                    };
                    (PropertyKind::LeadsTo, keyword, formula, Some(leads_to))
                }
                None => return Some(None),
            };
            let semi = self.punct(";")?;
            let span = Span::new(start, semi.end);
            Some(Some(Box::new(PropertyAst {
                docs: self.docs.docs_before(span.start),
                span,
                name,
                kind,
                keyword,
                formula,
                leads_to,
            })))
        }

        // A formula's depth is bounded before parsing starts
        // (`limits::oversized_guards`), so these recursions are too.
        fn formula_or(&mut self) -> Option<FormulaAst> {
            let mut lhs = self.formula_and()?;
            while self.punct("||").is_some() {
                let rhs = self.formula_and()?;
                lhs = FormulaAst::Or(lhs.span().to(rhs.span()), Box::new(lhs), Box::new(rhs));
            }
            Some(lhs)
        }

        fn formula_and(&mut self) -> Option<FormulaAst> {
            let mut lhs = self.formula_unary()?;
            while self.punct("&&").is_some() {
                let rhs = self.formula_unary()?;
                lhs = FormulaAst::And(lhs.span().to(rhs.span()), Box::new(lhs), Box::new(rhs));
            }
            Some(lhs)
        }

        fn formula_unary(&mut self) -> Option<FormulaAst> {
            let mut nots = Vec::new();
            while let Some(not) = self.punct("!") {
                nots.push(not);
            }
            let mut expr = if let Some(open) = self.punct("(") {
                let inner = self.formula_or()?;
                let close = self.punct(")")?;
                FormulaAst::Paren(open.to(close), Box::new(inner))
            } else if let Some(keyword) = self.keyword("in") {
                self.punct("(")?;
                let state = self.ident()?;
                let close = self.punct(")")?;
                FormulaAst::In(keyword.to(close), Box::new(state))
            } else {
                FormulaAst::Terminal(self.keyword("terminal")?)
            };
            for not in nots.into_iter().rev() {
                expr = FormulaAst::Not(not.to(expr.span()), Box::new(expr));
            }
            Some(expr)
        }

        fn guard_or(&mut self) -> Option<GuardAst> {
            let mut lhs = self.guard_and()?;
            while self.punct("||").is_some() {
                let rhs = self.guard_and()?;
                lhs = GuardAst::Or(lhs.span().to(rhs.span()), Box::new(lhs), Box::new(rhs));
            }
            Some(lhs)
        }

        fn guard_and(&mut self) -> Option<GuardAst> {
            let mut lhs = self.guard_unary()?;
            while self.punct("&&").is_some() {
                let rhs = self.guard_unary()?;
                lhs = GuardAst::And(lhs.span().to(rhs.span()), Box::new(lhs), Box::new(rhs));
            }
            Some(lhs)
        }

        fn guard_unary(&mut self) -> Option<GuardAst> {
            let mut nots = Vec::new();
            while let Some(not) = self.punct("!") {
                nots.push(not);
            }
            let before_in = self.pos;
            let mut expr = if let Some(open) = self.punct("(") {
                let inner = self.guard_or()?;
                let close = self.punct(")")?;
                GuardAst::Paren(open.to(close), Box::new(inner))
            } else if let Some(keyword) = self.keyword("in").filter(|_| self.punct("(").is_some()) {
                let state = self.ident()?;
                let close = self.punct(")")?;
                GuardAst::In(keyword.to(close), Box::new(state))
            } else {
                // `in` not followed by `(` is a guard's name (as in pest's
                // ordered choice).
                self.pos = before_in;
                GuardAst::Name(self.ident()?)
            };
            for not in nots.into_iter().rev() {
                expr = GuardAst::Not(not.to(expr.span()), Box::new(expr));
            }
            Some(expr)
        }
    }

    /// The position of the next `\n` at or after `from`, or the end.
    fn memchr_newline(bytes: &[u8], from: usize) -> usize {
        bytes[from..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| from + n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_language_tour() {
        let text = r#"
/// The agent loop.
machine Agent {
    action user_input;
    initial state waiting { on user_input -> calling emit send; }
    state calling {
        enter emit start_timer;
        on llm_error [retries_left && !fatal] priority 1 -> error;
        on text_delta emit display_text;
    }
    terminal state done;
    #[allow(unreachable-state)]
    state spare;
    any { on shutdown -> done; }
}
"#;
        let parsed = parse(text);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let m = &parsed.file.machines[0];
        assert_eq!(m.name.name, "Agent");
        assert_eq!(m.docs, ["The agent loop."]);
        assert_eq!(m.items.len(), 6);
        let MachineItem::State(calling) = &m.items[2] else {
            panic!()
        };
        let body = calling.body.as_ref().unwrap();
        let StateItem::Transition(t) = &body[1] else {
            panic!()
        };
        assert_eq!(t.priority.unwrap().value, 1);
        assert_eq!(
            &text[t.guard.as_ref().unwrap().span().start..t.guard.as_ref().unwrap().span().end],
            "retries_left && !fatal"
        );
    }

    #[test]
    fn one_broken_machine_does_not_hide_another() {
        let text = "machine A { initial state a { on x -> ; } }\nmachine B { initial state b; }\nmachine C { state }";
        let parsed = parse(text);
        assert_eq!(parsed.diagnostics.len(), 2);
        assert_eq!(parsed.file.machines.len(), 1);
        assert_eq!(parsed.file.machines[0].name.name, "B");
        let names: Vec<&str> = parsed.file.unparsed.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["A", "C"]);
        assert_eq!(
            &text[parsed.file.unparsed[1].span.start..parsed.file.unparsed[1].span.end],
            "C"
        );
    }

    #[test]
    fn every_broken_statement_of_a_machine_is_reported() {
        let text =
            "machine A {\n initial state a { on x -> ; on y => a; }\n stat b;\n state c { on z -> a }\n}";
        let parsed = parse(text);
        let found: Vec<&str> = parsed
            .diagnostics
            .iter()
            .map(|d| &text[d.span.start..d.span.end])
            .collect();
        assert_eq!(found, [";", "=", "stat", "}"], "{:?}", parsed.diagnostics);
        assert!(parsed.file.machines.is_empty());
    }

    #[test]
    fn a_stray_brace_after_a_machine_is_one_error() {
        let text = "machine D { initial terminal state a; }\n}\n";
        let parsed = parse(text);
        assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
        assert_eq!(
            &text[parsed.diagnostics[0].span.start..parsed.diagnostics[0].span.end],
            "}"
        );
        assert_eq!(parsed.file.machines.len(), 1);
    }

    /// The spans of the leaf tokens that carry content (names, lint codes,
    /// numbers, durations, whole types) in a parse of `fsm.pest`, in source order, or `None` when it
    /// refuses the text.
    fn pest_leaves(text: &str) -> Option<Vec<Span>> {
        fn walk(pair: pest::iterators::Pair<'_, Rule>, out: &mut Vec<Span>) {
            match pair.as_rule() {
                // A type is one leaf: the AST keeps it whole.
                Rule::ident
                | Rule::lint_code
                | Rule::int
                | Rule::duration
                | Rule::rust_type
                | Rule::history => {
                    out.push(Span::from(pair.as_span()));
                }
                _ => pair.into_inner().for_each(|p| walk(p, out)),
            }
        }
        let mut out = Vec::new();
        FsmParser::parse(Rule::file, text)
            .ok()?
            .for_each(|p| walk(p, &mut out));
        out.sort_by_key(|s| (s.start, s.end));
        Some(out)
    }

    /// The same leaves, read from the AST.
    fn ast_leaves(machines: &[MachineAst]) -> Vec<Span> {
        fn guard(g: &GuardAst, out: &mut Vec<Span>) {
            out.extend(g.names().iter().map(|i| i.span));
            out.extend(g.in_states().iter().map(|i| i.span));
        }
        fn tail(
            g: &Option<GuardAst>,
            p: Option<Priority>,
            (target, history): (&Option<Ident>, Option<HistoryAst>),
            lists: [&[Ident]; 2],
            out: &mut Vec<Span>,
        ) {
            if let Some(g) = g {
                guard(g, out);
            }
            out.extend(p.map(|p| p.span));
            out.extend(target.as_ref().map(|i| i.span));
            out.extend(history.map(|h| h.span));
            out.extend(lists.iter().flat_map(|l| l.iter()).map(|i| i.span));
        }
        fn transition(t: &TransitionAst, out: &mut Vec<Span>) {
            match &t.trigger {
                TriggerAst::On { action, .. } => out.push(action.span),
                TriggerAst::After { delay, .. } => out.push(delay.ident().span),
                TriggerAst::Eventless { .. } => {}
            }
            tail(
                &t.guard,
                t.priority,
                (&t.target, t.history),
                [&t.effects, &t.emits],
                out,
            );
        }
        fn attrs(attrs: &[Attr], out: &mut Vec<Span>) {
            out.extend(attrs.iter().flat_map(|a| &a.codes).map(|c| c.span));
        }
        fn state(s: &StateAst, out: &mut Vec<Span>) {
            attrs(&s.attrs, out);
            out.push(s.name.span);
            for item in s.body.iter().flatten() {
                match item {
                    StateItem::Hook(h) => {
                        out.extend(h.effects.iter().chain(&h.outputs).map(|i| i.span));
                    }
                    StateItem::Transition(t) => transition(t, out),
                    StateItem::State(s) => state(s, out),
                }
            }
        }
        let mut out = Vec::new();
        for m in machines {
            attrs(&m.attrs, &mut out);
            out.push(m.name.span);
            for item in &m.items {
                match item {
                    MachineItem::Context(c) => out.push(c.ty.span),
                    MachineItem::Decl(d) => {
                        assert_eq!(d.names.len(), d.payloads.len());
                        out.extend(d.names.iter().map(|i| i.span));
                        out.extend(d.payloads.iter().flatten().map(|t| t.span));
                    }
                    MachineItem::Any(a) => a.transitions.iter().for_each(|t| transition(t, &mut out)),
                    MachineItem::State(s) => state(s, &mut out),
                    MachineItem::Property(p) => {
                        out.extend(p.name.as_ref().map(|n| n.span));
                        out.extend(p.formula.in_calls().iter().map(|(_, s)| s.span));
                        if let Some(l) = &p.leads_to {
                            out.extend(l.formula.in_calls().iter().map(|(_, s)| s.span));
                            out.extend(l.assuming.iter().map(|i| i.span));
                        }
                    }
                }
            }
        }
        out.sort_by_key(|s| (s.start, s.end));
        out
    }

    fn with_direct(text: &str) -> Option<(Vec<MachineAst>, Vec<Diagnostic>)> {
        let comments = comments::scan(text);
        let docs = DocIndex::new(text, &comments);
        let mut diagnostics = Vec::new();
        direct::parse(text, &docs, &mut diagnostics).map(|m| (m, diagnostics))
    }

    fn fixtures() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let mut texts = Vec::new();
        for dir in ["ok", "err"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "fsm") {
                    let text = std::fs::read_to_string(path).unwrap();
                    // The tests vary every token of a fixture, at a cost
                    // quadratic in its length; a long fixture (a chain of
                    // a thousand repeated states) adds only repeats.
                    if text.len() <= 8 * 1024 {
                        texts.push(text);
                    }
                }
            }
        }
        assert!(texts.len() > 20);
        texts
    }

    /// The grammar of `fsm.pest` and the hand-written parser accept the same
    /// texts, and the AST holds every name, lint code and number of the pest
    /// parse at the same span: on every fixture, and on every fixture with
    /// one token removed or doubled. A machine parsed alone (as recovery
    /// does) gives the same AST as in the whole file.
    #[test]
    fn the_parsers_agree() {
        let extra = [
            "machine M { #[allow(a-b,)] initial terminal state s { on x [!(a&&b)||!!c] priority -3 -> s emit o, p; enter emit q; } any { on y; } }",
            "machine M { state s { on x priority 99999999999; } }",
            "machine M { initial initial state s; }",
            "\u{FEFF}// c\nmachine M { state state; state on { on on -> on; } }",
            "machine M { statex s; }",
            "machine M { #[allow(,)] state s; }",
            "machine M { state s { on x [a || ] ; } }",
            "machine M { state s { on x priority - 1; } }",
            "machine M { state s { on x emit; } }",
            "machine M { state sé; }",
            "#[allow(x)]",
            "",
            "machine M { context crate::llm::Ctx<Vec<(u32, String,)>, [u8; 4], (), (A,)>; action a(::x::Y), b, c((A, B)); guard g(T); effect e, f(Vec<Vec<u8>>); delay d; output o; }",
            "machine M { context T; initial state s { enter do e emit o; exit do e, f; on a [g] priority 1 -> s do e, f emit o; on a do e; after 30s [g] priority 2 -> s do e emit o; after d; after 10xyz -> s; } }",
            "machine M { state after { on do -> do do do emit emit; after after -> after; } state do; state delay { on context -> effect; } }",
            "machine M { context &'static str; }",
            "machine M { action a(Vec<String); }",
            "machine M { action a(Foo::<T>); }",
            "machine M { output o(T); delay d(T); }",
            "machine M { state s { enter; after; after -> s; on x do; } any { after 1s; } }",
            "machine M { initial state a { on x -> b.history; after 1s -> b.deep_history emit o; state c; #[allow(dead-end)] initial terminal state d { state e { } } } state b { on y -> a . history; state history; state deep_history { on z -> history; } } }",
            "machine M { state a { on x -> b.; on y -> b.deep; on z -> b.history.history; } }",
            "machine M { state a { on x -> .history; state enter { exit emit o; } state exit; state on { on on -> on; } state after; } }",
            "machine M { state a { initial; state b } }",
            "machine M { initial parallel state p { on c -> x; done [in(a2) && !in ( b1 )] priority 1 -> x do e emit o; \
             always [in] -> p.history; state a { initial state a1 { on go -> a2; } final state a2; } \
             parallel state b { state b1; state b2 { always; } } } terminal state x; final state f; }",
            "machine M { state in { on in [in(in) || in] -> in; } state done { done; always -> done; } state always; state parallel; }",
            "machine M { parallel initial state p; final parallel state q; parallel parallel state r; state s { on x [in()]; on y [in(a, b)]; } }",
            "machine M { state s { done emit; always [g] -> ; } }",
            "machine M { initial state a; never in(a) && !(in(b) || terminal); property p: reachable !!terminal; recoverable (in(a)); }",
            "machine M { property never: never in(never); property: never terminal; never; never in; never in(); never a; reachable in(a) in(b); }",
            "machine M { property p never terminal; property p: state s; recoverable in(a) &&; never terminal }",
            "machine M { property p: in(a) leads to !terminal assuming x, y; property q: (terminal) leads to in(b); escapable in(a); }",
            "machine M { in(a) leads to in(b); property p: leads to in(b); property p: in(a) leads in(b); property p: in(a) leads to in(b) assuming; terminal leads to terminal; }",
        ];
        let mut texts: Vec<String> = fixtures();
        texts.extend(extra.iter().map(|s| s.to_string()));
        let mut variants = Vec::new();
        for text in &texts {
            variants.push(text.clone());
            let mut i = 0;
            while i < text.len() {
                let rest = &text[i..];
                let c = rest.chars().next().unwrap();
                let len = if c.is_ascii_alphanumeric() || c == '_' {
                    rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len())
                } else {
                    c.len_utf8()
                };
                if !c.is_whitespace() {
                    variants.push(format!("{}{}", &text[..i], &text[i + len..]));
                    variants.push(format!("{}{}", &text[..i + len], &text[i..]));
                }
                i += len;
            }
        }
        for text in &variants {
            let named = pest_leaves(text);
            let direct = with_direct(text);
            assert_eq!(named.is_some(), direct.is_some(), "{text}");
            if let (Some(named), Some((machines, _))) = (named, direct) {
                assert_eq!(named, ast_leaves(&machines), "{text}");
                // A machine parsed on its own, as recovery does, is the same.
                for (m, (start, end)) in machines.iter().zip(top_level_segments(text)) {
                    let comments = comments::scan(text);
                    let docs = DocIndex::new(text, &comments);
                    let alone = direct::parse_segment(text, start, end, &docs, &mut Vec::new());
                    assert_eq!(alone.as_ref(), Some(m), "{text}");
                }
            }
        }
    }

    /// Syntax recovery as it was first written: after blanking each broken
    /// statement, the whole machine is parsed again.
    /// Stray braces are blanked first, as `parse` does.
    fn recover_by_reparsing(text: &str) -> Vec<Diagnostic> {
        let (strays, without_strays) = stray_braces(text);
        let mut diagnostics: Vec<Diagnostic> = strays.iter().map(|s| s.diagnostic()).collect();
        let text = without_strays.as_deref().unwrap_or(text);
        let comments = comments::scan(text);
        let docs = DocIndex::new(text, &comments);
        if direct::parse(text, &docs, &mut diagnostics).is_some() {
            diagnostics.sort_by_key(|d| d.span.start);
            return diagnostics;
        }
        let mut buf = text.to_string();
        for (start, end) in top_level_segments(text) {
            if direct::parse_segment(text, start, end, &docs, &mut diagnostics).is_some() {
                continue;
            }
            let err = FsmParser::parse(Rule::machine_entry, &text[start..end]).unwrap_err();
            diagnostics.push(syntax_error::from_pest(&err, text, &comments, start, start));
            let mut err_pos = start + error_offset(&err);
            for _ in 1..MAX_ERRORS_PER_MACHINE {
                let Some((from, to)) = statement_around(&buf[start..end], err_pos - start) else {
                    break;
                };
                blank(&mut buf, start + from, start + to);
                if only_comments(&buf[start..end]) {
                    break;
                }
                match FsmParser::parse(Rule::machine_entry, &buf[start..end]) {
                    Ok(_) => break,
                    Err(err) => {
                        let pos = start + error_offset(&err);
                        if pos <= err_pos {
                            break;
                        }
                        diagnostics.push(syntax_error::from_pest(&err, &buf, &comments, start, start));
                        err_pos = pos;
                    }
                }
            }
        }
        if !strays.is_empty() {
            diagnostics.sort_by_key(|d| d.span.start);
        }
        diagnostics
    }

    /// Parsing on from the broken statement finds the same errors as parsing
    /// the whole machine again, on the fixtures with a token removed or
    /// doubled (and with two tokens removed, for several errors).
    #[test]
    fn recovery_finds_what_reparsing_finds() {
        for text in fixtures() {
            let tokens: Vec<usize> = text
                .char_indices()
                .filter(|&(i, c)| {
                    !c.is_whitespace()
                        && !text[..i].ends_with(|p: char| p.is_ascii_alphanumeric() || p == '_')
                })
                .map(|(i, _)| i)
                .collect();
            let token_end = |i: usize| {
                let rest = &text[i..];
                let c = rest.chars().next().unwrap();
                if c.is_ascii_alphanumeric() || c == '_' {
                    i + rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len())
                } else {
                    i + c.len_utf8()
                }
            };
            let mut variants = Vec::new();
            // Every third token, to keep the test quick.
            for (n, &i) in tokens.iter().enumerate().step_by(3) {
                let e = token_end(i);
                variants.push(format!("{}{}", &text[..i], &text[e..]));
                variants.push(format!("{}{}", &text[..e], &text[i..]));
                if let Some(&j) = tokens.get(n + 7) {
                    let f = token_end(j);
                    variants.push(format!("{}{}{}", &text[..i], &text[e..j], &text[f..]));
                }
            }
            for v in &variants {
                // Nesting over the limit is cut before either way of recovering runs.
                if !crate::limits::oversized_nesting(v).is_empty() {
                    continue;
                }
                assert_eq!(parse(v).diagnostics, recover_by_reparsing(v), "{v}");
            }
        }
    }

    #[test]
    fn labels_and_help_of_syntax_errors() {
        let text = "machine A {\n initial state a { on x -> a; }\n state d { on x -> ;";
        let parsed = parse(text);
        let found: Vec<&str> = parsed
            .diagnostics
            .iter()
            .map(|d| &text[d.span.start..d.span.end])
            .collect();
        // The error at the end of the file is labelled after the last token
        // left once the broken `on x -> ;` is skipped, not on its `;`.
        assert_eq!(found, [";", "{"], "{:?}", parsed.diagnostics);

        let help = |text: &str| parse(text).diagnostics[0].help.clone();
        assert!(
            help("machine A { #[allow(] state a; }").contains("#[allow(CODE, ...)]"),
            "{}",
            help("machine A { #[allow(] state a; }")
        );
        assert_eq!(help("machine A { stat a; }"), "did you mean `state`?");
        assert_eq!(
            help("machine A { state a { on x prio 2; } }"),
            "did you mean `priority`?"
        );
        assert_eq!(help("machine A { state a { on x => a; } }"), "did you mean `->`?");
        assert_eq!(
            help("machine A { #[alow(dead-end)] state a; }"),
            "did you mean `allow`?"
        );
        assert!(help("machine A { state a { on x [(b] -> a; } }").starts_with("a guard is"));
    }

    #[test]
    fn recovery_parses_on_from_the_broken_statement() {
        // Twenty broken transitions in a long machine: each is reported.
        let mut text = String::from("machine A {\n initial state s0 { on go -> s1; }\n");
        for i in 1..2000 {
            let arrow = if i % 100 == 0 { "=>" } else { "->" };
            text.push_str(&format!(" state s{i} {{ on go {arrow} s{}; }}\n", i + 1));
        }
        text.push_str(" state s2000;\n}\n");
        let parsed = parse(&text);
        assert_eq!(parsed.diagnostics.len(), 19, "{:?}", parsed.diagnostics);
        assert!(parsed
            .diagnostics
            .iter()
            .all(|d| &text[d.span.start..d.span.end] == "="));
    }

    #[test]
    fn recovery_steps_over_wide_whitespace_before_a_block() {
        // A BOM (3 bytes, whitespace to the grammar) before the word that
        // opens a block, and a syntax error after that block.
        let text = "machine M {\n    state \u{FEFF}b { on y -> a; }\n    state a { on x -> ; }\n}\n";
        let parsed = parse(text);
        assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
        assert_eq!(parsed.diagnostics[0].code, Code::Syntax);
    }

    #[test]
    fn keywords_are_contextual() {
        let parsed = parse("machine M { initial state exit { on output -> type; } state type; }");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }
}
