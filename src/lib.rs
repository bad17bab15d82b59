//! retrylab: a static-site generator whose numbers and charts come from a retry simulation.
//!
//! - [`engine`]: the simulation, pure;
//! - [`chart`]: results as lane-chart SVG and HTML tables, pure;
//! - [`directive`]: directives and inline references in Markdown, pure;
//! - [`site`]: the generator, the only layer with I/O;
//! - [`report`]: results as text tables and JSON, for the terminal and for machines;
//! - [`format`]: numbers as people read them;
//! - [`diag`]: diagnostics with file, line, column and a caret under the fault;
//! - [`yaml`]: the one place that reads YAML;
//! - [`suggest`]: "did you mean" for misspelt names;
//! - [`cli`]: the command line.

pub mod chart;
pub mod cli;
pub mod diag;
pub mod directive;
pub mod engine;
pub mod format;
pub mod report;
pub mod site;
pub mod suggest;
pub mod yaml;
