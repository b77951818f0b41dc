//! `constant-property`: a property whose formula the machine's structure
//! fixes (two states never active together, a state active without the
//! state holding it), so it holds or fails whatever the machine does.
//! `fsmc verify` warns the same of a formula given on its command line,
//! with the same rule ([`Formula::constant`]).

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Formula, Machine};

pub(crate) fn check(m: &Machine, sink: &mut Sink<'_>) {
    for p in &m.properties {
        // `F leads to G` says nothing when `G` always holds.
        let target = p.leads_to.as_ref().and_then(|l| {
            l.formula
                .constant(m)
                .filter(|&v| v)
                .map(|v| (&l.formula, l.formula_span, v, true))
        });
        let own = p.formula.constant(m).and_then(|v| {
            p.kind
                .holds_when_constant(v)
                .map(|holds| (&p.formula, p.formula_span, v, holds))
        });
        for (formula, span, value, holds) in own.into_iter().chain(target) {
            sink.push(
                Scope::Machine,
                Diagnostic::new(
                    Code::ConstantProperty,
                    span,
                    format!(
                        "`{}` is {value} in every configuration of `{}`, so `{}` {}",
                        formula.display(m),
                        m.name,
                        p.kind.keyword(),
                        verdict(holds)
                    ),
                    format!("always {value}"),
                    help(formula),
                ),
            );
        }
    }
}

/// What the property then says, whatever the machine does.
fn verdict(holds: bool) -> &'static str {
    if holds {
        "holds whatever the machine does"
    } else {
        "fails whatever the machine does"
    }
}

fn help(formula: &Formula) -> &'static str {
    match formula {
        Formula::Not(_) | Formula::And(..) | Formula::Or(..) => {
            "two states that are never active together (siblings outside a parallel state), or a state \
             without the state holding it, cannot both hold: check which states the formula names"
        }
        Formula::In(_) | Formula::Terminal => "check which states the formula names",
    }
}
