//! Diagrams: Mermaid and DOT snapshots of the examples and of fixtures that
//! use every construct, DOT accepted by Graphviz when it is installed, and
//! SVG drawn for every machine, deterministically, as well-formed XML whose
//! geometry is checked: every state and label once, no edge through a box,
//! every label beside its own edge.

// The random machines of fsm-grammar's tests, shared rather than copied.
#[path = "../../../grammar/tests/random_machine/mod.rs"]
mod random_machine;

use fsm_diagram::{dot, mermaid, svg};
use fsm_grammar::model::Machine;
use fsm_grammar::{check, Model};
use proptest::prelude::*;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Fixtures that together use every construct a diagram shows.
const FIXTURES: &str =
    "ok/{tour,hooks,any-blocks,priorities,guards,contextual-keywords,initial-terminal,multiple-machines,context-router,context-timers,phone-call}.fsm";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("fsm-diagram/ lives in the workspace")
        .to_path_buf()
}

fn model(path: &Path) -> Model {
    let text = std::fs::read_to_string(path).unwrap();
    check(&text)
        .into_model()
        .unwrap_or_else(|d| panic!("{} has errors: {d:#?}", path.display()))
}

/// Every machine of the examples (those in an example's folder too) and
/// the `ok/` and `warn/` fixtures.
fn all_machines() -> Vec<(String, Machine)> {
    let mut machines = Vec::new();
    let fsm_files = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "fsm"))
            .collect()
    };
    for dir in ["examples", "tests/fixtures/ok", "tests/fixtures/warn"] {
        let dir = workspace().join(dir);
        let mut paths = fsm_files(&dir);
        if dir.ends_with("examples") {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    paths.extend(fsm_files(&path));
                }
            }
        }
        paths.sort();
        for path in paths {
            for machine in model(&path).machines {
                machines.push((format!("{} ({})", path.display(), machine.name), machine));
            }
        }
    }
    assert!(machines.len() > 20, "found only {} machines", machines.len());
    machines
}

/// Every machine of the file, one diagram after the other.
fn diagrams(path: &Path, draw: fn(&Machine) -> String) -> String {
    model(path)
        .machines
        .iter()
        .map(draw)
        .collect::<Vec<_>>()
        .join("\n")
}

macro_rules! snapshot {
    ($value:expr) => {
        insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($value);
        })
    };
}

#[test]
fn mermaid_of_the_examples() {
    insta::glob!("../../../examples", "*.fsm", |path| snapshot!(diagrams(
        path, mermaid
    )));
}

#[test]
fn mermaid_of_fixtures() {
    insta::glob!("../../../tests/fixtures", FIXTURES, |path| snapshot!(diagrams(
        path, mermaid
    )));
}

#[test]
fn dot_of_the_examples() {
    insta::glob!("../../../examples", "*.fsm", |path| snapshot!(diagrams(
        path, dot
    )));
}

#[test]
fn dot_of_fixtures() {
    insta::glob!("../../../tests/fixtures", FIXTURES, |path| snapshot!(diagrams(
        path, dot
    )));
}

/// The labels of effects and timers, in both text formats: effects after
/// `/`, outputs after them introduced by `emit`, timers as `after DELAY`
/// edges or, without a target, lines inside their state.
#[test]
fn effects_and_timers_are_labelled() {
    let text = "machine M {
        context C;
        action go(P);
        effect arm, count, record(P);
        delay backoff;
        initial state a {
            enter do arm emit started;
            exit do count;
            on go -> b do count, record emit sent;
            on go [g] priority 1 -> b do record;
            after 30s [h] do count;
            after 30s emit log_slow;
            after backoff [g] -> b emit gave_up;
        }
        terminal state b;
    }";
    let machine = &check(text).into_model().unwrap().machines[0];
    let mermaid = mermaid(machine);
    for line in [
        "a : enter / arm emit started",
        "a : exit / count",
        "a : after 30s [h] (p0) / count",
        "a : after 30s (p0) / log_slow",
        "a --> b : go (p0) / count, record emit sent",
        "a --> b : go [g] (p1) / record",
        "a --> b : after backoff [g] / gave_up",
    ] {
        assert!(
            mermaid.contains(&format!("    {line}\n")),
            "no `{line}` in\n{mermaid}"
        );
    }
    let dot = dot(machine);
    for label in [
        r#""a" [label="a\nenter / arm emit started\nexit / count\nafter 30s [h] (p0) / count\nafter 30s (p0) / log_slow"]"#,
        r#""[0]" [label="go (p0) / count, record emit sent", shape=plaintext]"#,
        r#""a" -> "[0]" [arrowhead=none]"#,
        r#""[0]" -> "b""#,
        r#""[2]" [label="after backoff [g] / gave_up", shape=plaintext]"#,
    ] {
        assert!(dot.contains(label), "no `{label}` in\n{dot}");
    }
}

#[test]
fn mermaid_draws_every_state_once_and_marks_start_and_ends() {
    for (name, machine) in all_machines() {
        let text = mermaid(&machine);
        assert!(text.contains("stateDiagram-v2\n"), "{name}");
        // A parallel state starts in each region, not in itself.
        let composites = machine
            .states
            .iter()
            .filter(|s| s.is_composite() && !s.is_parallel())
            .count();
        assert_eq!(
            text.matches("[*] --> ").count(),
            1 + composites,
            "{name}: one start, and one in each composite state but a parallel one"
        );
        let ends = machine
            .states
            .iter()
            .filter(|s| s.is_terminal() || s.is_final())
            .count();
        assert_eq!(
            text.matches(" --> [*]\n").count(),
            ends,
            "{name}: one end per terminal or final state"
        );
        for state in &machine.states {
            assert!(
                text.lines().any(|l| l.contains(&format!(" {}", state.name))),
                "{name}: state {} is missing\n{text}",
                state.name
            );
        }
    }
}

/// Run Graphviz's `dot` on `source`; `None` when `dot` is not installed.
fn render_with_graphviz(source: &str) -> Option<Result<String, String>> {
    let mut child = match Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("cannot run dot: {e}"),
    };
    child.stdin.take().unwrap().write_all(source.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    Some(if output.status.success() && stderr.is_empty() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!("{}: {stderr}", output.status))
    })
}

#[test]
fn graphviz_accepts_the_dot_output() {
    for (name, machine) in all_machines() {
        let source = dot(&machine);
        match render_with_graphviz(&source) {
            None => {
                let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
                assert!(
                    !in_ci,
                    "Graphviz `dot` is not installed, and in CI this test needs it \
                     (.ci/graphviz.sh installs it)"
                );
                // Straight to stderr: the test harness captures `println!`,
                // and a skip should be visible.
                let _ = writeln!(
                    std::io::stderr(),
                    "graphviz_accepts_the_dot_output: skipped, Graphviz `dot` is not installed"
                );
                return;
            }
            Some(Ok(svg)) => {
                for state in &machine.states {
                    assert!(
                        svg.contains(&format!(">{}<", state.name)),
                        "{name}: {}",
                        state.name
                    );
                }
            }
            Some(Err(problem)) => panic!("dot rejects the output for {name}: {problem}\n{source}"),
        }
    }
}

#[test]
fn svg_is_drawn_for_every_machine_deterministically() {
    for (name, machine) in all_machines() {
        let picture = svg(&machine).unwrap();
        assert!(picture.starts_with("<?xml"), "{name}");
        assert!(picture.trim_end().ends_with("</svg>"), "{name}");
        for state in &machine.states {
            assert!(
                picture.contains(&state.name),
                "{name}: state {} is missing",
                state.name
            );
        }
        assert_eq!(picture, svg(&machine).unwrap(), "{name}: two drawings differ");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_machines_are_drawn_in_every_format(text in random_machine::machine_text()) {
        let checked = check(&text);
        prop_assume!(!checked.has_errors());
        for machine in &checked.model.machines {
            let text = mermaid(machine);
            prop_assert!(text.contains("[*] --> "));
            let source = dot(machine);
            if let Some(Err(problem)) = render_with_graphviz(&source) {
                prop_assert!(false, "dot rejects {source}: {problem}");
            }
            let picture = svg(machine).unwrap();
            prop_assert!(picture.trim_end().ends_with("</svg>"));
        }
    }
}

/// What an SVG diagram shows, read back from its XML.
struct Picture {
    /// State (and `any`) boxes with their names, and the start markers
    /// (named `[*]`).
    boxes: Vec<(String, Rect)>,
    /// Each edge's drawn path, sampled into a polyline, in edge order.
    edges: Vec<Vec<(f64, f64)>>,
    /// Each label's text and box, in edge order (the start edges, which come
    /// first, have none).
    labels: Vec<(String, Rect)>,
    /// Every bold text: the state names.
    names: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn contains(&self, (x, y): (f64, f64), inset: f64) -> bool {
        x > self.x + inset && x < self.x + self.w - inset && y > self.y + inset && y < self.y + self.h - inset
    }

    fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.w - 0.5
            && other.x < self.x + self.w - 0.5
            && self.y < other.y + other.h - 0.5
            && other.y < self.y + self.h - 0.5
    }

    /// Distance from a point to the rectangle (0 inside).
    fn distance(&self, (x, y): (f64, f64)) -> f64 {
        let dx = (self.x - x).max(x - self.x - self.w).max(0.0);
        let dy = (self.y - y).max(y - self.y - self.h).max(0.0);
        dx.hypot(dy)
    }
}

fn attr(node: roxmltree::Node, name: &str) -> f64 {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> has no {name}", node.tag_name().name()))
        .parse()
        .unwrap()
}

fn rect_of(node: roxmltree::Node) -> Rect {
    Rect {
        x: attr(node, "x"),
        y: attr(node, "y"),
        w: attr(node, "width"),
        h: attr(node, "height"),
    }
}

/// Path data (`M`, `L`, `C` with absolute `x,y` pairs) sampled into a
/// polyline; curves at 16 points each.
fn sample_path(d: &str) -> Vec<(f64, f64)> {
    let mut points: Vec<(f64, f64)> = Vec::new();
    let mut command = ' ';
    let mut pending: Vec<(f64, f64)> = Vec::new();
    for token in d.split_whitespace() {
        let token = match token.chars().next() {
            Some(c) if c.is_ascii_alphabetic() => {
                command = c;
                &token[1..]
            }
            _ => token,
        };
        let (x, y) = token.split_once(',').expect("x,y");
        pending.push((x.parse().unwrap(), y.parse().unwrap()));
        match command {
            'M' | 'L' => points.push(pending.pop().unwrap()),
            'C' if pending.len() == 3 => {
                let p0 = *points.last().expect("a curve follows a point");
                let (p1, p2, p3) = (pending[0], pending[1], pending[2]);
                for i in 1..=16 {
                    let t = i as f64 / 16.0;
                    let u = 1.0 - t;
                    let f = |a: f64, b: f64, c: f64, d: f64| {
                        u * u * u * a + 3.0 * u * u * t * b + 3.0 * u * t * t * c + t * t * t * d
                    };
                    points.push((f(p0.0, p1.0, p2.0, p3.0), f(p0.1, p1.1, p2.1, p3.1)));
                }
                pending.clear();
            }
            'C' => {}
            other => panic!("unexpected path command {other:?} in {d}"),
        }
    }
    points
}

/// Parse the SVG as XML (so it must be well-formed) and read it back.
fn picture(svg: &str) -> Picture {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let (width, height) = (attr(root, "width"), attr(root, "height"));
    let mut boxes = Vec::new();
    let mut edges = Vec::new();
    let mut labels = Vec::new();
    let mut names = Vec::new();
    for node in root.descendants().filter(|n| n.is_element()) {
        let class = node.attribute("class").unwrap_or("");
        match (node.tag_name().name(), class) {
            ("g", "state" | "any") => {
                let rect = rect_of(node.children().find(|c| c.has_tag_name("rect")).unwrap());
                let name = node
                    .children()
                    .find(|c| c.has_tag_name("text"))
                    .and_then(|t| t.text())
                    .unwrap()
                    .to_string();
                boxes.push((name, rect));
            }
            ("circle", "start") => {
                let (cx, cy, r) = (attr(node, "cx"), attr(node, "cy"), attr(node, "r"));
                boxes.push((
                    "[*]".into(),
                    Rect {
                        x: cx - r,
                        y: cy - r,
                        w: 2.0 * r,
                        h: 2.0 * r,
                    },
                ));
            }
            ("path", "edge") => edges.push(sample_path(node.attribute("d").unwrap())),
            ("g", "labels") => {
                // One `<g class="label">` per label: its box, then its text.
                for label in node.children().filter(|c| c.is_element()) {
                    assert_eq!(label.attribute("class"), Some("label"));
                    let pair: Vec<_> = label.children().filter(|c| c.is_element()).collect();
                    // Wrapped labels: one tspan per line.
                    let text: String = pair[1]
                        .descendants()
                        .filter(|n| n.is_text())
                        .map(|n| n.text().unwrap())
                        .collect();
                    labels.push((text, rect_of(pair[0])));
                }
            }
            ("text", _) if node.attribute("font-weight") == Some("bold") => {
                names.push(node.text().unwrap_or("").to_string());
            }
            _ => {}
        }
    }
    // Everything lies on the canvas.
    for (name, r) in boxes.iter().chain(&labels) {
        assert!(
            r.x >= 0.0 && r.y >= 0.0 && r.x + r.w <= width + 0.1 && r.y + r.h <= height + 0.1,
            "{name} sticks out of the {width}x{height} canvas: {r:?}"
        );
    }
    Picture {
        boxes,
        edges,
        labels,
        names,
    }
}

/// The labels DOT gives the edges, which the SVG must show too: those of
/// the label nodes (`"[N]"`) the edges run through.
fn dot_labels(machine: &Machine) -> Vec<String> {
    dot(machine)
        .lines()
        .filter_map(|line| {
            line.split_once(" [label=\"").filter(|(id, _)| {
                let id = id.trim_start();
                id.len() > 4
                    && id.starts_with("\"[")
                    && id.ends_with("]\"")
                    && id[2..id.len() - 2].bytes().all(|b| b.is_ascii_digit())
            })
        })
        .map(|(_, rest)| {
            // Up to the first quote that no backslash escapes: `shape`
            // follows.
            let mut label = String::new();
            let mut chars = rest.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => label.extend(chars.next()),
                    '"' => break,
                    c => label.push(c),
                }
            }
            label
        })
        .collect()
}

/// Points every pixel or so along a segment, both ends included.
fn points_along(a: (f64, f64), b: (f64, f64)) -> impl Iterator<Item = (f64, f64)> {
    let steps = (a.0 - b.0).hypot(a.1 - b.1).ceil().max(1.0) as usize;
    (0..=steps).map(move |i| {
        let t = i as f64 / steps as f64;
        (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
    })
}

fn segments_meet_box(a: (f64, f64), b: (f64, f64), rect: &Rect) -> bool {
    points_along(a, b).any(|p| rect.contains(p, 1.0))
}

/// Every check on one machine's SVG.
fn check_picture(name: &str, machine: &Machine) {
    let svg = svg(machine).unwrap();
    let pic = picture(&svg);

    // Every state name once, and `any` when there are `any` transitions.
    let mut names = pic.names.clone();
    names.sort();
    let mut expected: Vec<String> = machine.states.iter().map(|s| s.name.clone()).collect();
    if !machine.any_transitions().is_empty() {
        expected.push("any".into());
    }
    expected.sort();
    assert_eq!(names, expected, "{name}: state names");

    // Every edge label once: the same multiset as DOT's.
    let mut labels: Vec<String> = pic.labels.iter().map(|(t, _)| t.clone()).collect();
    let mut expected = dot_labels(machine);
    labels.sort();
    expected.sort();
    assert_eq!(labels, expected, "{name}: edge labels");
    // The start edges (the machine's, then one per composite state that is
    // not parallel: each region has its own), then one per label.
    let composite_count = machine
        .states
        .iter()
        .filter(|s| s.is_composite() && !s.is_parallel())
        .count();
    let starts = 1 + composite_count;
    assert_eq!(pic.edges.len(), pic.labels.len() + starts, "{name}: edges");
    let pic = name_start_markers(name, machine, pic);

    // No edge through a box other than its own ends.
    for (e, edge) in pic.edges.iter().enumerate() {
        let (first, last) = (edge[0], edge[edge.len() - 1]);
        for (state, rect) in &pic.boxes {
            let own = rect.distance(first) < 1.0 || rect.distance(last) < 1.0;
            if own {
                continue;
            }
            assert!(
                !edge.windows(2).any(|w| segments_meet_box(w[0], w[1], rect)),
                "{name}: edge {e} passes through {state}\n{svg}"
            );
        }
    }

    let composites: std::collections::HashSet<&str> = machine
        .states
        .iter()
        .filter(|s| s.is_composite())
        .map(|s| s.name.as_str())
        .collect();
    // Each label beside its own edge, clear of every box and other label.
    for (i, (text, rect)) in pic.labels.iter().enumerate() {
        let edge = &pic.edges[i + starts];
        let near = edge
            .windows(2)
            .flat_map(|w| points_along(w[0], w[1]))
            .map(|p| rect.distance(p))
            .fold(f64::MAX, f64::min);
        assert!(
            near <= 8.0,
            "{name}: label {text:?} is {near:.1}px from its edge\n{svg}"
        );
        for (state, b) in &pic.boxes {
            // A label may lie inside the box of a composite state its edge
            // starts or ends in.
            let own = composites.contains(state.as_str())
                && (b.distance(edge[0]) < 1.0 || b.distance(edge[edge.len() - 1]) < 1.0);
            assert!(own || !rect.overlaps(b), "{name}: label {text:?} covers {state}");
        }
        for (other, r) in &pic.labels[i + 1..] {
            assert!(!rect.overlaps(r), "{name}: labels {text:?} and {other:?} overlap");
        }
    }
    // No two boxes overlap, but a composite state's box holds the boxes of
    // the states inside it.
    let holds = |outer: &str, inner: &str| {
        // A composite's start marker lies inside it.
        if let Some(owner) = inner.strip_prefix("[*] of ") {
            return owner == outer || holds_state(machine, outer, owner);
        }
        holds_state(machine, outer, inner)
    };
    for (i, (a, ra)) in pic.boxes.iter().enumerate() {
        for (b, rb) in &pic.boxes[i + 1..] {
            if holds(a, b) || holds(b, a) {
                let (outer, inner) = if holds(a, b) { (ra, rb) } else { (rb, ra) };
                assert!(
                    inner.x >= outer.x
                        && inner.y >= outer.y
                        && inner.x + inner.w <= outer.x + outer.w
                        && inner.y + inner.h <= outer.y + outer.h,
                    "{name}: {a} and {b}: the inner box sticks out"
                );
            } else {
                assert!(!ra.overlaps(rb), "{name}: {a} and {b} overlap");
            }
        }
    }
}

/// True when state `inner` lies inside state `outer`.
fn holds_state(machine: &Machine, outer: &str, inner: &str) -> bool {
    let mut state = machine.states.iter().find(|s| s.name == inner);
    while let Some(s) = state.and_then(|s| s.parent) {
        let parent = &machine.states[s.index()];
        if parent.name == outer {
            return true;
        }
        state = Some(parent);
    }
    false
}

/// Checks the start markers and names each after the box it lies in:
/// `[*]` for the machine's, outside every composite state, and `[*] of X`
/// for composite state `X`'s, inside its box and no box within it. There is
/// exactly one of each, and one of the start edges (the first edges drawn)
/// runs from each marker to its initial state.
fn name_start_markers(name: &str, machine: &Machine, mut pic: Picture) -> Picture {
    let composites: Vec<(String, Rect)> = pic
        .boxes
        .iter()
        .filter(|(n, _)| machine.states.iter().any(|s| s.is_composite() && s.name == *n))
        .cloned()
        .collect();
    let within = |inner: &Rect, outer: &Rect| {
        inner.x >= outer.x
            && inner.y >= outer.y
            && inner.x + inner.w <= outer.x + outer.w
            && inner.y + inner.h <= outer.y + outer.h
    };
    let box_of = |boxes: &[(String, Rect)], state: &str| -> Rect {
        boxes
            .iter()
            .find(|(n, _)| n == state)
            .unwrap_or_else(|| panic!("{name}: no box for {state}"))
            .1
    };
    // The marker's initial state for each owner (`None`: the machine).
    let mut expected: Vec<(Option<String>, String)> =
        vec![(None, machine.states[machine.initial.index()].name.clone())];
    for s in machine.state_ids() {
        if machine.state(s).is_composite() && !machine.state(s).is_parallel() {
            let child = machine.initial_child(s).expect("a composite has children");
            expected.push((
                Some(machine.state(s).name.clone()),
                machine.state(child).name.clone(),
            ));
        }
    }
    let starts = expected.len();
    let mut owners = Vec::new();
    let markers: Vec<usize> = (0..pic.boxes.len())
        .filter(|&i| pic.boxes[i].0 == "[*]")
        .collect();
    for i in markers {
        let rect = pic.boxes[i].1;
        // The innermost box around the marker.
        let owner = composites
            .iter()
            .filter(|(_, b)| within(&rect, b))
            .min_by(|a, b| (a.1.w * a.1.h).total_cmp(&(b.1.w * b.1.h)))
            .map(|(n, _)| n.clone());
        let k = expected
            .iter()
            .position(|(o, _)| *o == owner)
            .unwrap_or_else(|| panic!("{name}: a second start marker in {owner:?}"));
        let (_, initial) = expected.swap_remove(k);
        let target = box_of(&pic.boxes, &initial);
        let centre = (rect.x + rect.w / 2.0, rect.y + rect.h / 2.0);
        assert!(
            pic.edges[..starts].iter().any(|e| {
                let (first, last) = (e[0], e[e.len() - 1]);
                rect.distance(first) < 1.0
                    && (first.0 - centre.0).hypot(first.1 - centre.1) <= rect.w / 2.0 + 0.5
                    && target.distance(last) < 1.0
            }),
            "{name}: no edge from the start marker of {owner:?} to {initial}"
        );
        if let Some(owner) = &owner {
            pic.boxes[i].0 = format!("[*] of {owner}");
        }
        owners.push(owner);
    }
    assert!(
        expected.is_empty(),
        "{name}: no start marker for {:?} (markers found in {owners:?})",
        expected.iter().map(|(o, _)| o).collect::<Vec<_>>()
    );
    pic
}

#[test]
fn svg_shows_every_state_and_label_once_with_edges_around_boxes() {
    for (name, machine) in all_machines() {
        check_picture(&name, &machine);
    }
}

/// A ring with `next` and `back` transitions: layout-rs took 48 s at 28
/// states and did not finish at 30.
#[test]
fn a_ring_of_200_states_is_drawn() {
    let n = 200;
    let mut text = String::from("machine Ring {\n");
    for i in 0..n {
        let initial = if i == 0 { "initial " } else { "" };
        let _ = writeln!(
            text,
            "    {initial}state s{i} {{ on next -> s{}; on back -> s{}; }}",
            (i + 1) % n,
            (i + n - 1) % n
        );
    }
    text.push_str("}\n");
    let model = check(&text).into_model().unwrap();
    let machine = &model.machines[0];
    check_picture("ring", machine);
    let pic = picture(&svg(machine).unwrap());
    assert_eq!(pic.labels.len(), 2 * n);
}

/// RFC 793's TCP connection diagram, which layout-rs drew as a tangle.
#[test]
fn the_tcp_machine_is_drawn_cleanly() {
    let text = include_str!("../diagram/tcp.fsm");
    let model = check(text).into_model().unwrap();
    check_picture("tcp", &model.machines[0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_machines_keep_edges_and_labels_in_place(text in random_machine::machine_text()) {
        let checked = check(&text);
        prop_assume!(!checked.has_errors());
        for machine in &checked.model.machines {
            check_picture(&text, machine);
        }
    }
}

/// The agent loop with its working phases in a composite, paused and
/// resumed through history.
#[test]
fn a_nested_agent_loop_is_drawn_with_boxes_around_its_phases() {
    let text = "machine Agent {
        initial state idle { on start -> working; }
        state working {
            on pause -> paused;
            on cancel -> idle emit cancelled;
            after 10m -> failed emit timed_out;
            initial state calling_llm {
                on tool_call -> running_tools;
                on answer -> done emit reply;
                on llm_error -> failed;
            }
            state running_tools {
                on tools_done -> calling_llm;
                on tool_error -> calling_llm emit report;
            }
        }
        state paused { on resume -> working.history; on cancel -> idle; }
        terminal state done;
        terminal state failed;
    }";
    let model = check(text).into_model().unwrap();
    let machine = &model.machines[0];
    check_picture("agent", machine);
    assert!(dot_labels(machine).contains(&"resume (H)".to_string()));
}

/// Composites `depth` levels deep, `width` to a level, with edges between
/// levels, into and out of composites, to composites' history and from
/// composites to themselves.
fn nested_machine(width: usize, depth: usize) -> String {
    fn block(text: &mut String, prefix: &str, width: usize, depth: usize, all: &mut Vec<String>) {
        for i in 0..width {
            let name = format!("{prefix}{i}");
            let initial = if i == 0 { "initial " } else { "" };
            all.push(name.clone());
            let _ = write!(text, "{initial}state {name} {{ ");
            if depth > 0 {
                let _ = write!(text, "on again_{name} -> {name}; ");
                block(text, &format!("{name}_"), width, depth - 1, all);
            }
            text.push_str("}\n");
        }
    }
    let mut body = String::new();
    let mut all = Vec::new();
    block(&mut body, "s", width, depth, &mut all);
    // Edges appended to the leaves: each leaf goes on to a state further
    // down the list and back to an earlier one, and to a composite's history.
    let composites: Vec<&String> = all
        .iter()
        .filter(|n| body.contains(&format!("state {n} {{ on again_")))
        .collect();
    for (i, name) in all.iter().enumerate() {
        if composites.contains(&name) {
            continue;
        }
        let ahead = &all[(i * 7 + 3) % all.len()];
        let back = &all[(i * 3) % all.len()];
        let mut edges = format!("on next -> {ahead}; on back -> {back}; ");
        if let Some(c) = composites.get(i % composites.len().max(1)) {
            let _ = write!(edges, "on resume -> {c}.history; ");
        }
        body = body.replacen(
            &format!("state {name} {{ "),
            &format!("state {name} {{ {edges}"),
            1,
        );
    }
    format!("machine Nested {{\n{body}}}\n")
}

#[test]
fn nested_machines_are_drawn_with_boxes_inside_boxes() {
    for (width, depth) in [(2, 1), (3, 2), (2, 3)] {
        let text = nested_machine(width, depth);
        let checked = check(&text);
        assert!(!checked.has_errors(), "{text}\n{:#?}", checked.diagnostics);
        check_picture(&text, &checked.model.machines[0]);
    }
}

/// A part of the drawing linked to nothing else (the `any` pseudo-state and
/// the state it leads to) sits next to the rest, not past the full width of
/// every rank it shares: in the agent loop, whose phases sit in a composite
/// state, `any` and `shutting_down` were once drawn about 1,500 pixels to the
/// right of everything else.
#[test]
fn a_part_linked_to_nothing_else_sits_next_to_the_rest() {
    let path = workspace().join("examples/agent_loop.fsm");
    let model = model(&path);
    let machine = &model.machines[0];
    assert!(machine.is_nested() && !machine.any_transitions().is_empty());
    let picture = picture(&fsm_diagram::svg(machine).unwrap());
    let apart = ["any", "shutting_down", "shutdown_requested / shutdown"];
    let main_right = picture
        .boxes
        .iter()
        .chain(&picture.labels)
        .filter(|(n, _)| !apart.contains(&n.as_str()))
        .map(|(_, r)| r.x + r.w)
        .fold(0.0, f64::max);
    let any = &picture
        .boxes
        .iter()
        .find(|(n, _)| n == "any")
        .expect("the any box")
        .1;
    assert!(
        any.x < main_right + 100.0,
        "`any` at x = {} while the rest ends at {main_right}",
        any.x
    );
}

/// Each composite state shows which of its states it starts in, as UML
/// and the Mermaid and DOT outputs do: a start marker inside its box with an
/// edge to its initial state. Here the initial state of `outer` is itself a
/// composite, so the edge ends at `inner`'s border and `inner` has its own
/// marker inside; the SVG once had a single marker, for the machine.
#[test]
fn every_composite_state_points_at_its_initial_state() {
    let text = "machine Nested {
        initial state outer {
            on quit -> done;
            initial state inner {
                on aside -> other;
                initial state a { on go -> b; }
                state b { on back -> a; }
            }
            state other { on resume -> inner; }
        }
        terminal state done;
    }";
    let model = check(text).into_model().unwrap();
    let machine = &model.machines[0];
    check_picture("nested initial", machine);
    let svg = svg(machine).unwrap();
    assert_eq!(svg.matches("<circle class=\"start\"").count(), 3, "{svg}");
    let pic = name_start_markers("nested initial", machine, picture(&svg));
    let marker = |owner: &str| {
        pic.boxes
            .iter()
            .find(|(n, _)| n == owner)
            .unwrap_or_else(|| panic!("no {owner}"))
            .1
    };
    let (outer, inner) = (marker("[*] of outer"), marker("[*] of inner"));
    // `outer`'s marker sits above `inner`'s box, `inner`'s above `a`.
    let boxes = |n: &str| pic.boxes.iter().find(|(b, _)| b == n).unwrap().1;
    assert!(outer.y + outer.h <= boxes("inner").y, "{svg}");
    assert!(inner.y + inner.h <= boxes("a").y, "{svg}");
}

/// Every state can go back to the start: enough states that the `cancel`
/// edges share one trunk up to it (see `tests/it/svg_layout.rs`), which runs
/// around every box like any edge, each label beside its own edge.
#[test]
fn edges_sharing_a_trunk_keep_clear_of_boxes_and_labels() {
    let n = 60;
    let mut text = String::from("machine Back {\n");
    for i in 0..n {
        let initial = if i == 0 { "initial " } else { "" };
        let next = if i + 1 < n {
            format!(" on next -> s{};", i + 1)
        } else {
            String::new()
        };
        let cancel = if i > 0 { " on cancel -> s0;" } else { "" };
        let _ = writeln!(text, "    {initial}state s{i} {{{next}{cancel} }}");
    }
    text.push_str("}\n");
    let model = check(&text).into_model().unwrap();
    let machine = &model.machines[0];
    let drawn = svg(machine).unwrap();
    assert!(
        drawn.matches("marker-end").count() < 2 * n - 1,
        "no edge joins a trunk"
    );
    check_picture("back to the start", machine);
}

/// Closer than this, two edges read as one line.
const EDGE_SEPARATION: f64 = 6.0;
/// Closer than this to a composite state's border, an edge reads as part
/// of it.
const BORDER_SEPARATION: f64 = 10.0;
/// A close run longer than this is a defect; shorter ones are crossings,
/// meetings at a box and turns.
const SHORT_RUN: f64 = 40.0;
/// The widest empty band allowed inside a composite state, at its left.
const LEFT_BAND: f64 = 40.0;

/// The polyline resampled every pixel or so.
fn dense(edge: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut points: Vec<(f64, f64)> = edge.windows(2).flat_map(|w| points_along(w[0], w[1])).collect();
    points.dedup();
    points
}

fn segment_distance(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let length = dx * dx + dy * dy;
    let t = if length == 0.0 {
        0.0
    } else {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / length).clamp(0.0, 1.0)
    };
    (p.0 - a.0 - t * dx).hypot(p.1 - a.1 - t * dy)
}

/// The longest stretch of `points` (consecutive, measured along them)
/// over which `close` holds at every point, and where it starts.
fn longest_run(points: &[(f64, f64)], close: impl Fn((f64, f64)) -> bool) -> (f64, (f64, f64)) {
    let (mut best, mut at) = (0.0, (0.0, 0.0));
    let mut run: Option<(f64, (f64, f64))> = None;
    for (i, &p) in points.iter().enumerate() {
        if !close(p) {
            run = None;
            continue;
        }
        let step = if i > 0 && run.is_some() {
            let q = points[i - 1];
            (p.0 - q.0).hypot(p.1 - q.1)
        } else {
            0.0
        };
        let (length, start) = run.map_or((0.0, p), |(l, s)| (l + step, s));
        run = Some((length, start));
        if length > best {
            (best, at) = (length, start);
        }
    }
    (best, at)
}

/// Every way one machine's picture lets edges run together or along a
/// border, or leaves a composite half empty.
fn spacing_faults(name: &str, machine: &Machine) -> Vec<String> {
    let pic = picture(&svg(machine).unwrap());
    let mut faults = Vec::new();
    let dense_edges: Vec<Vec<(f64, f64)>> = pic.edges.iter().map(|e| dense(e)).collect();
    let bounds = |e: &[(f64, f64)]| {
        e.iter().fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |b, p| {
            (b.0.min(p.0), b.1.min(p.1), b.2.max(p.0), b.3.max(p.1))
        })
    };
    let boxes: Vec<_> = pic.edges.iter().map(|e| bounds(e)).collect();
    for (i, a) in dense_edges.iter().enumerate() {
        for (j, b) in pic.edges.iter().enumerate() {
            if i == j {
                continue;
            }
            let bb = boxes[j];
            let close = |p: (f64, f64)| {
                p.0 > bb.0 - EDGE_SEPARATION
                    && p.0 < bb.2 + EDGE_SEPARATION
                    && p.1 > bb.1 - EDGE_SEPARATION
                    && p.1 < bb.3 + EDGE_SEPARATION
                    && b.windows(2)
                        .any(|w| segment_distance(p, w[0], w[1]) < EDGE_SEPARATION)
            };
            let (run, at) = longest_run(a, close);
            if run > SHORT_RUN {
                faults.push(format!(
                    "{name}: edges {i} and {j} run closer than {EDGE_SEPARATION}px for {run:.0}px from {at:?}"
                ));
            }
        }
    }
    let composites: Vec<&(String, Rect)> = pic
        .boxes
        .iter()
        .filter(|(n, _)| machine.states.iter().any(|s| s.is_composite() && s.name == *n))
        .collect();
    for (state, r) in &composites {
        let to_border = |p: (f64, f64)| {
            if r.contains(p, 0.0) {
                (p.0 - r.x)
                    .min(r.x + r.w - p.0)
                    .min(p.1 - r.y)
                    .min(r.y + r.h - p.1)
            } else {
                r.distance(p)
            }
        };
        for (i, a) in dense_edges.iter().enumerate() {
            let (run, at) = longest_run(a, |p| to_border(p) < BORDER_SEPARATION);
            if run > SHORT_RUN {
                faults.push(format!(
                    "{name}: edge {i} runs along the border of {state}, closer than \
                     {BORDER_SEPARATION}px, for {run:.0}px from {at:?}"
                ));
            }
        }
        // What lies inside: boxes, labels and edges.
        let inside = |q: &Rect| q.x >= r.x && q.y >= r.y && q.x + q.w <= r.x + r.w && q.y + q.h <= r.y + r.h;
        let left = pic
            .boxes
            .iter()
            .filter(|(n, q)| n != state && inside(q))
            .chain(pic.labels.iter().filter(|(_, q)| inside(q)))
            .map(|(_, q)| q.x)
            .chain(
                dense_edges
                    .iter()
                    .flatten()
                    .filter(|&&p| r.contains(p, 1.0))
                    .map(|p| p.0),
            )
            .fold(f64::MAX, f64::min);
        if left - r.x > LEFT_BAND {
            faults.push(format!(
                "{name}: {state} is empty for {:.0}px at its left",
                left - r.x
            ));
        }
    }
    faults
}

/// Edges keep apart from each other and from composite borders, and a
/// composite's content starts at its left (issue 15, item 16: the agent
/// loop's `pause` and `resume (H)` ran 3-5 px apart for 400 px, one edge
/// ran along the inside of `working`'s border, and the HTTP/2 stream's
/// `concurrent` had an empty left half).
#[test]
fn svg_edges_keep_apart_and_composites_are_packed() {
    let faults: Vec<String> = all_machines()
        .iter()
        .flat_map(|(name, machine)| spacing_faults(name, machine))
        .collect();
    assert!(
        faults.is_empty(),
        "{} faults:\n{}",
        faults.len(),
        faults.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Parallel and final states, `done` and `always` transitions
// ---------------------------------------------------------------------------

/// The research pipeline (two researchers at once), a media player
/// (playback and volume) and a parallel state inside a composite.
const PARALLEL: &str = "{research,media_player,nested_parallel}.fsm";

#[test]
fn mermaid_of_parallel_machines() {
    insta::glob!("../diagram", PARALLEL, |path| snapshot!(diagrams(path, mermaid)));
}

#[test]
fn dot_of_parallel_machines() {
    insta::glob!("../diagram", PARALLEL, |path| snapshot!(diagrams(path, dot)));
}

fn parallel_machine(name: &str) -> Machine {
    let path = workspace()
        .join("fsm-diagram/tests/diagram")
        .join(format!("{name}.fsm"));
    model(&path).machines.remove(0)
}

#[test]
fn parallel_machines_are_drawn_cleanly() {
    for name in ["research", "media_player", "nested_parallel"] {
        let machine = parallel_machine(name);
        check_picture(name, &machine);
        if let Some(result) = render_with_graphviz(&dot(&machine)) {
            result.unwrap_or_else(|e| panic!("{name}: Graphviz refuses the DOT: {e}"));
        }
    }
}

/// The `x1`, `y1` and `y2` of every dashed line between regions.
fn region_lines(svg: &str) -> Vec<(f64, f64, f64)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("line") && n.attribute("class") == Some("region"))
        .map(|n| (attr(n, "x1"), attr(n, "y1"), attr(n, "y2")))
        .collect()
}

/// The top-left corner of the bold text `name`.
fn name_at(svg: &str, name: &str) -> (f64, f64) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let node = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("text") && n.attribute("font-weight") == Some("bold") && n.text() == Some(name)
        })
        .unwrap_or_else(|| panic!("no {name} in\n{svg}"));
    (attr(node, "x"), attr(node, "y"))
}

#[test]
fn svg_divides_a_parallel_state_into_regions_side_by_side() {
    let machine = parallel_machine("research");
    let svg = svg(&machine).unwrap();
    // The regions' names on one line, `researcher_a` to the left, and one
    // dashed line between them that reaches the bottom of `collect`.
    let (ax, ay) = name_at(&svg, "researcher_a");
    let (bx, by) = name_at(&svg, "researcher_b");
    assert_eq!(ay, by);
    assert!(ax < bx);
    let lines = region_lines(&svg);
    assert_eq!(lines.len(), 1, "{svg}");
    let (x, top, bottom) = lines[0];
    assert!(ax < x && x < bx, "{x} is not between the regions");
    assert!(top < ay && bottom > ay, "{lines:?}");
    // A region has no border of its own; `collect` has one.
    assert!(svg.contains("fill=\"none\" stroke=\"none\""), "{svg}");
    // Final states are filled (the dot of UML's final state), with their
    // names in white; terminal states stay hollow.
    assert_eq!(svg.matches("fill=\"#333\" stroke=\"#333\"").count(), 3, "{svg}");
    assert_eq!(svg.matches("font-weight=\"bold\" fill=\"white\"").count(), 3);
    // `done` edges are labelled as `done`, with their guard and outputs.
    assert!(svg.contains(">done [in(a_done)] (p1) </tspan>"), "{svg}");
    // Three regions side by side, nested in a composite: two lines.
    let three = "machine M {
        initial state outer {
            initial parallel state p {
                state r1 { initial state a; }
                state r2 { initial state b; }
                state r3 { initial state c { on go -> d; } final state d; }
            }
        }
    }";
    let model = check(three).into_model().unwrap();
    let svg = fsm_diagram::svg(&model.machines[0]).unwrap();
    let xs: Vec<f64> = ["r1", "r2", "r3"].iter().map(|r| name_at(&svg, r).0).collect();
    let lines = region_lines(&svg);
    assert_eq!(lines.len(), 2, "{svg}");
    assert!(xs[0] < lines[0].0 && lines[0].0 < xs[1] && xs[1] < lines[1].0 && lines[1].0 < xs[2]);
    check_picture("three regions", &model.machines[0]);
}

#[test]
fn mermaid_separates_regions_and_ends_final_states_in_their_block() {
    let text = mermaid(&parallel_machine("research"));
    assert!(
        text.contains("            a_done --> [*]\n            a_gave_up --> [*]\n        }\n        --\n        state researcher_b {\n"),
        "{text}"
    );
    // No start marker of its own for a parallel state.
    assert!(!text.contains("    state collect {\n        [*]"), "{text}");
    assert!(text.contains("    collect --> synthesis : done [in(a_done)] (p1) / spawn_synthesizer\n"));
    // `always` edges are labelled `always`.
    let text = mermaid(&parallel_machine("media_player"));
    assert!(
        text.contains("playing --> stopped : always [track_ended && !in(muted)] / next_track"),
        "{text}"
    );
}

#[test]
fn dot_draws_regions_as_dashed_clusters_and_final_states_filled() {
    let text = dot(&parallel_machine("research"));
    assert!(
        text.contains("    subgraph \"cluster_collect\" {\n        label=\"collect\"; labeljust=l; style=rounded;\n        subgraph \"cluster_researcher_a\" {\n            label=\"researcher_a\"; labeljust=l; style=\"rounded,dashed\";\n"),
        "{text}"
    );
    assert!(!text.contains("\"[*] collect\""), "{text}");
    assert!(
        text.contains(
            "\"a_done\" [shape=doublecircle, style=filled, fillcolor=\"#333333\", fontcolor=white];"
        ),
        "{text}"
    );
    assert!(text.contains("\"delivered\" [shape=doublecircle];"), "{text}");
}
