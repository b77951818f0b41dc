//! The outline: machines, their declarations, states and `any` blocks, and
//! the transitions, timers, `done` and `always` transitions inside them. A
//! state's modifiers (`initial`, `terminal`, `final`, `parallel`) are its
//! detail.

use super::analysis::Analysis;
use super::documents::Document;
use fsm_grammar::ast::visit::{self, Visit};
use fsm_grammar::ast::{
    AnyAst, ContextAst, DeclAst, MachineAst, PropertyAst, StateAst, TransitionAst, TriggerAst,
};
use fsm_grammar::Span;
use lsp_types::{DocumentSymbol, SymbolKind};

/// The outline of the machines that parse.
pub fn document_symbols(document: &Document, analysis: &Analysis) -> Vec<DocumentSymbol> {
    let mut outline = Outline {
        document,
        open: vec![Vec::new()],
    };
    outline.visit_file(&analysis.checked.file);
    outline.open.pop().unwrap_or_default()
}

/// The walk that builds the outline: the entries of each open machine,
/// state or `any` block, outermost (the file's machines) first, each
/// closed into its entry when the walk leaves it.
struct Outline<'d> {
    document: &'d Document,
    open: Vec<Vec<DocumentSymbol>>,
}

impl Outline<'_> {
    fn push(&mut self, entry: DocumentSymbol) {
        if let Some(entries) = self.open.last_mut() {
            entries.push(entry);
        }
    }

    /// The entries added since the matching `self.open.push`.
    fn close(&mut self) -> Vec<DocumentSymbol> {
        self.open.pop().unwrap_or_default()
    }
}

impl<'a> Visit<'a> for Outline<'_> {
    fn visit_machine(&mut self, m: &'a MachineAst) {
        self.open.push(Vec::new());
        visit::walk_machine(self, m);
        let children = self.close();
        let entry = symbol(
            self.document,
            m.name.name.clone(),
            None,
            SymbolKind::CLASS,
            m.span,
            m.name.span,
            children,
        );
        self.push(entry);
    }

    fn visit_context(&mut self, c: &'a ContextAst) {
        let entry = symbol(
            self.document,
            "context".into(),
            Some(c.ty.text.clone()),
            SymbolKind::STRUCT,
            c.span,
            c.keyword,
            Vec::new(),
        );
        self.push(entry);
    }

    /// A property: its name, or else its text; its kind is its detail.
    fn visit_property(&mut self, p: &'a PropertyAst) {
        let text = self.document.text();
        let (name, selection) = match &p.name {
            Some(name) => (name.name.clone(), name.span),
            None => {
                let formula = p.formula.span();
                (text[formula.start..formula.end].to_string(), p.keyword)
            }
        };
        let entry = symbol(
            self.document,
            name,
            Some(p.kind.keyword().to_string()),
            SymbolKind::INTERFACE,
            p.span,
            selection,
            Vec::new(),
        );
        self.push(entry);
    }

    fn visit_decl(&mut self, d: &'a DeclAst) {
        for (name, payload) in d.names.iter().zip(&d.payloads) {
            let kind = match d.kind.keyword() {
                "action" => SymbolKind::EVENT,
                "guard" => SymbolKind::BOOLEAN,
                "output" => SymbolKind::FIELD,
                "effect" => SymbolKind::METHOD,
                _ => SymbolKind::CONSTANT,
            };
            let detail = match payload {
                Some(p) => format!("{}({})", d.kind.keyword(), p.text),
                None => d.kind.keyword().to_string(),
            };
            let entry = symbol(
                self.document,
                name.name.clone(),
                Some(detail),
                kind,
                d.span,
                name.span,
                Vec::new(),
            );
            self.push(entry);
        }
    }

    /// A state with its transitions, timers and the states nested in it, in
    /// source order (the parser bounds the depth). A state's modifiers are
    /// its detail.
    fn visit_state(&mut self, s: &'a StateAst) {
        self.open.push(Vec::new());
        visit::walk_state(self, s);
        let inner = self.close();
        let text = self.document.text();
        let modifiers: Vec<&str> = s
            .modifiers
            .iter()
            .map(|m| &text[m.span.start..m.span.end])
            .collect();
        let entry = symbol(
            self.document,
            s.name.name.clone(),
            (!modifiers.is_empty()).then(|| modifiers.join(" ")),
            SymbolKind::ENUM_MEMBER,
            s.span,
            s.name.span,
            inner,
        );
        self.push(entry);
    }

    fn visit_any(&mut self, a: &'a AnyAst) {
        self.open.push(Vec::new());
        visit::walk_any(self, a);
        let transitions = self.close();
        let entry = symbol(
            self.document,
            "any".into(),
            None,
            SymbolKind::NAMESPACE,
            a.span,
            a.keyword,
            transitions,
        );
        self.push(entry);
    }

    fn visit_transition(&mut self, t: &'a TransitionAst) {
        let entry = transition(self.document, t);
        self.push(entry);
    }
}

/// One entry of the outline.
fn symbol(
    document: &Document,
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    span: Span,
    selection: Span,
    children: Vec<DocumentSymbol>,
) -> DocumentSymbol {
    #[allow(deprecated)] // `deprecated` is a required field of the struct.
    DocumentSymbol {
        name: if name.is_empty() { "?".to_string() } else { name },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: document.range(span),
        selection_range: document.range(selection),
        children: (!children.is_empty()).then_some(children),
    }
}

/// `on action -> target`, `after 5s -> target`, `done -> target`: the
/// trigger and the target, selected at the action, delay or keyword.
fn transition(document: &Document, t: &TransitionAst) -> DocumentSymbol {
    let target = t
        .target
        .as_ref()
        .map_or(String::new(), |i| format!(" -> {}", i.name));
    let (name, selection) = match &t.trigger {
        TriggerAst::On { action, .. } => (format!("on {}{target}", action.name), action.span),
        TriggerAst::After { delay, .. } => {
            let delay = delay.ident();
            (format!("after {}{target}", delay.name), delay.span)
        }
        TriggerAst::Eventless { kind, keyword } => (format!("{}{target}", kind.keyword()), *keyword),
    };
    symbol(
        document,
        name,
        None,
        SymbolKind::EVENT,
        t.span,
        selection,
        Vec::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::documents::Encoding;
    use super::*;
    use fsm_grammar::LintOptions;

    /// `name (detail)` of each entry, depth first, indented by depth.
    fn outline(text: &str) -> Vec<String> {
        fn walk(symbols: &[DocumentSymbol], depth: usize, out: &mut Vec<String>) {
            for s in symbols {
                let detail = s.detail.as_ref().map_or(String::new(), |d| format!(" ({d})"));
                out.push(format!("{}{}{detail}", "  ".repeat(depth), s.name));
                walk(s.children.as_deref().unwrap_or_default(), depth + 1, out);
            }
        }
        let document = Document::new(text.into(), 1, Encoding::Utf16);
        let analysis = Analysis::new(text, &LintOptions::default());
        let mut out = Vec::new();
        walk(&document_symbols(&document, &analysis), 0, &mut out);
        out
    }

    #[test]
    fn states_show_their_modifiers_and_done_and_always_transitions() {
        let text = "machine M {\n    initial state idle { on go -> p; }\n    parallel state p {\n        \
                    done [in(a2)] -> x;\n        always;\n        \
                    state a { initial state a1 { after 1s -> a2; } final state a2; }\n    }\n    terminal state x;\n}\n";
        assert_eq!(
            outline(text),
            [
                "M",
                "  idle (initial)",
                "    on go -> p",
                "  p (parallel)",
                "    done -> x",
                "    always",
                "    a",
                "      a1 (initial)",
                "        after 1s -> a2",
                "      a2 (final)",
                "  x (terminal)",
            ]
        );
    }
}
