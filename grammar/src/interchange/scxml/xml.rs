//! A small XML writer: elements with attributes, indented two spaces,
//! every value escaped.

/// Writes one document; elements are opened and closed in order.
pub(super) struct XmlWriter {
    out: String,
    /// The names of the open elements.
    open: Vec<&'static str>,
    /// The last start tag is not closed yet (`<state id="a"`), so it can
    /// still become `<state id="a"/>`.
    pending: bool,
}

impl XmlWriter {
    pub(super) fn new() -> XmlWriter {
        XmlWriter {
            out: String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"),
            open: Vec::new(),
            pending: false,
        }
    }

    fn close_pending(&mut self) {
        if std::mem::take(&mut self.pending) {
            self.out.push_str(">\n");
        }
    }

    fn indent(&mut self) {
        for _ in 0..self.open.len() {
            self.out.push_str("  ");
        }
    }

    /// Start an element; attributes follow with [`XmlWriter::attr`].
    pub(super) fn open(&mut self, name: &'static str) {
        self.close_pending();
        self.indent();
        self.out.push('<');
        self.out.push_str(name);
        self.open.push(name);
        self.pending = true;
    }

    /// An attribute of the element just opened.
    pub(super) fn attr(&mut self, name: &str, value: &str) {
        debug_assert!(self.pending, "attributes follow the start tag");
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        escape_into(value, &mut self.out);
        self.out.push('"');
    }

    /// [`XmlWriter::attr`] when there is a value.
    pub(super) fn attr_some(&mut self, name: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.attr(name, value);
        }
    }

    /// End the innermost open element (`/>` when it has no content).
    pub(super) fn close(&mut self) {
        let name = self.open.pop().expect("close matches an open");
        if std::mem::take(&mut self.pending) {
            self.out.push_str("/>\n");
        } else {
            self.indent();
            self.out.push_str("</");
            self.out.push_str(name);
            self.out.push_str(">\n");
        }
    }

    /// An XML comment on a line of its own. `--` cannot occur in a comment,
    /// so it is written `- -`.
    pub(super) fn comment(&mut self, text: &str) {
        self.close_pending();
        self.indent();
        self.out.push_str("<!-- ");
        let mut text = text.replace("--", "- -");
        if text.ends_with('-') {
            text.push(' ');
        }
        self.out.push_str(&text);
        self.out.push_str(" -->\n");
    }

    pub(super) fn finish(mut self) -> String {
        while !self.open.is_empty() {
            self.close();
        }
        self.out
    }
}

/// Escape an attribute value: markup characters as entities, and the
/// whitespace an XML reader would otherwise normalize to spaces (newlines,
/// tabs) as character references, so that values read back exactly.
fn escape_into(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::XmlWriter;

    #[test]
    fn values_are_escaped_and_read_back_exactly() {
        let mut w = XmlWriter::new();
        w.open("a");
        let value = "x < y && \"q\"\n\ttab > '";
        w.attr("v", value);
        w.open("b");
        w.close();
        w.comment("a -- b-");
        let text = w.finish();
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().attribute("v"), Some(value));
        assert!(text.contains("<!-- a - - b-  -->"), "{text}");
    }
}
