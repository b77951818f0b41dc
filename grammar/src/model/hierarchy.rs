//! The state tree's semantics, for code generation, the dynamic engine and
//! the checks: ancestors and leaves, the candidates a leaf tries, and a
//! transition's domain.
//!
//! It follows W3C SCXML 1.0, section 3.13 ("Selecting and Executing
//! Transitions"), with one deliberate difference, described in docs/dsl.md:
//! candidates are ordered by priority first and by depth second
//! ([`Machine::candidate_groups`]), so that an explicit priority lets a
//! parent's transition interrupt its children.
//!
//! - The machine is always in one leaf and in all of that leaf's ancestors.
//! - A transition's *domain* is the innermost of its declaring state and that
//!   state's ancestors that holds its target strictly inside (the machine
//!   itself, above the top-level states, when none does). It exits the active
//!   states inside the domain, innermost first, and enters the states from
//!   below the domain down to the target, outermost first, then the target's
//!   initial child, recursively. So a transition declared on a composite to a
//!   state inside it does not leave the composite (a local transition), and a
//!   transition to the state that declares it, or to one of that state's
//!   ancestors, exits and re-enters it. An `any` transition is declared on the
//!   machine itself.
//! - `-> X.history` and `-> X.deep_history` target a point inside `X`: a
//!   transition from outside `X` enters `X`; one from inside keeps it.
//!
//! What a step exits and enters, in which order, and what history it
//! records and reads, is the one step's (`fsm_step::microstep`), which the
//! plan takes ahead of time for every step that does not depend on the
//! rest of the configuration (`crate::plan`).

use super::{Domain, HistoryKind, Machine, Source, StateId, TimerId, Transition};

impl Machine {
    /// True when some state holds states.
    pub fn is_nested(&self) -> bool {
        self.states.iter().any(|s| s.parent.is_some())
    }

    /// The composite states some transition, timer, `done` or `always`
    /// enters through their history (`-> X.history`, `-> X.deep_history`), in declaration order:
    /// the only ones whose memory a running machine must keep, and so the
    /// only ones its snapshots list (as `last_active`).
    pub fn history_composites(&self) -> Vec<StateId> {
        let mut targeted = vec![false; self.states.len()];
        let targets = self.transitions.iter().map(|t| (t.history, t.target));
        for (_, target) in targets
            .chain(self.timers.iter().map(|t| (t.history, t.target)))
            .chain(self.eventless.iter().map(|t| (t.history, t.target)))
            .filter(|(history, _)| history.is_some())
        {
            if let Some(target) = target {
                targeted[target.index()] = true;
            }
        }
        self.state_ids().filter(|s| targeted[s.index()]).collect()
    }

    /// `state`, then its parent, and so on up to its top-level ancestor.
    pub fn ancestors_or_self(&self, state: StateId) -> impl Iterator<Item = StateId> + '_ {
        std::iter::successors(Some(state), |&s| self.state(s).parent)
    }

    /// The states holding `state`, innermost first.
    pub fn ancestors(&self, state: StateId) -> impl Iterator<Item = StateId> + '_ {
        self.ancestors_or_self(state).skip(1)
    }

    /// True when `state` lies strictly inside `composite`.
    pub fn is_inside(&self, state: StateId, composite: StateId) -> bool {
        self.ancestors(state).any(|a| a == composite)
    }

    /// The states that hold no states, in declaration order.
    pub fn leaves(&self) -> impl Iterator<Item = StateId> + '_ {
        self.state_ids().filter(|&s| !self.state(s).is_composite())
    }

    /// The child a composite state starts in: the one marked `initial` (the
    /// first child when none is, which only a machine with errors has).
    /// `None` for a leaf.
    pub fn initial_child(&self, state: StateId) -> Option<StateId> {
        let children = &self.state(state).children;
        children
            .iter()
            .copied()
            .find(|&c| self.state(c).initial)
            .or_else(|| children.first().copied())
    }

    /// `state`'s initial child, that one's, and so on down to a leaf
    /// (empty for a leaf).
    pub fn initial_descent(&self, state: StateId) -> Vec<StateId> {
        std::iter::successors(self.initial_child(state), |&c| self.initial_child(c)).collect()
    }

    /// The states the machine enters when it starts, outermost first: the
    /// initial state and its initial descent. The last is the leaf it starts in.
    pub fn initial_path(&self) -> Vec<StateId> {
        let mut path = vec![self.initial];
        path.extend(self.initial_descent(self.initial));
        path
    }

    /// The leaf the machine starts in.
    pub fn initial_leaf(&self) -> StateId {
        *self
            .initial_path()
            .last()
            .expect("the path holds the initial state")
    }

    /// The timers armed while the machine is in `leaf`: those of `leaf` and of
    /// every ancestor (a composite's timers stay armed while the machine
    /// moves inside it), innermost level first, each level in declaration order.
    pub fn timers_in(&self, leaf: StateId) -> Vec<(TimerId, &Transition)> {
        self.ancestors_or_self(leaf)
            .flat_map(|s| self.timers_of(s))
            .collect()
    }

    /// Every timer of the machine in the order timers due at the same
    /// instant fire (docs/dsl.md, "How a step runs"): highest priority
    /// first; then by the state that declares it, each state after every
    /// state inside it and the states of one region after those of the
    /// regions written before (the order in which a walk of the tree in
    /// document order leaves each state); then in declaration order. Within
    /// the states active together with one leaf this is priority, then the
    /// innermost level, then declaration, as for transitions; with parallel
    /// states it puts each leaf's timers before those of the states holding
    /// it, leaves in document order, and a state holding several leaves
    /// after all of them.
    ///
    /// The one rule of ties: [`Machine::timer_trial_order`] is this order
    /// restricted to one leaf, and the plan's `Plan::timer_order` to groups.
    pub fn timer_tie_order(&self) -> Vec<TimerId> {
        // Each state's rank when a walk in document order leaves it.
        let mut children: Vec<Vec<StateId>> = vec![Vec::new(); self.states.len()];
        let mut roots = Vec::new();
        for s in self.state_ids() {
            match self.state(s).parent {
                Some(p) => children[p.index()].push(s),
                None => roots.push(s),
            }
        }
        fn leave(s: StateId, children: &[Vec<StateId>], rank: &mut [usize], next: &mut usize) {
            // Nesting is at most 32 levels deep, so this recursion is too.
            for &c in &children[s.index()] {
                leave(c, children, rank, next);
            }
            rank[s.index()] = *next;
            *next += 1;
        }
        let mut rank = vec![0; self.states.len()];
        let mut next = 0;
        for root in roots {
            leave(root, &children, &mut rank, &mut next);
        }
        let mut timers: Vec<TimerId> = (0..self.timers.len()).map(TimerId::from_index).collect();
        // Stable, so equal keys keep declaration order.
        timers.sort_by_key(|t| {
            let timer = &self.timers[t.index()];
            (
                std::cmp::Reverse(timer.priority),
                rank[timer.expect_state().index()],
            )
        });
        timers
    }

    /// The timers armed while the machine is in `leaf` (see
    /// [`Machine::timers_in`]) in the order they are tried when several are
    /// due at the same instant: [`Machine::timer_tie_order`] restricted to
    /// them, which is highest priority first, then the innermost level
    /// first, then declaration order, as transitions are. Each comes with
    /// its index among its own state's timers, which snapshots and
    /// `TimerFired` use. The earliest deadline always goes first; this
    /// order breaks ties, and orders a state's timers sharing one delay (a
    /// group, tried together when it comes due).
    pub fn timer_trial_order(&self, leaf: StateId) -> Vec<(TimerId, u32)> {
        self.timer_trial_order_in(leaf, &self.timer_tie_order())
    }

    /// [`Machine::timer_trial_order`], given the machine's
    /// [`Machine::timer_tie_order`] (computed once for every leaf).
    pub fn timer_trial_order_in(&self, leaf: StateId, tie_order: &[TimerId]) -> Vec<(TimerId, u32)> {
        let levels: Vec<StateId> = self.ancestors_or_self(leaf).collect();
        if levels.iter().all(|&s| self.timers_of(s).next().is_none()) {
            return Vec::new();
        }
        tie_order
            .iter()
            .copied()
            .filter_map(|id| {
                let state = self.timer(id).expect_state();
                if !levels.contains(&state) {
                    return None;
                }
                let index = self.timers_of(state).position(|(t, _)| t == id)?;
                Some((id, index as u32))
            })
            .collect()
    }

    /// The domain of a transition declared at `source` to `target` (through
    /// its history when `history` is set): the state whose inside it changes,
    /// `None` for the machine itself. The one rule, [`Machine::config_domain`],
    /// with a region's parallel state standing for the region.
    pub fn domain(&self, source: Source, target: StateId, history: Option<HistoryKind>) -> Option<StateId> {
        match self.config_domain(source, target, history) {
            Domain::Root => None,
            Domain::State(d) => Some(d),
            Domain::Region(r) => self.state(r).parent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{id, lowered, machine, CALL};

    fn names(m: &Machine, ids: &[StateId]) -> Vec<String> {
        ids.iter().map(|&s| m.state(s).name.clone()).collect()
    }

    #[test]
    fn history_composites_and_timer_order() {
        let m = machine(CALL);
        assert_eq!(names(&m, &m.history_composites()), ["connected"]);
        let m = machine(
            "machine T { initial state a { after 1s -> b; initial state a1 { after 1s -> b; after 2s priority 1 -> b; } } \
             state b { on go -> a.deep_history; } }",
        );
        let a1 = id(&m, "a1");
        let order: Vec<(String, u32)> = m
            .timer_trial_order(a1)
            .into_iter()
            .map(|(t, i)| (m.state(m.timer(t).expect_state()).name.clone(), i))
            .collect();
        // Priority first, then the innermost level, then declaration order.
        assert_eq!(order, [("a1".into(), 1), ("a1".into(), 0), ("a".into(), 0)]);
        assert_eq!(names(&m, &m.history_composites()), ["a"]);
    }

    #[test]
    fn timer_ties_put_each_leaf_before_the_states_holding_it() {
        let m = machine(
            "machine T { initial state idle { on go -> p; } \
             parallel state p { after 2s emit p_tick; on stop -> idle; \
             state r1 { after 2s emit r1_tick; initial state a { after 2s emit a_tick; } } \
             state r2 { initial state b { after 2s emit b_tick; after 3s priority 1 emit b_first; } } } }",
        );
        let order: Vec<String> = m
            .timer_tie_order()
            .into_iter()
            .map(|t| m.state(m.timer(t).expect_state()).name.clone())
            .collect();
        // Priority across regions; then leaves in document order, each
        // before the states holding it, `p` after every leaf inside it.
        assert_eq!(order, ["b", "a", "r1", "b", "p"]);
        let order: Vec<String> = m
            .timer_trial_order(id(&m, "b"))
            .into_iter()
            .map(|(t, _)| m.state(m.timer(t).expect_state()).name.clone())
            .collect();
        assert_eq!(order, ["b", "b", "p"]);
    }

    #[test]
    fn the_tree() {
        let m = machine(CALL);
        assert!(m.is_nested());
        let bridged = id(&m, "bridged");
        assert_eq!(
            names(&m, &m.ancestors(bridged).collect::<Vec<_>>()),
            ["transferring", "connected"]
        );
        assert_eq!(m.state(bridged).depth, 3);
        assert_eq!(m.state(id(&m, "idle")).depth, 1);
        assert_eq!(
            names(&m, &m.leaves().collect::<Vec<_>>()),
            [
                "idle",
                "connecting",
                "talking",
                "on_hold",
                "dialing_third",
                "bridged",
                "paused"
            ]
        );
        assert_eq!(m.initial_leaf(), id(&m, "idle"));
        assert_eq!(names(&m, &m.initial_descent(id(&m, "connected"))), ["talking"]);
        assert_eq!(m.timers_in(bridged).len(), 1);
        assert!(m.timers_in(id(&m, "idle")).is_empty());
    }

    #[test]
    fn candidates_by_priority_then_depth_then_declaration() {
        let m = machine(CALL);
        let hang_up =
            crate::model::ActionId(m.actions.iter().position(|a| a.name == "hang_up").unwrap() as u32);
        // on_hold overrides its parent's hang_up; talking inherits it.
        let from = |leaf: &str| {
            m.candidates(id(&m, leaf), hang_up)
                .iter()
                .map(|&t| match m.transition(t).source {
                    Source::State(s) => m.state(s).name.clone(),
                    Source::Any => "*".into(),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(from("on_hold"), ["on_hold", "connected"]);
        assert_eq!(from("talking"), ["connected"]);
        assert_eq!(from("bridged"), ["connected"]);
        assert!(from("idle").is_empty());

        // An explicit priority lets a parent interrupt its child; `any` is
        // the outermost level and skips terminal states.
        let m = lowered(
            "machine M { initial state p { on x -> q; on y priority 1 -> q; initial state a { on x -> b; on y -> b; } state b; } state q { on z -> p; } terminal state t; any { on x -> t; on y priority 1 -> t; } }",
        );
        let order = |leaf: &str, action: &str| {
            let a = crate::model::ActionId(m.actions.iter().position(|x| x.name == action).unwrap() as u32);
            m.candidates(id(&m, leaf), a)
                .iter()
                .map(|&t| {
                    let t = m.transition(t);
                    m.state(t.target.unwrap()).name.clone()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(order("a", "x"), ["b", "q", "t"]);
        assert_eq!(order("a", "y"), ["q", "t", "b"]);
        assert_eq!(order("b", "x"), ["q", "t"]);
        assert!(order("t", "x").is_empty());
    }
}
