//! SVG, laid out and drawn in-process by the pure-Rust `layout-rs` crate,
//! so no Graphviz installation is needed.

use super::view::{EdgeSource, View};
use crate::model::Machine;
use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;

/// One font size for every text, the one `layout-rs` uses for the shapes it
/// adds itself: it emits one CSS class per size from a hash map, so a single
/// size keeps the output deterministic.
const FONT_SIZE: usize = 15;

/// The machine as a standalone SVG document: the same picture as [`dot`],
/// drawn top to bottom. The output is deterministic.
///
/// [`dot`]: super::dot
pub fn svg(machine: &Machine) -> String {
    let view = View::new(machine);
    let direction = Orientation::TopToBottom;
    let mut graph = VisualGraph::new(direction);
    let element = |shape: ShapeKind, fill: &str, square: bool| {
        let size = get_shape_size(direction, &shape, FONT_SIZE, square);
        let look = StyleAttr::new(Color::fast("black"), 1, Some(Color::fast(fill)), 0, FONT_SIZE);
        Element::create(shape, look, direction.flip(), size)
    };

    let start_look = StyleAttr::new(Color::fast("black"), 1, Some(Color::fast("black")), 0, FONT_SIZE);
    let start = graph.add_node(Element::create(
        ShapeKind::new_circle(""),
        start_look,
        direction.flip(),
        Point::splat(12.),
    ));
    let states: Vec<_> = view
        .states
        .iter()
        .map(|state| {
            let text = lines_text(&state.name, &state.lines);
            let node = if state.terminal {
                element(ShapeKind::new_double_circle(&text), "white", true)
            } else {
                element(ShapeKind::new_box(&text), "white", false)
            };
            graph.add_node(node)
        })
        .collect();
    let any = view.any.as_ref().map(|lines| {
        graph.add_node(element(
            ShapeKind::new_box(&lines_text("any", lines)),
            "lightgray",
            false,
        ))
    });

    graph.add_edge(arrow(""), start, states[view.initial]);
    for edge in &view.edges {
        let from = match (edge.from, any) {
            (EdgeSource::State(i), _) => states[i],
            (EdgeSource::Any, Some(any)) => any,
            // Edges from `any` exist only when the pseudo-state does.
            (EdgeSource::Any, None) => continue,
        };
        graph.add_edge(arrow(&edge.label), from, states[edge.to]);
    }

    let mut writer = SVGWriter::new();
    graph.do_it(false, false, false, &mut writer);
    writer.finalize()
}

fn arrow(label: &str) -> Arrow {
    let mut arrow = Arrow::simple(label);
    arrow.look.font_size = FONT_SIZE;
    arrow.look.line_width = 1;
    arrow
}

fn lines_text(name: &str, lines: &[String]) -> String {
    std::iter::once(name)
        .chain(lines.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}
