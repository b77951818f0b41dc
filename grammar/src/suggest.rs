//! "did you mean `b`?" for misspelled names.
//!
//! The edit distance costs the product of two names' lengths, so the work is
//! bounded twice: names longer than [`MAX_NAME_CHARS`] get no suggestion (a
//! 40,000-character name is not a typo anyone retypes), and every search
//! draws on a [`Budget`] of work that a caller can share across a whole file.

/// Names longer than this many characters are neither given a suggestion
/// nor suggested.
pub const MAX_NAME_CHARS: usize = 64;

/// A bound on the work of "did you mean" searches: each candidate looked at
/// costs one unit and each cell of an edit-distance table one more. Once it is
/// spent, searches give no suggestion.
#[derive(Clone, Debug)]
pub struct Budget {
    left: u64,
    spent: u64,
}

impl Budget {
    /// What one call of [`closest`] may spend: a few milliseconds.
    pub const PER_SEARCH: u64 = 10_000_000;
    /// What all the searches over one file or document may spend together.
    pub const PER_FILE: u64 = 100_000_000;

    /// A budget of `units`.
    pub fn new(units: u64) -> Self {
        Budget {
            left: units,
            spent: 0,
        }
    }

    /// The budget for every search over one file or document.
    pub fn per_file() -> Self {
        Budget::new(Budget::PER_FILE)
    }

    /// The units spent so far.
    #[cfg(test)]
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// True when nothing is left.
    pub fn is_spent(&self) -> bool {
        self.left == 0
    }

    /// Take `units`; false (and the budget is spent) when fewer are left.
    fn take(&mut self, units: u64) -> bool {
        if units > self.left {
            self.spent += self.left;
            self.left = 0;
            return false;
        }
        self.left -= units;
        self.spent += units;
        true
    }
}

/// The candidate closest to `name`, if it is close enough to be a plausible
/// typo: equal ignoring case, or within an edit distance of about a third of
/// the name's length (at least 1, and 0 for names of one or two letters,
/// where any other short name would otherwise "match"). Names longer than
/// 64 characters get no suggestion, and a search that would take
/// unreasonable work gives up (with `None`).
///
/// ```
/// assert_eq!(fsm_grammar::closest("wating", ["waiting", "done"]), Some("waiting"));
/// assert_eq!(fsm_grammar::closest("x", ["waiting", "done"]), None);
/// ```
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    closest_within(name, candidates, &mut Budget::new(Budget::PER_SEARCH))
}

/// [`closest`], drawing on `budget`: `None` when the budget runs out before
/// the search ends, so the answer never depends on where it stopped.
pub fn closest_within<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    budget: &mut Budget,
) -> Option<&'a str> {
    // Checked on bytes first: a byte count within the limit bounds the
    // characters too, and a long name is never walked.
    if budget.is_spent() || (name.len() > MAX_NAME_CHARS && name.chars().nth(MAX_NAME_CHARS).is_some()) {
        return None;
    }
    let len = name.chars().count();
    let limit = if len <= 2 { 0 } else { (len / 3).max(1) };
    let mut distances = Distances::new(name);
    let mut best: Option<(usize, &'a str)> = None;
    for cand in candidates {
        if !budget.take(1) {
            return None;
        }
        // The length alone rules most candidates out without the distance
        // (and every candidate too long to be suggested).
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
            match distances.within(cand, bound, budget) {
                Ok(d) => d,
                Err(OutOfBudget) => return None,
            }
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
#[cfg(feature = "interchange")]
pub(crate) fn help_for<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    budget: &mut Budget,
    fallback: String,
) -> String {
    match closest_within(name, candidates, budget) {
        Some(c) => format!("did you mean `{c}`?"),
        None => fallback,
    }
}

/// A search ran out of its [`Budget`].
struct OutOfBudget;

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
    /// row never come back down below the row's minimum). The letter count
    /// costs `budget` the candidate's length, the table its cells.
    fn within(
        &mut self,
        cand: &str,
        limit: usize,
        budget: &mut Budget,
    ) -> Result<Option<usize>, OutOfBudget> {
        if !budget.take(cand.len() as u64) {
            return Err(OutOfBudget);
        }
        if self.letters_differ_by_more_than(cand, limit) {
            return Ok(None);
        }
        // A candidate within the length limit is short (the name is), so
        // the table is small; it is paid for in full before it is filled.
        if !budget.take((self.a.len() as u64 + 1) * (cand.len() as u64 + 1)) {
            return Err(OutOfBudget);
        }
        Ok(self.table(cand, limit))
    }

    fn table(&mut self, cand: &str, limit: usize) -> Option<usize> {
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
    Distances::new(a).table(b, usize::MAX).expect("no limit")
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
    fn long_names_get_no_suggestion_and_cost_no_table() {
        let state = "s".repeat(40_000);
        let typo = format!("{}t", &state[1..]);
        let mut budget = Budget::new(u64::MAX);
        assert_eq!(closest_within(&typo, [state.as_str(), "idle"], &mut budget), None);
        assert_eq!(
            budget.spent(),
            0,
            "a 40,000-character name is not searched at all"
        );

        // At the limit a one-letter typo is still found, for a small table.
        let state = "s".repeat(MAX_NAME_CHARS);
        let typo = format!("{}t", &state[1..]);
        let mut budget = Budget::new(u64::MAX);
        assert_eq!(
            closest_within(&typo, [state.as_str()], &mut budget),
            Some(state.as_str())
        );
        assert!(budget.spent() <= 2 * 65 * 65, "{}", budget.spent());

        // A short typo is never matched with a very long candidate.
        let long = "a".repeat(40_000);
        let mut budget = Budget::new(u64::MAX);
        assert_eq!(closest_within("aaaab", [long.as_str()], &mut budget), None);
        assert_eq!(budget.spent(), 1);
    }

    #[test]
    fn a_spent_budget_gives_no_suggestion() {
        let states: Vec<String> = (0..1000).map(|i| format!("state_{i:04}")).collect();
        let names = || states.iter().map(String::as_str);
        let mut budget = Budget::new(u64::MAX);
        assert_eq!(
            closest_within("state_0999x", names(), &mut budget),
            Some("state_0999")
        );
        let one_search = budget.spent();
        // Half of what one search takes: it stops, and says nothing rather
        // than a guess that depends on where it stopped.
        let mut budget = Budget::new(one_search / 2);
        assert_eq!(closest_within("state_0999x", names(), &mut budget), None);
        assert!(budget.is_spent());
        assert_eq!(closest_within("state_0001x", names(), &mut budget), None);
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
                        Distances::new(a)
                            .within(b, limit, &mut Budget::new(u64::MAX))
                            .ok()
                            .flatten(),
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
