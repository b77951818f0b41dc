//! fsm-diagram's integration tests: one test binary, one module per topic
//! (each test binary is linked on its own, about 16 s in CI).

mod diagram;
mod graphviz_render;
mod svg_ids;
mod svg_layout;
