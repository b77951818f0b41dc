//! JSON as fsmc reads its files: as `serde_json` reads it, except that an
//! object giving a key twice is an error naming the key.
//!
//! `serde_json::Value` keeps the last of two values for one key, so
//! `{"version": 1, "version": 5}` would read as version 5 and a file edited
//! by hand, or written by two careless writers, would load as something no
//! one wrote. Every reader of a store file, a snapshot or a history record
//! goes through [`from_str`] or [`from_slice`] instead ([`FileStore`] and
//! `fsmc history`), then reads its typed values from the [`Value`].
//!
//! [`FileStore`]: crate::FileStore
//!
//! ```
//! let error = fsm_store::json::from_str(r#"{"version": 1, "version": 5}"#).unwrap_err();
//! assert_eq!(error.to_string(), "duplicate key `version` at line 1 column 24");
//! assert!(error.is_data());
//!
//! let value = fsm_store::json::from_str(r#"{"version": 1, "snapshot": {"type": "fsm"}}"#)?;
//! assert_eq!(value["snapshot"]["type"], "fsm");
//! # Ok::<(), serde_json::Error>(())
//! ```

use fsm_runtime::__private::Shortened;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// The JSON value of `text`, refusing an object that gives a key twice, at
/// any depth.
///
/// # Errors
///
/// What [`serde_json::from_str`] refuses, and a duplicate key: a data error
/// ([`serde_json::Error::is_data`]) that says ``duplicate key `name` `` and
/// where the second one is.
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str::<UniqueKeys>(text).map(|unique| unique.0)
}

/// [`from_str`] for bytes, which must be UTF-8.
///
/// # Errors
///
/// As [`from_str`], and bytes that are not UTF-8.
pub fn from_slice(bytes: &[u8]) -> serde_json::Result<Value> {
    serde_json::from_slice::<UniqueKeys>(bytes).map(|unique| unique.0)
}

/// A [`Value`] read by a deserializer that refuses duplicate keys.
struct UniqueKeys(Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueKeysVisitor).map(UniqueKeys)
    }
}

/// Builds the [`Value`] `serde_json`'s own visitor would, checking each
/// object's keys as they come. serde_json's recursion limit still applies,
/// since it is the deserializer that counts the depth.
struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        // As serde_json: a float JSON cannot hold is null.
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        UniqueKeys::deserialize(deserializer).map(|unique| unique.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // Refused before its value is read, so the position given is the
            // second key's.
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key `{}`",
                    Shortened(&key)
                )));
            }
            let UniqueKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::{from_slice, from_str};
    use serde_json::json;

    #[test]
    fn reads_what_serde_json_reads() {
        let text = r#"{"a": [1, -2, 3.5, 18446744073709551615, true, null, "x\n"], "b": {"c": {}}, "d": []}"#;
        assert_eq!(
            from_str(text).unwrap(),
            serde_json::from_str::<serde_json::Value>(text).unwrap()
        );
        assert_eq!(from_slice(b" 7 ").unwrap(), json!(7));
        // The same key in different objects is no duplicate.
        assert_eq!(
            from_str(r#"[{"a": 1}, {"a": {"a": 2}}]"#).unwrap(),
            json!([{"a": 1}, {"a": {"a": 2}}])
        );
    }

    #[test]
    fn refuses_a_key_given_twice_at_any_depth() {
        let error = |text: &str| from_str(text).unwrap_err().to_string();
        assert_eq!(
            error(r#"{"version": 1, "version": 5}"#),
            "duplicate key `version` at line 1 column 24"
        );
        assert_eq!(
            error("{\"snapshot\": {\"history\": [{\"seq\": 0,\n \"seq\": 1}]}}"),
            "duplicate key `seq` at line 2 column 6"
        );
        // Keys compare after unescaping, as serde_json compares them.
        assert_eq!(
            error(r#"{"a": 1, "\u0061": 2}"#),
            "duplicate key `a` at line 1 column 17"
        );
        assert_eq!(
            error(&format!(r#"{{"{0}": 1, "{0}": 2}}"#, "k".repeat(100_000))),
            format!("duplicate key `{}…` at line 1 column 200010", "k".repeat(64))
        );
        assert_eq!(
            error(r#"{"a\nb": 1, "a\nb": 2}"#),
            "duplicate key `a\\nb` at line 1 column 18"
        );
        assert!(from_str(r#"{"a": 1, "a": 1}"#).unwrap_err().is_data());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = "[".repeat(100_000);
        assert!(from_str(&text)
            .unwrap_err()
            .to_string()
            .starts_with("recursion limit exceeded"));
    }
}
