//! Generated code for nested states, step by step: the leaf, the regions,
//! the outputs (and, for the phone call, the timers) of every transition,
//! history memory (shallow and deep) and snapshots that carry it.
//!
//! `Player` (generated/player.fsm) is a plain machine with guards and a
//! deep history target; `Call` (generated/call_nested.fsm, the phone call of
//! tests/fixtures/ok) has a timer on a region, so it is generated with the
//! extended API.

#![deny(warnings, missing_docs, rust_2018_idioms, unreachable_pub)]

include!("generated/player.rs");

// CALL_NESTED_INCLUDE

use fsm_runtime::{FingerprintPolicy, Fire, Machine, RestoreError, Snapshot};

mod player_machine {
    use super::player::{Action, Guards, Output, Player, Region, State};
    use super::*;

    struct Battery(bool);

    impl Guards for Battery {
        fn battery_ok(&self) -> bool {
            self.0
        }
    }

    const OK: Battery = Battery(true);

    /// Fire `action` and check the outputs and the leaf it lands in.
    fn step(player: &mut Player, action: Action, guards: &Battery, outputs: &[Output], to: State) {
        let from = player.state();
        let fired = player
            .fire(action, guards)
            .unwrap_or_else(|e| panic!("{action} in {from}: {e}"));
        assert_eq!(
            (fired.from, fired.to, fired.action),
            (from, to, action),
            "{action} in {from}"
        );
        assert_eq!(fired.outputs, outputs, "{action} in {from}");
        assert_eq!(player.state(), to);
    }

    #[test]
    fn the_tree() {
        assert_eq!(
            State::ALL,
            [
                State::Off,
                State::Browsing,
                State::Playing,
                State::Paused,
                State::Sleeping,
                State::Unplugged
            ]
        );
        assert_eq!(Region::ALL, [Region::On, Region::Playback]);
        assert_eq!(Region::Playback.name(), "playback");
        assert_eq!(Region::Playback.to_string(), "playback");
        assert_eq!(Region::from_name("on"), Some(Region::On));
        assert_eq!(Region::from_name("playing"), None);
        assert_eq!(Region::Playback.parent(), Some(Region::On));
        assert_eq!(Region::On.parent(), None);
        assert_eq!(State::Paused.parent(), Some(Region::Playback));
        assert_eq!(State::Browsing.parent(), Some(Region::On));
        assert_eq!(State::Off.parent(), None);
        assert_eq!(State::Paused.ancestors(), [Region::Playback, Region::On]);
        assert_eq!(State::Browsing.ancestors(), [Region::On]);
        assert!(State::Sleeping.ancestors().is_empty());
        assert!(State::Paused.is_in(Region::On));
        assert!(State::Paused.is_in(Region::Playback));
        assert!(!State::Browsing.is_in(Region::Playback));
        assert!(!State::Off.is_in(Region::On));
        // Composites are no states: the snapshot names only leaves.
        assert_eq!(
            <State as fsm_runtime::Symbol>::from_name("on"),
            None::<State>
        );
    }

    #[test]
    fn exits_innermost_first_and_enters_outermost_first() {
        let mut p = Player::new();
        assert_eq!(p.state(), State::Off);
        assert!(!p.is_in(Region::On));
        assert_eq!(p.valid_actions(), [Action::Power, Action::Unplug]);
        // Into a region: its initial child.
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        assert!(p.is_in(Region::On) && !p.is_in(Region::Playback));
        // Inherited actions are valid, in declaration order.
        assert_eq!(
            p.valid_actions(),
            [Action::Power, Action::Suspend, Action::Volume, Action::Play, Action::Unplug]
        );
        step(&mut p, Action::Play, &OK, &[Output::OpenStream], State::Playing);
        assert!(p.is_in(Region::On) && p.is_in(Region::Playback));
        assert_eq!(
            p.valid_actions(),
            [
                Action::Power,
                Action::Suspend,
                Action::Volume,
                Action::Stop,
                Action::Pause,
                Action::Seek,
                Action::Unplug
            ]
        );
        // An internal transition inherited from two levels up.
        step(&mut p, Action::Volume, &OK, &[Output::SetVolume], State::Playing);
        // A leaf to itself: only the leaf is left and re-entered.
        step(&mut p, Action::Seek, &OK, &[Output::Jump], State::Playing);
        step(&mut p, Action::Pause, &OK, &[], State::Paused);
        // A leaf to its region: the region is left and re-entered too.
        step(
            &mut p,
            Action::Restart,
            &OK,
            &[Output::CloseStream, Output::OpenStream],
            State::Playing,
        );
        // Inherited from `playback`, to a sibling of `playback`.
        step(&mut p, Action::Stop, &OK, &[Output::CloseStream], State::Browsing);
        // `on`'s `power` from `browsing`; `playback`'s interrupt from inside it.
        step(&mut p, Action::Power, &OK, &[Output::LampOff], State::Off);
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        step(&mut p, Action::Play, &OK, &[Output::OpenStream], State::Playing);
        step(
            &mut p,
            Action::Power,
            &OK,
            &[Output::CloseStream, Output::LampOff, Output::SavePosition],
            State::Off,
        );
        // `any` exits every level.
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        step(&mut p, Action::Play, &OK, &[Output::OpenStream], State::Playing);
        step(
            &mut p,
            Action::Unplug,
            &OK,
            &[Output::CloseStream, Output::LampOff],
            State::Unplugged,
        );
        assert!(p.is_terminal());
        assert!(p.valid_actions().is_empty());
        let error = p.fire(Action::Power, &OK).unwrap_err();
        assert_eq!(error.state(), State::Unplugged);
    }

    #[test]
    fn an_action_valid_only_deeper_is_invalid_outside() {
        let mut p = Player::new();
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        let error = p.fire(Action::Pause, &OK).unwrap_err();
        assert_eq!((error.state(), error.action()), (State::Browsing, Action::Pause));
        assert_eq!(p.state(), State::Browsing);
        assert!(!p.can_fire(Action::Stop, &OK));
        assert!(p.can_fire(Action::Suspend, &OK));
    }

    /// Into `paused`, then to sleep: `on` remembers `paused`.
    fn asleep_from_paused() -> Player {
        let mut p = Player::new();
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        step(&mut p, Action::Play, &OK, &[Output::OpenStream], State::Playing);
        step(&mut p, Action::Pause, &OK, &[], State::Paused);
        assert_eq!(p.last_active(Region::On), None);
        step(
            &mut p,
            Action::Suspend,
            &OK,
            &[Output::CloseStream, Output::LampOff],
            State::Sleeping,
        );
        assert_eq!(p.last_active(Region::On), Some(State::Paused));
        // Only `on` is entered through its history, so only it is kept.
        assert_eq!(p.last_active(Region::Playback), None);
        p
    }

    #[test]
    fn deep_history_goes_back_to_the_very_leaf() {
        let mut p = asleep_from_paused();
        step(
            &mut p,
            Action::Wake,
            &OK,
            &[Output::LampOn, Output::OpenStream],
            State::Paused,
        );
        // Entering keeps the memory; the next exit overwrites it.
        assert_eq!(p.last_active(Region::On), Some(State::Paused));
        step(&mut p, Action::Stop, &OK, &[Output::CloseStream], State::Browsing);
        step(&mut p, Action::Suspend, &OK, &[Output::LampOff], State::Sleeping);
        assert_eq!(p.last_active(Region::On), Some(State::Browsing));
        step(&mut p, Action::Wake, &OK, &[Output::LampOn], State::Browsing);
    }

    #[test]
    fn shallow_history_enters_the_child_then_its_initial_descent() {
        let mut p = asleep_from_paused();
        // `on.history`: the child `playback`, at its initial `playing`.
        step(
            &mut p,
            Action::Reset,
            &OK,
            &[Output::LampOn, Output::OpenStream],
            State::Playing,
        );
    }

    #[test]
    fn guards_pick_the_candidate_and_history_starts_empty() {
        let mut p = asleep_from_paused();
        step(&mut p, Action::Wake, &Battery(false), &[], State::Off);
        // Going back in from `off` is not through history.
        step(&mut p, Action::Power, &OK, &[Output::LampOn], State::Browsing);
        // A fresh machine in `sleeping` remembers nothing: history enters
        // the initial states.
        let mut fresh = Player::from_state(State::Sleeping);
        step(&mut fresh, Action::Wake, &OK, &[Output::LampOn], State::Browsing);
        let fired = Player::transition(State::Sleeping, Action::Wake, &OK).unwrap();
        assert_eq!((fired.to, fired.outputs), (State::Browsing, &[Output::LampOn][..]));
        let restored = <Player as Machine>::from_state(State::Sleeping);
        assert_eq!(restored, Player::from_state(State::Sleeping));
    }

    #[test]
    fn generic_code_fires_through_the_memory() {
        fn fire_all<M: Fire<G>, G: ?Sized>(machine: &mut M, actions: &[M::Action], guards: &G) {
            for &action in actions {
                machine.fire(action, guards).unwrap();
            }
        }
        let mut p = asleep_from_paused();
        fire_all(&mut p, &[Action::Wake], &OK);
        assert_eq!(p.state(), State::Paused);
    }

    #[test]
    fn snapshots_carry_the_memory() {
        let p = Player::new();
        let snapshot = p.snapshot();
        assert_eq!(snapshot.last_active().len(), 0);
        assert_eq!(
            serde_json::to_value(&snapshot).unwrap(),
            serde_json::json!({
                "type": "fsm",
                "machine": "Player",
                "fingerprint": <Player as Machine>::FINGERPRINT,
                "current_state": "off",
            })
        );

        let p = asleep_from_paused();
        let snapshot = p.snapshot();
        assert_eq!(snapshot.current_state(), "sleeping");
        assert_eq!(snapshot.last_active().collect::<Vec<_>>(), [("on", "paused")]);
        let json = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(json["last_active"], serde_json::json!({"on": "paused"}));
        let back: Snapshot = serde_json::from_value(json).unwrap();
        let mut restored = Player::restore(&back).unwrap();
        assert_eq!(restored, p);
        // The restored memory drives history.
        step(
            &mut restored,
            Action::Wake,
            &OK,
            &[Output::LampOn, Output::OpenStream],
            State::Paused,
        );
        let restored = <Player as Machine>::restore_with(&back, FingerprintPolicy::Strict).unwrap();
        assert_eq!(restored, p);
    }

    #[test]
    fn bad_memory_is_refused() {
        let fingerprint = <Player as Machine>::FINGERPRINT;
        let snapshot = |pairs: &[(&'static str, &'static str)]| {
            Snapshot::new("Player", fingerprint, "sleeping").with_last_active(pairs.iter().copied())
        };
        for (pairs, reason) in [
            (
                &[("on", "off")][..],
                "`off` is not inside `on`",
            ),
            (
                &[("playback", "playing")],
                "`playback` is not a composite state that a transition enters through its history",
            ),
            (&[("on", "nowhere")], "`nowhere` is not a leaf state of the machine"),
            (&[("on", "on")], "`on` is not a leaf state of the machine"),
        ] {
            let error = Player::restore(&snapshot(pairs)).unwrap_err();
            match &error {
                RestoreError::InvalidLastActive { reason: found, .. } => {
                    assert_eq!(found, reason, "{pairs:?}")
                }
                other => panic!("{pairs:?}: {other:?}"),
            }
            assert!(error.to_string().contains(reason), "{error}");
        }
        assert!(Player::restore(&snapshot(&[("on", "browsing")])).is_ok());
    }
}
