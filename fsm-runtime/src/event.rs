//! What the generated `Event` enums (a machine's actions with their payloads)
//! share: the `Debug` of a payload whose type may not have one, and (with the
//! `serde` feature) reading an event back.
//!
//! Generated code implements `Clone`, `Copy`, `PartialEq`, `Eq`, `Hash` and,
//! with the `serde` feature, `Serialize` and `Deserialize` for `Event` with
//! one bound per payload type (`where for<'a> Payload: Clone`), as `#[derive]`
//! bounds the type parameters of a generic enum: the impl holds when every
//! payload type has the trait, and a machine whose payload type lacks it
//! still compiles, its `Event` only lacks the trait. The `for<'a>` keeps
//! rustc from rejecting a bound on a concrete type that does not hold
//! (stable Rust rejects such "trivial" bounds unless they are higher-ranked).
//!
//! `Debug` is always implemented: a payload shows with its own `Debug` when
//! its type has one, as `..` otherwise (`UserInput("hi")`, `Opaque(..)`).
//! Generated code asks for it with [`DebugPayload`] and the method
//! `fsm_payload_debug` of the two traits below, which rustc's method
//! resolution picks between on the concrete payload type ("autoref
//! specialization"): [`PayloadDebug`] when the type is `Debug`,
//! [`PayloadOpaque`] otherwise.

use core::fmt;

/// A payload to show in an `Event`'s `Debug`.
pub struct DebugPayload<'a, T>(pub &'a T);

/// A payload whose type is `Debug` shows as itself. Found first: the method
/// takes `&DebugPayload`, which the generated call passes as it is.
pub trait PayloadDebug {
    /// The payload, as `Debug`.
    fn fsm_payload_debug(&self) -> &dyn fmt::Debug;
}

impl<T: fmt::Debug> PayloadDebug for DebugPayload<'_, T> {
    fn fsm_payload_debug(&self) -> &dyn fmt::Debug {
        self.0
    }
}

/// Any other payload shows as `..`. Found only when [`PayloadDebug`] does
/// not apply: its method takes `&&DebugPayload`, one more reference than the
/// generated call passes.
pub trait PayloadOpaque {
    /// `..`, as `Debug`.
    fn fsm_payload_debug(&self) -> &dyn fmt::Debug;
}

impl<T> PayloadOpaque for &DebugPayload<'_, T> {
    fn fsm_payload_debug(&self) -> &dyn fmt::Debug {
        &Elided
    }
}

/// `..`: a payload whose type is not `Debug`.
struct Elided;

impl fmt::Debug for Elided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("..")
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use crate::symbol::{ParseSymbolError, Symbol};
    use core::fmt;
    use core::marker::PhantomData;
    use serde::de::{self, Deserialize, Deserializer, EnumAccess, Error, VariantAccess, Visitor};

    /// An `Event` read back variant by variant: generated code implements it
    /// (with the bounds of its `Deserialize`), and its `Deserialize` calls
    /// [`deserialize_event`].
    ///
    /// An event is written as serde writes an externally tagged enum: a unit
    /// variant (no payload) as its action's `.fsm` name (`"open"` in JSON), a
    /// variant with a payload as a one-entry map from the name to the payload
    /// (`{"user_input": "hello"}`). The variant index is the action's.
    pub trait EventVariants<'de>: Sized {
        /// The machine's `Action` enum, whose names and indices are the
        /// variants'.
        type Action: Symbol;

        /// The event of `action`, its payload (if it has one) read from
        /// `variant`.
        ///
        /// # Errors
        ///
        /// When the variant is not of the action's shape (a payload for an
        /// action without one, or none for one with), or the payload does not
        /// read back.
        fn variant<V: VariantAccess<'de>>(action: Self::Action, variant: V) -> Result<Self, V::Error>;
    }

    /// Read an `Event` from `deserializer`.
    ///
    /// # Errors
    ///
    /// When the input is not an event of this machine.
    pub fn deserialize_event<'de, E: EventVariants<'de>, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<E, D::Error> {
        deserializer.deserialize_enum("Event", <E::Action as Symbol>::NAMES, EventVisitor(PhantomData))
    }

    struct EventVisitor<E>(PhantomData<E>);

    impl<'de, E: EventVariants<'de>> Visitor<'de> for EventVisitor<E> {
        type Value = E;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "an event of machine `{}`", <E::Action as Symbol>::MACHINE)
        }

        fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<E, A::Error> {
            let (Tag(action), variant) = data.variant::<Tag<E::Action>>()?;
            E::variant(action, variant)
        }
    }

    /// The variant of an event: its action, by name or (in formats that write
    /// variants by index) by index.
    struct Tag<A>(A);

    impl<'de, A: Symbol> Deserialize<'de> for Tag<A> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_identifier(TagVisitor(PhantomData))
        }
    }

    struct TagVisitor<A>(PhantomData<A>);

    impl<A: Symbol> Visitor<'_> for TagVisitor<A> {
        type Value = Tag<A>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "the name of one of the actions of machine `{}`", A::MACHINE)
        }

        fn visit_str<E: Error>(self, name: &str) -> Result<Tag<A>, E> {
            A::from_name(name)
                .map(Tag)
                .ok_or_else(|| E::custom(ParseSymbolError::new::<A>(name)))
        }

        fn visit_bytes<E: Error>(self, name: &[u8]) -> Result<Tag<A>, E> {
            match core::str::from_utf8(name) {
                Ok(name) => self.visit_str(name),
                Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(name), &self)),
            }
        }

        fn visit_u64<E: Error>(self, index: u64) -> Result<Tag<A>, E> {
            usize::try_from(index)
                .ok()
                .and_then(|i| A::ALL.get(i))
                .map(|&action| Tag(action))
                .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(index), &self))
        }
    }
}

#[cfg(feature = "serde")]
pub use serde_impls::{deserialize_event, EventVariants};
