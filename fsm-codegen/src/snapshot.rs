//! The snapshot and restore methods of the machine type.

use proc_macro2::TokenStream;
use quote::quote;

/// `snapshot`, `restore` and `restore_with`, delegating to the runtime's
/// `Machine` trait, which checks machine, fingerprint and state.
pub(crate) fn snapshot_methods() -> TokenStream {
    quote! {
        /// The current state with the machine's name and fingerprint, ready
        /// to be stored.
        pub fn snapshot(&self) -> __fsm::Snapshot {
            __fsm::Machine::snapshot(self)
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
            <Self as __fsm::Machine>::restore(snapshot)
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
            <Self as __fsm::Machine>::restore_with(snapshot, policy)
        }
    }
}
