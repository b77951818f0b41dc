//! [`Bits`], the set of state ids a configuration is.

/// A set of state ids, `W` words of 64.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bits<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Bits([0; W])
    }
}

impl<const W: usize> core::fmt::Debug for Bits<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<const W: usize> Bits<W> {
    /// The empty set.
    pub const EMPTY: Self = Bits([0; W]);

    /// True when `s` is in the set.
    #[inline]
    pub fn contains(&self, s: u32) -> bool {
        let s = s as usize;
        self.0[s / 64] >> (s % 64) & 1 != 0
    }

    /// Add `s`.
    #[inline]
    pub fn insert(&mut self, s: u32) {
        let s = s as usize;
        self.0[s / 64] |= 1 << (s % 64);
    }

    /// Remove `s`.
    #[inline]
    pub fn remove(&mut self, s: u32) {
        let s = s as usize;
        self.0[s / 64] &= !(1 << (s % 64));
    }

    /// The ids `lo..hi`.
    pub fn range(lo: u32, hi: u32) -> Self {
        let mut out = Self::EMPTY;
        for (w, word) in out.0.iter_mut().enumerate() {
            let (start, end) = (w * 64, w * 64 + 64);
            let (lo, hi) = ((lo as usize).max(start), (hi as usize).min(end));
            if lo < hi {
                let width = hi - lo;
                let ones = if width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                *word = ones << (lo - start);
            }
        }
        out
    }

    /// The states in both.
    #[inline]
    pub fn and(&self, other: &Self) -> Self {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
        out
    }

    /// The states in either.
    #[inline]
    pub fn or(&self, other: &Self) -> Self {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
        out
    }

    /// The states in `self` but not in `other`.
    #[inline]
    pub fn minus(&self, other: &Self) -> Self {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(&other.0) {
            *a &= !b;
        }
        out
    }

    /// True when the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The least id in the set that is `from` or more.
    #[inline]
    pub fn first_from(&self, from: u32) -> Option<u32> {
        let mut word = from as usize / 64;
        if word >= W {
            return None;
        }
        let mut bits = self.0[word] & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return Some((word * 64) as u32 + bits.trailing_zeros());
            }
            word += 1;
            if word == W {
                return None;
            }
            bits = self.0[word];
        }
    }

    /// The ids, ascending (entry order); `.rev()` for exit order.
    pub fn iter(&self) -> Iter<W> {
        Iter {
            words: self.0,
            front: 0,
            back: W,
        }
    }
}

/// The ids of a [`Bits`], ascending, each found with one bit scan.
#[derive(Clone, Debug)]
pub struct Iter<const W: usize> {
    /// The words not yet visited, their visited bits cleared.
    words: [u64; W],
    /// The first word not finished.
    front: usize,
    /// One past the last word not finished.
    back: usize,
}

impl<const W: usize> Iterator for Iter<W> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.front < self.back {
            let word = self.words[self.front];
            if word == 0 {
                self.front += 1;
                continue;
            }
            self.words[self.front] = word & (word - 1);
            return Some((self.front * 64) as u32 + word.trailing_zeros());
        }
        None
    }
}

impl<const W: usize> DoubleEndedIterator for Iter<W> {
    #[inline]
    fn next_back(&mut self) -> Option<u32> {
        while self.back > self.front {
            let i = self.back - 1;
            let word = self.words[i];
            if word == 0 {
                self.back -= 1;
                continue;
            }
            let bit = 63 - word.leading_zeros();
            self.words[i] = word & !(1 << bit);
            return Some((i * 64) as u32 + bit);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec::Vec;

    #[test]
    fn bits_iterate_in_order_both_ways_across_words() {
        let mut bits: Bits<3> = Bits::EMPTY;
        for s in [0, 5, 63, 64, 100, 191] {
            bits.insert(s);
        }
        let forward: Vec<u32> = bits.iter().collect();
        assert_eq!(forward, [0, 5, 63, 64, 100, 191]);
        let backward: Vec<u32> = bits.iter().rev().collect();
        assert_eq!(backward, [191, 100, 64, 63, 5, 0]);
        // From both ends at once, each id once.
        let mut iter = bits.iter();
        assert_eq!(
            (iter.next(), iter.next_back(), iter.next(), iter.next_back()),
            (Some(0), Some(191), Some(5), Some(100))
        );
        assert_eq!(iter.collect::<Vec<_>>(), [63, 64]);
        assert_eq!(Bits::<2>::EMPTY.iter().next(), None);
    }

    #[test]
    fn first_from_finds_the_next_id_across_words() {
        let mut bits: Bits<3> = Bits::EMPTY;
        for s in [5, 63, 64, 191] {
            bits.insert(s);
        }
        let found: Vec<Option<u32>> = [0, 5, 6, 64, 65, 191, 192]
            .iter()
            .map(|&s| bits.first_from(s))
            .collect();
        assert_eq!(
            found,
            [Some(5), Some(5), Some(63), Some(64), Some(191), Some(191), None]
        );
        assert_eq!(Bits::<1>::EMPTY.first_from(0), None);
    }

    #[test]
    fn a_range_holds_exactly_its_ids() {
        let range: Bits<3> = Bits::range(60, 130);
        assert_eq!(range.iter().collect::<Vec<_>>(), (60..130).collect::<Vec<u32>>());
        let whole: Bits<2> = Bits::range(0, 128);
        assert_eq!(whole.iter().count(), 128);
        assert!(Bits::<1>::range(3, 3).is_empty());
        let mut set: Bits<2> = Bits::EMPTY;
        set.insert(70);
        assert!(set.contains(70) && !set.contains(6));
        set.remove(70);
        assert!(set.is_empty());
    }
}
