//! Helpers for the unit tests of the model and the plan.

use super::{Machine, StateId};

/// The phone call of the fixtures: nested states, a history target and a
/// timer on a composite.
pub(crate) const CALL: &str = include_str!("../../../tests/fixtures/ok/phone-call.fsm");

/// The only machine of `text`, which must check without errors.
pub(crate) fn machine(text: &str) -> Machine {
    let checked = crate::check(text);
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    lowered(text)
}

/// The only machine of `text`, whatever the checks say of it.
pub(crate) fn lowered(text: &str) -> Machine {
    crate::check(text)
        .model
        .machines
        .into_iter()
        .next()
        .expect("one machine")
}

/// The state named `name`.
pub(crate) fn id(m: &Machine, name: &str) -> StateId {
    m.state_by_name(name).expect(name)
}
