//! Turns pest's errors into `syntax` diagnostics that say, in words, what was
//! expected at the failing position ("expected `->` or `;`, found `foo`").

use crate::ast::Comment;
use crate::diagnostic::{one_of, Code, Diagnostic};
use crate::parser::Rule;
use crate::span::{floor_char_boundary, Span};
use pest::error::{Error, ErrorVariant, InputLocation};

/// Convert a pest error on `text[offset..]` into a diagnostic on `text`, in
/// the machine that starts at `machine_start` (at or before `offset`).
/// `comments` are the comments of `text`, in order: what the error says
/// depends on the tokens before it, and comments are not tokens.
pub(crate) fn from_pest(
    err: &Error<Rule>,
    text: &str,
    comments: &[Comment],
    machine_start: usize,
    offset: usize,
) -> Diagnostic {
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
    let before = code_before(text, pos, comments);
    let context = previous_token(before);
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
    let keyword = keyword_suggestion(text, pos, found, &expected);
    // A line that ends where a `;` could is most likely missing it, so the
    // error goes just after its last token, as rustc reports it, rather
    // than on the next line.
    let missing_semi = !at_end
        && keyword.is_none()
        && !before.is_empty()
        && expected.iter().any(|w| w == "`;`")
        && text[before.len()..pos].contains('\n');
    // At the end of the file there is nothing to underline: point at the
    // last token instead, and say what should follow it.
    let (span, label) = match (at_end, last_token_span(before)) {
        _ if missing_semi => (Span::new(before.len(), before.len()), "add `;` here".to_string()),
        (true, Some(last)) if !expected.is_empty() => (last, format!("expected {list} after this")),
        _ if expected.is_empty() => (Span::new(pos, pos + found.len()), "unexpected here".to_string()),
        _ => (Span::new(pos, pos + found.len()), format!("expected {list}")),
    };
    let message = if expected.is_empty() {
        format!("unexpected {found_words}")
    } else {
        format!("expected {list}, found {found_words}")
    };
    let help: std::borrow::Cow<'static, str> = match keyword {
        Some(keyword) => format!("did you mean `{keyword}`?").into(),
        None if in_attribute(&text[..pos]) => {
            "an attribute reads `#[allow(CODE, ...)]`; `fsmc explain` lists the codes".into()
        }
        // A bare name in a property's formula: a state, written without `in(...)`.
        None if expected.iter().any(|w| w == "`in(STATE)`")
            && found.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') =>
        {
            format!(
                "a formula names a state as `in({found})`; it holds of configurations, so guards have no place in it"
            )
            .into()
        }
        None => help(&expected, context, statement_keyword(text, pos, comments)).into(),
    };
    let mut diagnostic = Diagnostic::new(Code::Syntax, span, message, label, help);
    // A misspelled keyword is replaced whole; `=>` for `->` is two tokens
    // where the span covers one, so it gets the help but no replacement.
    if let Some(keyword) = keyword.filter(|_| span == Span::new(pos, pos + found.len()) && found != "=") {
        diagnostic = diagnostic.with_suggestion(keyword);
    }
    if missing_semi {
        diagnostic = diagnostic.with_label(Span::new(pos, pos + found.len()), "unexpected token");
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

/// Whether the end of `before` is inside an attribute: after `#[` with no
/// `]` between. (Looking back no further than the last bracket or brace
/// keeps this proportional to the statement, not the file.)
fn in_attribute(before: &str) -> bool {
    before
        .rfind(['[', ']', ';', '{', '}'])
        .is_some_and(|open| before[open..].starts_with('[') && before[..open].trim_end().ends_with('#'))
}

/// The span of the last character of `before` (see [`code_before`]).
fn last_token_span(before: &str) -> Option<Span> {
    let c = before.chars().last()?;
    Some(Span::new(before.len() - c.len_utf8(), before.len()))
}

/// `text[..pos]` without the whitespace and comments at its end: it ends
/// with the last token before `pos`.
fn code_before<'t>(text: &'t str, pos: usize, comments: &[Comment]) -> &'t str {
    let mut end = pos;
    loop {
        end = text[..end].trim_end().len();
        // The last comment starting before `end`, if `end` is in it or at its end.
        let last = comments.partition_point(|c| c.span.start < end);
        match last.checked_sub(1).map(|i| comments[i].span) {
            Some(comment) if comment.end >= end => end = comment.start,
            _ => return &text[..end],
        }
    }
}

/// The first token of the statement holding `pos`: the one after the last
/// `;`, `{` or `}` before it, comments skipped. `on` for a transition,
/// `after` for a timer.
fn statement_keyword<'t>(text: &'t str, pos: usize, comments: &[Comment]) -> &'t str {
    let mut end = pos;
    let start = loop {
        let before = code_before(text, end, comments);
        // The code between the last comment before `before`'s end and it.
        let earlier = comments.partition_point(|c| c.span.end <= before.len());
        let from = earlier.checked_sub(1).map_or(0, |i| comments[i].span.end);
        if let Some(b) = before[from..].rfind([';', '{', '}']) {
            break from + b + 1;
        }
        match earlier.checked_sub(1) {
            Some(i) => end = comments[i].span.start,
            None => break 0,
        }
    };
    let mut at = start;
    loop {
        let rest = &text[at..pos];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if !trimmed.starts_with("//") {
            break;
        }
        at = text[at..pos].find('\n').map_or(pos, |n| at + n);
    }
    token_at(&text[..pos], at)
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
    "`final`",
    "`parallel`",
    "`state`",
    "`any`",
    "`on`",
    "`after`",
    "`done`",
    "`always`",
    "`enter`",
    "`exit`",
    "a name",
    "a machine name",
    "a state name",
    "an action name",
    "an output name",
    "a guard name",
    "`in(STATE)`",
    "`in`",
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
    "`.`",
    "`history`",
    "`deep_history`",
    "`property`",
    "`:`",
    "`never`",
    "`reachable`",
    "`recoverable`",
    "`escapable`",
    "`leads to`",
    "`to`",
    "`assuming`",
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
            "property" => "a property name",
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
        state | modifier => vec!["`state`", "`initial`", "`terminal`", "`final`", "`parallel`"],
        kw_state => vec!["`state`"],
        kw_initial => vec!["`initial`"],
        kw_terminal => vec!["`terminal`"],
        kw_final => vec!["`final`"],
        kw_parallel => vec!["`parallel`"],
        eventless | eventless_kind => vec!["`done`", "`always`"],
        kw_done => vec!["`done`"],
        kw_always => vec!["`always`"],
        guard_in | kw_in => vec!["`in`"],
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
        property | property_kind => vec!["`never`", "`reachable`", "`recoverable`", "`escapable`"],
        property_name | kw_property => vec!["`property`"],
        kw_never => vec!["`never`"],
        kw_reachable => vec!["`reachable`"],
        kw_recoverable => vec!["`recoverable`"],
        kw_escapable => vec!["`escapable`"],
        leads_to | kw_leads => vec!["`leads to`"],
        kw_to => vec!["`to`"],
        kw_assuming => vec!["`assuming`"],
        formula_or | formula_and | formula_unary | formula_primary => {
            vec!["`in(STATE)`", "`terminal`", "`!`", "`(`"]
        }
        formula_paren => vec!["`(`"],
        colon => vec!["`:`"],
        machine_item => vec!["`action`", "`guard`", "`output`", "`state`", "`any`"],
        state_item => vec![
            "`on`", "`after`", "`done`", "`always`", "`enter`", "`exit`", "`state`",
        ],
        file | machine_entry | machine_rest | state_rest | any_rest | WHITESPACE | COMMENT | word_end => {
            vec![]
        }
    }
}

/// The help line for what was expected after `context`, in a statement that
/// starts with `statement` (`on`, `after`, ...).
fn help(expected: &[String], context: &str, statement: &str) -> &'static str {
    let expects = |w: &str| expected.iter().any(|e| e == w);
    let timer = statement == "after";
    // `(` and `[` open a guard or a type: which one, the expected tokens
    // say, so types are asked about before the guard's context.
    let in_type = expects("a Rust type") || expects("`>`") || expects("`::`");
    let in_guard =
        ["[", "!", "&&", "||", "("].contains(&context) || expects("`&&`") || expects("a guard name");
    let property = ["property", "never", "reachable", "recoverable", "escapable"].contains(&statement);
    if property && (context == "property" || expects("`:`") || expects("`never`")) {
        "a named property reads `property NAME: never FORMULA;` (or `reachable`, `recoverable`, `escapable`), or `property NAME: FORMULA leads to FORMULA;`"
    } else if property {
        "a property reads `never FORMULA;`, `reachable FORMULA;`, `recoverable FORMULA;` or `escapable FORMULA;`, where a formula combines `in(STATE)` and `terminal` with `!`, `&&`, `||` and `( ... )`"
    } else if context == "parallel" {
        "`parallel` is followed by `state`; modifiers come before it: `initial parallel state p { ... }`"
    } else if context == "." {
        "after a composite state's name, `.history` enters the child last active in it and `.deep_history` the state last active anywhere inside it"
    } else if context == "->" && timer {
        "a timer's target is the name of a state: `after 30s -> STATE;`"
    } else if context == "->" {
        "a transition's target is the name of a state: `on ACTION -> STATE;`"
    } else if in_type {
        TYPE_HELP
    } else if in_guard {
        "a guard is a guard name, `!g`, `a && b`, `a || b` or `( ... )`, inside `[` `]`"
    } else if timer && (expects("`->`") || expects("`priority`")) {
        "a timer reads `after DELAY [GUARD] priority N -> TARGET do EFFECT, ... emit OUTPUT, ...;`, with a duration such as `30s` or a declared `delay` name, every part after it optional, ending with `;`"
    } else if expects("`->`") || expects("`priority`") {
        "a transition reads `on ACTION [GUARD] priority N -> TARGET do EFFECT, ... emit OUTPUT, ...;`, every part after the action optional, ending with `;`"
    } else if context == "emit" || context == "," {
        "`emit` takes a comma-separated list of output names: `emit a, b;`"
    } else if context == "machine" {
        "a machine starts with its name: `machine Name { ... }`"
    } else if ["enter", "exit"].contains(&context) {
        "hooks read `enter do EFFECT, ... emit OUTPUT, ...;` and `exit ...;`, with `do`, `emit` or both"
    } else if context == "after" || expects("a duration") {
        "a timer reads `after DURATION -> TARGET;`: a duration such as `250ms`, `30s`, `10m` or `2h`, or a declared `delay` name"
    } else if context == "priority" {
        "a priority is a whole number, such as `priority 2` or `priority -1`"
    } else if expects("`machine`") {
        "a file holds machines: `machine Name { ... }`"
    } else if expects("`on`") {
        "a state body holds transitions (`on ACTION -> TARGET;`, `done -> TARGET;`, `always -> TARGET;`), timers (`after 30s -> TARGET;`), `enter emit ...;` / `exit emit ...;` and nested states"
    } else if expects("`state`") || expects("`any`") {
        "a machine body holds `context`, `action`/`guard`/`output`/`effect`/`delay` declarations, states (`initial state a { ... }`), `any { ... }` blocks and properties (`never FORMULA;`)"
    } else if expects("`;`") {
        "every declaration, transition, timer and hook ends with `;`"
    } else if expects("`}`") {
        "every `{` needs a matching `}`"
    } else {
        "see docs/dsl.md for the grammar of this construct"
    }
}

/// The help for a syntax error in a Rust type.
const TYPE_HELP: &str = "a type is a Rust path with optional generic arguments (`Decision`, `crate::llm::Decision`, `Vec<String>`), a tuple `(A, B)` or an array `[T; N]`; references are not supported, since payloads and contexts are owned";

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

/// The last token of `before` (see [`code_before`]).
fn previous_token(before: &str) -> &str {
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

#[cfg(test)]
mod tests {
    use super::TYPE_HELP;
    use crate::parser::parse;
    use crate::Diagnostic;

    fn first(text: &str) -> Diagnostic {
        parse(text)
            .diagnostics
            .into_iter()
            .next()
            .expect("a syntax error")
    }

    #[test]
    fn syntax_templates_are_quoted_whole() {
        // fsmc's own template is longer than a quoted name may be; only the
        // user's text is shortened.
        let d = first("machine M { initial state a { on go b; } state b; }");
        assert!(
            d.help
                .contains("`on ACTION [GUARD] priority N -> TARGET do EFFECT, ... emit OUTPUT, ...;`"),
            "{}",
            d.help
        );
        let long = "n".repeat(100);
        let d = first(&format!("machine M {{ initial state a {{ on go {long}; }} }}"));
        assert!(
            !d.message.contains(&long) && d.message.contains('…'),
            "{}",
            d.message
        );
    }

    #[test]
    fn timers_get_their_own_help() {
        let text = "machine M { initial state a { after 5s b; } state b; }";
        assert!(
            first(text).help.starts_with("a timer reads `after DELAY"),
            "{}",
            first(text).help
        );
        let text = "machine M { initial state a {\n after 5s -> ; } }";
        assert_eq!(
            first(text).help,
            "a timer's target is the name of a state: `after 30s -> STATE;`"
        );
        // A transition after a timer is still a transition.
        let text = "machine M { initial state a { after 5s -> a; on x -> ; } }";
        assert!(first(text).help.starts_with("a transition's target"));
    }

    #[test]
    fn a_reference_type_gets_the_type_help() {
        for text in [
            "machine M { context C; effect note(&str); initial state a; }",
            "machine M { action a((u8, &str)); initial state a; }",
            "machine M { context &str; initial state a; }",
        ] {
            assert_eq!(first(text).help, TYPE_HELP, "{text}");
        }
        // A guard's `(` still gets the guard help.
        let text = "machine M { initial state a { on x [(;] -> a; } }";
        assert!(first(text).help.starts_with("a guard is"));
    }

    #[test]
    fn a_missing_semicolon_is_reported_after_the_line_that_lacks_it() {
        let text = "machine M {\n  initial state a {\n    on go -> b // to b\n    /// doc\n    on stop -> a;\n  }\n  state b;\n}\n";
        let d = first(text);
        let end = text.find(" // to b").unwrap();
        assert_eq!((d.span.start, d.span.end), (end, end), "{d:?}");
        assert_eq!(d.label, "add `;` here");
        assert_eq!(d.suggestion, None, "suggestions replace a word");
        let on = text.find("on stop").unwrap();
        assert_eq!(d.secondary[0].span.start, on);
        // On one line, the token that came instead is the one underlined.
        let text = "machine M { initial state a { on go -> b on stop -> a; } state b; }";
        let d = first(text);
        assert_eq!(&text[d.span.start..d.span.end], "on");
        // A misspelled keyword on the next line keeps its suggestion.
        let text = "machine M { initial state a { on go [g]\n prio 1 -> a; } }";
        assert_eq!(first(text).suggestion.as_deref(), Some("priority"));
    }

    #[test]
    fn comments_are_not_the_token_before_an_error() {
        // The doc comment ends with `.`, which once gave the help of `.history`.
        let text = "machine M {\n  initial state a { on x -> a; }\n  }\n  /// Done.\n  on y -> a;\n}\n";
        let d = parse(text).diagnostics;
        assert!(d.iter().all(|d| !d.help.contains(".history")), "{d:?}");
    }
}
