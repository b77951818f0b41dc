//! Loops of death (`escapable F`): machines with planted loops and ones
//! without, each with its known verdict; the lassos reported; and random
//! machines whose verdicts an explorer written here, independently of the
//! search, decides too.

use fsm_grammar::model::Machine;
use fsm_verify::{verify, Formula, Kind, Move, Options, Path, Property, Verdict};

fn machine(text: &str) -> Machine {
    let checked = fsm_grammar::check(text);
    assert!(!checked.has_errors(), "{text}");
    checked.into_model().expect("a model").machines.remove(0)
}

fn verdict(m: &Machine, kind: Kind, formula: &str) -> Verdict {
    let formula = Formula::parse(m, formula).expect("a formula");
    let report = verify(m, &[Property::new(kind, formula)], &Options::default()).expect("searchable");
    report.verdicts.into_iter().next().expect("one verdict")
}

/// A lasso as `a b [c d]`: its moves, the cycle in brackets.
fn lasso(m: &Machine, path: &Path) -> String {
    let mut words = Vec::new();
    for (n, s) in path.steps.iter().enumerate() {
        let word = match s.mv {
            Move::Fire(a) => m.actions[a.index()].name.clone(),
            Move::Advance => format!("advance {}", s.outcome.advanced),
        };
        let open = if path.cycle == Some(n) { "[" } else { "" };
        words.push(format!("{open}{word}"));
    }
    let close = if path.cycle.is_some() { "]" } else { "" };
    format!("{}{close}", words.join(", "))
}

fn violated(m: &Machine, kind: Kind, formula: &str) -> String {
    match verdict(m, kind, formula) {
        Verdict::Violated(path) => lasso(m, &path),
        other => panic!("`{formula}` is not violated: {other:?}"),
    }
}

#[test]
fn a_retry_loop_with_no_way_out_is_a_loop_of_death() {
    let m = machine(
        "machine M {
            initial state idle { on start -> retrying; }
            state retrying { after 1s -> retrying; }
            terminal state done;
        }",
    );
    assert_eq!(
        violated(&m, Kind::Escapable, "!terminal"),
        "start, [advance 1000]"
    );
    // Inside `idle` alone there is no loop.
    assert_eq!(verdict(&m, Kind::Escapable, "in(idle)"), Verdict::Holds);
}

#[test]
fn a_guarded_exit_is_a_way_out_as_guards_are_free() {
    let m = machine(
        "machine M {
            guard gave_up;
            initial state retrying {
                after 1s [gave_up] priority 1 -> failed;
                after 1s -> retrying;
            }
            terminal state failed;
        }",
    );
    assert_eq!(verdict(&m, Kind::Escapable, "!terminal"), Verdict::Holds);
}

#[test]
fn an_event_that_ends_the_loop_is_a_way_out() {
    let m = machine(
        "machine M {
            initial state retrying {
                after 1s -> retrying;
                on cancel -> idle;
            }
            state idle { on retry -> retrying; }
        }",
    );
    assert_eq!(verdict(&m, Kind::Escapable, "!terminal"), Verdict::Holds);
}

#[test]
fn events_that_keep_the_machine_in_the_loop_do_not_end_it() {
    let m = machine(
        "machine M {
            initial state idle { on start -> waiting; }
            state waiting {
                after 2s -> polling;
                on poke -> polling;
            }
            state polling {
                after 1s -> waiting;
                on status;
            }
        }",
    );
    assert_eq!(
        violated(&m, Kind::Escapable, "!terminal"),
        "start, [advance 2000, advance 1000]"
    );
    // The loop passes through `polling`, so it is not inside `in(polling)`.
    assert_eq!(verdict(&m, Kind::Escapable, "in(polling)"), Verdict::Holds);
}

#[test]
fn a_loop_of_death_inside_a_parallel_state() {
    let m = machine(
        "machine M {
            initial parallel state both {
                state beat {
                    initial state tick { after 1s -> tock; }
                    state tock { after 1s -> tick; }
                }
                state work {
                    initial state busy { on finish -> over; }
                    state over;
                }
            }
        }",
    );
    assert_eq!(
        violated(&m, Kind::Escapable, "in(over)"),
        "finish, [advance 1000, advance 1000]"
    );
    // While `busy`, `finish` leaves it.
    assert_eq!(verdict(&m, Kind::Escapable, "in(busy)"), Verdict::Holds);
}

#[test]
fn the_agent_loop_and_the_research_run_have_no_loop_of_death() {
    for file in ["agent_loop.fsm", "research/research.fsm"] {
        let text = std::fs::read_to_string(format!("{}/../examples/{file}", env!("CARGO_MANIFEST_DIR")))
            .expect("an example");
        let m = machine(&text);
        assert_eq!(
            verdict(&m, Kind::Escapable, "!terminal"),
            Verdict::Holds,
            "{file}"
        );
    }
}

#[test]
fn without_its_exit_the_agent_loop_retries_forever() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/agent_loop.fsm"))
        .expect("the agent loop");
    // The backoff leads back to a state that waits for the LLM: no loop.
    // Planted: the retry goes to `error` again on its own, and the turn can
    // neither be cancelled, paused nor shut down.
    let planted = text
        .replace("after backoff -> calling_llm", "after backoff -> error")
        .replace("on pause -> paused emit suspend_work;", "")
        .replace(
            "on cancel -> waiting_for_user_input do abandon_turn emit abort_work;\n\n",
            "\n",
        )
        .replace("on shutdown_requested -> shutting_down emit shutdown;", "");
    let m = machine(&planted);
    let found = violated(&m, Kind::Escapable, "in(working)");
    assert_eq!(found, "user_input, llm_error, [advance 1000]");
}

// Random machines, decided twice: by the search, and by the explorer below.

/// A flat machine: for each state, its transitions on actions (action,
/// guarded, target) in trial order, and at most one timer (delay, guarded,
/// target).
struct Random {
    terminal: Vec<bool>,
    on: Vec<Vec<(usize, bool, usize)>>,
    timer: Vec<Option<(u32, bool, usize)>>,
    actions: usize,
}

/// A state of the explorer: a state of the machine, and whether its timer
/// is armed.
type At = (usize, bool);

/// Whether a formula holds in a state of the machine.
type StateTest<'a> = Box<dyn Fn(usize) -> bool + 'a>;

/// A small deterministic generator (xorshift), so that a failure is
/// reproducible from its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

impl Random {
    fn new(seed: u64) -> Random {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let states = 2 + rng.below(5);
        let actions = 1 + rng.below(3);
        let terminal: Vec<bool> = (0..states).map(|s| s > 0 && rng.below(5) == 0).collect();
        let mut on = vec![Vec::new(); states];
        let mut timer = vec![None; states];
        for s in 0..states {
            if terminal[s] {
                continue;
            }
            // Per action, guarded candidates and at most one unguarded
            // one, last: an earlier unguarded one would shadow the rest.
            for a in 0..actions {
                let count = rng.below(3);
                for k in 0..count {
                    let guarded = k + 1 < count || rng.below(2) == 0;
                    on[s].push((a, guarded, rng.below(states)));
                }
            }
            if rng.below(3) > 0 {
                timer[s] = Some((
                    100 * (1 + rng.below(3)) as u32,
                    rng.below(3) == 0,
                    rng.below(states),
                ));
            }
        }
        Random {
            terminal,
            on,
            timer,
            actions,
        }
    }

    fn text(&self) -> String {
        let mut text = String::from("machine R {\n");
        for a in 0..self.actions {
            text += &format!("    action a{a};\n");
        }
        // Each guarded transition has a guard of its own: a guard is asked
        // once per step, so two candidates of one guard are one answer.
        let mut guards = 0;
        let mut guard = |guarded: bool, text: &mut String| {
            if !guarded {
                return String::new();
            }
            guards += 1;
            text.insert_str("machine R {\n".len(), &format!("    guard g{guards};\n"));
            format!(" [g{guards}]")
        };
        for (s, &terminal) in self.terminal.iter().enumerate() {
            let kind = match (s, terminal) {
                (0, _) => "initial state",
                (_, true) => "terminal state",
                _ => "state",
            };
            text += &format!("    {kind} s{s} {{\n");
            for &(a, guarded, t) in &self.on[s] {
                let guard = guard(guarded, &mut text);
                text += &format!("        on a{a}{guard} -> s{t};\n");
            }
            if let Some((delay, guarded, t)) = self.timer[s] {
                let guard = guard(guarded, &mut text);
                text += &format!("        after {delay}ms{guard} -> s{t};\n");
            }
            text += "    }\n";
        }
        text + "}\n"
    }

    /// The successors of (state, timer armed): on each action, the
    /// candidates tried in order up to the first unguarded one, each
    /// possibly taken; when every one can be refused, nothing changes (no
    /// move). Taking a transition enters its target afresh, arming its
    /// timer. On time passing, the armed timer fires: taken, or refused by
    /// its guard (and then disarmed).
    /// Each successor comes with its move: `Some(action)`, or `None` for
    /// time passing.
    fn successors(&self, (s, armed): (usize, bool)) -> Vec<((usize, bool), Option<usize>)> {
        let enter = |t: usize| (t, self.timer[t].is_some());
        let mut out = Vec::new();
        for a in 0..self.actions {
            for &(b, guarded, t) in self.on[s].iter().filter(|c| c.0 == a) {
                debug_assert_eq!(a, b);
                out.push((enter(t), Some(a)));
                if !guarded {
                    break;
                }
            }
        }
        if armed {
            let (_, guarded, t) = self.timer[s].expect("armed");
            out.push((enter(t), None));
            if guarded {
                out.push(((s, false), None));
            }
        }
        out
    }

    /// Every state reachable from the start.
    fn reachable(&self) -> Vec<(usize, bool)> {
        let mut seen = vec![(0, self.timer[0].is_some())];
        let mut at = 0;
        while at < seen.len() {
            for (next, _) in self.successors(seen[at]) {
                if !seen.contains(&next) {
                    seen.push(next);
                }
            }
            at += 1;
        }
        seen
    }

    /// Whether `f leads to g assuming assumed` is violated, by brute
    /// force: some state where `f` holds and `g` does not reaches, through
    /// states without `g`, either one where the run may rest (no timer
    /// armed, no assumed action accepted), or some *set* of such states
    /// (every subset is tried) that a fair cycle can go round: strongly
    /// connected by its own moves, time passing on it (a move of time, or
    /// a state with no timer armed), and each assumed action accepted in it
    /// taken inside it.
    fn leads_to_violated(
        &self,
        f: &dyn Fn(usize) -> bool,
        g: &dyn Fn(usize) -> bool,
        assumed: &[usize],
    ) -> bool {
        let all = self.reachable();
        let inside: Vec<(usize, bool)> = all.iter().copied().filter(|x| !g(x.0)).collect();
        let accepts = |x: (usize, bool), a: usize| self.successors(x).iter().any(|&(_, m)| m == Some(a));
        let rests = |x: (usize, bool)| !x.1 && !assumed.iter().any(|&a| accepts(x, a));
        let mut fair_sets: Vec<Vec<(usize, bool)>> = Vec::new();
        for mask in 1u32..1 << inside.len() {
            let set: Vec<(usize, bool)> = (0..inside.len())
                .filter(|&i| mask >> i & 1 == 1)
                .map(|i| inside[i])
                .collect();
            let moves: Vec<(At, At, Option<usize>)> = set
                .iter()
                .flat_map(|&x| self.successors(x).into_iter().map(move |(y, m)| (x, y, m)))
                .filter(|(_, y, _)| set.contains(y))
                .collect();
            // Strongly connected: every state reaches every other inside.
            let reach_from = |x: (usize, bool)| {
                let mut seen = vec![x];
                let mut at = 0;
                while at < seen.len() {
                    for &(from, to, _) in &moves {
                        if from == seen[at] && !seen.contains(&to) {
                            seen.push(to);
                        }
                    }
                    at += 1;
                }
                seen
            };
            let connected = !moves.is_empty() && set.iter().all(|&x| reach_from(x).len() == set.len());
            let time = set.iter().any(|x| !x.1) || moves.iter().any(|m| m.2.is_none());
            let fair = assumed
                .iter()
                .all(|&a| !set.iter().any(|&x| accepts(x, a)) || moves.iter().any(|m| m.2 == Some(a)));
            if connected && time && fair {
                fair_sets.push(set);
            }
        }
        inside.iter().filter(|x| f(x.0)).any(|&start| {
            let mut seen = vec![start];
            let mut at = 0;
            while at < seen.len() {
                let x = seen[at];
                if rests(x) || fair_sets.iter().any(|s| s.contains(&x)) {
                    return true;
                }
                for (y, _) in self.successors(x) {
                    if !g(y.0) && !seen.contains(&y) {
                        seen.push(y);
                    }
                }
                at += 1;
            }
            false
        })
    }

    /// Whether a loop of death lies inside `inside`: the states reachable
    /// from the start, cut down to those where a timer is armed and
    /// `inside` holds, then, again and again, to those all of whose
    /// successors are left; some state is left at the end.
    fn loop_of_death(&self, inside: impl Fn(usize) -> bool) -> bool {
        let seen = self.reachable();
        let mut trap: Vec<(usize, bool)> = seen
            .into_iter()
            .filter(|&(s, armed)| armed && inside(s))
            .collect();
        loop {
            let before = trap.len();
            let kept: Vec<_> = trap
                .iter()
                .copied()
                .filter(|&x| self.successors(x).iter().all(|(next, _)| trap.contains(next)))
                .collect();
            trap = kept;
            if trap.len() == before {
                return !trap.is_empty();
            }
        }
    }
}

#[test]
fn random_machines_agree_with_an_independent_explorer() {
    let (mut violations, mut holds) = (0, 0);
    for seed in 0..400u64 {
        let r = Random::new(seed);
        let text = r.text();
        let m = machine(&text);
        let states = r.terminal.len();
        let target = seed as usize % states;
        let questions: [(String, StateTest<'_>); 2] = [
            ("!terminal".into(), Box::new(|s| !r.terminal[s])),
            (format!("!in(s{target})"), Box::new(move |s| s != target)),
        ];
        for (formula, inside) in questions {
            let expected = r.loop_of_death(inside);
            let got = verdict(&m, Kind::Escapable, &formula);
            match (&got, expected) {
                (Verdict::Holds, false) => holds += 1,
                (Verdict::Violated(path), true) => {
                    assert!(path.cycle.is_some(), "seed {seed}: {text}");
                    violations += 1;
                }
                _ => {
                    panic!("seed {seed}: `escapable {formula}`: {got:?}, expected a loop: {expected}\n{text}")
                }
            }
        }
    }
    // Both verdicts are common among the machines drawn.
    assert!(
        violations > 50 && holds > 50,
        "{violations} violated, {holds} held"
    );
}

// `F leads to G`: fair runs, lassos and runs that rest.

/// The verdict on the file's property named `name`.
fn stated(m: &Machine, name: &str) -> Verdict {
    let p = m
        .properties
        .iter()
        .find(|p| p.name.as_deref() == Some(name))
        .expect("the property");
    let report = verify(m, &[Property::from(p)], &Options::default()).expect("searchable");
    report.verdicts.into_iter().next().expect("one verdict")
}

fn stated_violation(m: &Machine, name: &str) -> String {
    match stated(m, name) {
        Verdict::Violated(path) => lasso(m, &path),
        other => panic!("`{name}` is not violated: {other:?}"),
    }
}

const JOB: &str = "
machine Job {
    guard retry_left;
    initial state queued { on start -> running; }
    state running {
        on finish -> done;
        on fail -> waiting;
        on ping;
    }
    state waiting {
        after 5s [retry_left] priority 1 -> running;
        after 5s -> failed;
    }
    terminal state done;
    terminal state failed;

    property ends: in(running) leads to terminal;
    property ends_if_finished: in(running) leads to terminal assuming finish;
    property ends_if_failed: in(running) leads to terminal assuming fail;
    property ends_if_both: in(running) leads to terminal assuming finish, fail;
    property waits_end: in(waiting) leads to !in(waiting);
}
";

#[test]
fn without_assumptions_the_environment_may_stop_and_the_run_rests() {
    let m = machine(JOB);
    // The run waits in `running` for an event that never comes.
    assert_eq!(stated_violation(&m, "ends"), "start");
}

#[test]
fn an_assumed_action_is_taken_where_it_keeps_being_accepted() {
    let m = machine(JOB);
    // `finish` ends the run whenever it comes.
    assert_eq!(stated(&m, "ends_if_finished"), Verdict::Holds);
    // With only `fail` assumed, the retries may go on for ever: `fail`,
    // the backoff, the retry guard true, again. `ping` on the way is an
    // event the environment may send or not.
    assert_eq!(
        stated_violation(&m, "ends_if_failed"),
        "start, [fail, advance 5000]"
    );
    assert_eq!(stated(&m, "ends_if_both"), Verdict::Holds);
}

#[test]
fn an_armed_timer_fires_while_its_state_stays_active() {
    let m = machine(JOB);
    // Nothing can keep the machine in `waiting`: its timers fire.
    assert_eq!(stated(&m, "waits_end"), Verdict::Holds);
}

#[test]
fn a_timer_cycle_with_a_guarded_exit_may_go_on_for_ever() {
    let m = machine(
        "machine M {
            guard gave_up;
            initial state retrying {
                after 1s [gave_up] priority 1 -> failed;
                after 1s -> retrying;
            }
            terminal state failed;
            property ends: in(retrying) leads to terminal;
        }",
    );
    // `escapable` holds (the guard may say yes), but nothing makes it.
    assert_eq!(verdict(&m, Kind::Escapable, "!terminal"), Verdict::Holds);
    assert_eq!(stated_violation(&m, "ends"), "[advance 1000]");
}

#[test]
fn a_run_that_never_lets_time_pass_is_not_fair() {
    let m = machine(
        "machine M {
            initial state waiting {
                after 1s -> done;
                on poll;
            }
            terminal state done;
            property ends: in(waiting) leads to terminal;
        }",
    );
    // Polling for ever at one instant would starve the timer.
    assert_eq!(stated(&m, "ends"), Verdict::Holds);
}

#[test]
fn strong_fairness_on_an_action_accepted_only_now_and_then() {
    let m = machine(
        "machine M {
            initial state a { on tick -> b; }
            state b {
                on tick -> a;
                on go -> done;
            }
            terminal state done;
            property ends: in(a) leads to terminal assuming go, tick;
            property rests: in(a) leads to terminal assuming go;
            property ends_with_ticks: in(a) leads to terminal assuming tick;
        }",
    );
    // `go` is accepted in `b`, visited again and again, so it is taken,
    // though `b` is left on each visit (weak fairness would not do).
    assert_eq!(stated(&m, "ends"), Verdict::Holds);
    // Without `tick` assumed, the run may rest in `a`.
    assert_eq!(stated_violation(&m, "rests"), "");
    // Assuming only `tick`, the run goes round `a`, `b` for ever.
    assert_eq!(stated_violation(&m, "ends_with_ticks"), "[tick, tick]");
}

#[test]
fn the_research_run_ends_when_the_researchers_report() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/research/research.fsm"
    ))
    .expect("the research example");
    let m = machine(&text);
    let formula = |t: &str| Formula::parse(&m, t).expect("a formula");
    let action = |name: &str| {
        fsm_grammar::model::ActionId::from_index(
            m.actions.iter().position(|a| a.name == name).expect("an action"),
        )
    };
    let ends = |assuming: &[&str]| {
        let p = Property {
            kind: Kind::LeadsTo,
            formula: formula("in(collect)"),
            leads_to: Some(fsm_verify::LeadsTo {
                formula: formula("terminal"),
                assuming: assuming.iter().map(|a| action(a)).collect(),
            }),
        };
        let report = verify(&m, &[p], &Options::default()).expect("searchable");
        report.verdicts.into_iter().next().expect("one verdict")
    };
    // Without assumptions, the synthesizer may never report.
    match ends(&[]) {
        Verdict::Violated(path) => assert_eq!(lasso(&m, &path), "start, a_written, b_written"),
        other => panic!("{other:?}"),
    }
    // Once the synthesizer reports, every run ends: the ten-minute limit
    // ends `collect` if the researchers never do.
    assert_eq!(ends(&["s_written"]), Verdict::Holds);
}

#[test]
fn random_leads_to_agrees_with_a_brute_force_over_every_set_of_states() {
    let (mut violations, mut holds) = (0, 0);
    for seed in 0..300u64 {
        let r = Random::new(seed + 1_000);
        let text = r.text();
        let m = machine(&text);
        let states = r.terminal.len();
        let (from, to) = (seed as usize % states, (seed as usize / 3) % states);
        let assumed: Vec<usize> = (0..r.actions).filter(|a| (seed >> a) & 1 == 1).collect();
        let action = |a: usize| {
            let name = format!("a{a}");
            fsm_grammar::model::ActionId::from_index(
                m.actions.iter().position(|x| x.name == name).expect("an action"),
            )
        };
        let questions: [(String, String, StateTest<'_>, StateTest<'_>); 2] = [
            (
                format!("in(s{from})"),
                "terminal".into(),
                Box::new(move |s| s == from),
                Box::new(|s| r.terminal[s]),
            ),
            (
                "!terminal".into(),
                format!("in(s{to})"),
                Box::new(|s| !r.terminal[s]),
                Box::new(move |s| s == to),
            ),
        ];
        for (f, g, f_holds, g_holds) in questions {
            let expected = r.leads_to_violated(&*f_holds, &*g_holds, &assumed);
            let property = Property {
                kind: Kind::LeadsTo,
                formula: Formula::parse(&m, &f).expect("a formula"),
                leads_to: Some(fsm_verify::LeadsTo {
                    formula: Formula::parse(&m, &g).expect("a formula"),
                    assuming: assumed.iter().map(|&a| action(a)).collect(),
                }),
            };
            let report = verify(&m, &[property], &Options::default()).expect("searchable");
            let got = &report.verdicts[0];
            match (got, expected) {
                (Verdict::Holds, false) => holds += 1,
                (Verdict::Violated(_), true) => violations += 1,
                _ => panic!(
                    "seed {seed}: `{f} leads to {g}` assuming {assumed:?}: {got:?}, expected violated: {expected}\n{text}"
                ),
            }
        }
    }
    assert!(
        violations > 50 && holds > 50,
        "{violations} violated, {holds} held"
    );
}
