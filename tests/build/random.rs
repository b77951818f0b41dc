//! Random machines with nested states, for the differential test: trees up
//! to four levels deep, transitions declared at every level and in `any`,
//! targets that are leaves, composites and their histories (shallow and
//! deep), guards, priorities, hooks on every level and, in the timed ones,
//! a context, effects in hooks and transitions, and timers (literal and
//! named delays, some sharing a delay) on leaves and composites; in the
//! eventless ones, `final` leaves, `done` transitions on composites,
//! `always` transitions and `in(...)` tests (those code generation lays out:
//! no cycle of `always` and `done` transitions).
//!
//! They are drawn from fixed seeds, so every build tests the same machines,
//! and only machines the checker accepts (warnings allowed) are kept.

/// xorshift64*, reproducible from its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as usize % n.max(1)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// How many machines of each kind are kept.
pub const PER_KIND: usize = 10;

/// The `(file name, text)` of every random machine: [`PER_KIND`] plain ones
/// (guards and outputs only), as many timed ones, and as many of each with
/// `always`, `done` and `final`.
pub fn machines() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let kinds = [
        ("plain", false, false),
        ("timed", true, false),
        ("eventless", false, true),
        ("eventless_timed", true, true),
    ];
    for (kind, timed, eventless) in kinds {
        let mut seed = 1u64;
        let mut kept = 0;
        while kept < PER_KIND {
            let name = format!("Nested{}{kept}", fsm_grammar::naming::upper_camel(kind));
            let text = machine(seed, &name, timed, eventless);
            seed += 1;
            assert!(seed < 100_000, "no valid random {kind} machine in 100,000 seeds");
            let checked = fsm_grammar::check(&text);
            let nested = checked.model.machines.iter().any(|m| m.is_nested());
            if checked.has_errors() || !nested {
                continue;
            }
            let machine = &checked.model.machines[0];
            if eventless
                && (machine.eventless.is_empty()
                    || !fsm_grammar::model::cycles(&machine.eventless_may_follow()).is_empty())
            {
                continue;
            }
            out.push((format!("nested_{kind}_{kept}.fsm"), text));
            kept += 1;
        }
    }
    out
}

/// One random machine named `name`.
fn machine(seed: u64, name: &str, timed: bool, eventless: bool) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let count = 5 + rng.below(8);
    // parent[i]: the state holding state i, always an earlier one.
    let mut parent: Vec<Option<usize>> = Vec::new();
    let mut depth: Vec<usize> = Vec::new();
    for i in 0..count {
        let p = if i > 0 && rng.chance(65) {
            let p = rng.below(i);
            (depth[p] < 3).then_some(p)
        } else {
            None
        };
        depth.push(p.map_or(0, |p| depth[p] + 1));
        parent.push(p);
    }
    let children = |s: usize| -> Vec<usize> { (0..count).filter(|&c| parent[c] == Some(s)).collect() };
    let composite: Vec<bool> = (0..count).map(|s| !children(s).is_empty()).collect();
    // The initial child of each level: its first state.
    let initial: Vec<bool> = (0..count)
        .map(|s| (0..s).all(|earlier| parent[earlier] != parent[s]))
        .collect();
    // A few leaves are terminal (never the initial one, which would end the
    // machine at once); they have no transitions.
    let terminal: Vec<bool> = (0..count)
        .map(|s| !composite[s] && !initial[s] && rng.chance(12))
        .collect();
    // Some leaves inside a composite are final instead (no transitions of
    // their own either); the states of the initial configuration have no
    // `always` (`always-at-start`).
    let last = (0..count).map(|s| (0..count).all(|later| later <= s || parent[later] != parent[s]));
    let last: Vec<bool> = last.collect();
    let is_final: Vec<bool> = (0..count)
        .map(|s| {
            eventless
                && !terminal[s]
                && !composite[s]
                && !initial[s]
                && parent[s].is_some()
                && (last[s] || rng.chance(30))
        })
        .collect();
    let at_start: Vec<bool> = (0..count)
        .map(|s| {
            let mut at = Some(s);
            while let Some(x) = at {
                if !initial[x] {
                    return false;
                }
                at = parent[x];
            }
            true
        })
        .collect();
    let actions = 2 + rng.below(3);
    let guards = 1 + rng.below(3);
    let effects = 3;

    let mut text = format!("/// A random machine with nested states (seed {seed}).\nmachine {name} {{\n");
    if timed {
        text.push_str("    context RandomContext;\n");
        text.push_str("    delay d0;\n");
        for e in 0..effects {
            text.push_str(&format!("    effect e{e};\n"));
        }
    }
    for g in 0..guards {
        text.push_str(&format!("    guard g{g};\n"));
    }
    // A target: a state, or a composite's history.
    let target = |rng: &mut Rng| -> String {
        let s = rng.below(count);
        if composite[s] && rng.chance(40) {
            let kind = if rng.chance(50) { "history" } else { "deep_history" };
            format!("s{s}.{kind}")
        } else {
            format!("s{s}")
        }
    };
    let guard = |rng: &mut Rng| -> String {
        match rng.below(if eventless { 7 } else { 5 }) {
            5 => format!(" [in(s{}) || g{}]", rng.below(count), rng.below(guards)),
            6 => format!(" [!in(s{})]", rng.below(count)),
            0 => format!(" [g{}]", rng.below(guards)),
            1 => format!(" [!g{}]", rng.below(guards)),
            2 => format!(" [g{} && g{}]", rng.below(guards), rng.below(guards)),
            _ => String::new(),
        }
    };
    let effects_of = |rng: &mut Rng| -> String {
        if timed && rng.chance(50) {
            format!(" do e{}", rng.below(effects))
        } else {
            String::new()
        }
    };
    let delays = ["1s", "1s", "2s", "5s", "d0"];

    fn body(
        s: usize,
        indent: usize,
        out: &mut String,
        lines: &dyn Fn(usize) -> Vec<String>,
        children: &dyn Fn(usize) -> Vec<usize>,
        head: &dyn Fn(usize) -> String,
    ) {
        let pad = "    ".repeat(indent);
        let inner = lines(s);
        let kids = children(s);
        if inner.is_empty() && kids.is_empty() {
            out.push_str(&format!("{pad}{};\n", head(s)));
            return;
        }
        out.push_str(&format!("{pad}{} {{\n", head(s)));
        for line in inner {
            out.push_str(&format!("{pad}    {line}\n"));
        }
        for c in kids {
            body(c, indent + 1, out, lines, children, head);
        }
        out.push_str(&format!("{pad}}}\n"));
    }

    // Each state's own lines, drawn in state order.
    let mut lines: Vec<Vec<String>> = Vec::new();
    for (s, &terminal) in terminal.iter().enumerate() {
        let mut own = Vec::new();
        if rng.chance(40) {
            let effect = if timed && rng.chance(50) {
                format!("do e{} ", rng.below(effects))
            } else {
                String::new()
            };
            own.push(format!("enter {effect}emit in_s{s};"));
        }
        if rng.chance(40) {
            let effect = if timed && rng.chance(50) {
                format!("do e{} ", rng.below(effects))
            } else {
                String::new()
            };
            own.push(format!("exit {effect}emit out_s{s};"));
        }
        if eventless && composite[s] && rng.chance(60) {
            for _ in 0..1 + rng.below(2) {
                let guard = guard(&mut rng);
                own.push(format!("done{guard} -> {} emit done_s{s};", target(&mut rng)));
            }
        }
        if eventless && !is_final[s] && !terminal && !at_start[s] && rng.chance(35) {
            let guard = guard(&mut rng);
            let to = if rng.chance(10) {
                String::new()
            } else {
                format!(" -> {}", target(&mut rng))
            };
            own.push(format!("always{guard}{to} emit always_s{s};"));
        }
        if !terminal && !is_final[s] {
            for _ in 0..rng.below(4) {
                let action = rng.below(actions);
                let guard = guard(&mut rng);
                let priority = match rng.below(6) {
                    0 => " priority 1",
                    1 => " priority -1",
                    _ => "",
                };
                let to = if rng.chance(10) {
                    String::new()
                } else {
                    format!(" -> {}", target(&mut rng))
                };
                let effect = effects_of(&mut rng);
                let emit = if rng.chance(50) {
                    format!(" emit t{}", rng.below(4))
                } else {
                    String::new()
                };
                own.push(format!("on a{action}{guard}{priority}{to}{effect}{emit};"));
            }
            if timed && rng.chance(45) {
                for _ in 0..1 + rng.below(2) {
                    let delay = delays[rng.below(delays.len())];
                    let guard = guard(&mut rng);
                    let to = if rng.chance(15) {
                        String::new()
                    } else {
                        format!(" -> {}", target(&mut rng))
                    };
                    let effect = effects_of(&mut rng);
                    own.push(format!("after {delay}{guard}{to}{effect} emit late_s{s};"));
                }
            }
        }
        lines.push(own);
    }
    let head = |s: usize| -> String {
        let mut head = String::new();
        if initial[s] {
            head.push_str("initial ");
        }
        if terminal[s] {
            head.push_str("terminal ");
        }
        if is_final[s] {
            head.push_str("final ");
        }
        head.push_str(&format!("state s{s}"));
        head
    };
    for s in (0..count).filter(|&s| parent[s].is_none()) {
        body(s, 1, &mut text, &|s| lines[s].clone(), &children, &head);
    }
    if rng.chance(50) {
        let action = rng.below(actions);
        let guard = guard(&mut rng);
        let to = target(&mut rng);
        text.push_str(&format!(
            "    any {{ on a{action}{guard} -> {to} emit from_any; }}\n"
        ));
    }
    text.push_str("}\n");
    text
}
