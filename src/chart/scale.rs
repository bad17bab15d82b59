//! Axis scales for the line and wait charts: linear, or logarithmic where values span
//! orders of magnitude, so that 25 and 200 do not share the left edge of an axis that
//! runs to 2,000. A log axis can still show zero: it then gets a slot of its own at the
//! start, before a break in the axis.

use crate::format::fixed;

/// The share of a log axis's length that the zero slot takes, when it has one.
const ZERO_SLOT: f64 = 0.12;

/// An axis's scale: where values fall, and its ticks.
#[derive(Clone, Debug)]
pub(crate) struct Scale {
    /// The value at the start (for a log scale, the smallest value above zero).
    pub(crate) lo: f64,
    /// The value at the end.
    pub(crate) hi: f64,
    /// Logarithmic (base ten) rather than linear.
    pub(crate) log: bool,
    /// On a log scale: zero sits in a slot of its own at the start.
    pub(crate) zero: bool,
    /// The ticks that may be labelled, with their labels, in order of value.
    pub(crate) ticks: Vec<(f64, String)>,
}

impl Scale {
    /// The scale for `values`: logarithmic when `log_ok` and the values above zero span
    /// at least `ratio` (with a zero slot when some value is zero), else linear with
    /// about `count` tidy ticks, from zero when zero is not far off.
    pub(crate) fn of(values: &[f64], count: f64, log_ok: bool, ratio: f64) -> Scale {
        let finite = || values.iter().copied().filter(|v| v.is_finite());
        let min = finite().fold(f64::INFINITY, f64::min);
        let max = finite().fold(f64::NEG_INFINITY, f64::max);
        if !min.is_finite() {
            return Scale::linear(0.0, 1.0, count);
        }
        let positive = finite().filter(|&v| v > 0.0).fold(f64::INFINITY, f64::min);
        let distinct_positive = finite().filter(|&v| v > 0.0).any(|v| v != positive);
        if log_ok
            && min >= 0.0
            && positive.is_finite()
            && distinct_positive
            && max / positive >= ratio
        {
            return Scale::log(positive, max, min == 0.0);
        }
        Scale::linear(min, max, count)
    }

    /// A linear scale over `[min, max]` with about `count` tidy ticks, from zero when
    /// zero is not far off.
    pub(crate) fn linear(min: f64, max: f64, count: f64) -> Scale {
        let min = if min >= 0.0 && min <= max / 2.0 {
            0.0
        } else {
            min
        };
        let span = if max > min {
            max - min
        } else {
            max.abs().max(1.0)
        };
        let (step, decimals) = tidy_f64(span / count);
        let lo = (min / step).floor() * step;
        let mut hi = (max / step).ceil() * step;
        if hi <= lo {
            hi = lo + step;
        }
        let n = ((hi - lo) / step).round() as i64;
        let ticks = (0..=n)
            .map(|i| {
                let v = lo + i as f64 * step;
                (v, number(v, decimals))
            })
            .collect();
        Scale {
            lo,
            hi,
            log: false,
            zero: false,
            ticks,
        }
    }

    /// A log scale from the 1, 2 or 5 × a power of ten at or below `min` to the one at
    /// or above `max` (both above zero), ticked at every 1, 2 and 5; with a zero slot
    /// before it when `zero`.
    pub(crate) fn log(min: f64, max: f64, zero: bool) -> Scale {
        let lo = tidy_125(min, false);
        let hi = tidy_125(max, true).max(lo * 2.0);
        let mut ticks: Vec<(f64, String)> = Vec::new();
        if zero {
            ticks.push((0.0, "0".to_string()));
        }
        let mut k = lo.log10().floor() as i32;
        'decades: loop {
            for m in [1.0, 2.0, 5.0] {
                let v = m * 10f64.powi(k);
                if v > hi * (1.0 + 1e-9) {
                    break 'decades;
                }
                if v >= lo * (1.0 - 1e-9) {
                    ticks.push((v, number(v, (-k).max(0) as usize)));
                }
            }
            k += 1;
        }
        Scale {
            lo,
            hi,
            log: true,
            zero,
            ticks,
        }
    }

    /// Where a value falls, from 0 at the start to 1 at the end. On a log scale, zero
    /// falls at the start of its slot, and any value below `lo` at `lo`.
    pub(crate) fn at(&self, v: f64) -> f64 {
        if !self.log {
            return (v - self.lo) / (self.hi - self.lo);
        }
        let start = if self.zero { ZERO_SLOT } else { 0.0 };
        if self.zero && v <= 0.0 {
            return 0.0;
        }
        let v = v.max(self.lo);
        start + (1.0 - start) * (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
    }

    /// Where the break of a log axis with a zero slot falls, between zero and `lo`.
    pub(crate) fn gap(&self) -> Option<f64> {
        (self.log && self.zero).then_some(ZERO_SLOT / 2.0)
    }

    /// The ticks to label on an axis `length` units long, where a label needs `room(label)`
    /// units: all of them when they fit; on a log scale, else only those at 1 and 5, or
    /// at 1 (and zero); on a linear scale, else every second, fifth, … tick.
    pub(crate) fn labelled(&self, length: f64, room: impl Fn(&str) -> f64) -> Vec<(f64, String)> {
        let fits = |ticks: &[(f64, String)]| {
            ticks.windows(2).all(|w| {
                let gap = (self.at(w[1].0) - self.at(w[0].0)) * length;
                gap >= (room(&w[0].1) + room(&w[1].1)) / 2.0
            })
        };
        if self.log {
            let leading = |v: f64| (v / 10f64.powf(v.log10().floor())).round() as u32;
            for keep in [&[1, 2, 5][..], &[1, 5], &[1]] {
                let ticks: Vec<(f64, String)> = self
                    .ticks
                    .iter()
                    .filter(|(v, _)| *v == 0.0 || keep.contains(&leading(*v)))
                    .cloned()
                    .collect();
                if fits(&ticks) {
                    return ticks;
                }
            }
            let decades: Vec<(f64, String)> = self
                .ticks
                .iter()
                .filter(|(v, _)| *v == 0.0 || leading(*v) == 1)
                .cloned()
                .collect();
            return decades.into_iter().step_by(2).collect();
        }
        let mut every = 1;
        loop {
            let ticks: Vec<(f64, String)> = self.ticks.iter().step_by(every).cloned().collect();
            if ticks.len() <= 2 || fits(&ticks) {
                return ticks;
            }
            every = match every {
                1 => 2,
                2 => 5,
                n => n * 2,
            };
        }
    }
}

/// The 1, 2 or 5 × a power of ten nearest `v` (above zero) from below, or from above
/// when `up`.
fn tidy_125(v: f64, up: bool) -> f64 {
    let k = v.log10().floor() as i32;
    let candidates = [1.0, 2.0, 5.0, 10.0].map(|m| m * 10f64.powi(k));
    if up {
        candidates
            .into_iter()
            .find(|&c| c >= v * (1.0 - 1e-9))
            .unwrap_or(10f64.powi(k + 1))
    } else {
        candidates
            .into_iter()
            .rev()
            .find(|&c| c <= v * (1.0 + 1e-9))
            .unwrap_or(10f64.powi(k))
    }
}

/// The first of 1, 2, 5 × a power of ten at least `at_least` (positive), and the
/// decimals its multiples need.
fn tidy_f64(at_least: f64) -> (f64, usize) {
    let at_least = if at_least > 0.0 { at_least } else { 1.0 };
    let mut k = at_least.log10().floor() as i32 - 1;
    loop {
        for m in [1.0, 2.0, 5.0] {
            let step = m * 10f64.powi(k);
            if step >= at_least * (1.0 - 1e-9) {
                return (step, (-k).max(0) as usize);
            }
        }
        k += 1;
    }
}

/// A tick value with `decimals` places and thousands separators.
pub(crate) fn number(v: f64, decimals: usize) -> String {
    fixed(v, decimals)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(scale: &Scale) -> Vec<&str> {
        scale.ticks.iter().map(|t| t.1.as_str()).collect()
    }

    #[test]
    fn a_crowd_from_25_to_1600_gets_a_log_axis() {
        let scale = Scale::of(&[25.0, 50.0, 100.0, 1600.0], 6.0, true, 10.0);
        assert!(scale.log && !scale.zero);
        assert_eq!(
            labels(&scale),
            ["20", "50", "100", "200", "500", "1,000", "2,000"]
        );
        // 25 and 200 are far apart: a third of the axis and more.
        assert!(scale.at(200.0) - scale.at(25.0) > 0.4);
    }

    #[test]
    fn a_log_axis_with_zero_gives_it_a_slot() {
        let scale = Scale::of(&[0.0, 1.0, 3.0, 10.0, 30.0], 6.0, true, 10.0);
        assert!(scale.log && scale.zero);
        assert_eq!(scale.at(0.0), 0.0);
        assert!(scale.at(1.0) > scale.gap().unwrap());
        assert_eq!(labels(&scale)[0], "0");
        assert_eq!(scale.at(50.0), 1.0);
    }

    #[test]
    fn a_narrow_span_stays_linear_from_zero() {
        let scale = Scale::of(&[2.0, 3.0, 5.0], 5.0, true, 10.0);
        assert!(!scale.log);
        assert_eq!(scale.lo, 0.0);
        let scale = Scale::of(&[0.5, 20.0], 5.0, false, 10.0);
        assert!(!scale.log);
    }

    #[test]
    fn crowded_labels_are_thinned() {
        let scale = Scale::log(0.1, 10.0, false);
        let all = scale.labelled(1000.0, |_| 10.0);
        assert_eq!(all.len(), 7);
        let few: Vec<String> = scale
            .labelled(60.0, |_| 14.0)
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(few, ["0.1", "1", "10"]);
    }
}
