//! `retrylab live`: a scenario played for real, beside its simulation.
//!
//! The engine follows its model exactly; this module asks whether the model is right. It
//! plays each strategy of a scenario once, in wall-clock time, against an HTTP server on
//! loopback that decides each tick's calls by the engine's own arithmetic
//! ([`admission`]), with a crowd of real HTTP clients whose waits come from a retry
//! crate ([`waits`]); then it sets every total beside the simulated median and its
//! 5th–95th percentile band ([`record`]). [`play`] says exactly how the model's time
//! maps onto the wall clock, and where they cannot agree; [`playable`] what is played.
//!
//! A stored run is set beside a page's simulation by the ```` ```live ```` directive:
//! [`stored`] holds it against the scenario it names, and [`figure`] says what its figure
//! shows, which [`crate::chart`] draws. The parts that need no async runtime
//! ([`admission`], [`figure`], [`record`] and [`stored`]) are built with the site, which
//! reads stored live runs; the rest with the `live` feature.

pub mod admission;
pub mod figure;
pub mod record;
pub mod stored;

#[cfg(feature = "live")]
pub mod play;
#[cfg(feature = "live")]
pub mod playable;
#[cfg(feature = "live")]
pub mod table;
#[cfg(feature = "live")]
pub mod waits;

#[cfg(feature = "live")]
pub use run::run;

/// The crates a live run is made with, by role, with the versions of `Cargo.lock` (a
/// test holds them equal).
pub struct Crates {
    /// The HTTP server and client.
    pub http: (&'static str, &'static str),
    /// The async runtime.
    pub runtime: (&'static str, &'static str),
    /// The retry strategies.
    pub retry: (&'static str, &'static str),
}

/// The crates of this build.
pub const CRATES: Crates = Crates {
    http: ("hyper", "1.12.0"),
    runtime: ("tokio", "1.54.1"),
    retry: ("tokio-retry2", "0.9.1"),
};

#[cfg(feature = "live")]
mod run {
    use std::sync::Arc;

    use super::record::{self, FORMAT, Record, Software};
    use super::{CRATES, play, waits};
    use crate::engine::{Scenario, run_scenario_within};
    use crate::site::progress::Progress;

    /// Simulates `scenario` (read from `source`), then plays each of its strategies for
    /// real, and returns both side by side, with the requests refused as not the run's
    /// (see [`play`]). `progress` shows a line while it runs. A Ctrl-C stops the run at
    /// once, with an error and no results.
    pub fn run(scenario: &Scenario, source: &str, progress: bool) -> Result<(Record, u64), String> {
        let simulating = Progress::start(progress, format!("simulating {}…", scenario.id));
        let simulated = run_scenario_within(scenario, false, crate::engine::work::limit());
        drop(simulating);
        let simulated =
            simulated.map_err(|over| format!("{}; {}", over.message(false), over.help()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the async runtime: {e}"))?;
        let shared = Arc::new(scenario.clone());
        let mut strategies = Vec::new();
        let mut refused = 0;
        for (result, &strategy) in simulated.strategies.iter().zip(&scenario.strategies) {
            let who = match (scenario.clients, simulated.arrivals) {
                (clients, 0) => format!("{clients} clients"),
                (0, arrivals) => format!("{arrivals} open-loop requests"),
                (clients, arrivals) => format!("{clients} clients, {arrivals} open-loop requests"),
            };
            let line = format!(
                "playing {} for real: {} ({who} on loopback)…",
                scenario.id,
                strategy.name(),
            );
            let playing = Progress::start(progress, line);
            let played = runtime.block_on(async {
                tokio::select! {
                    played = play::play(Arc::clone(&shared), strategy, scenario.seed) => played,
                    _ = tokio::signal::ctrl_c() => Err("stopped by Ctrl-C: no results".to_string()),
                }
            });
            drop(playing);
            let played = played?;
            refused += played.refused;
            let implementation = waits::implementation(strategy, &scenario.retry);
            strategies.push(record::compare(
                &played.totals,
                result,
                simulated.features,
                implementation,
            ));
        }
        let software = |(name, version): (&str, &str)| Software {
            name: name.to_string(),
            version: version.to_string(),
        };
        let record = Record {
            format: FORMAT.to_string(),
            id: scenario.id.clone(),
            date: crate::site::scaffold::today(),
            scenario: source.to_string(),
            clients: scenario.clients,
            arrivals: simulated.arrivals,
            runs: scenario.runs,
            machine: Some(record::machine()),
            server: vec![software(CRATES.http), software(CRATES.runtime)],
            strategies,
        };
        Ok((record, refused))
    }
}

#[cfg(test)]
mod tests {
    use super::CRATES;

    /// The versions named in every record are those `Cargo.lock` builds.
    #[test]
    fn the_crates_named_are_those_built() {
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock"))
            .expect("Cargo.lock beside Cargo.toml");
        for (name, version) in [CRATES.http, CRATES.runtime, CRATES.retry] {
            let entry = format!("name = \"{name}\"\nversion = \"{version}\"\n");
            assert!(
                lock.contains(&entry),
                "{name} {version} is not in Cargo.lock"
            );
            let versions = lock.matches(&format!("name = \"{name}\"\n")).count();
            assert_eq!(versions, 1, "{name} is locked at more than one version");
        }
    }
}
