//! "did you mean `b`?" for misspelled names.

/// The candidate closest to `name`, if it is close enough to be a plausible
/// typo: equal ignoring case, or within an edit distance of about a third of
/// the name's length (at least 1, and 0 for names of one or two letters,
/// where any other short name would otherwise "match").
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = name.chars().count();
    let limit = if len <= 2 { 0 } else { (len / 3).max(1) };
    let mut best: Option<(usize, &'a str)> = None;
    for cand in candidates {
        // The length alone rules most candidates out without the distance.
        if cand == name || cand.len().abs_diff(name.len()) > limit {
            continue;
        }
        let d = if cand.eq_ignore_ascii_case(name) {
            0
        } else {
            distance(name, cand)
        };
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, cand));
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

/// Levenshtein distance with adjacent transpositions counted as one edit.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(prev2[j - 2] + 1);
            }
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
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
}
