//! [`List`]: a short list that one step returns, written out ahead of time or
//! collected in place, without allocating.

use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

/// The outputs of one step of a machine with parallel states, or the actions
/// valid in one of its configurations: a list read as a slice
/// (`list.iter()`, `&list[..]`, `list.len()`), held in place without
/// allocating.
///
/// A machine without parallel states returns `&'static` slices written out
/// ahead of time; one with them collects what a step does, since which
/// regions move depends on the configuration. Code generation sizes `N` to
/// the most a step of the machine can collect, so a list never overflows.
/// Two lists are equal when their items are, however each was made.
#[derive(Clone, Copy)]
pub struct List<T: Copy + 'static, const N: usize>(Repr<T, N>);

#[derive(Clone, Copy)]
enum Repr<T: Copy + 'static, const N: usize> {
    /// Written out ahead of time.
    Fixed(&'static [T]),
    /// Collected in place.
    Collected(Inline<T, N>),
}

impl<T: Copy + 'static, const N: usize> List<T, N> {
    /// A list written out ahead of time. For generated code.
    #[doc(hidden)]
    #[inline]
    pub const fn fixed(items: &'static [T]) -> Self {
        List(Repr::Fixed(items))
    }

    /// A list collected in place. For generated code.
    #[doc(hidden)]
    #[inline]
    pub const fn collected(items: Inline<T, N>) -> Self {
        List(Repr::Collected(items))
    }

    /// The items, in order.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Repr::Fixed(items) => items,
            Repr::Collected(items) => items.as_slice(),
        }
    }
}

impl<T: Copy + 'static, const N: usize> Deref for List<T, N> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + 'static, const N: usize> AsRef<[T]> for List<T, N> {
    #[inline]
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<'a, T: Copy + 'static, const N: usize> IntoIterator for &'a List<T, N> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: Copy + fmt::Debug + 'static, const N: usize> fmt::Debug for List<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: Copy + PartialEq + 'static, const N: usize> PartialEq for List<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Eq + 'static, const N: usize> Eq for List<T, N> {}

impl<T: Copy + PartialEq + 'static, const N: usize, const M: usize> PartialEq<[T; M]> for List<T, N> {
    fn eq(&self, other: &[T; M]) -> bool {
        self.as_slice() == other
    }
}

impl<T: Copy + PartialEq + 'static, const N: usize> PartialEq<[T]> for List<T, N> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: Copy + PartialEq + 'static, const N: usize> PartialEq<&[T]> for List<T, N> {
    fn eq(&self, other: &&[T]) -> bool {
        self.as_slice() == *other
    }
}

impl<T: Copy + Hash + 'static, const N: usize> Hash for List<T, N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

/// Up to `N` items kept in place, for what one step of generated code
/// collects without allocating. For generated code.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Inline<T: Copy, const N: usize> {
    items: [T; N],
    len: usize,
}

impl<T: Copy, const N: usize> Inline<T, N> {
    /// An empty list whose storage starts as `items` (any values: none is
    /// read before it is pushed).
    #[inline]
    pub const fn new(items: [T; N]) -> Self {
        Inline { items, len: 0 }
    }

    /// Add `item` at the end.
    ///
    /// # Panics
    ///
    /// When `N` items are held already, which the plan's bound rules out for
    /// generated code.
    #[inline]
    pub fn push(&mut self, item: T) {
        self.items[self.len] = item;
        self.len += 1;
    }

    /// The items, in the order pushed.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len]
    }
}

impl<T: Copy, const N: usize> Deref for Inline<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + fmt::Debug, const N: usize> fmt::Debug for Inline<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}
