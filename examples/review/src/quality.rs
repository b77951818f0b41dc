//! The `quality_guard` of the review: is the draft good enough?

use crate::review;

/// Answers `quality_guard` for one review: the draft's score against the
/// threshold, both in percent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QualityCheck {
    /// The score the reviewer gave the draft.
    pub score: u8,
    /// The lowest score that passes.
    pub threshold: u8,
}

impl QualityCheck {
    /// True when the score reaches the threshold.
    pub fn passes(self) -> bool {
        self.score >= self.threshold
    }
}

impl review::Guards for QualityCheck {
    fn quality_guard(&self) -> bool {
        self.passes()
    }
}
