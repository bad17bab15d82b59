//! A total as a table writes it: one [`Cell`] per [`Value`], written as text for the
//! terminal table of `retrylab sim` and as HTML for the site's tables, so that the two
//! say the same thing in the same words.
//!
//! A cell is the median, with the 5th–95th percentile in brackets when they are written
//! differently from it (runs that differ below the cell's precision read as one value,
//! never as "0.96 (0.96–0.96)"), a time with its unit once after the median and once
//! after the range, "never" for a time too few runs have, and how many runs have it when
//! only some do.

use crate::engine::Value;
use crate::format::{latency_number, per_client, per_second_milli, seconds_number, thousands};

/// A total as a table cell, before it is written as text or HTML.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The median as written, without its unit; empty for "never".
    main: String,
    /// The 5th and 95th percentile as written, when either differs from the median.
    range: Option<(String, String)>,
    /// Whether the numbers are seconds.
    seconds: bool,
    /// How many runs of how many have the value, when only some do.
    runs: Option<(u32, u32)>,
}

impl Cell {
    /// The cell of `value`.
    pub fn of(value: &Value) -> Cell {
        let numbers = |spread: &crate::engine::Spread, write: &dyn Fn(u64) -> String| {
            let main = write(spread.median);
            let (p5, p95) = (write(spread.p5), write(spread.p95));
            let range = (p5 != main || p95 != main).then_some((p5, p95));
            (main, range)
        };
        let plain = |(main, range)| Cell {
            main,
            range,
            seconds: false,
            runs: None,
        };
        match *value {
            Value::Count { ref spread, .. } => plain(numbers(spread, &|n| thousands(n))),
            Value::PerClient {
                ref calls,
                requests,
            } => plain(numbers(calls, &|n| per_client(n, requests))),
            Value::RateMilli(ref spread) => plain(numbers(spread, &per_second_milli)),
            Value::Runs { count, .. } => plain((thousands(count), None)),
            Value::Time {
                ref spread,
                runs_with,
                runs,
                latency,
            } => {
                let write: &dyn Fn(u64) -> String = if latency {
                    &latency_number
                } else {
                    &seconds_number
                };
                match spread {
                    // "never": how many runs have a time, when any do.
                    None => Cell {
                        main: String::new(),
                        range: None,
                        seconds: false,
                        runs: (runs_with > 0).then_some((runs_with, runs)),
                    },
                    Some(spread) => {
                        let (main, range) = numbers(spread, write);
                        Cell {
                            main,
                            range,
                            seconds: true,
                            runs: (runs_with < runs).then_some((runs_with, runs)),
                        }
                    }
                }
            }
        }
    }

    /// The cell with its median alone, for a column kept narrow.
    pub fn median_only(mut self) -> Cell {
        self.range = None;
        self
    }

    /// The cell without its unit, for a column whose heading gives it.
    pub fn without_unit(mut self) -> Cell {
        self.seconds = false;
        self
    }

    /// The cell as plain text: `5,068 (4,956–5,166)`, `2.2 s (1.8–2.9 s), in 3 of 4
    /// runs` (the runs that have a time), `never in 49 of 50 runs` (the runs that have
    /// none).
    pub fn text(&self) -> String {
        self.write(" s", |range| format!(" ({range})"))
    }

    /// The cell as HTML (numbers and words of ours, which need no escaping): the unit
    /// joined to its number by a no-break space, and the range in a span that a narrow
    /// table may wrap onto a line of its own, never break inside.
    pub fn html(&self) -> String {
        self.write("&nbsp;s", |range| {
            format!(" <span class=\"range\">({range})</span>")
        })
    }

    fn write(&self, unit: &str, range: impl Fn(&str) -> String) -> String {
        let unit = if self.seconds { unit } else { "" };
        let mut out = if self.main.is_empty() {
            "never".to_string()
        } else {
            let mut out = format!("{}{unit}", self.main);
            if let Some((p5, p95)) = &self.range {
                out.push_str(&range(&format!("{p5}–{p95}{unit}")));
            }
            out
        };
        match self.runs {
            // "Never" counts the runs that never had it: "never, in 1 of 50 runs" would
            // read as its opposite.
            Some((with, runs)) if self.main.is_empty() => out.push_str(&format!(
                " in {} of {} runs",
                thousands(runs - with),
                thousands(runs)
            )),
            Some((with, runs)) => out.push_str(&format!(
                ", in {} of {} runs",
                thousands(with),
                thousands(runs)
            )),
            None => {}
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Spread;

    fn spread(p5: u64, median: u64, p95: u64) -> Spread {
        Spread { median, p5, p95 }
    }

    fn time(spread: Option<Spread>, runs_with: u32, runs: u32, latency: bool) -> Value {
        Value::Time {
            spread,
            runs_with,
            runs,
            latency,
        }
    }

    #[test]
    fn a_count_shows_its_range_when_runs_differ() {
        let count = |s| {
            Cell::of(&Value::Count {
                spread: s,
                of: None,
            })
        };
        assert_eq!(count(spread(7, 7, 7)).text(), "7");
        assert_eq!(
            count(spread(4_956, 5_068, 5_166)).text(),
            "5,068 (4,956–5,166)"
        );
        assert_eq!(
            count(spread(1, 2, 3)).html(),
            "2 <span class=\"range\">(1–3)</span>"
        );
        assert_eq!(count(spread(1, 2, 3)).median_only().text(), "2");
    }

    #[test]
    fn a_range_written_as_its_median_is_left_out() {
        // 96, 96.4 and 96.2 calls per hundred clients are all 0.96.
        let per = |calls| {
            Cell::of(&Value::PerClient {
                calls,
                requests: 1_000,
            })
        };
        assert_eq!(per(spread(960, 962, 964)).text(), "0.96");
        assert_eq!(per(spread(950, 962, 964)).text(), "0.96 (0.95–0.96)");
        let rate = Cell::of(&Value::RateMilli(spread(80_060, 80_100, 80_140)));
        assert_eq!(rate.html(), "80.1");
        // Two runs 40 µs apart are the same tenth of a second.
        let done = Cell::of(&time(
            Some(spread(2_200_000, 2_200_020, 2_200_040)),
            4,
            4,
            false,
        ));
        assert_eq!(done.text(), "2.2 s");
    }

    #[test]
    fn a_time_has_its_unit_after_the_median_and_after_the_range() {
        let done = Cell::of(&time(
            Some(spread(1_800_000, 2_200_000, 2_900_000)),
            4,
            4,
            false,
        ));
        assert_eq!(done.text(), "2.2 s (1.8–2.9 s)");
        assert_eq!(
            done.html(),
            "2.2&nbsp;s <span class=\"range\">(1.8–2.9&nbsp;s)</span>"
        );
        let latency = Cell::of(&time(Some(spread(50_000, 250_000, 1_500_000)), 3, 4, true));
        assert_eq!(latency.text(), "0.250 s (0.050–1.500 s), in 3 of 4 runs");
    }

    #[test]
    fn never_says_how_many_runs_have_a_time() {
        assert_eq!(Cell::of(&time(None, 0, 50, false)).text(), "never");
        assert_eq!(
            Cell::of(&time(None, 1, 50, false)).text(),
            "never in 49 of 50 runs"
        );
        assert_eq!(
            Cell::of(&time(None, 999, 2_000, false)).html(),
            "never in 1,001 of 2,000 runs"
        );
        let runs = Cell::of(&Value::Runs {
            count: 1_234,
            runs: 2_000,
        });
        assert_eq!(runs.text(), "1,234");
    }
}
