//! Exact satisfiability of guard expressions.
//!
//! The checks ask questions like "can `a && b` hold?" or "is there an input
//! where this guard holds and every earlier one fails?". Each question is a
//! conjunction of guard expressions, each required true or false. We answer it
//! by Shannon expansion over the guards involved, pruning with three-valued
//! evaluation. That is exponential only in the number of distinct guards of
//! one (state, action) group, which is small in any real machine, and never in
//! the size of the machine. A search budget caps pathological inputs; past it
//! the answer is "unknown" and the checks stay silent rather than guess.

use crate::model::{GuardExpr, GuardId};

/// A requirement: `expr` must evaluate to `value`.
pub(crate) type Term<'a> = (&'a GuardExpr, bool);

/// Term evaluations one question may cost before the answer is "unknown".
const BUDGET: usize = 1 << 18;

/// Work allowed for a series of questions, counted in term evaluations, so a
/// check asking many questions about one huge group stays linear overall
/// instead of paying the full budget for each.
pub(crate) struct Budget(usize);

impl Budget {
    /// A budget of `n` term evaluations.
    pub(crate) fn new(n: usize) -> Self {
        Budget(n)
    }

    /// True once nothing is left: further questions would all be "unknown".
    pub(crate) fn is_spent(&self) -> bool {
        self.0 == 0
    }
}

/// `Some(true)` if some assignment of the guards meets every term,
/// `Some(false)` if none does, `None` if the search budget ran out.
pub(crate) fn satisfiable(terms: &[Term<'_>]) -> Option<bool> {
    satisfiable_within(terms, &mut Budget::new(BUDGET))
}

/// [`satisfiable`], charging the work to `budget`.
pub(crate) fn satisfiable_within(terms: &[Term<'_>], budget: &mut Budget) -> Option<bool> {
    let mut vars = Vec::new();
    for (e, _) in terms {
        e.vars(&mut vars);
    }
    vars.sort_unstable();
    vars.dedup();
    let mut search = Search {
        vars: &vars,
        assignment: Vec::with_capacity(vars.len()),
        budget: &mut budget.0,
    };
    search.run(terms)
}

/// Shorthand: can `expr` hold at all? (Unknown counts as yes.)
pub(crate) fn can_hold(expr: &GuardExpr) -> bool {
    satisfiable(&[(expr, true)]) != Some(false)
}

struct Search<'v> {
    vars: &'v [GuardId],
    assignment: Vec<(GuardId, bool)>,
    budget: &'v mut usize,
}

impl Search<'_> {
    fn run(&mut self, terms: &[Term<'_>]) -> Option<bool> {
        if *self.budget < terms.len() {
            *self.budget = 0;
            return None;
        }
        *self.budget -= terms.len();
        let mut decided = true;
        for (e, want) in terms {
            match self.eval(e) {
                Some(v) if v != *want => return Some(false),
                Some(_) => {}
                None => decided = false,
            }
        }
        if decided {
            return Some(true);
        }
        let var = self.vars[self.assignment.len()];
        let mut unknown = false;
        for value in [true, false] {
            self.assignment.push((var, value));
            let r = self.run(terms);
            self.assignment.pop();
            match r {
                Some(true) => return Some(true),
                None => unknown = true,
                Some(false) => {}
            }
        }
        if unknown {
            None
        } else {
            Some(false)
        }
    }

    /// Three-valued evaluation under the partial assignment.
    fn eval(&self, e: &GuardExpr) -> Option<bool> {
        match e {
            GuardExpr::Var(g) => self.assignment.iter().find(|(v, _)| v == g).map(|(_, b)| *b),
            GuardExpr::Not(x) => self.eval(x).map(|b| !b),
            GuardExpr::And(a, b) => match (self.eval(a), self.eval(b)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            GuardExpr::Or(a, b) => match (self.eval(a), self.eval(b)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn budget_gives_unknown_not_a_wrong_answer() {
        // 40 independent guards that must all be true and one that must be false
        // at the very end: satisfiable, found without blowing the budget.
        let mut e = var(0);
        for i in 1..40 {
            e = and(e, var(i));
        }
        assert_eq!(satisfiable(&[(&e, true)]), Some(true));
        // With a tiny budget the same question is unknown, never a wrong "no".
        assert_eq!(satisfiable_within(&[(&e, true)], &mut Budget::new(3)), None);
    }
}
