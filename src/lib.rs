//! retrylab: a static-site generator whose numbers and charts come from a retry simulation.
//!
//! - [`engine`]: the simulation, pure;
//! - [`chart`]: results as lane-chart SVG and HTML tables, pure;
//! - [`directive`]: directives and inline references in Markdown, pure;
//! - [`site`]: the generator, the only layer with I/O;
//! - [`report`]: results as text tables and JSON, for the terminal and for machines;
//! - [`format`]: numbers as people read them;
//! - [`quote`]: the value a reference quotes, as the prose has it;
//! - [`diag`]: diagnostics with file, line, column and a caret under the fault;
//! - [`yaml`]: the one place that reads YAML;
//! - [`suggest`]: "did you mean" for misspelt names;
//! - [`live`]: a scenario played for real over HTTP on loopback, beside its simulation
//!   (the runner with the `live` feature; stored runs with `site`);
//! - [`cli`]: the command line;
//! - [`wasm_api`]: the interface of the WebAssembly module behind the browser
//!   playground: a scenario's text in, JSON out.
//!
//! Without the default `site` feature only the engine, its reports, the lane chart and
//! tables of a scenario's figure ([`chart::lanes`], [`chart::table`]) and the module's
//! interface are built: no other drawing, templates, Markdown or command line, so that
//! the engine compiles to WebAssembly with little else (see `wasm/`).

pub mod cell;
pub mod chart;
#[cfg(feature = "site")]
pub mod cli;
pub mod diag;
#[cfg(feature = "site")]
pub mod directive;
pub mod engine;
#[cfg(feature = "site")]
pub mod extends;
pub mod figure;
pub mod format;
#[cfg(feature = "site")]
pub mod live;
pub mod quote;
pub mod report;
#[cfg(feature = "site")]
pub mod site;
pub mod suggest;
pub mod wasm_api;
pub mod yaml;
