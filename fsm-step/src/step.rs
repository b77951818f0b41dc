//! One step: [`select`], [`remove_conflicts`], [`microstep`], and the
//! `always` and `done` steps that follow it ([`settle`]).

use super::{Bits, Chart, Kind, MAX_MICROSTEPS, NONE};

/// What the engine does for a step.
pub trait Host<const W: usize> {
    /// True when the guard of `transition` holds; `config` is the
    /// configuration before the step (`in(...)` reads it).
    fn guard(&mut self, transition: u32, config: &Bits<W>) -> bool;
    /// `transition` is taken (in the order its actions run).
    fn taken(&mut self, transition: u32);
    /// Run `effect`; `own` is true for a transition's own `do`, false for a
    /// hook's.
    fn effect(&mut self, effect: u32, own: bool);
    /// Emit `output`.
    fn output(&mut self, output: u32);
    /// The state owning these timer groups was entered.
    fn arm(&mut self, groups: &[u32]);
    /// The state owning these timer groups was left.
    fn disarm(&mut self, groups: &[u32]);
}

/// The context a generated [`Host`] reaches: `&mut C` in `fire`, whose
/// guards read it and whose effects change it, and `&C` in `can_fire`,
/// which only asks guards.
pub trait Access<C: ?Sized> {
    /// The context, to read.
    fn read(&self) -> &C;
    /// The context, to change; `None` when it is only read.
    fn write(&mut self) -> Option<&mut C>;
}

impl<C: ?Sized> Access<C> for &C {
    fn read(&self) -> &C {
        self
    }

    fn write(&mut self) -> Option<&mut C> {
        None
    }
}

impl<C: ?Sized> Access<C> for &mut C {
    fn read(&self) -> &C {
        self
    }

    fn write(&mut self) -> Option<&mut C> {
        Some(self)
    }
}

/// How a run of `always` and `done` steps ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Nothing more was enabled.
    Stable,
    /// [`MAX_MICROSTEPS`] were taken and more were enabled: the machine is
    /// where the last one left it.
    Runaway,
}

impl Chart<'_> {
    /// Add to `set` the default entry of `s` and what it needs below:
    /// every region of a parallel state, a composite's initial child.
    fn enter_default<const W: usize>(&self, s: u32, set: &mut Bits<W>) {
        set.insert(s);
        let state = self.state(s);
        match state.kind {
            Kind::Parallel => {
                for &r in self.list(state.children) {
                    self.enter_default(r, set);
                }
            }
            Kind::Composite => self.enter_default(state.initial, set),
            Kind::Leaf | Kind::Final => {}
        }
    }

    /// Add default entries to `set` until every active parallel state has
    /// every region and every active composite a child, in one pass in
    /// document order (what is added lies after what adds it).
    fn complete<const W: usize>(&self, set: &mut Bits<W>) {
        let mut next = set.first_from(0);
        while let Some(s) = next {
            let state = self.state(s);
            match state.kind {
                Kind::Parallel => {
                    for &r in self.list(state.children) {
                        if !set.contains(r) {
                            self.enter_default(r, set);
                        }
                    }
                }
                Kind::Composite => {
                    if !self.list(state.children).iter().any(|&c| set.contains(c)) {
                        self.enter_default(state.initial, set);
                    }
                }
                Kind::Leaf | Kind::Final => {}
            }
            // What `s` added lies after it.
            next = set.first_from(s + 1);
        }
    }

    /// Add to `set` what entering `s` through its history adds below it:
    /// the remembered leaves and the states down to them (deep), or the
    /// remembered children entered by default (shallow); the default entry
    /// when nothing is remembered. A parallel state's shallow history
    /// enters every region by default.
    fn enter_history<const W: usize>(&self, s: u32, deep: bool, memory: &[Bits<W>], set: &mut Bits<W>) {
        set.insert(s);
        let state = self.state(s);
        let remembered = match state.memory {
            NONE => Bits::EMPTY,
            slot => memory[slot as usize],
        };
        if remembered.is_empty() {
            self.enter_default(s, set);
            return;
        }
        if deep {
            for leaf in remembered.iter() {
                let mut at = leaf;
                while at != s {
                    set.insert(at);
                    at = self.state(at).parent;
                }
            }
            self.complete(set);
        } else if state.kind == Kind::Parallel {
            self.enter_default(s, set);
        } else {
            for leaf in remembered.iter() {
                let mut child = leaf;
                while self.state(child).parent != s {
                    child = self.state(child).parent;
                }
                self.enter_default(child, set);
            }
        }
    }
}

/// The configuration of a machine at rest in `leaves` (one per region at
/// most): the leaves, the states holding them and, beside their branches,
/// every region entered by default. A step that exits nothing outside its
/// leaf's branch takes the same way from every configuration holding the
/// leaf; the plan takes it from this one, ahead of time.
pub fn configuration_of<const W: usize>(chart: &Chart<'_>, leaves: impl IntoIterator<Item = u32>) -> Bits<W> {
    let mut set = Bits::EMPTY;
    for leaf in leaves {
        let mut at = leaf;
        while at != NONE && !set.contains(at) {
            set.insert(at);
            at = chart.state(at).parent;
        }
    }
    chart.complete(&mut set);
    set
}

/// The first enabled candidate of each active leaf of `config`, in
/// document order of the leaves, each transition once, into `chosen`;
/// returns how many. `candidates(leaf)` lists a leaf's in trial order.
/// `chosen` holds one per active leaf at most.
pub fn select<'c, const W: usize>(
    chart: &Chart<'c>,
    config: &Bits<W>,
    mut candidates: impl FnMut(u32) -> &'c [u32],
    host: &mut impl Host<W>,
    chosen: &mut [u32],
) -> usize {
    let mut n = 0;
    for leaf in config.iter() {
        if matches!(chart.state(leaf).kind, Kind::Composite | Kind::Parallel) {
            continue;
        }
        if let Some(&t) = candidates(leaf).iter().find(|&&t| host.guard(t, config)) {
            if !chosen[..n].contains(&t) {
                chosen[n] = t;
                n += 1;
            }
        }
    }
    n
}

/// Keep the chosen transitions that do not conflict, in place; returns how
/// many are kept. In the order chosen, each is compared with those kept so
/// far: it preempts a kept one it conflicts with (their exit sets meet)
/// when its priority is higher, or equal with a source inside the kept
/// one's source; otherwise the kept one preempts it.
pub fn remove_conflicts<const W: usize>(
    chart: &Chart<'_>,
    config: &Bits<W>,
    chosen: &mut [u32],
    n: usize,
) -> usize {
    let mut kept = 0;
    for i in 0..n {
        let t = chosen[i];
        let exits = chart.exit_set(config, t);
        let tr = chart.transition(t);
        let conflicts = |other: u32| !exits.and(&chart.exit_set(config, other)).is_empty();
        let beats = |other: u32| {
            let ot = chart.transition(other);
            let inside = match (tr.source, ot.source) {
                (NONE, _) => false,
                (_, NONE) => true,
                (s, o) => chart.is_inside(s, o),
            };
            tr.priority > ot.priority || tr.priority == ot.priority && inside
        };
        if chosen[..kept]
            .iter()
            .any(|&other| conflicts(other) && !beats(other))
        {
            continue;
        }
        // It beats every kept one it conflicts with: those go.
        let mut survivors = 0;
        for k in 0..kept {
            let other = chosen[k];
            if !conflicts(other) {
                chosen[survivors] = other;
                survivors += 1;
            }
        }
        chosen[survivors] = t;
        kept = survivors + 1;
    }
    kept
}

/// Take `taken` (free of conflicts) from `config`: exit (recording history
/// in `memory` first), run each transition's own outputs and effects, and
/// enter, telling `host` of each in order. Returns the states entered.
pub fn microstep<const W: usize>(
    chart: &Chart<'_>,
    config: &mut Bits<W>,
    memory: &mut [Bits<W>],
    taken: &[u32],
    host: &mut impl Host<W>,
) -> Bits<W> {
    let mut exits = Bits::EMPTY;
    for &t in taken {
        exits = exits.or(&chart.exit_set(config, t));
    }
    // History is recorded as the exits happen, before any entry reads it.
    for s in exits.iter() {
        let state = chart.state(s);
        if state.memory != NONE {
            let inside = Bits::range(s + 1, state.end);
            let mut leaves = Bits::EMPTY;
            for l in config.and(&inside).iter() {
                if matches!(chart.state(l).kind, Kind::Leaf | Kind::Final) {
                    leaves.insert(l);
                }
            }
            memory[state.memory as usize] = leaves;
        }
    }
    let after = config.minus(&exits);
    let mut entries = Bits::EMPTY;
    for &t in taken {
        let tr = chart.transition(t);
        if tr.target == NONE {
            continue;
        }
        let path = chart.list(tr.path);
        for &s in path {
            entries.insert(s);
        }
        match tr.history {
            0 => chart.enter_default(tr.target, &mut entries),
            kind => {
                let mut below = Bits::EMPTY;
                chart.enter_history(tr.target, kind == 2, memory, &mut below);
                if !path.contains(&tr.target) {
                    // `X.history` from inside `X`: `X` stays.
                    below.remove(tr.target);
                }
                entries = entries.or(&below);
            }
        }
    }
    let mut whole = after.or(&entries);
    chart.complete(&mut whole);
    let entries = whole.minus(&after);
    for s in exits.iter().rev() {
        let state = chart.state(s);
        for &e in chart.list(state.exit.effects) {
            host.effect(e, false);
        }
        for &o in chart.list(state.exit.outputs) {
            host.output(o);
        }
        if state.timer_groups.len > 0 {
            host.disarm(chart.list(state.timer_groups));
        }
    }
    for &t in taken {
        host.taken(t);
        let own = chart.transition(t).own;
        for &e in chart.list(own.effects) {
            host.effect(e, true);
        }
        for &o in chart.list(own.outputs) {
            host.output(o);
        }
    }
    for s in entries.iter() {
        let state = chart.state(s);
        for &e in chart.list(state.enter.effects) {
            host.effect(e, false);
        }
        for &o in chart.list(state.enter.outputs) {
            host.output(o);
        }
    }
    // Timers are armed once every effect of the step ran (a named delay
    // reads the context as they left it), in entry order.
    for s in entries.iter() {
        let state = chart.state(s);
        if state.timer_groups.len > 0 {
            host.arm(chart.list(state.timer_groups));
        }
    }
    *config = whole;
    entries
}

/// The composites of `config` that are done and were made done by a step
/// that went from `before` to `config` entering `entries`: not done
/// before, or entered, or with a final state entered inside.
fn made_done<const W: usize>(
    chart: &Chart<'_>,
    before: &Bits<W>,
    config: &Bits<W>,
    entries: &Bits<W>,
) -> Bits<W> {
    let mut out = Bits::EMPTY;
    for s in config.iter() {
        let state = chart.state(s);
        if !matches!(state.kind, Kind::Composite | Kind::Parallel) || !chart.is_done(config, s) {
            continue;
        }
        let final_inside = entries
            .and(&Bits::range(s + 1, state.end))
            .iter()
            .any(|e| chart.state(e).kind == Kind::Final);
        if !chart.is_done(before, s) || entries.contains(s) || final_inside {
            out.insert(s);
        }
    }
    out
}

/// After a step from `before` that entered `entries`, take the `always`
/// transitions that are enabled, then the `done` transitions of the states
/// the steps made done, innermost first, each as its own step, until
/// nothing more is enabled. `chosen` is scratch for one per active leaf.
pub fn settle<const W: usize>(
    chart: &Chart<'_>,
    config: &mut Bits<W>,
    memory: &mut [Bits<W>],
    before: &Bits<W>,
    entries: &Bits<W>,
    host: &mut impl Host<W>,
    chosen: &mut [u32],
) -> Settled {
    let mut pending = made_done(chart, before, config, entries);
    let mut steps = 0;
    loop {
        let snapshot = *config;
        let n = select(
            chart,
            &snapshot,
            |leaf| chart.list(chart.state(leaf).eventless),
            host,
            chosen,
        );
        let n = if n > 0 {
            remove_conflicts(chart, &snapshot, chosen, n)
        } else {
            // The innermost state the steps made done that is still done.
            let mut next = None;
            while let Some(d) = innermost(chart, &pending) {
                pending.remove(d);
                if !chart.is_done(&snapshot, d) {
                    continue;
                }
                if let Some(&t) = chart
                    .list(chart.state(d).eventless)
                    .iter()
                    .find(|&&t| host.guard(t, &snapshot))
                {
                    next = Some(t);
                    break;
                }
            }
            match next {
                Some(t) => {
                    chosen[0] = t;
                    1
                }
                None => return Settled::Stable,
            }
        };
        if steps == MAX_MICROSTEPS {
            return Settled::Runaway;
        }
        let entered = microstep(chart, config, memory, &chosen[..n], host);
        pending = pending.or(&made_done(chart, &snapshot, config, &entered));
        steps += 1;
    }
}

/// The deepest state of `set`, the first in document order among equals.
fn innermost<const W: usize>(chart: &Chart<'_>, set: &Bits<W>) -> Option<u32> {
    let mut best: Option<u32> = None;
    for s in set.iter() {
        if best.is_none_or(|b| chart.state(s).depth > chart.state(b).depth) {
            best = Some(s);
        }
    }
    best
}
