//! A generated machine that reports every step to the inspector.

use super::observer::{Observer, Probe};
use super::step::{Step, StepKind};
use crate::fire_error::FireError;
use crate::fired::Fired;
use crate::machine::{Fire, FireEvent, Machine, Timed, TimedWith};
use crate::state::MachineState;
use crate::symbol::Symbol;
use crate::timer::{TimerFired, TimerRejected};
use serde_json::Value;
use std::borrow::Cow;
use std::boxed::Box;
use std::string::{String, ToString};
use std::sync::Arc;
use std::vec::Vec;

type EventSanitizer<M> = Box<dyn Fn(&<M as Machine>::Event) -> Option<Value> + Send + Sync>;
type ContextSanitizer<M> = Box<dyn Fn(&M) -> Option<Value> + Send + Sync>;

/// A generated machine whose every step (fired or refused action, fired or
/// refused timer) goes to an inspector, through a [`Probe`] stamped with
/// the machine's name, an instance id and its fingerprint.
///
/// Any generated machine: with or without a context, payloads, timers,
/// nested or parallel states. It fires as the machine does
/// ([`fire`](Observed::fire), or with guards passed per call
/// [`fire_with`](Observed::fire_with); timers with
/// [`fire_next_due`](Observed::fire_next_due) and
/// [`fire_next_due_with`](Observed::fire_next_due_with)), and returns what
/// the machine returns. Reporting a step costs a few small allocations and
/// a `try_send`; it never waits for the inspector (see the
/// [module](super)).
///
/// A machine driven by a [`Recorded`](crate::Recorded), a
/// [`Shared`](crate::Shared) or a driver reports its steps through a probe of
/// its own: [`Observed::fired`] and [`Observed::timer`] build the steps from
/// what those return, and [`Probe::report`] sends them.
///
/// ```no_run
/// use fsm_runtime::inspect::{Observed, Observer};
/// use serde_json::json;
///
/// fsm_runtime::fsm! {
///     machine Login {
///         action submit(String);
///         initial state form { on submit -> checking; }
///         state checking;
///     }
/// }
///
/// let observer = Observer::connect("127.0.0.1:7171")?;
/// let mut login = Observed::new(login::Login::new(), &observer, "session-42")
///     // The password never leaves the program: the inspector sees its length.
///     .sanitize_event(|event| match event {
///         login::Event::Submit(password) => Some(json!({ "length": password.len() })),
///     });
/// login.fire(login::Event::Submit("hunter2".into()))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Observed<M: Machine> {
    machine: M,
    probe: Probe,
    event: Option<EventSanitizer<M>>,
    context: Option<ContextSanitizer<M>>,
}

impl<M: Machine> Observed<M> {
    /// `machine`, reported to `observer` as instance `instance` of
    /// `M::NAME`, with `M::FINGERPRINT`, from its current state.
    pub fn new(machine: M, observer: &Observer, instance: impl Into<String>) -> Observed<M> {
        let probe = observer.probe(M::NAME, instance, M::FINGERPRINT, leaves::<M>(&machine.state()));
        Observed {
            machine,
            probe,
            event: None,
            context: None,
        }
    }

    /// This machine announcing its definition (the `.fsm` text it was
    /// generated from, or its JSON export), so that the inspector can draw
    /// it without being given the file; see [`Probe::with_definition`].
    pub fn with_definition(mut self, definition: impl Into<Arc<str>>) -> Observed<M> {
        self.probe = self.probe.with_definition(definition);
        self
    }

    /// What the inspector sees of each event: the JSON `f` returns (`None`:
    /// nothing). Without a sanitizer it sees the action's name alone, never
    /// the payload.
    pub fn sanitize_event(
        mut self,
        f: impl Fn(&M::Event) -> Option<Value> + Send + Sync + 'static,
    ) -> Observed<M> {
        self.event = Some(Box::new(f));
        self
    }

    /// What the inspector sees of the machine's context after each step:
    /// the JSON `f` returns from the machine (`None`: nothing). Without a
    /// sanitizer it sees no context.
    pub fn sanitize_context(
        mut self,
        f: impl Fn(&M) -> Option<Value> + Send + Sync + 'static,
    ) -> Observed<M> {
        self.context = Some(Box::new(f));
        self
    }

    /// The machine.
    pub fn machine(&self) -> &M {
        &self.machine
    }

    /// The machine's current state.
    pub fn state(&self) -> M::State {
        self.machine.state()
    }

    /// The probe the steps go through.
    pub fn probe(&self) -> &Probe {
        &self.probe
    }

    /// The machine, no longer observed (the inspector is told it is gone).
    pub fn into_inner(self) -> M {
        self.machine
    }

    /// Fire `event` as the machine's own `fire(event)` does, and report the
    /// step, fired or refused.
    ///
    /// # Errors
    ///
    /// As the machine's `fire`.
    pub fn fire(&mut self, event: M::Event) -> Result<Fired<M>, FireError<M>>
    where
        M: FireEvent,
    {
        let payload = self.event.as_ref().and_then(|f| f(&event));
        let result = self.machine.fire(event);
        self.report_fire(&result, payload);
        result
    }

    /// Fire `event` with `guards`, for a machine that takes its guards per
    /// call, and report the step.
    ///
    /// # Errors
    ///
    /// As the machine's `fire`.
    pub fn fire_with<G: ?Sized>(&mut self, event: M::Event, guards: &G) -> Result<Fired<M>, FireError<M>>
    where
        M: Fire<G>,
    {
        let payload = self.event.as_ref().and_then(|f| f(&event));
        let result = self.machine.fire(event, guards);
        self.report_fire(&result, payload);
        result
    }

    /// Fire the earliest due timer, if any, and report it.
    pub fn fire_next_due(&mut self) -> Option<Result<TimerFired<M>, TimerRejected<M>>>
    where
        M: Timed,
    {
        let result = self.machine.fire_next_due();
        self.report_timer(&result);
        result
    }

    /// Fire the earliest due timer, if any, with `guards`, and report it.
    pub fn fire_next_due_with<G: ?Sized>(
        &mut self,
        guards: &G,
    ) -> Option<Result<TimerFired<M>, TimerRejected<M>>>
    where
        M: TimedWith<G>,
    {
        let result = self.machine.fire_next_due_with(guards);
        self.report_timer(&result);
        result
    }

    /// When the machine's next armed timer is due.
    pub fn next_deadline(&self) -> Option<crate::Timestamp>
    where
        M: Timed,
    {
        Timed::next_deadline(&self.machine)
    }

    fn report_fire(&self, result: &Result<Fired<M>, FireError<M>>, payload: Option<Value>) {
        let mut step = Observed::fired(result);
        step.payload = payload;
        step.context = self.context.as_ref().and_then(|f| f(&self.machine));
        self.probe.report(step);
    }

    fn report_timer(&self, result: &Option<Result<TimerFired<M>, TimerRejected<M>>>) {
        if let Some(mut step) = Observed::timer(result) {
            step.context = self.context.as_ref().and_then(|f| f(&self.machine));
            self.probe.report(step);
        }
    }

    /// The step of a `fire`'s result: for code that fires elsewhere (a
    /// [`Shared`](crate::Shared), a [`Recorded`](crate::Recorded)) and
    /// reports through a [`Probe`].
    pub fn fired(result: &Result<Fired<M>, FireError<M>>) -> Step {
        step_of_fire(result)
    }

    /// The step of a timer's result; `None` when no timer was due.
    pub fn timer(result: &Option<Result<TimerFired<M>, TimerRejected<M>>>) -> Option<Step> {
        step_of_timer(result)
    }
}

fn step_of_fire<M: Machine>(result: &Result<Fired<M>, FireError<M>>) -> Step {
    match result {
        Ok(fired) => {
            let mut step = Step::new(
                StepKind::Fired,
                fired.action.name(),
                leaves::<M>(&fired.from),
                leaves::<M>(&fired.to),
            );
            step.outputs = names(&fired.outputs);
            step.internal = fired.internal;
            step
        }
        Err(error) => {
            let state = leaves::<M>(&error.state());
            let mut step = match error {
                // A runaway moved the machine; its outputs were emitted.
                FireError::Runaway(runaway) => {
                    let mut step = Step::new(
                        StepKind::Fired,
                        error.action().name(),
                        leaves::<M>(&runaway.from()),
                        state,
                    );
                    step.outputs = names(&runaway.outputs());
                    step
                }
                _ => Step::new(StepKind::Rejected, error.action().name(), state.clone(), state),
            };
            step.error = Some(error.to_string());
            step
        }
    }
}

fn step_of_timer<M: Machine>(result: &Option<Result<TimerFired<M>, TimerRejected<M>>>) -> Option<Step> {
    match result.as_ref()? {
        Ok(fired) => {
            let mut step = Step::new(
                StepKind::Timer,
                fired.label,
                leaves::<M>(&fired.from),
                leaves::<M>(&fired.to),
            );
            step.outputs = names(&fired.outputs);
            step.internal = fired.internal;
            step.declared_in = Some(Cow::Borrowed(fired.declared_in));
            Some(step)
        }
        Err(rejected) => {
            let state = leaves::<M>(&rejected.state);
            let mut step = Step::new(StepKind::TimerRejected, "timer", state.clone(), state);
            step.declared_in = Some(Cow::Borrowed(rejected.declared_in));
            step.error = Some(rejected.to_string());
            Some(step)
        }
    }
}

impl<M: Machine + core::fmt::Debug> core::fmt::Debug for Observed<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Observed")
            .field("machine", &self.machine)
            .field("probe", &self.probe)
            .finish_non_exhaustive()
    }
}

fn leaves<M: Machine>(state: &M::State) -> Vec<Cow<'static, str>> {
    state.leaves().map(|leaf| Cow::Borrowed(leaf.name())).collect()
}

fn names<S: Symbol>(symbols: &[S]) -> Vec<Cow<'static, str>> {
    symbols.iter().map(|s| Cow::Borrowed(s.name())).collect()
}
