//! The structured decision the model returns at each routing step.

use std::collections::BTreeMap;
use std::fmt;

/// A tool call's arguments, by name, in name order.
pub type Arguments = BTreeMap<String, String>;

/// The model's decision, as the JSON it must answer with:
/// `{"call_tool": true, "tool_name": "get_stock_price", "arguments": {"ticker": "AAPL"}, "ready_to_answer": false}`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// The model wants to call a tool.
    pub call_tool: bool,
    /// Which tool.
    pub tool_name: Option<String>,
    /// The tool's arguments.
    pub arguments: Arguments,
    /// The model has what it needs and will answer.
    pub ready_to_answer: bool,
}

impl Decision {
    /// Call `tool` with `arguments` (name, value pairs).
    pub fn call(tool: &str, arguments: &[(&str, &str)]) -> Self {
        Decision {
            call_tool: true,
            tool_name: Some(tool.to_owned()),
            arguments: arguments
                .iter()
                .map(|&(name, value)| (name.to_owned(), value.to_owned()))
                .collect(),
            ready_to_answer: false,
        }
    }

    /// Ready to answer.
    pub fn answer() -> Self {
        Decision {
            ready_to_answer: true,
            ..Decision::default()
        }
    }

    /// Neither a tool call nor an answer: an ambiguous decision.
    pub fn undecided() -> Self {
        Decision::default()
    }
}

/// `call get_stock_price(ticker=AAPL)`, `answer`, `undecided`.
impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ready_to_answer {
            f.write_str("answer")?;
            if self.call_tool {
                f.write_str(" (and call a tool)")?;
            }
            return Ok(());
        }
        if !self.call_tool {
            return f.write_str("undecided");
        }
        write!(f, "call {}(", self.tool_name.as_deref().unwrap_or("<no tool>"))?;
        for (i, (name, value)) in self.arguments.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name}={value}")?;
        }
        f.write_str(")")
    }
}
