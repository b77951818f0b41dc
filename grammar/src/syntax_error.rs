//! Turns pest's errors into `syntax` diagnostics that say, in words, what was
//! expected at the failing position ("expected `->` or `;`, found `foo`").

use crate::diagnostic::{one_of, Code, Diagnostic};
use crate::parser::Rule;
use crate::span::{floor_char_boundary, Span};
use pest::error::{Error, ErrorVariant, InputLocation};

/// Convert a pest error on `text[offset..]` into a diagnostic on `text`, in
/// the machine that starts at `machine_start` (at or before `offset`).
pub(crate) fn from_pest(err: &Error<Rule>, text: &str, machine_start: usize, offset: usize) -> Diagnostic {
    let pos = offset
        + match err.location {
            InputLocation::Pos(p) => p,
            InputLocation::Span((s, _)) => s,
        };
    let pos = floor_char_boundary(text, pos.min(text.len()));
    // Point at the next token, never at whitespace.
    let pos = pos + (text[pos..].len() - text[pos..].trim_start().len());
    let found = token_at(text, pos);
    let at_end = found.is_empty();
    let found_words = if at_end {
        "end of file".to_string()
    } else {
        format!("`{found}`")
    };
    let context = previous_token(text, pos);
    let expected: Vec<String> = match &err.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut words: Vec<String> = Vec::new();
            for rule in positives {
                for w in describe(*rule, context) {
                    if !words.iter().any(|x| x == w) {
                        words.push(w.to_string());
                    }
                }
            }
            words.sort_by_key(|w| ORDER.iter().position(|o| o == w).unwrap_or(ORDER.len()));
            words
        }
        ErrorVariant::CustomError { message } => vec![message.clone()],
    };
    let list = one_of(&expected);
    // At the end of the file there is nothing to underline: point at the
    // last token instead, and say what should follow it.
    let (span, label) = match (at_end, last_token_span(text, pos)) {
        (true, Some(last)) if !expected.is_empty() => (last, format!("expected {list} after this")),
        _ if expected.is_empty() => (Span::new(pos, pos + found.len()), "unexpected here".to_string()),
        _ => (Span::new(pos, pos + found.len()), format!("expected {list}")),
    };
    let message = if expected.is_empty() {
        format!("unexpected {found_words}")
    } else {
        format!("expected {list}, found {found_words}")
    };
    let keyword = keyword_suggestion(text, pos, found, &expected);
    let help = match keyword {
        Some(keyword) => format!("did you mean `{keyword}`?"),
        None if in_attribute(text, pos) => {
            "an attribute reads `#[allow(CODE, ...)]`; `fsmc explain` lists the codes".into()
        }
        None => help(&expected, context),
    };
    let mut diagnostic = Diagnostic::new(Code::Syntax, span, message, label, help);
    // A misspelled keyword is replaced whole; `=>` for `->` is two tokens
    // where the span covers one, so it gets the help but no replacement.
    if let Some(keyword) = keyword.filter(|_| span == Span::new(pos, pos + found.len()) && found != "=") {
        diagnostic = diagnostic.with_suggestion(keyword);
    }
    if at_end && expected.iter().any(|w| w == "`}`") {
        if let Some(open) = unclosed_brace(text, machine_start, pos) {
            diagnostic = diagnostic.with_label(Span::new(open, open + 1), "this `{` is never closed");
        }
    }
    diagnostic
}

/// The keyword the user probably meant when a word, or `=>`, stands where
/// keywords were expected: `stat` for `state`, `prio` for `priority`.
fn keyword_suggestion<'e>(text: &str, pos: usize, found: &str, expected: &'e [String]) -> Option<&'e str> {
    let keywords = || {
        expected
            .iter()
            .filter_map(|e| e.strip_prefix('`')?.strip_suffix('`'))
    };
    if found == "=" && text[pos..].starts_with("=>") {
        return keywords().find(|k| *k == "->");
    }
    if !found.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    let words = || keywords().filter(|k| k.chars().all(|c| c.is_ascii_alphabetic()));
    crate::suggest::closest(found, words())
        .or_else(|| words().find(|k| found.len() >= 2 && k.starts_with(found)))
}

/// Whether `pos` is inside an attribute: after `#[` with no `]` between.
fn in_attribute(text: &str, pos: usize) -> bool {
    let before = &text[..pos];
    before
        .rfind('[')
        .is_some_and(|open| before[..open].trim_end().ends_with('#') && !before[open..].contains(']'))
}

/// The span of the last character before `pos` that is not whitespace.
fn last_token_span(text: &str, pos: usize) -> Option<Span> {
    let before = text[..pos].trim_end();
    let c = before.chars().last()?;
    Some(Span::new(before.len() - c.len_utf8(), before.len()))
}

/// The innermost `{` between `from` and `to` that is still open at `to`
/// (comments skipped).
fn unclosed_brace(text: &str, from: usize, to: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut open = Vec::new();
    let mut i = from;
    while i < to.min(bytes.len()) {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(text.len(), |n| i + n);
                continue;
            }
            b'{' => open.push(i),
            b'}' => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    open.pop()
}

/// Expected tokens are listed in the order they may appear in the grammar,
/// so `on x => b` says "expected `[`, `priority`, `->`, `emit` or `;`".
const ORDER: &[&str] = &[
    "`#[allow(...)]`",
    "`machine`",
    "`action`",
    "`guard`",
    "`output`",
    "`effect`",
    "`delay`",
    "`context`",
    "`initial`",
    "`terminal`",
    "`state`",
    "`any`",
    "`on`",
    "`after`",
    "`enter`",
    "`exit`",
    "a name",
    "a machine name",
    "a state name",
    "an action name",
    "an output name",
    "a guard name",
    "an effect name",
    "a delay name",
    "a duration",
    "a Rust type",
    "a diagnostic code",
    "`!`",
    "`(`",
    "`&&`",
    "`||`",
    "`)`",
    "`[`",
    "`]`",
    "`priority`",
    "a number",
    "`->`",
    "`do`",
    "`emit`",
    "`::`",
    "`<`",
    "`>`",
    "`,`",
    "`{`",
    "`;`",
    "`}`",
    "end of file",
];

/// The words for what a rule starts with. `context` is the token before the
/// error, which tells a state name from an action name.
fn describe(rule: Rule, context: &str) -> Vec<&'static str> {
    use Rule::*;
    match rule {
        ident => vec![match context {
            "->" | "state" => "a state name",
            "on" => "an action name",
            "emit" => "an output name",
            "machine" => "a machine name",
            "[" | "!" | "&&" | "||" | "(" => "a guard name",
            "action" => "an action name",
            "guard" => "a guard name",
            "output" => "an output name",
            "effect" | "do" => "an effect name",
            "delay" => "a delay name",
            "after" => "a delay name",
            "," => "a name",
            _ => "a name",
        }],
        int => vec!["a number"],
        lint_code => vec!["a diagnostic code"],
        EOI => vec!["end of file"],
        machine | kw_machine => vec!["`machine`"],
        attrs | attr | hash => vec!["`#[allow(...)]`"],
        decl => vec!["`action`", "`guard`", "`output`", "`effect`", "`delay`"],
        decl_kind => vec!["`action`", "`guard`", "`effect`"],
        plain_kind => vec!["`output`", "`delay`"],
        context_decl | kw_context => vec!["`context`"],
        kw_effect => vec!["`effect`"],
        kw_delay => vec!["`delay`"],
        timer | kw_after => vec!["`after`"],
        effects | kw_do => vec!["`do`"],
        delay => vec!["a duration", "a delay name"],
        duration => vec!["a duration"],
        rust_type | type_path | type_tuple | type_array => vec!["a Rust type"],
        typed_name => vec!["a name"],
        payload => vec!["`(`"],
        type_args | langle => vec!["`<`"],
        rangle => vec!["`>`"],
        path_sep => vec!["`::`"],
        uint => vec!["a number"],
        state | modifier => vec!["`state`", "`initial`", "`terminal`"],
        kw_state => vec!["`state`"],
        kw_initial => vec!["`initial`"],
        kw_terminal => vec!["`terminal`"],
        kw_action => vec!["`action`"],
        kw_guard => vec!["`guard`"],
        kw_output => vec!["`output`"],
        any_block | kw_any => vec!["`any`"],
        transition | kw_on => vec!["`on`"],
        hook | hook_kind => vec!["`enter`", "`exit`"],
        kw_enter => vec!["`enter`"],
        kw_exit => vec!["`exit`"],
        emit | kw_emit => vec!["`emit`"],
        kw_allow => vec!["`allow`"],
        guard => vec!["`[`"],
        priority | kw_priority => vec!["`priority`"],
        target | arrow => vec!["`->`"],
        dot => vec!["`.`"],
        history => vec!["`history`", "`deep_history`"],
        kw_history => vec!["`history`"],
        kw_deep_history => vec!["`deep_history`"],
        guard_or | guard_and | guard_unary | guard_primary => vec!["a guard name", "`!`", "`(`"],
        guard_paren | lparen => vec!["`(`"],
        ident_list => vec!["a name"],
        state_body | lbrace => vec!["`{`"],
        rbrace => vec!["`}`"],
        lbracket => vec!["`[`"],
        rbracket => vec!["`]`"],
        rparen => vec!["`)`"],
        semi => vec!["`;`"],
        comma => vec!["`,`"],
        not_op => vec!["`!`"],
        and_op => vec!["`&&`"],
        or_op => vec!["`||`"],
        machine_item => vec!["`action`", "`guard`", "`output`", "`state`", "`any`"],
        state_item => vec!["`on`", "`after`", "`enter`", "`exit`", "`state`"],
        file | machine_entry | machine_rest | state_rest | any_rest | WHITESPACE | COMMENT | word_end => {
            vec![]
        }
    }
}

fn help(expected: &[String], context: &str) -> String {
    let expects = |w: &str| expected.iter().any(|e| e == w);
    let in_guard =
        ["[", "!", "&&", "||", "("].contains(&context) || expects("`&&`") || expects("a guard name");
    if context == "." {
        "after a composite state's name, `.history` enters the child last active in it and `.deep_history` the state last active anywhere inside it".into()
    } else if context == "->" {
        "a transition's target is the name of a state: `on ACTION -> STATE;`".into()
    } else if in_guard {
        "a guard is a guard name, `!g`, `a && b`, `a || b` or `( ... )`, inside `[` `]`".into()
    } else if expects("`->`") || expects("`priority`") {
        "a transition reads `on ACTION [GUARD] priority N -> TARGET do EFFECT, ... emit OUTPUT, ...;`, every part after the action optional, ending with `;`".into()
    } else if context == "emit" || context == "," {
        "`emit` takes a comma-separated list of output names: `emit a, b;`".into()
    } else if context == "machine" {
        "a machine starts with its name: `machine Name { ... }`".into()
    } else if ["enter", "exit"].contains(&context) {
        "hooks read `enter do EFFECT, ... emit OUTPUT, ...;` and `exit ...;`, with `do`, `emit` or both"
            .into()
    } else if expects("a Rust type") || expects("`>`") || expects("`::`") {
        "a type is a Rust path with optional generic arguments (`Decision`, `crate::llm::Decision`, `Vec<String>`), a tuple `(A, B)` or an array `[T; N]`; references are not supported, since payloads and contexts are owned".into()
    } else if context == "after" || expects("a duration") {
        "a timer reads `after DURATION -> TARGET;`: a duration such as `250ms`, `30s`, `10m` or `2h`, or a declared `delay` name".into()
    } else if context == "priority" {
        "a priority is a whole number, such as `priority 2` or `priority -1`".into()
    } else if expects("`machine`") {
        "a file holds machines: `machine Name { ... }`".into()
    } else if expects("`on`") {
        "a state body holds transitions (`on ACTION -> TARGET;`), timers (`after 30s -> TARGET;`), `enter emit ...;` / `exit emit ...;` and nested states"
            .into()
    } else if expects("`state`") || expects("`any`") {
        "a machine body holds `context`, `action`/`guard`/`output`/`effect`/`delay` declarations, states (`initial state a { ... }`) and `any { ... }` blocks".into()
    } else if expects("`;`") {
        "every declaration and transition ends with `;`".into()
    } else if expects("`}`") {
        "every `{` needs a matching `}`".into()
    } else {
        "see docs/dsl.md for the grammar of this construct".into()
    }
}

/// The token starting at `pos`: a word, a two-character operator, or one character.
fn token_at(text: &str, pos: usize) -> &str {
    let rest = &text[pos..];
    let word = rest
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(rest.len(), |(i, _)| i);
    if word > 0 {
        return &rest[..word];
    }
    for op in ["->", "&&", "||", "//"] {
        if rest.starts_with(op) {
            return &rest[..2];
        }
    }
    rest.chars().next().map_or("", |c| &rest[..c.len_utf8()])
}

/// The token that ends just before `pos`, ignoring whitespace.
fn previous_token(text: &str, pos: usize) -> &str {
    let before = text[..pos].trim_end();
    for op in ["->", "&&", "||"] {
        if before.ends_with(op) {
            return &before[before.len() - 2..];
        }
    }
    let start = before
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    if start < before.len() {
        &before[start..]
    } else {
        before
            .chars()
            .last()
            .map_or("", |c| &before[before.len() - c.len_utf8()..])
    }
}
