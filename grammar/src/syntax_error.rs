//! Turns pest's errors into `syntax` diagnostics that say, in words, what was
//! expected at the failing position ("expected `->` or `;`, found `foo`").

use crate::diagnostic::{one_of, Code, Diagnostic};
use crate::parser::Rule;
use crate::span::{floor_char_boundary, Span};
use pest::error::{Error, ErrorVariant, InputLocation};

/// Convert a pest error on `text[offset..]` into a diagnostic on `text`.
pub(crate) fn from_pest(err: &Error<Rule>, text: &str, offset: usize) -> Diagnostic {
    let pos = offset
        + match err.location {
            InputLocation::Pos(p) => p,
            InputLocation::Span((s, _)) => s,
        };
    let pos = floor_char_boundary(text, pos.min(text.len()));
    let found = token_at(text, pos);
    let span = Span::new(pos, pos + found.len());
    let found_words = if found.is_empty() {
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
    let (message, label) = if expected.is_empty() {
        (format!("unexpected {found_words}"), "unexpected here".to_string())
    } else {
        let list = one_of(&expected);
        (
            format!("expected {list}, found {found_words}"),
            format!("expected {list}"),
        )
    };
    Diagnostic::new(Code::Syntax, span, message, label, help(err, context))
}

/// Expected tokens are listed in the order they may appear in the grammar,
/// so `on x => b` says "expected `[`, `priority`, `->`, `emit` or `;`".
const ORDER: &[&str] = &[
    "`#[allow(...)]`",
    "`machine`",
    "`action`",
    "`guard`",
    "`output`",
    "`initial`",
    "`terminal`",
    "`state`",
    "`any`",
    "`on`",
    "`enter`",
    "`exit`",
    "a name",
    "a machine name",
    "a state name",
    "an action name",
    "an output name",
    "a guard name",
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
    "`emit`",
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
            "," => "a name",
            _ => "a name",
        }],
        int => vec!["a number"],
        lint_code => vec!["a diagnostic code"],
        EOI => vec!["end of file"],
        machine | kw_machine => vec!["`machine`"],
        attrs | attr | hash => vec!["`#[allow(...)]`"],
        decl | decl_kind => vec!["`action`", "`guard`", "`output`"],
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
        state_item => vec!["`on`", "`enter`", "`exit`"],
        file | machine_entry | WHITESPACE | COMMENT | word_end => vec![],
    }
}

fn help(err: &Error<Rule>, context: &str) -> String {
    let expects = |r: Rule| matches!(&err.variant, ErrorVariant::ParsingError { positives, .. } if positives.contains(&r));
    let in_guard = ["[", "!", "&&", "||", "("].contains(&context) || expects(Rule::rbracket);
    if context == "->" {
        "a transition's target is the name of a state: `on ACTION -> STATE;`".into()
    } else if expects(Rule::semi) && (expects(Rule::target) || expects(Rule::emit) || expects(Rule::guard)) {
        "a transition reads `on ACTION [GUARD] priority N -> TARGET emit OUTPUT, ...;`, every part after the action optional, ending with `;`".into()
    } else if expects(Rule::semi) {
        "every declaration and transition ends with `;`".into()
    } else if in_guard {
        "a guard is a guard name, `!g`, `a && b`, `a || b` or `( ... )`, inside `[` `]`".into()
    } else if context == "machine" {
        "a machine starts with its name: `machine Name { ... }`".into()
    } else if ["enter", "exit"].contains(&context) {
        "hooks read `enter emit OUTPUT, ...;` and `exit emit OUTPUT, ...;`".into()
    } else if expects(Rule::machine) || expects(Rule::kw_machine) {
        "a file holds machines: `machine Name { ... }`".into()
    } else if expects(Rule::state) || expects(Rule::decl) || expects(Rule::any_block) {
        "a machine body holds `action`/`guard`/`output` declarations, states (`initial state a { ... }`) and `any { ... }` blocks".into()
    } else if expects(Rule::transition) || expects(Rule::hook) {
        "a state body holds transitions (`on ACTION -> TARGET;`) and `enter emit ...;` / `exit emit ...;`"
            .into()
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
