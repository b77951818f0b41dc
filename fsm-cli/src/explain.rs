//! `fsmc explain`: print the documentation of a diagnostic code, as
//! `rustc --explain` does, so an installed `fsmc` carries its own.
//!
//! The text is `explain.md` beside this file, one `## code` section per
//! code in the order of [`Code::ALL`]. It is the source of truth:
//! `docs/diagnostics.md` repeats it after its introduction, and
//! `tests/docs.rs` fails when the two differ. Sections are markdown, printed
//! as plain text: code blocks indented, links reduced to their text.

use crate::check::parse_code;
use crate::console;
use crate::exit::Exit;
use clap::Args;
use fsm_grammar::{Code, Severity};

/// Every code's documentation, in markdown.
const CATALOGUE: &str = include_str!("explain.md");

/// Arguments of `fsmc explain`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Each code's text says what the diagnostic means, shows an example that reports it, and how to \
fix it. Reports name the code after `fsm::` (`fsm::unknown-state`); either form is accepted here.

Exit status:
  0  the documentation was printed
  2  the code is unknown")]
pub struct ExplainArgs {
    /// The diagnostic code, e.g. `unknown-state`. Without it, the codes are listed.
    #[arg(value_name = "CODE", conflicts_with = "list")]
    code: Option<String>,

    /// List every code with its severity and a one-line summary.
    #[arg(long)]
    list: bool,
}

/// Print a code's documentation, or the list of codes.
pub fn run(args: &ExplainArgs) -> Exit {
    let Some(text) = &args.code else {
        console::stdout(&list(width()));
        return Exit::Clean;
    };
    match parse_code(text) {
        Ok(code) => {
            console::stdout(&explain(code, width()));
            Exit::Clean
        }
        Err(message) => {
            console::error(message);
            Exit::Trouble
        }
    }
}

/// The markdown section of `code`, without its heading.
fn section(code: Code) -> &'static str {
    let heading = format!("## {}\n", code.name());
    let start = if CATALOGUE.starts_with(&heading) {
        heading.len()
    } else {
        CATALOGUE
            .find(&format!("\n{heading}"))
            .map(|at| at + 1 + heading.len())
            // A test checks that every code has its section.
            .unwrap_or(CATALOGUE.len())
    };
    let body = &CATALOGUE[start..];
    let end = body.find("\n## ").map_or(body.len(), |at| at + 1);
    body[..end].trim_matches('\n')
}

/// The column the text of `fsmc explain` is wrapped at, at most.
const MAX_WIDTH: usize = 80;

/// The width to wrap at: the terminal's, up to [`MAX_WIDTH`], which is also
/// the width when stdout is not a terminal.
fn width() -> usize {
    terminal_size::terminal_size_of(std::io::stdout())
        .map_or(MAX_WIDTH, |(terminal_size::Width(w), _)| usize::from(w))
        .clamp(40, MAX_WIDTH)
}

/// The documentation of `code` as terminal text: the code as reports show
/// it, then its section.
fn explain(code: Code, width: usize) -> String {
    format!("fsm::{code}\n\n{}", render(section(code), width))
}

/// The codes, grouped by severity, each with the first sentence of its
/// section.
fn list(width: usize) -> String {
    let name_width = Code::ALL.iter().map(|code| code.name().len()).max().unwrap_or(0);
    let hanging = " ".repeat(name_width + 4);
    let mut out = String::new();
    for (severity, title) in [(Severity::Error, "Errors"), (Severity::Warning, "Warnings")] {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("{title}:\n"));
        for code in Code::ALL
            .iter()
            .filter(|code| code.default_severity() == severity)
        {
            let first = format!("  {:name_width$}  ", code.name());
            let options = wrap_options(width)
                .initial_indent(&first)
                .subsequent_indent(&hanging);
            out.push_str(&textwrap::fill(&summary(*code), options));
            out.push('\n');
        }
    }
    out.push_str("\nRun `fsmc explain CODE` for a code's explanation, an example and the fix.\n");
    out
}

/// The first sentence of a code's section, after its severity.
fn summary(code: Code) -> String {
    let paragraph = section(code).split("\n\n").next().unwrap_or_default();
    let text = inline(&paragraph.split_whitespace().collect::<Vec<_>>().join(" "));
    let text = text
        .strip_prefix("Error. ")
        .or_else(|| text.strip_prefix("Warning. "))
        .unwrap_or(&text);
    match text.find(". ") {
        Some(end) => text[..=end].to_string(),
        None => text.to_string(),
    }
}

/// Wrapping at `width` that never splits a word, at a hyphen or elsewhere:
/// codes and names stay whole.
fn wrap_options(width: usize) -> textwrap::Options<'static> {
    textwrap::Options::new(width)
        .break_words(false)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
}

/// Markdown as plain terminal text, wrapped at `width`. It knows what the
/// catalogue uses: paragraphs and list items are reflowed, fenced code
/// blocks lose their fences and are indented four spaces (never wrapped),
/// `**bold**` loses its stars, links keep only their text, HTML anchors
/// disappear. Inline code keeps its backticks, which read well in a
/// terminal.
fn render(markdown: &str, width: usize) -> String {
    let mut out = String::with_capacity(markdown.len() + markdown.len() / 8);
    // The prose block being gathered: its text so far, and whether it is a
    // list item.
    let mut block: Option<(String, bool)> = None;
    let flush = |block: &mut Option<(String, bool)>, out: &mut String| {
        let Some((text, is_item)) = block.take() else {
            return;
        };
        let text = inline(&text);
        let text = text.trim();
        if text.is_empty() {
            // A block that held only an anchor leaves nothing behind.
            return;
        }
        let options = if is_item {
            wrap_options(width).initial_indent("- ").subsequent_indent("  ")
        } else {
            wrap_options(width)
        };
        out.push_str(&textwrap::fill(text, options));
        out.push('\n');
    };
    let mut in_code = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            flush(&mut block, &mut out);
            in_code = !in_code;
            continue;
        }
        if in_code {
            if !line.is_empty() {
                out.push_str("    ");
                out.push_str(line);
            }
            out.push('\n');
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            flush(&mut block, &mut out);
            // One blank line between blocks, however many the source has.
            if !out.is_empty() && !out.ends_with("\n\n") {
                out.push('\n');
            }
            continue;
        }
        match (&mut block, trimmed.strip_prefix("- ")) {
            (_, Some(item)) => {
                flush(&mut block, &mut out);
                block = Some((item.to_string(), true));
            }
            (Some((text, _)), None) => {
                text.push(' ');
                text.push_str(trimmed);
            }
            (None, None) => block = Some((trimmed.to_string(), false)),
        }
    }
    flush(&mut block, &mut out);
    out
}

/// One line of prose: links reduced to their text, bold markers and HTML
/// anchors removed, inline code left as it is.
fn inline(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            // Inline code, copied whole: `[a]` in it is not a link.
            let end = rest[1..].find('`').map_or(rest.len(), |at| at + 2);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else if let Some(after) = rest.strip_prefix("**") {
            rest = after;
        } else if let Some((text, after)) = link(rest) {
            out.push_str(&inline(text));
            rest = after;
        } else if let Some(after) = anchor(rest) {
            rest = after;
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// A `[text](target)` at the start of `text`: the link's text and what
/// follows the link.
fn link(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('[')?;
    let close = inner.find("](")?;
    // The link text ends at the first `](`; a `]` before it means this
    // `[` opened something else.
    if inner[..close].contains(']') {
        return None;
    }
    let target_end = inner[close + 2..].find(')')?;
    Some((&inner[..close], &inner[close + 2 + target_end + 1..]))
}

/// An HTML anchor (`<a id="..."></a>`) at the start of `text`: what follows it.
fn anchor(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("<a ")?;
    let end = rest.find("</a>")?;
    Some(&rest[end + "</a>".len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_one_section_in_catalogue_order() {
        let headings: Vec<&str> = CATALOGUE
            .lines()
            .filter_map(|line| line.strip_prefix("## "))
            .collect();
        let codes: Vec<&str> = Code::ALL.iter().map(|code| code.name()).collect();
        assert_eq!(
            headings, codes,
            "explain.md has one `## code` section per code, in order"
        );
    }

    #[test]
    fn every_section_renders_without_markup() {
        for &code in Code::ALL {
            let text = explain(code, MAX_WIDTH);
            assert!(text.starts_with(&format!("fsm::{code}\n\n")), "{text}");
            let severity = match code.default_severity() {
                Severity::Error => "Error. ",
                Severity::Warning => "Warning. ",
            };
            assert!(
                text.lines().nth(2).is_some_and(|line| line.starts_with(severity)),
                "{text}"
            );
            for markup in ["```", "](", "**", "<a ", "</a>", "\n## "] {
                assert!(
                    !text.contains(markup),
                    "`{markup}` left in the text of {code}:\n{text}"
                );
            }
            assert!(text.contains("Fix:"), "{code} says how to fix it:\n{text}");
            assert_eq!(text.matches("Fix:").count(), 1, "{code} stops at its own section");
        }
    }

    #[test]
    fn code_blocks_are_indented_and_links_keep_their_text() {
        let text = explain(Code::UnknownState, MAX_WIDTH);
        assert!(
            text.contains("\n    machine Door {\n        initial state closed { on open -> opend; }\n"),
            "{text}"
        );
        assert_eq!(
            render(
                "see [Decisions](dsl.md#decisions), [`dead-end`](#dead-end).",
                MAX_WIDTH
            ),
            "see Decisions, `dead-end`.\n"
        );
        assert_eq!(
            render("`[a]` and `[!a](x)` **Fix:**", MAX_WIDTH),
            "`[a]` and `[!a](x)` Fix:\n"
        );
        assert_eq!(render("<a id=\"x\"></a>\n**Limits**", MAX_WIDTH), "Limits\n");
    }

    #[test]
    fn the_list_names_every_code_with_its_first_sentence() {
        let list = list(MAX_WIDTH);
        for &code in Code::ALL {
            assert!(list.contains(&format!("  {code} ")), "{list}");
        }
        assert!(
            list.contains("  multiple-initial          More than one state is marked `initial`.\n"),
            "{list}"
        );
        // Long summaries wrap under their column.
        assert!(
            list.contains(
                "  unknown-state             A transition targets a state the machine does not\n\
                 \x20                           define, or an `in(...)` guard tests one.\n"
            ),
            "{list}"
        );
        assert!(
            list.lines().all(|line| line.chars().count() <= MAX_WIDTH),
            "{list}"
        );
        let errors = list.find("Errors:").unwrap();
        let warnings = list.find("Warnings:").unwrap();
        assert!(errors < list.find("  syntax ").unwrap());
        assert!(warnings < list.find("  dead-end ").unwrap());
        assert!(warnings > list.find("  name-collision ").unwrap());
    }
}
