//! Restoring a generated machine with parallel states from a snapshot that
//! is not one of its configurations: refused, naming what is wrong, as the
//! dynamic engine words it.

use fsm_runtime::{RestoreError, Snapshot};

fsm_runtime::fsm! {
    machine Player {
        initial state idle { on go -> on; }
        parallel state on {
            on stop -> idle;
            state playback { initial state stopped { on play -> playing; } state playing; }
            state volume { initial state quiet { on louder -> loud; } state loud; }
        }
    }
}

use player::Player;

fn restore(leaves: &[&'static str]) -> Result<Player, RestoreError> {
    Player::restore(&Snapshot::of_configuration(
        Player::NAME,
        Player::FINGERPRINT,
        leaves.iter().copied(),
    ))
}

fn reason(leaves: &[&'static str]) -> String {
    match restore(leaves) {
        Err(RestoreError::InvalidConfiguration { reason, .. }) => reason,
        other => panic!("{leaves:?}: {other:?}"),
    }
}

#[test]
fn a_configuration_that_is_not_one_is_refused_naming_the_problem() {
    assert_eq!(
        reason(&["stopped", "playing", "quiet"]),
        "`stopped` and `playing` are both in region `playback` of `on`; a region has one active state"
    );
    assert_eq!(
        reason(&["stopped"]),
        "`on` is active but its region `volume` has no active leaf"
    );
    assert_eq!(
        reason(&["idle", "quiet"]),
        "`idle` and `quiet` cannot be active together: they are under different top-level states \
         (`idle` and `on`), and one top-level state is active at a time"
    );
    assert_eq!(reason(&["quiet", "quiet", "stopped"]), "`quiet` is named twice");
    assert!(matches!(
        restore(&[]),
        Err(RestoreError::InvalidConfiguration { .. })
    ));
    assert!(matches!(
        restore(&["stoped", "quiet"]),
        Err(RestoreError::UnknownState { state, .. }) if state == "stoped"
    ));
    // A memory the machine does not keep.
    let remembering = Snapshot::of_configuration(Player::NAME, Player::FINGERPRINT, ["stopped", "quiet"])
        .with_last_leaves([("on", ["stopped", "quiet"])]);
    match Player::restore(&remembering) {
        Err(RestoreError::InvalidLastLeaves { reason, .. }) => assert_eq!(
            reason,
            "`on` is not a composite state that a transition enters through its history"
        ),
        other => panic!("{other:?}"),
    }
    // What the machine writes comes back.
    let mut machine = Player::new();
    machine.fire(player::Action::Go).unwrap();
    machine.fire(player::Action::Louder).unwrap();
    assert_eq!(Player::restore(&machine.snapshot()).unwrap(), machine);
    assert_eq!(restore(&["stopped", "loud"]).unwrap(), machine);
}
