//! Bounded diagnostic text: a name of any length must not flood the output.
//!
//! Messages quote names in backticks. A quoted name longer than
//! [`MAX_QUOTED_CHARS`] keeps its beginning and end around an ellipsis, and a
//! whole text longer than [`MAX_TEXT_CHARS`] is cut. Spans are untouched: a
//! diagnostic still points at the whole name.

/// The longest name quoted in full.
pub const MAX_QUOTED_CHARS: usize = 64;
/// Characters kept from the start of a longer name.
const HEAD: usize = 40;
/// Characters kept from its end.
const TAIL: usize = 12;
/// The longest message, label or help line, after names are shortened.
pub const MAX_TEXT_CHARS: usize = 1_000;

/// `text` as a diagnostic shows it: fsmc's own text (a `&'static str`, which
/// cannot hold a user's name) whole, and text built at run time through
/// [`elide`].
pub(crate) fn elide_owned(text: std::borrow::Cow<'static, str>) -> String {
    match text {
        std::borrow::Cow::Borrowed(own) => own.to_string(),
        std::borrow::Cow::Owned(built) => elide(built),
    }
}

/// `text` with every backtick-quoted name longer than 64 characters
/// shortened to `` `beginning…end` ``, and cut after 1,000 characters.
/// Short texts come back unchanged, without a copy.
pub fn elide(text: String) -> String {
    if text.len() <= MAX_QUOTED_CHARS {
        return text;
    }
    let mut out = String::with_capacity(text.len().min(4 * MAX_TEXT_CHARS));
    let mut rest = text.as_str();
    let mut chars = 0;
    let mut cut = false;
    while !rest.is_empty() && chars <= MAX_TEXT_CHARS {
        let Some(open) = rest.find('`') else {
            cut = !push_capped(&mut out, &mut chars, rest);
            rest = "";
            break;
        };
        if !push_capped(&mut out, &mut chars, &rest[..=open]) {
            cut = true;
            break;
        }
        rest = &rest[open + 1..];
        let close = rest.find('`').unwrap_or(rest.len());
        let quoted = &rest[..close];
        if is_long(quoted) {
            out.push_str(&name(quoted));
            chars += HEAD + 1 + TAIL;
        } else if !push_capped(&mut out, &mut chars, quoted) {
            cut = true;
            break;
        }
        rest = &rest[close..];
        if let Some(after) = rest.strip_prefix('`') {
            out.push('`');
            chars += 1;
            rest = after;
        }
    }
    if cut || !rest.is_empty() {
        out.push('…');
    }
    out
}

fn is_long(name: &str) -> bool {
    name.len() > MAX_QUOTED_CHARS && name.chars().nth(MAX_QUOTED_CHARS).is_some()
}

/// `name`, or for one longer than [`MAX_QUOTED_CHARS`], its beginning and
/// end around an ellipsis.
pub fn name(name: &str) -> std::borrow::Cow<'_, str> {
    if !is_long(name) {
        return name.into();
    }
    let head_end = name.char_indices().nth(HEAD).map_or(name.len(), |(i, _)| i);
    let tail_start = name.char_indices().rev().nth(TAIL - 1).map_or(0, |(i, _)| i);
    format!("{}…{}", &name[..head_end], &name[tail_start..]).into()
}

/// Append `text`, up to [`MAX_TEXT_CHARS`] characters in all; false when
/// some of it did not fit.
fn push_capped(out: &mut String, chars: &mut usize, text: &str) -> bool {
    let room = MAX_TEXT_CHARS.saturating_sub(*chars);
    let end = text.char_indices().nth(room).map_or(text.len(), |(i, _)| i);
    out.push_str(&text[..end]);
    *chars += text[..end].chars().count();
    end == text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_quoted_names_keep_their_ends() {
        let name = format!("start{}end", "x".repeat(10_000));
        let text = elide(format!("state `{name}` is unreachable; did you mean `{name}`?"));
        let short = format!("{}…{}", &name[..HEAD], &name[name.len() - TAIL..]);
        assert_eq!(
            text,
            format!("state `{short}` is unreachable; did you mean `{short}`?")
        );
    }

    #[test]
    fn short_texts_are_unchanged() {
        let name = "n".repeat(MAX_QUOTED_CHARS);
        for text in ["", "no names", "an `unclosed quote", &format!("`{name}` is fine")] {
            assert_eq!(elide(text.to_string()), text);
        }
        let unicode = "é".repeat(MAX_QUOTED_CHARS + 1);
        let shortened = elide(format!("`{unicode}`"));
        assert_eq!(shortened.chars().count(), HEAD + 1 + TAIL + 2, "{shortened}");
    }

    #[test]
    fn long_texts_are_cut() {
        let text = elide("word ".repeat(1_000_000));
        assert!(text.chars().count() <= MAX_TEXT_CHARS + 2, "{}", text.len());
        assert!(text.ends_with('…'));
        let text = elide(format!("`{}", "x".repeat(1_000_000)));
        assert!(text.chars().count() <= MAX_TEXT_CHARS + 2, "{}", text.len());
    }
}
