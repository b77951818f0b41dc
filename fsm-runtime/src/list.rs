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
/// regions move depends on the configuration. Code generation sizes `N`
/// from the machine's plan:
///
/// - where its `always` and `done` transitions cannot follow one another
///   more times than it has such transitions (no cycle), `N` is the most
///   one `fire` can emit, and a list never overflows;
/// - otherwise (a cycle, which a `fire` may run up to the runaway bound of
///   1,000 microsteps), `N` is the most a `fire` emits when it takes no
///   `always` or `done` transition twice, rather than the most 1,000
///   microsteps could emit. A `fire` that emits more keeps the first `N`
///   outputs, counts the others ([`List::emitted`], [`List::overflow`]) and
///   is an error, [`FireError::Runaway`](crate::FireError::Runaway), that
///   says so; a list never drops an item silently, and never panics.
///
/// Two lists are equal when their items and [`List::emitted`] counts are,
/// however each was made.
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

    /// How many items were emitted: the items held (the slice's `len`) plus the
    /// [`overflow`](List::overflow).
    #[inline]
    pub fn emitted(&self) -> usize {
        match &self.0 {
            Repr::Fixed(items) => items.len(),
            Repr::Collected(items) => items.pushed(),
        }
    }

    /// How many items were emitted past the `N` the list holds, and so are
    /// not in it: 0 but after a `fire` that ran past what its machine's
    /// outputs hold, which returned [`FireError::Runaway`](crate::FireError::Runaway)
    /// (or, for a timer's step, whose result has no error for it, a
    /// [`TimerFired`](crate::TimerFired) whose outputs say so here).
    #[inline]
    pub fn overflow(&self) -> usize {
        match &self.0 {
            Repr::Fixed(_) => 0,
            Repr::Collected(items) => items.overflow(),
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
    /// The items as a list, followed by `(+k not kept)` after an overflow.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()?;
        match self.overflow() {
            0 => Ok(()),
            k => write!(f, " (+{k} not kept)"),
        }
    }
}

impl<T: Copy + PartialEq + 'static, const N: usize> PartialEq for List<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice() && self.overflow() == other.overflow()
    }
}

impl<T: Copy + Eq + 'static, const N: usize> Eq for List<T, N> {}

impl<T: Copy + PartialEq + 'static, const N: usize, const M: usize> PartialEq<[T; M]> for List<T, N> {
    fn eq(&self, other: &[T; M]) -> bool {
        self.overflow() == 0 && self.as_slice() == other
    }
}

impl<T: Copy + PartialEq + 'static, const N: usize> PartialEq<[T]> for List<T, N> {
    fn eq(&self, other: &[T]) -> bool {
        self.overflow() == 0 && self.as_slice() == other
    }
}

impl<T: Copy + PartialEq + 'static, const N: usize> PartialEq<&[T]> for List<T, N> {
    fn eq(&self, other: &&[T]) -> bool {
        self.overflow() == 0 && self.as_slice() == *other
    }
}

impl<T: Copy + Hash + 'static, const N: usize> Hash for List<T, N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
        match self.overflow() {
            0 => {}
            k => k.hash(state),
        }
    }
}

/// Up to `N` items kept in place, for what one step of generated code
/// collects without allocating, counting what did not fit. For generated
/// code.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Inline<T: Copy, const N: usize> {
    items: [T; N],
    /// How many are held: never more than `N`, so that reading them is a
    /// plain slice (no clamp on the hot path).
    len: u32,
    /// How many were pushed past the `N` held. Two `u32`s keep the list
    /// as large as one `usize` length did.
    overflow: u32,
}

impl<T: Copy, const N: usize> Inline<T, N> {
    /// An empty list whose storage starts as `items` (any values: none is
    /// read before it is pushed).
    #[inline]
    pub const fn new(items: [T; N]) -> Self {
        Inline {
            items,
            len: 0,
            overflow: 0,
        }
    }

    /// Add `item` at the end, when fewer than `N` items are held; otherwise
    /// count it ([`Inline::overflow`]) and drop it. Never panics.
    #[inline]
    pub fn push(&mut self, item: T) {
        match self.items.get_mut(self.len as usize) {
            Some(slot) => {
                *slot = item;
                self.len += 1;
            }
            None => self.overflow = self.overflow.saturating_add(1),
        }
    }

    /// How many items were pushed, held or not.
    #[inline]
    pub fn pushed(&self) -> usize {
        self.len as usize + self.overflow as usize
    }

    /// How many items were pushed past the `N` held.
    #[inline]
    pub fn overflow(&self) -> usize {
        self.overflow as usize
    }

    /// The items held, in the order pushed.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len as usize]
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
