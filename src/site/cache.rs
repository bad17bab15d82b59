//! Simulation results cached on disk, keyed by a hash of the scenario and the engine
//! version, so that an edit to prose reruns nothing.
//!
//! One JSON file per scenario in `.retrylab-cache/` of the site (ignored by git). A file
//! that cannot be read or parsed is a miss; writes go through a temporary file and a
//! rename, so a crash never leaves half a result behind.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::engine::{ENGINE_VERSION, Scenario, ScenarioResult, run_scenario};

/// The cache folder's name, at the site's root.
pub const FOLDER: &str = ".retrylab-cache";

/// The cache of one site.
pub struct Cache {
    dir: PathBuf,
}

/// What running a set of scenarios did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Scenarios taken from the cache.
    pub cached: usize,
    /// Scenarios simulated now.
    pub simulated: usize,
    /// Runs simulated now (strategies × runs).
    pub runs: u64,
}

impl Cache {
    /// The cache of the site at `root`.
    pub fn new(root: &Path) -> Cache {
        Cache {
            dir: root.join(FOLDER),
        }
    }

    /// The key of a scenario: a hash of the engine version and every field that
    /// could change its results.
    pub fn key(scenario: &Scenario) -> String {
        let mut hasher = Sha256::new();
        hasher.update(ENGINE_VERSION.as_bytes());
        hasher.update(b"\n");
        hasher.update(format!("{scenario:?}").as_bytes());
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    fn get(&self, key: &str) -> Option<ScenarioResult> {
        let text = std::fs::read(self.path(key)).ok()?;
        serde_json::from_slice(&text).ok()
    }

    fn put(&self, key: &str, result: &ScenarioResult) {
        // The cache only saves time: if it cannot be written, the build goes on.
        let _ = std::fs::create_dir_all(&self.dir).and_then(|()| {
            let tmp = self.dir.join(format!("{key}.{}.tmp", std::process::id()));
            std::fs::write(&tmp, serde_json::to_vec(result).unwrap_or_default())?;
            std::fs::rename(&tmp, self.path(key))
        });
    }

    /// How many of the scenarios have no result in the cache yet.
    pub fn missing(&self, scenarios: &[&Scenario]) -> usize {
        scenarios
            .iter()
            .filter(|s| !self.path(&Cache::key(s)).is_file())
            .count()
    }

    /// Results for every scenario, in order: from the cache where present, simulated
    /// (in parallel) where not.
    pub fn run_all(&self, scenarios: &[&Scenario]) -> (Vec<ScenarioResult>, RunStats) {
        let outcomes: Vec<(ScenarioResult, bool)> = scenarios
            .par_iter()
            .map(|scenario| {
                let key = Cache::key(scenario);
                if let Some(hit) = self.get(&key).filter(|r| r.id == scenario.id) {
                    return (hit, true);
                }
                let result = run_scenario(scenario);
                self.put(&key, &result);
                (result, false)
            })
            .collect();
        let mut stats = RunStats::default();
        for (scenario, (_, cached)) in scenarios.iter().zip(&outcomes) {
            if *cached {
                stats.cached += 1;
            } else {
                stats.simulated += 1;
                stats.runs += u64::from(scenario.runs) * scenario.strategies.len() as u64;
            }
        }
        (outcomes.into_iter().map(|(r, _)| r).collect(), stats)
    }
}
