//! The size of SVG diagrams: what the layout costs grows with what the
//! drawing holds, and a drawing too large to lay out is refused.

use fsm_diagram::{svg, TooLarge, MAX_NODES};
use fsm_grammar::check;
use std::fmt::Write as _;

/// A chain of `n` states, every state after the first able to go back to
/// it (`cancel -> s0`).
fn back_to_start(n: usize) -> String {
    let mut text = String::from("machine Back {\n");
    for i in 0..n {
        let initial = if i == 0 { "initial " } else { "" };
        let _ = write!(text, "    {initial}state s{i} {{");
        if i + 1 < n {
            let _ = write!(text, " on next -> s{};", i + 1);
        }
        if i > 0 {
            text.push_str(" on cancel -> s0;");
        }
        text.push_str(" }\n");
    }
    text.push_str("}\n");
    text
}

fn draw(text: &str) -> Result<String, TooLarge> {
    let checked = check(text);
    assert!(!checked.has_errors(), "{:#?}", checked.diagnostics);
    svg(&checked.model.machines[0])
}

/// The `x,y` pairs of every edge's path.
fn path_points(svg: &str) -> usize {
    svg.lines()
        .filter(|l| l.starts_with("<path class=\"edge\""))
        .map(|l| l.matches(',').count())
        .sum()
}

/// Every state going back to the start once cut each of those edges into a
/// dummy node per rank it crosses, two points each: 2,000 states drew 4
/// million points (119 MB of SVG, 1.8 GB while laying out). Now they share
/// one trunk up to the start, and a long edge costs a point per bend.
#[test]
fn edges_back_to_the_start_cost_points_per_edge_not_per_rank() {
    let n = 2_000;
    let picture = draw(&back_to_start(n)).unwrap();
    let edges = 2 * n - 1;
    let points = path_points(&picture);
    assert!(points <= 12 * edges, "{points} points for {edges} edges");
    assert!(
        picture.len() <= 700 * edges,
        "{} bytes for {edges} edges",
        picture.len()
    );
    // Every edge but the start edge has its label; the edges that join the
    // trunk end on it without an arrowhead, the one that draws it ends at
    // the start with one.
    assert_eq!(picture.matches(">cancel</tspan>").count(), n - 1);
    let arrows = picture.matches("marker-end=\"url(#arrow)\"").count();
    let paths = picture.matches("<path class=\"edge\"").count();
    assert_eq!(paths, edges);
    assert!(
        arrows < n + 20,
        "{arrows} arrowheads: the cancel edges were not bundled"
    );
}

/// Doubling the states doubles the drawing, not quadruples it.
#[test]
fn back_edges_grow_linearly() {
    let small = path_points(&draw(&back_to_start(500)).unwrap());
    let large = path_points(&draw(&back_to_start(1_000)).unwrap());
    assert!(
        large <= 2 * small + 200,
        "500 states: {small} points, 1,000: {large}"
    );
}

/// A random machine (a tree from the initial state, then random
/// transitions): ranked by a depth-first search, its paths are about as long
/// as the machine and its edges span hundreds of ranks; breadth-first it has
/// a few dozen ranks.
#[test]
fn a_random_machine_is_ranked_shallow() {
    let (states, transitions) = (500, 2_000);
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut below = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); states];
    for i in 1..states {
        out[below(i)].push(i);
    }
    for _ in states - 1..transitions {
        let from = below(states);
        out[from].push(below(states));
    }
    let mut text = String::from("machine Random {\n");
    for (i, targets) in out.iter().enumerate() {
        let initial = if i == 0 { "initial " } else { "" };
        let _ = write!(text, "    {initial}state s{i} {{");
        for (j, t) in targets.iter().enumerate() {
            let _ = write!(text, " on a{j} -> s{t};");
        }
        text.push_str(" }\n");
    }
    text.push_str("}\n");
    let picture = draw(&text).unwrap();
    let height: f64 = picture
        .split("height=\"")
        .nth(1)
        .and_then(|h| h.split('"').next())
        .unwrap()
        .parse()
        .unwrap();
    // A rank of states and one of labels take about 45 px together.
    assert!(height < 100.0 * 45.0, "{height} px tall");
    let points = path_points(&picture);
    assert!(points <= 40 * transitions, "{points} points");
}

/// Edges back to many different states cannot share trunks: beyond the
/// limit the drawing is refused with its size, before anything large is
/// allocated.
#[test]
fn a_drawing_beyond_the_limit_is_refused_with_its_size() {
    let n = 3_000;
    let mut text = String::from("machine Halves {\n");
    for i in 0..n {
        let initial = if i == 0 { "initial " } else { "" };
        let _ = write!(text, "    {initial}state s{i} {{");
        if i + 1 < n {
            let _ = write!(text, " on next -> s{};", i + 1);
        }
        if i > 0 {
            let _ = write!(text, " on back -> s{};", i / 2);
        }
        text.push_str(" }\n");
    }
    text.push_str("}\n");
    let refused = draw(&text).unwrap_err();
    assert_eq!(refused.limit, MAX_NODES);
    assert!(refused.nodes > MAX_NODES, "{refused:?}");
    let message = refused.to_string();
    assert!(message.contains(&refused.nodes.to_string()), "{message}");
    assert!(message.contains(&MAX_NODES.to_string()), "{message}");
}
