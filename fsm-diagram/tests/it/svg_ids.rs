//! The SVG's stable names: every state's box is `state-NAME`, every edge
//! `edge-J` (its index among the edges, in declaration order) with the
//! names of its source, target and trigger, so that a page (`fsmc inspect`)
//! can highlight a configuration and the transition a step took.

use fsm_diagram::svg;
use fsm_grammar::check;

const MACHINE: &str = "machine Door {
    action open; action close; action lock;
    guard ready;
    initial state closed {
        on open [ready] -> opened;
        on lock -> locked;
    }
    state opened { on close -> closed; after 30s -> closed; }
    state locked {
        initial state bolted { on open; }
    }
    any { on lock -> locked; }
}
";

fn draw(text: &str) -> String {
    let checked = check(text);
    assert!(!checked.has_errors(), "{:#?}", checked.diagnostics);
    svg(&checked.model.machines[0]).expect("drawn")
}

#[test]
fn states_and_edges_have_stable_ids() {
    let drawn = draw(MACHINE);
    for state in ["closed", "opened", "locked", "bolted"] {
        assert_eq!(
            drawn
                .matches(&format!("id=\"state-{state}\" data-state=\"{state}\""))
                .count(),
            1,
            "state `{state}` in {drawn}"
        );
    }
    assert_eq!(drawn.matches("id=\"any\"").count(), 1);
    // Own transitions in declaration order, then `any`'s, then timers.
    let edges = [
        ("closed", "opened", "open"),
        ("closed", "locked", "lock"),
        ("opened", "closed", "close"),
        ("any", "locked", "lock"),
        ("opened", "closed", "after"),
    ];
    for (j, (from, to, trigger)) in edges.iter().enumerate() {
        let path = format!(
            "<path class=\"edge\" id=\"edge-{j}\" data-from=\"{from}\" data-to=\"{to}\" data-trigger=\"{trigger}\""
        );
        assert_eq!(drawn.matches(&path).count(), 1, "{path} in {drawn}");
        assert_eq!(
            drawn
                .matches(&format!("<g class=\"label\" data-edge=\"edge-{j}\">"))
                .count(),
            1
        );
    }
    assert!(!drawn.contains("edge-5"));
    // Ids are unique in the document.
    let mut ids: Vec<&str> = drawn
        .split(" id=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), count, "{ids:?}");
}

#[test]
fn ids_do_not_move_when_a_state_is_added_at_the_end() {
    let before = draw(MACHINE);
    let after = draw(&MACHINE.replace("    any {", "    state extra { on close -> closed; }\n    any {"));
    for id in ["edge-0", "edge-1", "edge-2", "state-closed", "state-bolted"] {
        assert!(before.contains(&format!("id=\"{id}\"")) && after.contains(&format!("id=\"{id}\"")));
    }
    // The new state's edge comes after the ones declared before it.
    assert!(after.contains("id=\"edge-3\" data-from=\"extra\" data-to=\"closed\""));
}
