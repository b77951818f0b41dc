//! The plan of a machine with parallel states: its states and transitions
//! laid out as tables that `fsm_runtime::__private::chart` steps over without
//! allocating, for the dynamic engine (which copies them into the runtime's
//! types) and code generation (which writes them as `static`s).
//!
//! Everything a step needs that does not depend on the configuration is
//! decided here, once: each transition's exits as a range of state ids (its
//! domain, [`Machine::config_domain`]), the states it enters down to its
//! target, the candidates each leaf tries for each action, `always` and
//! `done`, hooks and timer groups. What depends on the configuration is
//! `fsm_runtime::__private::chart`'s: the one step over configurations,
//! which both engines run and `tests/differential` holds to an SCXML
//! reference.

use crate::model::{
    cycles, ActionId, Chosen, Domain, HistoryKind, Machine, StateId, TimerId, TransitionId, MAX_MICROSTEPS,
};

/// Where a state's or transition's list lies in [`ChartPlan::pool`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolList {
    /// Where it starts.
    pub start: u32,
    /// How many ids.
    pub len: u32,
}

/// What a state is, for a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartKind {
    /// A leaf.
    Leaf,
    /// A `final` leaf.
    Final,
    /// A state holding states.
    Composite,
    /// A parallel state.
    Parallel,
}

/// A state, as `fsm_runtime::__private::chart::State` holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChartState {
    /// The state holding it.
    pub parent: Option<StateId>,
    /// What it is.
    pub kind: ChartKind,
    /// How many states hold it.
    pub depth: u32,
    /// One past the last state inside it.
    pub end: u32,
    /// A composite's initial child.
    pub initial: Option<StateId>,
    /// Its children.
    pub children: PoolList,
    /// Its history slot, an index of [`Plan::history`](super::Plan::history).
    pub memory: Option<usize>,
    /// `enter` outputs and effects (output and effect indices).
    pub enter: (PoolList, PoolList),
    /// `exit` outputs and effects.
    pub exit: (PoolList, PoolList),
    /// Its own timer groups, indices of [`Plan::timer_groups`](super::Plan::timer_groups).
    pub timer_groups: PoolList,
    /// A leaf's `always` candidates, a composite's `done` ones, as
    /// transition indices of [`ChartPlan::transitions`], in trial order.
    pub eventless: PoolList,
}

/// A transition, as `fsm_runtime::__private::chart::Transition` holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChartTransition {
    /// The transition in the model.
    pub chosen: Chosen,
    /// The state that declares it; `None` for `any`.
    pub source: Option<StateId>,
    /// Its target.
    pub target: Option<StateId>,
    /// `0`, `1` shallow history, `2` deep history.
    pub history: u8,
    /// Its priority.
    pub priority: i32,
    /// The ids of the states it may exit: `exits.0..exits.1`.
    pub exits: (u32, u32),
    /// The states it enters down to its target.
    pub path: PoolList,
    /// Its own outputs and effects.
    pub own: (PoolList, PoolList),
}

/// The tables of a machine that runs over configurations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartPlan {
    /// Every state, by id.
    pub states: Vec<ChartState>,
    /// Every transition: the machine's transitions (by `TransitionId`),
    /// then its timers (by `TimerId`), then its `done` and `always`
    /// transitions (by index of `Machine::eventless`).
    pub transitions: Vec<ChartTransition>,
    /// Per leaf, per action of the leaf's rows in the plan: the candidates,
    /// as transition indices, in trial order (`(action index, list)`).
    pub rows: Vec<Vec<(usize, PoolList)>>,
    /// The ids every [`PoolList`] points into.
    pub pool: Vec<u32>,
    /// The most leaves active at once.
    pub max_leaves: usize,
    /// The 64-bit words a configuration takes.
    pub words: usize,
}

impl ChartPlan {
    /// The tables of `machine`: `slot_of` each state's history slot,
    /// `state_timer_groups` each state's timer groups, and `rows` each
    /// leaf's candidates per action, in trial order.
    pub(super) fn new(
        machine: &Machine,
        slot_of: &[Option<usize>],
        state_timer_groups: &[std::ops::Range<usize>],
        rows: &[Vec<(ActionId, Vec<TransitionId>)>],
    ) -> ChartPlan {
        let m = machine;
        let pool = std::cell::RefCell::new(Vec::<u32>::new());
        let list = |ids: &mut dyn Iterator<Item = usize>| {
            let mut pool = pool.borrow_mut();
            let start = pool.len() as u32;
            // Ids of the model, which are `u32`s already.
            pool.extend(ids.map(|i| i as u32));
            PoolList {
                start,
                len: pool.len() as u32 - start,
            }
        };
        let timers = m.transitions.len();
        let eventless = timers + m.timers.len();
        let index_of = |c: Chosen| match c {
            Chosen::Action(t) => t.index(),
            Chosen::Timer(t) => timers + t.index(),
            Chosen::Eventless(i) => eventless + i,
        };

        let mut transitions = Vec::new();
        let chosen = (0..m.transitions.len())
            .map(|i| Chosen::Action(TransitionId::from_index(i)))
            .chain((0..m.timers.len()).map(|i| Chosen::Timer(TimerId::from_index(i))))
            .chain((0..m.eventless.len()).map(Chosen::Eventless));
        for c in chosen {
            let t = m.transition_of(c);
            let (source, target, history, priority) = (t.source, t.target, t.history, t.priority);
            let (exits, path) = match target {
                None => ((0, 0), Vec::new()),
                Some(target) => {
                    let domain = m.config_domain(source, target, history);
                    let end = |s: StateId| end_of(m, s);
                    let exits = match domain {
                        Domain::Root => (0, m.states.len() as u32),
                        Domain::State(d) => (d.index() as u32 + 1, end(d)),
                        Domain::Region(r) => (r.index() as u32, end(r)),
                    };
                    let top = |s: StateId| match domain {
                        Domain::Root => false,
                        Domain::State(d) => s == d,
                        Domain::Region(r) => m.state(r).parent == Some(s),
                    };
                    let mut path: Vec<StateId> =
                        m.ancestors_or_self(target).take_while(|&s| !top(s)).collect();
                    if history.is_some() && domain == Domain::State(target) {
                        path.retain(|&s| s != target);
                    }
                    path.reverse();
                    (exits, path)
                }
            };
            transitions.push(ChartTransition {
                chosen: c,
                source: t.state(),
                target,
                history: match history {
                    None => 0,
                    Some(HistoryKind::Shallow) => 1,
                    Some(HistoryKind::Deep) => 2,
                },
                priority,
                exits,
                path: list(&mut path.iter().map(|s| s.index())),
                own: (
                    list(&mut t.emits.iter().map(|o| o.index())),
                    list(&mut t.effects.iter().map(|e| e.index())),
                ),
            });
        }

        let states = m
            .state_ids()
            .map(|s| {
                let state = m.state(s);
                // A parallel state without regions holds no state: a leaf.
                let kind = if state.is_parallel() && state.is_composite() {
                    ChartKind::Parallel
                } else if state.is_composite() {
                    ChartKind::Composite
                } else if state.is_final() {
                    ChartKind::Final
                } else {
                    ChartKind::Leaf
                };
                let eventless: Vec<usize> = match kind {
                    ChartKind::Leaf | ChartKind::Final => m.always_candidates(s),
                    ChartKind::Composite | ChartKind::Parallel => m.done_candidates(s),
                }
                .into_iter()
                .map(index_of)
                .collect();
                ChartState {
                    parent: state.parent,
                    kind,
                    depth: state.depth,
                    end: end_of(m, s),
                    initial: m.initial_child(s).filter(|_| kind == ChartKind::Composite),
                    children: list(&mut state.children.iter().map(|c| c.index())),
                    memory: slot_of[s.index()],
                    enter: (
                        list(&mut state.enter.iter().map(|o| o.index())),
                        list(&mut state.enter_effects.iter().map(|e| e.index())),
                    ),
                    exit: (
                        list(&mut state.exit.iter().map(|o| o.index())),
                        list(&mut state.exit_effects.iter().map(|e| e.index())),
                    ),
                    timer_groups: list(&mut state_timer_groups[s.index()].clone()),
                    eventless: list(&mut eventless.into_iter()),
                }
            })
            .collect();

        let rows = rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|(action, candidates)| {
                        (action.index(), list(&mut candidates.iter().map(|t| t.index())))
                    })
                    .collect()
            })
            .collect();

        ChartPlan {
            states,
            transitions,
            rows,
            pool: pool.into_inner(),
            max_leaves: max_leaves(m, None),
            words: m.states.len().div_ceil(64).max(1),
        }
    }

    /// The index in [`ChartPlan::transitions`] of a transition of the model.
    pub fn index_of(&self, machine: &Machine, chosen: Chosen) -> usize {
        match chosen {
            Chosen::Action(t) => t.index(),
            Chosen::Timer(t) => machine.transitions.len() + t.index(),
            Chosen::Eventless(i) => machine.transitions.len() + machine.timers.len() + i,
        }
    }
}

/// One past the last state inside `s`: ids are in document order, a parent
/// before its children, so the states inside one are the ids after its own.
fn end_of(m: &Machine, s: StateId) -> u32 {
    let mut end = s.index() + 1;
    while end < m.states.len() && m.is_inside(StateId::from_index(end), s) {
        end += 1;
    }
    end as u32
}

/// The most leaves active at once inside `state` (in the machine for
/// `None`): one for a leaf, the most of one child for a composite, the sum
/// over the regions for a parallel state.
fn max_leaves(m: &Machine, state: Option<StateId>) -> usize {
    let children: Vec<StateId> = match state {
        None => m.state_ids().filter(|&s| m.state(s).parent.is_none()).collect(),
        Some(s) => m.state(s).children.clone(),
    };
    match state {
        Some(s) if children.is_empty() => {
            let _ = s;
            1
        }
        Some(s) if m.state(s).is_parallel() => children.iter().map(|&c| max_leaves(m, Some(c))).sum(),
        _ => children
            .iter()
            .map(|&c| max_leaves(m, Some(c)))
            .max()
            .unwrap_or(1),
    }
}

/// How much one `fire` of a machine with parallel states can do, for code
/// that collects it in place ([`ChartPlan::fire_bound`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FireBound {
    /// The most `always` and `done` microsteps after the event's own step:
    /// [`MAX_MICROSTEPS`] when they can run into the bound.
    pub microsteps: usize,
    /// True when they can: a cycle of `always` and `done` transitions, or
    /// more ways for them to follow one another than the bound. A `fire`
    /// then may stop with a runaway after [`MAX_MICROSTEPS`] microsteps.
    pub runaway: bool,
    /// The outputs a `fire` collects in place: the most it emits when it
    /// takes no `always` or `done` transition twice (one microstep for the
    /// event, then at most one per such transition).
    pub outputs: usize,
    /// True when a `fire` can emit more than [`outputs`](Self::outputs):
    /// some `always` or `done` transition can be taken twice in one `fire`
    /// (a cycle, or one fed by several others). Generated code then counts
    /// what does not fit and reports it (`fsm_runtime::FireError::Runaway`)
    /// rather than sizing its outputs for the runaway bound.
    pub overflow: bool,
}

impl ChartPlan {
    /// The most one `fire` can do, runaway included, and the outputs it
    /// collects in place.
    ///
    /// An `always` or `done` transition is taken at most once after the
    /// event's step, and once more each time a later one lets it fire
    /// again ([`Machine::eventless_may_follow`]). When that graph has no
    /// cycle, the counts follow in topological order, and their sum bounds
    /// the microsteps; otherwise, or past [`MAX_MICROSTEPS`], the bound is
    /// the runaway's: [`MAX_MICROSTEPS`] microsteps.
    ///
    /// The outputs are sized for a `fire` that takes no `always` or `done`
    /// transition twice: one microstep per such transition after the
    /// event's, each emitting at most every hook and transition output of
    /// the machine once. That is the exact bound when none can be taken
    /// twice; otherwise ([`FireBound::overflow`]) sizing for the runaway
    /// bound would make one `fire`'s outputs a thousand microsteps long (tens
    /// of thousands of items, filled on every `fire`).
    pub fn fire_bound(&self, machine: &Machine) -> FireBound {
        let may = machine.eventless_may_follow();
        let mut microsteps = if cycles(&may).is_empty() {
            // `times[j]`: 1 plus the times of every transition that feeds
            // `j`, in topological order.
            let n = may.len();
            let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
            let mut indegree = vec![0usize; n];
            for (i, out) in may.iter().enumerate() {
                for &j in out {
                    preds[j].push(i);
                    indegree[j] += 1;
                }
            }
            let mut order: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
            let mut at = 0;
            while at < order.len() {
                for &w in &may[order[at]] {
                    indegree[w] -= 1;
                    if indegree[w] == 0 {
                        order.push(w);
                    }
                }
                at += 1;
            }
            let mut times = vec![0usize; n];
            for &j in &order {
                times[j] = preds[j]
                    .iter()
                    .fold(1usize, |sum, &p| sum.saturating_add(times[p]));
            }
            times.iter().fold(0usize, |sum, &t| sum.saturating_add(t))
        } else {
            usize::MAX
        };
        let runaway = microsteps > MAX_MICROSTEPS;
        if runaway {
            microsteps = MAX_MICROSTEPS;
        }
        // Each of them taken once at most; `times` is at least 1 each, so
        // `microsteps` is at least this, and equal when none repeats.
        let once = may.len().min(microsteps);
        let per_step: usize = self
            .states
            .iter()
            .map(|s| (s.enter.0.len + s.exit.0.len) as usize)
            .chain(self.transitions.iter().map(|t| t.own.0.len as usize))
            .sum();
        FireBound {
            microsteps,
            runaway,
            outputs: per_step * (1 + once),
            overflow: per_step > 0 && microsteps > once,
        }
    }
}

impl ChartPlan {
    /// The states and transitions in the types [`fsm_step`] steps over
    /// (with [`ChartPlan::pool`]).
    pub fn step_tables(&self) -> (Vec<fsm_step::State>, Vec<fsm_step::Transition>) {
        let id = |s: Option<StateId>| s.map_or(fsm_step::NONE, |s| s.index() as u32);
        let list = |l: PoolList| fsm_step::List {
            start: l.start,
            len: l.len,
        };
        let hook = |(outputs, effects): (PoolList, PoolList)| fsm_step::Hook {
            outputs: list(outputs),
            effects: list(effects),
        };
        let states = self
            .states
            .iter()
            .map(|s| fsm_step::State {
                parent: id(s.parent),
                kind: match s.kind {
                    ChartKind::Leaf => fsm_step::Kind::Leaf,
                    ChartKind::Final => fsm_step::Kind::Final,
                    ChartKind::Composite => fsm_step::Kind::Composite,
                    ChartKind::Parallel => fsm_step::Kind::Parallel,
                },
                depth: s.depth,
                end: s.end,
                initial: id(s.initial),
                children: list(s.children),
                memory: s.memory.map_or(fsm_step::NONE, |m| m as u32),
                enter: hook(s.enter),
                exit: hook(s.exit),
                timer_groups: list(s.timer_groups),
                eventless: list(s.eventless),
            })
            .collect();
        let transitions = self
            .transitions
            .iter()
            .map(|t| fsm_step::Transition {
                source: id(t.source),
                target: id(t.target),
                history: t.history,
                priority: t.priority,
                exits: t.exits,
                path: list(t.path),
                own: hook(t.own),
            })
            .collect();
        (states, transitions)
    }
}
