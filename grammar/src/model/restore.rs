//! The rule for restoring a machine from the leaves a snapshot names: which
//! sets of leaves are configurations, and which are a composite state's
//! history memory. Both engines (generated code and the dynamic engine)
//! apply it, so that a snapshot refused by one is refused by the other, with
//! the same words.
//!
//! A set of leaves is a *configuration* when adding every state holding
//! them gives a set that the machine can be in (see `regions.rs`):
//!
//! - one top-level state is active, and a composite state that is not
//!   `parallel` has one active child, so two leaves on different branches
//!   of one of them cannot be active together;
//! - a `parallel` state has every region active, so each of its regions
//!   holds exactly one active branch down to one leaf.
//!
//! The history memory of a composite state is a configuration *inside* it:
//! the same rules, applied to the states strictly inside it. Both checks
//! walk each state once, so they stay linear in the size of the
//! configuration, however many regions a parallel state has.

use super::{Configuration, Machine, StateId, TimerId};
use std::collections::BTreeMap;
use std::fmt;

/// Why a set of leaves is not a configuration of the machine, or not a
/// history memory of a composite state, with the states' names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigurationError {
    /// No leaf at all.
    NoLeaf {
        /// The composite state whose memory it is; `None` for a
        /// configuration of the whole machine.
        inside: Option<String>,
    },
    /// A state that holds states, where only leaves are named (the states
    /// holding them follow from them).
    NotALeaf {
        /// The state.
        state: String,
    },
    /// A leaf named twice.
    Repeated {
        /// The leaf.
        leaf: String,
    },
    /// A leaf of a history memory that does not lie inside its composite.
    Outside {
        /// The leaf.
        leaf: String,
        /// The composite state whose memory names it.
        composite: String,
    },
    /// Two leaves in one region of a parallel state, which has one active
    /// state.
    SameRegion {
        /// The first leaf, in document order.
        first: String,
        /// The second.
        second: String,
        /// The region holding both.
        region: String,
        /// The parallel state whose region it is.
        parallel: String,
    },
    /// Two leaves on different branches of a composite state that is not
    /// parallel (or of the machine itself: two top-level states), which
    /// has one active child.
    Apart {
        /// The first leaf, in document order.
        first: String,
        /// The second.
        second: String,
        /// The child of `composite` holding the first leaf (or the leaf).
        first_branch: String,
        /// The child of `composite` holding the second leaf (or the leaf).
        second_branch: String,
        /// The innermost state holding both; `None` when only the machine
        /// does (they are under different top-level states).
        composite: Option<String>,
    },
    /// An active parallel state with a region that holds no leaf.
    MissingRegion {
        /// The parallel state.
        parallel: String,
        /// Its first region without a leaf, in document order.
        region: String,
    },
}

impl fmt::Display for ConfigurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigurationError::NoLeaf { inside: None } => {
                f.write_str("no leaf is named, and a machine is always in at least one")
            }
            ConfigurationError::NoLeaf {
                inside: Some(composite),
            } => write!(
                f,
                "no leaf is named inside `{composite}`, and one was active there when it was left"
            ),
            ConfigurationError::NotALeaf { state } => write!(
                f,
                "`{state}` is not a leaf: it holds states, and only the active leaves are named \
                 (the states holding them follow)"
            ),
            ConfigurationError::Repeated { leaf } => write!(f, "`{leaf}` is named twice"),
            ConfigurationError::Outside { leaf, composite } => {
                write!(f, "`{leaf}` is not inside `{composite}`")
            }
            ConfigurationError::SameRegion {
                first,
                second,
                region,
                parallel,
            } => write!(
                f,
                "`{first}` and `{second}` are both in region `{region}` of `{parallel}`; \
                 a region has one active state"
            ),
            ConfigurationError::Apart {
                first,
                second,
                first_branch,
                second_branch,
                composite: Some(composite),
            } => write!(
                f,
                "`{first}` and `{second}` cannot be active together: they are on different \
                 branches of `{composite}` (`{first_branch}` and `{second_branch}`), and \
                 `{composite}` is not parallel"
            ),
            ConfigurationError::Apart {
                first,
                second,
                first_branch,
                second_branch,
                composite: None,
            } => write!(
                f,
                "`{first}` and `{second}` cannot be active together: they are under different \
                 top-level states (`{first_branch}` and `{second_branch}`), and one top-level \
                 state is active at a time"
            ),
            ConfigurationError::MissingRegion { parallel, region } => write!(
                f,
                "`{parallel}` is active but its region `{region}` has no active leaf"
            ),
        }
    }
}

impl std::error::Error for ConfigurationError {}

impl Machine {
    /// The configuration whose active leaves are `leaves` (in any order):
    /// the leaves and every state holding them, checked to be a set of
    /// states the machine can be in together. What restoring a snapshot's
    /// `configuration` (or its `current_state`, one leaf) computes.
    ///
    /// # Errors
    ///
    /// A [`ConfigurationError`] naming the first problem: no leaf at all, a
    /// state that is not a leaf (in the order given), a leaf named twice,
    /// two leaves that cannot be active together (in document order), or a
    /// region of an active parallel state without a leaf.
    ///
    /// # Panics
    ///
    /// When a state id is not one of this machine's.
    pub fn configuration_from_leaves(&self, leaves: &[StateId]) -> Result<Configuration, ConfigurationError> {
        self.checked_leaves(None, leaves)
    }

    /// The leaves `leaves` (in any order) as `composite`'s history memory
    /// keeps them (what a snapshot's `last_active` holds for it): in
    /// document order, checked to be a configuration inside `composite`.
    /// Each lies strictly inside it; together they are on one branch of
    /// each composite state inside it, with one leaf in every region of
    /// each parallel state on the way (`composite` included, when it is
    /// parallel). Whether `composite` is one that a transition enters
    /// through its history is the caller's question.
    ///
    /// # Errors
    ///
    /// A [`ConfigurationError`] naming the first problem, as for
    /// [`Machine::configuration_from_leaves`], or a leaf outside
    /// `composite` ([`ConfigurationError::Outside`]).
    ///
    /// # Panics
    ///
    /// When a state id is not one of this machine's.
    pub fn remembered_leaves(
        &self,
        composite: StateId,
        leaves: &[StateId],
    ) -> Result<Vec<StateId>, ConfigurationError> {
        let inside = self.checked_leaves(Some(composite), leaves)?;
        Ok(self.active_leaves(&inside).collect())
    }

    /// The states `leaves` make active, below `within` when it is given
    /// (`within` itself included), checked as
    /// [`Machine::configuration_from_leaves`] and
    /// [`Machine::remembered_leaves`] say.
    fn checked_leaves(
        &self,
        within: Option<StateId>,
        leaves: &[StateId],
    ) -> Result<Configuration, ConfigurationError> {
        let name = |s: StateId| self.state(s).name.clone();
        if leaves.is_empty() {
            return Err(ConfigurationError::NoLeaf {
                inside: within.map(name),
            });
        }
        for &leaf in leaves {
            if self.state(leaf).is_composite() {
                return Err(ConfigurationError::NotALeaf { state: name(leaf) });
            }
            if let Some(composite) = within.filter(|&c| !self.is_inside(leaf, c)) {
                return Err(ConfigurationError::Outside {
                    leaf: name(leaf),
                    composite: name(composite),
                });
            }
        }
        let mut sorted = leaves.to_vec();
        sorted.sort_unstable();
        if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(ConfigurationError::Repeated { leaf: name(pair[0]) });
        }

        // Each state is added once, walking up from each leaf until a state
        // already added (its ancestors are, too) or `within`. Adding a
        // child of a state that is not parallel (or a top-level state)
        // claims that state's one active child, for the leaf below.
        let mut config = Configuration::new();
        config.extend(within);
        // Parent (`None`: the machine) → the leaf that claimed its child.
        let mut claimed: BTreeMap<Option<StateId>, StateId> = BTreeMap::new();
        for &leaf in &sorted {
            for s in self.ancestors_or_self(leaf) {
                if !config.insert(s) {
                    break;
                }
                let parent = self.state(s).parent;
                if parent.is_some_and(|p| self.state(p).is_parallel()) {
                    continue;
                }
                if let Some(&other) = claimed.get(&parent) {
                    return Err(self.apart(other, leaf));
                }
                claimed.insert(parent, leaf);
            }
        }

        // Every active parallel state has each of its regions.
        for &s in &config {
            let st = self.state(s);
            if st.is_parallel() {
                if let Some(&region) = st.children.iter().find(|r| !config.contains(r)) {
                    return Err(ConfigurationError::MissingRegion {
                        parallel: name(s),
                        region: name(region),
                    });
                }
            }
        }
        Ok(config)
    }

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

    /// The error for leaves `first` and `second` (in document order), which
    /// lie on different branches of a state that is not parallel, or under
    /// different top-level states.
    fn apart(&self, first: StateId, second: StateId) -> ConfigurationError {
        let name = |s: StateId| self.state(s).name.clone();
        let composite = self.common_ancestor(first, second);
        let branch = |leaf: StateId| {
            self.ancestors_or_self(leaf)
                .find(|&s| self.state(s).parent == composite)
                .expect("a leaf lies under its common ancestor with another")
        };
        match composite {
            Some(region)
                if self
                    .state(region)
                    .parent
                    .is_some_and(|p| self.state(p).is_parallel()) =>
            {
                ConfigurationError::SameRegion {
                    first: name(first),
                    second: name(second),
                    region: name(region),
                    parallel: name(self.state(region).parent.expect("a region has a parent")),
                }
            }
            _ => ConfigurationError::Apart {
                first: name(first),
                second: name(second),
                first_branch: name(branch(first)),
                second_branch: name(branch(second)),
                composite: composite.map(name),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{id, machine};

    /// Two top-level states around a parallel state `p` of two regions, `a`
    /// (with a composite `a_more` inside it) and `b`, and a plain composite
    /// `q` holding a parallel state `r`.
    const M: &str = "machine M {
        initial state x { on go -> p; on in_q -> q; }
        parallel state p {
            on out -> x;
            state a {
                initial state a1 { on next -> a2; }
                state a2 { on next -> a_more; }
                state a_more { initial state a3 { on next -> a4; } state a4 { on next -> a1; } }
            }
            state b { initial state b1 { on next -> b2; } state b2 { on next -> b1; } }
        }
        state q {
            on out -> x;
            initial state q1 { on next -> r; }
            parallel state r {
                state c { initial state c1 { on next -> c2; } state c2 { on next -> c1; } }
                state d;
            }
        }
    }";

    fn ids(m: &Machine, names: &[&str]) -> Vec<StateId> {
        names.iter().map(|n| id(m, n)).collect()
    }

    fn names(m: &Machine, config: impl IntoIterator<Item = StateId>) -> Vec<String> {
        config.into_iter().map(|s| m.state(s).name.clone()).collect()
    }

    /// The configuration of `leaves`, by names, or the error's message.
    fn configuration(m: &Machine, leaves: &[&str]) -> Result<Vec<String>, String> {
        m.configuration_from_leaves(&ids(m, leaves))
            .map(|config| names(m, config))
            .map_err(|e| e.to_string())
    }

    /// The memory of `composite` from `leaves`, by names, or the error's
    /// message.
    fn memory(m: &Machine, composite: &str, leaves: &[&str]) -> Result<Vec<String>, String> {
        m.remembered_leaves(id(m, composite), &ids(m, leaves))
            .map(|leaves| names(m, leaves))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn legal_leaves_give_the_configuration_with_every_state_holding_them() {
        let m = machine(M);
        assert_eq!(configuration(&m, &["x"]), Ok(vec!["x".into()]));
        assert_eq!(
            configuration(&m, &["a3", "b2"]),
            Ok(["p", "a", "a_more", "a3", "b", "b2"].map(String::from).to_vec())
        );
        // In any order, as a set.
        assert_eq!(configuration(&m, &["b2", "a3"]), configuration(&m, &["a3", "b2"]));
        // A region that is a leaf is its own active state.
        assert_eq!(
            configuration(&m, &["d", "c2"]),
            Ok(["q", "r", "c", "c2", "d"].map(String::from).to_vec())
        );
        assert_eq!(configuration(&m, &["q1"]), Ok(vec!["q".into(), "q1".into()]));
        // The initial configuration is one.
        let initial: Configuration = m.initial_configuration().into_iter().collect();
        let leaves: Vec<StateId> = m.active_leaves(&initial).collect();
        assert_eq!(m.configuration_from_leaves(&leaves), Ok(initial));
    }

    #[test]
    fn each_problem_is_named_with_the_states() {
        let m = machine(M);
        let error = |leaves: &[&str]| configuration(&m, leaves).unwrap_err();
        assert_eq!(
            error(&[]),
            "no leaf is named, and a machine is always in at least one"
        );
        assert_eq!(
            error(&["a1", "a", "b1"]),
            "`a` is not a leaf: it holds states, and only the active leaves are named \
             (the states holding them follow)"
        );
        assert_eq!(error(&["b1", "a1", "b1"]), "`b1` is named twice");
        assert_eq!(
            error(&["a2", "b1", "a1"]),
            "`a1` and `a2` are both in region `a` of `p`; a region has one active state"
        );
        // The branch of `a` holding `a3` is `a_more`, not `a3` itself.
        assert_eq!(
            error(&["a3", "a1", "b1"]),
            "`a1` and `a3` are both in region `a` of `p`; a region has one active state"
        );
        assert_eq!(
            error(&["a3", "a4", "b1"]),
            "`a3` and `a4` cannot be active together: they are on different branches of \
             `a_more` (`a3` and `a4`), and `a_more` is not parallel"
        );
        assert_eq!(
            error(&["q1", "c1", "d"]),
            "`q1` and `c1` cannot be active together: they are on different branches of \
             `q` (`q1` and `r`), and `q` is not parallel"
        );
        assert_eq!(
            error(&["a1", "b1", "x"]),
            "`x` and `a1` cannot be active together: they are under different top-level \
             states (`x` and `p`), and one top-level state is active at a time"
        );
        assert_eq!(
            error(&["a1"]),
            "`p` is active but its region `b` has no active leaf"
        );
        assert_eq!(
            error(&["b2"]),
            "`p` is active but its region `a` has no active leaf"
        );
        assert_eq!(
            error(&["c1"]),
            "`r` is active but its region `d` has no active leaf"
        );
    }

    #[test]
    fn errors_carry_the_names() {
        let m = machine(M);
        assert_eq!(
            m.configuration_from_leaves(&ids(&m, &["a1", "a2", "b1"])),
            Err(ConfigurationError::SameRegion {
                first: "a1".into(),
                second: "a2".into(),
                region: "a".into(),
                parallel: "p".into(),
            })
        );
        assert_eq!(
            m.configuration_from_leaves(&ids(&m, &["x", "q1"])),
            Err(ConfigurationError::Apart {
                first: "x".into(),
                second: "q1".into(),
                first_branch: "x".into(),
                second_branch: "q".into(),
                composite: None,
            })
        );
    }

    #[test]
    fn a_memory_is_a_configuration_inside_its_composite() {
        let m = machine(M);
        // Sorted into document order, as the model keeps them.
        assert_eq!(memory(&m, "p", &["b2", "a4"]), Ok(vec!["a4".into(), "b2".into()]));
        assert_eq!(memory(&m, "a", &["a3"]), Ok(vec!["a3".into()]));
        assert_eq!(memory(&m, "q", &["q1"]), Ok(vec!["q1".into()]));
        assert_eq!(memory(&m, "q", &["d", "c2"]), Ok(vec!["c2".into(), "d".into()]));
        assert_eq!(
            memory(&m, "p", &[]).unwrap_err(),
            "no leaf is named inside `p`, and one was active there when it was left"
        );
        assert_eq!(
            memory(&m, "a", &["a1", "x"]).unwrap_err(),
            "`x` is not inside `a`"
        );
        assert_eq!(memory(&m, "q", &["b1"]).unwrap_err(), "`b1` is not inside `q`");
        assert_eq!(
            memory(&m, "p", &["a1", "b1", "b2"]).unwrap_err(),
            "`b1` and `b2` are both in region `b` of `p`; a region has one active state"
        );
        assert_eq!(
            memory(&m, "q", &["q1", "d"]).unwrap_err(),
            "`q1` and `d` cannot be active together: they are on different branches of \
             `q` (`q1` and `r`), and `q` is not parallel"
        );
        // The composite itself, when parallel, has every region.
        assert_eq!(
            memory(&m, "p", &["a2"]).unwrap_err(),
            "`p` is active but its region `b` has no active leaf"
        );
        assert_eq!(
            memory(&m, "q", &["c1"]).unwrap_err(),
            "`r` is active but its region `d` has no active leaf"
        );
        assert_eq!(
            memory(&m, "p", &["p"]).unwrap_err(),
            "`p` is not a leaf: it holds states, and only the active leaves are named \
             (the states holding them follow)"
        );
    }
}
