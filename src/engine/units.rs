//! Exact reading of durations (`250us`, `1.5s`) and of decimals with at most three places.
//!
//! Both are parsed from their text, never through a float, so `0.3s` is 300,000 µs exactly
//! and `0.1` is 100 thousandths exactly.

/// Microseconds: the engine's unit of time.
pub type Micros = u64;

/// One second in microseconds.
pub const SECOND: Micros = 1_000_000;

/// The units a duration may carry, longest suffix first so that `ms` wins over `s`.
const UNITS: &[(&str, Micros)] = &[
    ("us", 1),
    ("µs", 1),
    ("ms", 1_000),
    ("s", SECOND),
    ("m", 60 * SECOND),
    ("h", 3_600 * SECOND),
];

/// Why a duration or decimal could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitError {
    /// The text is not of the expected shape.
    Malformed,
    /// The duration has no unit.
    NoUnit,
    /// The duration is finer than a microsecond.
    TooFine,
    /// The decimal has more than three places.
    TooManyDecimals,
    /// The value does not fit.
    TooLarge,
    /// The value is negative.
    Negative,
}

/// Splits `12.345` into (12, 345, 3); rejects signs other than a leading `-`
/// (reported as [`UnitError::Negative`]), exponents and empty parts.
fn split_decimal(text: &str) -> Result<(u64, u64, u32), UnitError> {
    if text.starts_with('-') {
        return Err(UnitError::Negative);
    }
    let text = text.strip_prefix('+').unwrap_or(text);
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, f),
        None => (text, ""),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return Err(UnitError::Malformed);
    }
    if text.ends_with('.') && frac.is_empty() {
        return Err(UnitError::Malformed);
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > 18 {
        return Err(UnitError::TooFine);
    }
    let int = if int.is_empty() {
        0
    } else {
        int.parse::<u64>().map_err(|_| UnitError::TooLarge)?
    };
    let places = frac.len() as u32;
    let frac = if frac.is_empty() {
        0
    } else {
        frac.parse::<u64>().map_err(|_| UnitError::Malformed)?
    };
    Ok((int, frac, places))
}

/// Reads a duration such as `250us`, `100ms`, `1.5s`, `2m` or `1h` into microseconds.
pub fn parse_duration(text: &str) -> Result<Micros, UnitError> {
    let text = text.trim();
    let Some((number, scale)) = UNITS
        .iter()
        .find_map(|(unit, scale)| text.strip_suffix(unit).map(|n| (n.trim_end(), *scale)))
    else {
        return match split_decimal(text) {
            Ok(_) => Err(UnitError::NoUnit),
            Err(e) => Err(e),
        };
    };
    let (int, frac, places) = split_decimal(number)?;
    let whole = int.checked_mul(scale).ok_or(UnitError::TooLarge)?;
    let denominator = 10u128.pow(places);
    let part = u128::from(frac) * u128::from(scale);
    if part % denominator != 0 {
        return Err(UnitError::TooFine);
    }
    let part = u64::try_from(part / denominator).map_err(|_| UnitError::TooLarge)?;
    whole.checked_add(part).ok_or(UnitError::TooLarge)
}

/// Reads a non-negative decimal with at most three places into thousandths (`0.1` → 100).
pub fn parse_milli(text: &str) -> Result<u64, UnitError> {
    let (int, frac, places) = split_decimal(text.trim())?;
    if places > 3 {
        return Err(UnitError::TooManyDecimals);
    }
    let frac = frac * 10u64.pow(3 - places);
    int.checked_mul(1000)
        .and_then(|v| v.checked_add(frac))
        .ok_or(UnitError::TooLarge)
}

/// Writes microseconds back in the largest unit that keeps them exact (`1500000` → `1.5s`).
pub fn format_duration(us: Micros) -> String {
    if us == 0 {
        return "0s".to_string();
    }
    for (unit, scale) in [("h", 3_600 * SECOND), ("m", 60 * SECOND)] {
        if us.is_multiple_of(scale) {
            return format!("{}{unit}", us / scale);
        }
    }
    if us >= SECOND {
        let secs = format!("{}.{:06}", us / SECOND, us % SECOND);
        return format!("{}s", secs.trim_end_matches('0').trim_end_matches('.'));
    }
    if !us.is_multiple_of(1000) {
        return format!("{us}us");
    }
    format!("{}ms", us / 1000)
}

/// Writes thousandths back as a short decimal (`100` → `0.1`).
pub fn format_milli(milli: u64) -> String {
    let text = format!("{}.{:03}", milli / 1000, milli % 1000);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_exact() {
        assert_eq!(parse_duration("250us"), Ok(250));
        assert_eq!(parse_duration("100ms"), Ok(100_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000));
        assert_eq!(parse_duration("0.3s"), Ok(300_000));
        assert_eq!(parse_duration("2m"), Ok(120_000_000));
        assert_eq!(parse_duration("1h"), Ok(3_600_000_000));
        assert_eq!(parse_duration("0s"), Ok(0));
        assert_eq!(parse_duration(".5s"), Ok(500_000));
        assert_eq!(parse_duration("1.0000005ms"), Err(UnitError::TooFine));
        assert_eq!(parse_duration("0.5us"), Err(UnitError::TooFine));
        assert_eq!(parse_duration("100"), Err(UnitError::NoUnit));
        assert_eq!(parse_duration("fast"), Err(UnitError::Malformed));
        assert_eq!(parse_duration("1e3ms"), Err(UnitError::Malformed));
        assert_eq!(parse_duration("-1s"), Err(UnitError::Negative));
        assert_eq!(parse_duration("5."), Err(UnitError::Malformed));
        assert_eq!(
            parse_duration("99999999999999999999h"),
            Err(UnitError::TooLarge)
        );
        assert_eq!(
            parse_duration("9999999999999999h"),
            Err(UnitError::TooLarge)
        );
    }

    #[test]
    fn decimals_are_exact_thousandths() {
        assert_eq!(parse_milli("0.1"), Ok(100));
        assert_eq!(parse_milli("10"), Ok(10_000));
        assert_eq!(parse_milli("2.5"), Ok(2_500));
        assert_eq!(parse_milli("0.125"), Ok(125));
        assert_eq!(parse_milli("0.1250"), Ok(125));
        assert_eq!(parse_milli("0.0001"), Err(UnitError::TooManyDecimals));
        assert_eq!(parse_milli("-3"), Err(UnitError::Negative));
    }

    #[test]
    fn durations_format_back() {
        for (us, text) in [
            (250, "250us"),
            (100_000, "100ms"),
            (1_500_000, "1.5s"),
            (120_000_000, "2m"),
            (3_000_000, "3s"),
            (1_000_250, "1.00025s"),
            (0, "0s"),
        ] {
            assert_eq!(format_duration(us), text);
            assert_eq!(parse_duration(text), Ok(us));
        }
        assert_eq!(format_milli(100), "0.1");
        assert_eq!(format_milli(10_000), "10");
    }
}
