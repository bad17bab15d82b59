//! The simulation, pure: a scenario in, results out. No files, no templates, no clocks.
//!
//! The model is `spec/engine.md` of the project, implemented to the letter; where that text
//! leaves a choice, the choice is written down in the module that makes it:
//! - [`run`]: the one tick loop, the order of random draws, and how a call is carried;
//! - [`client`]: what is kept of each client, and the limits that let it fit 32 bits;
//! - [`buckets`]: how the calls of each tick are held;
//! - [`rng`]: the random generator, rand_pcg's PCG-64 draw for draw;
//! - [`server`]: when a tick counts as down, and slowdowns;
//! - [`fleet`]: replicas behind a balancer;
//! - [`hedge`]: hedged requests;
//! - [`queue`]: the queue, latency, timeouts and wasted work;
//! - [`stats`]: percentiles and the typical run;
//! - [`scenario`]: the size limits;
//! - [`work`]: the limit of work, counted as runs go;
//! - [`guards`]: open-loop arrivals, Retry-After, layers, the retry budgets and the
//!   circuit breaker;
//! - [`poisson`]: arrivals as a Poisson process, and their draws;
//! - [`recovery`]: goodput and the recovery time of open-loop load;
//! - [`outcome`]: what a run gives back;
//! - [`library`]: the strategies named after retry libraries, with their sources;
//! - [`metric`]: the totals and statistics that results are quoted by.

pub mod buckets;
pub mod client;
pub mod fleet;
pub mod guards;
pub mod hedge;
pub mod library;
pub mod metric;
pub mod outcome;
pub mod poisson;
pub mod policy;
pub mod queue;
pub mod read;
pub mod recovery;
pub mod rng;
pub mod run;
pub mod scenario;
pub mod schedule;
pub mod schema;
pub mod server;
pub mod stats;
pub mod units;
pub mod value;
pub mod work;

pub use outcome::{Lanes, Run, Totals};
pub use policy::{RetryPolicy, Strategy};
pub use read::{ScenarioError, parse_scenario, scenario_from_node};
pub use run::simulate;
pub use scenario::{Scenario, ServerModel};
pub use stats::{
    Features, ScenarioResult, Spread, StrategyResult, jobs, run_jobs, run_scenario,
    run_scenario_with, run_scenario_within, summary,
};
pub use value::Value;

/// The engine's version: part of every cache key, so that a change to the model reruns
/// every scenario. Bump it whenever a result could change.
pub const ENGINE_VERSION: &str = "8";
