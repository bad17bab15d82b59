//! Numbers as people read them: the one place that turns durations, counts, rates and
//! percentages into text, for prose, tables, charts and `retrylab sim` alike, so that
//! the same number reads the same everywhere.
//!
//! One rule per kind of number:
//!
//! | kind | function | rule | examples |
//! |---|---|---|---|
//! | count | [`thousands`] | whole, a comma every three digits | `999`, `1,000`, `114,005` |
//! | setting duration | [`duration`] | exact, in the largest unit that divides it: `h`, then `min`, else seconds, milliseconds or microseconds with the decimals they need | `250 µs`, `999 ms`, `1 s`, `59.9 s`, `90 s`, `1 min`, `59 min`, `1 h`, `90 min` |
//! | measured time | [`seconds`] | seconds with one decimal, whatever the size, so that a column of them compares at a glance | `0.0 s`, `3.0 s`, `3600.0 s` |
//! | latency | [`latency`] | seconds with three decimals: a call's latency is often well under a second, and a tenth would hide it | `0.050 s`, `2.300 s` |
//! | axis time | [`seconds_fixed`] | seconds with as many decimals as the axis step needs ([`decimals_for`]) | `0.5`, `20` |
//! | thousandths | [`milli`] | the decimals they need, a comma every three whole digits | `0.1`, `2.5`, `1,000` |
//! | rate | [`per_second_milli`] | one decimal, a comma every three whole digits | `80.0`, `1,234.5` |
//! | other measured value | [`fixed`] | the decimals its kind needs (a tie to even), a comma every three whole digits | `2.95`, `1,234.6`, `-5` |
//! | ratio | [`per_client`] | two decimals (a tie to even), a comma every three whole digits; a dash for none | `2.95`, `1,000.00`, `–` |
//! | percentage | [`percent`] | whole, rounded half away from zero, no space | `0%`, `5%`, `100%` |
//!
//! A setting is a duration the author chose, and is shown as exactly: `1 h`, never
//! `60 min`. A measured time comes out of runs and is always seconds, never rounded to a
//! coarser unit that would hide how two strategies differ.

use crate::engine::units::{Micros, SECOND};

/// A whole number with thousands separators: `10,000,000`.
pub fn thousands(n: impl Into<u128>) -> String {
    let digits = n.into().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `value / scale` exactly, as a decimal with thousands separators and no trailing
/// zeros; `scale` is a power of ten.
fn exact(value: u64, scale: u64) -> String {
    let whole = thousands(value / scale);
    let frac = value % scale;
    if frac == 0 {
        return whole;
    }
    let width = scale.ilog10() as usize;
    let digits = format!("{frac:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// A duration an author set, exactly, in the largest unit that divides it: `250 µs`,
/// `1.5 ms`, `100 ms`, `1.5 s`, `90 s`, `2 min`, `1 h`; zero is `0 s`.
pub fn duration(us: Micros) -> String {
    const MINUTE: Micros = 60 * SECOND;
    const HOUR: Micros = 60 * MINUTE;
    if us == 0 {
        "0 s".to_string()
    } else if us.is_multiple_of(HOUR) {
        format!("{} h", thousands(us / HOUR))
    } else if us.is_multiple_of(MINUTE) {
        format!("{} min", thousands(us / MINUTE))
    } else if us >= SECOND {
        format!("{} s", exact(us, SECOND))
    } else if us >= 1_000 {
        format!("{} ms", exact(us, 1_000))
    } else {
        format!("{us} µs")
    }
}

/// Microseconds as seconds with one decimal, without the unit: `12.3`.
pub fn seconds_number(us: Micros) -> String {
    seconds_fixed(us, 1)
}

/// A measured time: seconds with one decimal and the unit, `12.3 s`.
pub fn seconds(us: Micros) -> String {
    format!("{} s", seconds_number(us))
}

/// Microseconds of latency as seconds with three decimals, without the unit: `0.250`.
pub fn latency_number(us: Micros) -> String {
    seconds_fixed(us, 3)
}

/// A measured latency: seconds with three decimals and the unit, `0.250 s`.
pub fn latency(us: Micros) -> String {
    format!("{} s", latency_number(us))
}

/// Microseconds as seconds with exactly `decimals` places (at most 6), rounded half up,
/// by integer arithmetic: `seconds_fixed(2_950_000, 1)` is `3.0`.
pub fn seconds_fixed(us: Micros, decimals: u32) -> String {
    let decimals = decimals.min(6);
    if decimals == 0 {
        return (us / SECOND + u64::from(us % SECOND >= SECOND / 2)).to_string();
    }
    let whole = us / SECOND;
    let unit = 10u64.pow(6 - decimals);
    let frac = (us % SECOND + unit / 2) / unit;
    let (whole, frac) = if frac == 10u64.pow(decimals) {
        (whole + 1, 0)
    } else {
        (whole, frac)
    };
    format!("{whole}.{frac:0width$}", width = decimals as usize)
}

/// The decimals needed to write multiples of `step` µs as seconds exactly (0 to 6).
pub fn decimals_for(step: Micros) -> u32 {
    (0..6)
        .find(|&d| step.is_multiple_of(10u64.pow(6 - d)))
        .unwrap_or(6)
}

/// Thousandths (a capacity, a cost, a rate an author set) as the decimal they are:
/// `100` is `0.1`, `2_500` is `2.5`, `1_000_000` is `1,000`.
pub fn milli(milli: u64) -> String {
    exact(milli, 1_000)
}

/// A rate given in thousandths per second, with one decimal and thousands separators:
/// 80000 is "80.0".
pub fn per_second_milli(milli: u64) -> String {
    let tenths = (milli + 50) / 100;
    format!("{}.{}", thousands(tenths / 10), tenths % 10)
}

/// A measured value with `decimals` places (a tie to even, as Rust writes floats) and
/// thousands separators on its whole part: `fixed(1234.56, 1)` is `1,234.6`; a value
/// that is not finite, or too large for a whole number, as Rust writes it.
pub fn fixed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let (whole, frac) = match digits.split_once('.') {
        Some((whole, frac)) => (whole, Some(frac)),
        None => (digits, None),
    };
    let Ok(whole) = whole.parse::<u128>() else {
        return text;
    };
    match frac {
        Some(frac) => format!("{sign}{}.{frac}", thousands(whole)),
        None => format!("{sign}{}", thousands(whole)),
    }
}

/// Calls per client, two decimals and thousands separators: `2.95`; a dash when there
/// are no clients to divide by.
pub fn per_client(calls: u64, clients: u64) -> String {
    if clients == 0 {
        return "–".to_string();
    }
    fixed(calls as f64 / clients as f64, 2)
}

/// `part` of `whole` as a whole percentage: `5%`; `0%` of nothing.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".to_string();
    }
    // Half away from zero, by integer arithmetic.
    let rounded = (u128::from(part) * 200 + u128::from(whole)) / (u128::from(whole) * 2);
    format!("{rounded}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_have_a_separator_every_three_digits() {
        assert_eq!(thousands(0u64), "0");
        assert_eq!(thousands(999u64), "999");
        assert_eq!(thousands(1_000u64), "1,000");
        assert_eq!(thousands(114_005u64), "114,005");
        assert_eq!(thousands(6_000_000_000_000u128), "6,000,000,000,000");
    }

    #[test]
    fn durations_take_the_largest_unit_that_divides_them() {
        assert_eq!(duration(0), "0 s");
        assert_eq!(duration(1), "1 µs");
        assert_eq!(duration(999), "999 µs");
        assert_eq!(duration(1_000), "1 ms");
        assert_eq!(duration(1_500), "1.5 ms");
        assert_eq!(duration(999_000), "999 ms");
        assert_eq!(duration(SECOND), "1 s");
        assert_eq!(duration(1_500_000), "1.5 s");
        assert_eq!(duration(59_900_000), "59.9 s");
        assert_eq!(duration(60 * SECOND), "1 min");
        assert_eq!(duration(90 * SECOND), "90 s");
        assert_eq!(duration(120 * SECOND), "2 min");
        assert_eq!(duration(59 * 60 * SECOND), "59 min");
        assert_eq!(duration(3_599 * SECOND + 500_000), "3,599.5 s");
        assert_eq!(duration(3_600 * SECOND), "1 h");
        assert_eq!(duration(61 * 60 * SECOND), "61 min");
        assert_eq!(duration(7_200 * SECOND), "2 h");
    }

    #[test]
    fn latencies_are_seconds_to_the_millisecond() {
        assert_eq!(latency(0), "0.000 s");
        assert_eq!(latency(50_000), "0.050 s");
        assert_eq!(latency(1_499), "0.001 s");
        assert_eq!(latency(1_500), "0.002 s");
        assert_eq!(latency(2_300_000), "2.300 s");
        assert_eq!(latency_number(999_999), "1.000");
    }

    #[test]
    fn measured_times_are_seconds_with_one_decimal() {
        assert_eq!(seconds(0), "0.0 s");
        assert_eq!(seconds(949), "0.0 s");
        assert_eq!(seconds(999_000), "1.0 s");
        assert_eq!(seconds(2_950_000), "3.0 s");
        assert_eq!(seconds(42_700_000), "42.7 s");
        assert_eq!(seconds(59_950_000), "60.0 s");
        assert_eq!(seconds(3_600 * SECOND), "3600.0 s");
        assert_eq!(seconds_number(12_340_000), "12.3");
    }

    #[test]
    fn axis_times_have_the_decimals_of_their_step() {
        assert_eq!(seconds_fixed(2_950_000, 1), "3.0");
        assert_eq!(seconds_fixed(20_000_000, 0), "20");
        assert_eq!(seconds_fixed(499_999, 0), "0");
        assert_eq!(seconds_fixed(500_000, 0), "1");
        assert_eq!(seconds_fixed(1_250, 6), "0.001250");
        assert_eq!(decimals_for(SECOND), 0);
        assert_eq!(decimals_for(500_000), 1);
        assert_eq!(decimals_for(250_000), 2);
        assert_eq!(decimals_for(1), 6);
    }

    #[test]
    fn thousandths_rates_and_ratios() {
        assert_eq!(milli(0), "0");
        assert_eq!(milli(100), "0.1");
        assert_eq!(milli(2_500), "2.5");
        assert_eq!(milli(10_000), "10");
        assert_eq!(milli(999_999), "999.999");
        assert_eq!(milli(1_000_000), "1,000");
        assert_eq!(per_second_milli(80_000), "80.0");
        assert_eq!(per_second_milli(49), "0.0");
        assert_eq!(per_second_milli(50), "0.1");
        assert_eq!(per_second_milli(1_234_500), "1,234.5");
        assert_eq!(per_client(295, 100), "2.95");
        assert_eq!(per_client(2, 3), "0.67");
        assert_eq!(per_client(1, 200), "0.01");
        assert_eq!(per_client(1, 201), "0.00");
        assert_eq!(per_client(1, 8), "0.12");
        assert_eq!(per_client(100_000, 100), "1,000.00");
        assert_eq!(per_client(5, 0), "–");
    }

    #[test]
    fn measured_values_have_fixed_decimals_and_separators() {
        assert_eq!(fixed(0.0, 1), "0.0");
        assert_eq!(fixed(999.94, 1), "999.9");
        assert_eq!(fixed(999.96, 1), "1,000.0");
        assert_eq!(fixed(1234.56, 1), "1,234.6");
        assert_eq!(fixed(0.125, 2), "0.12");
        assert_eq!(fixed(-1500.0, 0), "-1,500");
        assert_eq!(fixed(f64::NAN, 1), "NaN");
    }

    #[test]
    fn percentages_are_whole() {
        assert_eq!(percent(0, 0), "0%");
        assert_eq!(percent(1, 2_000), "0%");
        assert_eq!(percent(1, 200), "1%");
        assert_eq!(percent(5, 100), "5%");
        assert_eq!(percent(199, 200), "100%");
        assert_eq!(percent(100, 100), "100%");
    }
}
