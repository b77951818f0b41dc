//! `Clone`, `Copy`, `PartialEq`, `Eq`, `Hash` and `Debug` for the runtime's
//! structs that are generic over a [`Machine`](crate::Machine).
//!
//! Derives would demand each trait of the machine type `M` itself, while only
//! the fields (symbols, `&'static` tables) need it.

/// Implement the value traits for structs `Name<M: Machine> { fields }`.
macro_rules! impl_value_traits {
    ($($ty:ident { $($field:ident),* })*) => {$(
        impl<M: $crate::Machine> Clone for $ty<M> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<M: $crate::Machine> Copy for $ty<M> {}

        impl<M: $crate::Machine> PartialEq for $ty<M> {
            fn eq(&self, other: &Self) -> bool {
                true $(&& self.$field == other.$field)*
            }
        }

        impl<M: $crate::Machine> Eq for $ty<M> {}

        impl<M: $crate::Machine> ::core::hash::Hash for $ty<M> {
            fn hash<H: ::core::hash::Hasher>(&self, hasher: &mut H) {
                $(self.$field.hash(hasher);)*
            }
        }

        impl<M: $crate::Machine> ::core::fmt::Debug for $ty<M> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(stringify!($ty))
                    $(.field(stringify!($field), &self.$field))*
                    .finish()
            }
        }
    )*};
}
