//! retrylab: a static-site generator whose numbers and charts come from a retry simulation.
//!
//! - [`engine`]: the simulation, pure;
//! - [`report`]: results as text tables and JSON, for the terminal and for machines;
//! - [`format`]: numbers as people read them;
//! - [`diag`]: diagnostics with file, line, column and a caret under the fault;
//! - [`yaml`]: the one place that reads YAML;
//! - [`suggest`]: "did you mean" for misspelt names;
//! - [`cli`]: the command line.

pub mod cli;
pub mod diag;
pub mod engine;
pub mod format;
pub mod report;
pub mod suggest;
pub mod yaml;
