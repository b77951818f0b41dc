//! Name → id lookup: the one lookup on the hot path of
//! [`Engine::fire`](super::Engine::fire).
//!
//! A general-purpose hash map spends more on hashing and probing a short
//! name than the rest of a `fire` costs. The names are known when the
//! definition is built, so a small open-addressing table does better: its
//! hash reads at most two 8-byte words of the name (which covers every byte
//! of names up to 16 bytes), and a hit costs one comparison of the name.
//!
//! The keys are the definition's own names; only the looked-up text comes
//! from outside, and it cannot make the keys collide. Names that share their
//! length, first and last 8 bytes do collide, and then probing degrades
//! gracefully to comparing against each of them.

/// The names of one kind (states, actions, ...) of a definition, each mapped
/// to its index.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameIndex {
    names: Box<[Box<str>]>,
    /// Indices into `names`, or [`EMPTY`]; a power of two long, at least
    /// twice the number of names, so probing always reaches an empty slot.
    slots: Box<[u32]>,
    /// `64 - log2(slots.len())`: the hash's top bits pick the slot.
    shift: u32,
}

const EMPTY: u32 = u32::MAX;

impl NameIndex {
    /// An index of `names`, numbered in order. Names are unique in a checked
    /// machine; were one repeated, the first would keep its number.
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: Box<[Box<str>]> = names.into_iter().map(Box::from).collect();
        assert!(
            names.len() < EMPTY as usize,
            "fewer than 2^32 - 1 names of a kind"
        );
        let len = (names.len() * 2).next_power_of_two().max(2);
        let mut index = NameIndex {
            slots: vec![EMPTY; len].into(),
            shift: 64 - len.trailing_zeros(),
            names: Box::default(),
        };
        for (i, name) in names.iter().enumerate() {
            let mut slot = index.first_slot(name.as_bytes());
            loop {
                match index.slots[slot] {
                    EMPTY => {
                        index.slots[slot] = i as u32;
                        break;
                    }
                    // A repeated name: the first keeps its number.
                    taken if names[taken as usize] == *name => break,
                    _ => slot = (slot + 1) & (len - 1),
                }
            }
        }
        index.names = names;
        index
    }

    /// The index of `name`.
    #[inline]
    pub(crate) fn get(&self, name: &str) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut slot = self.first_slot(name.as_bytes());
        loop {
            let index = self.slots[slot];
            if index == EMPTY {
                return None;
            }
            if *self.names[index as usize] == *name {
                return Some(index as usize);
            }
            slot = (slot + 1) & mask;
        }
    }

    #[inline]
    fn first_slot(&self, name: &[u8]) -> usize {
        (hash(name) >> self.shift) as usize
    }
}

/// A hash of the length and of (at most) the first and last 8 bytes.
#[inline]
fn hash(name: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let len = name.len();
    let (head, tail) = if len >= 8 {
        (word8(&name[..8]), word8(&name[len - 8..]))
    } else if len >= 4 {
        (u64::from(word4(&name[..4])), u64::from(word4(&name[len - 4..])))
    } else if len > 0 {
        let bytes = u64::from(name[0]) | u64::from(name[len / 2]) << 8 | u64::from(name[len - 1]) << 16;
        (bytes, 0)
    } else {
        (0, 0)
    };
    ((head ^ (len as u64).rotate_right(8)).wrapping_mul(K) ^ tail).wrapping_mul(K)
}

#[inline]
fn word8(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

#[inline]
fn word4(bytes: &[u8]) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(bytes);
    u32::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_name_and_nothing_else() {
        let names = [
            "start",
            "stop",
            "a_rather_long_action_name",
            "",
            "x",
            "ab",
            "abc",
            "abcd",
            "abcdefgh",
        ];
        let index = NameIndex::new(names);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(index.get(name), Some(i), "{name}");
        }
        for absent in [
            "sto",
            "a_rather_long_action_nam",
            "start\0",
            "y",
            "ba",
            "abd",
            "abce",
            "abcdefgi",
        ] {
            assert_eq!(index.get(absent), None, "{absent}");
        }
    }

    #[test]
    fn names_that_collide_are_all_found() {
        // Same length, same first and last 8 bytes: the same hash.
        let names: Vec<String> = (0..50).map(|i| format!("workflow_{i:02}_step_done")).collect();
        let index = NameIndex::new(names.iter().map(String::as_str));
        for (i, name) in names.iter().enumerate() {
            assert_eq!(index.get(name), Some(i), "{name}");
        }
        assert_eq!(index.get("workflow_50_step_done"), None);
    }

    #[test]
    fn every_short_name_over_two_letters_is_told_apart() {
        // Every name of up to 12 letters `a` and `b`: lengths on both sides
        // of each key layout (3, 4, 8 and 16 bytes), differing anywhere.
        let names: Vec<String> = (0..=12u32)
            .flat_map(|len| {
                (0..1u32 << len).map(move |bits| {
                    (0..len)
                        .map(|i| if bits >> i & 1 == 1 { 'b' } else { 'a' })
                        .collect()
                })
            })
            .collect();
        let (even, odd): (Vec<_>, Vec<_>) = names.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let index = NameIndex::new(even.iter().map(|(_, name)| name.as_str()));
        for (i, (_, name)) in even.iter().enumerate() {
            assert_eq!(index.get(name), Some(i), "{name}");
        }
        for (_, name) in &odd {
            assert_eq!(index.get(name), None, "{name}");
        }
    }

    #[test]
    fn empty_and_repeated() {
        assert_eq!(NameIndex::new([]).get("a"), None);
        let index = NameIndex::new(["a", "b", "a"]);
        assert_eq!(index.get("a"), Some(0));
        assert_eq!(index.get("b"), Some(1));
    }
}
