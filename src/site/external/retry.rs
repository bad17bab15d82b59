//! When to ask again: capped exponential backoff with full jitter, and the two forms of
//! `Retry-After` (RFC 9110 §10.2.3), a number of seconds or an HTTP date. Pure: the
//! clock and the random draw are given.

use std::time::{Duration, SystemTime};

/// The wait before retry `retry` (from 1): a draw in `[0, min(cap, base · 2^(retry-1))]`,
/// `unit` being a draw in `[0, 1)` ("full jitter").
pub fn backoff(base: Duration, cap: Duration, retry: u32, unit: f64) -> Duration {
    let doublings = retry.saturating_sub(1).min(31);
    let ceiling = base.saturating_mul(1 << doublings).min(cap);
    ceiling.mul_f64(unit.clamp(0.0, 1.0))
}

/// What a `Retry-After` value asks, at `now`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryAfter {
    /// Wait this long (a date in the past is no wait).
    Wait(Duration),
    /// A value that is neither form: the backoff decides.
    Unreadable,
}

/// Reads a `Retry-After` value: delta-seconds (`120`) or an HTTP date
/// (`Sun, 06 Nov 1994 08:49:37 GMT`, and the two obsolete forms). A number too large
/// for any clock is the longest wait there is, which no deadline reaches.
pub fn retry_after(value: &[u8], now: SystemTime) -> RetryAfter {
    let Ok(text) = std::str::from_utf8(value) else {
        return RetryAfter::Unreadable;
    };
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        let seconds = text.parse::<u64>().unwrap_or(u64::MAX);
        return RetryAfter::Wait(Duration::from_secs(seconds));
    }
    match httpdate::parse_http_date(text) {
        Ok(when) => RetryAfter::Wait(when.duration_since(now).unwrap_or(Duration::ZERO)),
        Err(_) => RetryAfter::Unreadable,
    }
}

/// A wait as a person reads it: `3 s`, `2 min 5 s`, `14 h`, `31,710 years`.
pub fn shown(wait: Duration) -> String {
    let s = wait.as_secs_f64();
    match wait.as_secs() {
        0 => format!("{:.1} s", s),
        n if n < 120 => format!("{n} s"),
        n if n < 7_200 => format!("{} min", n / 60),
        n if n < 172_800 => format!("{} h", n / 3_600),
        n if n < 63_072_000 => format!("{} days", n / 86_400),
        n => format!("{} years", crate::format::thousands(n / 31_536_000)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_cap_and_draws_below() {
        let (base, cap) = (Duration::from_secs(1), Duration::from_secs(30));
        assert_eq!(backoff(base, cap, 1, 1.0), Duration::from_secs(1));
        assert_eq!(backoff(base, cap, 3, 1.0), Duration::from_secs(4));
        assert_eq!(backoff(base, cap, 9, 1.0), cap);
        assert_eq!(backoff(base, cap, u32::MAX, 1.0), cap);
        assert_eq!(backoff(base, cap, 3, 0.5), Duration::from_secs(2));
        assert_eq!(backoff(base, cap, 3, 0.0), Duration::ZERO);
    }

    #[test]
    fn retry_after_in_both_forms() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let wait = |s: &str| retry_after(s.as_bytes(), now);
        assert_eq!(wait("120"), RetryAfter::Wait(Duration::from_secs(120)));
        assert_eq!(wait(" 0 "), RetryAfter::Wait(Duration::ZERO));
        assert_eq!(
            wait("Sun, 06 Nov 1994 08:50:37 GMT"),
            RetryAfter::Wait(Duration::from_secs(60))
        );
        assert_eq!(
            wait("Sunday, 06-Nov-94 08:49:47 GMT"),
            RetryAfter::Wait(Duration::from_secs(10))
        );
        // A date in the past (1970) is no wait; a number past any clock, the longest.
        assert_eq!(
            wait("Thu, 01 Jan 1970 00:00:00 GMT"),
            RetryAfter::Wait(Duration::ZERO)
        );
        assert_eq!(
            wait("99999999999999999999999"),
            RetryAfter::Wait(Duration::from_secs(u64::MAX))
        );
        assert_eq!(
            wait("1000000000000"),
            RetryAfter::Wait(Duration::from_secs(1_000_000_000_000))
        );
        for bad in ["", "-1", "1.5", "soon", "Sun, 99 Nov 1994 08:49:37 GMT"] {
            assert_eq!(wait(bad), RetryAfter::Unreadable, "{bad}");
        }
        assert_eq!(retry_after(b"\xff", now), RetryAfter::Unreadable);
        assert_eq!(
            shown(Duration::from_secs(1_000_000_000_000)),
            "31,709 years"
        );
    }
}
