//! Guard expressions written as JSON strings: `"retries_left && !fatal"`.
//!
//! The syntax is the `.fsm` guard syntax (`!`, `&&`, `||`, parentheses,
//! identifiers, and `in(state)`). It is checked here, before any `.fsm` is written, so that a
//! mistake is reported at the guard's JSON path and cannot leak into the
//! surrounding `.fsm` text (a `]` or `;` in the string could otherwise end
//! the guard early).

/// A token of a guard expression.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token<'a> {
    Name(&'a str),
    /// `in(state)`, read as one token: the state's name.
    In(&'a str),
    Not,
    And,
    Or,
    Open,
    Close,
}

impl Token<'_> {
    fn describe(&self) -> String {
        match self {
            Token::Name(name) => format!("`{name}`"),
            Token::In(state) => format!("`in({state})`"),
            Token::Not => "`!`".into(),
            Token::And => "`&&`".into(),
            Token::Or => "`||`".into(),
            Token::Open => "`(`".into(),
            Token::Close => "`)`".into(),
        }
    }
}

/// Check `text` and return it as `.fsm` guard text (tokens separated by
/// single spaces; the formatter lays it out), or what is wrong with it.
pub(super) fn parse(text: &str) -> Result<String, String> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens: &tokens,
        pos: 0,
        depth: 0,
    };
    parser.or()?;
    if let Some(token) = parser.peek() {
        return Err(format!(
            "unexpected {} after a complete guard expression",
            token.describe()
        ));
    }
    Ok(tokens
        .iter()
        .map(|t| match t {
            Token::Name(name) => (*name).to_string(),
            Token::In(state) => format!("in({state})"),
            Token::Not => "!".into(),
            Token::And => "&&".into(),
            Token::Or => "||".into(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
        })
        .collect::<Vec<_>>()
        .join(" "))
}

/// Check `text` as a property's formula: a guard expression whose only
/// names are `terminal` (states are written `in(state)`), and return it as
/// `.fsm` text.
pub(super) fn formula(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("the formula is empty".into());
    }
    let written = parse(text).map_err(|problem| {
        problem
            .replace("guard names", "`in(state)`, `terminal`")
            .replace("guard", "formula")
    })?;
    for token in tokenize(text)? {
        if let Token::Name(name) = token {
            if name != "terminal" {
                return Err(format!(
                    "`{name}` is not `terminal`, and a state is written `in({name})`: a formula holds of configurations, and guards are not part of one"
                ));
            }
        }
    }
    Ok(written)
}

fn tokenize(text: &str) -> Result<Vec<Token<'_>>, String> {
    let mut tokens = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let (token, len) = match c {
            c if c.is_whitespace() => {
                rest = &rest[c.len_utf8()..];
                continue;
            }
            '!' => (Token::Not, 1),
            '(' => (Token::Open, 1),
            ')' => (Token::Close, 1),
            '&' if rest.starts_with("&&") => (Token::And, 2),
            '|' if rest.starts_with("||") => (Token::Or, 2),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let len = identifier_len(rest);
                match in_call(rest, len)? {
                    Some((state, len)) => (Token::In(state), len),
                    None => (Token::Name(&rest[..len]), len),
                }
            }
            '&' => return Err("`&` must be doubled: `&&`".into()),
            '|' => return Err("`|` must be doubled: `||`".into()),
            c => {
                return Err(format!(
                "unexpected character `{c}`; a guard is made of guard names, `!`, `&&`, `||` and parentheses"
            ))
            }
        };
        tokens.push(token);
        rest = &rest[len..];
    }
    if tokens.is_empty() {
        return Err("the guard is empty; leave out `guard` for a transition without one".into());
    }
    if tokens.len() > MAX_TOKENS {
        return Err(format!("the guard is longer than {MAX_TOKENS} tokens"));
    }
    Ok(tokens)
}

/// The length of the identifier `text` starts with.
fn identifier_len(text: &str) -> usize {
    text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len())
}

/// `in ( state )` at the start of `text`, whose first word is `len` bytes
/// long: the state and the length of the whole call. `in` not followed by
/// `(` is a guard name, as in `.fsm`.
fn in_call(text: &str, len: usize) -> Result<Option<(&str, usize)>, String> {
    if &text[..len] != "in" {
        return Ok(None);
    }
    let after = text[len..].trim_start();
    let Some(inside) = after.strip_prefix('(') else {
        return Ok(None);
    };
    let inside_trimmed = inside.trim_start();
    let state_len = match inside_trimmed.chars().next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => identifier_len(inside_trimmed),
        _ => return Err("`in(...)` takes the name of a state: `in(done_a)`".into()),
    };
    let state = &inside_trimmed[..state_len];
    let Some(close) = inside_trimmed[state_len..].trim_start().strip_prefix(')') else {
        return Err(format!(
            "`in({state}` is not closed: expected `)` after the state"
        ));
    };
    Ok(Some((state, text.len() - close.len())))
}

/// Recursive descent over `or := and ("||" and)*`, `and := unary ("&&" unary)*`,
/// `unary := "!"* primary`, `primary := name | in | "(" or ")"`.
struct Parser<'t, 'a> {
    tokens: &'t [Token<'a>],
    pos: usize,
    /// Open parentheses around the current position.
    depth: usize,
}

/// How deeply parentheses and `!` may nest, and how many tokens a guard may
/// have. The front end walks guard trees recursively, so larger input is
/// refused here rather than allowed to exhaust the stack later.
/// They are the `.fsm` front end's own limits (`crate::limits`), so an
/// imported guard never fails later where the JSON path is lost.
const MAX_DEPTH: usize = crate::limits::MAX_GUARD_DEPTH;
const MAX_TOKENS: usize = 2 * crate::limits::MAX_GUARD_OPERATORS + 1;

impl Parser<'_, '_> {
    fn peek(&self) -> Option<&Token<'_>> {
        self.tokens.get(self.pos)
    }

    fn or(&mut self) -> Result<(), String> {
        self.and()?;
        while self.peek() == Some(&Token::Or) {
            self.pos += 1;
            self.and()?;
        }
        Ok(())
    }

    fn and(&mut self) -> Result<(), String> {
        self.unary()?;
        while self.peek() == Some(&Token::And) {
            self.pos += 1;
            self.unary()?;
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<(), String> {
        let depth = self.depth;
        while self.peek() == Some(&Token::Not) {
            self.pos += 1;
            self.deeper()?;
        }
        let result = self.primary();
        self.depth = depth;
        result
    }

    fn deeper(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("`!` and parentheses nest more than {MAX_DEPTH} deep"));
        }
        Ok(())
    }

    fn primary(&mut self) -> Result<(), String> {
        match self.peek() {
            Some(Token::Name(_) | Token::In(_)) => {
                self.pos += 1;
                Ok(())
            }
            Some(Token::Open) => {
                self.pos += 1;
                self.deeper()?;
                self.or()?;
                match self.peek() {
                    Some(Token::Close) => {
                        self.pos += 1;
                        Ok(())
                    }
                    Some(token) => Err(format!("expected `)`, found {}", token.describe())),
                    None => Err("unclosed `(`: expected `)` at the end".into()),
                }
            }
            Some(token) => Err(format!(
                "expected a guard name, `!` or `(`, found {}",
                token.describe()
            )),
            None => Err("expected a guard name, `!` or `(` at the end".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn accepts_the_fsm_guard_syntax() {
        assert_eq!(parse("a").unwrap(), "a");
        assert_eq!(
            parse("  retries_left&&!fatal ").unwrap(),
            "retries_left && ! fatal"
        );
        assert_eq!(parse("!!(a || b) && c").unwrap(), "! ! ( a || b ) && c");
        assert_eq!(parse("in(a_done)").unwrap(), "in(a_done)");
        assert_eq!(parse("!in ( a ) && in").unwrap(), "! in(a) && in");
        assert_eq!(parse("in").unwrap(), "in");
    }

    #[test]
    fn explains_what_is_wrong() {
        assert_eq!(
            parse("a &&").unwrap_err(),
            "expected a guard name, `!` or `(` at the end"
        );
        assert_eq!(parse("(a").unwrap_err(), "unclosed `(`: expected `)` at the end");
        assert_eq!(
            parse("a b").unwrap_err(),
            "unexpected `b` after a complete guard expression"
        );
        assert_eq!(parse("a & b").unwrap_err(), "`&` must be doubled: `&&`");
        assert!(parse("a] -> x; on b [c")
            .unwrap_err()
            .starts_with("unexpected character `]`"));
        assert!(parse(" ").unwrap_err().starts_with("the guard is empty"));
        let deep = format!("{}a{}", "(".repeat(100), ")".repeat(100));
        assert_eq!(
            parse(&deep).unwrap_err(),
            "`!` and parentheses nest more than 64 deep"
        );
        assert_eq!(
            parse(&format!("{}a", "!".repeat(65))).unwrap_err(),
            "`!` and parentheses nest more than 64 deep"
        );
        assert!(parse(&format!("{}a", "!".repeat(64))).is_ok());
        assert!(parse(&vec!["a"; 600].join(" && "))
            .unwrap_err()
            .contains("longer than 513 tokens"));
        assert_eq!(
            parse("in(a").unwrap_err(),
            "`in(a` is not closed: expected `)` after the state"
        );
        assert_eq!(
            parse("in()").unwrap_err(),
            "`in(...)` takes the name of a state: `in(done_a)`"
        );
        assert_eq!(
            parse("in(a b)").unwrap_err(),
            "`in(a` is not closed: expected `)` after the state"
        );
        assert_eq!(
            parse("|| a").unwrap_err(),
            "expected a guard name, `!` or `(`, found `||`"
        );
    }
}
