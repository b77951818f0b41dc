//! Serde support for generated enums, switched by this crate's `serde`
//! feature.
//!
//! Generated code cannot test this crate's features with `#[cfg]` (the cfg
//! would be evaluated in the user's crate), so it invokes
//! `__private::symbol_serde!(State)` for each enum, and this crate defines
//! that macro to expand either to the impls or to nothing.

/// Implement `Serialize` and `Deserialize` for a generated enum as its
/// `.fsm` name.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __symbol_serde {
    ($ty:ident) => {
        impl $crate::__private::serde::Serialize for $ty {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> $crate::__private::Result<S::Ok, S::Error> {
                $crate::__private::serialize_symbol(*self, serializer)
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $ty {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> $crate::__private::Result<Self, D::Error> {
                $crate::__private::deserialize_symbol(deserializer)
            }
        }
    };
}

/// Without the `serde` feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __symbol_serde {
    ($ty:ident) => {};
}

#[cfg(feature = "serde")]
mod impls {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use crate::symbol::{ParseSymbolError, Symbol};
    use serde::de::{Deserializer, Error, Visitor};
    use serde::Serializer;
    use std::fmt;
    use std::marker::PhantomData;

    /// Serialize a symbol as its name.
    pub fn serialize_symbol<T: Symbol, S: Serializer>(symbol: T, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(symbol.name())
    }

    /// Deserialize a symbol from its name.
    pub fn deserialize_symbol<'de, T: Symbol, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        deserializer.deserialize_str(SymbolVisitor(PhantomData))
    }

    struct SymbolVisitor<T>(PhantomData<T>);

    impl<T: Symbol> Visitor<'_> for SymbolVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(
                f,
                "the name of one of the {}s of machine `{}`",
                T::KIND,
                T::MACHINE
            )
        }

        fn visit_str<E: Error>(self, name: &str) -> Result<T, E> {
            T::from_name(name).ok_or_else(|| E::custom(ParseSymbolError::new::<T>(name)))
        }
    }
}

#[cfg(feature = "serde")]
pub use impls::{deserialize_symbol, serialize_symbol};

/// The items it is given, with the `serde` feature; nothing without. Generated
/// code wraps the methods that serialize a context in it.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_serde {
    ($($item:item)*) => { $($item)* };
}

/// Without the `serde` feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_serde {
    ($($item:item)*) => {};
}

/// Nothing with the `serde` feature; the items it is given without.
/// Generated code gives it stubs of the methods `if_serde!` leaves out, so
/// that calling one says which feature it needs (see [`NeedsSerdeFeature`]).
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __without_serde {
    ($($item:item)*) => {};
}

/// Without the `serde` feature but with `alloc` (snapshots): the items.
#[cfg(all(feature = "alloc", not(feature = "serde")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __without_serde {
    ($($item:item)*) => { $($item)* };
}

/// Without `alloc` there are no snapshots to stub: nothing.
#[cfg(not(feature = "alloc"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __without_serde {
    ($($item:item)*) => {};
}

/// What the stubs of `snapshot`, `restore` and `restore_with` of a machine
/// with a context ask of the context type, without the `serde` feature: a
/// trait nothing implements, so a call fails to compile with the message
/// below, naming the feature, where rustc would otherwise say that no such
/// method exists and suggest implementing `Machine`.
#[diagnostic::on_unimplemented(
    message = "snapshots of a machine with a context need the `serde` feature of `fsm-runtime`",
    label = "needs `fsm-runtime`'s `serde` feature",
    note = "a snapshot carries the context, `{Self}`, as JSON: turn the feature on in Cargo.toml \
            (`fsm-runtime = {{ version = \"0.1\", features = [\"serde\"] }}`) and derive \
            `serde::Serialize` and `serde::Deserialize` for `{Self}`"
)]
pub trait NeedsSerdeFeature {}
