//! Simulation results cached on disk, keyed by a hash of the scenario and the engine
//! version, so that an edit to prose reruns nothing.
//!
//! One file per scenario in `.retrylab-cache/` of the site (ignored by git): a first
//! line with a checksum of the entry's key and content, then the result as JSON. An entry
//! is read only if it is a regular file (never a link, a pipe or a device) of a size a
//! result can have, and only if its checksum holds; anything else is discarded with a
//! note and simulated again, so a damaged or planted file can neither put a wrong number
//! on a page nor hang the build. Writes go through a temporary file and a rename, so a
//! crash never leaves half a result behind.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::engine::scenario::MAX_TICKS;
use crate::engine::work::Overwork;
use crate::engine::{ENGINE_VERSION, Scenario, ScenarioResult, Strategy, run_scenario_within};

/// A scenario to run, with its limit of work in steps ([`crate::engine::work`]).
pub type Job<'a> = (&'a Scenario, u64);

/// The cache folder's name, at the site's root.
pub const FOLDER: &str = ".retrylab-cache";

/// What opens an entry's first line, before its checksum. Part of every key too, so
/// that entries of another layout are never looked at.
const HEADER: &str = "retrylab-cache 5 sha256:";

/// The largest entry a result can make: per strategy, six lanes (served, rejected,
/// failed fast, wasted, queued, throttled) of `MAX_TICKS` numbers of at most ten digits
/// and a comma, the capacity's of at most fifteen, and a megabyte for everything else.
/// Anything larger is not a result, and is not read.
const MAX_ENTRY: u64 = Strategy::ALL.len() as u64 * (6 * 11 + 16) * MAX_TICKS + (1 << 20);

/// The scenario as the canonical JSON its key hashes (see [`Cache::key`]).
fn serialised(scenario: &Scenario) -> String {
    // Plain structs, enums, strings, whole numbers and finite floats: nothing there can
    // fail to serialise.
    serde_json::to_string(scenario).expect("a scenario serialises")
}

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

/// Why an entry on disk was not used.
#[derive(Debug, PartialEq, Eq)]
enum Discard {
    /// A symbolic link, a folder, a pipe, a device: nothing the cache writes.
    NotAFile,
    /// Larger than any result.
    TooLarge(u64),
    /// The file could not be read.
    Unreadable(String),
    /// The first line is not a checksum line.
    NoChecksum,
    /// The checksum does not match the key and the content.
    Checksum,
    /// The checksum holds but the content is not a result of this scenario.
    NotAResult,
}

impl std::fmt::Display for Discard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Discard::NotAFile => write!(f, "it is not a regular file"),
            Discard::TooLarge(size) => write!(
                f,
                "it holds {size} bytes, more than any result ({MAX_ENTRY} at most)"
            ),
            Discard::Unreadable(e) => write!(f, "it cannot be read: {e}"),
            Discard::NoChecksum => write!(f, "it has no checksum line"),
            Discard::Checksum => write!(f, "its checksum does not match its content"),
            Discard::NotAResult => write!(f, "it does not hold this scenario's result"),
        }
    }
}

/// The checksum of an entry: its key and its content, so that an entry copied under
/// another key fails as surely as an edited one.
fn checksum(key: &str, content: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(key.as_bytes());
    hasher.update(b"\n");
    hasher.update(content);
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The text of an entry: the checksum line, then the content.
fn entry(key: &str, content: &[u8]) -> Vec<u8> {
    let mut text = format!("{HEADER}{}\n", checksum(key, content)).into_bytes();
    text.extend_from_slice(content);
    text
}

/// The content of an entry whose checksum holds for `key`.
fn verified<'a>(key: &str, text: &'a [u8]) -> Result<&'a [u8], Discard> {
    let newline = text
        .iter()
        .position(|&b| b == b'\n')
        .ok_or(Discard::NoChecksum)?;
    let (line, content) = (&text[..newline], &text[newline + 1..]);
    let sum = line
        .strip_prefix(HEADER.as_bytes())
        .ok_or(Discard::NoChecksum)?;
    if sum == checksum(key, content).as_bytes() {
        Ok(content)
    } else {
        Err(Discard::Checksum)
    }
}

/// The bytes of the regular file at `path`, if it is one of at most `limit` bytes.
/// `Ok(None)` when there is nothing there.
fn read_regular(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, Discard> {
    // Looked at before opening: opening a named pipe waits for a writer forever, and a
    // link could lead to `/dev/zero`, which never ends.
    let meta = match path.symlink_metadata() {
        Ok(meta) => meta,
        // No entry, or no cache folder (a file in its place leaves the cache unused).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(Discard::Unreadable(e.to_string())),
    };
    if !meta.file_type().is_file() {
        return Err(Discard::NotAFile);
    }
    if meta.len() > limit {
        return Err(Discard::TooLarge(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| Discard::Unreadable(e.to_string()))?;
    // The file may have been swapped since: what was opened must still be a regular file,
    // and no more than the limit is read from it.
    let opened = file
        .metadata()
        .map_err(|e| Discard::Unreadable(e.to_string()))?;
    if !opened.file_type().is_file() {
        return Err(Discard::NotAFile);
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Discard::Unreadable(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(Discard::TooLarge(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

/// Says on stderr that an entry was discarded. A closed terminal is no reason to stop.
fn note(file: &str, id: &str, why: &Discard) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "note: discarded the cache entry {file}: {why}; scenario `{id}` is simulated again"
    );
}

impl Cache {
    /// The cache of the site at `root`.
    pub fn new(root: &Path) -> Cache {
        Cache {
            dir: root.join(FOLDER),
        }
    }

    /// The key of a scenario: the SHA-256, in hex, of the engine version, the cache's
    /// layout and the scenario's serialisation, one per line.
    ///
    /// The serialisation is the scenario as JSON, by its derived `Serialize`: every field
    /// of [`Scenario`] and of the types it holds, under its Rust name, in declaration
    /// order, without spaces; enums by their scenario names (`"capacity"`,
    /// `"full-jitter"`), a budget as `{"grpc":{"max_tokens":…}}`, absent options as
    /// `null`, times in microseconds. It does not depend on `Debug` output, and a change
    /// to it is a change of [`HEADER`], so that old entries are simulated again, never
    /// misread.
    pub fn key(scenario: &Scenario) -> String {
        Cache::key_of(scenario, None)
    }

    /// The key of a scenario run within `limit` steps of work: [`Cache::key`] when it
    /// cannot pass the limit; else with the limit on a line of its own, since whether
    /// it passes depends on it, and a result found under another limit says nothing of
    /// this one.
    pub fn key_within(scenario: &Scenario, limit: u64) -> String {
        let counted = scenario.most_work() > u128::from(limit);
        Cache::key_of(scenario, counted.then_some(limit))
    }

    fn key_of(scenario: &Scenario, limit: Option<u64>) -> String {
        let mut hasher = Sha256::new();
        hasher.update(ENGINE_VERSION.as_bytes());
        hasher.update(b"\n");
        hasher.update(HEADER.as_bytes());
        hasher.update(b"\n");
        hasher.update(serialised(scenario).as_bytes());
        if let Some(limit) = limit {
            hasher.update(format!("\nwithin {limit} steps").as_bytes());
        }
        hex(&hasher.finalize())
    }

    fn name(key: &str) -> String {
        format!("{key}.json")
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(Cache::name(key))
    }

    /// The cached result of `scenario`: `Ok(None)` when there is none, `Err` when an
    /// entry is there but cannot be trusted.
    fn get(&self, key: &str, scenario: &Scenario) -> Result<Option<ScenarioResult>, Discard> {
        let Some(text) = read_regular(&self.path(key), MAX_ENTRY)? else {
            return Ok(None);
        };
        let content = verified(key, &text)?;
        match serde_json::from_slice::<ScenarioResult>(content) {
            Ok(result) if result.id == scenario.id => Ok(Some(result)),
            Ok(_) | Err(_) => Err(Discard::NotAResult),
        }
    }

    fn put(&self, key: &str, result: &ScenarioResult) {
        // The cache only saves time: if it cannot be written, the build goes on.
        let _ = std::fs::create_dir_all(&self.dir).and_then(|()| {
            let tmp = self.dir.join(format!("{key}.{}.tmp", std::process::id()));
            let content = serde_json::to_vec(result).map_err(std::io::Error::other)?;
            // A leftover of a killed build is replaced; `create_new` never follows a
            // link planted under the temporary name.
            let _ = std::fs::remove_file(&tmp);
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?
                .write_all(&entry(key, &content))?;
            // The rename replaces whatever was there, a link or a pipe included, without
            // following it.
            std::fs::rename(&tmp, self.path(key))
        });
    }

    /// How many of the scenarios have no result in the cache yet (a count for the
    /// progress line: an entry is looked at, not yet verified).
    pub fn missing(&self, scenarios: &[Job]) -> usize {
        scenarios
            .iter()
            .filter(|&&(s, limit)| {
                !self
                    .path(&Cache::key_within(s, limit))
                    .symlink_metadata()
                    .is_ok_and(|m| m.file_type().is_file())
            })
            .count()
    }

    /// Results for every scenario, in order: from the cache where present and sound,
    /// simulated (in parallel) where not. A discarded entry is noted on stderr, in the
    /// scenarios' order.
    ///
    /// `memo` holds results of earlier builds of this process by key (see
    /// [`super::memo`]); it is consulted first and left holding this build's results.
    pub fn run_all(
        &self,
        scenarios: &[Job],
        memo: &mut HashMap<String, ScenarioResult>,
    ) -> (Vec<Result<ScenarioResult, Overwork>>, RunStats) {
        let keys: Vec<String> = (scenarios.par_iter())
            .map(|&(s, limit)| Cache::key_within(s, limit))
            .collect();
        // Taken, not copied: a scenario that a page holds twice finds the second on disk.
        let known: Vec<Option<ScenarioResult>> = keys.iter().map(|k| memo.remove(k)).collect();
        type Outcome = (Result<ScenarioResult, Overwork>, bool, Option<Discard>);
        let outcomes: Vec<Outcome> = scenarios
            .par_iter()
            .zip(&keys)
            .zip(known)
            .map(|((&(scenario, limit), key), known)| {
                if let Some(known) = known {
                    return (Ok(known), true, None);
                }
                let key = key.clone();
                let discarded = match self.get(&key, scenario) {
                    Ok(Some(hit)) => return (Ok(hit), true, None),
                    Ok(None) => None,
                    Err(why) => Some(why),
                };
                // A scenario that passes its limit leaves nothing in the cache: it runs
                // again, and stops again, until it is changed.
                let result = run_scenario_within(scenario, true, limit);
                if let Ok(result) = &result {
                    self.put(&key, result);
                }
                (result, false, discarded)
            })
            .collect();
        let mut stats = RunStats::default();
        for ((scenario, _), (key, (_, cached, discarded))) in
            scenarios.iter().zip(keys.iter().zip(&outcomes))
        {
            if let Some(why) = discarded {
                let file = format!("{FOLDER}/{}", Cache::name(key));
                note(&file, &scenario.id, why);
            }
            if *cached {
                stats.cached += 1;
            } else {
                stats.simulated += 1;
                stats.runs += u64::from(scenario.runs) * scenario.strategies.len() as u64;
            }
        }
        let results: Vec<Result<ScenarioResult, Overwork>> =
            outcomes.into_iter().map(|(r, ..)| r).collect();
        *memo = (keys.into_iter().zip(&results))
            .filter_map(|(key, result)| Some((key, result.as_ref().ok()?.clone())))
            .collect();
        (results, stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::scenario::{
        Arrivals, Balancer, Breaker, Budget, Cache as ServerCache, CacheStart, Fleet, Hedging,
        HintWhen, Layer, Outage, Override, Process, Pushback, Queue, QueueOrder, Retry, RetryAfter,
        Server, ServerModel, Slowdown, Throttle,
    };

    /// A scenario with every field, and every field of what it holds, set: a struct
    /// literal, so that a new field does not compile until it is set here.
    fn full() -> Scenario {
        Scenario {
            id: "full".into(),
            clients: 100,
            spread: 1_000_000,
            horizon: 60_000_000,
            arrivals: vec![Arrivals {
                rate_milli: 5_000,
                from: 0,
                to: 2_000_000,
                process: Process::Even,
            }],
            layers: vec![Layer {
                attempts: 3,
                strategy: Some(Strategy::FullJitter),
                base: 100_000,
                cap: 1_000_000,
                multiplier: 2.0,
            }],
            server: Server {
                model: ServerModel::Capacity,
                capacity_milli: 10_000,
                tick: 100_000,
                rejection_cost_milli: 100,
                outages: vec![Outage {
                    from: 1_000_000,
                    to: 3_000_000,
                }],
                retry_after: Some(RetryAfter {
                    hint: 2_000_000,
                    when: HintWhen::Always,
                }),
                pushback: Some(Pushback {
                    when: HintWhen::Down,
                    after: Some(2_000_000),
                }),
                slowdowns: vec![Slowdown {
                    from: 4_000_000,
                    to: 5_000_000,
                    capacity_milli: 5_000,
                }],
                cache: Some(ServerCache {
                    capacity_milli: 50_000,
                    warm_after: 200,
                    ttl: 5_000_000,
                    start: CacheStart::Cold,
                }),
                queue: Some(Queue {
                    limit: 50,
                    order: QueueOrder::Fifo,
                    drop_expired: false,
                }),
                fleet: Some(Fleet {
                    replicas: 3,
                    balancer: Balancer::LeastLoaded,
                    overrides: vec![Override {
                        replica: 2,
                        capacity_milli: Some(2_000),
                        outages: Some(Vec::new()),
                        slowdowns: Some(Vec::new()),
                        queue: Some(Queue {
                            limit: 5,
                            order: QueueOrder::Lifo,
                            drop_expired: true,
                        }),
                    }],
                }),
            },
            retry: Retry {
                base: 100_000,
                cap: 10_000_000,
                multiplier: 2.0,
                max_attempts: Some(5),
                deadline: Some(30_000_000),
                honor_retry_after: true,
                only_with_hint: false,
                budget: Some(Budget::Grpc {
                    max_tokens: 10,
                    token_ratio_milli: 100,
                }),
                breaker: Some(Breaker {
                    failure_rate: 50,
                    window: 20,
                    minimum_calls: 10,
                    open_for: 5_000_000,
                    half_open_calls: 3,
                    retry_when_open: false,
                }),
                timeout: Some(1_000_000),
                throttle: Some(Throttle {
                    k_milli: 2_000,
                    window: 10_000_000,
                }),
                jitter: 0.2,
                elsewhere: true,
                hedging: Some(Hedging {
                    delay: 50_000,
                    max_attempts: 3,
                }),
            },
            strategies: vec![Strategy::FullJitter, Strategy::Exponential],
            runs: 2,
            seed: 7,
        }
    }

    /// `full()` with one field changed, for each field: the destructuring patterns name
    /// every field, so a field added to any of these types fails to compile here until
    /// its change is listed.
    fn each_field_changed() -> Vec<(&'static str, Scenario)> {
        let base = full();
        let Scenario {
            id: _,
            clients: _,
            spread: _,
            horizon: _,
            arrivals: _,
            layers: _,
            server: _,
            retry: _,
            strategies: _,
            runs: _,
            seed: _,
        } = &base;
        let Arrivals {
            rate_milli: _,
            from: _,
            to: _,
            process: _,
        } = &base.arrivals[0];
        let Layer {
            attempts: _,
            strategy: _,
            base: _,
            cap: _,
            multiplier: _,
        } = &base.layers[0];
        let Server {
            model: _,
            capacity_milli: _,
            tick: _,
            rejection_cost_milli: _,
            outages: _,
            retry_after: _,
            pushback: _,
            slowdowns: _,
            cache: _,
            queue: _,
            fleet: _,
        } = &base.server;
        let ServerCache {
            capacity_milli: _,
            warm_after: _,
            ttl: _,
            start: _,
        } = base.server.cache.as_ref().unwrap();
        let Fleet {
            replicas: _,
            balancer: _,
            overrides: _,
        } = base.server.fleet.as_ref().unwrap();
        let Override {
            replica: _,
            capacity_milli: _,
            outages: _,
            slowdowns: _,
            queue: _,
        } = &base.server.fleet.as_ref().unwrap().overrides[0];
        let Slowdown {
            from: _,
            to: _,
            capacity_milli: _,
        } = &base.server.slowdowns[0];
        let Queue {
            limit: _,
            order: _,
            drop_expired: _,
        } = base.server.queue.as_ref().unwrap();
        let Throttle {
            k_milli: _,
            window: _,
        } = base.retry.throttle.as_ref().unwrap();
        let Outage { from: _, to: _ } = &base.server.outages[0];
        let RetryAfter { hint: _, when: _ } = base.server.retry_after.as_ref().unwrap();
        let Retry {
            base: _,
            cap: _,
            multiplier: _,
            max_attempts: _,
            deadline: _,
            honor_retry_after: _,
            only_with_hint: _,
            budget: _,
            breaker: _,
            timeout: _,
            throttle: _,
            jitter: _,
            elsewhere: _,
            hedging: _,
        } = &base.retry;
        let Hedging {
            delay: _,
            max_attempts: _,
        } = base.retry.hedging.as_ref().unwrap();
        let Breaker {
            failure_rate: _,
            window: _,
            minimum_calls: _,
            open_for: _,
            half_open_calls: _,
            retry_when_open: _,
        } = base.retry.breaker.as_ref().unwrap();
        for budget in [
            Budget::Grpc {
                max_tokens: 0,
                token_ratio_milli: 0,
            },
            Budget::Finagle {
                ttl: 0,
                min_retries_per_sec: 0,
                percent_can_retry_milli: 0,
            },
            Budget::Aws {
                quota: 0,
                retry_cost: 0,
                no_retry_increment: 0,
            },
        ] {
            match budget {
                Budget::Grpc {
                    max_tokens: _,
                    token_ratio_milli: _,
                }
                | Budget::Finagle {
                    ttl: _,
                    min_retries_per_sec: _,
                    percent_can_retry_milli: _,
                }
                | Budget::Aws {
                    quota: _,
                    retry_cost: _,
                    no_retry_increment: _,
                } => {}
            }
        }
        type Change = fn(&mut Scenario);
        let changes: [(&str, Change); 76] = [
            ("id", |s| s.id = "other".into()),
            ("clients", |s| s.clients += 1),
            ("spread", |s| s.spread += 1),
            ("horizon", |s| s.horizon += 1),
            ("arrivals", |s| s.arrivals.clear()),
            ("arrivals.rate_milli", |s| s.arrivals[0].rate_milli += 1),
            ("arrivals.from", |s| s.arrivals[0].from += 1),
            ("arrivals.to", |s| s.arrivals[0].to += 1),
            ("arrivals.process", |s| {
                s.arrivals[0].process = Process::Poisson
            }),
            ("layers", |s| s.layers.clear()),
            ("layers.attempts", |s| s.layers[0].attempts += 1),
            ("layers.strategy", |s| s.layers[0].strategy = None),
            ("layers.base", |s| s.layers[0].base += 1),
            ("layers.cap", |s| s.layers[0].cap += 1),
            ("layers.multiplier", |s| s.layers[0].multiplier += 0.5),
            ("server.model", |s| {
                s.server.model = ServerModel::AllOrNothing
            }),
            ("server.capacity_milli", |s| s.server.capacity_milli += 1),
            ("server.tick", |s| s.server.tick += 1),
            ("server.rejection_cost_milli", |s| {
                s.server.rejection_cost_milli += 1
            }),
            ("server.outages", |s| s.server.outages.clear()),
            ("server.outages.from", |s| s.server.outages[0].from += 1),
            ("server.outages.to", |s| s.server.outages[0].to += 1),
            ("server.retry_after", |s| s.server.retry_after = None),
            ("server.retry_after.hint", |s| {
                s.server.retry_after.as_mut().unwrap().hint += 1
            }),
            ("server.retry_after.when", |s| {
                s.server.retry_after.as_mut().unwrap().when = HintWhen::Down
            }),
            ("retry.base", |s| s.retry.base += 1),
            ("retry.cap", |s| s.retry.cap += 1),
            ("retry.multiplier", |s| s.retry.multiplier += 0.5),
            ("retry.max_attempts", |s| s.retry.max_attempts = None),
            ("retry.deadline", |s| s.retry.deadline = None),
            ("retry.only_with_hint", |s| s.retry.only_with_hint = true),
            ("retry.honor_retry_after", |s| {
                s.retry.honor_retry_after = false
            }),
            ("retry.budget", |s| s.retry.budget = None),
            ("retry.budget.grpc.max_tokens", |s| {
                s.retry.budget = Some(Budget::Grpc {
                    max_tokens: 11,
                    token_ratio_milli: 100,
                })
            }),
            ("retry.budget.grpc.token_ratio_milli", |s| {
                s.retry.budget = Some(Budget::Grpc {
                    max_tokens: 10,
                    token_ratio_milli: 101,
                })
            }),
            ("retry.budget.finagle", |s| {
                s.retry.budget = Some(Budget::Finagle {
                    ttl: 10,
                    min_retries_per_sec: 0,
                    percent_can_retry_milli: 100,
                })
            }),
            ("retry.budget.aws", |s| {
                s.retry.budget = Some(Budget::Aws {
                    quota: 10,
                    retry_cost: 100,
                    no_retry_increment: 0,
                })
            }),
            ("retry.breaker", |s| s.retry.breaker = None),
            ("retry.breaker.failure_rate", |s| {
                s.retry.breaker.as_mut().unwrap().failure_rate += 1
            }),
            ("retry.breaker.window", |s| {
                s.retry.breaker.as_mut().unwrap().window += 1
            }),
            ("retry.breaker.minimum_calls", |s| {
                s.retry.breaker.as_mut().unwrap().minimum_calls += 1
            }),
            ("retry.breaker.open_for", |s| {
                s.retry.breaker.as_mut().unwrap().open_for += 1
            }),
            ("retry.breaker.half_open_calls", |s| {
                s.retry.breaker.as_mut().unwrap().half_open_calls += 1
            }),
            ("server.slowdowns", |s| s.server.slowdowns.clear()),
            ("server.slowdowns.from", |s| s.server.slowdowns[0].from += 1),
            ("server.slowdowns.to", |s| s.server.slowdowns[0].to += 1),
            ("server.slowdowns.capacity_milli", |s| {
                s.server.slowdowns[0].capacity_milli += 1
            }),
            ("server.queue", |s| s.server.queue = None),
            ("server.fleet", |s| s.server.fleet = None),
            ("server.pushback", |s| s.server.pushback = None),
            ("server.cache", |s| s.server.cache = None),
            ("server.cache.capacity_milli", |s| {
                s.server.cache.as_mut().unwrap().capacity_milli += 1;
            }),
            ("server.cache.warm_after", |s| {
                s.server.cache.as_mut().unwrap().warm_after += 1;
            }),
            ("server.cache.ttl", |s| {
                s.server.cache.as_mut().unwrap().ttl += 1
            }),
            ("server.cache.start", |s| {
                s.server.cache.as_mut().unwrap().start = CacheStart::Warm;
            }),
            ("server.pushback.when", |s| {
                s.server.pushback = Some(Pushback {
                    when: HintWhen::Always,
                    after: Some(2_000_000),
                });
            }),
            ("server.pushback.after", |s| {
                s.server.pushback.as_mut().unwrap().after = None;
            }),
            ("server.fleet.replicas", |s| {
                s.server.fleet.as_mut().unwrap().replicas += 1;
            }),
            ("server.fleet.balancer", |s| {
                s.server.fleet.as_mut().unwrap().balancer = Balancer::Random;
            }),
            ("server.fleet.overrides", |s| {
                s.server.fleet.as_mut().unwrap().overrides.clear();
            }),
            ("server.fleet.overrides.replica", |s| {
                s.server.fleet.as_mut().unwrap().overrides[0].replica += 1;
            }),
            ("server.fleet.overrides.capacity_milli", |s| {
                s.server.fleet.as_mut().unwrap().overrides[0].capacity_milli = None;
            }),
            ("server.fleet.overrides.outages", |s| {
                s.server.fleet.as_mut().unwrap().overrides[0].outages = None;
            }),
            ("server.fleet.overrides.slowdowns", |s| {
                s.server.fleet.as_mut().unwrap().overrides[0].slowdowns = None;
            }),
            ("server.fleet.overrides.queue", |s| {
                s.server.fleet.as_mut().unwrap().overrides[0].queue = None;
            }),
            ("server.queue.limit", |s| {
                s.server.queue.as_mut().unwrap().limit += 1
            }),
            ("server.queue.order", |s| {
                s.server.queue.as_mut().unwrap().order = QueueOrder::Lifo
            }),
            ("server.queue.drop_expired", |s| {
                s.server.queue.as_mut().unwrap().drop_expired = true
            }),
            ("retry.timeout", |s| s.retry.timeout = None),
            ("retry.throttle", |s| s.retry.throttle = None),
            ("retry.throttle.k_milli", |s| {
                s.retry.throttle.as_mut().unwrap().k_milli += 1
            }),
            ("retry.jitter", |s| s.retry.jitter = 0.3),
            ("retry.elsewhere", |s| s.retry.elsewhere = false),
            ("retry.hedging", |s| s.retry.hedging = None),
            ("retry.hedging.delay", |s| {
                s.retry.hedging.as_mut().unwrap().delay += 1
            }),
            ("retry.hedging.max_attempts", |s| {
                s.retry.hedging.as_mut().unwrap().max_attempts += 1
            }),
        ];
        let mut out: Vec<(&'static str, Scenario)> = changes
            .iter()
            .map(|(name, change)| {
                let mut s = full();
                change(&mut s);
                (*name, s)
            })
            .collect();
        for (name, change) in [
            (
                "retry.breaker.retry_when_open",
                (|s| s.retry.breaker.as_mut().unwrap().retry_when_open = true) as Change,
            ),
            ("strategies", |s| s.strategies.reverse()),
            ("runs", |s| s.runs += 1),
            ("seed", |s| s.seed += 1),
        ] {
            let mut s = full();
            change(&mut s);
            out.push((name, s));
        }
        out
    }

    #[test]
    fn scenarios_differing_in_any_field_have_different_keys() {
        let base = full();
        let mut seen = std::collections::BTreeMap::new();
        seen.insert(Cache::key(&base), "none");
        for (name, changed) in each_field_changed() {
            assert_ne!(changed, base, "{name} changed nothing");
            if let Some(other) = seen.insert(Cache::key(&changed), name) {
                panic!("changing {name} gives the key of changing {other}");
            }
        }
    }

    #[test]
    fn the_serialisation_and_key_of_a_scenario_are_pinned() {
        // A change here is a change of what the cache's keys hash: raise the layout
        // number in HEADER, so that entries of the old keys are simulated again. A
        // server of one replica serialises as it did before replicas existed, so that
        // every entry of such a scenario keeps its key.
        let mut s = full();
        assert!(serialised(&s).contains(concat!(
            r#""drop_expired":false},"fleet":{"replicas":3,"balancer":"least-loaded","#,
            r#""overrides":[{"replica":2,"capacity_milli":2000,"outages":[],"slowdowns":[],"#,
            r#""queue":{"limit":5,"order":"lifo","drop_expired":true}}]}},"#,
        )));
        assert!(serialised(&s).contains(concat!(
            r#""jitter":0.2,"elsewhere":true,"#,
            r#""hedging":{"delay":50000,"max_attempts":3}},"#
        )));
        assert!(serialised(&s).contains(r#""pushback":{"when":"down","after":2000000},"#));
        // "Don't retry" serialises as it did before "retry after" existed.
        let mut dont = s.clone();
        dont.server.pushback.as_mut().unwrap().after = None;
        assert!(serialised(&dont).contains(r#""pushback":{"when":"down"},"#));
        assert!(serialised(&s).contains(concat!(
            r#""cache":{"capacity_milli":50000,"warm_after":200,"ttl":5000000,"#,
            r#""start":"cold"},"#
        )));
        s.server.fleet = None;
        s.server.pushback = None;
        s.server.cache = None;
        s.retry.elsewhere = false;
        s.retry.hedging = None;
        assert_eq!(
            serialised(&s),
            concat!(
                r#"{"id":"full","clients":100,"spread":1000000,"horizon":60000000,"#,
                r#""arrivals":[{"rate_milli":5000,"from":0,"to":2000000}],"#,
                r#""layers":[{"attempts":3,"strategy":"full-jitter","base":100000,"#,
                r#""cap":1000000,"multiplier":2.0}],"#,
                r#""server":{"model":"capacity","capacity_milli":10000,"tick":100000,"#,
                r#""rejection_cost_milli":100,"outages":[{"from":1000000,"to":3000000}],"#,
                r#""retry_after":{"hint":2000000,"when":"always"},"#,
                r#""slowdowns":[{"from":4000000,"to":5000000,"capacity_milli":5000}],"#,
                r#""queue":{"limit":50,"order":"fifo","drop_expired":false}},"#,
                r#""retry":{"base":100000,"cap":10000000,"multiplier":2.0,"#,
                r#""max_attempts":5,"deadline":30000000,"honor_retry_after":true,"#,
                r#""budget":{"grpc":{"max_tokens":10,"token_ratio_milli":100}},"#,
                r#""breaker":{"failure_rate":50,"window":20,"minimum_calls":10,"#,
                r#""open_for":5000000,"half_open_calls":3,"retry_when_open":false},"#,
                r#""timeout":1000000,"throttle":{"k_milli":2000,"window":10000000},"#,
                r#""jitter":0.2},"#,
                r#""strategies":["full-jitter","exponential"],"runs":2,"seed":7}"#,
            )
        );
        assert_eq!(
            Cache::key(&s),
            "c9adeb2b6bf00929eb177c0e74f3ddac3500c4232d5412358725b1c642840b51"
        );
    }

    #[test]
    fn an_entry_holds_only_for_its_own_key_and_content() {
        let text = entry("k", b"{\"a\":1}");
        assert_eq!(verified("k", &text), Ok(&b"{\"a\":1}"[..]));
        assert_eq!(verified("other", &text), Err(Discard::Checksum));
        let mut edited = text.clone();
        let last = edited.len() - 2;
        edited[last] = b'2';
        assert_eq!(verified("k", &edited), Err(Discard::Checksum));
        assert_eq!(verified("k", b"{\"a\":1}"), Err(Discard::NoChecksum));
        assert_eq!(verified("k", b""), Err(Discard::NoChecksum));
    }

    #[test]
    fn only_regular_files_of_a_bounded_size_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read_regular(&file, 5), Ok(Some(b"12345".to_vec())));
        assert_eq!(read_regular(&file, 4), Err(Discard::TooLarge(5)));
        assert_eq!(read_regular(&dir.path().join("none"), 5), Ok(None));
        assert_eq!(read_regular(dir.path(), 5), Err(Discard::NotAFile));
        assert_eq!(read_regular(&file.join("below"), 5), Ok(None));
    }
}
