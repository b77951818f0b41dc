//! Exact satisfiability of guard expressions.
//!
//! The checks ask questions like "can `a && b` hold?" or "is there an input
//! where this guard holds and every earlier one fails?". Guard names are
//! independent boolean variables. A [`Solver`] keeps a conjunction of
//! requirements split into *components*: sets of guard names connected by the
//! requirements that mention them. Components share no names, so the
//! conjunction can hold exactly when every component can. Each component is
//! kept as its exact truth table over its own names, 64 assignments to a
//! machine word, so one requirement or question costs a few word operations
//! per expression node and never a search.
//!
//! A component may mention at most [`MAX_VARS`] guard names (a table of
//! 2^16 bits). Past that, or once the machine's [`Budget`] is spent, the
//! component is *unknown*, and so is every answer that depends on it: the
//! checks stay silent rather than guess.
//!
//! An `in(S)` test is one more independent variable: whether `S` is active
//! is not known before a step, so the checks count it as possibly true and
//! possibly false, and stay exact or over-approximate.

use crate::model::{GuardExpr, Machine};
use std::collections::HashMap;

/// The variable of a guard or of an `in(...)` test: guards at even numbers,
/// states at odd ones.
fn key(e: &GuardExpr) -> Option<usize> {
    match e {
        GuardExpr::Var(g) => Some(2 * g.index()),
        GuardExpr::In(s) => Some(2 * s.index() + 1),
        _ => None,
    }
}

/// The variables of `e`, left to right, with repeats.
fn keys(e: &GuardExpr, out: &mut Vec<usize>) {
    match e {
        GuardExpr::Var(_) | GuardExpr::In(_) => out.extend(key(e)),
        GuardExpr::Not(x) => keys(x, out),
        GuardExpr::And(a, b) | GuardExpr::Or(a, b) => {
            keys(a, out);
            keys(b, out);
        }
    }
}

/// A requirement: `expr` must evaluate to `value`.
pub(crate) type Term<'a> = (&'a GuardExpr, bool);

/// Most distinct guard names one component may mention and stay exact.
pub(crate) const MAX_VARS: usize = 16;

/// Word operations a machine may cost before its remaining questions are
/// "unknown", on top of [`PER_NODE`] per guard expression node and
/// transition: proportional to the machine, never to its square.
const BASE: usize = 1 << 22;
/// See [`BASE`].
const PER_NODE: usize = 1 << 12;

/// Work allowed for all the questions about one machine, counted in
/// 64-bit word operations.
pub(crate) struct Budget {
    left: usize,
    spent: usize,
}

impl Budget {
    /// A budget of `n` word operations.
    pub(crate) fn new(n: usize) -> Self {
        Budget { left: n, spent: 0 }
    }

    /// The budget for every guard question about `m`, proportional to its size.
    pub(crate) fn for_machine(m: &Machine) -> Self {
        let nodes: usize = m
            .transitions
            .iter()
            .map(|t| 1 + t.guard.as_ref().map_or(0, |g| node_count(&g.expr)))
            .sum();
        Budget::new(BASE.saturating_add(nodes.saturating_mul(PER_NODE)))
    }

    /// True once nothing is left: further questions would all be "unknown".
    pub(crate) fn is_spent(&self) -> bool {
        self.left == 0
    }

    /// Word operations charged so far.
    #[cfg(test)]
    pub(crate) fn spent(&self) -> usize {
        self.spent
    }

    /// Take `n` word operations; false (and nothing left) if there are not that many.
    pub(crate) fn charge(&mut self, n: usize) -> bool {
        if self.left < n {
            self.left = 0;
            false
        } else {
            self.left -= n;
            self.spent += n;
            true
        }
    }
}

/// Nodes of an expression.
pub(crate) fn node_count(e: &GuardExpr) -> usize {
    match e {
        GuardExpr::Var(_) | GuardExpr::In(_) => 1,
        GuardExpr::Not(x) => 1 + node_count(x),
        GuardExpr::And(a, b) | GuardExpr::Or(a, b) => 1 + node_count(a) + node_count(b),
    }
}

/// `Some(true)` if some assignment of the guards meets every term,
/// `Some(false)` if none does, `None` if unknown (see the module docs).
pub(crate) fn satisfiable_within(terms: &[Term<'_>], budget: &mut Budget) -> Option<bool> {
    let mut solver = Solver::default();
    for &(e, want) in terms {
        solver.require(e, want, budget);
    }
    solver.can_hold()
}

/// Shorthand: can `expr` hold at all? (Unknown counts as yes.)
pub(crate) fn can_hold(expr: &GuardExpr, budget: &mut Budget) -> bool {
    satisfiable_within(&[(expr, true)], budget) != Some(false)
}

/// Bit patterns of the first six variables over the 64 assignments of a word.
const PATTERNS: [u64; 6] = [
    0xAAAA_AAAA_AAAA_AAAA,
    0xCCCC_CCCC_CCCC_CCCC,
    0xF0F0_F0F0_F0F0_F0F0,
    0xFF00_FF00_FF00_FF00,
    0xFFFF_0000_FFFF_0000,
    0xFFFF_FFFF_0000_0000,
];

/// Words of a truth table over `k` variables.
fn words(k: usize) -> usize {
    if k <= 6 {
        1
    } else {
        1 << (k - 6)
    }
}

/// The bits of the last word that stand for assignments.
fn valid(k: usize) -> u64 {
    if k >= 6 {
        !0
    } else {
        (1u64 << (1 << k)) - 1
    }
}

fn bit(table: &[u64], i: usize) -> bool {
    table[i >> 6] >> (i & 63) & 1 == 1
}

/// A set of guard names and the exact set of their assignments that meet the
/// requirements on them; `None` once unknown.
struct Component {
    vars: Vec<usize>,
    table: Option<Vec<u64>>,
}

/// A conjunction of requirements, split into independent components.
#[derive(Default)]
pub(crate) struct Solver {
    /// Per guard (the variable of key `2 * g`): its component, if it has
    /// been mentioned.
    component_of: Vec<Option<usize>>,
    /// The same for the states of `in(...)` tests (odd keys), which are few
    /// but may have large numbers: a map, so that a solver never grows with
    /// the machine's states.
    states: HashMap<usize, (usize, usize)>,
    /// Per guard: its position among its component's variables.
    position: Vec<usize>,
    components: Vec<Component>,
    /// Some component has no assignment left: nothing can hold.
    contradiction: bool,
    /// Components that are unknown.
    unknown: usize,
}

impl Solver {
    /// Can everything required so far hold?
    pub(crate) fn can_hold(&self) -> Option<bool> {
        if self.contradiction {
            Some(false)
        } else if self.unknown > 0 {
            None
        } else {
            Some(true)
        }
    }

    /// Can `expr` evaluate to `want` while everything required so far holds?
    pub(crate) fn can_also_hold(
        &mut self,
        expr: &GuardExpr,
        want: bool,
        budget: &mut Budget,
    ) -> Option<bool> {
        if self.contradiction {
            return Some(false);
        }
        let c = self.touch(expr, budget);
        let table = self.eval_in(c, expr, budget)?;
        let current = self.components[c].table.as_ref()?;
        let k = self.components[c].vars.len();
        let flip = if want { 0 } else { !0 };
        let any = table
            .iter()
            .zip(current)
            .any(|(t, c)| (t ^ flip) & c & valid(k) != 0);
        if !any {
            Some(false)
        } else if self.unknown > 0 {
            None
        } else {
            Some(true)
        }
    }

    /// Require `expr` to evaluate to `want` from now on.
    pub(crate) fn require(&mut self, expr: &GuardExpr, want: bool, budget: &mut Budget) {
        if self.contradiction {
            return;
        }
        let c = self.touch(expr, budget);
        let Some(table) = self.eval_in(c, expr, budget) else {
            self.forget(c);
            return;
        };
        let k = self.components[c].vars.len();
        let flip = if want { 0 } else { !0 };
        if let Some(current) = &mut self.components[c].table {
            let mut left = 0;
            for (c, t) in current.iter_mut().zip(&table) {
                *c &= (t ^ flip) & valid(k);
                left |= *c;
            }
            if left == 0 {
                self.contradiction = true;
            }
        }
    }

    /// The component of variable `key`, if it has been mentioned.
    fn component(&self, key: usize) -> Option<usize> {
        if key % 2 == 1 {
            self.states.get(&key).map(|&(c, _)| c)
        } else {
            self.component_of.get(key / 2).copied().flatten()
        }
    }

    /// The position of variable `key` among its component's variables.
    fn position_of(&self, key: usize) -> usize {
        if key % 2 == 1 {
            self.states[&key].1
        } else {
            self.position[key / 2]
        }
    }

    /// Put variable `key` in component `c` at `position`.
    fn place(&mut self, key: usize, c: usize, position: usize) {
        if key % 2 == 1 {
            self.states.insert(key, (c, position));
            return;
        }
        let i = key / 2;
        if i >= self.component_of.len() {
            self.component_of.resize(i + 1, None);
            self.position.resize(i + 1, 0);
        }
        self.component_of[i] = Some(c);
        self.position[i] = position;
    }

    /// Mark component `c` unknown.
    fn forget(&mut self, c: usize) {
        if self.components[c].table.take().is_some() {
            self.unknown += 1;
        }
    }

    /// The one component holding every variable of `expr`, merging as needed.
    fn touch(&mut self, expr: &GuardExpr, budget: &mut Budget) -> usize {
        let mut vars = Vec::new();
        keys(expr, &mut vars);
        let mut touched: Vec<usize> = Vec::with_capacity(vars.len());
        for g in vars {
            let c = match self.component(g) {
                Some(c) => c,
                None => {
                    self.components.push(Component {
                        vars: vec![g],
                        table: Some(vec![0b11]),
                    });
                    self.place(g, self.components.len() - 1, 0);
                    self.components.len() - 1
                }
            };
            if !touched.contains(&c) {
                touched.push(c);
            }
        }
        // Merge into the largest, so a variable moves O(log n) times.
        let Some(&base) = touched.iter().max_by_key(|&&c| self.components[c].vars.len()) else {
            // A constant-free expression always has a variable; keep a
            // harmless empty component for uniformity.
            self.components.push(Component {
                vars: Vec::new(),
                table: Some(vec![1]),
            });
            return self.components.len() - 1;
        };
        for other in touched.into_iter().filter(|&c| c != base) {
            self.merge(base, other, budget);
        }
        base
    }

    /// Move component `other` into `base`.
    fn merge(&mut self, base: usize, other: usize, budget: &mut Budget) {
        let moved = std::mem::take(&mut self.components[other].vars);
        let other_table = self.components[other].table.take();
        if other_table.is_none() {
            self.unknown -= 1;
        }
        let a = self.components[base].vars.len();
        let b = moved.len();
        for (p, g) in moved.iter().enumerate() {
            self.place(*g, base, a + p);
        }
        self.components[base].vars.extend(moved);
        let combined = match (&self.components[base].table, other_table) {
            (Some(ta), Some(tb)) if a + b <= MAX_VARS && budget.charge(words(a + b)) => {
                Some(combine(ta, a, &tb, b))
            }
            _ => None,
        };
        match combined {
            Some(t) => self.components[base].table = Some(t),
            None => self.forget(base),
        }
    }

    /// The truth table of `expr` over component `c`'s variables, if known.
    fn eval_in(&self, c: usize, expr: &GuardExpr, budget: &mut Budget) -> Option<Vec<u64>> {
        let comp = &self.components[c];
        comp.table.as_ref()?;
        let k = comp.vars.len();
        self.eval(expr, k, budget)
    }

    fn eval(&self, e: &GuardExpr, k: usize, budget: &mut Budget) -> Option<Vec<u64>> {
        let n = words(k);
        if !budget.charge(n) {
            return None;
        }
        Some(match e {
            GuardExpr::Var(_) | GuardExpr::In(_) => {
                let p = self.position_of(key(e).expect("a variable"));
                if p < 6 {
                    vec![PATTERNS[p] & valid(k); n]
                } else {
                    (0..n)
                        .map(|w| if w >> (p - 6) & 1 == 1 { !0 } else { 0 })
                        .collect()
                }
            }
            GuardExpr::Not(x) => {
                let mut t = self.eval(x, k, budget)?;
                t.iter_mut().for_each(|w| *w = !*w & valid(k));
                t
            }
            GuardExpr::And(a, b) => {
                let mut t = self.eval(a, k, budget)?;
                let u = self.eval(b, k, budget)?;
                t.iter_mut().zip(u).for_each(|(w, v)| *w &= v);
                t
            }
            GuardExpr::Or(a, b) => {
                let mut t = self.eval(a, k, budget)?;
                let u = self.eval(b, k, budget)?;
                t.iter_mut().zip(u).for_each(|(w, v)| *w |= v);
                t
            }
        })
    }
}

/// The table over `a + b` variables (those of `ta` first) allowing exactly
/// the assignments both `ta` (over `a`) and `tb` (over `b`) allow.
fn combine(ta: &[u64], a: usize, tb: &[u64], b: usize) -> Vec<u64> {
    let n = a + b;
    let mut out = vec![0u64; words(n)];
    if a >= 6 {
        let low = (1usize << (a - 6)) - 1;
        for (w, o) in out.iter_mut().enumerate() {
            if bit(tb, w >> (a - 6)) {
                *o = ta[w & low];
            }
        }
    } else {
        let low = (1usize << a) - 1;
        for i in 0..1usize << n {
            if bit(ta, i & low) && bit(tb, i >> a) {
                out[i >> 6] |= 1 << (i & 63);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GuardId;

    fn var(i: u32) -> GuardExpr {
        GuardExpr::Var(GuardId(i))
    }
    fn not(e: GuardExpr) -> GuardExpr {
        GuardExpr::Not(Box::new(e))
    }
    fn and(a: GuardExpr, b: GuardExpr) -> GuardExpr {
        GuardExpr::And(Box::new(a), Box::new(b))
    }
    fn or(a: GuardExpr, b: GuardExpr) -> GuardExpr {
        GuardExpr::Or(Box::new(a), Box::new(b))
    }
    fn satisfiable(terms: &[Term<'_>]) -> Option<bool> {
        satisfiable_within(terms, &mut Budget::new(BASE))
    }

    #[test]
    fn contradiction_and_exclusive_guards() {
        let a = var(0);
        assert_eq!(satisfiable(&[(&and(var(0), not(var(0))), true)]), Some(false));
        assert_eq!(satisfiable(&[(&a, true), (&not(var(0)), true)]), Some(false));
        assert_eq!(satisfiable(&[(&a, true), (&var(1), true)]), Some(true));
    }

    #[test]
    fn tautology_of_earlier_guards() {
        // Is there an input where `b` holds and neither `a` nor `!a` does? No.
        let (a, na, b) = (var(0), not(var(0)), var(1));
        assert_eq!(satisfiable(&[(&b, true), (&a, false), (&na, false)]), Some(false));
        // `a || b` then `a`: `a` never fires alone.
        assert_eq!(
            satisfiable(&[(&a, true), (&or(var(0), var(1)), false)]),
            Some(false)
        );
    }

    #[test]
    fn every_variable_position_is_exact() {
        // Brute force against direct evaluation, over up to 12 variables
        // (so positions past the first word are exercised), merging components.
        for k in [1u32, 3, 6, 7, 9, 12] {
            // (v0 || v1) && (v1 -> v2) ... a chain, then require the last false.
            let mut solver = Solver::default();
            let mut budget = Budget::new(BASE);
            for i in 0..k {
                let e = or(not(var(i)), var((i + 1) % k));
                solver.require(&e, true, &mut budget);
            }
            // The chain v0 -> v1 -> ... -> v0 forces all equal.
            let all_equal_breaks = and(var(0), not(var(k - 1)));
            assert_eq!(
                solver.can_also_hold(&all_equal_breaks, true, &mut budget),
                Some(false),
                "k={k}"
            );
            assert_eq!(
                solver.can_also_hold(&and(var(0), var(k - 1)), true, &mut budget),
                Some(true)
            );
        }
    }

    #[test]
    fn many_contradictory_disjuncts_are_decided_exactly_and_cheaply() {
        // `v0 && !v0 || ... || v17 && !v17`: never holds.
        let mut e = and(var(0), not(var(0)));
        for i in 1..18 {
            e = or(e, and(var(i), not(var(i))));
        }
        let mut budget = Budget::new(BASE);
        // 18 names in one component: past the cap, so unknown, never a wrong "no".
        assert_eq!(satisfiable_within(&[(&e, true)], &mut budget), None);
        // 16 of them: exact.
        let mut e = and(var(0), not(var(0)));
        for i in 1..16 {
            e = or(e, and(var(i), not(var(i))));
        }
        let mut budget = Budget::new(BASE);
        assert_eq!(satisfiable_within(&[(&e, true)], &mut budget), Some(false));
        // Bounded work: one table of 2^16 bits per node (and merges), nothing more.
        assert!(
            budget.spent() <= 4 * node_count(&e) * words(16),
            "{}",
            budget.spent()
        );
    }

    #[test]
    fn independent_guards_never_blow_up() {
        // 1000 distinct names, each its own component: linear work.
        let vars: Vec<GuardExpr> = (0..1000).map(var).collect();
        let mut solver = Solver::default();
        let mut budget = Budget::new(BASE);
        for v in &vars {
            assert_eq!(solver.can_also_hold(v, true, &mut budget), Some(true));
            solver.require(v, false, &mut budget);
        }
        assert!(budget.spent() <= 4 * 1000, "{}", budget.spent());
    }

    #[test]
    fn budget_gives_unknown_not_a_wrong_answer() {
        let mut e = var(0);
        for i in 1..10 {
            e = and(e, var(i));
        }
        assert_eq!(satisfiable(&[(&e, true)]), Some(true));
        assert_eq!(satisfiable_within(&[(&e, true)], &mut Budget::new(3)), None);
    }
}
