//! Guard expressions, flattened into one arena per definition and evaluated
//! lazily: each guard is asked at most once per `fire`, and only when a
//! candidate's expression needs it.

use super::ids::GuardId;
use fsm_grammar::model::GuardExpr;

/// A node of a guard expression; children are indices into the arena.
#[derive(Clone, Copy, Debug)]
enum Node {
    Guard(GuardId),
    /// False: what an expression whose `in(...)` tests decide it false in
    /// one leaf becomes ([`Conditions::never`]).
    Never,
    Not(u32),
    And(u32, u32),
    Or(u32, u32),
}

/// Every guard expression of a definition.
#[derive(Clone, Debug, Default)]
pub(crate) struct Conditions {
    nodes: Vec<Node>,
}

/// An expression in a [`Conditions`] arena: the index of its root node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ConditionId(u32);

impl Conditions {
    /// Add `expr` and return its root.
    pub(crate) fn add(&mut self, expr: &GuardExpr) -> ConditionId {
        let node = match expr {
            GuardExpr::Var(guard) => Node::Guard(GuardId::from_index(guard.index())),
            // Decided per leaf before it is added (`Machine::decide_in_leaf`);
            // a machine with parallel states evaluates the model's
            // expressions instead.
            GuardExpr::In(_) => Node::Never,
            GuardExpr::Not(inner) => Node::Not(self.add(inner).0),
            GuardExpr::And(left, right) => Node::And(self.add(left).0, self.add(right).0),
            GuardExpr::Or(left, right) => Node::Or(self.add(left).0, self.add(right).0),
        };
        let index = u32::try_from(self.nodes.len()).expect("fewer than 2^32 guard nodes");
        self.nodes.push(node);
        ConditionId(index)
    }

    /// A condition that never holds.
    pub(crate) fn never(&mut self) -> ConditionId {
        let index = u32::try_from(self.nodes.len()).expect("fewer than 2^32 guard nodes");
        self.nodes.push(Node::Never);
        ConditionId(index)
    }

    /// Evaluate `condition` with short-circuiting `&&` and `||`, asking
    /// `guard` for each guard's value unless `cache` already holds it.
    #[inline]
    pub(crate) fn eval(
        &self,
        condition: ConditionId,
        cache: &mut GuardCache,
        guard: &mut impl FnMut(GuardId) -> bool,
    ) -> bool {
        // Most guards are a single name: no call into the recursion.
        match self.nodes[condition.0 as usize] {
            Node::Guard(id) => cache.get_or_eval(id, guard),
            _ => self.eval_node(condition, cache, guard),
        }
    }

    /// Evaluate `condition` with short-circuiting `&&` and `||`, asking
    /// `guard` for each guard the evaluation reaches: for expressions in
    /// which no guard occurs twice, where nothing needs remembering.
    #[inline]
    pub(crate) fn eval_uncached(
        &self,
        condition: ConditionId,
        guard: &mut impl FnMut(GuardId) -> bool,
    ) -> bool {
        match self.nodes[condition.0 as usize] {
            Node::Guard(id) => guard(id),
            Node::Not(inner) => match self.nodes[inner as usize] {
                Node::Guard(id) => !guard(id),
                _ => !self.eval_node(ConditionId(inner), &mut GuardCache::default(), guard),
            },
            _ => self.eval_node(condition, &mut GuardCache::default(), guard),
        }
    }

    fn eval_node(
        &self,
        condition: ConditionId,
        cache: &mut GuardCache,
        guard: &mut impl FnMut(GuardId) -> bool,
    ) -> bool {
        match self.nodes[condition.0 as usize] {
            Node::Guard(id) => cache.get_or_eval(id, guard),
            Node::Never => false,
            Node::Not(inner) => !self.eval_node(ConditionId(inner), cache, guard),
            Node::And(left, right) => {
                self.eval_node(ConditionId(left), cache, guard)
                    && self.eval_node(ConditionId(right), cache, guard)
            }
            Node::Or(left, right) => {
                self.eval_node(ConditionId(left), cache, guard)
                    || self.eval_node(ConditionId(right), cache, guard)
            }
        }
    }
}

/// The guard values known so far in one `fire`. Two bit sets cover the
/// first 128 guards without allocating; a machine with more guards spills
/// the rest into a vector, allocated the first time one of them is asked.
#[derive(Debug, Default)]
pub(crate) struct GuardCache {
    known: u128,
    value: u128,
    /// For guard `128 + i`: 0 unknown, 1 false, 2 true.
    spill: Vec<u8>,
}

impl GuardCache {
    /// The value of `id`, asking `guard` the first time.
    #[inline]
    fn get_or_eval(&mut self, id: GuardId, guard: &mut impl FnMut(GuardId) -> bool) -> bool {
        let index = id.index();
        if index < 128 {
            let bit = 1u128 << index;
            if self.known & bit == 0 {
                self.known |= bit;
                if guard(id) {
                    self.value |= bit;
                }
            }
            return self.value & bit != 0;
        }
        let slot = index - 128;
        if self.spill.len() <= slot {
            self.spill.resize(slot + 1, 0);
        }
        if self.spill[slot] == 0 {
            self.spill[slot] = 1 + u8::from(guard(id));
        }
        self.spill[slot] == 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guard expression of the only transition of a machine, with the
    /// machine's guard names in order of first use.
    fn condition_of(guard: &str) -> (Conditions, ConditionId, Vec<String>) {
        let text = format!("machine M {{ initial state s {{ on go [{guard}] -> s; }} }}");
        let model = fsm_grammar::check(&text)
            .into_model()
            .expect("the test machine checks");
        let machine = &model.machines[0];
        let mut conditions = Conditions::default();
        let expr = &machine.transitions[0].guard.as_ref().expect("guarded").expr;
        let root = conditions.add(expr);
        let names = machine.guards.iter().map(|g| g.name.clone()).collect();
        (conditions, root, names)
    }

    /// Evaluate with the guards named in `true_guards` true, and return the
    /// result and the guards asked, in order.
    fn eval(guard: &str, true_guards: &[&str]) -> (bool, Vec<String>) {
        let (conditions, root, names) = condition_of(guard);
        let mut asked = Vec::new();
        let mut cache = GuardCache::default();
        let result = conditions.eval(root, &mut cache, &mut |id| {
            let name = names[id.index()].clone();
            let value = true_guards.contains(&name.as_str());
            asked.push(name);
            value
        });
        (result, asked)
    }

    #[test]
    fn short_circuits_like_rust() {
        assert_eq!(eval("a && b", &[]), (false, vec!["a".into()]));
        assert_eq!(eval("a || b", &["a"]), (true, vec!["a".into()]));
        assert_eq!(eval("!a && b", &["b"]), (true, vec!["a".into(), "b".into()]));
        assert_eq!(
            eval("(a || b) && !c", &["b"]),
            (true, vec!["a".into(), "b".into(), "c".into()])
        );
    }

    #[test]
    fn asks_each_guard_once() {
        assert_eq!(eval("a && !a || a", &["a"]), (true, vec!["a".into()]));
    }

    #[test]
    fn spills_past_128_guards() {
        let mut cache = GuardCache::default();
        let mut asked = 0;
        let mut guard = |id: GuardId| {
            asked += 1;
            id.index().is_multiple_of(2)
        };
        for index in [0, 127, 128, 300, 300, 128, 0] {
            let value = cache.get_or_eval(GuardId::from_index(index), &mut guard);
            assert_eq!(value, index.is_multiple_of(2), "guard {index}");
        }
        assert_eq!(asked, 4);
    }
}
