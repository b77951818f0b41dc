//! What the fleet writes of an error into its tables: a few kilobytes at
//! most, and never the value that caused it.
//!
//! An error comes from what a user sent (an event that does not read, a
//! snapshot edited by hand), from a machine's own code (a panic's message)
//! or from a handler ([`Fleet::output_failed`](crate::Fleet::output_failed)).
//! serde's messages quote the value they could not read, so an event of
//! 16 MiB that is not the machine's would put 16 MiB into its row's `error`,
//! and every listing of dead rows would read it back. Each error written is
//! therefore:
//! - stripped of the values serde quotes: a string in double quotes
//!   (serde's `invalid type: string "…"`) becomes its length as quoted, and
//!   a name in backquotes longer than [`MAX_QUOTED`] bytes (serde's
//!   ``unknown variant `…` ``) becomes its length too, so that a short name
//!   of the machine's (``expected one of `bump`, `close` ``) still reads.
//!   A message that quotes nothing (a panic's, a handler's) is kept as it
//!   is, up to the cut;
//! - cut at [`MAX_ERROR`] bytes, on a character boundary, saying how long
//!   it was.

use serde::de::DeserializeOwned;

/// The most bytes of an error a row keeps.
pub(crate) const MAX_ERROR: usize = 2_048;

/// The longest name in backquotes kept as it is.
pub(crate) const MAX_QUOTED: usize = 64;

/// `error`, as a row keeps it: values stripped, at most [`MAX_ERROR`] bytes.
pub(crate) fn bounded(error: &str) -> String {
    let stripped = strip_values(error);
    if stripped.len() <= MAX_ERROR {
        return stripped;
    }
    let mut end = MAX_ERROR;
    while !stripped.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… (cut: {} bytes in all)", &stripped[..end], stripped.len())
}

/// `message` with each string in double quotes replaced by its length, and
/// each run in backquotes longer than [`MAX_QUOTED`] bytes too. A quote
/// left open runs to the end of the message.
fn strip_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(MAX_ERROR + 64));
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = rest.as_bytes()[open];
        out.push_str(&rest[..open]);
        let inner = &rest[open + 1..];
        let (value, after) = match quote {
            // serde writes a string with `Debug`: an inner quote is `\"`.
            b'"' => match closing_double_quote(inner) {
                Some(close) => (&inner[..close], &inner[close + 1..]),
                None => (inner, ""),
            },
            _ => match closing_backquote(inner) {
                Some(close) => (&inner[..close], &inner[close + 1..]),
                None => (inner, ""),
            },
        };
        if quote == b'"' {
            out.push_str(&format!("of {} bytes", value.len()));
        } else if value.len() > MAX_QUOTED {
            out.push_str(&format!("`…` ({} bytes)", value.len()));
        } else {
            out.push('`');
            out.push_str(value);
            out.push('`');
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Where the name `inner` (just after an opening backquote) closes: the
/// first backquote that ends a word, followed by the end of the message or
/// by a separator (serde writes ``unknown variant `x`, expected …``). A
/// backquote inside the value, followed by more of it, does not close it.
fn closing_backquote(inner: &str) -> Option<usize> {
    inner.match_indices('`').map(|(i, _)| i).find(|&i| {
        inner[i + 1..]
            .chars()
            .next()
            .is_none_or(|c| matches!(c, ',' | ' ' | '.' | ':' | ';' | ')' | '\n'))
    })
}

/// Where the string `inner` (just after an opening `"`) closes: the first
/// `"` not escaped by a backslash.
fn closing_double_quote(inner: &str) -> Option<usize> {
    let bytes = inner.as_bytes();
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return Some(i),
            _ => {}
        }
    }
    None
}

/// `json` read as a `T`, or why not: serde's reason with the path to the
/// value it could not read (`bump`, `steps[2].name`), never the value. The
/// path is worked out only when reading fails, by reading again.
pub(crate) fn from_json<T: DeserializeOwned>(json: &str) -> Result<T, String> {
    serde_json::from_str(json).map_err(|error| {
        let mut deserializer = serde_json::Deserializer::from_str(json);
        let path = match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
            Err(error) => error.path().to_string(),
            Ok(_) => ".".to_owned(),
        };
        let at = if path == "." {
            String::new()
        } else {
            format!("at `{path}`: ")
        };
        bounded(&format!("{at}{error}"))
    })
}

#[cfg(test)]
mod tests {
    use super::{bounded, from_json, MAX_ERROR};

    #[test]
    fn a_quoted_string_becomes_its_length() {
        assert_eq!(
            bounded(r#"invalid type: string "a \"b\" c", expected u32 at line 1 column 9"#),
            "invalid type: string of 9 bytes, expected u32 at line 1 column 9"
        );
    }

    #[test]
    fn short_names_in_backquotes_stay_and_long_ones_go() {
        let long = "x".repeat(100);
        assert_eq!(
            bounded(&format!(
                "unknown variant `{long}`, expected one of `bump`, `close`"
            )),
            "unknown variant `…` (100 bytes), expected one of `bump`, `close`"
        );
    }

    #[test]
    fn a_backquote_inside_a_long_name_does_not_close_it() {
        let long = format!("x`{}", "y".repeat(1 << 20));
        let kept = bounded(&format!("unknown variant `{long}`, expected `bump`"));
        assert_eq!(kept, "unknown variant `…` (1048578 bytes), expected `bump`");
    }

    #[test]
    fn a_long_error_is_cut_on_a_character_boundary() {
        let error = "é".repeat(MAX_ERROR);
        let kept = bounded(&error);
        assert!(kept.len() < MAX_ERROR + 64, "{}", kept.len());
        assert!(kept.ends_with(&format!("(cut: {} bytes in all)", error.len())));
    }

    #[test]
    fn an_event_that_does_not_read_names_the_path_and_type_not_the_value() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[allow(dead_code)]
        enum Event {
            Bump(u32),
            Close,
        }
        let value = "x".repeat(1 << 20);
        let error = from_json::<Event>(&format!(r#"{{"bump": "{value}"}}"#)).unwrap_err();
        assert!(error.len() < 200, "{error}");
        assert!(
            error.starts_with("at `bump`: invalid type: string of 1048576 bytes, expected u32"),
            "{error}"
        );
        let error = from_json::<Event>(&format!(r#"{{"{value}": 1}}"#)).unwrap_err();
        assert!(
            error.contains("unknown variant `…` (1048576 bytes), expected `bump` or `close`"),
            "{error}"
        );
    }
}
