//! Interned names: a definition numbers its states, actions, guards and
//! outputs in declaration order, and the engine works with these numbers.

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// An id is only meaningful for the [`Definition`](super::Definition)
        /// that gave it out; its index is the position of the name in the
        /// definition's list of that kind, in declaration order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $name {
            /// The position in the definition's list of this kind.
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// The id at `index`. Definitions hold fewer than 2^32 names of a
            /// kind because the front end numbers them with `u32`.
            pub(crate) fn from_index(index: usize) -> Self {
                $name(u32::try_from(index).expect("fewer than 2^32 names of a kind"))
            }
        }
    )*};
}

ids! {
    /// A state of a definition.
    StateId;
    /// An action of a definition.
    ActionId;
    /// A guard of a definition.
    GuardId;
    /// An output of a definition.
    OutputId;
}
