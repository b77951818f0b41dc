//! The snapshot and restore methods of the machine type.

use crate::nested::memory_slots;
use fsm_grammar::model::Machine;
use proc_macro2::TokenStream;
use quote::quote;

/// `snapshot`, `restore` and `restore_with` of a machine without a context:
/// the state and, with nested states, the history memory as `last_active`,
/// which comes back checked (a composite the machine remembers, a leaf
/// inside it); and `impl Persist`, which delegates to them.
pub(crate) fn snapshot_methods(machine: &Machine) -> TokenStream {
    let slots = memory_slots(machine);
    let n = crate::nested::index(slots.len());
    let names = slots.iter().map(|&s| machine.state(s).name.as_str());
    let (snapshot, restore) = if slots.is_empty() {
        (
            quote!(__fsm::Snapshot::new(
                <Self as __fsm::Machine>::NAME,
                <Self as __fsm::Machine>::FINGERPRINT,
                self.state.name()
            )),
            if machine.is_nested() {
                quote! {
                    let state = snapshot.state_of::<Self>(policy)?;
                    // The machine remembers nothing: any `last_active` is wrong.
                    snapshot.last_active_of::<Self, 0>(&[], |_, _| false)?;
                    __fsm::Ok(Self { state })
                }
            } else {
                quote! {
                    let state = snapshot.state_of::<Self>(policy)?;
                    __fsm::Ok(Self { state })
                }
            },
        )
    } else {
        (
            quote! {
                __fsm::Snapshot::new(<Self as __fsm::Machine>::NAME, <Self as __fsm::Machine>::FINGERPRINT, self.state.name()).with_last_active(
                    LAST_ACTIVE_COMPOSITES
                        .iter()
                        .zip(self.last_active)
                        .filter_map(|(composite, leaf)| leaf.map(|leaf| (composite.name(), leaf.name()))),
                )
            },
            quote! {
                let state = snapshot.state_of::<Self>(policy)?;
                let last_active = snapshot.last_active_of::<Self, #n>(&[#(#names),*], |slot, leaf| {
                    leaf.is_in(LAST_ACTIVE_COMPOSITES[slot])
                })?;
                __fsm::Ok(Self { state, last_active })
            },
        )
    };
    quote! {
        /// The current state with the machine's name and fingerprint, ready
        /// to be stored.
        pub fn snapshot(&self) -> __fsm::Snapshot {
            #snapshot
        }

        /// The machine in the state of `snapshot`, which must come from this
        /// machine and this exact definition.
        ///
        /// # Errors
        ///
        /// When the snapshot is of another machine, was taken from a
        /// different definition (see `restore_with`), or names a state this
        /// machine does not have.
        pub fn restore(snapshot: &__fsm::Snapshot) -> __fsm::Result<Self, __fsm::RestoreError> {
            Self::restore_with(snapshot, __fsm::FingerprintPolicy::Strict)
        }

        /// The machine in the state of `snapshot`; `policy` decides whether a
        /// snapshot taken from a different definition is accepted.
        ///
        /// # Errors
        ///
        /// As [`Self::restore`], except that the fingerprint is only checked
        /// under `FingerprintPolicy::Strict`.
        pub fn restore_with(
            snapshot: &__fsm::Snapshot,
            policy: __fsm::FingerprintPolicy,
        ) -> __fsm::Result<Self, __fsm::RestoreError> {
            #restore
        }
    }
}
