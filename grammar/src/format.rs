//! The canonical formatter (`fsmc fmt`).
//!
//! [`format()`] prints a file from its syntax tree, so the layout depends on what
//! the file says and on where its comments and blank lines are, never on how the
//! rest of it was spaced. Formatting is idempotent, and the formatted text
//! checks to the same model (states, symbols, transitions and doc comments) with
//! the same diagnostic codes.
//!
//! # Layout
//!
//! - Four spaces per level of nesting; one item per line: every declaration,
//!   attribute, state, hook, transition and closing brace starts its own line.
//! - Tokens are separated by single spaces, except that `;`, `,`, `)` and `]`
//!   hug the token before them and `[`, `(`, `!` and `#` hug the token after
//!   them: `#[allow(a, b)]`, `on a [x && !(y || z)] priority -1 -> b emit o, p;`.
//!   Guards keep exactly the parentheses that were written.
//! - State modifiers come in the order `initial terminal`. A priority is kept
//!   whenever it was written (even `priority 0`), printed as its value
//!   (`007` becomes `7`, `-0` becomes `0`). A trailing comma in `#[allow(...)]`
//!   is dropped.
//! - `#[allow(...)]` attributes stand on their own lines above the machine or
//!   state they belong to.
//! - Lines are kept within 100 columns (indentation included, trailing comments
//!   not), as rustfmt's default. A transition too long for one line breaks
//!   before `priority`, `->` and `emit`, keeping on each line as many of these
//!   clauses as fit; a declaration, hook or `emit` clause still too long breaks
//!   after the commas of its list. Continuation lines are indented one level
//!   deeper. A guard is never broken, so a line holding a very long guard may
//!   stay longer than 100 columns.
//! - A state whose body is empty becomes `state x;`; an empty machine or `any`
//!   body becomes `{}`. A body holding only comments keeps its braces.
//! - A run of blank lines between two lines of a body becomes one blank line;
//!   blank lines right after `{`, right before `}`, inside an item's attributes,
//!   and between an item and the doc comments above it are removed. Two machines
//!   are always separated by exactly one blank line: a machine's `}` is always
//!   followed by a blank line before whatever comes next. The text ends with one
//!   newline (an empty text stays empty).
//!
//! # Comments
//!
//! Every comment is kept, with its text unchanged (trailing whitespace aside),
//! and comments stay in their original order except where said below.
//!
//! - A comment on a line of its own stays on a line of its own, indented like
//!   the items around it: above the next item of its body, or above the closing
//!   brace when nothing follows it.
//! - A `//` comment that followed code on the same line stays at the end of that
//!   line, one space after the code. This includes comments after `{` and after
//!   an `#[allow(...)]`.
//! - A `///` doc comment always stands on a line of its own, directly above the
//!   item it documents. A `///` written at the end of a line documents the *next*
//!   item, so it moves to its own line above that item.
//! - A `//` comment inside a one-line construct (between `on` and `;`, inside a
//!   guard, between `state` and `{`, inside `#[allow(...)]`, ...) moves to its own
//!   line just above that construct's line. When that line is the item's first
//!   line, it goes above the item's doc comments, so they stay attached.
//! - A `///` comment inside a one-line construct documents nothing, and moving
//!   it above or below would make it document a neighbouring item. It stays
//!   where it was instead: the line breaks after the token before the comment,
//!   and the comment and the rest of the construct continue on lines indented
//!   one level deeper.

use crate::ast::{
    AnyAst, Attr, Comment, ContextAst, DeclAst, FormulaAst, GuardAst, HistoryAst, HookAst, HookKind, Ident,
    MachineAst, MachineItem, ModifierKind, Priority, PropertyAst, StateAst, StateItem, TransitionAst,
    TriggerAst,
};
use crate::diagnostic::Diagnostic;
use crate::parser;
use crate::span::Span;

/// One level of indentation.
const INDENT: &str = "    ";

/// Format `text` into the canonical layout. Refuses (returns the syntax
/// diagnostics) when the text has syntax errors.
///
/// ```
/// let text = "machine M{initial state a{on go->b;}state b{}}";
/// let formatted = fsm_grammar::format::format(text).unwrap();
/// assert_eq!(
///     formatted,
///     "machine M {\n    initial state a {\n        on go -> b;\n    }\n    state b;\n}\n"
/// );
/// ```
pub fn format(text: &str) -> Result<String, Vec<Diagnostic>> {
    let parsed = parser::parse(text);
    if parsed.diagnostics.iter().any(Diagnostic::is_error) {
        return Err(parsed.diagnostics);
    }
    Ok(Printer::new(text, &parsed.file.comments).file(&parsed.file.machines))
}

/// One output line: its depth of indentation and its text (empty for a blank line).
struct Line {
    depth: usize,
    text: String,
}

impl Line {
    fn new(depth: usize, text: String) -> Self {
        Line { depth, text }
    }

    fn blank() -> Self {
        Line::new(0, String::new())
    }
}

/// What an element of a body is; doc comments directly above an item are its docs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EntryKind {
    Item,
    Comment,
    DocComment,
}

/// An element of a body (or of the file): an item or an own-line comment.
struct Entry {
    kind: EntryKind,
    /// Whether a blank line separates it from the element before.
    blank_before: bool,
    lines: Vec<Line>,
}

/// The lines of one printed item.
#[derive(Default)]
struct Printed {
    /// `//` comments that sat inside the item's first line. The enclosing body
    /// puts them above the item and its doc comments.
    hoisted: Vec<usize>,
    lines: Vec<Line>,
}

/// Anything that sits on its own lines inside a body.
///
/// The printer walks the tree itself, not through
/// [`Visit`](crate::ast::visit::Visit): printing a node returns its lines to
/// the body holding it, which places them among the comments and blank
/// lines found between its nodes, so a body needs its nodes as one list and
/// each node's output back, where a visitor's hooks return nothing.
#[derive(Clone, Copy)]
enum Node<'a> {
    Machine(&'a MachineAst),
    Item(&'a MachineItem),
    StateItem(&'a StateItem),
    Transition(&'a TransitionAst),
}

impl Node<'_> {
    fn span(self) -> Span {
        match self {
            Node::Machine(m) => m.span,
            Node::Item(i) => i.span(),
            Node::StateItem(i) => i.span(),
            Node::Transition(t) => t.span,
        }
    }
}

/// How to print a body without items or comments.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EmptyBody {
    /// `state x;`
    Semicolon,
    /// `any {}`, `machine M {}`
    Braces,
}

/// A token as printed, with the span where it was written.
struct Token {
    text: String,
    span: Span,
    /// No space before it, whatever the token before is.
    glued: bool,
    /// Whether a line that is too long may break before it.
    wrap: Wrap,
}

/// Where a line that is too long may break.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wrap {
    /// Not before this token.
    Never,
    /// Before a clause of a transition: `priority`, `->`, `emit`.
    Clause,
    /// Before a name of a list, after its comma.
    ListItem,
}

/// The width lines are kept within, indentation included and trailing
/// comments excluded, as rustfmt's default.
const MAX_WIDTH: usize = 100;

/// Whether no space goes between two adjacent tokens.
fn hugs(prev: &str, next: &str) -> bool {
    matches!(next, ";" | "," | ")" | "]")
        || matches!(prev, "[" | "(" | "!" | "#")
        || (prev == "{" && next == "}")
}

/// Collects the tokens of one construct in source order, finding where the
/// punctuation and keywords the syntax tree does not record were written.
struct Tokens<'t> {
    text: &'t str,
    /// Where the search for the next token starts.
    cursor: usize,
    list: Vec<Token>,
}

impl<'t> Tokens<'t> {
    fn new(text: &'t str, cursor: usize) -> Self {
        Tokens {
            text,
            cursor,
            list: Vec::new(),
        }
    }

    /// A token whose span is known.
    fn at(&mut self, text: &str, span: Span) {
        self.cursor = self.cursor.max(span.end);
        self.list.push(Token {
            text: text.to_string(),
            span,
            glued: false,
            wrap: Wrap::Never,
        });
    }

    /// The start of a transition clause, where a long line may break.
    fn clause(&mut self, text: &str) {
        self.fixed(text);
        if let Some(last) = self.list.last_mut() {
            last.wrap = Wrap::Clause;
        }
    }

    fn ident(&mut self, ident: &Ident) {
        self.at(&ident.name, ident.span);
    }

    /// `a, b, c`
    fn ident_list(&mut self, idents: &[Ident]) {
        for (i, ident) in idents.iter().enumerate() {
            if i > 0 {
                self.fixed(",");
            }
            self.ident(ident);
            if let (true, Some(last)) = (i > 0, self.list.last_mut()) {
                last.wrap = Wrap::ListItem;
            }
        }
    }

    /// A keyword or punctuation written next, after whitespace and comments.
    fn fixed(&mut self, text: &str) {
        let span = self.find(text).unwrap_or(Span::new(self.cursor, self.cursor));
        self.at(text, span);
    }

    /// Like [`Tokens::fixed`], with no space before it.
    fn glued(&mut self, text: &str) {
        self.fixed(text);
        if let Some(last) = self.list.last_mut() {
            last.glued = true;
        }
    }

    /// Steps over `text` if it is written next, without printing it.
    fn skip(&mut self, text: &str) {
        if let Some(span) = self.find(text) {
            self.cursor = span.end;
        }
    }

    fn find(&self, token: &str) -> Option<Span> {
        let start = skip_blank(self.text, self.cursor);
        let found = self.text.get(start..).is_some_and(|rest| rest.starts_with(token));
        found.then(|| Span::new(start, start + token.len()))
    }

    fn guard(&mut self, guard: &GuardAst) {
        match guard {
            GuardAst::Name(ident) => self.ident(ident),
            GuardAst::In(span, state) => {
                self.at("in", Span::new(span.start, span.start + "in".len()));
                self.glued("(");
                self.ident(state);
                self.at(")", Span::new(span.end.saturating_sub(1), span.end));
            }
            GuardAst::Not(span, inner) => {
                self.at("!", Span::new(span.start, span.start + 1));
                self.guard(inner);
            }
            GuardAst::And(_, lhs, rhs) => {
                self.guard(lhs);
                self.fixed("&&");
                self.guard(rhs);
            }
            GuardAst::Or(_, lhs, rhs) => {
                self.guard(lhs);
                self.fixed("||");
                self.guard(rhs);
            }
            GuardAst::Paren(span, inner) => {
                self.at("(", Span::new(span.start, span.start + 1));
                self.guard(inner);
                self.at(")", Span::new(span.end.saturating_sub(1), span.end));
            }
        }
    }
}

impl Tokens<'_> {
    /// A property's formula, with the parentheses that were written.
    fn formula(&mut self, formula: &FormulaAst) {
        match formula {
            FormulaAst::In(span, state) => {
                self.at("in", Span::new(span.start, span.start + "in".len()));
                self.glued("(");
                self.ident(state);
                self.at(")", Span::new(span.end.saturating_sub(1), span.end));
            }
            FormulaAst::Terminal(span) => self.at("terminal", *span),
            FormulaAst::Not(span, inner) => {
                self.at("!", Span::new(span.start, span.start + 1));
                self.formula(inner);
            }
            FormulaAst::And(_, lhs, rhs) => {
                self.formula(lhs);
                self.fixed("&&");
                self.formula(rhs);
            }
            FormulaAst::Or(_, lhs, rhs) => {
                self.formula(lhs);
                self.fixed("||");
                self.formula(rhs);
            }
            FormulaAst::Paren(span, inner) => {
                self.at("(", Span::new(span.start, span.start + 1));
                self.formula(inner);
                self.at(")", Span::new(span.end.saturating_sub(1), span.end));
            }
        }
    }
}

/// The position of the first byte at or after `pos` that is neither
/// whitespace (as the grammar defines it) nor part of a comment.
fn skip_blank(text: &str, mut pos: usize) -> usize {
    while let Some(rest) = text.get(pos..) {
        if let Some(c) = rest
            .chars()
            .next()
            .filter(|c| matches!(c, ' ' | '\t' | '\r' | '\n' | '\u{FEFF}'))
        {
            pos += c.len_utf8();
        } else if rest.starts_with("//") {
            pos += rest.find('\n').unwrap_or(rest.len());
        } else {
            break;
        }
    }
    pos
}

/// Prints one parsed file; `used` records which comments are already placed so
/// that none is printed twice or lost.
struct Printer<'t> {
    text: &'t str,
    comments: &'t [Comment],
    used: Vec<bool>,
}

impl<'t> Printer<'t> {
    fn new(text: &'t str, comments: &'t [Comment]) -> Self {
        Printer {
            text,
            comments,
            used: vec![false; comments.len()],
        }
    }

    fn file(mut self, machines: &[MachineAst]) -> String {
        let nodes: Vec<Node<'_>> = machines.iter().map(Node::Machine).collect();
        let (_, mut lines) = self.body(0, self.text.len(), &nodes, 0, true);
        // Every comment lies in the file or in a machine, so all are placed by
        // now; this only guards against losing one should that ever change.
        let unplaced: Vec<usize> = (0..self.comments.len()).filter(|&i| !self.used[i]).collect();
        for index in unplaced {
            if !lines.is_empty() {
                lines.push(Line::blank());
            }
            lines.push(self.comment_line(index, 0));
        }

        let mut out = String::new();
        for line in &lines {
            if !line.text.is_empty() {
                for _ in 0..line.depth {
                    out.push_str(INDENT);
                }
                out.push_str(&line.text);
            }
            out.push('\n');
        }
        out
    }

    fn slice(&self, start: usize, end: usize) -> &'t str {
        self.text.get(start..end).unwrap_or_default()
    }

    /// The comment as written, without trailing whitespace.
    fn comment_text(&self, index: usize) -> String {
        let comment = &self.comments[index];
        match self.text.get(comment.span.start..comment.span.end) {
            Some(raw) => raw.trim_end().to_string(),
            None if comment.doc => format!("/// {}", comment.text),
            None => format!("//{}", comment.text),
        }
    }

    fn comment_line(&mut self, index: usize, depth: usize) -> Line {
        self.used[index] = true;
        Line::new(depth, self.comment_text(index))
    }

    /// Puts a comment at the end of `line`. Without a line the comment stays
    /// unplaced, for [`Printer::file`] to keep.
    fn append_comment(&mut self, index: usize, line: Option<&mut Line>) {
        if let Some(line) = line {
            self.used[index] = true;
            line.text.push(' ');
            line.text.push_str(&self.comment_text(index));
        }
    }

    /// Indices of the comments not yet placed that start in `start..end`.
    fn comments_in(&self, start: usize, end: usize) -> Vec<usize> {
        let first = self.comments.partition_point(|c| c.span.start < start);
        (first..self.comments.len())
            .take_while(|&i| self.comments[i].span.start < end)
            .filter(|&i| !self.used[i])
            .collect()
    }

    /// Whether a line break lies between `start` and `end`.
    fn breaks_line(&self, start: usize, end: usize) -> bool {
        self.slice(start, end).contains('\n')
    }

    /// Whether a blank line lies between `start` and `end`.
    fn blank_line(&self, start: usize, end: usize) -> bool {
        self.slice(start, end).matches('\n').nth(1).is_some()
    }

    /// The elements between `open` (just after `{`) and `close` (the `}`), or of
    /// the whole file when `file` is set. Returns the comment that stood at the
    /// end of the `{` line, and the body's lines at `depth`.
    fn body(
        &mut self,
        open: usize,
        close: usize,
        nodes: &[Node<'_>],
        depth: usize,
        file: bool,
    ) -> (Option<usize>, Vec<Line>) {
        let mut entries: Vec<Entry> = Vec::new();
        let mut after_open = None;
        // Where the previous element (with its trailing comment) ends.
        let mut pos = open;
        let mut after_machine = false;
        let mut nodes = nodes.iter().copied().peekable();
        let mut comments = self.comments_in(open, close).into_iter().peekable();
        loop {
            let comment_first = match (comments.peek(), nodes.peek()) {
                (Some(&c), Some(node)) => self.comments[c].span.start < node.span().start,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if comment_first {
                let Some(index) = comments.next() else { break };
                if self.used[index] {
                    continue;
                }
                let comment = &self.comments[index];
                let span = comment.span;
                let same_line = !self.breaks_line(pos, span.start);
                if !comment.doc && same_line && !entries.is_empty() {
                    let line = entries.last_mut().and_then(|e| e.lines.last_mut());
                    self.append_comment(index, line);
                } else if !comment.doc && same_line && !file {
                    after_open = Some(index);
                } else {
                    let kind = if comment.doc {
                        EntryKind::DocComment
                    } else {
                        EntryKind::Comment
                    };
                    let blank_before =
                        !entries.is_empty() && (after_machine || self.blank_line(pos, span.start));
                    let lines = vec![self.comment_line(index, depth)];
                    entries.push(Entry {
                        kind,
                        blank_before,
                        lines,
                    });
                }
                pos = span.end;
                after_machine = false;
            } else {
                let Some(node) = nodes.next() else { break };
                let span = node.span();
                let blank_before = !entries.is_empty() && (after_machine || self.blank_line(pos, span.start));
                let printed = self.node(node, depth);
                place_item(&mut entries, printed, blank_before, |index| {
                    self.comment_line(index, depth)
                });
                // Comments inside the item were placed by it.
                while comments
                    .next_if(|&c| self.comments[c].span.start < span.end)
                    .is_some()
                {}
                pos = span.end;
                after_machine = file;
            }
        }

        let mut lines = Vec::new();
        for (i, entry) in entries.into_iter().enumerate() {
            if i > 0 && entry.blank_before {
                lines.push(Line::blank());
            }
            lines.extend(entry.lines);
        }
        (after_open, lines)
    }

    fn node(&mut self, node: Node<'_>, depth: usize) -> Printed {
        match node {
            Node::Machine(m) => self.machine(m, depth),
            Node::Item(MachineItem::Context(c)) => self.context(c, depth),
            Node::Item(MachineItem::Decl(d)) => self.decl(d, depth),
            Node::Item(MachineItem::State(s)) => self.state(s, depth),
            Node::Item(MachineItem::Any(a)) => self.any(a, depth),
            Node::Item(MachineItem::Property(p)) => self.property(p, depth),
            Node::StateItem(StateItem::Hook(h)) => self.hook(h, depth),
            Node::StateItem(StateItem::Transition(t)) | Node::Transition(t) => self.transition(t, depth),
            // Nested states print like top-level ones, one level deeper; the
            // parser bounds the depth (`limits::MAX_STATE_DEPTH`).
            Node::StateItem(StateItem::State(s)) => self.state(s, depth),
        }
    }

    fn machine(&mut self, m: &MachineAst, depth: usize) -> Printed {
        let mut header = Tokens::new(self.text, attrs_end(&m.attrs, m.span.start));
        header.fixed("machine");
        header.ident(&m.name);
        header.fixed("{");
        let nodes: Vec<Node<'_>> = m.items.iter().map(Node::Item).collect();
        self.item(
            &m.attrs,
            header.list,
            Some((m.span, &nodes, EmptyBody::Braces)),
            depth,
        )
    }

    fn state(&mut self, s: &StateAst, depth: usize) -> Printed {
        let mut header = Tokens::new(self.text, attrs_end(&s.attrs, s.span.start));
        // `initial` first, then `terminal` or `final`, then `parallel`.
        let mut modifiers = s.modifiers.clone();
        modifiers.sort_by_key(|m| match m.kind {
            ModifierKind::Initial => 0,
            ModifierKind::Terminal | ModifierKind::Final => 1,
            ModifierKind::Parallel => 2,
        });
        for modifier in modifiers {
            header.at(modifier.kind.keyword(), modifier.span);
        }
        header.fixed("state");
        header.ident(&s.name);
        match &s.body {
            None => {
                header.fixed(";");
                self.item(&s.attrs, header.list, None, depth)
            }
            Some(items) => {
                header.fixed("{");
                let nodes: Vec<Node<'_>> = items.iter().map(Node::StateItem).collect();
                self.item(
                    &s.attrs,
                    header.list,
                    Some((s.span, &nodes, EmptyBody::Semicolon)),
                    depth,
                )
            }
        }
    }

    fn any(&mut self, a: &AnyAst, depth: usize) -> Printed {
        let mut header = Tokens::new(self.text, a.span.start);
        header.at("any", a.keyword);
        header.fixed("{");
        let nodes: Vec<Node<'_>> = a.transitions.iter().map(Node::Transition).collect();
        self.item(&[], header.list, Some((a.span, &nodes, EmptyBody::Braces)), depth)
    }

    fn context(&mut self, c: &ContextAst, depth: usize) -> Printed {
        let mut tokens = Tokens::new(self.text, c.span.start);
        tokens.at("context", c.keyword);
        tokens.at(&c.ty.text, c.ty.span);
        tokens.fixed(";");
        self.item(&[], tokens.list, None, depth)
    }

    fn decl(&mut self, d: &DeclAst, depth: usize) -> Printed {
        let mut tokens = Tokens::new(self.text, d.span.start);
        tokens.fixed(d.kind.keyword());
        for (i, (name, payload)) in d.names.iter().zip(&d.payloads).enumerate() {
            if i > 0 {
                tokens.fixed(",");
            }
            tokens.ident(name);
            if let (true, Some(last)) = (i > 0, tokens.list.last_mut()) {
                last.wrap = Wrap::ListItem;
            }
            if let Some(ty) = payload {
                // `name(Type)`: the type is one token, in canonical form.
                tokens.glued("(");
                tokens.at(&ty.text, ty.span);
                if let Some(last) = tokens.list.last_mut() {
                    last.glued = true;
                }
                tokens.glued(")");
            }
        }
        tokens.fixed(";");
        self.item(&[], tokens.list, None, depth)
    }

    fn property(&mut self, p: &PropertyAst, depth: usize) -> Printed {
        let mut tokens = Tokens::new(self.text, p.span.start);
        if let Some(name) = &p.name {
            tokens.fixed("property");
            tokens.ident(name);
            tokens.glued(":");
        }
        match &p.leads_to {
            None => {
                tokens.at(p.kind.keyword(), p.keyword);
                tokens.formula(&p.formula);
            }
            Some(l) => {
                tokens.formula(&p.formula);
                tokens.clause("leads");
                tokens.fixed("to");
                tokens.formula(&l.formula);
                if !l.assuming.is_empty() {
                    tokens.clause("assuming");
                    tokens.ident_list(&l.assuming);
                }
            }
        }
        tokens.fixed(";");
        self.item(&[], tokens.list, None, depth)
    }

    fn hook(&mut self, h: &HookAst, depth: usize) -> Printed {
        let mut tokens = Tokens::new(self.text, h.span.start);
        tokens.fixed(match h.kind {
            HookKind::Enter => "enter",
            HookKind::Exit => "exit",
        });
        if !h.effects.is_empty() {
            tokens.fixed("do");
            tokens.ident_list(&h.effects);
        }
        if !h.outputs.is_empty() {
            tokens.clause("emit");
            tokens.ident_list(&h.outputs);
        }
        tokens.fixed(";");
        self.item(&[], tokens.list, None, depth)
    }

    fn transition(&mut self, t: &TransitionAst, depth: usize) -> Printed {
        let mut tokens = Tokens::new(self.text, t.span.start);
        tokens.at(t.trigger.keyword(), t.trigger.keyword_span());
        match &t.trigger {
            TriggerAst::On { action, .. } => tokens.ident(action),
            TriggerAst::After { delay, .. } => tokens.ident(delay.ident()),
            TriggerAst::Eventless { .. } => {}
        }
        tokens.tail(&t.guard, t.priority, (&t.target, t.history), &t.effects, &t.emits);
        self.item(&[], tokens.list, None, depth)
    }
}

impl Tokens<'_> {
    /// A transition's or timer's clauses after its trigger, and the `;`.
    fn tail(
        &mut self,
        guard: &Option<GuardAst>,
        priority: Option<Priority>,
        (target, history): (&Option<Ident>, Option<HistoryAst>),
        effects: &[Ident],
        emits: &[Ident],
    ) {
        let tokens = self;
        if let Some(guard) = guard {
            tokens.fixed("[");
            tokens.guard(guard);
            tokens.fixed("]");
        }
        if let Some(priority) = priority {
            tokens.clause("priority");
            tokens.at(&priority.value.to_string(), priority.span);
        }
        if let Some(target) = target {
            tokens.clause("->");
            tokens.ident(target);
            if let Some(history) = history {
                tokens.glued(".");
                tokens.at(history.kind.keyword(), history.span);
                if let Some(last) = tokens.list.last_mut() {
                    last.glued = true;
                }
            }
        }
        if !effects.is_empty() {
            tokens.clause("do");
            tokens.ident_list(effects);
        }
        if !emits.is_empty() {
            tokens.clause("emit");
            tokens.ident_list(emits);
        }
        tokens.fixed(";");
    }
}

impl Printer<'_> {
    /// An item: its attributes, its header line, and its braced body if any
    /// (the span of the whole item, its child nodes, how to print it empty).
    fn item(
        &mut self,
        attrs: &[Attr],
        mut header: Vec<Token>,
        body: Option<(Span, &[Node<'_>], EmptyBody)>,
        depth: usize,
    ) -> Printed {
        let mut printed = Printed::default();
        let header_start = header.first().map_or(0, |t| t.span.start);
        printed.lines = self.attrs(attrs, header_start, depth, &mut printed.hoisted);

        let mut body = body.map(|(span, nodes, empty)| {
            let open = header.last().map_or(span.start, |t| t.span.end);
            (open, self.closing_brace(span), nodes, empty)
        });
        if let Some((open, close, nodes, empty)) = body {
            if nodes.is_empty() && self.comments_in(open, close.start).is_empty() {
                match empty {
                    EmptyBody::Semicolon => {
                        if let Some(brace) = header.last_mut() {
                            brace.text = ";".to_string();
                        }
                    }
                    EmptyBody::Braces => header.push(Token {
                        text: "}".to_string(),
                        span: close,
                        glued: true,
                        wrap: Wrap::Never,
                    }),
                }
                body = None;
            }
        }

        self.header_line(header, !attrs.is_empty(), depth, &mut printed);
        if let Some((open, close, nodes, _)) = body {
            let (after_open, lines) = self.body(open, close.start, nodes, depth + 1, false);
            if let Some(index) = after_open {
                self.append_comment(index, printed.lines.last_mut());
            }
            printed.lines.extend(lines);
            printed.lines.push(Line::new(depth, "}".to_string()));
        }
        printed
    }

    /// Prints a header line; its `//` comments go above it, or above the whole
    /// item when the line is the item's first.
    fn header_line(&mut self, tokens: Vec<Token>, below_attrs: bool, depth: usize, printed: &mut Printed) {
        let (moved, lines) = self.line(&tokens, depth);
        if below_attrs {
            for index in moved {
                let line = self.comment_line(index, depth);
                printed.lines.push(line);
            }
        } else {
            printed.hoisted.extend(moved);
        }
        printed.lines.extend(lines);
    }

    /// The span of the `}` that closes the item spanning `span`.
    fn closing_brace(&self, span: Span) -> Span {
        let last = span.end.saturating_sub(1);
        if self.slice(last, span.end) == "}" {
            Span::new(last, span.end)
        } else {
            Span::new(span.end, span.end)
        }
    }

    /// The attribute lines of an item whose header starts at `header_start`,
    /// with the comments between and inside them.
    fn attrs(
        &mut self,
        attrs: &[Attr],
        header_start: usize,
        depth: usize,
        hoisted: &mut Vec<usize>,
    ) -> Vec<Line> {
        let mut lines = Vec::new();
        for (i, attr) in attrs.iter().enumerate() {
            let mut tokens = Tokens::new(self.text, attr.span.start);
            tokens.fixed("#");
            tokens.fixed("[");
            tokens.fixed("allow");
            tokens.glued("(");
            tokens.ident_list(&attr.codes);
            tokens.skip(",");
            tokens.fixed(")");
            tokens.fixed("]");
            let (moved, attr_lines) = self.line(&tokens.list, depth);
            if i == 0 {
                hoisted.extend(moved);
            } else {
                for index in moved {
                    let line = self.comment_line(index, depth);
                    lines.push(line);
                }
            }
            lines.extend(attr_lines);

            let next = attrs.get(i + 1).map_or(header_start, |a| a.span.start);
            for index in self.comments_in(attr.span.end, next) {
                let comment = &self.comments[index];
                let trailing = !comment.doc && !self.breaks_line(attr.span.end, comment.span.start);
                if trailing {
                    self.append_comment(index, lines.last_mut());
                } else {
                    let line = self.comment_line(index, depth);
                    lines.push(line);
                }
            }
        }
        lines
    }

    /// Prints `tokens` as one line at `depth`, continued on deeper lines where
    /// it is too long or where `///` comments written inside it break it.
    /// Returns the `//` comments written inside it, for the caller to put above
    /// it, and the lines.
    fn line(&mut self, tokens: &[Token], depth: usize) -> (Vec<usize>, Vec<Line>) {
        let start = tokens.iter().map(|t| t.span.start).min().unwrap_or(0);
        let end = tokens.iter().map(|t| t.span.end).max().unwrap_or(0);
        let mut moved = Vec::new();
        let mut breaks: Vec<Vec<usize>> = tokens.iter().map(|_| Vec::new()).collect();
        for index in self.comments_in(start.saturating_add(1), end) {
            let at = self.comments[index].span.start;
            if !self.comments[index].doc {
                self.used[index] = true;
                moved.push(index);
                continue;
            }
            // The doc comment stays after the last token written before it.
            let before = tokens
                .iter()
                .enumerate()
                .filter(|(_, t)| t.span.end <= at)
                .max_by_key(|(_, t)| t.span.end)
                .map_or(0, |(i, _)| i);
            breaks[before].push(index);
        }

        let mut layout = Layout {
            lines: vec![Line::new(depth, String::new())],
            depth,
            prev: None,
        };
        let mut segment = Vec::new();
        for (token, docs) in tokens.iter().zip(breaks) {
            segment.push(token);
            if !docs.is_empty() {
                layout.segment(&std::mem::take(&mut segment));
                for index in docs {
                    let line = self.comment_line(index, depth + 1);
                    layout.lines.push(line);
                }
                layout.new_line();
            }
        }
        layout.segment(&segment);
        let mut lines = layout.lines;
        lines.retain(|l| !l.text.is_empty());
        (moved, lines)
    }
}

/// Fills the lines of one construct, breaking it where it is too long.
struct Layout<'a> {
    lines: Vec<Line>,
    /// The depth of the construct; continuation lines are one deeper.
    depth: usize,
    /// The last token of the current line.
    prev: Option<&'a Token>,
}

impl<'a> Layout<'a> {
    fn new_line(&mut self) {
        self.lines.push(Line::new(self.depth + 1, String::new()));
        self.prev = None;
    }

    /// The current line's text after appending `tokens`.
    fn with(&self, tokens: &[&'a Token]) -> (usize, String) {
        let (depth, mut text) = match self.lines.last() {
            Some(line) => (line.depth, line.text.clone()),
            None => (self.depth, String::new()),
        };
        let mut prev = self.prev;
        for token in tokens {
            if prev.is_some_and(|p| !token.glued && !hugs(&p.text, &token.text)) {
                text.push(' ');
            }
            text.push_str(&token.text);
            prev = Some(token);
        }
        (depth * INDENT.len() + text.chars().count(), text)
    }

    fn fits(&self, tokens: &[&'a Token]) -> bool {
        self.with(tokens).0 <= MAX_WIDTH
    }

    fn append(&mut self, tokens: &[&'a Token]) {
        let (_, text) = self.with(tokens);
        match self.lines.last_mut() {
            Some(line) => line.text = text,
            None => self.lines.push(Line::new(self.depth, text)),
        }
        self.prev = tokens.last().copied().or(self.prev);
    }

    fn current_is_empty(&self) -> bool {
        self.lines.last().is_none_or(|l| l.text.is_empty())
    }

    /// Appends `tokens` to the current line. What does not fit moves to
    /// continuation lines: whole clauses first, and a clause too long for a
    /// line of its own is broken after the commas of its list.
    fn segment(&mut self, tokens: &[&'a Token]) {
        for clause in split_before(tokens, |t| t.wrap == Wrap::Clause) {
            if self.fits(clause) {
                self.append(clause);
                continue;
            }
            if !self.current_is_empty() {
                self.new_line();
                if self.fits(clause) {
                    self.append(clause);
                    continue;
                }
            }
            for piece in split_before(clause, |t| t.wrap != Wrap::Never) {
                if !self.current_is_empty() && !self.fits(piece) {
                    self.new_line();
                }
                self.append(piece);
            }
        }
    }
}

/// `tokens` cut before every token (except the first) for which `cut` holds.
fn split_before<'s, 'a>(tokens: &'s [&'a Token], cut: impl Fn(&Token) -> bool) -> Vec<&'s [&'a Token]> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, token) in tokens.iter().enumerate() {
        if i > start && cut(token) {
            pieces.push(&tokens[start..i]);
            start = i;
        }
    }
    if start < tokens.len() {
        pieces.push(&tokens[start..]);
    }
    pieces
}

/// Where the search for an item's first keyword starts: after its attributes.
fn attrs_end(attrs: &[Attr], item_start: usize) -> usize {
    attrs.last().map_or(item_start, |a| a.span.end)
}

/// Adds a printed item to a body's entries. Its doc comments (the own-line
/// `///` comments right above it) lose the blank lines between them and it; the
/// comments hoisted out of its first line go above those doc comments and take
/// over the blank line before them.
fn place_item(
    entries: &mut Vec<Entry>,
    printed: Printed,
    mut blank_before: bool,
    mut comment_line: impl FnMut(usize) -> Line,
) {
    let docs_start = entries
        .iter()
        .rposition(|e| e.kind != EntryKind::DocComment)
        .map_or(0, |i| i + 1);
    if docs_start < entries.len() {
        for entry in &mut entries[docs_start + 1..] {
            entry.blank_before = false;
        }
        blank_before = false;
    }
    let mut hoisted: Vec<Entry> = printed
        .hoisted
        .into_iter()
        .map(|index| Entry {
            kind: EntryKind::Comment,
            blank_before: false,
            lines: vec![comment_line(index)],
        })
        .collect();
    if let Some(first) = hoisted.first_mut() {
        match entries.get_mut(docs_start) {
            Some(first_doc) => first.blank_before = std::mem::take(&mut first_doc.blank_before),
            None => first.blank_before = std::mem::take(&mut blank_before),
        }
    }
    entries.splice(docs_start..docs_start, hoisted);
    entries.push(Entry {
        kind: EntryKind::Item,
        blank_before,
        lines: printed.lines,
    });
}

#[cfg(test)]
mod tests {
    use super::format;
    use crate::comments;
    use std::collections::BTreeSet;
    use std::path::Path;

    /// Every construct of the language, messily spaced, with comments everywhere.
    const MESSY: &str = "\
// File header comment.


/// The agent loop.
/// Second doc line.
#[allow(unreachable-state,dead-end,)]   // why allowed
machine   Agent{   // after the brace

  action user_input,retry ;  // trailing on a declaration
  /// A guard.
  guard   retries_left, fatal;
  output send_llm_request , display_text,display_error,start_timer,stop_timer;



  // Leading comment for waiting.
  initial   state waiting{on user_input->calling emit send_llm_request;} /// About `calling`.
  state calling {

      enter emit start_timer ;
      exit emit stop_timer;   // trailing on a hook

      /// Docs for the internal transition.

      on text_delta emit display_text;
      on tool_call_delta;
      on llm_error [ retries_left&&!fatal ] priority 1 -> error;
      // Leading plain comment.
      /// Retry later.
      on llm_error   // the model failed
          [ !( fatal || retries_left ) ] // inside the transition
          priority -2
          -> waiting emit display_error;
      on llm_error priority 0 -> waiting;
      on shutdown [fatal] priority 5 -> shut_down emit display_error, stop_timer, send_llm_request, display_text;

  }
  state error { on retry -> calling; } state shut_down_soon {} // two on a line
  terminal  state shut_down { }
  #[allow(unreachable-state)] // spare is kept for later
  /// Not a doc: it follows the attribute.
  #[allow(dead-end)]
  state spare {
      // nothing yet
  }
  any {   // every state
      on shutdown -> shut_down;
  }
  // before the closing brace
}
// between machines
machine Empty { terminal initial state only; any{} } machine Odd { initial state a { on x /// stays here
  -> a; } }


// end of file
";

    const MESSY_FORMATTED: &str = "\
// File header comment.

/// The agent loop.
/// Second doc line.
#[allow(unreachable-state, dead-end)] // why allowed
machine Agent { // after the brace
    action user_input, retry; // trailing on a declaration
    /// A guard.
    guard retries_left, fatal;
    output send_llm_request, display_text, display_error, start_timer, stop_timer;

    // Leading comment for waiting.
    initial state waiting {
        on user_input -> calling emit send_llm_request;
    }
    /// About `calling`.
    state calling {
        enter emit start_timer;
        exit emit stop_timer; // trailing on a hook

        /// Docs for the internal transition.
        on text_delta emit display_text;
        on tool_call_delta;
        on llm_error [retries_left && !fatal] priority 1 -> error;
        // Leading plain comment.
        // the model failed
        // inside the transition
        /// Retry later.
        on llm_error [!(fatal || retries_left)] priority -2 -> waiting emit display_error;
        on llm_error priority 0 -> waiting;
        on shutdown [fatal] priority 5 -> shut_down
            emit display_error, stop_timer, send_llm_request, display_text;
    }
    state error {
        on retry -> calling;
    }
    state shut_down_soon; // two on a line
    terminal state shut_down;
    #[allow(unreachable-state)] // spare is kept for later
    /// Not a doc: it follows the attribute.
    #[allow(dead-end)]
    state spare {
        // nothing yet
    }
    any { // every state
        on shutdown -> shut_down;
    }
    // before the closing brace
}

// between machines
machine Empty {
    initial terminal state only;
    any {}
}

machine Odd {
    initial state a {
        on x
            /// stays here
            -> a;
    }
}

// end of file
";

    /// Formats `text`, which must have no syntax errors.
    fn fmt(text: &str) -> String {
        match format(text) {
            Ok(formatted) => formatted,
            Err(diagnostics) => panic!("syntax errors in\n{text}\n{diagnostics:#?}"),
        }
    }

    /// Each comment as written (`doc`, text), sorted.
    fn comment_texts(text: &str) -> Vec<(bool, String)> {
        let mut texts: Vec<_> = comments::scan(text)
            .into_iter()
            .map(|c| (c.doc, c.text))
            .collect();
        texts.sort();
        texts
    }

    /// Everything of a checked text that formatting must not change: each
    /// machine's canonical form and doc comments, and the diagnostic codes.
    fn model_of(text: &str) -> (Vec<String>, BTreeSet<&'static str>) {
        let checked = crate::check(text);
        let machines = checked
            .model
            .machines
            .iter()
            .map(|m| {
                let symbols = m.actions.iter().chain(&m.guards).chain(&m.outputs);
                format!(
                    "{}docs {:?}\nstates {:?}\nsymbols {:?}\ntransitions {:?}\nproperties {:?}\n",
                    m.canonical(),
                    m.docs,
                    m.states.iter().map(|s| (&s.name, &s.docs)).collect::<Vec<_>>(),
                    symbols.map(|s| (&s.name, &s.docs)).collect::<Vec<_>>(),
                    m.transitions.iter().map(|t| &t.docs).collect::<Vec<_>>(),
                    m.properties
                        .iter()
                        .map(|p| {
                            let l = p.leads_to.as_ref();
                            let target =
                                l.map(|l| (&l.formula, l.assuming.iter().map(|a| a.0).collect::<Vec<_>>()));
                            (&p.name, p.kind, &p.formula, target, &p.docs)
                        })
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let codes = checked.diagnostics.iter().map(|d| d.code.name()).collect();
        (machines, codes)
    }

    /// Formatting `text` is idempotent, keeps every comment and keeps the model.
    fn assert_round_trip(text: &str) -> String {
        let formatted = fmt(text);
        assert_eq!(fmt(&formatted), formatted, "not idempotent for\n{text}");
        assert_eq!(
            comment_texts(&formatted),
            comment_texts(text),
            "comments changed for\n{text}"
        );
        assert_eq!(
            model_of(&formatted),
            model_of(text),
            "model changed for\n{text}\nformatted:\n{formatted}"
        );
        assert!(formatted.is_empty() || formatted.ends_with('\n') && !formatted.ends_with("\n\n"));
        formatted
    }

    #[test]
    fn formats_every_construct_into_the_canonical_layout() {
        assert_eq!(fmt(MESSY), MESSY_FORMATTED);
    }

    #[test]
    fn parallel_states_and_transitions_without_actions_format_canonically() {
        let text = "machine R {
  initial state idle { on start -> collect; }
  /// Both at once.
  parallel   state collect {
    on cancel -> cancelled;
    done [ in( a_done ) &&!in(b_done)]priority 1->synthesis emit spawn;
    done -> synthesis;
    state a { initial state a_running { on a_written -> a_done; always [ready] -> a_done; } final state a_done; }
    state b { initial state b_running { on b_written -> b_done; } final   state b_done; }
  }
  state synthesis { always -> cancelled emit deliver; }
  terminal state cancelled;
}
";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "machine R {
    initial state idle {
        on start -> collect;
    }
    /// Both at once.
    parallel state collect {
        on cancel -> cancelled;
        done [in(a_done) && !in(b_done)] priority 1 -> synthesis emit spawn;
        done -> synthesis;
        state a {
            initial state a_running {
                on a_written -> a_done;
                always [ready] -> a_done;
            }
            final state a_done;
        }
        state b {
            initial state b_running {
                on b_written -> b_done;
            }
            final state b_done;
        }
    }
    state synthesis {
        always -> cancelled emit deliver;
    }
    terminal state cancelled;
}
"
        );
    }

    #[test]
    fn properties_format_canonically_and_keep_their_comments() {
        let text = "machine M { initial state a { on go -> b; } terminal state b;\n\
                    /// docs\n  property   p :never in( a )&&!( in(b)||terminal ) ; // after\n\
                    recoverable\n// inside\nterminal;reachable ((in(b)));\n}\n";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "machine M {\n    initial state a {\n        on go -> b;\n    }\n    terminal state b;\n\
             \x20   /// docs\n    property p: never in(a) && !(in(b) || terminal); // after\n\
             \x20   // inside\n    recoverable terminal;\n    reachable ((in(b)));\n}\n"
        );
    }

    #[test]
    fn a_leads_to_property_formats_canonically() {
        let text = "machine M { initial state a { on go -> b; on stop -> b; } terminal state b;\n\
                    property ends :in( a )leads\n// between\nto terminal assuming go ,stop;escapable in(a);\n}\n";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "machine M {\n    initial state a {\n        on go -> b;\n        on stop -> b;\n    }\n    terminal state b;\n\
             \x20   // between\n    property ends: in(a) leads to terminal assuming go, stop;\n    escapable in(a);\n}\n"
        );
    }

    #[test]
    fn formatting_is_idempotent() {
        assert_eq!(fmt(MESSY_FORMATTED), MESSY_FORMATTED);
    }

    #[test]
    fn every_comment_is_kept() {
        let formatted = fmt(MESSY);
        let before = comment_texts(MESSY);
        assert_eq!(before.len(), 24);
        assert_eq!(comment_texts(&formatted), before);
        for (_, text) in &before {
            assert!(formatted.contains(text.as_str()), "lost comment {text:?}");
        }
    }

    #[test]
    fn the_model_and_its_docs_are_kept() {
        let (machines, codes) = model_of(MESSY);
        assert_eq!(machines.len(), 3);
        // The docs really are there to be kept.
        assert!(machines[0].contains("\"Retry later.\""), "{}", machines[0]);
        assert!(
            machines[0].contains("(\"calling\", [\"About `calling`.\"])"),
            "{}",
            machines[0]
        );
        assert!(
            machines[0].contains("(\"retries_left\", [\"A guard.\"])"),
            "{}",
            machines[0]
        );
        assert!(!codes.is_empty());
        assert_round_trip(MESSY);
    }

    #[test]
    fn text_with_syntax_errors_is_refused() {
        let errors = format("machine M { initial state a { on -> b; } }").unwrap_err();
        assert!(!errors.is_empty());
        assert!(errors.iter().all(|d| d.code == crate::Code::Syntax));
        assert!(format("machine M { initial initial state a; }").is_err());
        assert!(format("machine M { initial state a { on x priority 99999999999; } }").is_err());
    }

    #[test]
    fn empty_and_comment_only_texts() {
        assert_eq!(fmt(""), "");
        assert_eq!(fmt(" \n\n\t"), "");
        assert_eq!(
            fmt("\n\n// only\n\n\n/// a comment\n\n"),
            "// only\n\n/// a comment\n"
        );
    }

    #[test]
    fn plain_comments_inside_a_line_move_above_its_doc_comments() {
        let text = "machine M {\n    /// The start.\n    initial state a // why\n    ;\n}\n";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "machine M {\n    // why\n    /// The start.\n    initial state a;\n}\n"
        );
    }

    #[test]
    fn plain_comments_inside_a_header_below_attributes_stay_below_them() {
        let text = "/// M.\n#[allow(dead-end)]\nmachine M // named\n{ initial state a; }\n";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "/// M.\n#[allow(dead-end)]\n// named\nmachine M {\n    initial state a;\n}\n"
        );
    }

    #[test]
    fn doc_comments_inside_a_line_stay_in_place() {
        let text = "machine M { initial state a { on go [x && /// odd\n y] -> a; } }";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "machine M {\n    initial state a {\n        on go [x &&\n            /// odd\n            y] -> a;\n    }\n}\n"
        );
    }

    #[test]
    fn trailing_doc_comments_move_above_the_item_they_document() {
        let text = "machine M {\n    initial state a; /// About b.\n\n    state b;\n}\n";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "machine M {\n    initial state a;\n    /// About b.\n    state b;\n}\n"
        );
    }

    #[test]
    fn blank_lines_are_collapsed_and_trimmed() {
        let text = "\n\nmachine M {\n\n\n    initial state a;\n\n\n\n    state b;\n\n}\n\n\n\nmachine N { initial state c; }\n\n\n";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "machine M {\n    initial state a;\n\n    state b;\n}\n\nmachine N {\n    initial state c;\n}\n"
        );
    }

    #[test]
    fn comments_in_otherwise_empty_bodies_keep_the_braces() {
        let text =
            "machine M { // m\n initial state a { // a\n } any { /// nothing\n } state b {\n\n // b\n\n } }";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "machine M { // m\n    initial state a { // a\n    }\n    any {\n        /// nothing\n    }\n    state b {\n        // b\n    }\n}\n"
        );
    }

    #[test]
    fn long_lines_break_between_clauses_then_after_commas() {
        let long = |c: char| c.to_string().repeat(24);
        let (a, b, c, d) = (long('a'), long('b'), long('c'), long('d'));
        let text = format!(
            "machine M {{ output {a}, {b}, {c}, {d}; initial state s {{ enter emit {a}, {b}, {c}; \
             on go [{a} && !{b}] priority 10 -> s emit {a}, {b}, {c}, {d}; // why\n on go [{a}] -> s emit {b}; }} }}"
        );
        let formatted = assert_round_trip(&text);
        let expected = format!(
            "machine M {{
    output {a}, {b}, {c},
        {d};
    initial state s {{
        enter emit {a}, {b}, {c};
        on go [{a} && !{b}] priority 10 -> s
            emit {a}, {b}, {c},
            {d}; // why
        on go [{a}] -> s emit {b};
    }}
}}
"
        );
        assert_eq!(formatted, expected);
        assert!(formatted
            .lines()
            .all(|l| l.split(" //").next().unwrap_or(l).len() <= 100));
    }

    #[test]
    fn priorities_and_guards_are_printed_as_written() {
        let text = "machine M { initial state a { on x [(a)||!!b&&(c)] priority 007 -> a; on y priority 0; on z priority -0; } }";
        let formatted = assert_round_trip(text);
        assert!(
            formatted.contains("on x [(a) || !!b && (c)] priority 7 -> a;"),
            "{formatted}"
        );
        assert!(formatted.contains("on y priority 0;"), "{formatted}");
        assert!(formatted.contains("on z priority 0;"), "{formatted}");
    }

    #[test]
    fn windows_line_endings_tabs_and_a_byte_order_mark() {
        let text = "\u{FEFF}// c\r\nmachine M {\r\n\tinitial state a; // é\r\n\r\n\r\n\tstate b;\r\n}\r\n";
        let formatted = assert_round_trip(text);
        assert_eq!(
            formatted,
            "// c\nmachine M {\n    initial state a; // é\n\n    state b;\n}\n"
        );
    }

    /// A `///` line ending in spaces still documents the item below it, before
    /// and after formatting.
    #[test]
    fn doc_comments_with_trailing_whitespace_keep_their_meaning() {
        assert_round_trip("machine M {\n    /// doc   \n    initial state a;\n}\n");
    }

    /// A tiny deterministic generator (xorshift64), so that the test needs no
    /// dependency and fails the same way every time.
    struct Xorshift(u64);

    impl Xorshift {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n.max(1) as u64) as usize
        }
    }

    /// Mutations of the messy file (insertions of comments, blank lines and
    /// tokens, deletions) that still parse must round-trip too.
    #[test]
    fn mutated_inputs_round_trip() {
        // Comments and line breaks keep most texts parsing; tokens break some.
        const LAYOUT: &[&str] = &["// c\n", "/// d\n", " // t\n", " /// t\n", "\n", "\n\n", " "];
        const TOKENS: &[&str] = &[
            "{",
            "}",
            ";",
            "state z;",
            "#[allow(dead-end)]",
            "(",
            ")",
            "!",
            ",",
            "initial ",
            "terminal ",
        ];
        let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
        let mut formatted = 0;
        for _ in 0..800 {
            let mut text = MESSY.to_string();
            for _ in 0..1 + rng.below(3) {
                let boundaries: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
                let at = boundaries[rng.below(boundaries.len())];
                if rng.below(5) == 0 {
                    let end = boundaries
                        .iter()
                        .copied()
                        .find(|&b| b > at + rng.below(4))
                        .unwrap_or(at);
                    text.replace_range(at..end, "");
                } else {
                    let pool = if rng.below(3) == 0 { TOKENS } else { LAYOUT };
                    text.insert_str(at, pool[rng.below(pool.len())]);
                }
            }
            if format(&text).is_ok() {
                assert_round_trip(&text);
                formatted += 1;
            }
        }
        assert!(formatted > 150, "only {formatted} mutants parsed");
    }

    /// Every example and fixture of the project that parses round-trips. The
    /// directories may not exist yet.
    #[test]
    fn examples_and_fixtures_round_trip() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let dirs = [
            "examples",
            "tests/fixtures/ok",
            "tests/fixtures/warn",
            "tests/fixtures/err",
        ];
        for dir in dirs.map(|d| root.join(d)) {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "fsm")) {
                let text =
                    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                if format(&text).is_ok() {
                    assert_round_trip(&text);
                }
            }
        }
    }
}
