//! One move of the environment from one stored state, taken with the one
//! step (`fsm_step`) under one sequence of guard answers ([`Answers`]).
//!
//! A stored state is a row of words: the configuration, each history slot's
//! memory, then each timer group's remaining time in milliseconds (two to a
//! word, `0` when the group is not armed), measured from the instant of the
//! state.

use fsm_grammar::model::{ActionId, Chosen, Delay, GuardExpr, GuardId, Machine, StateId};
use fsm_grammar::plan::Plan;
use fsm_runtime::__private::chart::first_due;
use fsm_runtime::Timestamp;
use fsm_step::{microstep, remove_conflicts, select, settle, Bits, Chart, Host, Settled};

/// What a named delay is taken to be: any value gives the same
/// configurations while its group is the only one armed, and the search
/// says "inconclusive" when it is not ([`Outcome::named_race`]).
pub const NAMED_DELAY_MS: u32 = 1_000;

/// A move of the environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Fire an action, at the instant of the state.
    Fire(ActionId),
    /// Let time pass to the earliest deadline armed, and fire every group
    /// due then, in tie order, each its own step.
    Advance,
}

/// The guard answers one run of a move uses, and the way to the next
/// sequence: a depth-first walk over every sequence the step can ask for.
#[derive(Debug, Default)]
pub struct Answers {
    /// The answers to give, in the order asked; past its end, `false`.
    script: Vec<bool>,
    /// How many were asked in this run.
    used: usize,
    /// What was asked in this run, in order.
    pub asked: Vec<(GuardId, bool)>,
    /// True to fill `taken` and `tested` (for `fsmc test`'s coverage).
    pub record: bool,
    /// With `record`: the chart transitions this run took, in order.
    pub taken: Vec<u32>,
    /// With `record`: each guarded chart transition whose guard this run
    /// evaluated, with the value.
    pub tested: Vec<(u32, bool)>,
}

impl Answers {
    /// Answers that record what each run took and tested.
    pub fn recording() -> Answers {
        Answers {
            record: true,
            ..Answers::default()
        }
    }

    /// The answer to the next question, about guard `g`.
    fn answer(&mut self, g: GuardId) -> bool {
        if self.used == self.script.len() {
            self.script.push(false);
        }
        let value = self.script[self.used];
        self.used += 1;
        self.asked.push((g, value));
        value
    }

    /// Prepare the next sequence, after a run: false when every sequence
    /// was run.
    pub fn next(&mut self) -> bool {
        self.script.truncate(self.used);
        while self.script.last() == Some(&true) {
            self.script.pop();
        }
        let Some(last) = self.script.last_mut() else {
            return false;
        };
        *last = true;
        self.used = 0;
        self.asked.clear();
        self.taken.clear();
        self.tested.clear();
        true
    }
}

/// What a run of a move did, beside the state it wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// For an advance: how far time moved, in milliseconds.
    pub advanced: u32,
    /// For an advance: each group that came due, in the order it fired,
    /// and whether one of its timers was taken (`false`: rejected).
    pub fired: Vec<(usize, bool)>,
    /// Some `always` or `done` chain stopped at [`fsm_step::MAX_MICROSTEPS`].
    pub runaway: bool,
    /// For an action, when the run records (`fsmc test`): every candidate's guard was
    /// false, so the machine refused it and stayed where it was.
    pub refused: bool,
    /// An action armed a timer while a group armed before it stayed armed:
    /// firing it earlier or later between two deadlines could order the
    /// deadlines otherwise, which the search does not try.
    pub time_sensitive: bool,
    /// Time passed while a group with a named delay was armed beside
    /// another group: which fires first depends on the delay's value.
    pub named_race: bool,
}

/// The machine laid out for the one step, and how its states are stored.
pub struct Tables<'m> {
    pub machine: &'m Machine,
    pub plan: Plan,
    states: Vec<fsm_step::State>,
    transitions: Vec<fsm_step::Transition>,
    /// Each timer group's delay in milliseconds ([`NAMED_DELAY_MS`] for a
    /// named one), and whether it is named.
    delays: Vec<(u32, bool)>,
    /// Each timer group's candidates, as chart transitions, in trial order.
    group_timers: Vec<Vec<u32>>,
    /// True without parallel states: the engine then decides `in(...)`
    /// from the leaf before asking any guard, and asks each guard of a
    /// timer group once.
    flat: bool,
    /// Words per configuration.
    pub words: usize,
    /// Words per stored state.
    pub stride: usize,
}

impl<'m> Tables<'m> {
    pub fn new(machine: &'m Machine) -> Tables<'m> {
        let plan = Plan::new(machine);
        let (states, transitions) = plan.chart.step_tables();
        let delays = plan
            .timer_groups
            .iter()
            .map(|g| match g.delay {
                Delay::Literal(d) => (u32::try_from(d.as_millis()).unwrap_or(u32::MAX), false),
                Delay::Named(_) => (NAMED_DELAY_MS, true),
            })
            .collect();
        let group_timers = plan
            .timer_groups
            .iter()
            .map(|g| {
                g.timers
                    .iter()
                    .map(|&(t, _)| plan.chart.index_of(machine, Chosen::Timer(t)) as u32)
                    .collect()
            })
            .collect();
        let words = plan.chart.words;
        let stride = words * (1 + plan.history.len()) + plan.timer_groups.len().div_ceil(2);
        Tables {
            machine,
            states,
            transitions,
            delays,
            group_timers,
            flat: !machine.has_parallel(),
            words,
            stride,
            plan,
        }
    }

    fn chart(&self) -> Chart<'_> {
        Chart {
            states: &self.states,
            transitions: &self.transitions,
            pool: &self.plan.chart.pool,
        }
    }

    /// The state the machine starts in: its initial configuration, with
    /// every group of every state of it armed.
    pub fn initial(&self) -> Vec<u64> {
        let mut row = vec![0u64; self.stride];
        let mut timers = vec![0u32; self.delays.len()];
        for s in self.machine.initial_configuration() {
            row[s.index() / 64] |= 1 << (s.index() % 64);
            for g in self.plan.state_timer_groups[s.index()].clone() {
                timers[g] = self.delays[g].0;
            }
        }
        self.write_timers(&mut row, &timers);
        row
    }

    fn timers_of(&self, row: &[u64]) -> Vec<u32> {
        let base = self.words * (1 + self.plan.history.len());
        (0..self.delays.len())
            .map(|g| (row[base + g / 2] >> (32 * (g % 2))) as u32)
            .collect()
    }

    fn write_timers(&self, row: &mut [u64], timers: &[u32]) {
        let base = self.words * (1 + self.plan.history.len());
        for word in &mut row[base..] {
            *word = 0;
        }
        for (g, &t) in timers.iter().enumerate() {
            row[base + g / 2] |= u64::from(t) << (32 * (g % 2));
        }
    }

    /// True when some timer group is armed in the stored state `row`: left
    /// alone, the machine does not rest there.
    pub fn any_armed(&self, row: &[u64]) -> bool {
        row[self.words * (1 + self.plan.history.len())..]
            .iter()
            .any(|&w| w != 0)
    }

    /// True when `s` is active in the stored state `row`.
    pub fn active(&self, row: &[u64], s: StateId) -> bool {
        row[s.index() / 64] >> (s.index() % 64) & 1 == 1
    }

    /// The active leaves of the stored state `row`, in document order.
    pub fn leaves(&self, row: &[u64]) -> Vec<StateId> {
        self.machine
            .state_ids()
            .filter(|&s| self.active(row, s) && !self.machine.state(s).is_composite())
            .collect()
    }

    /// Take `mv` from `row` with `answers`, writing the state it leads to
    /// into `out`; `None` when the move does nothing there (an action no
    /// leaf takes, or no timer armed).
    pub fn run<const W: usize>(
        &self,
        row: &[u64],
        mv: Move,
        answers: &mut Answers,
        out: &mut Vec<u64>,
    ) -> Option<Outcome> {
        let words = self.words;
        let bits = |words_: &[u64]| {
            let mut b = Bits::<W>::EMPTY;
            b.0[..words].copy_from_slice(words_);
            b
        };
        let before = bits(&row[..words]);
        let mut memory: Vec<Bits<W>> = (0..self.plan.history.len())
            .map(|slot| bits(&row[words * (1 + slot)..words * (2 + slot)]))
            .collect();
        let timers = self.timers_of(row);
        // Deadlines as the runtime keeps them, from the instant of `row`.
        let mut armed: Vec<Option<Timestamp>> = timers
            .iter()
            .map(|&t| (t > 0).then(|| millis(u64::from(t))))
            .collect();
        let mut host = StepHost {
            tables: self,
            answers,
            cache: vec![None; self.machine.guards.len()],
            uncached: false,
            armed: &mut armed,
            now: 0,
            armed_any: false,
            disarmed: vec![false; timers.len()],
        };
        let mut outcome = Outcome::default();
        let mut config = before;
        let chart = self.chart();
        // The transitions chosen, one per active leaf at most: on the stack
        // for most machines, as a move is taken millions of times.
        let leaves = self.plan.chart.max_leaves.max(1);
        let (mut inline, mut spilled) = ([0u32; 64], Vec::new());
        let chosen: &mut [u32] = if leaves <= inline.len() {
            &mut inline[..leaves]
        } else {
            spilled.resize(leaves, 0);
            &mut spilled
        };
        match mv {
            Move::Fire(action) => {
                let n = select(
                    &chart,
                    &before,
                    |leaf| {
                        self.plan.chart.rows[leaf as usize]
                            .iter()
                            .find(|&&(a, _)| a == action.index())
                            .map_or(&[][..], |&(_, l)| {
                                &self.plan.chart.pool[l.start as usize..(l.start + l.len) as usize]
                            })
                    },
                    &mut host,
                    chosen,
                );
                if n == 0 {
                    // A refusal by guards is a step of a test: it gives
                    // them the value false.
                    if !host.answers.record || host.answers.tested.is_empty() {
                        return None;
                    }
                    outcome.refused = true;
                }
                if n > 0 {
                    outcome.runaway = self.take(&mut host, &mut config, &mut memory, chosen, n);
                }
                let stayed = timers
                    .iter()
                    .enumerate()
                    .any(|(g, &t)| t > 0 && !host.disarmed[g]);
                outcome.time_sensitive = host.armed_any && stayed;
            }
            Move::Advance => {
                let (_, due) = first_due(self.plan.timer_order.iter().map(|&g| g as u32), host.armed, None)?;
                let count = timers.iter().filter(|&&t| t > 0).count();
                outcome.named_race = count > 1
                    && timers
                        .iter()
                        .zip(&self.delays)
                        .any(|(&t, &(_, named))| t > 0 && named);
                host.now = due.unix_millis();
                outcome.advanced = due.unix_millis() as u32;
                while let Some((group, _)) = first_due(
                    self.plan.timer_order.iter().map(|&g| g as u32),
                    host.armed,
                    Some(due),
                ) {
                    let group = group as usize;
                    host.armed[group] = None;
                    let from = config;
                    // The engine with parallel states asks a timer's
                    // guards afresh at each evaluation.
                    host.uncached = !self.flat;
                    let timer = self.group_timers[group]
                        .iter()
                        .copied()
                        .find(|&t| host.guard(t, &from));
                    host.uncached = false;
                    host.cache.iter_mut().for_each(|c| *c = None);
                    outcome.fired.push((group, timer.is_some()));
                    if let Some(t) = timer {
                        chosen[0] = t;
                        outcome.runaway |= self.take(&mut host, &mut config, &mut memory, chosen, 1);
                    }
                }
            }
        }
        let now = host.now;
        out.clear();
        out.resize(self.stride, 0);
        out[..words].copy_from_slice(&config.0[..words]);
        for (slot, m) in memory.iter().enumerate() {
            out[words * (1 + slot)..words * (2 + slot)].copy_from_slice(&m.0[..words]);
        }
        let remaining: Vec<u32> = armed
            .iter()
            .map(|d| d.map_or(0, |d| (d.unix_millis() - now) as u32))
            .collect();
        self.write_timers(out, &remaining);
        Some(outcome)
    }

    /// Take the `n` transitions of `chosen` from `config`, as the engines
    /// do: conflicts removed, the microstep, then the `always` and `done`
    /// steps. True when those ran away.
    fn take<const W: usize>(
        &self,
        host: &mut StepHost<'_, '_, 'm>,
        config: &mut Bits<W>,
        memory: &mut [Bits<W>],
        chosen: &mut [u32],
        n: usize,
    ) -> bool {
        let chart = self.chart();
        let before = *config;
        // The step asks its guards afresh.
        host.cache.iter_mut().for_each(|c| *c = None);
        let n = remove_conflicts(&chart, &before, chosen, n);
        let entered = microstep(&chart, config, memory, &chosen[..n], host);
        host.cache.iter_mut().for_each(|c| *c = None);
        !self.machine.eventless.is_empty()
            && settle(&chart, config, memory, &before, &entered, host, chosen) == Settled::Runaway
    }

    /// The guard of chart transition `t`.
    fn guard_of(&self, t: u32) -> Option<&'m GuardExpr> {
        let chosen = self.plan.chart.transitions[t as usize].chosen;
        self.machine.transition_of(chosen).guard.as_ref().map(|g| &g.expr)
    }
}

fn millis(ms: u64) -> Timestamp {
    Timestamp::from_unix_millis(ms).expect("a week past the epoch is a timestamp")
}

/// What the one step asks of the search.
struct StepHost<'a, 'b, 'm> {
    tables: &'a Tables<'m>,
    answers: &'b mut Answers,
    /// The answers of the step being chosen, by guard: the engines ask each
    /// guard at most once per step.
    cache: Vec<Option<bool>>,
    /// True while every evaluation is asked afresh.
    uncached: bool,
    /// Each group's deadline, in milliseconds from the stored state's instant.
    armed: &'a mut Vec<Option<Timestamp>>,
    /// The instant of this step, in the same milliseconds.
    now: u64,
    armed_any: bool,
    disarmed: Vec<bool>,
}

impl<const W: usize> Host<W> for StepHost<'_, '_, '_> {
    fn guard(&mut self, transition: u32, config: &Bits<W>) -> bool {
        let Some(expr) = self.tables.guard_of(transition) else {
            return true;
        };
        let (cache, answers, uncached) = (&mut self.cache, &mut *self.answers, self.uncached);
        let mut ask = |g: GuardId| match uncached {
            true => answers.answer(g),
            false => *cache[g.index()].get_or_insert_with(|| answers.answer(g)),
        };
        let mut active = |s: StateId| config.contains(s.index() as u32);
        let value = if self.tables.flat {
            // Decided from the leaf first, as the engine does.
            match expr.decide_states(&active) {
                Err(value) => value,
                Ok(rest) => rest.eval(&mut ask, &mut active),
            }
        } else {
            expr.eval(&mut ask, &mut active)
        };
        if answers.record {
            answers.tested.push((transition, value));
        }
        value
    }

    fn taken(&mut self, transition: u32) {
        self.cache.iter_mut().for_each(|c| *c = None);
        if self.answers.record {
            self.answers.taken.push(transition);
        }
    }

    fn effect(&mut self, _: u32, _: bool) {}

    fn output(&mut self, _: u32) {}

    fn arm(&mut self, groups: &[u32]) {
        for &g in groups {
            let delay = u64::from(self.tables.delays[g as usize].0);
            self.armed[g as usize] = Some(millis(self.now + delay));
            self.armed_any = true;
        }
    }

    fn disarm(&mut self, groups: &[u32]) {
        for &g in groups {
            self.armed[g as usize] = None;
            self.disarmed[g as usize] = true;
        }
    }
}
