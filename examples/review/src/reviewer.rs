//! The caller's loop around the machine: start, review each draft, restart
//! to revise, and stop when a draft passes or the budget is spent.

use crate::quality::QualityCheck;
use crate::review::{Event, FireError, Fired, Review, State};
use std::fmt;

/// A piece of work submitted for review, with the score it earns: the
/// payload of `review`, which `quality_guard` reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draft {
    /// What was produced.
    pub text: String,
    /// Its score, in percent.
    pub score: u8,
}

impl Draft {
    /// A draft with this text and score.
    pub fn new(text: impl Into<String>, score: u8) -> Self {
        Draft {
            text: text.into(),
            score,
        }
    }
}

/// How a review session ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The draft at this index (0-based) passed the review.
    Accepted {
        /// Which draft passed.
        draft: usize,
        /// How many revisions it took.
        revisions: u32,
    },
    /// The revision budget was spent: the agent finished without a passing
    /// review, keeping the last draft.
    Finished {
        /// The last draft reviewed.
        draft: usize,
        /// How many revisions were made.
        revisions: u32,
    },
    /// The drafts ran out before one passed; the machine waits in `running`
    /// for the next.
    OutOfDrafts {
        /// How many revisions were made.
        revisions: u32,
    },
}

/// `accepted draft 3 after 2 revisions`
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Outcome::Accepted { draft, revisions } => {
                write!(f, "accepted draft {} after {revisions} revisions", draft + 1)
            }
            Outcome::Finished { draft, revisions } => write!(
                f,
                "finished with draft {} after {revisions} revisions, none passed",
                draft + 1
            ),
            Outcome::OutOfDrafts { revisions } => {
                write!(f, "no draft passed; out of drafts after {revisions} revisions")
            }
        }
    }
}

/// Drives a [`Review`] machine over a sequence of drafts.
#[derive(Clone, Debug)]
pub struct Reviewer {
    check: QualityCheck,
    max_revisions: u32,
    machine: Review,
    trace: Vec<String>,
}

impl Reviewer {
    /// A reviewer that passes drafts scoring at least `threshold` and allows
    /// at most `max_revisions` revisions.
    pub fn new(threshold: u8, max_revisions: u32) -> Self {
        Reviewer {
            check: QualityCheck { threshold },
            max_revisions,
            machine: Review::new(),
            trace: Vec::new(),
        }
    }

    /// The machine's current state.
    pub fn state(&self) -> State {
        self.machine.state()
    }

    /// Every transition and note so far, one line each.
    pub fn trace(&self) -> &[String] {
        &self.trace
    }

    /// Review `drafts` in order until one passes, the revision budget is
    /// spent, or the drafts run out.
    ///
    /// # Errors
    ///
    /// When the machine rejects an action: the reviewer was not in `idle`
    /// (it runs one session only).
    pub fn run(&mut self, drafts: &[Draft]) -> Result<Outcome, FireError> {
        self.fire(Event::Start)?;
        let mut revisions = 0;
        for (index, draft) in drafts.iter().enumerate() {
            self.trace.push(format!(
                "draft {}: {:?} scores {}% (threshold {}%)",
                index + 1,
                draft.text,
                draft.score,
                self.check.threshold
            ));
            let fired = self.fire(Event::Review(draft.clone()))?;
            if fired.to == State::Done {
                return Ok(Outcome::Accepted {
                    draft: index,
                    revisions,
                });
            }
            self.fire(Event::Restart)?;
            if revisions == self.max_revisions {
                self.fire(Event::Finish)?;
                return Ok(Outcome::Finished {
                    draft: index,
                    revisions,
                });
            }
            revisions += 1;
        }
        Ok(Outcome::OutOfDrafts { revisions })
    }

    fn fire(&mut self, event: Event) -> Result<Fired, FireError> {
        let fired = self.machine.fire(event, &self.check)?;
        self.trace.push(format!("  {fired}"));
        Ok(fired)
    }
}
