//! The value readers of a scenario: text, whole numbers, durations, numbers with
//! decimals, true or false. Each reports its mistake at the node, naming the key.

use super::{Fields, Reader};
use crate::engine::scenario::MAX_TIME;
use crate::engine::units::{self, Micros, UnitError, format_duration, format_milli};
use crate::format::thousands;
use crate::yaml::{self, Node, Value};

impl Reader {
    /// A single value, not a list or map.
    pub(super) fn text<'a>(&mut self, node: &'a Node, key: &str) -> Option<&'a str> {
        match node.as_scalar() {
            Some(text) => Some(text),
            None => {
                self.error(
                    node,
                    format!("`{key}` must be a single value, found {}", node.describe()),
                    None,
                );
                None
            }
        }
    }

    /// A whole number from `min` to `max`, written without quotes.
    pub(super) fn whole(&mut self, node: &Node, key: &str, min: u64, max: u64) -> Option<u64> {
        let text = self.text(node, key)?;
        let plain = matches!(node.value, Value::Scalar { plain: true, .. });
        let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        let value = if plain && digits {
            text.parse::<u64>().ok()
        } else {
            None
        };
        let Some(value) = value else {
            let found = if digits && plain {
                "a number too large to hold".to_string()
            } else {
                node.describe()
            };
            let help = (digits && !plain).then(|| unquote(text));
            self.error(
                node,
                format!("`{key}` must be a whole number, found {found}"),
                help,
            );
            return None;
        };
        if value < min {
            self.error(
                node,
                format!("`{key}` must be at least {}, found {value}", thousands(min)),
                None,
            );
            return None;
        }
        if value > max {
            self.error(
                node,
                format!(
                    "`{key}` is {}; the limit is {}",
                    thousands(value),
                    thousands(max)
                ),
                None,
            );
            return None;
        }
        Some(value)
    }

    /// The whole number at `key` of `fields`, or `default` when it is not written.
    pub(super) fn whole_or(
        &mut self,
        fields: &Fields,
        key: &str,
        default: u64,
        min: u64,
        max: u64,
    ) -> Option<u64> {
        match fields.get(key) {
            Some(node) => self.whole(node, &fields.label(key), min, max),
            None => Some(default),
        }
    }

    /// A duration with its unit, in µs.
    pub(super) fn duration(&mut self, node: &Node, key: &str) -> Option<Micros> {
        let text = self.text(node, key)?;
        match units::parse_duration(text) {
            Ok(us) => Some(us),
            Err(e) => {
                let (message, help) = match e {
                    UnitError::NoUnit => (
                        format!("`{key}` needs a unit, found `{text}`"),
                        Some(format!(
                            "write `{text}ms` or `{text}s`; the units are us, ms, s, m, h"
                        )),
                    ),
                    UnitError::TooFine => (
                        format!("`{key}` is finer than a microsecond: `{text}`"),
                        None,
                    ),
                    UnitError::TooLarge => (format!("`{key}` is too long: `{text}`"), None),
                    UnitError::Negative => (format!("`{key}` cannot be negative: `{text}`"), None),
                    UnitError::Malformed | UnitError::TooManyDecimals => (
                        format!(
                            "`{key}` must be a duration like 250ms, 1.5s or 2m, found {}",
                            node.describe()
                        ),
                        None,
                    ),
                };
                self.error(node, message, help);
                None
            }
        }
    }

    /// The duration at `key` of `fields`, or `default` when it is not written.
    pub(super) fn duration_or(
        &mut self,
        fields: &Fields,
        key: &str,
        default: Micros,
    ) -> Option<Micros> {
        match fields.get(key) {
            Some(node) => self.duration(node, &fields.label(key)),
            None => Some(default),
        }
    }

    /// A number with at most three decimals, in thousandths, at most `max`.
    pub(super) fn milli(&mut self, node: &Node, key: &str, max: u64) -> Option<u64> {
        let text = self.text(node, key)?;
        let plain = matches!(node.value, Value::Scalar { plain: true, .. });
        let parsed = if plain {
            units::parse_milli(text)
        } else {
            Err(UnitError::Malformed)
        };
        match parsed {
            Ok(v) if v <= max => Some(v),
            Ok(_) => {
                self.error(
                    node,
                    format!(
                        "`{key}` is {text}; the most it can be is {}",
                        format_milli(max)
                    ),
                    None,
                );
                None
            }
            Err(UnitError::Negative) => {
                self.error(
                    node,
                    format!("`{key}` cannot be negative, found {text}"),
                    None,
                );
                None
            }
            Err(UnitError::TooManyDecimals) => {
                self.error(
                    node,
                    format!("`{key}` may have at most three decimals, found {text}"),
                    None,
                );
                None
            }
            Err(_) => {
                let help = (!plain && units::parse_milli(text).is_ok()).then(|| unquote(text));
                self.error(
                    node,
                    format!("`{key}` must be a number, found {}", node.describe()),
                    help,
                );
                None
            }
        }
    }

    /// A number from 1 to 100.
    pub(super) fn multiplier(&mut self, node: &Node, key: &str) -> Option<f64> {
        let text = self.text(node, key)?;
        let value = text.parse::<f64>().ok().filter(|v| v.is_finite());
        match value {
            Some(v) if (1.0..=100.0).contains(&v) => Some(v),
            Some(_) => {
                self.error(
                    node,
                    format!("`{key}` must be from 1 to 100, found {text}"),
                    None,
                );
                None
            }
            None => {
                self.error(
                    node,
                    format!("`{key}` must be a number, found {}", node.describe()),
                    None,
                );
                None
            }
        }
    }

    /// `true` or `false`.
    pub(super) fn boolean(&mut self, node: &Node, key: &str) -> Option<bool> {
        yaml::boolean(node, key)
            .map_err(|problem| self.errors.push(problem))
            .ok()
    }

    /// A duration that must be more than zero, at most an hour.
    pub(super) fn positive_duration(&mut self, node: &Node, key: &str) -> Option<Micros> {
        match self.hour_at_most(node, key)? {
            0 => {
                self.error(node, format!("`{key}` must be longer than 0s"), None);
                None
            }
            d => Some(d),
        }
    }

    /// A duration of at most an hour, 0 included.
    pub(super) fn hour_at_most(&mut self, node: &Node, key: &str) -> Option<Micros> {
        match self.duration(node, key)? {
            d if d > MAX_TIME => {
                self.error(
                    node,
                    format!("`{key}` is {}; the limit is 1h", format_duration(d)),
                    None,
                );
                None
            }
            d => Some(d),
        }
    }
}

/// The hint for a number written in quotes, which YAML reads as text.
fn unquote(text: &str) -> String {
    format!("remove the quotes: in quotes, `{text}` is text, not a number")
}
