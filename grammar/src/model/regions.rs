//! Parallel states and completion, as the checks need them: which states can
//! be active together, what a default entry enters, and when a state is done.
//!
//! - A `parallel` state's children are its *regions*: all of them are active
//!   while it is. Entering it by default enters every region by default.
//! - Two states can be active at the same time when one holds the other, or
//!   when they lie in different regions of one parallel state (the innermost
//!   state holding both is parallel).
//! - A composite state is *done* when its active child is `final`; a parallel
//!   state when every region is done. A region that is a leaf is done when it
//!   is `final`. So completion bubbles up through nested parallel states, as
//!   in XState v5 (SCXML raises `done.state` for the parent and grandparent
//!   only); docs/dsl.md states the rule.
//!
//! Every function here walks the tree along one path, or one subtree, so the
//! checks built on them stay linear in the machine times its depth.

use super::{GuardExpr, Machine, StateId};

impl Machine {
    /// True when some state is `parallel`.
    pub fn has_parallel(&self) -> bool {
        self.states.iter().any(|s| s.is_parallel())
    }

    /// True when a step of this machine runs over configurations (the set
    /// of active states, stepped by `fsm_runtime::__private::chart`) rather
    /// than from one leaf to another: it
    /// has a parallel or final state, a `done` or `always` transition, or
    /// an `in(...)` test.
    pub fn runs_over_configurations(&self) -> bool {
        self.configuration_construct().is_some()
    }

    /// The first construct that makes this machine run over
    /// configurations, in words: a parallel or final state, a `done` or
    /// `always` transition, or an `in(...)` test. `None` for every other
    /// machine.
    pub fn configuration_construct(&self) -> Option<String> {
        if let Some(s) = self.states.iter().find(|s| s.is_parallel()) {
            return Some(format!("parallel state `{}`", s.name));
        }
        if let Some(s) = self.states.iter().find(|s| s.is_final()) {
            return Some(format!("final state `{}`", s.name));
        }
        if let Some(e) = self.eventless.first() {
            return Some(format!(
                "`{}` transition of `{}`",
                e.trigger.keyword(),
                self.state(e.expect_state()).name
            ));
        }
        let guards = self
            .transitions
            .iter()
            .filter_map(|t| t.guard.as_ref())
            .chain(self.timers.iter().filter_map(|t| t.guard.as_ref()));
        for g in guards {
            let mut states = Vec::new();
            g.expr.in_states(&mut states);
            if let Some(&s) = states.first() {
                return Some(format!("`in({})`", self.state(s).name));
            }
        }
        None
    }

    /// `expr` with every `in(...)` decided for a machine without parallel
    /// states in leaf `leaf`: the configuration before a step is the leaf
    /// and the states holding it, so `in(S)` holds when `leaf` is `S` or
    /// lies inside it. `Err(value)` when that decides the whole expression
    /// ([`GuardExpr::decide_states`]). Both engines decide a one-leaf
    /// machine's `in(...)` this way, per leaf, before any step.
    pub fn decide_in_leaf(&self, leaf: StateId, expr: &GuardExpr) -> Result<GuardExpr, bool> {
        expr.decide_states(&|s| s == leaf || self.is_inside(leaf, s))
    }

    /// The innermost state holding both `a` and `b` (or being one of them
    /// and holding the other); `None` when only the machine holds both.
    pub fn common_ancestor(&self, a: StateId, b: StateId) -> Option<StateId> {
        // Depths are bounded (`MAX_STATE_DEPTH`), so walking up is cheap.
        let (mut a, mut b) = (Some(a), Some(b));
        let depth = |s: Option<StateId>| s.map_or(0, |s| self.state(s).depth);
        while depth(a) > depth(b) {
            a = a.and_then(|s| self.state(s).parent);
        }
        while depth(b) > depth(a) {
            b = b.and_then(|s| self.state(s).parent);
        }
        while a != b {
            a = a.and_then(|s| self.state(s).parent);
            b = b.and_then(|s| self.state(s).parent);
        }
        a
    }

    /// True when `a` and `b` can be active at the same time: one of them
    /// holds the other (or they are the same state), or they lie in
    /// different regions of one parallel state.
    pub fn can_be_active_together(&self, a: StateId, b: StateId) -> bool {
        match self.common_ancestor(a, b) {
            Some(c) if c == a || c == b => true,
            Some(c) => self.state(c).is_parallel(),
            None => false,
        }
    }

    /// When `a` and `b` lie in different regions of one parallel state: that
    /// state, and the regions holding `a` and `b`.
    pub fn regions_apart(&self, a: StateId, b: StateId) -> Option<(StateId, StateId, StateId)> {
        let c = self.common_ancestor(a, b)?;
        if c == a || c == b || !self.state(c).is_parallel() {
            return None;
        }
        let region = |s: StateId| {
            self.ancestors_or_self(s)
                .find(|&x| self.state(x).parent == Some(c))
                .expect("a state strictly inside `c` lies in one of its children")
        };
        Some((c, region(a), region(b)))
    }

    /// True when entering `state`'s parent by default enters `state`: it is
    /// the parent's initial child, or a region of a parallel parent. False
    /// at the top level.
    pub fn entered_by_default(&self, state: StateId) -> bool {
        match self.state(state).parent {
            None => false,
            Some(p) if self.state(p).is_parallel() => true,
            Some(p) => self.initial_child(p) == Some(state),
        }
    }

    /// True when entering `outer` by default enters `state`: `state` is
    /// `outer`, or lies inside it along default entries only.
    pub fn in_default_entry(&self, outer: StateId, state: StateId) -> bool {
        for s in self.ancestors_or_self(state) {
            if s == outer {
                return true;
            }
            if !self.entered_by_default(s) {
                return false;
            }
        }
        false
    }

    /// The states a default entry of `state` enters, in entry order (a
    /// parent before its children, siblings as written): `state`, its
    /// initial child's default entry, or every region's.
    pub fn default_entry(&self, state: StateId) -> Vec<StateId> {
        let mut out = Vec::new();
        let mut stack = vec![state];
        while let Some(s) = stack.pop() {
            out.push(s);
            let st = self.state(s);
            if st.is_parallel() {
                stack.extend(st.children.iter().rev());
            } else if let Some(c) = self.initial_child(s) {
                stack.push(c);
            }
        }
        out
    }

    /// The states active when the machine starts, in entry order: the
    /// default entry of its initial state.
    pub fn initial_configuration(&self) -> Vec<StateId> {
        self.default_entry(self.initial)
    }

    /// True when `state` can ever be done: a composite with a `final` child,
    /// a parallel state whose regions can all be done, or a `final` leaf.
    pub fn can_be_done(&self, state: StateId) -> bool {
        let st = self.state(state);
        if st.is_parallel() {
            st.children.iter().all(|&r| self.can_be_done(r))
        } else if st.is_composite() {
            st.children.iter().any(|&c| self.state(c).is_final())
        } else {
            st.is_final()
        }
    }

    /// True when `state` is done right after a default entry.
    pub fn starts_done(&self, state: StateId) -> bool {
        let st = self.state(state);
        if st.is_parallel() {
            !st.children.is_empty() && st.children.iter().all(|&r| self.starts_done(r))
        } else if st.is_composite() {
            self.initial_child(state)
                .is_some_and(|c| self.state(c).is_final())
        } else {
            st.is_final()
        }
    }

    /// True when `state` is done right after a step enters `target` (by
    /// default, below it) and whatever `state` holds around it by default.
    /// For a `state` not holding `target`, whether it starts done.
    pub fn done_after_entering(&self, state: StateId, target: StateId) -> bool {
        if state == target || !self.is_inside(target, state) {
            return self.starts_done(state);
        }
        let st = self.state(state);
        let toward = self
            .ancestors_or_self(target)
            .find(|&x| self.state(x).parent == Some(state))
            .expect("`target` lies inside `state`");
        if st.is_parallel() {
            st.children.iter().all(|&r| {
                if r == toward {
                    self.done_after_entering(r, target)
                } else {
                    self.starts_done(r)
                }
            })
        } else {
            self.state(toward).is_final()
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::testing::{id, lowered};

    const RESEARCH: &str = "machine R { initial state idle { on start -> collect; } \
        parallel state collect { done -> synthesis; \
        state a { initial state a_running { on a_written -> a_done; } final state a_done; } \
        state b { initial state b_running { on b_written -> b_done; } final state b_done; } } \
        state synthesis; }";

    #[test]
    fn regions_are_active_together_and_siblings_are_not() {
        let m = lowered(RESEARCH);
        let s = |n| id(&m, n);
        assert!(m.can_be_active_together(s("a_running"), s("b_done")));
        assert!(m.can_be_active_together(s("a_running"), s("collect")));
        assert!(!m.can_be_active_together(s("a_running"), s("a_done")));
        assert!(!m.can_be_active_together(s("idle"), s("collect")));
        assert_eq!(
            m.regions_apart(s("a_done"), s("b_running")),
            Some((s("collect"), s("a"), s("b")))
        );
        assert_eq!(m.regions_apart(s("a_done"), s("a_running")), None);
    }

    #[test]
    fn a_default_entry_enters_every_region_and_completion_bubbles_up() {
        let m = lowered(RESEARCH);
        let s = |n| id(&m, n);
        let names: Vec<&str> = m
            .default_entry(s("collect"))
            .into_iter()
            .map(|x| m.state(x).name.as_str())
            .collect();
        assert_eq!(names, ["collect", "a", "a_running", "b", "b_running"]);
        assert!(m.in_default_entry(s("collect"), s("b_running")));
        assert!(!m.in_default_entry(s("collect"), s("b_done")));
        assert!(m.can_be_done(s("collect")));
        assert!(!m.starts_done(s("collect")));
        assert!(!m.done_after_entering(s("collect"), s("a_done")), "b still runs");
        assert!(m.done_after_entering(s("a"), s("a_done")));
    }
}
