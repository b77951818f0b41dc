//! The instrumented context and the payloads of the timed differential test
//! ([`crate::timed`]), shared by the three implementations it compares: the
//! reference interpreter, the dynamic engine (its closures call the functions
//! here over [`Ctx`]) and the generated code (`build.rs` implements every
//! machine's `Context` or `Guards` trait for [`Ctx`] with the same
//! functions, and aliases every payload type the machines name to a type of
//! this module).
//!
//! Payloads are drawn as small numbers. The dynamic engine and the reference
//! get the number as JSON; the generated code gets a value of the payload's
//! Rust type built from it ([`TestPayload::from_seed`]), and its guards and
//! effects turn the value they are handed back into the number
//! ([`TestPayload::seed`]). A guard or effect declared without a payload
//! type sees no payload in any of them (`None`), as the generated code
//! cannot hand it one.

use fsm_runtime::Symbol;
use serde_json::Value;
use std::time::Duration;

/// The context every implementation runs, whatever context type the machine
/// names.
///
/// Every effect appends its name and payload to `log` and folds both into
/// `chain`, a hash of everything the context went through, in order. Guards
/// and delays are functions of `chain`, so an effect that runs when it should
/// not, twice, in another order or with another payload changes later
/// guard values and deadlines as well as the log.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ctx {
    /// The hash chain over the effects run so far.
    pub chain: u64,
    /// The effects run so far, as `name` or `name(payload)`.
    pub log: Vec<String>,
}

/// The payload a guard or effect with a payload type sees in the dynamic
/// engine and the reference: the number drawn for the event.
pub fn json_payload(typed: bool, payload: &Value) -> Option<u64> {
    if typed {
        Some(
            payload
                .as_u64()
                .unwrap_or_else(|| panic!("the payload {payload} is not a drawn number")),
        )
    } else {
        None
    }
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 31;
    x = x.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    x ^= x >> 29;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 32)
}

/// Guard `index`'s value in `ctx`, with `payload` when the guard has a
/// payload type.
pub fn guard_value(index: usize, ctx: &Ctx, payload: Option<u64>) -> bool {
    let payload = payload.map_or(0x5555, |p| p.wrapping_add(1));
    let x = (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ ctx.chain.wrapping_mul(0xBF58_476D_1CE4_E5B9)
        ^ payload.wrapping_mul(0x94D0_49BB_1331_11EB);
    mix(x) & 1 == 1
}

/// Effect `name`'s update of `ctx`, with `payload` when the effect has a
/// payload type.
pub fn run_effect(name: &str, ctx: &mut Ctx, payload: Option<u64>) {
    let mut x = ctx.chain ^ 0xA076_1D64_78BD_642F;
    for byte in name.bytes() {
        x = mix(x ^ u64::from(byte));
    }
    ctx.chain = mix(x ^ payload.map_or(0x5555, |p| p.wrapping_add(1)));
    ctx.log.push(match payload {
        Some(p) => format!("{name}({p})"),
        None => name.to_owned(),
    });
}

/// Delay `index`'s duration in `ctx`: whole and fractional milliseconds,
/// from about 1 ms to about 20 s.
pub fn delay_value(index: usize, ctx: &Ctx) -> Duration {
    Duration::from_micros(500 + 1_000 * (mix(ctx.chain ^ index as u64) % 20_000))
}

/// A payload type of the generated code, built from and read back as the
/// number drawn for the event: `seed(from_seed(n)) == n` for the numbers
/// drawn (below 4).
pub trait TestPayload {
    /// The value for the number `seed`.
    fn from_seed(seed: u64) -> Self;
    /// The number this value was built from.
    fn seed(&self) -> u64;
}

/// Every payload type a machine names that is not a standard type
/// (`Decision`, `ToolResult`): `build.rs` aliases each of them to this.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token(pub u64);

impl TestPayload for Token {
    fn from_seed(seed: u64) -> Self {
        Token(seed)
    }
    fn seed(&self) -> u64 {
        self.0
    }
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl TestPayload for $t {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
            fn from_seed(seed: u64) -> Self {
                seed as $t
            }
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            fn seed(&self) -> u64 {
                *self as u64
            }
        }
    )*};
}
numbers!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

impl TestPayload for bool {
    fn from_seed(seed: u64) -> Self {
        assert!(seed < 2, "a bool payload holds 0 or 1, not {seed}");
        seed == 1
    }
    fn seed(&self) -> u64 {
        u64::from(*self)
    }
}

impl TestPayload for char {
    fn from_seed(seed: u64) -> Self {
        char::from_u32(u32::try_from(seed).expect("a small seed") + u32::from('a')).expect("a letter")
    }
    fn seed(&self) -> u64 {
        u64::from(*self as u32 - u32::from('a'))
    }
}

impl TestPayload for String {
    fn from_seed(seed: u64) -> Self {
        format!("payload {seed}")
    }
    fn seed(&self) -> u64 {
        self.strip_prefix("payload ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{self:?} is not a payload this test built"))
    }
}

/// `None` for 0, `Some` of the one before otherwise.
impl<T: TestPayload> TestPayload for Option<T> {
    fn from_seed(seed: u64) -> Self {
        seed.checked_sub(1).map(T::from_seed)
    }
    fn seed(&self) -> u64 {
        self.as_ref().map_or(0, |v| v.seed() + 1)
    }
}

/// As many elements as the seed, numbered from 0.
impl<T: TestPayload> TestPayload for Vec<T> {
    fn from_seed(seed: u64) -> Self {
        (0..seed).map(T::from_seed).collect()
    }
    fn seed(&self) -> u64 {
        for (i, v) in self.iter().enumerate() {
            assert_eq!(v.seed(), i as u64, "element {i} of a built Vec payload");
        }
        self.len() as u64
    }
}

impl<T: TestPayload> TestPayload for Box<T> {
    fn from_seed(seed: u64) -> Self {
        Box::new(T::from_seed(seed))
    }
    fn seed(&self) -> u64 {
        (**self).seed()
    }
}

/// Every element built from the seed (an empty array cannot carry one).
impl<T: TestPayload, const N: usize> TestPayload for [T; N] {
    fn from_seed(seed: u64) -> Self {
        assert!(N > 0, "an empty array payload carries no seed");
        std::array::from_fn(|_| T::from_seed(seed))
    }
    fn seed(&self) -> u64 {
        same_seeds(self.iter().map(TestPayload::seed))
    }
}

/// The seed every element agrees on.
fn same_seeds(mut seeds: impl Iterator<Item = u64>) -> u64 {
    let first = seeds.next().expect("a payload with parts");
    for other in seeds {
        assert_eq!(other, first, "the parts of a built payload disagree");
    }
    first
}

macro_rules! tuples {
    ($(($($t:ident $i:tt),+)),*) => {$(
        /// Every element built from the seed.
        impl<$($t: TestPayload),+> TestPayload for ($($t,)+) {
            fn from_seed(seed: u64) -> Self {
                ($($t::from_seed(seed),)+)
            }
            fn seed(&self) -> u64 {
                same_seeds([$(self.$i.seed()),+].into_iter())
            }
        }
    )*};
}
tuples!((A 0), (A 0, B 1), (A 0, B 1, C 2), (A 0, B 1, C 2, D 3));

/// What one step did, as names: the same for every implementation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// An action fired.
    Fired {
        from: String,
        to: String,
        outputs: Vec<String>,
    },
    /// An action was refused (invalid, or every guard false).
    Rejected,
    /// `fire_due`: each due timer group's outcome, in order.
    Timers(Vec<Due>),
}

/// What one due timer group did in `fire_due`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Due {
    /// A timer of the group fired.
    Fired {
        from: String,
        to: String,
        /// The state that declared the timer.
        declared_in: String,
        /// Its index among that state's timers.
        timer: usize,
        /// Its deadline, in Unix milliseconds.
        due: u64,
        outputs: Vec<String>,
        /// An internal timer (no target), as against one back to its state.
        internal: bool,
    },
    /// No guard of the group held: it was disarmed and nothing else
    /// happened.
    Rejected {
        state: String,
        declared_in: String,
        /// The index of the group's first timer (by priority, then
        /// declaration order) among `declared_in`'s timers.
        timer: usize,
        due: u64,
    },
}

/// The generated code of one machine as the timed test drives it:
/// `build.rs` writes one implementation per machine, for the API code
/// generation gives it (with or without a context, payloads, a clock).
pub trait TimedEngine {
    /// The name of the current state.
    fn state(&self) -> &'static str;
    /// Fire the action named `action`; a payload is built from `payload`.
    fn fire(&mut self, action: &str, payload: u64) -> Step;
    /// Fire every due timer.
    fn fire_due(&mut self) -> Step;
    /// The earliest deadline armed, in Unix milliseconds.
    fn next_deadline(&self) -> Option<u64>;
    /// The context (for a machine without one, the guards' [`Ctx`], which
    /// no effect changes).
    fn context(&self) -> &Ctx;
    /// A snapshot: the state, the context (for a machine with one), the
    /// armed timers and the history memory.
    fn snapshot(&self) -> fsm_runtime::Snapshot;
    /// The same machine restored from `snapshot`, timed by `clock`.
    fn restore(
        &self,
        snapshot: &fsm_runtime::Snapshot,
        clock: &fsm_runtime::ManualClock,
    ) -> Result<Box<dyn TimedEngine>, fsm_runtime::RestoreError>;
}

/// `from_seed`, checking that the payload reads back as its seed.
pub fn payload<T: TestPayload>(seed: u64) -> T {
    let value = T::from_seed(seed);
    assert_eq!(
        value.seed(),
        seed,
        "a payload built from {seed} reads back otherwise"
    );
    value
}

/// The name of a symbol of the generated code.
pub fn name<S: Symbol>(symbol: S) -> &'static str {
    symbol.name()
}

/// The names of symbols of the generated code.
pub fn names<S: Symbol>(symbols: &[S]) -> Vec<String> {
    symbols.iter().map(|s| s.name().to_owned()).collect()
}
