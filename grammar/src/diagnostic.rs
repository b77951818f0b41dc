//! The one diagnostic type of the front end, and the catalogue of codes.

use crate::elide::elide_owned;
use crate::span::Span;
use std::borrow::Cow;
use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The definition is wrong; nothing is generated.
    Error,
    /// The definition works but is probably not what was meant.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $severity:ident; )*) => {
        /// A stable diagnostic code. The kebab-case name never changes once released.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, in catalogue order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The kebab-case name, e.g. `unknown-state`.
            pub fn name(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// The severity a diagnostic with this code has unless the user
            /// changes it with `--deny`.
            pub fn default_severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }
        }
    };
}

codes! {
    /// The text does not follow the grammar.
    Syntax = "syntax", Error;
    /// Two machines with one name.
    DuplicateMachine = "duplicate-machine", Error;
    /// Two states with one name in a machine.
    DuplicateState = "duplicate-state", Error;
    /// A transition targets a state that does not exist.
    UnknownState = "unknown-state", Error;
    /// No state is marked `initial`.
    MissingInitial = "missing-initial", Error;
    /// More than one state is marked `initial`.
    MultipleInitial = "multiple-initial", Error;
    /// A `terminal` state has transitions.
    TerminalHasTransitions = "terminal-has-transitions", Error;
    /// The same (state, action, guard, priority) twice.
    DuplicateTransition = "duplicate-transition", Error;
    /// A transition that an earlier candidate always pre-empts.
    ShadowedTransition = "shadowed-transition", Error;
    /// An action used but not declared, in a machine that declares actions.
    UndeclaredAction = "undeclared-action", Error;
    /// A guard used but not declared, in a machine that declares guards.
    UndeclaredGuard = "undeclared-guard", Error;
    /// An output used but not declared, in a machine that declares outputs.
    UndeclaredOutput = "undeclared-output", Error;
    /// A guard or effect with a payload type used where that payload is not
    /// carried: on an action with another payload or none, on a timer, or in a hook.
    PayloadMismatch = "payload-mismatch", Error;
    /// Effects or delays in a machine without a `context`.
    MissingContext = "missing-context", Error;
    /// An effect used but not declared, in a machine that declares effects.
    UndeclaredEffect = "undeclared-effect", Error;
    /// A delay used but not declared, in a machine that declares delays.
    UndeclaredDelay = "undeclared-delay", Error;
    /// A timer's duration is zero, over a week, or has an unknown unit.
    InvalidDuration = "invalid-duration", Error;
    /// Two names that become the same Rust identifier.
    NameCollision = "name-collision", Error;
    /// `true` or `false` used as a guard name.
    ReservedName = "reserved-name", Error;
    /// A state that holds states is marked `terminal`.
    CompositeTerminal = "composite-terminal", Error;
    /// `-> X.history` or `-> X.deep_history` where `X` holds no states.
    HistoryOfLeaf = "history-of-leaf", Error;
    /// States nested deeper than the limit.
    NestingTooDeep = "nesting-too-deep", Error;
    /// A machine with more states than a step can hold (65,536).
    TooManyStates = "too-many-states", Error;
    /// A child of a `parallel` state is marked `initial`: every region is entered.
    InitialInParallel = "initial-in-parallel", Error;
    /// A `final` state has transitions or timers of its own, holds states, or
    /// is also `terminal` or `parallel`.
    FinalHasTransitions = "final-has-transitions", Error;
    /// A top-level state is marked `final`: a machine ends in a `terminal` state.
    FinalAtTopLevel = "final-at-top-level", Error;
    /// `done` or unguarded `always` transitions that can follow each other forever.
    CompletionCycle = "completion-cycle", Error;
    /// Unguarded `always` or `done` transitions that follow each other for
    /// more steps than one `fire` may take (1,000).
    ChainTooLong = "chain-too-long", Error;
    /// Two properties of a machine with one name.
    DuplicateProperty = "duplicate-property", Error;
    /// A state the machine starts in has an `always` transition, or a state
    /// it starts in starts done: creating a machine runs nothing.
    AlwaysAtStart = "always-at-start", Error;
    /// A state that cannot be reached from the initial state.
    UnreachableState = "unreachable-state", Warning;
    /// A reachable state from which no terminal state can be reached.
    NoPathToTerminal = "no-path-to-terminal", Warning;
    /// A non-terminal state with no transition to another state.
    DeadEnd = "dead-end", Warning;
    /// Two guarded candidates at one priority whose guards can both hold.
    AmbiguousPriority = "ambiguous-priority", Warning;
    /// A guard expression that can never hold.
    UnsatisfiableGuard = "unsatisfiable-guard", Warning;
    /// A timer that never fires: an unguarded timer of its state with a
    /// target and a shorter literal delay always leaves first.
    TimerShadowed = "timer-shadowed", Warning;
    /// A declared action, guard, output, effect or delay that is never used.
    UnusedDeclaration = "unused-declaration", Warning;
    /// A name declared twice.
    DuplicateDeclaration = "duplicate-declaration", Warning;
    /// `#[allow(...)]` names no known code, or an error (errors cannot be allowed).
    InvalidAllow = "invalid-allow", Warning;
    /// A transition from one region of a parallel state to another: it
    /// exits and re-enters the parallel state and every region.
    CrossRegionTransition = "cross-region-transition", Warning;
    /// Two regions act on one action with transitions that leave their
    /// parallel state at one priority: document order decides.
    ConflictingRegions = "conflicting-regions", Warning;
    /// A `done` transition of a state that can never be done.
    DoneNeverFires = "done-never-fires", Warning;
    /// A parallel state with fewer than two regions.
    SingleRegion = "single-region", Warning;
    /// `in(S)` where `S` is never active at the same time as the transition's state.
    InNeverHolds = "in-never-holds", Warning;
    /// `always` or `done` transitions that can follow each other for as
    /// long as their guards hold: a `fire` stops after 1,000 of them.
    GuardedCycle = "guarded-cycle", Warning;
    /// A property whose formula the machine's structure fixes: true or
    /// false in every configuration, whatever the machine does.
    ConstantProperty = "constant-property", Warning;
}

impl Code {
    /// Look a code up by its kebab-case name.
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// The command that prints this code's documentation:
    /// `fsmc explain unknown-state`. Reports say to run it.
    pub fn explain_command(self) -> String {
        format!("fsmc explain {}", self.name())
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A secondary label: another place that explains the primary one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What it says, e.g. "first defined here".
    pub message: String,
}

/// One problem found in a `.fsm` text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// Error or warning (after `--deny` and friends were applied).
    pub severity: Severity,
    /// One sentence naming the things involved.
    pub message: String,
    /// The exact token or construct at fault.
    pub span: Span,
    /// The text of the primary label.
    pub label: String,
    /// Other places that help explain this one.
    pub secondary: Vec<Label>,
    /// What to do about it.
    pub help: String,
    /// The text the help suggests in place of the text at `span` ("did you
    /// mean `x`?"), so that an editor can offer it as a quick fix.
    pub suggestion: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity.
    ///
    /// Texts built at run time (`String`s, which may quote the user's names)
    /// have long quoted names shortened; `&'static str` texts are fsmc's own,
    /// such as the syntax templates of help lines, and are kept whole.
    pub fn new(
        code: Code,
        span: Span,
        message: impl Into<Cow<'static, str>>,
        label: impl Into<Cow<'static, str>>,
        help: impl Into<Cow<'static, str>>,
    ) -> Self {
        // Names of any length are quoted shortened, so one diagnostic prints
        // a bounded amount of text; the span still covers the whole name.
        Diagnostic {
            code,
            severity: code.default_severity(),
            message: elide_owned(message.into()),
            span,
            label: elide_owned(label.into()),
            secondary: Vec::new(),
            help: elide_owned(help.into()),
            suggestion: None,
        }
    }

    /// Set the replacement that the help suggests for the text at `span`.
    pub fn with_suggestion(mut self, replacement: impl Into<String>) -> Self {
        self.suggestion = Some(replacement.into());
        self
    }

    /// Add a secondary label.
    pub fn with_label(mut self, span: Span, message: impl Into<Cow<'static, str>>) -> Self {
        self.secondary.push(Label {
            span,
            message: elide_owned(message.into()),
        });
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("fsm::{}", self.code.name())))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.help))
    }

    /// Shown after the code, as in ``fsm::unknown-state (run `fsmc explain unknown-state`)``.
    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("run `{}`", self.code.explain_command())))
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let primary = miette::LabeledSpan::new_primary_with_span(Some(self.label.clone()), self.span);
        let rest = self
            .secondary
            .iter()
            .map(|l| miette::LabeledSpan::new_with_span(Some(l.message.clone()), l.span));
        Some(Box::new(std::iter::once(primary).chain(rest)))
    }
}

/// Sort diagnostics by position, then code, so output is deterministic.
pub(crate) fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (a.span.start, a.span.end, a.code, &a.message).cmp(&(b.span.start, b.span.end, b.code, &b.message))
    });
}

/// Render a list of names as `` `a`, `b` or `c` ``.
pub(crate) fn one_of(names: &[String]) -> String {
    listing(names, "or")
}

/// Render a list of names as `` `a`, `b` and `c` ``.
pub(crate) fn all_of(names: &[String]) -> String {
    listing(names, "and")
}

fn listing(names: &[String], conjunction: &str) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {conjunction} {}", init.join(", "), last),
    }
}

#[cfg(test)]
mod tests {
    use super::Code;

    /// The suggestion of the first diagnostic with `code`, and the text it replaces.
    fn suggestion(text: &str, code: Code) -> Option<(String, &str)> {
        let checked = crate::check(text);
        let d = checked.diagnostics.iter().find(|d| d.code == code)?;
        Some((d.suggestion.clone()?, &text[d.span.start..d.span.end]))
    }

    #[test]
    fn did_you_mean_carries_the_replacement_for_the_span() {
        let unknown = "machine M { initial state opened { on go -> opend; } }";
        assert_eq!(
            suggestion(unknown, Code::UnknownState),
            Some(("opened".into(), "opend"))
        );
        let undeclared = "machine M { action open; initial state a { on opne -> a; } }";
        assert_eq!(
            suggestion(undeclared, Code::UndeclaredAction),
            Some(("open".into(), "opne"))
        );
        let allow = "#[allow(dead-ends)] machine M { initial state a; }";
        assert_eq!(
            suggestion(allow, Code::InvalidAllow),
            Some(("dead-end".into(), "dead-ends"))
        );
        let keyword = "machine M { initial stat a; }";
        assert_eq!(suggestion(keyword, Code::Syntax), Some(("state".into(), "stat")));
    }

    #[test]
    fn help_without_a_replacement_has_no_suggestion() {
        let far = "machine M { initial state a { on go -> zzzzzz; } }";
        assert_eq!(suggestion(far, Code::UnknownState), None);
        // `=>` for `->`: the help names `->`, but the span is one character.
        let arrow = "machine M { initial state a { on x => a; } }";
        assert_eq!(suggestion(arrow, Code::Syntax), None);
    }
}
