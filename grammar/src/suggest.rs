//! "did you mean `b`?" for misspelled names.

/// The candidate closest to `name`, if it is close enough to be a plausible
/// typo: equal ignoring case, or within an edit distance of about a third of
/// the name's length (at least 1, and 0 for names of one or two letters,
/// where any other short name would otherwise "match").
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = name.chars().count();
    let limit = if len <= 2 { 0 } else { (len / 3).max(1) };
    let mut distances = Distances::new(name);
    let mut best: Option<(usize, &'a str)> = None;
    for cand in candidates {
        // The length alone rules most candidates out without the distance.
        if cand == name || cand.len().abs_diff(name.len()) > limit {
            continue;
        }
        // Only a candidate closer than the best so far matters.
        let bound = best.map_or(limit, |(bd, _)| bd.saturating_sub(1));
        let d = if cand.eq_ignore_ascii_case(name) {
            Some(0)
        } else if best.is_some_and(|(bd, _)| bd == 0) {
            None
        } else {
            distances.within(cand, bound)
        };
        if let Some(d) = d {
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, cand));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// A help line: "did you mean `x`?" or the fallback.
pub(crate) fn help_for<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    fallback: String,
) -> String {
    match closest(name, candidates) {
        Some(c) => format!("did you mean `{c}`?"),
        None => fallback,
    }
}

/// Levenshtein distances, with adjacent transpositions counted as one edit,
/// from one name to many candidates: the name's characters and the rows are
/// allocated once, not per candidate.
struct Distances {
    a: Vec<char>,
    /// How often each ASCII character occurs in the name; `None` when the
    /// name is not all ASCII.
    a_counts: Option<[i32; 128]>,
    b: Vec<char>,
    prev2: Vec<usize>,
    prev: Vec<usize>,
    cur: Vec<usize>,
}

impl Distances {
    fn new(name: &str) -> Self {
        let a_counts = name.is_ascii().then(|| {
            let mut counts = [0; 128];
            for byte in name.bytes() {
                counts[usize::from(byte)] += 1;
            }
            counts
        });
        Distances {
            a: name.chars().collect(),
            a_counts,
            b: Vec::new(),
            prev2: Vec::new(),
            prev: Vec::new(),
            cur: Vec::new(),
        }
    }

    /// The distance to `cand` when it is at most `limit`; `None` otherwise,
    /// found as soon as a whole row exceeds the limit (distances along a
    /// row never come back down below the row's minimum).
    fn within(&mut self, cand: &str, limit: usize) -> Option<usize> {
        if self.letters_differ_by_more_than(cand, limit) {
            return None;
        }
        let Distances {
            a,
            b,
            prev2,
            prev,
            cur,
            ..
        } = self;
        b.clear();
        b.extend(cand.chars());
        let n = b.len();
        for row in [&mut *prev2, &mut *prev, &mut *cur] {
            row.clear();
            row.resize(n + 1, 0);
        }
        for (j, cell) in prev.iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=a.len() {
            cur[0] = i;
            let mut row_min = i;
            for j in 1..=n {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d = d.min(prev2[j - 2] + 1);
                }
                cur[j] = d;
                row_min = row_min.min(d);
            }
            // A transposition reaches back two rows, so both must exceed it.
            if row_min > limit && prev.iter().min().is_some_and(|&m| m > limit) {
                return None;
            }
            std::mem::swap(prev2, prev);
            std::mem::swap(prev, cur);
        }
        Some(prev[n]).filter(|&d| d <= limit)
    }
}

impl Distances {
    /// True when `cand` and the name differ in more than `limit` letters
    /// counted as multisets, a lower bound of the distance (an edit changes
    /// at most one letter on each side; a transposition none) that costs one
    /// pass over `cand` instead of the whole table.
    fn letters_differ_by_more_than(&mut self, cand: &str, limit: usize) -> bool {
        let Some(counts) = &mut self.a_counts else {
            return false;
        };
        if !cand.is_ascii() {
            return false;
        }
        let mut only_in_cand = 0;
        for byte in cand.bytes() {
            let count = &mut counts[usize::from(byte)];
            *count -= 1;
            if *count < 0 {
                only_in_cand += 1;
            }
        }
        for byte in cand.bytes() {
            counts[usize::from(byte)] += 1;
        }
        let only_in_name = self.a.len() - (cand.len() - only_in_cand);
        only_in_cand.max(only_in_name) > limit
    }
}

/// The full distance, for tests.
#[cfg(test)]
fn distance(a: &str, b: &str) -> usize {
    Distances::new(a).within(b, usize::MAX).expect("no limit")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let states = ["waiting", "calling", "error"];
        assert_eq!(closest("caling", states), Some("calling"));
        assert_eq!(closest("Waiting", states), Some("waiting"));
        assert_eq!(closest("erorr", states), Some("error"));
        assert_eq!(closest("shutdown", states), None);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(closest("c", ["a", "b"]), None);
        assert_eq!(closest("A", ["a", "b"]), Some("a"));
    }

    #[test]
    fn distances_within_a_limit_agree_with_the_full_distance() {
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "abc",
            "acb",
            "waiting",
            "wiating",
            "calling",
            "caling",
            "error",
            "erorr",
            "shutdown",
            "shut_down",
            "processing_llm_response",
            "processing_tool_response",
            "café",
            "cafe",
            "éclair",
            "eclair",
        ];
        for a in words {
            for b in words {
                let full = distance(a, b);
                for limit in 0..=full + 1 {
                    let expected = (full <= limit).then_some(full);
                    assert_eq!(
                        Distances::new(a).within(b, limit),
                        expected,
                        "{a:?} {b:?} {limit}"
                    );
                }
            }
        }
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("abcd", "badc"), 2);
    }
}
