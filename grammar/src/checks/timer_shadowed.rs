//! `timer-shadowed`: a timer that can never fire, because an unguarded timer
//! of the same state with a target and a shorter literal delay always leaves
//! the state first. Named delays are computed at run time and never compared.
//! Timers that never fire within their own delay's group (a duplicate, or
//! shadowed by the timers of the same delay) are reported as such, not here.

use super::{Scope, Sink};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Delay, Machine};

/// `never_fires`: per timer, whether it is already reported as never firing.
pub(crate) fn check(m: &Machine, never_fires: &[bool], sink: &mut Sink<'_>) {
    for s in m.state_ids() {
        let leaves_first = m
            .timers_of(s)
            .filter_map(|(_, t)| match t.delay {
                Delay::Literal(d) if t.guard.is_none() && t.target.is_some() => Some((d, t)),
                _ => None,
            })
            .min_by_key(|(d, _)| *d);
        let Some((first, by)) = leaves_first else { continue };
        for (id, t) in m.timers_of(s) {
            let Delay::Literal(d) = t.delay else { continue };
            if d <= first || never_fires[id.index()] {
                continue;
            }
            sink.push(
                Scope::State(s),
                Diagnostic::new(
                    Code::TimerShadowed,
                    t.delay_span,
                    format!(
                        "this timer of state `{}` never fires: the timer after {} always leaves first",
                        m.state(s).name,
                        m.delay_text(by.delay)
                    ),
                    "never fires",
                    "shorten this timer, guard the earlier one, or remove this one",
                )
                .with_label(by.delay_span, "this timer leaves the state first"),
            );
        }
    }
}
