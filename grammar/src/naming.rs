//! How `.fsm` names become Rust identifiers. Code generation and the
//! `name-collision` check both use these functions, so they cannot disagree.
//!
//! Public so that whatever names generated code agrees with it too: the
//! `fsm!` macro, `fsm-codegen`, and a build script or tool that needs the
//! module a machine is generated in (`escape(&snake("Order"))` is `order`).

/// `waiting_input` → `WaitingInput`, `waitingInput` → `WaitingInput`,
/// `HTTP_ok` → `HTTPOk`. Names that would not start with a letter get a `V`
/// in front (`_1` → `V1`).
pub fn upper_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert(0, 'V');
    }
    out
}

/// `hasKey` → `has_key`, `HTTPServer` → `http_server`, `a__b` → `a_b`.
/// Names that would not start with a letter get a `v` in front (`_1` → `v_1`...
/// precisely: `1` → `v1`).
pub fn snake(name: &str) -> String {
    // The neighbours of each character, without a copy of the name as
    // `char`s (4 bytes each).
    let mut prev: Option<char> = None;
    let mut chars = name.chars().peekable();
    let mut out = String::with_capacity(name.len() + 4);
    while let Some(c) = chars.next() {
        let (before, next) = (prev.replace(c), chars.peek().copied());
        if c == '_' {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            continue;
        }
        if c.is_ascii_uppercase() {
            let boundary = match before {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert(0, 'v');
    }
    out
}

/// The items generated in a machine's module besides the machine type, so
/// no machine may be named like one of them (the `name-collision` check and
/// code generation both read this list, and a test of code generation
/// holds it to what every kind of machine generates). A machine with a
/// context, payloads or timers also gets `Event`, `Context`, `TimerFired`
/// and `TimerRejected`, one with nested states `Composite`, and one with
/// parallel states `Configuration`, `AnyState` and `Host`; they are reserved
/// for every machine, so adding a payload, a timer, a nested or a parallel
/// state never makes a machine's name invalid. A context or payload type
/// with one of these names is still the user's: code generation writes it
/// `super::Name`.
pub const MODULE_ITEMS: &[&str] = &[
    "State",
    "Action",
    "Output",
    "Event",
    "Guards",
    "Context",
    "Fired",
    "FireError",
    "TimerFired",
    "TimerRejected",
    "Composite",
    "Configuration",
    "AnyState",
    "Host",
];

/// What the module item `name` (one of [`MODULE_ITEMS`]) is: `enum`,
/// `trait`, `struct` or `type alias`.
pub fn module_item_kind(name: &str) -> &'static str {
    match name {
        "State" | "Action" | "Output" | "Event" | "Composite" | "AnyState" => "enum",
        "Guards" | "Context" => "trait",
        "Configuration" | "Host" => "struct",
        _ => "type alias",
    }
}

/// The methods of the `Configuration` generated for a machine with parallel
/// states besides one per region, so no region may be named like one of
/// them (the `name-collision` check and code generation both read this
/// list). A region named `top` would also clash with the type `Top` of the
/// slot outside every parallel state.
pub const CONFIGURATION_METHODS: &[&str] = &["top", "leaves", "is_in"];

/// The associated items generated on every `State`, `Action` and `Output`
/// enum whose names a variant could take, so no state, action or output may
/// become a variant named like one of them: `State::ALL` would mean the
/// variant, not the list of every state (the `name-collision` check and code
/// generation both read this list).
pub const ENUM_ITEMS: &[&str] = &["ALL"];

/// Rust keywords (strict and reserved, all editions).
pub const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try", "typeof",
    "unsized", "virtual", "yield",
];

/// Keywords that cannot even be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super"];

/// `ident` as it must be written in Rust source: `r#match` for keywords,
/// `self_` for the few keywords that cannot be raw.
pub fn escape(ident: &str) -> String {
    escape_owned(ident.to_string())
}

/// [`escape`] of an owned identifier: one that needs no escape is returned
/// as it is, without a copy.
pub fn escape_owned(ident: String) -> String {
    if NOT_RAW.contains(&ident.as_str()) {
        format!("{ident}_")
    } else if RUST_KEYWORDS.contains(&ident.as_str()) {
        format!("r#{ident}")
    } else {
        ident
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case() {
        assert_eq!(upper_camel("waiting_input"), "WaitingInput");
        assert_eq!(upper_camel("waiting__input"), "WaitingInput");
        assert_eq!(upper_camel("waitingInput"), "WaitingInput");
        assert_eq!(upper_camel("type"), "Type");
        assert_eq!(upper_camel("_"), "V");
        assert_eq!(upper_camel("_1"), "V1");
    }

    #[test]
    fn snake_case() {
        assert_eq!(snake("hasKey"), "has_key");
        assert_eq!(snake("has_key"), "has_key");
        assert_eq!(snake("HTTPServer"), "http_server");
        assert_eq!(snake("Agent"), "agent");
        assert_eq!(snake("a__b"), "a_b");
        assert_eq!(snake("_x"), "x");
        assert_eq!(snake("_1"), "v1");
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(escape("match"), "r#match");
        assert_eq!(escape("self"), "self_");
        assert_eq!(escape("door"), "door");
    }
}
