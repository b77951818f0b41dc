//! The tools a decision may call, and a fake finance set of them.

use crate::decision::Arguments;
use std::collections::BTreeMap;
use std::fmt;

/// A tool: arguments in, a result or an error out.
pub type Tool = fn(&Arguments) -> Result<String, ToolError>;

/// A tool's failure, reported back to the model as the call's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError(pub String);

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolError {}

/// The tools by name. A decision naming a tool
/// that is not here is not a tool call (the model hallucinated it).
#[derive(Clone, Debug, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Tool>,
}

impl ToolRegistry {
    /// A registry without tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fake finance tools with fixed data: `get_stock_price(ticker)` and
    /// `get_exchange_rate(from, to)`.
    pub fn finance() -> Self {
        let mut registry = Self::new();
        registry.register("get_stock_price", stock_price);
        registry.register("get_exchange_rate", exchange_rate);
        registry
    }

    /// Add `tool` under `name`, replacing any tool of that name.
    pub fn register(&mut self, name: &str, tool: Tool) -> &mut Self {
        self.tools.insert(name.to_owned(), tool);
        self
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<Tool> {
        self.tools.get(name).copied()
    }

    /// True when a tool is called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }
}

fn argument<'a>(arguments: &'a Arguments, name: &str) -> Result<&'a str, ToolError> {
    arguments
        .get(name)
        .map(String::as_str)
        .ok_or_else(|| ToolError(format!("missing argument `{name}`")))
}

fn stock_price(arguments: &Arguments) -> Result<String, ToolError> {
    let ticker = argument(arguments, "ticker")?;
    let price = match ticker {
        "AAPL" => "189.98",
        "MSFT" => "415.50",
        "NVDA" => "121.40",
        _ => return Err(ToolError(format!("unknown ticker `{ticker}`"))),
    };
    Ok(format!("{ticker} trades at {price} USD"))
}

fn exchange_rate(arguments: &Arguments) -> Result<String, ToolError> {
    let from = argument(arguments, "from")?;
    let to = argument(arguments, "to")?;
    let rate = match (from, to) {
        ("USD", "EUR") => "0.92",
        ("EUR", "USD") => "1.09",
        ("USD", "BRL") => "5.43",
        _ => return Err(ToolError(format!("no rate for {from}/{to}"))),
    };
    Ok(format!("1 {from} = {rate} {to}"))
}
