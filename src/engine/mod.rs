//! The simulation, pure: a scenario in, results out. No files, no templates, no clocks.
//!
//! The model is `spec/engine.md` of the project, implemented to the letter; where that text
//! leaves a choice, the choice is written down in the module that makes it:
//! - [`run`]: the order of random draws, and how a call is carried;
//! - [`server`]: when a tick counts as down;
//! - [`stats`]: percentiles and the typical run;
//! - [`scenario`]: the size limits;
//! - [`extended`]: open-loop arrivals, Retry-After, layers, goodput and recovery time;
//! - [`protect`]: the retry budgets and the circuit breaker.

pub mod extended;
pub mod policy;
pub mod protect;
pub mod read;
pub mod run;
pub mod scenario;
pub mod schedule;
pub mod schema;
pub mod server;
pub mod stats;
pub mod units;

pub use policy::{RetryPolicy, Strategy};
pub use read::{ScenarioError, parse_scenario, scenario_from_node};
pub use run::{Lanes, Run, Totals, simulate};
pub use scenario::{Scenario, ServerModel};
pub use stats::{Features, ScenarioResult, Spread, StrategyResult, run_scenario};

/// The engine's version: part of every cache key, so that a change to the model reruns
/// every scenario. Bump it whenever a result could change.
pub const ENGINE_VERSION: &str = "3";
