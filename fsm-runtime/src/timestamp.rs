//! UTC timestamps written as RFC 3339, without a date-time dependency.

#[cfg(feature = "alloc")]
use alloc::{borrow::ToOwned, string::String};
use core::fmt;
use core::str::FromStr;
#[cfg(feature = "std")]
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const MILLIS_PER_SECOND: u64 = 1_000;
const MILLIS_PER_DAY: u64 = 86_400 * MILLIS_PER_SECOND;
/// `9999-12-31T23:59:59.999Z`: RFC 3339 has four-digit years.
const MAX_MILLIS: u64 = 253_402_300_799_999;

/// A point in time in UTC, with millisecond precision, between
/// `1970-01-01T00:00:00.000Z` and `9999-12-31T23:59:59.999Z`.
///
/// It displays (and, with the `serde` feature, serializes) as RFC 3339 in UTC
/// with exactly three fractional digits, `2026-01-10T09:32:15.000Z`, so that
/// timestamps sort as text in time order. It parses any RFC 3339 timestamp
/// in that range: a `Z` or a numeric offset (converted to UTC), with or
/// without a fraction (digits past the millisecond are dropped).
///
/// ```
/// use fsm_runtime::Timestamp;
///
/// let at = Timestamp::from_unix_millis(1_768_037_535_000).unwrap();
/// assert_eq!(at.to_string(), "2026-01-10T09:32:15.000Z");
/// assert_eq!("2026-01-10T10:32:15+01:00".parse(), Ok(at));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    unix_millis: u64,
}

impl Timestamp {
    /// `1970-01-01T00:00:00.000Z`, the earliest timestamp.
    pub const UNIX_EPOCH: Timestamp = Timestamp { unix_millis: 0 };

    /// `9999-12-31T23:59:59.999Z`, the latest timestamp.
    pub const MAX: Timestamp = Timestamp {
        unix_millis: MAX_MILLIS,
    };

    /// The timestamp `unix_millis` milliseconds after the Unix epoch, or
    /// `None` past [`Timestamp::MAX`].
    pub const fn from_unix_millis(unix_millis: u64) -> Option<Timestamp> {
        if unix_millis <= MAX_MILLIS {
            Some(Timestamp { unix_millis })
        } else {
            None
        }
    }

    /// Milliseconds since the Unix epoch.
    pub const fn unix_millis(self) -> u64 {
        self.unix_millis
    }

    /// The current time, from the system clock.
    #[cfg(feature = "std")]
    pub fn now() -> Timestamp {
        Timestamp::from_system_time(SystemTime::now())
    }

    /// `time`, truncated to the millisecond. A time before 1970 (a badly set
    /// clock) becomes [`Timestamp::UNIX_EPOCH`] and one after 9999 becomes
    /// [`Timestamp::MAX`], since RFC 3339 cannot write either.
    #[cfg(feature = "std")]
    pub fn from_system_time(time: SystemTime) -> Timestamp {
        let unix_millis = time
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX));
        Timestamp {
            unix_millis: unix_millis.min(MAX_MILLIS),
        }
    }

    /// The same instant as a [`SystemTime`].
    #[cfg(feature = "std")]
    pub fn to_system_time(self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.unix_millis)
    }
}

#[cfg(feature = "std")]
impl From<SystemTime> for Timestamp {
    /// See [`Timestamp::from_system_time`].
    fn from(time: SystemTime) -> Timestamp {
        Timestamp::from_system_time(time)
    }
}

#[cfg(feature = "std")]
impl From<Timestamp> for SystemTime {
    fn from(timestamp: Timestamp) -> SystemTime {
        timestamp.to_system_time()
    }
}

/// `2026-01-10T09:32:15.000Z`
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.unix_millis / MILLIS_PER_DAY;
        let in_day = self.unix_millis % MILLIS_PER_DAY;
        // At most 3,652,058 days: always fits.
        let (year, month, day) = civil_from_days(days as i64);
        let seconds = in_day / MILLIS_PER_SECOND;
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60,
            in_day % MILLIS_PER_SECOND
        )
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({self})")
    }
}

impl FromStr for Timestamp {
    type Err = ParseTimestampError;

    fn from_str(text: &str) -> Result<Timestamp, ParseTimestampError> {
        parse(text).map_err(|problem| ParseTimestampError {
            #[cfg(feature = "alloc")]
            input: text.to_owned(),
            problem,
        })
    }
}

/// Text that is not an RFC 3339 timestamp [`Timestamp`] can hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseTimestampError {
    #[cfg(feature = "alloc")]
    input: String,
    problem: &'static str,
}

impl ParseTimestampError {
    /// The text that failed to parse (feature `alloc`: without it, the
    /// error keeps only what is wrong with it).
    #[cfg(feature = "alloc")]
    pub fn input(&self) -> &str {
        &self.input
    }
}

impl fmt::Display for ParseTimestampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        #[cfg(feature = "alloc")]
        write!(f, "`{}` is not", self.input)?;
        #[cfg(not(feature = "alloc"))]
        f.write_str("the text is not")?;
        write!(
            f,
            " an RFC 3339 timestamp like `2026-01-10T09:32:15Z`: {}",
            self.problem
        )
    }
}

impl core::error::Error for ParseTimestampError {}

/// Reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
fn parse(text: &str) -> Result<Timestamp, &'static str> {
    let mut cursor = Cursor(text.as_bytes());
    let year = cursor.digits(4, "the year must have four digits")?;
    cursor.expect(b'-', "expected `-` after the year")?;
    let month = cursor.digits(2, "the month must have two digits")?;
    cursor.expect(b'-', "expected `-` after the month")?;
    let day = cursor.digits(2, "the day must have two digits")?;
    if !(cursor.eat(b'T') || cursor.eat(b't')) {
        return Err("expected `T` between the date and the time");
    }
    let hour = cursor.digits(2, "the hour must have two digits")?;
    cursor.expect(b':', "expected `:` after the hour")?;
    let minute = cursor.digits(2, "the minute must have two digits")?;
    cursor.expect(b':', "expected `:` after the minute")?;
    let second = cursor.digits(2, "the second must have two digits")?;
    let mut millis = 0;
    if cursor.eat(b'.') {
        let fraction = cursor.take_digits();
        if fraction.is_empty() {
            return Err("expected digits after `.`");
        }
        for position in 0..3 {
            millis = millis * 10 + fraction.get(position).map_or(0, |&d| u64::from(d - b'0'));
        }
    }
    // Seconds east of UTC.
    let offset: i64 = if cursor.eat(b'Z') || cursor.eat(b'z') {
        0
    } else {
        let sign = if cursor.eat(b'+') {
            1
        } else if cursor.eat(b'-') {
            -1
        } else {
            return Err("expected `Z` or an offset like `+01:00` after the time");
        };
        let hours = cursor.digits(2, "the offset's hours must have two digits")?;
        cursor.expect(b':', "expected `:` in the offset")?;
        let minutes = cursor.digits(2, "the offset's minutes must have two digits")?;
        if hours > 23 || minutes > 59 {
            return Err("the offset is out of range");
        }
        sign * (hours * 3600 + minutes * 60) as i64
    };
    if !cursor.0.is_empty() {
        return Err("unexpected text after the timestamp");
    }

    if !(1..=12).contains(&month) {
        return Err("the month must be between 01 and 12");
    }
    if day == 0 || day > days_in_month(year, month) {
        return Err("the day does not exist in that month");
    }
    if hour > 23 || minute > 59 {
        return Err("the time of day is out of range");
    }
    if second == 60 {
        return Err("leap seconds are not supported");
    }
    if second > 59 {
        return Err("the second must be between 00 and 59");
    }

    let days = days_from_civil(year as i64, month, day);
    let seconds = days * 86_400 + (hour * 3600 + minute * 60 + second) as i64 - offset;
    u64::try_from(seconds)
        .ok()
        .and_then(|seconds| Timestamp::from_unix_millis(seconds * MILLIS_PER_SECOND + millis))
        .ok_or("it is outside the years 1970 to 9999 in UTC")
}

/// The unread rest of the text.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn eat(&mut self, byte: u8) -> bool {
        match self.0.split_first() {
            Some((&first, rest)) if first == byte => {
                self.0 = rest;
                true
            }
            _ => false,
        }
    }

    fn expect(&mut self, byte: u8, problem: &'static str) -> Result<(), &'static str> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(problem)
        }
    }

    /// Exactly `count` ASCII digits, as a number.
    fn digits(&mut self, count: usize, problem: &'static str) -> Result<u64, &'static str> {
        let digits = self.take_digits();
        if digits.len() != count {
            return Err(problem);
        }
        Ok(digits
            .iter()
            .fold(0, |value, &digit| value * 10 + u64::from(digit - b'0')))
    }

    fn take_digits(&mut self) -> &[u8] {
        let end = self
            .0
            .iter()
            .position(|byte| !byte.is_ascii_digit())
            .unwrap_or(self.0.len());
        let (digits, rest) = self.0.split_at(end);
        self.0 = rest;
        digits
    }
}

fn is_leap_year(year: u64) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date in the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u64, day: u64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month_from_march = (month + 9) % 12;
    let day_of_year = ((153 * month_from_march + 2) / 5 + day - 1) as i64;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` days after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u64, u64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u64;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u64;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::Timestamp;
    #[allow(unused_imports)]
    use crate::prelude::*;
    use serde::de::{self, Deserializer, Visitor};
    use serde::ser::Serializer;
    use std::fmt;

    impl serde::Serialize for Timestamp {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_str(self)
        }
    }

    impl<'de> serde::Deserialize<'de> for Timestamp {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_str(TimestampVisitor)
        }
    }

    struct TimestampVisitor;

    impl Visitor<'_> for TimestampVisitor {
        type Value = Timestamp;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an RFC 3339 timestamp")
        }

        fn visit_str<E: de::Error>(self, text: &str) -> Result<Timestamp, E> {
            text.parse().map_err(E::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{civil_from_days, days_from_civil, Timestamp, MAX_MILLIS};
    use crate::prelude::*;

    #[test]
    fn calendar_conversions_are_inverse_across_the_range() {
        let last_day = (MAX_MILLIS / super::MILLIS_PER_DAY) as i64;
        // Every day of the first 1000 years and a stride through the rest,
        // which crosses every kind of leap-year rule.
        let days = (0..366_000)
            .chain((366_000..=last_day).step_by(997))
            .chain([last_day]);
        for days in days {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(days_from_civil(year, month, day), days, "{year}-{month}-{day}");
        }
        assert_eq!(civil_from_days(last_day), (9999, 12, 31));
    }

    #[test]
    fn the_extremes_display() {
        assert_eq!(Timestamp::UNIX_EPOCH.to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(Timestamp::MAX.to_string(), "9999-12-31T23:59:59.999Z");
        assert_eq!("9999-12-31T23:59:59.999Z".parse(), Ok(Timestamp::MAX));
    }
}
