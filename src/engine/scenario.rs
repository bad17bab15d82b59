//! A scenario: the typed, validated setup of one simulation, and its limits.

use super::policy::Strategy;
use super::units::{Micros, SECOND};

/// The most clients one scenario may have.
pub const MAX_CLIENTS: u64 = 10_000_000;
/// The most ticks one horizon may hold.
pub const MAX_TICKS: u64 = 1_000_000;
/// The most Monte Carlo runs per strategy.
pub const MAX_RUNS: u64 = 10_000;
/// The longest horizon, cap and spread: times are kept in 32 bits of microseconds.
pub const MAX_TIME: Micros = 3_600 * SECOND;
/// The most calls a scenario could need (clients × ticks or attempts × runs × strategies).
pub const MAX_WORK: u128 = 10_000_000_000;
/// The largest capacity, in calls per tick.
pub const MAX_CAPACITY: u64 = 1_000_000_000;

/// How the server decides which calls of a tick it serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServerModel {
    /// Serves up to its capacity; each rejection costs part of a call in the next tick.
    Capacity,
    /// Serves everything up to its capacity and nothing above it.
    AllOrNothing,
}

impl ServerModel {
    /// Every model, in documentation order.
    pub const ALL: [ServerModel; 2] = [ServerModel::Capacity, ServerModel::AllOrNothing];

    /// The name used in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            ServerModel::Capacity => "capacity",
            ServerModel::AllOrNothing => "all-or-nothing",
        }
    }
}

/// A window in which the server is down: `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outage {
    /// When it starts.
    pub from: Micros,
    /// When the server is back.
    pub to: Micros,
}

/// The server's side of a scenario.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Server {
    /// Its model.
    pub model: ServerModel,
    /// Calls per tick, in thousandths of a call.
    pub capacity_milli: u64,
    /// The tick length.
    pub tick: Micros,
    /// The cost of one rejection, in thousandths of a served call.
    pub rejection_cost_milli: u64,
    /// Windows in which it is down.
    pub outages: Vec<Outage>,
}

/// The retry parameters that every strategy shares.
#[derive(Clone, Debug, PartialEq)]
pub struct Retry {
    /// The first wait.
    pub base: Micros,
    /// The longest wait.
    pub cap: Micros,
    /// Growth of the ceiling per failure.
    pub multiplier: f64,
    /// Calls per client at most, counting the first.
    pub max_attempts: Option<u32>,
    /// Time from the first call after which nothing is sent.
    pub deadline: Option<Micros>,
}

/// One simulation setup, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Its name.
    pub id: String,
    /// Clients in the closed crowd.
    pub clients: u64,
    /// First calls are spread uniformly over `[0, spread)`.
    pub spread: Micros,
    /// When the run stops.
    pub horizon: Micros,
    /// The server.
    pub server: Server,
    /// Shared retry parameters.
    pub retry: Retry,
    /// The strategies to compare, in the author's order.
    pub strategies: Vec<Strategy>,
    /// Monte Carlo runs per strategy.
    pub runs: u32,
    /// The seed of the first run.
    pub seed: u64,
}

impl Scenario {
    /// A scenario with every default and the given crowd, for tests and examples.
    pub fn with_clients(id: &str, clients: u64) -> Scenario {
        Scenario {
            id: id.to_string(),
            clients,
            spread: 0,
            horizon: 120 * SECOND,
            server: Server {
                model: ServerModel::Capacity,
                capacity_milli: 10_000,
                tick: 100_000,
                rejection_cost_milli: 100,
                outages: Vec::new(),
            },
            retry: Retry {
                base: 100_000,
                cap: 10 * SECOND,
                multiplier: 2.0,
                max_attempts: None,
                deadline: None,
            },
            strategies: Strategy::ALL.to_vec(),
            runs: 1,
            seed: 1,
        }
    }

    /// The number of ticks in the horizon.
    pub fn ticks(&self) -> u64 {
        self.horizon / self.server.tick
    }

    /// Whether any strategy or the setup draws random numbers beyond the shuffle of
    /// equal calls (so that runs can differ).
    pub fn is_random(&self) -> bool {
        self.spread > 0 || self.strategies.iter().any(|s| s.is_jittered())
    }

    /// The most calls this scenario could need, for the work limit.
    pub fn worst_case_calls(&self) -> u128 {
        let per_client = match self.retry.max_attempts {
            Some(m) => u64::from(m).min(self.ticks()),
            None => self.ticks(),
        };
        u128::from(self.clients)
            * u128::from(per_client)
            * u128::from(self.runs)
            * self.strategies.len() as u128
    }
}
