//! Numbers as people read them: thousands separators, seconds with one decimal.

use crate::engine::units::SECOND;

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

/// Microseconds as seconds with one decimal, without the unit: `12.3`.
pub fn seconds_number(us: u64) -> String {
    format!("{:.1}", us as f64 / SECOND as f64)
}

/// Microseconds as seconds with one decimal and the unit: `12.3 s`.
pub fn seconds(us: u64) -> String {
    format!("{} s", seconds_number(us))
}

/// A rate given in thousandths per second, with one decimal and thousands separators:
/// 80000 is "80.0".
pub fn per_second_milli(milli: u64) -> String {
    let tenths = (milli + 50) / 100;
    format!("{}.{}", thousands(tenths / 10), tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(thousands(0u64), "0");
        assert_eq!(thousands(999u64), "999");
        assert_eq!(thousands(1_000u64), "1,000");
        assert_eq!(thousands(114_005u64), "114,005");
        assert_eq!(thousands(6_000_000_000_000u128), "6,000,000,000,000");
        assert_eq!(seconds(42_700_000), "42.7 s");
        assert_eq!(seconds(2_950_000), "3.0 s");
        assert_eq!(seconds(0), "0.0 s");
    }
}
