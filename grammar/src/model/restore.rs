//! The rule for restoring a machine's timers: which timer groups are armed
//! whenever their state is active, so that a snapshot that lists none of
//! them lost one ([`Machine::timer_group_always_armed`]). Both engines and
//! generated code apply it, with the words of
//! `fsm_runtime::Snapshot::missing_timer`.
//!
//! Which sets of leaves form a configuration, or a composite state's
//! history memory, is the one step's rule (`fsm_step`'s
//! `Chart::configuration_of_leaves`), which every engine's restore applies.

use super::{Machine, StateId, TimerId};

impl Machine {
    /// True when the timer group of `state` made of `timers` (the state's
    /// timers with one delay, in trial order: priority, then declaration) is
    /// armed whenever `state` is active, so that a snapshot of a
    /// configuration holding `state` that lists none of them lost it.
    ///
    /// A group is armed when its state is entered and disarmed when it is
    /// left or when it comes due. It can come due and leave its state
    /// active, disarmed until the state is entered again, in two ways: no
    /// guard of its timers holds (it is rejected, `TimerRejected`), which
    /// needs every timer tried to be guarded; or a timer that fires does not
    /// exit its state (an internal timer, without a target, or one whose
    /// target lies strictly inside its state). Timers after the first
    /// unguarded one are never tried. A group that can do neither is
    /// missing from a snapshot only by loss.
    ///
    /// # Panics
    ///
    /// When a state or timer id is not one of this machine's.
    pub fn timer_group_always_armed(
        &self,
        state: StateId,
        timers: impl IntoIterator<Item = TimerId>,
    ) -> bool {
        for timer in timers {
            let timer = &self.timers[timer.index()];
            let stays = match timer.target {
                None => true,
                Some(target) => self.is_inside(target, state),
            };
            if stays {
                return false;
            }
            if timer.guard.is_none() {
                return true;
            }
        }
        // Every guard can fail: the group is rejected and stays disarmed.
        false
    }
}
