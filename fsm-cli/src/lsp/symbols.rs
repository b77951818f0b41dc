//! The outline: machines, their declarations, states and `any` blocks, and
//! the transitions and timers inside them.

use super::analysis::Analysis;
use super::documents::Document;
use fsm_grammar::ast::{DelayAst, MachineItem, StateItem, TransitionAst};
use fsm_grammar::Span;
use lsp_types::{DocumentSymbol, SymbolKind};

/// The outline of the machines that parse.
pub fn document_symbols(document: &Document, analysis: &Analysis) -> Vec<DocumentSymbol> {
    let symbol = |name: String,
                  detail: Option<String>,
                  kind,
                  span: Span,
                  selection: Span,
                  children: Vec<DocumentSymbol>| {
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
    };
    let transition = |t: &TransitionAst| {
        let target = t
            .target
            .as_ref()
            .map_or(String::new(), |i| format!(" -> {}", i.name));
        symbol(
            format!("on {}{target}", t.action.name),
            None,
            SymbolKind::EVENT,
            t.span,
            t.action.span,
            Vec::new(),
        )
    };
    let text = document.text();
    analysis
        .checked
        .file
        .machines
        .iter()
        .map(|m| {
            let mut children = Vec::new();
            for item in &m.items {
                match item {
                    MachineItem::Context(c) => children.push(symbol(
                        "context".into(),
                        Some(c.ty.text.clone()),
                        SymbolKind::STRUCT,
                        c.span,
                        c.keyword,
                        Vec::new(),
                    )),
                    MachineItem::Decl(d) => {
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
                            children.push(symbol(
                                name.name.clone(),
                                Some(detail),
                                kind,
                                d.span,
                                name.span,
                                Vec::new(),
                            ));
                        }
                    }
                    MachineItem::State(s) => {
                        let inner = s
                            .body
                            .iter()
                            .flatten()
                            .filter_map(|item| match item {
                                StateItem::Transition(t) => Some(transition(t)),
                                StateItem::Timer(t) => {
                                    let delay = match &t.delay {
                                        DelayAst::Literal(i) | DelayAst::Name(i) => i,
                                    };
                                    let target = t
                                        .target
                                        .as_ref()
                                        .map_or(String::new(), |i| format!(" -> {}", i.name));
                                    Some(symbol(
                                        format!("after {}{target}", delay.name),
                                        None,
                                        SymbolKind::EVENT,
                                        t.span,
                                        delay.span,
                                        Vec::new(),
                                    ))
                                }
                                StateItem::Hook(_) => None,
                            })
                            .collect();
                        let modifiers: Vec<&str> = s
                            .modifiers
                            .iter()
                            .map(|m| &text[m.span.start..m.span.end])
                            .collect();
                        children.push(symbol(
                            s.name.name.clone(),
                            (!modifiers.is_empty()).then(|| modifiers.join(" ")),
                            SymbolKind::ENUM_MEMBER,
                            s.span,
                            s.name.span,
                            inner,
                        ));
                    }
                    MachineItem::Any(a) => children.push(symbol(
                        "any".into(),
                        None,
                        SymbolKind::NAMESPACE,
                        a.span,
                        a.keyword,
                        a.transitions.iter().map(transition).collect(),
                    )),
                }
            }
            symbol(
                m.name.name.clone(),
                None,
                SymbolKind::CLASS,
                m.span,
                m.name.span,
                children,
            )
        })
        .collect()
}
