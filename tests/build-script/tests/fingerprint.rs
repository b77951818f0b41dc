//! One `.fsm` file, one fingerprint, whichever route generated the code: the
//! `fsm!` macro, `fsmc build` and a build script must all embed the
//! fingerprint of the front end's model, or snapshots taken by a machine
//! generated one way would not restore into the same machine generated
//! another way.

use fsm_runtime::Machine;
use std::path::Path;

/// The macro route, on the file the build script compiles.
mod by_macro {
    fsm_runtime::fsm!(file = "machines/door.fsm");
}

const DOOR: &str = include_str!("../machines/door.fsm");

/// The front end's fingerprint of the door.
fn model_fingerprint() -> String {
    let model = fsm_grammar::check(DOOR)
        .into_model()
        .unwrap_or_else(|diagnostics| panic!("door.fsm has errors: {diagnostics:#?}"));
    assert_eq!(model.machines.len(), 1);
    model.machines[0].fingerprint()
}

/// What `fsmc build` writes for the door: it generates through
/// `fsm_codegen::Config` with cargo directives off.
fn fsmc_build_source() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("machines/door.fsm");
    let mut generated = fsm_codegen::Config::new()
        .cargo_directives(false)
        .generate(&[path])
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(generated.len(), 1);
    generated.remove(0).contents
}

/// The value of the `FINGERPRINT` constant in generated source.
fn fingerprint_in(source: &str) -> &str {
    let marker = "const FINGERPRINT: &'static str = \"";
    let start = source
        .find(marker)
        .unwrap_or_else(|| panic!("no FINGERPRINT in:\n{source}"))
        + marker.len();
    let len = source[start..].find('"').expect("the string literal ends");
    &source[start..start + len]
}

#[test]
fn every_route_gives_the_fingerprint_of_the_model() {
    let model = model_fingerprint();
    assert!(!model.is_empty());
    let by_macro = <by_macro::door::Door as Machine>::FINGERPRINT;
    let by_build_script = build_script_test::DOOR_FINGERPRINT;
    let fsmc_build = fsmc_build_source();
    assert_eq!(by_macro, model, "the fsm! macro");
    assert_eq!(by_build_script, model, "the build script");
    assert_eq!(fingerprint_in(&fsmc_build), model, "fsmc build");
}

#[test]
fn the_build_script_wrote_what_fsmc_build_writes() {
    let written = include_str!(concat!(env!("OUT_DIR"), "/door.rs"));
    assert_eq!(written, fsmc_build_source());
}

#[test]
fn the_routes_agree_on_the_machine_too() {
    assert_eq!(<by_macro::door::Door as Machine>::NAME, "Door");
    let mut door = by_macro::door::Door::new();
    let mut path = vec![door.state().name()];
    for action in [by_macro::door::Action::Open, by_macro::door::Action::Close] {
        path.push(door.fire(action, &NoKey).expect("fires").to.name());
    }
    assert_eq!(path, build_script_test::open_and_close());
}

struct NoKey;

impl by_macro::door::Guards for NoKey {
    fn has_key(&self) -> bool {
        false
    }
}
