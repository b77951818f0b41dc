//! SVG, laid out in-process by [`super::layout`]: no external program.
//!
//! Text is set in a monospace font, so its width is known exactly from the
//! number of characters; every box is sized to its text with padding, so
//! no text touches a border.

use super::layout::{self, Graph, Point, Rect, Size, TooLarge};
use super::view::{EdgeSource, StateView, View};
use fsm_grammar::model::Machine;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The font size of every text, in px.
const FONT_SIZE: f64 = 13.0;
/// The advance of one monospace character at [`FONT_SIZE`]: DejaVu Sans
/// Mono, Menlo and Consolas all advance about 0.6 em.
const CHAR_WIDTH: f64 = 0.602 * FONT_SIZE;
/// The height of one line of text.
const LINE: f64 = 17.0;
/// From a line's top to its baseline.
const BASELINE: f64 = 13.0;
/// Padding inside a state's box.
const PAD_X: f64 = 10.0;
const PAD_Y: f64 = 5.0;
/// Extra room between a state's name and its inner lines.
const RULE: f64 = 5.0;
/// How far the inner border of a terminal state sits inside the outer.
const INSET: f64 = 3.5;
/// How far the dashed line between two regions reaches above their tops.
const REGION_OVERHANG: f64 = 8.0;
/// Edge labels longer than this many columns are wrapped.
const WRAP: usize = 36;
/// Padding inside an edge label's box.
const LABEL_PAD: f64 = 3.0;
/// The start marker's radius.
const START_RADIUS: f64 = 6.0;
/// The start marker's node in the layout.
const START: Size = Size {
    width: 2.0 * START_RADIUS,
    height: 2.0 * START_RADIUS,
};
const FONT_FAMILY: &str = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace";

/// The machine as a standalone SVG document: the same picture as
/// [`dot()`](super::dot()), laid out top to bottom by fsmc's own layered
/// layout, with no external program. The output is deterministic, and
/// its size is proportional to what it draws: a long edge costs a point per
/// bend, and in a large drawing long edges to one state share their run to
/// it (every state going back to the start draws one line up to it).
///
/// # Errors
///
/// [`TooLarge`] when the layout would need more than
/// [`MAX_NODES`](super::MAX_NODES) nodes (states, edge labels and the points
/// where edges cross a rank), rather than gigabytes of memory.
///
/// ```
/// let model = fsm_grammar::check("machine M { initial state a { on go -> b; } terminal state b; }")
///     .into_model()
///     .unwrap();
/// let svg = fsm_diagram::svg(&model.machines[0]).unwrap();
/// assert!(svg.starts_with("<?xml"));
/// assert!(svg.contains(">go</tspan>"));
/// ```
pub fn svg(machine: &Machine) -> Result<String, TooLarge> {
    let view = View::new(machine);
    let mut drawing = Drawing::new(machine, &view);
    drawing.graph.make_room_for_ports();
    let placed = layout::layout(&drawing.graph)?;
    Ok(drawing.render(&view, &placed))
}

/// What a node of the layout graph is.
enum Shape {
    Start,
    State(usize),
    Any,
}

/// The layout graph of a view, with what each node and edge shows.
struct Drawing {
    graph: Graph,
    shapes: Vec<Shape>,
    /// The label of each layout edge: `None` for the start edges, which
    /// come first (the machine's, then one per composite state).
    labels: Vec<Option<String>>,
    /// The view's edge each layout edge draws: `None` for the start edges.
    edge_of: Vec<Option<usize>>,
    /// The composite states (indices into the view's states), outermost
    /// first, so that inner boxes are drawn over outer ones.
    composites: Vec<usize>,
    /// The regions of each parallel state, in declaration order.
    regions_of: HashMap<usize, Vec<usize>>,
}

impl Drawing {
    fn new(machine: &Machine, view: &View) -> Drawing {
        let mut graph = Graph::default();
        let mut shapes = Vec::new();
        let mut labels = Vec::new();
        let mut edge_of = Vec::new();
        graph.nodes.push(START);
        shapes.push(Shape::Start);
        for (i, state) in view.states.iter().enumerate() {
            let double = state.terminal || state.final_;
            graph.nodes.push(box_size(&state.name, &state.lines, double));
            shapes.push(Shape::State(i));
        }
        let any = view.any.as_ref().map(|lines| {
            graph.nodes.push(box_size("any", lines, false));
            shapes.push(Shape::Any);
            graph.nodes.len() - 1
        });
        let state = |i: usize| i + 1;
        graph.edges.push(layout::Edge::new(0, state(view.initial), None));
        labels.push(None);
        edge_of.push(None);
        // The start marker leads; `any` is searched last, so its edges
        // point down into the machine rather than up out of it.
        graph.roots.push(0);
        if machine.is_nested() {
            // A composite state's box is drawn around its states.
            // A parallel state's regions line up at the top, side by side.
            graph.top_aligned = std::iter::once(false)
                .chain(machine.states.iter().map(|s| s.is_parallel()))
                .collect();
            graph.parents = std::iter::once(None)
                .chain(machine.states.iter().map(|s| s.parent.map(|p| state(p.index()))))
                .chain(any.map(|_| None))
                .collect();
            // Inside each composite, a start marker of its own points at
            // its initial state, as UML draws it: a node of the composite's
            // inside, which leads there as the machine's marker leads the
            // whole drawing.
            // A parallel state has none: each of its regions has its own.
            for s in machine.state_ids() {
                let Some(child) = machine
                    .initial_child(s)
                    .filter(|_| !machine.state(s).is_parallel())
                else {
                    continue;
                };
                let marker = graph.nodes.len();
                graph.nodes.push(START);
                shapes.push(Shape::Start);
                graph.parents.push(Some(state(s.index())));
                graph.roots.push(marker);
                graph
                    .edges
                    .push(layout::Edge::new(marker, state(child.index()), None));
                labels.push(None);
                edge_of.push(None);
            }
        }
        for (j, edge) in view.edges.iter().enumerate() {
            let from = match (edge.from, any) {
                (EdgeSource::State(i), _) => state(i),
                (EdgeSource::Any, Some(any)) => any,
                // Edges from `any` exist only when the pseudo-state does.
                (EdgeSource::Any, None) => continue,
            };
            graph.edges.push(layout::Edge::new(
                from,
                state(edge.to),
                Some(label_size(&edge.label)),
            ));
            labels.push(Some(edge.label.clone()));
            edge_of.push(Some(j));
        }
        let mut composites: Vec<usize> = machine
            .state_ids()
            .filter(|&s| machine.state(s).is_composite())
            .map(|s| s.index())
            .collect();
        composites.sort_by_key(|&i| {
            machine
                .ancestors(fsm_grammar::model::StateId::from_index(i))
                .count()
        });
        let regions_of = machine
            .state_ids()
            .filter(|&s| machine.state(s).is_parallel())
            .map(|s| {
                let regions = machine.state(s).children.iter().map(|c| c.index()).collect();
                (s.index(), regions)
            })
            .collect();
        Drawing {
            graph,
            shapes,
            labels,
            edge_of,
            composites,
            regions_of,
        }
    }

    fn render(&self, view: &View, placed: &layout::Layout) -> String {
        let mut out = String::new();
        let (w, h) = (num(placed.width), num(placed.height));
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"{FONT_FAMILY}\" font-size=\"{}\">",
            num(FONT_SIZE)
        );
        let _ = writeln!(out, "<title>{}</title>", escape(&view.name));
        out.push_str(
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
             markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
             <path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n",
        );
        let _ = writeln!(out, "<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>");

        if !self.composites.is_empty() {
            out.push_str("<g class=\"composites\">\n");
            for &i in &self.composites {
                let state = &view.states[i];
                let header = placed.headers[i + 1].expect("a composite state has a header");
                composite_box(&mut out, &placed.nodes[i + 1], &header, state);
                if state.parallel {
                    self.region_separators(&mut out, i, placed);
                }
            }
            out.push_str("</g>\n");
        }
        out.push_str("<g class=\"edges\" fill=\"none\" stroke=\"#333\" stroke-width=\"1.2\">\n");
        for ((route, edge), of) in placed.edges.iter().zip(&self.graph.edges).zip(&self.edge_of) {
            let d = if edge.from == edge.to {
                loop_path(&route.points)
            } else {
                edge_path(&route.points)
            };
            // An edge that merges into another to the same state ends on
            // it, and that one's arrow points at the state.
            let arrow = if route.merges {
                ""
            } else {
                " marker-end=\"url(#arrow)\""
            };
            let ids = of.map(|j| edge_ids(view, j)).unwrap_or_default();
            let _ = writeln!(out, "<path class=\"edge\"{ids} d=\"{d}\"{arrow}/>");
        }
        out.push_str("</g>\n");

        out.push_str("<g class=\"states\">\n");
        for (shape, rect) in self.shapes.iter().zip(&placed.nodes) {
            match *shape {
                Shape::Start => {
                    let _ = writeln!(
                        out,
                        "<circle class=\"start\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"#333\"/>",
                        num(rect.x + rect.width / 2.0),
                        num(rect.y + rect.height / 2.0),
                        num(START_RADIUS)
                    );
                }
                Shape::State(i) if self.composites.contains(&i) => {}
                Shape::State(i) => {
                    let state = &view.states[i];
                    let kind = if state.final_ {
                        BoxKind::Final
                    } else if state.terminal {
                        BoxKind::Terminal
                    } else if state.region {
                        BoxKind::Region
                    } else {
                        BoxKind::Plain
                    };
                    state_box(&mut out, rect, state, kind);
                }
                Shape::Any => {
                    let lines = view.any.as_deref().unwrap_or_default();
                    let any = StateView {
                        name: "any".to_owned(),
                        terminal: false,
                        final_: false,
                        parallel: false,
                        region: false,
                        lines: lines.to_vec(),
                    };
                    state_box(&mut out, rect, &any, BoxKind::Any);
                }
            }
        }
        out.push_str("</g>\n");

        out.push_str("<g class=\"labels\">\n");
        for ((route, text), of) in placed.edges.iter().zip(&self.labels).zip(&self.edge_of) {
            if let (Some(rect), Some(text), Some(j)) = (route.label, text, of) {
                let _ = write!(
                    out,
                    "<g class=\"label\" data-edge=\"edge-{j}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"white\" fill-opacity=\"0.85\"/>\
                     <text fill=\"#1a4480\" xml:space=\"preserve\">",
                    num(rect.x),
                    num(rect.y),
                    num(rect.width),
                    num(rect.height),
                );
                // One tspan per line; a space ends every line but the last,
                // so the text content is the label itself.
                let lines = wrap(text);
                for (i, line) in lines.iter().enumerate() {
                    let space = if i + 1 < lines.len() { " " } else { "" };
                    let _ = write!(
                        out,
                        "<tspan x=\"{}\" y=\"{}\">{}{space}</tspan>",
                        num(rect.x + LABEL_PAD),
                        num(rect.y + LABEL_PAD / 2.0 + BASELINE + LINE * i as f64),
                        escape(line)
                    );
                }
                out.push_str("</text></g>\n");
            }
        }
        out.push_str("</g>\n</svg>\n");
        out
    }
}

impl Drawing {
    /// The dashed lines between the regions of parallel state `i`, as UML
    /// divides a parallel state's box: one down the middle of the gap
    /// between each two regions side by side, from the top of the regions
    /// to the bottom of the box.
    fn region_separators(&self, out: &mut String, i: usize, placed: &layout::Layout) {
        let outer = &placed.nodes[i + 1];
        let mut regions: Vec<&Rect> = self
            .regions_of
            .get(&i)
            .into_iter()
            .flatten()
            .map(|&r| &placed.nodes[r + 1])
            .collect();
        regions.sort_by(|a, b| a.x.total_cmp(&b.x));
        let top = regions.iter().map(|r| r.y).fold(f64::INFINITY, f64::min);
        for pair in regions.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            // Regions stacked rather than side by side (an edge between
            // them ranks one below the other) get no line.
            let overlap = a.y < b.y + b.height && b.y < a.y + a.height;
            if !overlap || b.x < a.x + a.width {
                continue;
            }
            let x = (a.x + a.width + b.x) / 2.0;
            let _ = writeln!(
                out,
                "<line class=\"region\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\" \
                 stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>",
                num(x),
                num(top - REGION_OVERHANG),
                num(x),
                num(outer.y + outer.height)
            );
        }
    }
}

/// A composite state's box, drawn under the edges and the boxes inside it:
/// its name in bold and its lines in its header, at the top left. A region
/// of a parallel state has no border of its own: the dashed lines between
/// regions divide the parallel state's box.
fn composite_box(out: &mut String, rect: &Rect, header: &Rect, state: &StateView) {
    let (name, lines) = (&escape(&state.name), &state.lines);
    let stroke = if state.region {
        "fill=\"none\" stroke=\"none\""
    } else {
        "fill=\"#f3f6fb\" fill-opacity=\"0.6\" stroke=\"#333\" stroke-width=\"1.2\""
    };
    let _ = writeln!(
        out,
        "<g class=\"state\" id=\"state-{name}\" data-state=\"{name}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"10\" {stroke}/>",
        num(rect.x),
        num(rect.y),
        num(rect.width),
        num(rect.height)
    );
    let top = header.y + PAD_Y;
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>",
        num(header.x + PAD_X),
        num(top + BASELINE),
        name
    );
    let rule = (header.x + PAD_X, header.x + header.width - PAD_X);
    rule_and_lines(out, top, rule, header.x + PAD_X, lines);
    out.push_str("</g>\n");
}

/// A box's inner lines under a rule, below the name whose row starts at
/// `top`: the rule runs from `rule.0` to `rule.1`, the lines start at
/// `text_x`. Nothing without lines.
fn rule_and_lines(out: &mut String, top: f64, rule: (f64, f64), text_x: f64, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let y = top + LINE + RULE / 2.0;
    let _ = writeln!(
        out,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\"/>",
        num(rule.0),
        num(y),
        num(rule.1),
        num(y)
    );
    for (i, line) in lines.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" xml:space=\"preserve\">{}</text>",
            num(text_x),
            num(top + LINE + RULE + LINE * i as f64 + BASELINE),
            escape(line)
        );
    }
}

/// How a leaf's box is drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BoxKind {
    Plain,
    /// Double-bordered: the machine ends here.
    Terminal,
    /// UML's final state is a circled dot: the double border of a
    /// terminal state, its inside filled dark as the dot, the name in white.
    /// Both end something, so both are double; a terminal state ends the
    /// machine and stays hollow, a final state completes the state holding
    /// it (the machine goes on) and is the dot. It keeps its name, which
    /// `in(...)` guards refer to.
    Final,
    /// A leaf region of a parallel state: dashed, as the lines between
    /// regions are.
    Region,
    /// The `any` pseudo-state: dashed.
    Any,
}

/// A state's box: name in bold, then its inner lines under a rule.
fn state_box(out: &mut String, rect: &Rect, state: &StateView, kind: BoxKind) {
    let (name, lines) = (&state.name, &state.lines);
    let dashed = matches!(kind, BoxKind::Any | BoxKind::Region);
    let dash = if dashed { " stroke-dasharray=\"5 3\"" } else { "" };
    let class = if kind == BoxKind::Any {
        "class=\"any\" id=\"any\"".to_owned()
    } else {
        let name = escape(name);
        format!("class=\"state\" id=\"state-{name}\" data-state=\"{name}\"")
    };
    let _ = writeln!(
        out,
        "<g {class}><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"8\" \
         fill=\"#fffdf5\" stroke=\"#333\" stroke-width=\"1.2\"{dash}/>",
        num(rect.x),
        num(rect.y),
        num(rect.width),
        num(rect.height)
    );
    let inset = if matches!(kind, BoxKind::Terminal | BoxKind::Final) {
        let fill = if kind == BoxKind::Final { "#333" } else { "none" };
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"5\" fill=\"{fill}\" stroke=\"#333\" stroke-width=\"1.2\"/>",
            num(rect.x + INSET),
            num(rect.y + INSET),
            num(rect.width - 2.0 * INSET),
            num(rect.height - 2.0 * INSET)
        );
        INSET
    } else {
        0.0
    };
    let top = rect.y + inset + PAD_Y;
    let color = if kind == BoxKind::Final {
        " fill=\"white\""
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\"{color}>{}</text>",
        num(rect.x + rect.width / 2.0),
        num(top + BASELINE),
        escape(name)
    );
    let rule = (rect.x + inset, rect.x + rect.width - inset);
    rule_and_lines(out, top, rule, rect.x + inset + PAD_X, lines);
    out.push_str("</g>\n");
}

/// ` id="edge-J" data-from=".." data-to=".." data-trigger=".."`: the stable
/// names of the view's edge `j` (its index among the edges, which come in
/// declaration order), so that a page can find the transition a step took.
fn edge_ids(view: &View, j: usize) -> String {
    let edge = &view.edges[j];
    let from = match edge.from {
        EdgeSource::State(i) => view.states[i].name.as_str(),
        EdgeSource::Any => "any",
    };
    format!(
        " id=\"edge-{j}\" data-from=\"{}\" data-to=\"{}\" data-trigger=\"{}\"",
        escape(from),
        escape(&view.states[edge.to].name),
        escape(&edge.trigger)
    )
}

/// The size of a state's box for its text; `double` for a double border.
fn box_size(name: &str, lines: &[String], double: bool) -> Size {
    let widest = lines
        .iter()
        .map(|l| text_width(l))
        .fold(text_width(name), f64::max);
    let inset = if double { 2.0 * INSET } else { 0.0 };
    let rule = if lines.is_empty() { 0.0 } else { RULE };
    Size {
        width: (widest + 2.0 * PAD_X + inset).max(40.0).ceil(),
        height: (2.0 * PAD_Y + LINE * (1 + lines.len()) as f64 + rule + inset).ceil(),
    }
}

/// The size of an edge label's box, wrapped as [`wrap`] does.
fn label_size(text: &str) -> Size {
    let lines = wrap(text);
    let widest = lines.iter().map(|l| text_width(l)).fold(0.0, f64::max);
    Size {
        width: (widest + 2.0 * LABEL_PAD).ceil(),
        height: LINE * lines.len() as f64 + LABEL_PAD,
    }
}

/// A label longer than [`WRAP`] columns, cut at spaces into lines of at
/// most that many (a longer word keeps its own line), starting a new line
/// at ` / ` so the outputs read apart from the trigger. Joined with single
/// spaces the lines give back the label.
fn wrap(text: &str) -> Vec<&str> {
    if text.chars().count() <= WRAP {
        return vec![text];
    }
    let mut lines = Vec::new();
    let mut start = 0;
    let mut last_space = None;
    let mut columns = 0;
    for (i, c) in text.char_indices() {
        if c == ' ' {
            let outputs = text[i..].starts_with(" / ");
            if outputs && columns > 0 {
                lines.push(&text[start..i]);
                start = i + 1;
                columns = 0;
                last_space = None;
                continue;
            }
            if columns >= WRAP {
                lines.push(&text[start..i]);
                start = i + 1;
                columns = 0;
                last_space = None;
                continue;
            }
            last_space = Some(i);
        }
        columns += 1;
        if columns > WRAP {
            // Never a lone `/`: a word too long for the line that `/`
            // starts stays on it.
            if let Some(space) = last_space.filter(|&space| &text[start..space] != "/") {
                lines.push(&text[start..space]);
                columns = text[space + 1..=i].chars().count();
                start = space + 1;
                last_space = None;
            }
        }
    }
    lines.push(&text[start..]);
    lines
}

/// The width of `text` in the monospace font: East Asian wide characters
/// take two columns, combining marks none.
pub(crate) fn text_width(text: &str) -> f64 {
    let columns: usize = text
        .chars()
        .map(|c| match c as u32 {
            0x0300..=0x036F | 0x200B..=0x200F | 0xFE00..=0xFE0F => 0,
            0x1100..=0x115F
            | 0x2E80..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
            | 0x1F300..=0x1F64F
            | 0x1F900..=0x1F9FF
            | 0x20000..=0x3FFFD => 2,
            _ => 1,
        })
        .sum();
    columns as f64 * CHAR_WIDTH
}

/// Path data for an edge's route. Vertical runs (through rank bands)
/// stay straight; a run that changes x (in the gap between two bands)
/// becomes a curve with vertical tangents, which stays inside that gap
/// because a Bézier curve stays between its end points' y when its control
/// points do. So the curve meets no box the polyline does not.
fn edge_path(points: &[Point]) -> String {
    let mut d = String::new();
    let Some(first) = points.first() else {
        return d;
    };
    let _ = write!(d, "M{},{}", num(first.x), num(first.y));
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if (a.x - b.x).abs() < 0.05 || (a.y - b.y).abs() < 0.05 {
            let _ = write!(d, " L{},{}", num(b.x), num(b.y));
        } else {
            let mid = (a.y + b.y) / 2.0;
            let _ = write!(
                d,
                " C{},{} {},{} {},{}",
                num(a.x),
                num(mid),
                num(b.x),
                num(mid),
                num(b.x),
                num(b.y)
            );
        }
    }
    d
}

/// Path data for a self-loop's route (four points out to the right and
/// back): one curve whose farthest x is the route's.
fn loop_path(points: &[Point]) -> String {
    let [a, b, c, e] = points else {
        return edge_path(points);
    };
    // A cubic reaches 3/4 of the way to control points level with it.
    let reach = a.x + (b.x - a.x) * 4.0 / 3.0;
    format!(
        "M{},{} C{},{} {},{} {},{}",
        num(a.x),
        num(a.y),
        num(reach),
        num(b.y - (c.y - b.y) / 2.0),
        num(reach),
        num(c.y + (c.y - b.y) / 2.0),
        num(e.x),
        num(e.y)
    )
}

/// A coordinate with at most one decimal, never `-0`. Written from
/// integer tenths: formatting floats with a precision is slow, and large
/// diagrams have hundreds of thousands of coordinates.
fn num(value: f64) -> String {
    let tenths = (value * 10.0).round() as i64;
    let (whole, tenth) = (tenths / 10, (tenths % 10).abs());
    let sign = if tenths < 0 && whole == 0 { "-" } else { "" };
    if tenth == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{tenth}")
    }
}

/// Text as XML character data or attribute value.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("a && b < c > 'd' \"e\""),
            "a &amp;&amp; b &lt; c &gt; &apos;d&apos; &quot;e&quot;"
        );
    }

    #[test]
    fn numbers_are_short_and_never_negative_zero() {
        assert_eq!(num(-0.01), "0");
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.34), "12.3");
        assert_eq!(num(-0.46), "-0.5");
        assert_eq!(num(-12.34), "-12.3");
        assert_eq!(num(0.04), "0");
    }

    #[test]
    fn long_labels_wrap_at_spaces_and_before_outputs() {
        assert_eq!(wrap("go [ready] / start"), ["go [ready] / start"]);
        let label = "output_detected [all_workers_done && final_phase] (p3) / mark_worker_completed, deliver_result, archive_run";
        let lines = wrap(label);
        assert_eq!(
            lines,
            [
                "output_detected [all_workers_done &&",
                "final_phase] (p3)",
                "/ mark_worker_completed,",
                "deliver_result, archive_run"
            ]
        );
        assert_eq!(lines.join(" "), label);
        let word = "a".repeat(50);
        assert_eq!(wrap(&format!("{word} b")), [word.as_str(), "b"]);
    }

    #[test]
    fn a_slash_keeps_the_word_after_it() {
        let label = "tool_completed [mutating_tools] / run_post_tools_hook_and_commit_everything";
        let lines = wrap(label);
        assert_eq!(
            lines,
            [
                "tool_completed [mutating_tools]",
                "/ run_post_tools_hook_and_commit_everything"
            ]
        );
        assert!(lines.iter().all(|l| l.trim() != "/"), "{lines:?}");
        let label = "after 30s [a] / first_output_with_a_long_name_here, second";
        let lines = wrap(label);
        assert_eq!(lines.join(" "), label);
        assert!(lines.iter().all(|l| l.trim() != "/"), "{lines:?}");
    }

    #[test]
    fn wide_characters_take_two_columns() {
        assert_eq!(text_width("ab"), 2.0 * CHAR_WIDTH);
        assert_eq!(text_width("状态"), 4.0 * CHAR_WIDTH);
    }
}
