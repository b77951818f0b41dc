//! Steps over configurations: the semantics of parallel states, `done`,
//! `always` and `in(...)`, written as plainly as W3C SCXML 1.0, Appendix D
//! writes them (`selectTransitions`, `removeConflictingTransitions`,
//! `computeExitSet`, `computeEntrySet`, `microstep`), with fsmc's
//! differences, which docs/dsl.md states with their reasons:
//!
//! - candidates are tried in fsmc's order (priority, then the innermost
//!   level, then declaration, `any` outermost), and conflicts are resolved by
//!   priority first, then by the source lying inside the other's source,
//!   then by the order chosen;
//! - a transition whose source and target lie in one region of a parallel
//!   state stays in that region ([`Domain::Region`]): computed as if the
//!   region were the whole machine; a transition declared on a parallel
//!   state to a state inside it re-enters only the region holding its
//!   target, and the sibling regions keep their state;
//! - completion bubbles up: a parallel state is done when every region is,
//!   and a region that is itself parallel counts when it is done
//!   ([`Machine::is_done`]);
//! - after a step, `always` transitions are tried first, then the `done`
//!   transitions of the states the step made done, innermost first, each as
//!   its own step, until nothing more is enabled ([`Machine::settle`]).
//!
//! This is the model's executable account of a step, for the plan and the
//! checks, and the reference the engines are tested against. It favours
//! clarity over speed: configurations are sets, and every question walks
//! the tree.

use super::{EventlessKind, HistoryKind, Machine, Source, StateId, TimerId, TransitionId};
use std::collections::{BTreeMap, BTreeSet};

/// The set of active states. State ids are in document order (a parent
/// before its children, siblings as written), so iterating the set is entry
/// order, and iterating it backwards is exit order.
pub type Configuration = BTreeSet<StateId>;

/// The most microsteps one `fire` may take: past it, a guarded cycle of
/// `always` or `done` transitions stops with [`Settled::Runaway`].
pub const MAX_MICROSTEPS: usize = 1000;

/// A transition of any kind, as steps choose it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Chosen {
    /// `on ACTION ...;`
    Action(TransitionId),
    /// `after ...;`
    Timer(TimerId),
    /// `done ...;` or `always ...;`: an index of [`Machine::eventless`].
    Eventless(usize),
}

/// What a transition changes: the states inside it, or one region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// The machine itself: every active state may be exited.
    Root,
    /// The active states strictly inside this one are exited.
    State(StateId),
    /// This region of a parallel state, and the active states inside it,
    /// are exited: the rest of the parallel state keeps its state.
    Region(StateId),
}

/// For each state that has been left (with states inside it), the leaves
/// that were active inside it when it was last left, in document order:
/// one leaf, unless parallel states were inside.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// State → the leaves last active inside it.
    pub last_leaves: BTreeMap<StateId, Vec<StateId>>,
}

/// One microstep: what it exited and entered, in order, and the
/// transitions it took, in the order chosen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Microstep {
    /// The transitions taken, in the order their actions run.
    pub taken: Vec<Chosen>,
    /// States exited, in exit order (the reverse of document order).
    pub exits: Vec<StateId>,
    /// States entered, in entry order (document order).
    pub entries: Vec<StateId>,
}

/// How a run of `always` and `done` transitions after a step ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Nothing more was enabled: the microsteps taken, in order.
    Stable(Vec<Microstep>),
    /// [`MAX_MICROSTEPS`] were taken and more were enabled: the microsteps
    /// taken (the machine is where the last one left it).
    Runaway(Vec<Microstep>),
}

impl Machine {
    /// The source, target, history and priority of a chosen transition.
    pub fn chosen_parts(&self, c: Chosen) -> (Source, Option<StateId>, Option<HistoryKind>, i32) {
        match c {
            Chosen::Action(t) => {
                let t = self.transition(t);
                (t.source, t.target, t.history, t.priority)
            }
            Chosen::Timer(t) => {
                let t = &self.timers[t.index()];
                (Source::State(t.state), t.target, t.history, t.priority)
            }
            Chosen::Eventless(i) => {
                let t = &self.eventless[i];
                (Source::State(t.state), t.target, t.history, t.priority)
            }
        }
    }

    /// The active leaves of `config`, in document order.
    pub fn active_leaves<'c>(&'c self, config: &'c Configuration) -> impl Iterator<Item = StateId> + 'c {
        config.iter().copied().filter(|&s| !self.state(s).is_composite())
    }

    /// True when `state` is done in `config` (see the module documentation).
    pub fn is_done(&self, config: &Configuration, state: StateId) -> bool {
        let st = self.state(state);
        if !config.contains(&state) {
            return false;
        }
        if st.is_parallel() {
            !st.children.is_empty() && st.children.iter().all(|&r| self.is_done(config, r))
        } else if st.is_composite() {
            st.children
                .iter()
                .any(|&c| config.contains(&c) && self.state(c).is_final())
        } else {
            st.is_final()
        }
    }

    /// The domain of a transition declared at `source` to `target` (see the
    /// module documentation).
    pub fn config_domain(&self, source: Source, target: StateId, history: Option<HistoryKind>) -> Domain {
        let declared = match source {
            Source::State(s) => s,
            Source::Any => return Domain::Root,
        };
        let holds = |d: StateId| (history.is_some() && d == target) || self.is_inside(target, d);
        let mut from = Some(declared);
        while let Some(d) = std::iter::successors(from, |&s| self.state(s).parent).find(|&d| holds(d)) {
            if d == target || !self.state(d).is_parallel() {
                return Domain::State(d);
            }
            // A parallel state holding the target: the region holding it is
            // the domain when the source is the parallel state itself or lies
            // in that region; from another region, look further out.
            let region = self
                .ancestors_or_self(target)
                .find(|&x| self.state(x).parent == Some(d))
                .expect("the target lies inside `d`");
            if declared == d || declared == region || self.is_inside(declared, region) {
                return Domain::Region(region);
            }
            from = self.state(d).parent;
        }
        Domain::Root
    }

    /// The active states a transition exits from `config`; none without a
    /// target.
    pub fn exit_set(&self, config: &Configuration, c: Chosen) -> Configuration {
        let (source, target, history, _) = self.chosen_parts(c);
        let Some(target) = target else {
            return Configuration::new();
        };
        match self.config_domain(source, target, history) {
            Domain::Root => config.clone(),
            Domain::State(d) => config.iter().copied().filter(|&s| self.is_inside(s, d)).collect(),
            Domain::Region(r) => config
                .iter()
                .copied()
                .filter(|&s| s == r || self.is_inside(s, r))
                .collect(),
        }
    }

    /// Keep the chosen transitions that do not conflict, as the fine print
    /// of docs/dsl.md says: in the order chosen, each is compared with those
    /// kept so far; it preempts a kept one it conflicts with when its
    /// priority is higher, or equal with a source inside the kept one's
    /// source; otherwise the kept one preempts it.
    pub fn remove_conflicts(&self, config: &Configuration, chosen: &[Chosen]) -> Vec<Chosen> {
        let mut kept: Vec<(Chosen, Configuration)> = Vec::new();
        for &c in chosen {
            let exits = self.exit_set(config, c);
            let (source, _, _, priority) = self.chosen_parts(c);
            let mut preempted = false;
            let mut to_remove = Vec::new();
            for (i, (k, k_exits)) in kept.iter().enumerate() {
                if exits.is_disjoint(k_exits) {
                    continue;
                }
                let (k_source, _, _, k_priority) = self.chosen_parts(*k);
                let inside = match (source, k_source) {
                    (Source::State(s), Source::State(ks)) => self.is_inside(s, ks),
                    (Source::State(_), Source::Any) => true,
                    (Source::Any, _) => false,
                };
                if priority > k_priority || priority == k_priority && inside {
                    to_remove.push(i);
                } else {
                    preempted = true;
                    break;
                }
            }
            if !preempted {
                for i in to_remove.into_iter().rev() {
                    kept.remove(i);
                }
                kept.push((c, exits));
            }
        }
        kept.into_iter().map(|(c, _)| c).collect()
    }

    /// The states a default entry of `state` adds below it to `out`, and
    /// `state` itself.
    fn enter_default(&self, state: StateId, out: &mut Configuration) {
        out.extend(self.default_entry(state));
    }

    /// The states entering `state` through its history adds (see
    /// [`Memory`]): the remembered leaves and the states down to them, or
    /// for a shallow history the remembered children entered by default; the
    /// default entry when nothing is remembered. A parallel state's shallow
    /// history enters every region by default.
    fn enter_history(&self, state: StateId, kind: HistoryKind, memory: &Memory, out: &mut Configuration) {
        out.insert(state);
        let Some(leaves) = memory.last_leaves.get(&state) else {
            self.enter_default(state, out);
            return;
        };
        match kind {
            HistoryKind::Deep => {
                for &leaf in leaves {
                    out.extend(self.ancestors_or_self(leaf).take_while(|&s| s != state));
                }
                // A parallel state on the way whose region held no remembered
                // leaf (never the case for a memory the engine wrote) enters
                // that region by default.
                self.complete(out);
            }
            HistoryKind::Shallow => {
                if self.state(state).is_parallel() {
                    self.enter_default(state, out);
                    return;
                }
                for &leaf in leaves {
                    let child = self
                        .ancestors_or_self(leaf)
                        .find(|&s| self.state(s).parent == Some(state))
                        .expect("a remembered leaf lies inside its state");
                    self.enter_default(child, out);
                }
            }
        }
    }

    /// Add default entries until `set` is a configuration: every active
    /// parallel state has every region, every active composite a child.
    fn complete(&self, set: &mut Configuration) {
        let mut changed = true;
        while changed {
            changed = false;
            for s in set.clone() {
                let st = self.state(s);
                if st.is_parallel() {
                    for &r in &st.children {
                        if !set.contains(&r) {
                            self.enter_default(r, set);
                            changed = true;
                        }
                    }
                } else if st.is_composite() && !st.children.iter().any(|c| set.contains(c)) {
                    let child = self.initial_child(s).expect("a composite has children");
                    self.enter_default(child, set);
                    changed = true;
                }
            }
        }
    }

    /// Take the transitions `taken` (free of conflicts) from `config`:
    /// exit, record history, enter. `config` becomes the new configuration.
    pub fn microstep(&self, config: &mut Configuration, taken: &[Chosen], memory: &mut Memory) -> Microstep {
        let mut exits = Configuration::new();
        for &c in taken {
            exits.extend(self.exit_set(config, c));
        }
        // History is recorded as the exits happen, before any entry reads it.
        for &s in &exits {
            if self.state(s).is_composite() {
                let leaves: Vec<StateId> = self
                    .active_leaves(config)
                    .filter(|&l| self.is_inside(l, s))
                    .collect();
                memory.last_leaves.insert(s, leaves);
            }
        }
        let mut after: Configuration = config.difference(&exits).copied().collect();
        let mut entries = Configuration::new();
        for &c in taken {
            let (source, target, history, _) = self.chosen_parts(c);
            let Some(target) = target else { continue };
            let domain = self.config_domain(source, target, history);
            // From just below the domain down to the target.
            let top = |s: StateId| match domain {
                Domain::Root => false,
                Domain::State(d) => s == d,
                Domain::Region(r) => self.state(r).parent == Some(s),
            };
            let mut path: Vec<StateId> = self.ancestors_or_self(target).take_while(|&s| !top(s)).collect();
            if history.is_some() && domain == Domain::State(target) {
                // `X.history` from inside `X`: `X` stays.
                path.retain(|&s| s != target);
            }
            entries.extend(path.iter().copied());
            match history {
                Some(kind) => {
                    let mut below = Configuration::new();
                    self.enter_history(target, kind, memory, &mut below);
                    if domain == Domain::State(target) {
                        below.remove(&target);
                    }
                    entries.extend(below);
                }
                None => self.enter_default(target, &mut entries),
            }
        }
        // Parallel states on the way in enter their other regions by
        // default; composites entered without a child, their initial one.
        let mut whole: Configuration = after.union(&entries).copied().collect();
        self.complete(&mut whole);
        let entries: Configuration = whole.difference(&after).copied().collect();
        after.extend(entries.iter().copied());
        *config = after;
        Microstep {
            taken: taken.to_vec(),
            exits: exits.into_iter().rev().collect(),
            entries: entries.into_iter().collect(),
        }
    }

    /// The first enabled candidate of each active leaf for `pick`, in
    /// document order of the leaves, each transition once.
    pub fn select(
        &self,
        config: &Configuration,
        mut candidates: impl FnMut(StateId) -> Vec<Chosen>,
        mut enabled: impl FnMut(Chosen) -> bool,
    ) -> Vec<Chosen> {
        let mut chosen: Vec<Chosen> = Vec::new();
        for leaf in self.active_leaves(config) {
            if let Some(c) = candidates(leaf).into_iter().find(|&c| enabled(c)) {
                if !chosen.contains(&c) {
                    chosen.push(c);
                }
            }
        }
        chosen
    }

    /// The `always` transitions tried in `leaf`: its own and its ancestors',
    /// by priority, then innermost first, then declaration.
    pub fn always_candidates(&self, leaf: StateId) -> Vec<Chosen> {
        let mut all: Vec<(usize, i32, u32)> = self
            .eventless
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.kind == EventlessKind::Always && (e.state == leaf || self.is_inside(leaf, e.state))
            })
            .map(|(i, e)| (i, e.priority, self.state(e.state).depth))
            .collect();
        all.sort_by_key(|&(i, p, depth)| (std::cmp::Reverse(p), std::cmp::Reverse(depth), i));
        all.into_iter().map(|(i, _, _)| Chosen::Eventless(i)).collect()
    }

    /// The `done` transitions of `state`, by priority, then declaration.
    pub fn done_candidates(&self, state: StateId) -> Vec<Chosen> {
        let mut all: Vec<(usize, i32)> = self
            .eventless
            .iter()
            .enumerate()
            .filter(|(_, e)| e.kind == EventlessKind::Done && e.state == state)
            .map(|(i, e)| (i, e.priority))
            .collect();
        all.sort_by_key(|&(i, p)| (std::cmp::Reverse(p), i));
        all.into_iter().map(|(i, _)| Chosen::Eventless(i)).collect()
    }

    /// The states `config` holds done that `before` did not (or that the step
    /// re-entered), innermost first, then in document order.
    fn made_done(&self, before: &Configuration, step: &Microstep, config: &Configuration) -> Vec<StateId> {
        let mut out: Vec<StateId> = config
            .iter()
            .copied()
            .filter(|&s| {
                self.state(s).is_composite()
                    && self.is_done(config, s)
                    && (!self.is_done(before, s)
                        || step.entries.contains(&s)
                        || self.entered_final_inside(step, s))
            })
            .collect();
        out.sort_by_key(|&s| (std::cmp::Reverse(self.state(s).depth), s));
        out
    }

    /// True when `step` entered a final state that completes `s`.
    fn entered_final_inside(&self, step: &Microstep, s: StateId) -> bool {
        step.entries
            .iter()
            .any(|&e| self.state(e).is_final() && self.is_inside(e, s))
    }

    /// After `first` (a step of an action or a timer), take the `always`
    /// transitions that are enabled, then the `done` transitions of the
    /// states the steps made done, innermost first, each as its own step,
    /// until nothing more is enabled. `enabled` answers for a guarded
    /// transition in the configuration it is given (`in(...)` reads that
    /// configuration: the one before the step).
    pub fn settle(
        &self,
        config: &mut Configuration,
        memory: &mut Memory,
        before: &Configuration,
        first: &Microstep,
        mut enabled: impl FnMut(&Configuration, Chosen) -> bool,
    ) -> Settled {
        let mut steps = Vec::new();
        let mut host = |config: &Configuration, c: Chosen| enabled(config, c);
        let stable = self.settle_with(
            config,
            memory,
            before,
            first,
            &mut SettleFn(&mut host, &mut steps),
        );
        if stable {
            Settled::Stable(steps)
        } else {
            Settled::Runaway(steps)
        }
    }

    /// [`settle`](Self::settle) for an engine: `host` answers for guards and
    /// is told of each microstep as soon as it is taken, so that the effects
    /// of one run before the guards of the next are asked. True when it
    /// ended stable, false when it ran away ([`MAX_MICROSTEPS`] taken and
    /// more enabled; the machine is where the last one left it).
    pub fn settle_with(
        &self,
        config: &mut Configuration,
        memory: &mut Memory,
        before: &Configuration,
        first: &Microstep,
        host: &mut impl SettleHost,
    ) -> bool {
        let mut taken_steps = 0usize;
        let mut pending: Vec<StateId> = self.made_done(before, first, config);
        loop {
            let snapshot = config.clone();
            let always = self.select(
                &snapshot,
                |leaf| self.always_candidates(leaf),
                |c| host.enabled(&snapshot, c),
            );
            let taken = if !always.is_empty() {
                self.remove_conflicts(&snapshot, &always)
            } else {
                // The innermost state the steps made done that is still done.
                let mut next = None;
                while let Some(d) = (!pending.is_empty()).then(|| pending.remove(0)) {
                    if !self.is_done(&snapshot, d) {
                        continue;
                    }
                    if let Some(c) = self
                        .done_candidates(d)
                        .into_iter()
                        .find(|&c| host.enabled(&snapshot, c))
                    {
                        next = Some(c);
                        break;
                    }
                }
                match next {
                    Some(c) => vec![c],
                    None => return true,
                }
            };
            if taken_steps == MAX_MICROSTEPS {
                return false;
            }
            let step = self.microstep(config, &taken, memory);
            let mut more = self.made_done(&snapshot, &step, config);
            more.retain(|s| !pending.contains(s));
            pending.extend(more);
            pending.sort_by_key(|&s| (std::cmp::Reverse(self.state(s).depth), s));
            taken_steps += 1;
            host.stepped(step);
        }
    }
}

/// What [`Machine::settle_with`] asks of the engine running it.
pub trait SettleHost {
    /// True when the guard of `c` holds in `config` (`in(...)` reads it).
    fn enabled(&mut self, config: &Configuration, c: Chosen) -> bool;
    /// `step` was just taken: run its effects, collect its outputs.
    fn stepped(&mut self, step: Microstep);
}

/// A [`SettleHost`] of a guard closure that keeps the microsteps.
struct SettleFn<'a, F>(&'a mut F, &'a mut Vec<Microstep>);

impl<F: FnMut(&Configuration, Chosen) -> bool> SettleHost for SettleFn<'_, F> {
    fn enabled(&mut self, config: &Configuration, c: Chosen) -> bool {
        (self.0)(config, c)
    }

    fn stepped(&mut self, step: Microstep) {
        self.1.push(step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{id, machine};
    use crate::model::{ActionId, GuardExpr};

    fn names(m: &Machine, ids: impl IntoIterator<Item = StateId>) -> Vec<String> {
        ids.into_iter().map(|s| m.state(s).name.clone()).collect()
    }

    /// A machine run by the model's semantics, with every guard true unless
    /// named in `false_guards`, and `in(...)` read from the configuration.
    struct Run<'m> {
        m: &'m Machine,
        config: Configuration,
        memory: Memory,
        false_guards: Vec<&'static str>,
    }

    impl<'m> Run<'m> {
        fn new(m: &'m Machine) -> Self {
            Run {
                m,
                config: m.initial_configuration().into_iter().collect(),
                memory: Memory::default(),
                false_guards: Vec::new(),
            }
        }

        fn guard_of(&self, c: Chosen) -> Option<&'m GuardExpr> {
            let m = self.m;
            match c {
                Chosen::Action(t) => m.transition(t).guard.as_ref().map(|g| &g.expr),
                Chosen::Timer(t) => m.timers[t.index()].guard.as_ref().map(|g| &g.expr),
                Chosen::Eventless(i) => m.eventless[i].guard.as_ref().map(|g| &g.expr),
            }
        }

        fn holds(&self, config: &Configuration, c: Chosen) -> bool {
            self.guard_of(c).is_none_or(|g| {
                g.eval(
                    &mut |v| {
                        !self
                            .false_guards
                            .contains(&self.m.guards[v.index()].name.as_str())
                    },
                    &mut |s| config.contains(&s),
                )
            })
        }

        /// Fire `action`; the leaves afterwards and every state exited and
        /// entered, in order, over all microsteps.
        fn fire(&mut self, action: &str) -> (Vec<String>, Vec<String>) {
            let m = self.m;
            let a = ActionId::from_index(m.actions.iter().position(|x| x.name == action).expect(action));
            let before = self.config.clone();
            let chosen = m.select(
                &before,
                |leaf| m.candidates(leaf, a).into_iter().map(Chosen::Action).collect(),
                |c| self.holds(&before, c),
            );
            let taken = m.remove_conflicts(&before, &chosen);
            let mut config = self.config.clone();
            let mut memory = self.memory.clone();
            let first = m.microstep(&mut config, &taken, &mut memory);
            let mut trail = vec![first.clone()];
            let settled = m.settle(&mut config, &mut memory, &before, &first, |cfg, c| {
                self.holds(cfg, c)
            });
            let Settled::Stable(more) = settled else {
                panic!("runaway");
            };
            trail.extend(more);
            self.config = config;
            self.memory = memory;
            let moves = trail
                .iter()
                .flat_map(|s| {
                    s.exits
                        .iter()
                        .map(|&x| format!("-{}", m.state(x).name))
                        .chain(s.entries.iter().map(|&x| format!("+{}", m.state(x).name)))
                })
                .collect();
            (names(m, m.active_leaves(&self.config)), moves)
        }
    }

    const RESEARCH: &str = "machine Research {
        initial state idle { on start -> collect; }
        parallel state collect {
            on cancel -> cancelled;
            done [in(a_done)] priority 1 -> synthesis;
            done -> partial_synthesis;
            state researcher_a {
                initial state a_running { on a_written -> a_done; on a_failed -> a_gave_up; }
                final state a_done;
                final state a_gave_up;
            }
            state researcher_b {
                initial state b_running { on b_written -> b_done; }
                final state b_done;
            }
        }
        state synthesis { on s_written -> delivered; }
        state partial_synthesis { on s_written -> delivered; }
        terminal state delivered;
        terminal state cancelled;
    }";

    #[test]
    fn a_parallel_state_completes_when_every_region_is_done_in_the_same_fire() {
        let m = machine(RESEARCH);
        let mut run = Run::new(&m);
        assert_eq!(run.fire("start").0, ["a_running", "b_running"]);
        assert_eq!(run.fire("a_written").0, ["a_done", "b_running"]);
        let (leaves, moves) = run.fire("b_written");
        assert_eq!(leaves, ["synthesis"], "{moves:?}");
        // The step into `b_done`, then the `done` of `collect` in the same fire,
        // `in(a_done)` read before it: exits in reverse document order.
        assert_eq!(
            moves,
            [
                "-b_running",
                "+b_done",
                "-b_done",
                "-researcher_b",
                "-a_done",
                "-researcher_a",
                "-collect",
                "+synthesis"
            ]
        );
        let mut run = Run::new(&m);
        run.fire("start");
        run.fire("a_failed");
        assert_eq!(run.fire("b_written").0, ["partial_synthesis"]);
    }

    #[test]
    fn regions_fire_on_one_action_together_and_a_transition_out_takes_them_all() {
        let m = machine(
            "machine M { initial state idle { on go -> p; } parallel state p { on stop -> idle; \
             state a { initial state a1 { on x -> a2; } state a2; } \
             state b { initial state b1 { on x -> b2; } state b2 { on stop [g] priority 1 -> b1; } } } }",
        );
        let mut run = Run::new(&m);
        run.fire("go");
        assert_eq!(run.fire("x").0, ["a2", "b2"]);
        // `b2`'s own `stop` (priority 1) and `p`'s conflict: the higher priority wins.
        assert_eq!(run.fire("stop").0, ["a2", "b1"]);
        assert_eq!(run.fire("stop").0, ["idle"]);
    }

    #[test]
    fn a_transition_on_the_parallel_state_into_one_region_keeps_its_siblings() {
        // XState #5214: a transition declared on the parallel state to a
        // state in one region must not reset the other regions.
        let m = machine(
            "machine M { initial state idle { on go -> p; } parallel state p { on reset_a -> a1; \
             state a { initial state a1 { on x -> a2; } state a2; } \
             state b { initial state b1 { on y -> b2; } state b2; } } }",
        );
        let mut run = Run::new(&m);
        run.fire("go");
        run.fire("x");
        run.fire("y");
        let (leaves, moves) = run.fire("reset_a");
        assert_eq!(leaves, ["a1", "b2"]);
        assert_eq!(moves, ["-a2", "-a", "+a", "+a1"]);
    }

    #[test]
    fn a_transition_between_regions_reenters_the_parallel_state() {
        let m = machine(
            "machine M { initial state idle { on go -> p; } parallel state p { \
             state a { initial state a1 { on x -> b2; } state a2; } \
             state b { initial state b1 { on y -> b2; } state b2; } } }",
        );
        let mut run = Run::new(&m);
        run.fire("go");
        let (leaves, moves) = run.fire("x");
        assert_eq!(leaves, ["a1", "b2"]);
        assert_eq!(
            moves,
            ["-b1", "-b", "-a1", "-a", "-p", "+p", "+a", "+a1", "+b", "+b2"]
        );
    }

    #[test]
    fn history_of_a_parallel_state_restores_every_region_and_falls_back_when_never_visited() {
        // XState #3170, #4900, PR #5589.
        let m = machine(
            "machine M { initial state idle { on go -> p.deep_history; on shallow -> p.history; } \
             parallel state p { on out -> idle; \
             state a { initial state a1 { on x -> a2; } state a2; } \
             state b { initial state b1 { on y -> b2; } state b2; } } }",
        );
        let mut run = Run::new(&m);
        assert_eq!(run.fire("go").0, ["a1", "b1"], "never visited: the default entry");
        run.fire("x");
        run.fire("y");
        run.fire("out");
        assert_eq!(run.fire("go").0, ["a2", "b2"]);
        run.fire("out");
        assert_eq!(run.fire("shallow").0, ["a1", "b1"]);
    }

    #[test]
    fn always_transitions_run_in_the_same_fire_and_in_reads_the_configuration_before() {
        let m = machine(
            "machine M { initial state idle { on go -> route; } \
             state route { always [in(idle)] -> wrong; always [ready] -> tools; always -> waiting; } \
             state tools; state waiting; state wrong; }",
        );
        let mut run = Run::new(&m);
        run.false_guards = vec!["ready"];
        let (leaves, moves) = run.fire("go");
        assert_eq!(leaves, ["waiting"]);
        assert_eq!(moves, ["-idle", "+route", "-route", "+waiting"]);
        let mut run = Run::new(&m);
        assert_eq!(run.fire("go").0, ["tools"]);
    }

    #[test]
    fn a_done_bubbles_up_through_nested_parallel_states() {
        // XState #2349, #4381: `done` of a parallel state inside a parallel state.
        let m = machine(
            "machine M { initial state idle { on go -> outer; } \
             parallel state outer { done -> finished; \
               parallel state inner { state a { initial state a1 { on x -> a2; } final state a2; } \
                                      state b { initial state b1 { on x -> b2; } final state b2; } } \
               state c { initial state c1 { on y -> c2; } final state c2; } } \
             state finished; }",
        );
        let mut run = Run::new(&m);
        run.fire("go");
        assert_eq!(run.fire("x").0, ["a2", "b2", "c1"]);
        assert_eq!(run.fire("y").0, ["finished"]);
    }

    #[test]
    fn a_guarded_cycle_runs_away_at_the_bound() {
        let m = machine(
            "machine M { initial state idle { on go -> a; } state a { always [g] -> b; } state b { always [g] -> a; } }",
        );
        let mut config: Configuration = m.initial_configuration().into_iter().collect();
        let before = config.clone();
        let go = m.candidates(id(&m, "idle"), ActionId(0))[0];
        let mut memory = Memory::default();
        let first = m.microstep(&mut config, &[Chosen::Action(go)], &mut memory);
        match m.settle(&mut config, &mut memory, &before, &first, |_, _| true) {
            Settled::Runaway(steps) => assert_eq!(steps.len(), MAX_MICROSTEPS),
            Settled::Stable(_) => panic!("a cycle that always holds must run away"),
        }
    }
}
