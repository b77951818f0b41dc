//! What the standard library's prelude would bring, for the modules that
//! allocate: this crate is `#![no_std]`, and the `alloc` feature adds these.

pub(crate) use alloc::borrow::{Cow, ToOwned};
pub(crate) use alloc::string::{String, ToString};
pub(crate) use alloc::vec::Vec;
