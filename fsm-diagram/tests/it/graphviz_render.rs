//! What Graphviz draws from the DOT output, not only that it accepts it:
//! every machine of the examples and of the `ok/` and `warn/` fixtures is
//! laid out by `dot -Tjson`, and the drawing is checked for text that
//! another text or a line overprints: no two boxes (states, edge labels,
//! cluster labels) overlap, no edge passes through a box other than its own
//! ends, and no label sits across a cluster's border.
//!
//! Without Graphviz the test skips, saying so on stderr, except in CI
//! (`CI` set, and neither empty, `false` nor `0`), where it fails.

use fsm_diagram::dot;
use fsm_grammar::check;
use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn required_in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("fsm-diagram/ lives in the workspace")
        .to_path_buf()
}

/// The `.fsm` files of `dir`, sorted.
fn fsm_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fsm"))
        .collect();
    paths.sort();
    paths
}

/// Every machine of the examples (the `.fsm` files beside them and in
/// their crates) and of the `ok/` and `warn/` fixtures, named
/// `path (Machine)`, as DOT.
fn all_dot() -> Vec<(String, String)> {
    let root = workspace();
    let mut files = fsm_files(&root.join("examples"));
    for entry in std::fs::read_dir(root.join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(fsm_files(&path));
        }
    }
    files.extend(fsm_files(&root.join("tests/fixtures/ok")));
    files.extend(fsm_files(&root.join("tests/fixtures/warn")));
    let mut machines = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let model = check(&text)
            .into_model()
            .unwrap_or_else(|d| panic!("{} has errors: {d:#?}", path.display()));
        let shown = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
        for machine in &model.machines {
            machines.push((format!("{shown} ({})", machine.name), dot(machine)));
        }
    }
    assert!(machines.len() > 30, "found only {} machines", machines.len());
    machines
}

/// `dot -Tjson` of `source`; `None` when `dot` is not installed.
fn layout(source: &str) -> Option<Value> {
    let mut child = match Command::new("dot")
        .arg("-Tjson")
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
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stderr.is_empty(),
        "dot rejects the source: {}: {stderr}\n{source}",
        output.status
    );
    Some(serde_json::from_slice(&output.stdout).expect("dot -Tjson writes JSON"))
}

/// An axis-aligned box in Graphviz points.
#[derive(Clone, Copy, Debug)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

/// How far boxes may touch, in points, before it counts: Graphviz's text
/// widths are estimates, and neighbours it places edge to edge are fine.
const SLACK: f64 = 1.0;

impl Rect {
    fn around(x: f64, y: f64, width: f64, height: f64) -> Rect {
        Rect {
            x0: x - width / 2.0,
            y0: y - height / 2.0,
            x1: x + width / 2.0,
            y1: y + height / 2.0,
        }
    }

    fn overlaps(&self, other: &Rect) -> bool {
        self.x0 + SLACK < other.x1
            && other.x0 + SLACK < self.x1
            && self.y0 + SLACK < other.y1
            && other.y0 + SLACK < self.y1
    }

    fn contains(&self, (x, y): (f64, f64)) -> bool {
        self.x0 + SLACK < x && x < self.x1 - SLACK && self.y0 + SLACK < y && y < self.y1 - SLACK
    }

    fn holds(&self, other: &Rect) -> bool {
        self.x0 <= other.x0 && other.x1 <= self.x1 && self.y0 <= other.y0 && other.y1 <= self.y1
    }
}

/// What a box shows, to name it in a failure.
#[derive(Clone, PartialEq, Debug)]
enum Owner {
    /// A node, by `_gvid`: a state, a start point, `any`, or an edge's
    /// label node.
    Node(u64),
    /// An edge's own label, by the edge's `_gvid`.
    EdgeLabel(u64),
    /// A cluster's label.
    ClusterLabel,
}

struct Labelled {
    owner: Owner,
    name: String,
    rect: Rect,
}

/// An edge as drawn: its `_gvid`, its tail's and head's node `_gvid`s,
/// its name, and points along its curves.
struct Line {
    gvid: u64,
    tail: u64,
    head: u64,
    name: String,
    points: Vec<(f64, f64)>,
}

struct Drawing {
    boxes: Vec<Labelled>,
    edges: Vec<Line>,
    /// Each cluster: name and bounding box.
    clusters: Vec<(String, Rect)>,
}

fn number(value: &Value) -> f64 {
    match value {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) => s.parse().unwrap_or_else(|_| panic!("not a number: {s}")),
        other => panic!("not a number: {other}"),
    }
}

fn numbers(value: &Value) -> Vec<f64> {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a list of numbers: {value}"))
        .split(',')
        .map(|n| n.parse().unwrap_or_else(|_| panic!("not a number: {n}")))
        .collect()
}

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_string()
}

/// The box of the text `_ldraw_` writes: each `T` op at its baseline, its
/// width given, the height of the font (`F`) in force, a quarter of it
/// below the baseline.
fn text_box(ops: &Value) -> Option<Rect> {
    let mut size = 14.0;
    let mut rect: Option<Rect> = None;
    for op in ops.as_array()? {
        match op["op"].as_str() {
            Some("F") => size = number(&op["size"]),
            Some("T") => {
                let (x, y) = (number(&op["pt"][0]), number(&op["pt"][1]));
                let width = number(&op["width"]);
                let x0 = match op["align"].as_str() {
                    Some("l") => x,
                    Some("r") => x - width,
                    _ => x - width / 2.0,
                };
                let line = Rect {
                    x0,
                    y0: y - 0.25 * size,
                    x1: x0 + width,
                    y1: y + 0.75 * size,
                };
                rect = Some(match rect {
                    None => line,
                    Some(r) => Rect {
                        x0: r.x0.min(line.x0),
                        y0: r.y0.min(line.y0),
                        x1: r.x1.max(line.x1),
                        y1: r.y1.max(line.y1),
                    },
                });
            }
            _ => {}
        }
    }
    rect
}

/// Points along the cubic Bézier pieces of `points` (xdot's `b`/`B` ops).
fn along(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for piece in points.windows(4).step_by(3) {
        let [p0, p1, p2, p3] = [piece[0], piece[1], piece[2], piece[3]];
        let steps = 32;
        for k in 0..=steps {
            let t = k as f64 / steps as f64;
            let u = 1.0 - t;
            let (a, b, c, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
            out.push((
                a * p0.0 + b * p1.0 + c * p2.0 + d * p3.0,
                a * p0.1 + b * p1.1 + c * p2.1 + d * p3.1,
            ));
        }
    }
    out
}

fn drawing(json: &Value) -> Drawing {
    let empty = Vec::new();
    let objects = json["objects"].as_array().unwrap_or(&empty);
    let name_of = |gvid: u64| {
        objects
            .iter()
            .find(|o| o["_gvid"].as_u64() == Some(gvid))
            .map(|o| text(o, "name"))
            .unwrap_or_default()
    };
    let mut boxes = Vec::new();
    let mut clusters = Vec::new();
    for object in objects {
        let name = text(object, "name");
        if let Some(bb) = object.get("bb") {
            let bb = numbers(bb);
            clusters.push((
                name.clone(),
                Rect {
                    x0: bb[0],
                    y0: bb[1],
                    x1: bb[2],
                    y1: bb[3],
                },
            ));
            if let (Some(lp), Some(w), Some(h)) =
                (object.get("lp"), object.get("lwidth"), object.get("lheight"))
            {
                let lp = numbers(lp);
                boxes.push(Labelled {
                    owner: Owner::ClusterLabel,
                    name: format!("the label of {name}"),
                    rect: Rect::around(lp[0], lp[1], number(w) * 72.0, number(h) * 72.0),
                });
            }
        } else if let Some(pos) = object.get("pos") {
            let pos = numbers(pos);
            let label = text(object, "label");
            let shown = if label.is_empty() || label == "\\N" {
                name.clone()
            } else {
                label
            };
            boxes.push(Labelled {
                owner: Owner::Node(object["_gvid"].as_u64().unwrap()),
                name: format!("node {name:?} ({shown:?})"),
                rect: Rect::around(
                    pos[0],
                    pos[1],
                    number(&object["width"]) * 72.0,
                    number(&object["height"]) * 72.0,
                ),
            });
        }
    }
    let mut edges = Vec::new();
    for edge in json["edges"].as_array().unwrap_or(&empty) {
        let gvid = edge["_gvid"].as_u64().unwrap();
        let (tail, head) = (edge["tail"].as_u64().unwrap(), edge["head"].as_u64().unwrap());
        let name = format!(
            "edge {:?} -> {:?} ({:?})",
            name_of(tail),
            name_of(head),
            text(edge, "label")
        );
        if let Some(rect) = text_box(&edge["_ldraw_"]) {
            boxes.push(Labelled {
                owner: Owner::EdgeLabel(gvid),
                name: name.clone(),
                rect,
            });
        }
        let mut points = Vec::new();
        for op in edge["_draw_"].as_array().unwrap_or(&empty) {
            if matches!(op["op"].as_str(), Some("b" | "B")) {
                let curve: Vec<(f64, f64)> = op["points"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (number(&p[0]), number(&p[1])))
                    .collect();
                points.extend(along(&curve));
            }
        }
        edges.push(Line {
            gvid,
            tail,
            head,
            name,
            points,
        });
    }
    Drawing {
        boxes,
        edges,
        clusters,
    }
}

/// Every place where Graphviz's drawing overprints text, one line each.
fn overprints(json: &Value) -> Vec<String> {
    let drawing = drawing(json);
    let mut problems = Vec::new();
    for (i, a) in drawing.boxes.iter().enumerate() {
        for b in &drawing.boxes[i + 1..] {
            if a.rect.overlaps(&b.rect) {
                problems.push(format!("{} and {} overlap", a.name, b.name));
            }
        }
        if a.owner != Owner::ClusterLabel {
            for (cluster, bb) in &drawing.clusters {
                if a.rect.overlaps(bb) && !bb.holds(&a.rect) {
                    problems.push(format!("{} lies across the border of {cluster}", a.name));
                }
            }
        }
    }
    for line in &drawing.edges {
        for b in &drawing.boxes {
            let own = match b.owner {
                Owner::Node(n) => n == line.tail || n == line.head,
                Owner::EdgeLabel(e) => e == line.gvid,
                Owner::ClusterLabel => false,
            };
            if !own && line.points.iter().any(|&p| b.rect.contains(p)) {
                problems.push(format!("{} passes through {}", line.name, b.name));
            }
        }
    }
    problems
}

/// `None` (after saying why on stderr) when `dot` is missing outside CI.
fn graphviz() -> Option<()> {
    match Command::new("dot").arg("-V").output() {
        Ok(_) => Some(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(
                !required_in_ci(),
                "Graphviz `dot` is not installed, and in CI this test needs it"
            );
            // Straight to stderr: the harness captures `println!`, and a
            // skip should be visible.
            let _ = writeln!(
                std::io::stderr(),
                "graphviz_render: skipped, Graphviz `dot` is not installed"
            );
            None
        }
        Err(e) => panic!("cannot run dot: {e}"),
    }
}

#[test]
fn graphviz_draws_every_machine_without_overprinting() {
    if graphviz().is_none() {
        return;
    }
    let mut failures = Vec::new();
    for (name, source) in all_dot() {
        let json = layout(&source).expect("dot was found a moment ago");
        failures.extend(overprints(&json).into_iter().map(|p| format!("{name}: {p}")));
    }
    assert!(
        failures.is_empty(),
        "Graphviz overprints text in {} places:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The check can fail: loops drawn with edge labels of their own, as the
/// DOT output once drew them, run through each other's labels.
#[test]
fn the_check_finds_an_edge_through_a_label() {
    if graphviz().is_none() {
        return;
    }
    let source =
        r#"digraph { a -> a [label="first loop"]; a -> a [label="second loop"]; a -> a [label="third"]; }"#;
    let problems = overprints(&layout(source).unwrap());
    assert!(
        problems
            .iter()
            .any(|p| p.contains("passes through edge \"a\" -> \"a\" (\"first loop\")")),
        "{problems:#?}"
    );
}

/// The check can fail: two labels drawn over each other (as `dot` drew
/// `pause` and `resume` between a cluster and a node) are named.
#[test]
fn the_check_finds_overlapping_labels() {
    let label = |text: &str, x: f64| {
        serde_json::json!([
            { "op": "F", "size": 14.0, "face": "Times-Roman" },
            { "op": "T", "pt": [x, 100.0], "align": "c", "width": 150.0, "text": text }
        ])
    };
    let json = serde_json::json!({
        "objects": [
            { "_gvid": 0, "name": "working", "pos": "0,0", "width": "1", "height": "0.5" },
            { "_gvid": 1, "name": "paused", "pos": "400,0", "width": "1", "height": "0.5" }
        ],
        "edges": [
            { "_gvid": 0, "tail": 0, "head": 1, "label": "pause", "_ldraw_": label("pause", 200.0) },
            { "_gvid": 1, "tail": 1, "head": 0, "label": "resume", "_ldraw_": label("resume", 210.0) }
        ]
    });
    assert_eq!(
        overprints(&json),
        ["edge \"working\" -> \"paused\" (\"pause\") and edge \"paused\" -> \"working\" (\"resume\") overlap"]
    );
}
