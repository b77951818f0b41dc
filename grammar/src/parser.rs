//! Parsing: pest pairs into the spanned AST, with recovery at machine level.
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
use pest::iterators::Pair;
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
    if let Some(too_large) = crate::limits::check(text) {
        return Parsed {
            file: File {
                comments,
                ..File::default()
            },
            diagnostics: vec![too_large],
        };
    }
    let docs = DocIndex::new(text, &comments);
    let mut diagnostics = Vec::new();
    let mut unparsed = Vec::new();
    let machines = match FsmParser::parse(Rule::file, text) {
        Ok(mut pairs) => {
            let file = pairs.next().expect("the file rule always yields one pair");
            let mut b = Builder::new(&docs, 0, &mut diagnostics);
            file.into_inner()
                .filter(|p| p.as_rule() == Rule::machine)
                .map(|p| b.machine(p))
                .collect()
        }
        Err(_) => parse_segments(text, &docs, &mut diagnostics, &mut unparsed),
    };
    Parsed {
        file: File {
            machines,
            unparsed,
            comments,
        },
        diagnostics,
    }
}

fn parse_segments(
    text: &str,
    docs: &DocIndex<'_>,
    diagnostics: &mut Vec<Diagnostic>,
    unparsed: &mut Vec<Ident>,
) -> Vec<MachineAst> {
    let mut machines = Vec::new();
    for (start, end) in top_level_segments(text) {
        let segment = &text[start..end];
        match FsmParser::parse(Rule::machine_entry, segment) {
            Ok(mut pairs) => {
                let entry = pairs.next().expect("the entry rule always yields one pair");
                let machine = entry
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::machine)
                    .expect("a parsed entry holds a machine");
                machines.push(Builder::new(docs, start, diagnostics).machine(machine));
            }
            Err(err) => {
                unparsed.extend(machine_name(text, start, end));
                diagnostics.push(syntax_error::from_pest(&err, text, start));
                more_syntax_errors(text, start, end, &err, diagnostics);
            }
        }
    }
    machines
}

/// Most syntax errors a single machine reports.
const MAX_ERRORS_PER_MACHINE: usize = 20;

/// Find the machine's further syntax errors: blank out the statement holding
/// the error (spaces, so positions stay put) and parse again, until it parses
/// or no progress is made. The machine itself is not checked further: its
/// model would be missing the broken statements, and every diagnostic that
/// caused would be noise.
fn more_syntax_errors(
    text: &str,
    start: usize,
    end: usize,
    first: &pest::error::Error<Rule>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut buf = text[start..end].to_string();
    let mut err_pos = error_offset(first);
    for _ in 1..MAX_ERRORS_PER_MACHINE {
        let Some((from, to)) = statement_around(&buf, err_pos) else {
            return;
        };
        blank(&mut buf, from, to);
        if only_comments(&buf) {
            return; // what was left was the stray text itself
        }
        match FsmParser::parse(Rule::machine_entry, &buf) {
            Ok(_) => return,
            Err(err) => {
                let pos = error_offset(&err);
                if pos <= err_pos {
                    return; // no progress: the rest is one broken construct
                }
                diagnostics.push(syntax_error::from_pest(&err, text, start));
                err_pos = pos;
            }
        }
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

/// Builds AST nodes from pairs; `offset` shifts spans of a parsed segment back
/// to positions in the whole text.
struct Builder<'a, 'd> {
    docs: &'a DocIndex<'a>,
    offset: usize,
    diagnostics: &'d mut Vec<Diagnostic>,
}

impl<'a, 'd> Builder<'a, 'd> {
    fn new(docs: &'a DocIndex<'a>, offset: usize, diagnostics: &'d mut Vec<Diagnostic>) -> Self {
        Builder {
            docs,
            offset,
            diagnostics,
        }
    }

    fn span(&self, pair: &Pair<'_, Rule>) -> Span {
        Span::from(pair.as_span()).shifted(self.offset)
    }

    fn ident(&self, pair: Pair<'_, Rule>) -> Ident {
        debug_assert_eq!(pair.as_rule(), Rule::ident);
        Ident {
            name: pair.as_str().to_string(),
            span: self.span(&pair),
        }
    }

    fn ident_list(&self, pair: Pair<'_, Rule>) -> Vec<Ident> {
        pair.into_inner()
            .filter(|p| p.as_rule() == Rule::ident)
            .map(|p| self.ident(p))
            .collect()
    }

    fn machine(&mut self, pair: Pair<'_, Rule>) -> MachineAst {
        let span = self.span(&pair);
        let mut attrs = Vec::new();
        let mut name = None;
        let mut items = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::attrs => attrs = self.attrs(p),
                Rule::ident => name = Some(self.ident(p)),
                Rule::decl => items.push(MachineItem::Decl(self.decl(p))),
                Rule::state => items.push(MachineItem::State(self.state(p))),
                Rule::any_block => items.push(MachineItem::Any(self.any_block(p))),
                _ => {}
            }
        }
        MachineAst {
            docs: self.docs.docs_before(span.start),
            span,
            attrs,
            name: name.expect("grammar: a machine has a name"),
            items,
        }
    }

    fn attrs(&self, pair: Pair<'_, Rule>) -> Vec<Attr> {
        pair.into_inner()
            .map(|attr| Attr {
                span: self.span(&attr),
                codes: attr
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::lint_code)
                    .map(|p| Ident {
                        name: p.as_str().to_string(),
                        span: self.span(&p),
                    })
                    .collect(),
            })
            .collect()
    }

    fn decl(&self, pair: Pair<'_, Rule>) -> DeclAst {
        let span = self.span(&pair);
        let mut kind = DeclKind::Action;
        let mut names = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::decl_kind => {
                    kind = match p.into_inner().next().map(|k| k.as_rule()) {
                        Some(Rule::kw_guard) => DeclKind::Guard,
                        Some(Rule::kw_output) => DeclKind::Output,
                        _ => DeclKind::Action,
                    }
                }
                Rule::ident_list => names = self.ident_list(p),
                _ => {}
            }
        }
        DeclAst {
            docs: self.docs.docs_before(span.start),
            span,
            kind,
            names,
        }
    }

    fn state(&mut self, pair: Pair<'_, Rule>) -> StateAst {
        let span = self.span(&pair);
        let mut attrs = Vec::new();
        let mut modifiers = Vec::new();
        let mut name = None;
        let mut body = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::attrs => attrs = self.attrs(p),
                Rule::modifier => {
                    let kw = p.into_inner().next().expect("grammar: a modifier is a keyword");
                    let kind = if kw.as_rule() == Rule::kw_initial {
                        ModifierKind::Initial
                    } else {
                        ModifierKind::Terminal
                    };
                    let m = Modifier {
                        kind,
                        span: self.span(&kw),
                    };
                    if let Some(first) = modifiers.iter().find(|x: &&Modifier| x.kind == kind) {
                        self.diagnostics.push(
                            Diagnostic::new(
                                Code::Syntax,
                                m.span,
                                format!("`{}` is written twice", kw.as_str()),
                                "written again here",
                                format!("remove the second `{}`", kw.as_str()),
                            )
                            .with_label(first.span, "first written here"),
                        );
                    } else {
                        modifiers.push(m);
                    }
                }
                Rule::ident => name = Some(self.ident(p)),
                Rule::state_body => body = Some(self.state_body(p)),
                _ => {}
            }
        }
        StateAst {
            docs: self.docs.docs_before(span.start),
            span,
            attrs,
            modifiers,
            name: name.expect("grammar: a state has a name"),
            body,
        }
    }

    fn state_body(&mut self, pair: Pair<'_, Rule>) -> Vec<StateItem> {
        let mut items = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::hook => items.push(StateItem::Hook(self.hook(p))),
                Rule::transition => items.push(StateItem::Transition(self.transition(p))),
                _ => {}
            }
        }
        items
    }

    fn hook(&self, pair: Pair<'_, Rule>) -> HookAst {
        let span = self.span(&pair);
        let mut kind = HookKind::Enter;
        let mut outputs = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::hook_kind if p.as_str() == "exit" => {
                    kind = HookKind::Exit;
                }
                Rule::ident_list => outputs = self.ident_list(p),
                _ => {}
            }
        }
        HookAst { span, kind, outputs }
    }

    fn any_block(&mut self, pair: Pair<'_, Rule>) -> AnyAst {
        let span = self.span(&pair);
        let mut keyword = span;
        let mut transitions = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::kw_any => keyword = self.span(&p),
                Rule::transition => transitions.push(self.transition(p)),
                _ => {}
            }
        }
        AnyAst {
            span,
            keyword,
            transitions,
        }
    }

    fn transition(&mut self, pair: Pair<'_, Rule>) -> TransitionAst {
        let span = self.span(&pair);
        let mut action = None;
        let mut guard = None;
        let mut priority = None;
        let mut target = None;
        let mut emits = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => action = Some(self.ident(p)),
                Rule::guard => {
                    let inner = p.into_inner().find(|q| q.as_rule() == Rule::guard_or);
                    guard = inner.map(|q| self.guard_or(q));
                }
                Rule::priority => {
                    let int = p
                        .into_inner()
                        .find(|q| q.as_rule() == Rule::int)
                        .expect("grammar: priority has a number");
                    priority = Some(self.priority(int));
                }
                Rule::target => {
                    target = p
                        .into_inner()
                        .find(|q| q.as_rule() == Rule::ident)
                        .map(|q| self.ident(q));
                }
                Rule::emit => {
                    if let Some(list) = p.into_inner().find(|q| q.as_rule() == Rule::ident_list) {
                        emits = self.ident_list(list);
                    }
                }
                _ => {}
            }
        }
        TransitionAst {
            docs: self.docs.docs_before(span.start),
            span,
            action: action.expect("grammar: a transition names an action"),
            guard,
            priority,
            target,
            emits,
        }
    }

    fn priority(&mut self, int: Pair<'_, Rule>) -> Priority {
        let span = self.span(&int);
        let value = int.as_str().parse::<i32>().unwrap_or_else(|_| {
            self.diagnostics.push(Diagnostic::new(
                Code::Syntax,
                span,
                format!("priority `{}` is out of range", int.as_str()),
                "out of range",
                format!("a priority is a whole number from {} to {}", i32::MIN, i32::MAX),
            ));
            0
        });
        Priority { value, span }
    }

    fn guard_or(&self, pair: Pair<'_, Rule>) -> GuardAst {
        self.binary(pair, Rule::guard_and, GuardAst::Or)
    }

    fn guard_and(&self, pair: Pair<'_, Rule>) -> GuardAst {
        self.binary(pair, Rule::guard_unary, GuardAst::And)
    }

    /// Left-associative chain of `operand (op operand)*`.
    fn binary(
        &self,
        pair: Pair<'_, Rule>,
        operand: Rule,
        make: fn(Span, Box<GuardAst>, Box<GuardAst>) -> GuardAst,
    ) -> GuardAst {
        let mut operands = pair
            .into_inner()
            .filter(|p| p.as_rule() == operand)
            .map(|p| match operand {
                Rule::guard_and => self.guard_and(p),
                _ => self.guard_unary(p),
            });
        let first = operands.next().expect("grammar: a chain has an operand");
        operands.fold(first, |lhs, rhs| {
            let span = lhs.span().to(rhs.span());
            make(span, Box::new(lhs), Box::new(rhs))
        })
    }

    fn guard_unary(&self, pair: Pair<'_, Rule>) -> GuardAst {
        let mut nots = Vec::new();
        let mut primary = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::not_op => nots.push(self.span(&p)),
                Rule::guard_primary => primary = Some(self.guard_primary(p)),
                _ => {}
            }
        }
        let mut expr = primary.expect("grammar: a unary guard has an operand");
        for not in nots.into_iter().rev() {
            let span = not.to(expr.span());
            expr = GuardAst::Not(span, Box::new(expr));
        }
        expr
    }

    fn guard_primary(&self, pair: Pair<'_, Rule>) -> GuardAst {
        let inner = pair
            .into_inner()
            .next()
            .expect("grammar: a primary guard has content");
        match inner.as_rule() {
            Rule::ident => GuardAst::Name(self.ident(inner)),
            _ => {
                let span = self.span(&inner);
                let expr = inner
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::guard_or)
                    .map(|p| self.guard_or(p))
                    .expect("grammar: parentheses hold an expression");
                GuardAst::Paren(span, Box::new(expr))
            }
        }
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

    #[test]
    fn keywords_are_contextual() {
        let parsed = parse("machine M { initial state exit { on output -> type; } state type; }");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }
}
