//! Name → id lookup: the one lookup on the hot path of
//! [`Engine::fire`](super::Engine::fire).
//!
//! A general-purpose hash map spends more on hashing and probing a short
//! name than the rest of a `fire` costs. The names are known when the
//! definition is built, so a small open-addressing table does better: its
//! hash reads at most two 8-byte words of the name (which covers every byte
//! of names up to 16 bytes), and each slot keeps those words beside the
//! name's index, so a probe compares three words; only a name longer than
//! 16 bytes whose words match is then compared in full, word by word.
//! The hash's multiplier is chosen when the index is built, among a fixed
//! sequence, so that no two names share a home slot: a name is found at its
//! first probe, and the probe loop only runs on for text that is no name.
//!
//! The keys are the definition's own names; only the looked-up text comes
//! from outside, and it cannot make the keys collide. Names that share their
//! length, first and last 8 bytes do collide, and then probing degrades
//! gracefully to comparing against each of them.

use std::sync::Arc;

/// The names of one kind (states, actions, ...) of a definition, each mapped
/// to its index.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameIndex {
    /// Shared, so that an engine's history entries hold the names without
    /// copying them.
    names: Box<[Arc<str>]>,
    /// A power of two long, at least twice the number of names, so probing
    /// always reaches an empty slot.
    slots: Box<[Slot]>,
    /// `64 - log2(slots.len())`: the hash's top bits pick the slot.
    shift: u32,
    /// The hash's first multiplier, chosen when the index is built so that
    /// every name sits in the slot its hash picks: a name given is found at
    /// the first probe.
    seed: u64,
}

/// A slot of the table: a name's index and its [`Key`], so that a probe
/// compares words, not strings.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// The index into `names`, or [`EMPTY`].
    index: u32,
    key: Key,
}

const EMPTY: u32 = u32::MAX;

/// The key of an empty slot: no name has this length.
const NO_KEY: Key = Key {
    len: u64::MAX,
    head: 0,
    tail: 0,
};

/// The length of a name and (at most) its first and last 8 bytes. For a
/// name of up to 16 bytes these are all its bytes, so equal keys mean equal
/// names; longer names with equal keys are compared in full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    len: u64,
    head: u64,
    tail: u64,
}

impl Key {
    /// `self == other`, without a branch per word.
    #[inline(always)]
    fn same(self, other: Key) -> bool {
        ((self.len ^ other.len) | (self.head ^ other.head) | (self.tail ^ other.tail)) == 0
    }
}

/// How many multipliers [`NameIndex::new`] tries per table size.
const SEEDS: u64 = 64;

/// Up to this many names, [`NameIndex::new`] doubles the table (at most
/// twice) when no multiplier puts every name in its home slot.
const SMALL: usize = 32;

impl NameIndex {
    /// An index of `names`, numbered in order. Names are unique in a checked
    /// machine; were one repeated, the first would keep its number.
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: Box<[Arc<str>]> = names.into_iter().map(Arc::from).collect();
        assert!(
            names.len() < EMPTY as usize,
            "fewer than 2^32 - 1 names of a kind"
        );
        let keys: Vec<Key> = names.iter().map(|name| key(name.as_bytes())).collect();
        let smallest = (names.len() * 2).next_power_of_two().max(2);
        // The first multiplier (and table size) that puts every key in its
        // own home slot, trying larger tables only for a few names (the
        // actions of most machines); else the multiplier that leaves the
        // fewest names away from home. Deterministic: the same names always
        // give the same table.
        let sizes = [smallest, smallest * 2, smallest * 4];
        let sizes = &sizes[..if names.len() <= SMALL { 3 } else { 1 }];
        let mut best = (usize::MAX, smallest, seed_number(0));
        'search: for &len in sizes {
            let shift = 64 - len.trailing_zeros();
            for seed in (0..SEEDS).map(seed_number) {
                let away = away_from_home(&keys, len, shift, seed);
                if away < best.0 {
                    best = (away, len, seed);
                    if away == 0 {
                        break 'search;
                    }
                }
            }
        }
        let (_, len, seed) = best;
        let empty = Slot {
            index: EMPTY,
            key: NO_KEY,
        };
        let mut index = NameIndex {
            slots: vec![empty; len].into(),
            shift: 64 - len.trailing_zeros(),
            seed,
            names: Box::default(),
        };
        for (i, (name, &key)) in names.iter().zip(&keys).enumerate() {
            let mut slot = index.first_slot(key);
            loop {
                match index.slots[slot].index {
                    EMPTY => {
                        index.slots[slot] = Slot { index: i as u32, key };
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
    #[inline(always)]
    pub(crate) fn get(&self, name: &str) -> Option<usize> {
        let bytes = name.as_bytes();
        let key = key(bytes);
        let mask = self.slots.len() - 1;
        let mut slot = self.first_slot(key);
        loop {
            let found = self.slots[slot];
            if found.key.same(key) {
                // No empty slot has a name's key.
                if bytes.len() <= 16 || long_eq(self.names[found.index as usize].as_bytes(), bytes) {
                    return Some(found.index as usize);
                }
            } else if found.index == EMPTY {
                return None;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The name numbered `index`, shared.
    ///
    /// # Panics
    ///
    /// When there is no such name.
    pub(crate) fn name(&self, index: usize) -> &Arc<str> {
        &self.names[index]
    }

    #[inline(always)]
    fn first_slot(&self, key: Key) -> usize {
        (hash(key, self.seed) >> self.shift) as usize
    }
}

/// The `n`th multiplier to try: odd, and well mixed (SplitMix64).
fn seed_number(n: u64) -> u64 {
    let mut z = n.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) | 1
}

/// How many of `keys` would not sit in their home slot of a table of `len`
/// slots with `seed` (equal keys, of long names sharing their words, count
/// from the second).
fn away_from_home(keys: &[Key], len: usize, shift: u32, seed: u64) -> usize {
    let mut taken = vec![false; len];
    keys.iter()
        .filter(|&&key| {
            let home = &mut taken[(hash(key, seed) >> shift) as usize];
            std::mem::replace(home, true)
        })
        .count()
}

/// The key of `name`: its length and, for up to 16 bytes, every byte of it.
#[inline(always)]
fn key(name: &[u8]) -> Key {
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
    Key {
        len: len as u64,
        head,
        tail,
    }
}

/// A hash of a key, with `seed` as the first multiplier.
#[inline(always)]
fn hash(key: Key, seed: u64) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    ((key.head ^ key.len.rotate_right(8)).wrapping_mul(seed) ^ key.tail).wrapping_mul(K)
}

/// `a == b` for two names of the same length, more than 16 bytes: word by
/// word (the last word overlapping), without a call to `memcmp`.
#[inline]
fn long_eq(a: &[u8], b: &[u8]) -> bool {
    let len = b.len();
    if a.len() != len {
        return false;
    }
    let mut at = 0;
    while at + 8 < len {
        if word8(&a[at..at + 8]) != word8(&b[at..at + 8]) {
            return false;
        }
        at += 8;
    }
    word8(&a[len - 8..]) == word8(&b[len - 8..])
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
    fn every_name_is_found_at_its_first_probe() {
        // The actions of the benchmark's agent machine, and names that
        // differ in one letter.
        let agent = [
            "user_input",
            "text_delta",
            "tool_call_delta",
            "llm_completed",
            "llm_error",
            "response_examined",
            "tool_completed",
            "post_tools_hook_completed",
            "retry_timeout_fired",
            "shutdown_requested",
        ];
        let letters: Vec<String> = ('a'..='z').map(|c| format!("on_{c}")).collect();
        for names in [agent.iter().map(|s| s.to_string()).collect::<Vec<_>>(), letters] {
            let index = NameIndex::new(names.iter().map(String::as_str));
            for (i, name) in names.iter().enumerate() {
                let home = index.first_slot(key(name.as_bytes()));
                assert_eq!(
                    index.slots[home].index as usize, i,
                    "{name} is not in its home slot"
                );
            }
        }
    }

    #[test]
    fn many_names_are_all_found() {
        // Too many for every name to get its home slot: some probe on.
        let names: Vec<String> = (0..1000).map(|i| format!("state_{i}")).collect();
        let index = NameIndex::new(names.iter().map(String::as_str));
        for (i, name) in names.iter().enumerate() {
            assert_eq!(index.get(name), Some(i), "{name}");
        }
        assert_eq!(index.get("state_1000"), None);
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
    fn long_names_differing_in_any_byte_are_told_apart() {
        // Past 16 bytes the key no longer holds every byte: a name that
        // differs from a key's name only in its middle must still miss.
        for len in 17..=41 {
            let name: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            let index = NameIndex::new([name.as_str()]);
            assert_eq!(index.get(&name), Some(0), "{name}");
            for at in 0..len {
                let mut other = name.clone().into_bytes();
                other[at] = b'_';
                let other = String::from_utf8(other).expect("ASCII");
                assert_eq!(index.get(&other), None, "{other}");
            }
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
