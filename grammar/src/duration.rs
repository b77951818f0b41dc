//! Timer durations: `250ms`, `30s`, `10m`, `2h`, from 1 ms to a week.

use core::time::Duration;

/// The longest timer: a week. Longer waits belong in a scheduler, and a
/// bound keeps deadlines far from overflow.
pub const MAX: Duration = Duration::from_secs(7 * 24 * 3600);

/// Read a duration literal (digits then a unit), or say what is wrong
/// with it, in a few words fit for a diagnostic's label.
pub fn parse(literal: &str) -> Result<Duration, String> {
    let digits = literal.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = literal.split_at(digits);
    let millis_per_unit: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" => return Err("no unit".into()),
        _ => return Err(format!("unknown unit `{unit}`")),
    };
    let max_ms = MAX.as_millis() as u64;
    let value = number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(millis_per_unit))
        .filter(|&ms| ms <= max_ms)
        .ok_or_else(|| "longer than a week".to_string())?;
    if value == 0 {
        return Err("zero".into());
    }
    Ok(Duration::from_millis(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_bounds() {
        assert_eq!(parse("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse("168h"), Ok(MAX));
        assert_eq!(parse("169h"), Err("longer than a week".into()));
        assert_eq!(parse("99999999999999999999s"), Err("longer than a week".into()));
        assert_eq!(parse("0s"), Err("zero".into()));
        assert_eq!(parse("30"), Err("no unit".into()));
        assert_eq!(parse("3d"), Err("unknown unit `d`".into()));
    }
}
