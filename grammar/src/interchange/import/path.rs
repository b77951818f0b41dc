//! JSON paths: where in the document a problem is, `$.states.idle.on.start.to`.

use std::fmt;
use std::sync::Arc;

/// A path from the document root, written like JSONPath: `$`, then `.key`
/// for keys that are identifiers, `["key"]` for other keys, `[i]` for
/// array indices.
///
/// Every name read from a document keeps the path it was read at, so a path
/// is a shared list: extending one allocates its last segment only, and a
/// clone allocates nothing, however long the keys before it are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct JsonPath(Option<Arc<Node>>);

#[derive(Debug, PartialEq, Eq)]
struct Node {
    parent: JsonPath,
    segment: Segment,
}

#[derive(Debug, PartialEq, Eq)]
enum Segment {
    /// A key, and whether it is an identifier (written after a dot): found
    /// once, as a key may be long and its path written many times.
    Key(Box<str>, bool),
    Index(usize),
}

impl JsonPath {
    /// `$`.
    pub(crate) fn root() -> JsonPath {
        JsonPath::default()
    }

    /// This path followed by the member `key`.
    pub(crate) fn key(&self, key: &str) -> JsonPath {
        self.then(Segment::Key(key.into(), is_plain(key)))
    }

    /// This path followed by the element `index`.
    pub(crate) fn index(&self, index: usize) -> JsonPath {
        self.then(Segment::Index(index))
    }

    fn then(&self, segment: Segment) -> JsonPath {
        JsonPath(Some(Arc::new(Node {
            parent: self.clone(),
            segment,
        })))
    }

    /// The path this one extends; `None` for `$`.
    pub(crate) fn parent(&self) -> Option<JsonPath> {
        self.0.as_ref().map(|node| node.parent.clone())
    }

    /// The segments from the root.
    fn segments(&self) -> Vec<&Segment> {
        let mut out = Vec::new();
        let mut at = self;
        while let Some(node) = &at.0 {
            out.push(&node.segment);
            at = &node.parent;
        }
        out.reverse();
        out
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        for segment in self.segments() {
            match segment {
                Segment::Key(key, true) => write!(f, ".{}", crate::elide::name(key))?,
                Segment::Key(key, false) => {
                    write!(f, "[{}]", serde_json::Value::from(&*crate::elide::name(key)))?
                }
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// A key that can be written after a dot: an identifier.
fn is_plain(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::JsonPath;

    #[test]
    fn paths_read_like_jsonpath() {
        let root = JsonPath::root();
        assert_eq!(root.to_string(), "$");
        let path = root
            .key("states")
            .key("idle")
            .key("on")
            .key("start")
            .index(1)
            .key("to");
        assert_eq!(path.to_string(), "$.states.idle.on.start[1].to");
        assert_eq!(
            root.index(0).key("fsm.transition").to_string(),
            "$[0][\"fsm.transition\"]"
        );
        assert_eq!(root.key("a \"b\"").to_string(), "$[\"a \\\"b\\\"\"]");
    }
}
