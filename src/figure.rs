//! What an author may choose about a scenario's figure: read from a directive's
//! `figure:` keys, or from the playground's fields, and drawn by the chart. Neither the
//! directives nor the chart own it, so that reading and drawing need not know each
//! other.

use crate::engine::units::Micros;

/// What an author may choose about a scenario's figure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FigureOptions {
    /// End of the time window shown, in µs; `None` = automatic (see
    /// `chart::auto_window`).
    pub window: Option<Micros>,
    /// Caption text (plain text, HTML-escaped where it is drawn); `None` = a generated
    /// one.
    pub caption: Option<String>,
}
