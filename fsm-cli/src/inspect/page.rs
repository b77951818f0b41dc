//! The page, built into the binary: no file is read at run time, and
//! nothing is loaded from anywhere else.

pub const INDEX_HTML: &str = include_str!("page/index.html");
pub const APP_JS: &str = include_str!("page/app.js");
pub const APP_CSS: &str = include_str!("page/app.css");
pub const ICON_SVG: &str = include_str!("page/icon.svg");
pub const FLEET_HTML: &str = include_str!("page/fleet.html");
pub const FLEET_JS: &str = include_str!("page/fleet.js");

/// The page of `--listen`: the live instances of running programs.
pub const LIVE_HTML: &str = include_str!("page/live.html");
pub const LIVE_JS: &str = include_str!("page/live.js");
pub const LIVE_CSS: &str = include_str!("page/live.css");
