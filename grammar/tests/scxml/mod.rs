//! Random machines with parallel states, `done`, `always`, `in(...)` and
//! history, and an independent reference that runs them, written from W3C SCXML 1.0, Appendix D (`selectTransitions`,
//! `removeConflictingTransitions`, `computeExitSet`, `computeEntrySet`,
//! `addDescendantStatesToEnter`, `addAncestorStatesToEnter`, the `done.state`
//! events of `enterStates`) and from docs/dsl.md where fsmc differs:
//!
//! - candidates by priority, then innermost level, then declaration, `any`
//!   outermost; conflicts by priority, then a source inside the other's;
//! - a transition whose source and target lie in one region of a parallel
//!   state (or that a parallel state declares into one of its regions)
//!   changes that region only;
//! - a `done` is an internal event raised for every state a step makes done,
//!   bubbling up through parallel states without limit, handled innermost
//!   first after the eventless transitions, and tried once;
//! - history remembers, per state, its active atomic descendants (deep) or
//!   active children (shallow), as SCXML's history states do, and a parallel
//!   state's shallow history re-enters every region by default.
//!
//! The reference of `tests/differential` (the generated code and the
//! dynamic engine must agree with it on every configuration, and on every
//! state exited and entered, in order), whose `build.rs` generates code for
//! some of these machines; `fsm-dynamic` reads the random machines too.

#![allow(dead_code)]

use fsm_grammar::model::{Chosen, EventlessKind, GuardExpr, HistoryKind, Machine, Source, StateId, Trigger};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// xorshift64*, reproducible from its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as usize % n.max(1)
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A random state tree with parallel states and final leaves, and random
/// transitions of every kind. Only what the checker accepts is used.
pub fn random_machine(seed: u64) -> String {
    random_machine_with(seed, false)
}

/// [`random_machine`], with `hooks`: every state emits `in_sK` when entered
/// and `out_sK` when left, so that an engine's outputs show every state it
/// exits and enters, in order.
pub fn random_machine_with(seed: u64, hooks: bool) -> String {
    generate(seed, hooks, false, false)
}

/// [`random_machine_with`] with hooks and timers: some states arm
/// `after 100ms`, `200ms` or `300ms` timers, guarded or not, with a target or
/// internal (emitting `tick`). The reference does not run timers; the
/// engines are compared with each other on these.
pub fn random_machine_with_timers(seed: u64) -> String {
    generate(seed, true, true, false)
}

/// [`random_machine_with_timers`] over a context: action `a` carries a
/// `u32` payload, which guard `p0` and effect `r0` read on `a`'s
/// transitions; transitions, timers and some hooks run effects (`do e0`,
/// `do e1, e0`); some timers wait a named delay (`after d0`), which the
/// context computes. One seed in three has payloads and no context (nor
/// effects and named delays): its guards are the caller's. The reference
/// runs none of it.
pub fn random_machine_with_data(seed: u64) -> String {
    generate(seed, true, true, true)
}

fn generate(seed: u64, hooks: bool, timers: bool, data: bool) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    // Over a context, with effects and named delays; or payloads alone.
    let context = data && !seed.is_multiple_of(3);
    // kind: 0 leaf, 1 composite, 2 parallel; children filled below.
    struct Node {
        parent: Option<usize>,
        kind: u8,
        children: Vec<usize>,
        is_final: bool,
        depth: usize,
    }
    let mut nodes: Vec<Node> = Vec::new();
    let top = 2 + rng.below(3);
    let mut queue: Vec<usize> = Vec::new();
    for _ in 0..top {
        nodes.push(Node {
            parent: None,
            kind: 0,
            children: Vec::new(),
            is_final: false,
            depth: 1,
        });
        queue.push(nodes.len() - 1);
    }
    let mut i = 0;
    while i < queue.len() && nodes.len() < 22 {
        let n = queue[i];
        i += 1;
        let depth = nodes[n].depth;
        let parent_parallel = nodes[n].parent.is_some_and(|p| nodes[p].kind == 2);
        if depth >= 4 || (!parent_parallel && !rng.chance(45)) {
            continue;
        }
        let parallel = rng.chance(40);
        nodes[n].kind = if parallel { 2 } else { 1 };
        let count = 2 + rng.below(2);
        for _ in 0..count {
            nodes.push(Node {
                parent: Some(n),
                kind: 0,
                children: Vec::new(),
                is_final: false,
                depth: depth + 1,
            });
            let c = nodes.len() - 1;
            nodes[n].children.push(c);
            queue.push(c);
        }
    }
    // Regions of a parallel state are composites: give a leaf region two leaves.
    let mut k = 0;
    while k < nodes.len() {
        let is_region = nodes[k].parent.is_some_and(|p| nodes[p].kind == 2);
        if is_region && nodes[k].kind == 0 {
            nodes[k].kind = 1;
            for _ in 0..2 {
                let depth = nodes[k].depth + 1;
                nodes.push(Node {
                    parent: Some(k),
                    kind: 0,
                    children: Vec::new(),
                    is_final: false,
                    depth,
                });
                let c = nodes.len() - 1;
                nodes[k].children.push(c);
            }
        }
        k += 1;
    }
    // Some non-initial leaves of composites are final.
    for c in 0..nodes.len() {
        let Some(p) = nodes[c].parent else { continue };
        if nodes[p].kind == 1 && nodes[c].kind == 0 && nodes[p].children[0] != c && rng.chance(50) {
            nodes[c].is_final = true;
        }
    }
    let name = |i: usize| format!("s{i}");
    let targets: Vec<usize> = (0..nodes.len()).collect();
    let guards = ["g0", "g1", "g2"];
    let actions = ["a", "b", "c"];
    let mut body: Vec<String> = vec![String::new(); nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        if node.is_final {
            continue;
        }
        let guard = |rng: &mut Rng| -> String {
            match rng.below(6) {
                0 | 1 => String::new(),
                2 => format!(" [{}]", guards[rng.below(3)]),
                3 => format!(" [!{}]", guards[rng.below(3)]),
                4 => format!(" [in({})]", name(rng.below(nodes.len()))),
                _ => format!(
                    " [{} && !in({})]",
                    guards[rng.below(3)],
                    name(rng.below(nodes.len()))
                ),
            }
        };
        let target = |rng: &mut Rng| -> String {
            let t = targets[rng.below(targets.len())];
            let history = match (nodes[t].kind, rng.below(6)) {
                (1 | 2, 0) => ".history",
                (1 | 2, 1) => ".deep_history",
                _ => "",
            };
            format!(" -> {}{history}", name(t))
        };
        // With data: effects, and on `a` (which carries a payload) the
        // guard and the effect that read it.
        let effects = |rng: &mut Rng, on_a: bool| -> &'static str {
            if !context {
                return "";
            }
            match rng.below(6) {
                0 => " do e0",
                1 => " do e1, e0",
                2 if on_a => " do r0",
                3 if on_a => " do e1, r0",
                _ => "",
            }
        };
        let count = rng.below(3);
        for _ in 0..count {
            let mut g = guard(&mut rng);
            let p = if rng.chance(20) { " priority 1" } else { "" };
            let t = if rng.chance(85) {
                target(&mut rng)
            } else {
                String::new()
            };
            let action = actions[rng.below(3)];
            let on_a = action == "a";
            if data && on_a {
                match rng.below(4) {
                    0 => g = " [p0]".to_owned(),
                    1 => g = format!(" [p0 && !{}]", guards[rng.below(3)]),
                    _ => {}
                }
            }
            let e = effects(&mut rng, on_a);
            let _ = write!(body[i], " on {action}{g}{p}{t}{e};");
        }
        if node.kind != 0 && rng.chance(50) {
            let g = guard(&mut rng);
            let t = target(&mut rng);
            let e = effects(&mut rng, false);
            let _ = write!(body[i], " done{g}{t}{e};");
        }
        if rng.chance(15) {
            // Guarded, so that only the checker's cycles are unguarded.
            let t = target(&mut rng);
            let e = effects(&mut rng, false);
            let _ = write!(body[i], " always [{}]{t}{e};", guards[rng.below(3)]);
        }
        if timers && rng.chance(35) {
            for _ in 0..1 + rng.below(2) {
                let delay = if context && rng.chance(30) {
                    "d0"
                } else {
                    ["100ms", "200ms", "300ms"][rng.below(3)]
                };
                let g = guard(&mut rng);
                let t = if rng.chance(80) {
                    target(&mut rng)
                } else {
                    " emit tick".to_owned()
                };
                let e = effects(&mut rng, false);
                let _ = write!(body[i], " after {delay}{g}{t}{e};");
            }
        }
    }
    if hooks {
        for (i, body) in body.iter_mut().enumerate() {
            let (enter, exit) = match context.then(|| rng.below(4)) {
                Some(0) => (" do e0", ""),
                Some(1) => ("", " do e1"),
                _ => ("", ""),
            };
            let _ = write!(body, " enter{enter} emit in_s{i}; exit{exit} emit out_s{i};");
        }
    }
    fn write_state(nodes: &[Node], i: usize, initial: bool, body: &[String], out: &mut String) {
        let node = &nodes[i];
        let mut modifiers = String::new();
        if initial {
            modifiers.push_str("initial ");
        }
        if node.is_final {
            modifiers.push_str("final ");
        }
        if node.kind == 2 {
            modifiers.push_str("parallel ");
        }
        let _ = write!(out, "{modifiers}state s{i} {{{}", body[i]);
        for (k, &c) in node.children.iter().enumerate() {
            out.push(' ');
            write_state(nodes, c, node.kind == 1 && k == 0, body, out);
        }
        out.push_str(" }");
    }
    let mut out = format!("#[allow(unreachable-state, dead-end, no-path-to-terminal)] machine R{seed} {{");
    if context {
        out.push_str(
            " context Ctx; action a(u32), b, c; guard g0, g1, g2, p0(u32); effect e0, e1, r0(u32); delay d0;",
        );
    } else if data {
        out.push_str(" action a(u32), b, c; guard g0, g1, g2, p0(u32);");
    }
    for (i, node) in nodes.iter().enumerate().filter(|(_, n)| n.parent.is_none()) {
        out.push(' ');
        write_state(&nodes, i, i == 0, &body, &mut out);
        let _ = node;
    }
    if rng.chance(40) {
        let _ = write!(out, " any {{ on c -> s{}; }}", rng.below(nodes.len()));
    }
    out.push_str(" }");
    out
}

/// The reference: a configuration, SCXML-style history, and the steps.
pub struct Reference<'m> {
    m: &'m Machine,
    pub config: BTreeSet<StateId>,
    /// Per state left: deep (its active leaves) and shallow (its active children).
    deep: BTreeMap<StateId, BTreeSet<StateId>>,
    shallow: BTreeMap<StateId, BTreeSet<StateId>>,
}

/// One transition as the reference sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct T {
    chosen: Chosen,
    source: Option<StateId>,
    target: Option<StateId>,
    history: Option<HistoryKind>,
    priority: i32,
}

impl<'m> Reference<'m> {
    pub fn new(m: &'m Machine) -> Self {
        let mut r = Reference {
            m,
            config: BTreeSet::new(),
            deep: BTreeMap::new(),
            shallow: BTreeMap::new(),
        };
        let initial = m
            .states
            .iter()
            .position(|s| s.parent.is_none() && s.initial)
            .map(StateId::from_index)
            .expect("an initial state");
        let mut entry = BTreeSet::new();
        r.add_descendants(initial, &mut entry);
        r.config = entry;
        r
    }

    fn parent(&self, s: StateId) -> Option<StateId> {
        self.m.state(s).parent
    }

    fn proper_ancestors(&self, s: StateId, upto: Option<StateId>) -> Vec<StateId> {
        let mut out = Vec::new();
        let mut at = self.parent(s);
        while let Some(a) = at {
            if Some(a) == upto {
                break;
            }
            out.push(a);
            at = self.parent(a);
        }
        out
    }

    fn is_descendant(&self, s: StateId, of: StateId) -> bool {
        self.proper_ancestors(s, None).contains(&of)
    }

    fn is_parallel(&self, s: StateId) -> bool {
        self.m.state(s).is_parallel()
    }

    fn is_compound(&self, s: StateId) -> bool {
        !self.m.state(s).children.is_empty() && !self.is_parallel(s)
    }

    fn atomic(&self, s: StateId) -> bool {
        self.m.state(s).children.is_empty()
    }

    fn initial_child(&self, s: StateId) -> StateId {
        let children = &self.m.state(s).children;
        children
            .iter()
            .copied()
            .find(|&c| self.m.state(c).initial)
            .unwrap_or(children[0])
    }

    /// `addDescendantStatesToEnter` for a state without history.
    fn add_descendants(&self, s: StateId, out: &mut BTreeSet<StateId>) {
        out.insert(s);
        if self.is_compound(s) {
            self.add_descendants(self.initial_child(s), out);
        } else if self.is_parallel(s) {
            for &c in &self.m.state(s).children {
                if !out.iter().any(|&x| x == c || self.is_descendant(x, c)) {
                    self.add_descendants(c, out);
                }
            }
        }
    }

    /// `addDescendantStatesToEnter` for `s.history` / `s.deep_history`.
    fn add_history(&self, s: StateId, kind: HistoryKind, out: &mut BTreeSet<StateId>) {
        let remembered = match kind {
            HistoryKind::Deep => self.deep.get(&s),
            HistoryKind::Shallow if self.is_parallel(s) => None,
            HistoryKind::Shallow => self.shallow.get(&s),
        };
        out.insert(s);
        match remembered {
            None => {
                // Never left: the default entry.
                out.remove(&s);
                self.add_descendants(s, out);
            }
            Some(states) => {
                for &x in states {
                    match kind {
                        HistoryKind::Shallow => self.add_descendants(x, out),
                        HistoryKind::Deep => {
                            out.insert(x);
                            out.extend(self.proper_ancestors(x, Some(s)));
                        }
                    }
                }
                // Regions of parallel states on the way that hold nothing yet.
                self.fill(out);
            }
        }
    }

    fn fill(&self, out: &mut BTreeSet<StateId>) {
        loop {
            let before = out.len();
            for x in out.clone() {
                if self.is_parallel(x) {
                    for &c in &self.m.state(x).children {
                        if !out.iter().any(|&y| y == c || self.is_descendant(y, c)) {
                            self.add_descendants(c, out);
                        }
                    }
                } else if self.is_compound(x) && !self.m.state(x).children.iter().any(|c| out.contains(c)) {
                    self.add_descendants(self.initial_child(x), out);
                }
            }
            if out.len() == before {
                return;
            }
        }
    }

    /// `getTransitionDomain`, with fsmc's regions. `Err(r)`: region `r`.
    fn domain(&self, t: &T) -> Result<Option<StateId>, StateId> {
        let target = t.target.expect("a target");
        let Some(source) = t.source else { return Ok(None) };
        let mut at = Some(source);
        while let Some(d) = at {
            let holds = (t.history.is_some() && d == target) || self.is_descendant(target, d);
            if holds {
                if d == target || !self.is_parallel(d) {
                    return Ok(Some(d));
                }
                let region = *self.proper_ancestors(target, Some(d)).last().unwrap_or(&target);
                let region = if self.parent(target) == Some(d) {
                    target
                } else {
                    region
                };
                if source == d || source == region || self.is_descendant(source, region) {
                    return Err(region);
                }
            }
            at = self.parent(d);
        }
        Ok(None)
    }

    /// `computeExitSet` for one transition.
    fn exit_set(&self, t: &T) -> BTreeSet<StateId> {
        if t.target.is_none() {
            return BTreeSet::new();
        }
        match self.domain(t) {
            Ok(None) => self.config.clone(),
            Ok(Some(d)) => self
                .config
                .iter()
                .copied()
                .filter(|&s| self.is_descendant(s, d))
                .collect(),
            Err(r) => self
                .config
                .iter()
                .copied()
                .filter(|&s| s == r || self.is_descendant(s, r))
                .collect(),
        }
    }

    /// `removeConflictingTransitions`, with fsmc's order.
    fn remove_conflicts(&self, chosen: Vec<T>) -> Vec<T> {
        let mut kept: Vec<T> = Vec::new();
        for t1 in chosen {
            let e1 = self.exit_set(&t1);
            let mut preempted = false;
            let mut remove = Vec::new();
            for (i, t2) in kept.iter().enumerate() {
                if e1.is_disjoint(&self.exit_set(t2)) {
                    continue;
                }
                let inside = match (t1.source, t2.source) {
                    (Some(a), Some(b)) => self.is_descendant(a, b),
                    (Some(_), None) => true,
                    (None, _) => false,
                };
                if t1.priority > t2.priority || (t1.priority == t2.priority && inside) {
                    remove.push(i);
                } else {
                    preempted = true;
                    break;
                }
            }
            if !preempted {
                for i in remove.into_iter().rev() {
                    kept.remove(i);
                }
                kept.push(t1);
            }
        }
        kept
    }

    /// `microstep`: the states exited and entered, in order, and the
    /// `done` events the entries raise (SCXML's `enterStates`, bubbling).
    fn microstep(&mut self, taken: &[T]) -> (Vec<String>, Vec<StateId>) {
        let mut exits = BTreeSet::new();
        for t in taken {
            exits.extend(self.exit_set(t));
        }
        for &s in &exits {
            if self.atomic(s) {
                continue;
            }
            let deep: BTreeSet<StateId> = self
                .config
                .iter()
                .copied()
                .filter(|&x| self.atomic(x) && self.is_descendant(x, s))
                .collect();
            let shallow: BTreeSet<StateId> = self
                .config
                .iter()
                .copied()
                .filter(|&x| self.parent(x) == Some(s))
                .collect();
            self.deep.insert(s, deep);
            self.shallow.insert(s, shallow);
        }
        let mut moves: Vec<String> = exits
            .iter()
            .rev()
            .map(|&s| format!("-{}", self.m.state(s).name))
            .collect();
        for s in &exits {
            self.config.remove(s);
        }
        let mut entry = BTreeSet::new();
        for t in taken {
            let Some(target) = t.target else { continue };
            let domain = self.domain(t);
            let stop = match domain {
                Ok(d) => d,
                Err(r) => self.parent(r),
            };
            // `addAncestorStatesToEnter`: the states from below the domain
            // down to the target, and the other regions of the parallel ones.
            let mut ancestors = self.proper_ancestors(target, stop);
            if let Err(r) = domain {
                ancestors.retain(|&a| a == r || self.is_descendant(a, r));
            }
            let target_stays = t.history.is_some() && domain == Ok(Some(target));
            match t.history {
                Some(kind) => self.add_history(target, kind, &mut entry),
                None => self.add_descendants(target, &mut entry),
            }
            if target_stays {
                entry.remove(&target);
            }
            for a in ancestors {
                entry.insert(a);
                if self.is_parallel(a) {
                    for &c in &self.m.state(a).children {
                        if !entry
                            .iter()
                            .chain(&self.config)
                            .any(|&y| y == c || self.is_descendant(y, c))
                        {
                            self.add_descendants(c, &mut entry);
                        }
                    }
                }
            }
        }
        let mut whole: BTreeSet<StateId> = self.config.union(&entry).copied().collect();
        self.fill(&mut whole);
        let entered: Vec<StateId> = whole.difference(&self.config).copied().collect();
        moves.extend(entered.iter().map(|&s| format!("+{}", self.m.state(s).name)));
        self.config = whole;
        // `done` events: a final state entered completes its parent; a
        // parallel state completes when all its regions have; and so on up.
        let mut done: Vec<StateId> = Vec::new();
        for &s in &entered {
            if !self.m.state(s).is_final() {
                continue;
            }
            let mut at = self.parent(s);
            while let Some(p) = at {
                if !self.done_now(p) {
                    break;
                }
                if !done.contains(&p) {
                    done.push(p);
                }
                at = self.parent(p).filter(|&g| self.is_parallel(g));
            }
        }
        (moves, done)
    }

    fn done_now(&self, s: StateId) -> bool {
        if !self.config.contains(&s) {
            return false;
        }
        if self.is_parallel(s) {
            self.m.state(s).children.iter().all(|&c| self.done_now(c))
        } else if self.is_compound(s) {
            self.m
                .state(s)
                .children
                .iter()
                .any(|&c| self.config.contains(&c) && self.m.state(c).is_final())
        } else {
            self.m.state(s).is_final()
        }
    }

    fn holds(&self, guard: Option<&GuardExpr>, values: &[bool]) -> bool {
        guard.is_none_or(|g| g.eval(&mut |v| values[v.index()], &mut |s| self.config.contains(&s)))
    }

    /// Candidates of `leaf` in fsmc's order.
    fn candidates(&self, leaf: StateId, want: impl Fn(&Chosen) -> bool) -> Vec<(T, Option<&'m GuardExpr>)> {
        let m = self.m;
        let mut all: Vec<(i32, usize, usize, T, Option<&'m GuardExpr>)> = Vec::new();
        let mut levels = vec![Some(leaf)];
        levels.extend(self.proper_ancestors(leaf, None).into_iter().map(Some));
        if !m.state(leaf).is_terminal() {
            levels.push(None);
        }
        for (level, state) in levels.iter().enumerate() {
            for (i, t) in m.transitions.iter().enumerate() {
                let here = match t.source {
                    Source::State(s) => Some(s) == *state,
                    Source::Any => state.is_none(),
                };
                let c = Chosen::Action(fsm_grammar::model::TransitionId::from_index(i));
                if here && want(&c) && !m.state(leaf).is_terminal() {
                    let tt = T {
                        chosen: c,
                        source: *state,
                        target: t.target,
                        history: t.history,
                        priority: t.priority,
                    };
                    all.push((t.priority, level, i, tt, t.guard.as_ref().map(|g| &g.expr)));
                }
            }
            for (i, e) in m.eventless.iter().enumerate() {
                let c = Chosen::Eventless(i);
                if e.trigger == Trigger::Eventless(EventlessKind::Always) && e.state() == *state && want(&c) {
                    let tt = T {
                        chosen: c,
                        source: *state,
                        target: e.target,
                        history: e.history,
                        priority: e.priority,
                    };
                    all.push((e.priority, level, i, tt, e.guard.as_ref().map(|g| &g.expr)));
                }
            }
        }
        all.sort_by_key(|&(p, level, i, _, _)| (std::cmp::Reverse(p), level, i));
        all.into_iter().map(|(_, _, _, t, g)| (t, g)).collect()
    }

    fn select(&self, want: impl Fn(&Chosen) -> bool, values: &[bool]) -> Vec<T> {
        let mut chosen: Vec<T> = Vec::new();
        for &leaf in self.config.iter().filter(|&&s| self.atomic(s)) {
            if let Some((t, _)) = self
                .candidates(leaf, &want)
                .into_iter()
                .find(|(_, g)| self.holds(*g, values))
            {
                if !chosen.contains(&t) {
                    chosen.push(t);
                }
            }
        }
        chosen
    }

    /// Fire `action` with the guards' `values`: every state exited and entered.
    pub fn fire(&mut self, action: usize, values: &[bool]) -> Result<Vec<String>, ()> {
        let m = self.m;
        let chosen = self.select(
            |c| matches!(c, Chosen::Action(t) if m.action_of(*t).index() == action),
            values,
        );
        if chosen.is_empty() {
            // Refused (docs/dsl.md): not a step, so nothing after it either.
            return Ok(Vec::new());
        }
        let taken = self.remove_conflicts(chosen);
        let (mut moves, mut queue) = self.microstep(&taken);
        for _ in 0..1000 {
            let eventless = self.select(|c| matches!(c, Chosen::Eventless(_)), values);
            let taken = if !eventless.is_empty() {
                self.remove_conflicts(eventless)
            } else {
                queue.sort_by_key(|&s| (std::cmp::Reverse(m.state(s).depth), s));
                let mut next = None;
                while !queue.is_empty() {
                    let d = queue.remove(0);
                    if !self.done_now(d) {
                        continue;
                    }
                    let mut dones: Vec<(i32, usize)> = m
                        .eventless
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| {
                            e.trigger == Trigger::Eventless(EventlessKind::Done) && e.state() == Some(d)
                        })
                        .map(|(i, e)| (e.priority, i))
                        .collect();
                    dones.sort_by_key(|&(p, i)| (std::cmp::Reverse(p), i));
                    if let Some(&(_, i)) = dones
                        .iter()
                        .find(|&&(_, i)| self.holds(m.eventless[i].guard.as_ref().map(|g| &g.expr), values))
                    {
                        let e = &m.eventless[i];
                        next = Some(T {
                            chosen: Chosen::Eventless(i),
                            source: e.state(),
                            target: e.target,
                            history: e.history,
                            priority: e.priority,
                        });
                        break;
                    }
                }
                match next {
                    Some(t) => vec![t],
                    None => return Ok(moves),
                }
            };
            let (more, done) = self.microstep(&taken);
            moves.extend(more);
            for d in done {
                if !queue.contains(&d) {
                    queue.push(d);
                }
            }
        }
        Err(())
    }
}
