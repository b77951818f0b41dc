//! An ordered JSON value that keeps what `serde_json::Value` loses.
//!
//! Objects are lists of members in document order, and a key written twice is
//! kept twice, so the importer can report the duplicate instead of silently
//! keeping the last one. The exporter builds the same type and prints it with
//! [`JsonValue::to_pretty_string`], which keeps declaration order without
//! turning on serde_json's `preserve_order` for the whole workspace.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// How deep [`JsonValue::parse`] reads arrays and objects: the outermost is
/// at depth 1. A machine document with states nested
/// [`crate::MAX_STATE_DEPTH`] levels deep is about 70 levels deep, and
/// serde_json refuses more than 127 ("recursion limit exceeded", with no
/// path); past this depth a container is checked but not kept, so the reader
/// can report the problem where it is.
pub(crate) const MAX_JSON_DEPTH: usize = 100;

/// A JSON value whose objects keep member order and duplicate keys.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum JsonValue {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it (integer or float).
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<JsonValue>),
    /// An object: its members in document order, duplicates included.
    Object(Vec<(String, JsonValue)>),
    /// An array or object nested deeper than [`MAX_JSON_DEPTH`]: well formed,
    /// but not read. Never built by the exporter.
    TooDeep,
}

impl JsonValue {
    /// Parse JSON text. Arrays and objects nested deeper than
    /// [`MAX_JSON_DEPTH`] become [`JsonValue::TooDeep`]: serde_json checks
    /// them without recursion (its `deserialize_ignored_any` keeps a stack of
    /// one byte per level), so neither the stack nor the value grows with
    /// the document's depth, and no depth is a "recursion limit exceeded".
    pub(crate) fn parse(text: &str) -> Result<JsonValue, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let value = Seed { depth: 0 }.deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(value)
    }

    /// A string value.
    pub(crate) fn string(text: impl Into<String>) -> JsonValue {
        JsonValue::String(text.into())
    }

    /// An array of strings.
    pub(crate) fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> JsonValue {
        JsonValue::Array(items.into_iter().map(JsonValue::string).collect())
    }

    /// What kind of value this is, for messages: "a string", "an object".
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            JsonValue::Null => "null",
            JsonValue::Bool(_) => "a boolean",
            JsonValue::Number(_) => "a number",
            JsonValue::String(_) => "a string",
            JsonValue::Array(_) => "an array",
            JsonValue::Object(_) => "an object",
            JsonValue::TooDeep => "an array or object nested too deep",
        }
    }

    /// The text, two spaces per level like `execution_fsm_v1.json` documents. Objects take
    /// one member per line; arrays of scalars stay on one line
    /// (`["a", "b"]`), other arrays take one element per line. Ends with a
    /// newline.
    pub(crate) fn to_pretty_string(&self) -> String {
        let mut out = String::new();
        self.write_pretty(0, &mut out);
        out.push('\n');
        out
    }

    fn is_scalar(&self) -> bool {
        !matches!(self, JsonValue::Array(_) | JsonValue::Object(_))
    }

    fn write_pretty(&self, depth: usize, out: &mut String) {
        let indent = |depth: usize, out: &mut String| out.extend(std::iter::repeat_n("  ", depth));
        match self {
            // The exporter never builds one; `null` keeps the text JSON.
            JsonValue::Null | JsonValue::TooDeep => out.push_str("null"),
            JsonValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsonValue::Number(n) => out.push_str(&n.to_string()),
            JsonValue::String(s) => write_string(s, out),
            JsonValue::Array(items) if items.iter().all(JsonValue::is_scalar) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_pretty(depth, out);
                }
                out.push(']');
            }
            JsonValue::Array(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    indent(depth + 1, out);
                    item.write_pretty(depth + 1, out);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                indent(depth, out);
                out.push(']');
            }
            JsonValue::Object(members) if members.is_empty() => out.push_str("{}"),
            JsonValue::Object(members) => {
                out.push_str("{\n");
                for (i, (key, value)) in members.iter().enumerate() {
                    indent(depth + 1, out);
                    write_string(key, out);
                    out.push_str(": ");
                    value.write_pretty(depth + 1, out);
                    out.push_str(if i + 1 < members.len() { ",\n" } else { "\n" });
                }
                indent(depth, out);
                out.push('}');
            }
        }
    }
}

/// A JSON string literal, escaped as serde_json escapes it.
fn write_string(s: &str, out: &mut String) {
    out.push_str(&serde_json::Value::from(s).to_string());
}

/// Reads a value whose containers are at `depth + 1`.
#[derive(Clone, Copy)]
struct Seed {
    /// How many arrays and objects hold the value.
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = JsonValue;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<JsonValue, D::Error> {
        deserializer.deserialize_any(JsonValueVisitor { depth: self.depth })
    }
}

/// Builds the value that holds `depth` containers.
struct JsonValueVisitor {
    depth: usize,
}

impl JsonValueVisitor {
    /// What reads the elements of a container: a [`Seed`] one level down,
    /// or `None` when they would be past [`MAX_JSON_DEPTH`].
    fn inner(&self) -> Option<Seed> {
        (self.depth < MAX_JSON_DEPTH).then_some(Seed {
            depth: self.depth + 1,
        })
    }
}

impl<'de> Visitor<'de> for JsonValueVisitor {
    type Value = JsonValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<JsonValue, E> {
        Ok(JsonValue::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<JsonValue, E> {
        Ok(JsonValue::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<JsonValue, E> {
        Ok(JsonValue::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<JsonValue, E> {
        // JSON text cannot spell NaN or infinity, so this is always `Some`.
        Ok(serde_json::Number::from_f64(v).map_or(JsonValue::Null, JsonValue::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<JsonValue, E> {
        Ok(JsonValue::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<JsonValue, E> {
        Ok(JsonValue::String(v))
    }

    fn visit_unit<E>(self) -> Result<JsonValue, E> {
        Ok(JsonValue::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonValue, A::Error> {
        let Some(inner) = self.inner() else {
            // Checked for well-formedness, iteratively, and dropped.
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(JsonValue::TooDeep);
        };
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        // Documents are mostly small objects: no growth slack in each.
        items.shrink_to_fit();
        Ok(JsonValue::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonValue, A::Error> {
        let Some(inner) = self.inner() else {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(JsonValue::TooDeep);
        };
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(inner)?;
            members.push((key, value));
        }
        members.shrink_to_fit();
        Ok(JsonValue::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::JsonValue;

    #[test]
    fn keeps_member_order_and_duplicate_keys() {
        let value = JsonValue::parse(r#"{"b": 1, "a": [true, null], "b": "x"}"#).unwrap();
        let JsonValue::Object(members) = value else {
            panic!("an object");
        };
        let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "b"]);
        assert_eq!(members[2].1, JsonValue::string("x"));
    }

    #[test]
    fn pretty_printing_keeps_scalar_arrays_on_one_line() {
        let value = JsonValue::Object(vec![
            ("id".into(), JsonValue::string("a\"b")),
            ("list".into(), JsonValue::strings(["x", "y"])),
            ("empty".into(), JsonValue::Object(Vec::new())),
            (
                "nested".into(),
                JsonValue::Array(vec![JsonValue::Object(vec![(
                    "n".into(),
                    JsonValue::Number(1.into()),
                )])]),
            ),
        ]);
        assert_eq!(
            value.to_pretty_string(),
            "{\n  \"id\": \"a\\\"b\",\n  \"list\": [\"x\", \"y\"],\n  \"empty\": {},\n  \"nested\": [\n    {\n      \"n\": 1\n    }\n  ]\n}\n"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(10_000);
        assert!(JsonValue::parse(&text).is_err());
    }

    #[test]
    fn containers_past_the_depth_limit_are_checked_but_not_kept() {
        use super::MAX_JSON_DEPTH;
        // The deepest kept container, and the first one that is not.
        let nested =
            |depth: usize, inner: &str| format!("{}{inner}{}", "[".repeat(depth - 1), "]".repeat(depth - 1));
        let mut value = JsonValue::parse(&nested(MAX_JSON_DEPTH, "[1]")).unwrap();
        for _ in 1..MAX_JSON_DEPTH {
            let JsonValue::Array(mut items) = value else {
                panic!("an array: {value:?}");
            };
            value = items.pop().unwrap();
        }
        assert_eq!(value, JsonValue::Array(vec![JsonValue::Number(1.into())]));
        let value = JsonValue::parse(&nested(MAX_JSON_DEPTH + 1, "{\"a\": [1]}")).unwrap();
        assert!(format!("{value:?}").contains("TooDeep"), "{value:?}");
        // A million levels: no recursion limit, no stack overflow.
        let deep = nested(1_000_000, "{}");
        assert!(JsonValue::parse(&deep).is_ok());
        // Past the limit the text is still checked.
        for bad in ["[1 2]", "{\"a\" 1}", "[1,]", "{\"a\": tru}"] {
            assert!(
                JsonValue::parse(&nested(MAX_JSON_DEPTH + 5, bad)).is_err(),
                "{bad}"
            );
        }
        assert!(JsonValue::parse("[] []").is_err(), "trailing characters");
    }
}
