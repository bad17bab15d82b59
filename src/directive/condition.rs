//! Honest sentences: prose that holds only for some numbers, marked with the condition
//! it depends on, so that an explorable figure's reader never reads it when it is false.
//!
//! ```markdown
//! {{ if crowd.fixed.still_retrying > 0 }}Fixed delay is still retrying at the
//! horizon.{{ end }}
//! ```
//!
//! A condition is comparisons joined by ` and `, each `LEFT OP RIGHT` with `OP` one of
//! `<`, `<=`, `>`, `>=`, `==`, `!=`, and each side a reference to one scenario (a total
//! or a setting, without a format) or a number (`0`, `2.5`). A reference is compared
//! as the page would quote it with `| raw`: a count as it is, a time in seconds with
//! its decimals (`42.7`), `never` (and `no limit`, `no timeout`, `no queue`) above any
//! number. The build refuses a condition that does not hold for the built numbers, so
//! the page as built shows every marked sentence; the browser hides one while a
//! reader's setting makes it false. The text between the markers stands in one
//! paragraph, list item or table cell, outside links, and any emphasis in it is closed
//! inside it.

use std::collections::BTreeMap;
use std::ops::Range;

use super::reference::{self, RawReference, Reference, ReferenceError};
use crate::engine::{Scenario, ScenarioResult};

/// A comparison a condition may make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantArray)]
pub enum Comparison {
    /// `<=`
    AtMost,
    /// `>=`
    AtLeast,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
    /// `<`
    Less,
    /// `>`
    More,
}

impl Comparison {
    /// How a condition writes it.
    pub const fn symbol(self) -> &'static str {
        match self {
            Comparison::AtMost => "<=",
            Comparison::AtLeast => ">=",
            Comparison::Equal => "==",
            Comparison::NotEqual => "!=",
            Comparison::Less => "<",
            Comparison::More => ">",
        }
    }

    /// Whether `l` compares to `r` so.
    pub fn holds(self, l: f64, r: f64) -> bool {
        match self {
            Comparison::AtMost => l <= r,
            Comparison::AtLeast => l >= r,
            Comparison::Equal => l == r,
            Comparison::NotEqual => l != r,
            Comparison::Less => l < r,
            Comparison::More => l > r,
        }
    }

    /// The first comparison in `text`, and where it starts: at a place where two could
    /// start, the longer, so that `<=` is not read as `<`.
    fn first_in(text: &str) -> Option<(usize, Comparison)> {
        use strum::VariantArray;
        Comparison::VARIANTS
            .iter()
            .filter_map(|&c| text.find(c.symbol()).map(|at| (at, c)))
            .min_by_key(|(at, c)| (*at, std::cmp::Reverse(c.symbol().len())))
    }
}

/// Whether the inside of a `{{ … }}` is a condition's marker: `if …` or `end`.
pub fn is_marker(inner: &str) -> bool {
    let inner = inner.trim();
    inner == "end" || inner.starts_with("if ")
}

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A reference, quoted with `| raw`.
    Quote(Reference),
    /// A number as written.
    Number(f64, String),
}

/// A marked sentence, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// Byte range of `{{ if … }}`.
    pub open: Range<usize>,
    /// Byte range of `{{ end }}`.
    pub close: Range<usize>,
    /// The scenario its references quote.
    pub id: String,
    /// The comparisons, each left, operator, right.
    pub comparisons: Vec<(Operand, Comparison, Operand)>,
}

impl Condition {
    /// The condition as the page marks it (`data-if`): references by their path, as
    /// `quote::parse` reads them, numbers as written.
    pub fn marked(&self) -> String {
        let side = |o: &Operand| match o {
            Operand::Quote(r) => reference::marked(r).trim_end_matches("|raw").to_string(),
            Operand::Number(_, text) => text.clone(),
        };
        self.comparisons
            .iter()
            .map(|(l, op, r)| format!("{} {} {}", side(l), op.symbol(), side(r)))
            .collect::<Vec<_>>()
            .join(" and ")
    }

    /// Whether it holds for `result`, or the reference whose value is no number.
    pub fn holds(
        &self,
        scenario: &Scenario,
        result: &ScenarioResult,
    ) -> Result<bool, ReferenceError> {
        let value = |o: &Operand| -> Result<f64, ReferenceError> {
            match o {
                Operand::Number(n, _) => Ok(*n),
                Operand::Quote(r) => {
                    number(&reference::render(r, scenario, result)?).ok_or_else(|| ReferenceError {
                        range: r.range.clone(),
                        message: format!(
                            "`{}` is no number a condition can compare",
                            reference::marked(r).trim_end_matches("|raw")
                        ),
                        help: Some(
                            "compare a total, or a setting that is a count or a number".to_string(),
                        ),
                    })
                }
            }
        };
        let mut all = true;
        for (left, op, right) in &self.comparisons {
            let (l, r) = (value(left)?, value(right)?);
            all &= op.holds(l, r);
        }
        Ok(all)
    }
}

/// The number a reference's raw text stands for: the number written, or infinity for
/// the words that say there is none (`never`, `no limit`, …); `None` for other text (a
/// duration with its unit). The page's script reads the text the same way.
pub fn number(text: &str) -> Option<f64> {
    match text {
        "never" | "no limit" | "no timeout" | "no queue" => Some(f64::INFINITY),
        _ if text.bytes().all(|b| b.is_ascii_digit() || b == b'.') => text.parse().ok(),
        _ => None,
    }
}

/// Finds the markers of a page's text outside the `code` ranges, pairs them and checks
/// each condition against the site's scenarios. Mistakes are placed at their marker.
pub fn find(
    text: &str,
    code: &[Range<usize>],
    scenarios: &BTreeMap<String, Scenario>,
) -> Vec<Result<Condition, ReferenceError>> {
    let mut out = Vec::new();
    let mut open: Option<(Range<usize>, &str)> = None;
    let mut from = 0;
    while let Some(found) = text[from..].find("{{") {
        let start = from + found;
        from = start + 2;
        let backslashes = text[..start].len() - text[..start].trim_end_matches('\\').len();
        if backslashes % 2 == 1 || code.iter().any(|r| r.contains(&start)) {
            continue;
        }
        let Some(len) = text[start..].find("}}") else {
            break;
        };
        let inner = &text[start + 2..start + len];
        if !is_marker(inner) {
            continue;
        }
        let range = start..start + len + 2;
        from = range.end;
        let inner = inner.trim();
        let fail = |range: Range<usize>, message: String, help: &str| ReferenceError {
            range,
            message,
            help: Some(help.to_string()),
        };
        match (inner.strip_prefix("if "), open.take()) {
            (Some(_), Some((first, _))) => out.push(Err(fail(
                first,
                "this condition is not ended before the next one begins".to_string(),
                "end the sentence it marks with `{{ end }}`; conditions do not nest",
            ))),
            (Some(condition), None) => open = Some((range, condition.trim())),
            (None, None) => out.push(Err(fail(
                range,
                "this `{{ end }}` ends no condition".to_string(),
                "begin the sentence with `{{ if … }}`, or write `\\{{ end }}` for the text",
            ))),
            (None, Some((if_range, condition))) => {
                if text[if_range.end..range.start].contains("\n\n") {
                    out.push(Err(fail(
                        if_range,
                        "a condition marks text within one paragraph".to_string(),
                        "end it before the paragraph ends, and mark each paragraph on its own",
                    )));
                    continue;
                }
                out.push(read(condition, if_range, range, scenarios));
            }
        }
    }
    if let Some((first, _)) = open {
        out.push(Err(ReferenceError {
            range: first,
            message: "this condition is never ended".to_string(),
            help: Some("end the sentence it marks with `{{ end }}`".to_string()),
        }));
    }
    out
}

/// Reads one condition between its markers.
fn read(
    condition: &str,
    open: Range<usize>,
    close: Range<usize>,
    scenarios: &BTreeMap<String, Scenario>,
) -> Result<Condition, ReferenceError> {
    let fail = |message: String| ReferenceError {
        range: open.clone(),
        message,
        help: Some(
            "write comparisons joined by `and`, such as `{{ if crowd.fixed.still_retrying > 0 }}`"
                .to_string(),
        ),
    };
    let mut comparisons = Vec::new();
    let mut id: Option<String> = None;
    for part in condition.split(" and ") {
        let Some((at, op)) = Comparison::first_in(part) else {
            return Err(fail(format!("`{}` compares nothing", part.trim())));
        };
        let mut side = |text: &str| -> Result<Operand, ReferenceError> {
            let text = text.trim();
            if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                return text
                    .parse()
                    .map(|n| Operand::Number(n, text.to_string()))
                    .map_err(|_| fail(format!("`{text}` is not a number")));
            }
            let path: Vec<String> = text.split('.').map(str::to_string).collect();
            if path.len() < 2 || path.iter().any(|s| s.is_empty()) {
                return Err(fail(format!(
                    "`{text}` is neither a reference nor a number"
                )));
            }
            let raw = RawReference {
                range: open.clone(),
                path,
                format: Some("raw".to_string()),
            };
            let checked = reference::check(&raw, scenarios)?;
            match &id {
                Some(first) if *first != checked.id => {
                    return Err(fail(format!(
                        "a condition quotes one scenario, and this one quotes `{first}` and `{}`",
                        checked.id
                    )));
                }
                _ => id = Some(checked.id.clone()),
            }
            Ok(Operand::Quote(checked))
        };
        let left = side(&part[..at])?;
        let right = side(&part[at + op.symbol().len()..])?;
        comparisons.push((left, op, right));
    }
    let Some(id) = id else {
        return Err(fail("this condition quotes no scenario".to_string()));
    };
    Ok(Condition {
        open,
        close,
        id,
        comparisons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comparison_is_read_at_its_place_the_longer_first() {
        let first = |text| Comparison::first_in(text).map(|(at, c)| (at, c.symbol()));
        assert_eq!(first("a.b.c <= 3"), Some((6, "<=")));
        assert_eq!(first("a.b.c<3"), Some((5, "<")));
        assert_eq!(first("a.b.c >= 3"), Some((6, ">=")));
        assert_eq!(first("a != b == c"), Some((2, "!=")));
        assert_eq!(first("a = b"), None);
        use strum::VariantArray;
        let held: Vec<bool> = Comparison::VARIANTS
            .iter()
            .map(|c| c.holds(1.0, 2.0))
            .collect();
        assert_eq!(held, [true, false, false, true, true, false]);
        assert!(Comparison::AtMost.holds(2.0, 2.0) && !Comparison::More.holds(2.0, 2.0));
    }
}
