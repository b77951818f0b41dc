//! The `quality_guard` of the review: is the draft under review good enough?

use crate::review;
use crate::reviewer::Draft;

/// Answers `quality_guard` for the draft each `review` event carries: its
/// score against the threshold, both in percent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QualityCheck {
    /// The lowest score that passes.
    pub threshold: u8,
}

impl QualityCheck {
    /// True when `draft`'s score reaches the threshold.
    pub fn passes(self, draft: &Draft) -> bool {
        draft.score >= self.threshold
    }
}

/// The guard reads the plan from the event's payload, not from the caller's
/// state: the same check judges every draft.
impl review::Guards for QualityCheck {
    fn quality_guard(&self, draft: &Draft) -> bool {
        self.passes(draft)
    }
}
