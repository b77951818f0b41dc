//! Items of generated code that exist only with a feature of this crate.
//!
//! Generated code lives in the user's crate, where `#[cfg(feature = "alloc")]`
//! would ask the user's features, not this crate's. It wraps such items in
//! these macros instead, which keep or drop them by this crate's features.

/// With the `alloc` feature: the items (snapshots, `Persist`, `Restore`).
#[cfg(feature = "alloc")]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_alloc {
    ($($item:item)*) => { $($item)* };
}

/// Without the `alloc` feature: nothing.
#[cfg(not(feature = "alloc"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_alloc {
    ($($item:item)*) => {};
}

/// With the `std` feature: the items (constructors on the system clock, and
/// `Timed` for a machine without timers, which reads the system clock).
#[cfg(feature = "std")]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_std {
    ($($item:item)*) => { $($item)* };
}

/// Without the `std` feature: nothing.
#[cfg(not(feature = "std"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_std {
    ($($item:item)*) => {};
}
