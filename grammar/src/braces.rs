//! Unbalanced closing braces. One `}` too many closes its block early, and
//! the parser then reads everything after it at the wrong level: a machine
//! that ends halfway, states at the top of the file, a dozen errors and
//! warnings, none of them at the brace. As rustc does, the brace is found
//! before parsing from how the braces pair up and how they are indented,
//! reported once, with the `{` it closes as a secondary label, and blanked,
//! so the parser reads the file as if it were not there.

use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;

/// Most stray braces reported in one file; further ones are left to the
/// parser's own syntax errors.
const MAX_STRAY_BRACES: usize = 20;

/// Braces tried as the stray one for each `}` too many.
const CANDIDATES: usize = 6;

/// One `}` too many.
pub(crate) struct StrayBrace {
    /// Its offset.
    pub(crate) at: usize,
    /// The `{` it closes as the text is written, if any.
    pub(crate) opens: Option<usize>,
}

impl StrayBrace {
    /// The diagnostic of this brace.
    pub(crate) fn diagnostic(&self) -> Diagnostic {
        let diagnostic = Diagnostic::new(
            Code::Syntax,
            Span::new(self.at, self.at + 1),
            "unexpected `}`: there is one `}` more than `{`",
            "one `}` too many",
            "remove this `}`, or add the `{` it was meant to close; the rest of the file was read as if it were not there",
        );
        match self.opens {
            Some(open) => diagnostic.with_label(Span::new(open, open + 1), "it closes this `{` early"),
            None => diagnostic,
        }
    }
}

/// The `}` too many in `text`, in order, and the text with them blanked.
/// `parses(region)` says whether a region (whole machines, with a candidate
/// blanked) is free of syntax errors; it is asked at most a few times per
/// stray brace, about at most a few times the text's length in all.
pub(crate) fn strays(text: &str, mut parses: impl FnMut(&str) -> bool) -> (Vec<StrayBrace>, Option<String>) {
    let mut found = Vec::new();
    let mut buf: Option<String> = None;
    let mut from = 0;
    let mut budget = 4 * text.len() + 4096;
    while found.len() < MAX_STRAY_BRACES {
        let current = buf.as_deref().unwrap_or(text);
        let Some(unmatched) = first_unmatched(current, from) else {
            break;
        };
        let stray = choose(current, &unmatched, &mut parses, &mut budget);
        let buf = buf.get_or_insert_with(|| text.to_string());
        buf.replace_range(stray.at..stray.at + 1, " ");
        from = unmatched.region_start;
        found.push(stray);
    }
    (found, buf)
}

/// The first `}` from `from` on that closes no `{`, with the braces paired
/// before it since the last machine started.
struct Unmatched {
    /// The `}` itself.
    close: usize,
    /// Where the last machine before it starts (or `from`): the stray brace
    /// is between here and `close`.
    region_start: usize,
    /// The `{` and `}` pairs closed in the region, in the order of their `}`.
    pairs: Vec<(usize, usize)>,
}

fn first_unmatched(text: &str, from: usize) -> Option<Unmatched> {
    let bytes = text.as_bytes();
    let mut open: Vec<usize> = Vec::new();
    let mut pairs = Vec::new();
    let mut region_start = from;
    let mut segment_start = from;
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(text.len(), |n| i + n);
                continue;
            }
            b'{' => {
                if open.is_empty() && starts_a_machine(&text[segment_start..i]) {
                    region_start = segment_start;
                    pairs.clear();
                }
                open.push(i);
            }
            b'}' => match open.pop() {
                Some(o) => {
                    pairs.push((o, i));
                    if open.is_empty() {
                        segment_start = i + 1;
                    }
                }
                None => {
                    return Some(Unmatched {
                        close: i,
                        region_start,
                        pairs,
                    })
                }
            },
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether `text`, before a top-level `{`, is the head of a machine: its
/// first word outside comments and attributes is `machine`.
fn starts_a_machine(text: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.starts_with("//") {
            rest = rest.find('\n').map_or("", |n| &rest[n..]);
        } else if rest.starts_with('#') {
            match rest.find(']') {
                Some(n) => rest = &rest[n + 1..],
                None => return false,
            }
        } else {
            return rest.starts_with("machine")
                && !rest["machine".len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        }
    }
}

/// Which `}` of the region is the one too many. In formatted text, the first
/// `}` (alone on its line) indented unlike the line of the `{` it closes is
/// where the pairing went wrong: that brace, or one shortly before it, is
/// the stray. Two signs come before that one, since they point at the brace
/// itself: a `}` followed by a line indented deeper than itself (a block's
/// contents going on after its end, as when a `}` is typed just after the
/// `{`), and a `}` after code on its line that closes a `{` of an earlier
/// line. The candidates are tried in that order, and the first whose
/// removal leaves the region without syntax errors is taken; when none does
/// (the region has other errors too), the first candidate is.
fn choose(
    text: &str,
    unmatched: &Unmatched,
    parses: &mut impl FnMut(&str) -> bool,
    budget: &mut usize,
) -> StrayBrace {
    let Unmatched {
        close,
        region_start,
        ref pairs,
    } = *unmatched;
    let lines = Lines::new(text, region_start, close);
    let misindented = pairs
        .iter()
        .position(|&(o, c)| indentation(text, c).is_some_and(|ci| ci != lines.indentation(text, o)));
    let last = misindented.map_or(pairs.len(), |m| m + 1);
    let before = &pairs[..last];
    // The closing braces to try, each with the `{` it closes.
    let mut candidates: Vec<(usize, Option<usize>)> = Vec::new();
    let deeper = before
        .iter()
        .find(|&&(_, c)| followed_by_deeper_line(text, &lines, c, close));
    let trailing = before
        .iter()
        .find(|&&(o, c)| indentation(text, c).is_none() && lines.start(o) != lines.start(c));
    for &(o, c) in deeper.into_iter().chain(trailing) {
        if !candidates.contains(&(c, Some(o))) {
            candidates.push((c, Some(o)));
        }
    }
    // Then from the first misindented one (or the unmatched one) back to
    // the region's start.
    if misindented.is_none() {
        candidates.push((close, None));
    }
    let nearest: Vec<(usize, Option<usize>)> = before
        .iter()
        .rev()
        .map(|&(o, c)| (c, Some(o)))
        .filter(|candidate| !candidates.contains(candidate))
        .take(CANDIDATES.saturating_sub(candidates.len()))
        .collect();
    candidates.extend(nearest);
    let region = &text[region_start..=close];
    for &(at, opens) in &candidates {
        if *budget < region.len() {
            break;
        }
        *budget -= region.len();
        let mut trial = region.to_string();
        trial.replace_range(at - region_start..at - region_start + 1, " ");
        if parses(&trial) {
            return StrayBrace { at, opens };
        }
    }
    let (at, opens) = candidates[0];
    StrayBrace { at, opens }
}

/// Where the lines of a region start, so that the line of a brace is found
/// without scanning back along a line that may be the whole file.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    /// The starts of the lines that hold `text[from..to]`.
    fn new(text: &str, from: usize, to: usize) -> Self {
        let from = text[..from].rfind('\n').map_or(0, |i| i + 1);
        let mut starts = vec![from];
        starts.extend(text[from..to].match_indices('\n').map(|(i, _)| from + i + 1));
        Lines { starts }
    }

    /// The start of the line holding `pos`.
    fn start(&self, pos: usize) -> usize {
        self.starts[self.starts.partition_point(|&s| s <= pos).max(1) - 1]
    }

    /// The indentation of the line holding `pos`.
    fn indentation(&self, text: &str, pos: usize) -> usize {
        let line = &text[self.start(pos)..pos];
        width(&line[..line.len() - line.trim_start().len()])
    }
}

/// Whether the `}` at `pos` ends its line (but for a comment) and the next
/// line of code before `end` (comments and blank lines skipped) is indented
/// deeper than that line. Formatted text goes on at a block's level or
/// shallower once the block ends, so that `}` most likely closes nothing.
/// (Each such scan stops at the next line of code, so the scans of a
/// region's braces do not overlap.)
fn followed_by_deeper_line(text: &str, lines: &Lines, pos: usize, end: usize) -> bool {
    let rest = text[pos + 1..end].trim_start_matches(|c: char| c.is_whitespace() && c != '\n');
    if !(rest.starts_with('\n') || rest.starts_with("//")) {
        return false;
    }
    let brace = lines.indentation(text, pos);
    // The lines after the brace's own.
    let mut rest = rest.find('\n').map_or("", |n| &rest[n + 1..]);
    while !rest.is_empty() {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let code = line.trim_start();
        if !code.is_empty() && !code.starts_with("//") {
            return width(&line[..line.len() - code.len()]) > brace;
        }
        rest = after;
    }
    false
}

/// The indentation of the `}` at `pos` when it is the first thing on its
/// line. Only the whitespace before it is read, never the line before that.
fn indentation(text: &str, pos: usize) -> Option<usize> {
    let before = text[..pos].trim_end_matches(|c: char| c.is_whitespace() && c != '\n');
    (before.is_empty() || before.ends_with('\n')).then(|| width(&text[before.len()..pos]))
}

/// The width of leading whitespace, a tab counting four.
fn width(lead: &str) -> usize {
    lead.chars().map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stray braces found: each brace and the `{` it closes.
    fn found(text: &str, parses: impl FnMut(&str) -> bool) -> Vec<(usize, Option<usize>)> {
        strays(text, parses).0.iter().map(|s| (s.at, s.opens)).collect()
    }

    #[test]
    fn the_first_misindented_brace_is_the_stray() {
        let text = "machine M {\n    state a {\n        on x -> a;\n        }\n        on y -> a;\n    }\n    state b;\n}\n";
        let stray = text.find("        }").unwrap() + 8;
        let open = text.find("a {").unwrap() + 2;
        assert_eq!(found(text, |_| true), [(stray, Some(open))]);
    }

    #[test]
    fn a_stray_indented_like_its_block_is_found_by_parsing() {
        // The stray `}` is indented like `state a {`, so the first
        // misindented one is the real end of `a`; only without the stray
        // does the machine parse.
        // The line after it is not indented deeper either.
        let text = "machine M {\n    state a {\n        on x -> a;\n    }\n    on y -> a;\n    }\n}\n";
        let stray = text.find("    }").unwrap() + 4;
        let real = text.rfind("    }").unwrap() + 4;
        let open = text.find("a {").unwrap() + 2;
        let parses = |region: &str| !region.contains("a;\n    }\n    on y");
        assert_eq!(found(text, parses), [(stray, Some(open))]);
        // A parser that accepts nothing: the misindented brace is reported.
        assert_eq!(found(text, |_| false).len(), 1);
        assert_eq!(found(text, |_| false)[0].0, real);
    }

    #[test]
    fn a_brace_followed_by_a_deeper_line_is_tried_first() {
        // Every brace is indented like its `{`: the stray one is followed
        // by the contents of its block, indented deeper. (A parser that
        // accepts anything tells no candidate from another.)
        let text = "machine M {\n    state a {\n    } // here\n\n        // c\n        on x -> a;\n    }\n    state b { }\n}\n";
        let stray = text.find("    } // here").unwrap() + 4;
        let open = text.find("a {").unwrap() + 2;
        assert_eq!(found(text, |_| true), [(stray, Some(open))]);
        // On a line of its own, after `{ }`.
        let text = "machine M { }\n    state a;\n}\n";
        assert_eq!(found(text, |_| true), [(12, Some(10))]);
    }

    #[test]
    fn a_brace_after_code_that_closes_an_earlier_line_is_tried_first() {
        let text = "machine M {\n    action a; }\n    state s { on a -> s; }\n}\n";
        let stray = text.find("a; }").unwrap() + 3;
        assert_eq!(found(text, |_| true), [(stray, Some(10))]);
    }

    #[test]
    fn candidates_are_found_in_linear_time() {
        // One long line of pairs, and pairs whose `{` share one long line:
        // a brace's line is never scanned back from each brace.
        for text in [
            format!("machine M {{{}}}}}", "{}".repeat(200_000)),
            format!(
                "machine M {{\n{}\n{}}}",
                "{".repeat(200_000),
                "}\n".repeat(200_001)
            ),
        ] {
            let start = std::time::Instant::now();
            assert_eq!(found(&text, |_| false).len(), 1);
            assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
        }
    }

    #[test]
    fn without_indentation_the_unmatched_brace_is_tried_first() {
        let text = "machine M { state a { } } }";
        assert_eq!(found(text, |_| true), [(text.len() - 1, None)]);
    }

    #[test]
    fn balanced_text_has_no_stray() {
        assert!(found("machine M { state a { on x -> a; } } // }", |_| true).is_empty());
        assert!(found("", |_| true).is_empty());
        assert!(found("{{{", |_| true).is_empty());
    }

    #[test]
    fn at_most_a_bounded_number_are_reported() {
        let text = "}".repeat(10_000);
        let mut asked = 0;
        let (strays, buf) = strays(&text, |_| {
            asked += 1;
            false
        });
        assert_eq!(strays.len(), MAX_STRAY_BRACES);
        assert!(asked <= MAX_STRAY_BRACES * CANDIDATES);
        assert_eq!(buf.unwrap().len(), text.len());
    }

    #[test]
    fn machines_start_after_comments_and_attributes() {
        assert!(starts_a_machine("// x\n#[allow(dead-end)]\n machine M "));
        assert!(!starts_a_machine("machines M "));
        assert!(!starts_a_machine("state s "));
        assert!(!starts_a_machine("#[allow(dead-end) "));
    }
}
