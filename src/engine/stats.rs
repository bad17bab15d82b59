//! Monte Carlo: every strategy over `runs` seeds on all cores, summarised as median,
//! 5th and 95th percentile, with one typical run kept for the charts.
//!
//! The typical run of a strategy is the first run (lowest seed) whose number of calls is
//! the median number of calls. Its lanes, when asked for, are computed again after the
//! runs, so a thousand runs never hold a thousand sets of lanes; a strategy of a single
//! run keeps the lanes of that run instead, and without lanes nothing is run again (the
//! typical run's totals are those of its first pass: same seed, same run).
//!
//! A total that only some runs have is summarised in one of two ways. The time the last
//! client finished and the recovery time are quoted over all runs, a run without one
//! counting as later than any ([`Spread::of_all`]): a run that never finished took
//! longer than every run that did, and leaving it out would flatter the strategy. A
//! run's latency percentiles (`latency_p50`, `latency_p99`) are summarised over the runs
//! that have them ([`Spread::of`] of those runs' values): a run has none only when no
//! call of it was answered in time, and such a run has no latency to rank, long or
//! short (what it did instead shows in `timed_out`, `gave_up` and `served`). As
//! `finished_runs` stands beside `done_at`, the count of the runs that have a latency
//! (`latency_runs`) stands beside them, to be shown whenever some runs lack one; when
//! no run has one, the latencies are `None`.

#[cfg(feature = "parallel")]
use rayon::prelude::*;
#[cfg(not(feature = "parallel"))]
use sequential::*;
use serde::{Deserialize, Serialize};

use super::outcome::{Run, Totals};
use super::policy::{Policies, Strategy};
use super::run::{simulate_with, simulate_within};
use super::scenario::Scenario;
use super::units::Micros;
use super::work::{Overwork, Work};

/// Median, 5th and 95th percentile of a total over runs (nearest rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Spread {
    /// The 50th percentile.
    pub median: u64,
    /// The 5th percentile.
    pub p5: u64,
    /// The 95th percentile.
    pub p95: u64,
}

impl Spread {
    /// Summarises values (sorted here); `None` when there are none.
    pub fn of(mut values: Vec<u64>) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        values.sort_unstable();
        Some(Spread {
            median: nearest_rank(&values, 50),
            p5: nearest_rank(&values, 5),
            p95: nearest_rank(&values, 95),
        })
    }

    /// Summarises a time that only some runs have (when the last client finished, the
    /// recovery time) over all runs, a run without one counting as later than any time:
    /// `None` when the median is such a run, that is when fewer than half the runs have
    /// one. The 5th percentile is then a time too; the 95th is the latest time of a run
    /// that has one when it falls on a run that has none, so the count of the runs that
    /// have one must be shown beside it whenever some lack it.
    pub fn of_all(values: &[Option<u64>]) -> Option<Spread> {
        let mut times: Vec<u64> = values.iter().flatten().copied().collect();
        times.sort_unstable();
        let runs = values.len();
        let at = |p: usize| {
            let rank = (p * runs).div_ceil(100).max(1);
            times.get(rank - 1).copied()
        };
        Some(Spread {
            median: at(50)?,
            p5: at(5)?,
            p95: at(95).or(times.last().copied())?,
        })
    }

    /// Whether all three agree, as they do for a deterministic total.
    pub fn is_exact(&self) -> bool {
        self.p5 == self.p95
    }
}

/// The `p`th percentile of sorted values by nearest rank: the value at rank
/// `ceil(p/100 · n)`, counting from 1.
pub fn nearest_rank(sorted: &[u64], p: usize) -> u64 {
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

/// One strategy's results over all runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StrategyResult {
    /// The strategy.
    pub strategy: Strategy,
    /// Calls the server saw.
    pub calls: Spread,
    /// Clients served.
    pub served: Spread,
    /// Clients that gave up.
    pub gave_up: Spread,
    /// Clients still retrying at the horizon.
    pub still_retrying: Spread,
    /// Runs in which every client finished.
    pub finished_runs: u32,
    /// When the last client finished, over all runs (see [`Spread::of_all`]): `None`,
    /// "never", when fewer than half the runs finished.
    pub done_at: Option<Spread>,
    /// Calls that failed fast at the breaker.
    pub failed_fast: Spread,
    /// Clients that gave up because the budget refused a retry.
    pub denied: Spread,
    /// Clients whose request the server's pushback ended.
    pub pushed_back: Spread,
    /// Hedges sent (with hedging).
    pub hedges: Spread,
    /// Served calls per second after the trigger, in thousandths (open-loop load only).
    pub goodput_milli: Spread,
    /// Runs in which goodput recovered (a trigger and open-loop load only).
    pub recovered_runs: u32,
    /// The recovery time, over all runs (see [`Spread::of_all`]): `None`, "never", when
    /// fewer than half the runs recovered.
    pub recovery: Option<Spread>,
    /// Calls the server served after their client had timed out.
    pub wasted: Spread,
    /// Attempts that ended by the client's timeout.
    pub timed_out: Spread,
    /// Attempts refused locally by adaptive throttling.
    pub throttled: Spread,
    /// Runs in which some call was answered in time, so that they have a latency.
    pub latency_runs: u32,
    /// Each run's median latency, over the runs that have one (see the module's
    /// documentation): `None` when no run has one.
    pub latency_p50: Option<Spread>,
    /// Each run's 99th percentile latency, over the runs that have one: `None` when no
    /// run has one.
    pub latency_p99: Option<Spread>,
    /// The most calls turned away in one tick of a run.
    pub peak_rejected: Spread,
    /// Each replica's totals over all runs, replica 1 first, for a server of several
    /// ([`super::fleet`]); empty for one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<ReplicaResult>,
    /// The typical run, with its lanes.
    pub typical: Run,
}

/// One replica's totals over all runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReplicaResult {
    /// Calls it saw.
    pub calls: Spread,
    /// Calls it served.
    pub served: Spread,
    /// Calls it turned away.
    pub rejected: Spread,
    /// Queued calls it served after their client had timed out.
    pub wasted: Spread,
    /// Its clients' timeouts.
    pub timed_out: Spread,
    /// Queued calls it discarded.
    pub dropped: Spread,
    /// Calls in its queue at the horizon.
    pub queued: Spread,
    /// The runs in which it answered a call in time, which its latencies are over.
    pub latency_runs: u32,
    /// Each run's median latency of its answers, over the runs that have one.
    pub latency_p50: Option<Spread>,
    /// Each run's 99th percentile latency of its answers, over the runs that have one.
    pub latency_p99: Option<Spread>,
}

/// A scenario's results: one entry per strategy, in the scenario's order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// The scenario's id.
    pub id: String,
    /// Runs per strategy.
    pub runs: u32,
    /// The seed of the first run.
    pub seed: u64,
    /// Clients in the crowd.
    pub clients: u64,
    /// The tick length.
    pub tick: Micros,
    /// Open-loop requests per run: the same in every run with even spacing; with a
    /// Poisson window, their median over the runs (a run's requests depend on its seed
    /// alone, the same for every strategy), which shares of the requests are of.
    pub arrivals: u64,
    /// The offered load after the trigger, in thousandths of a request per second.
    pub offered_milli: u64,
    /// The guards the scenario turns on, so that outputs show only what applies.
    pub features: Features,
    /// Per strategy.
    pub strategies: Vec<StrategyResult>,
}

/// Which guards a scenario uses (see [`super::guards`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Features {
    /// Open-loop arrivals: goodput applies.
    pub open: bool,
    /// Open-loop arrivals and an outage: the recovery time applies.
    pub recovery: bool,
    /// A retry budget: denied give-ups apply.
    pub budget: bool,
    /// A breaker: failed-fast calls apply.
    pub breaker: bool,
    /// The server's pushback "don't retry": requests it ended apply.
    pub pushback: bool,
    /// Hedged requests: hedges apply, and wasted calls.
    pub hedging: bool,
    /// Layers of retries.
    pub layers: bool,
    /// A queue in front of the server: latency is more than a tick.
    pub queue: bool,
    /// A per-attempt timeout: timed-out attempts and wasted calls apply.
    pub timeout: bool,
    /// Adaptive throttling: throttled attempts apply.
    pub throttle: bool,
}

impl Features {
    /// The features of a scenario. A library strategy runs the library's own retry
    /// budget ([`Scenario::lane`]), so the scenario has a budget when any lane has one.
    pub fn of(scenario: &Scenario) -> Features {
        let budget = scenario
            .strategies
            .iter()
            .any(|&s| scenario.lane(s).retry.budget.is_some());
        Features {
            open: !scenario.arrivals.is_empty(),
            recovery: scenario.trigger_end().is_some(),
            budget,
            breaker: scenario.retry.breaker.is_some(),
            pushback: scenario.server.pushback.is_some_and(|p| p.after.is_none()),
            hedging: scenario.retry.hedging.is_some(),
            layers: !scenario.layers.is_empty(),
            queue: scenario.server.queued(),
            timeout: scenario.retry.timeout.is_some(),
            throttle: scenario.retry.throttle.is_some(),
        }
    }
}

impl ScenarioResult {
    /// Every user request of a run: the crowd and the arrivals.
    pub fn requests(&self) -> u64 {
        self.clients + self.arrivals
    }

    /// The results of one strategy, if the scenario has it.
    pub fn strategy(&self, strategy: Strategy) -> Option<&StrategyResult> {
        self.strategies.iter().find(|s| s.strategy == strategy)
    }
}

/// Runs every strategy of a scenario over all its seeds, spread over all cores, with
/// the lanes of each typical run. The result does not depend on the number of cores.
pub fn run_scenario(scenario: &Scenario) -> ScenarioResult {
    run_scenario_with(scenario, true)
}

/// [`run_scenario`], with the lanes of each typical run only when `with_lanes`
/// (otherwise its `lanes` are `None`, and everything else is the same). It does not
/// look at the limit of work, which [`run_scenario_within`] holds.
pub fn run_scenario_with(scenario: &Scenario, with_lanes: bool) -> ScenarioResult {
    run_runs(scenario, with_lanes, None).expect("a scenario without a limit of work always ends")
}

/// [`run_scenario_with`] within `limit` steps of work over all its runs
/// ([`super::work`]): what each run of each strategy would take when it passes them.
pub fn run_scenario_within(
    scenario: &Scenario,
    with_lanes: bool,
    limit: u64,
) -> Result<ScenarioResult, Overwork> {
    if scenario.most_work() <= u128::from(limit) {
        return Ok(run_scenario_with(scenario, with_lanes));
    }
    let work = Work::new(limit);
    run_runs(scenario, with_lanes, Some(&work)).ok_or_else(|| Overwork::measure(scenario, limit))
}

/// The runs of a scenario: one per strategy and seed, strategy by strategy. Run `j`
/// of [`run_jobs`] is run `j % runs` (seed `seed + j % runs`) of the `j / runs`-th
/// strategy.
pub fn jobs(scenario: &Scenario) -> usize {
    scenario.strategies.len() * scenario.runs as usize
}

/// The table of ceilings of each strategy, built once: every run of a strategy shares it.
fn policies_of(scenario: &Scenario) -> Vec<Policies> {
    (scenario.strategies.iter())
        .map(|&s| Policies::new(scenario, s))
        .collect()
}

/// Runs `jobs` of [`jobs`] (those of them there are), in order, without their lanes
/// and with no limit of work: a share of a scenario's runs, for [`summary`] to
/// summarise with the others. The browser's playground splits a scenario's runs so
/// among its workers, one per core, as `rayon` does here.
pub fn run_jobs(scenario: &Scenario, jobs: std::ops::Range<usize>) -> Vec<Run> {
    let policies = policies_of(scenario);
    let runs = scenario.runs as usize;
    let all = self::jobs(scenario);
    (jobs.start.min(all)..jobs.end.min(all))
        .map(|j| {
            let seed = scenario.seed.wrapping_add((j % runs) as u64);
            simulate_with(scenario, &policies[j / runs], seed, false)
        })
        .collect()
}

/// The result of a scenario from all its runs, in the order of [`jobs`] (as
/// [`run_jobs`] gives them): what [`run_scenario_with`] gives, to the byte, for the
/// runs it would make. `None` when they cannot be those runs: too few or too many, a
/// seed out of place, or runs of one strategy with different numbers of replicas.
pub fn summary(scenario: &Scenario, done: &[Run], with_lanes: bool) -> Option<ScenarioResult> {
    let runs = scenario.runs as usize;
    let fits = done.len() == jobs(scenario)
        && (done.iter().enumerate()).all(|(j, run)| {
            run.seed == scenario.seed.wrapping_add((j % runs) as u64)
                && run.replicas.len() == done[j - j % runs].replicas.len()
        });
    fits.then(|| summarised(scenario, &policies_of(scenario), done, with_lanes))
}

/// Every run of every strategy, summarised: `None` when their steps passed `work`'s
/// limit.
fn run_runs(scenario: &Scenario, with_lanes: bool, work: Option<&Work>) -> Option<ScenarioResult> {
    let runs = scenario.runs as usize;
    let seed_of = |run: usize| scenario.seed.wrapping_add(run as u64);
    let policies = policies_of(scenario);
    let jobs: Vec<(&Policies, usize)> = policies
        .iter()
        .flat_map(|p| (0..runs).map(move |r| (p, r)))
        .collect();
    // A single run is the typical one: its lanes are kept rather than run again.
    let lanes_now = with_lanes && runs == 1;
    let done: Option<Vec<Run>> = jobs
        .par_iter()
        .map(|&(policies, run)| simulate_within(scenario, policies, seed_of(run), lanes_now, work))
        .collect();
    Some(summarised(scenario, &policies, &done?, with_lanes))
}

/// The runs `done` of every strategy (`policies`), in the order of [`jobs`], summarised.
fn summarised(
    scenario: &Scenario,
    policies: &[Policies],
    done: &[Run],
    with_lanes: bool,
) -> ScenarioResult {
    let runs = scenario.runs as usize;
    let seed_of = |run: usize| scenario.seed.wrapping_add(run as u64);
    let strategies = policies
        .par_iter()
        .zip(done.par_chunks(runs))
        .map(|(policies, done)| summarise(scenario, policies, done, with_lanes, seed_of))
        .collect();

    ScenarioResult {
        id: scenario.id.clone(),
        runs: scenario.runs,
        seed: scenario.seed,
        clients: scenario.clients,
        tick: scenario.server.tick,
        arrivals: match scenario.arrivals_vary() {
            false => scenario.arrivals_total(),
            true => median_arrivals(&done[..runs.min(done.len())]),
        },
        offered_milli: super::recovery::offered_milli(scenario),
        features: Features::of(scenario),
        strategies,
    }
}

/// The median of the runs' open-loop requests (0 for no run).
fn median_arrivals(runs: &[Run]) -> u64 {
    let mut arrivals: Vec<u64> = runs.iter().map(|r| r.totals.arrivals).collect();
    arrivals.sort_unstable();
    match arrivals.is_empty() {
        true => 0,
        false => nearest_rank(&arrivals, 50),
    }
}

fn summarise(
    scenario: &Scenario,
    policies: &Policies,
    all: &[Run],
    with_lanes: bool,
    seed_of: impl Fn(usize) -> u64,
) -> StrategyResult {
    let totals: Vec<Totals> = all.iter().map(|r| r.totals).collect();
    let spread = |f: fn(&Totals) -> u64| {
        Spread::of(totals.iter().map(f).collect()).expect("a scenario has at least one run")
    };
    let calls = spread(|t| t.calls);
    let typical = totals
        .iter()
        .position(|t| t.calls == calls.median)
        .unwrap_or(0);
    let done: Vec<Option<u64>> = totals.iter().map(|t| t.done_at).collect();
    let recovered: Vec<Option<u64>> = totals.iter().map(|t| t.recovery).collect();
    let latency =
        |f: fn(&Totals) -> Option<Micros>| Spread::of(totals.iter().filter_map(f).collect());
    StrategyResult {
        strategy: policies.strategy,
        calls,
        served: spread(|t| t.served),
        gave_up: spread(|t| t.gave_up),
        still_retrying: spread(|t| t.still_retrying),
        finished_runs: done.iter().flatten().count() as u32,
        done_at: Spread::of_all(&done),
        failed_fast: spread(|t| t.failed_fast),
        denied: spread(|t| t.denied),
        pushed_back: spread(|t| t.pushed_back),
        hedges: spread(|t| t.hedges),
        goodput_milli: spread(|t| t.goodput_milli),
        recovered_runs: recovered.iter().flatten().count() as u32,
        recovery: Spread::of_all(&recovered),
        wasted: spread(|t| t.wasted),
        timed_out: spread(|t| t.timed_out),
        throttled: spread(|t| t.throttled),
        latency_runs: totals.iter().filter(|t| t.latency_p50.is_some()).count() as u32,
        latency_p50: latency(|t| t.latency_p50),
        latency_p99: latency(|t| t.latency_p99),
        peak_rejected: spread(|t| t.peak_rejected),
        replicas: (0..all[0].replicas.len())
            .map(|r| {
                use super::fleet::ReplicaTotals;
                let of = |f: fn(&ReplicaTotals) -> u64| {
                    Spread::of(all.iter().map(|run| f(&run.replicas[r])).collect())
                        .expect("a scenario has at least one run")
                };
                let latency = |f: fn(&ReplicaTotals) -> Option<Micros>| {
                    Spread::of(all.iter().filter_map(|run| f(&run.replicas[r])).collect())
                };
                ReplicaResult {
                    calls: of(|t| t.calls),
                    served: of(|t| t.served),
                    rejected: of(|t| t.rejected),
                    wasted: of(|t| t.wasted),
                    timed_out: of(|t| t.timed_out),
                    dropped: of(|t| t.dropped),
                    queued: of(|t| t.queued),
                    latency_runs: (all.iter())
                        .filter(|run| run.replicas[r].latency_p50.is_some())
                        .count() as u32,
                    latency_p50: latency(|t| t.latency_p50),
                    latency_p99: latency(|t| t.latency_p99),
                }
            })
            .collect(),
        typical: match &all[typical] {
            run if run.lanes.is_some() || !with_lanes => run.clone(),
            _ => simulate_with(scenario, policies, seed_of(typical), true),
        },
    }
}

/// Without the `parallel` feature (as in WebAssembly), the same iterators run in order on
/// one thread. Runs are independent and collected in order, so results are identical.
#[cfg(not(feature = "parallel"))]
mod sequential {
    /// `par_iter` and `par_chunks` as their sequential counterparts.
    pub trait Sequential<T> {
        fn par_iter(&self) -> std::slice::Iter<'_, T>;
        fn par_chunks(&self, size: usize) -> std::slice::Chunks<'_, T>;
    }

    impl<T> Sequential<T> for [T] {
        fn par_iter(&self) -> std::slice::Iter<'_, T> {
            self.iter()
        }
        fn par_chunks(&self, size: usize) -> std::slice::Chunks<'_, T> {
            self.chunks(size)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::units::SECOND;

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<u64> = (1..=200).collect();
        let s = Spread::of(values).unwrap();
        assert_eq!((s.p5, s.median, s.p95), (10, 100, 190));
        let one = Spread::of(vec![7]).unwrap();
        assert_eq!((one.p5, one.median, one.p95), (7, 7, 7));
        let s = Spread::of(vec![5, 1, 3]).unwrap();
        assert_eq!((s.p5, s.median, s.p95), (1, 3, 5));
        assert_eq!(Spread::of(Vec::new()), None);
    }

    /// Runs of hand-made totals, summarised as a scenario's strategy is.
    fn summarised(totals: &[Totals]) -> StrategyResult {
        let scenario = Scenario::with_clients("s", 10);
        let policies = Policies::new(&scenario, Strategy::Exponential);
        let runs: Vec<Run> = totals
            .iter()
            .enumerate()
            .map(|(i, t)| Run {
                seed: i as u64,
                totals: *t,
                lanes: None,
                replicas: Vec::new(),
            })
            .collect();
        summarise(&scenario, &policies, &runs, false, |r| r as u64)
    }

    #[test]
    fn the_overload_totals_are_summarised_over_runs() {
        // Twenty runs: wasted 1..=20, timed out 10 times that, throttled 100 less it.
        let totals: Vec<Totals> = (1..=20u64)
            .map(|n| Totals {
                wasted: n,
                timed_out: 10 * n,
                throttled: 100 - n,
                latency_p50: Some(n * 1_000),
                latency_p99: Some(n * 10_000),
                ..Totals::default()
            })
            .collect();
        let s = summarised(&totals);
        // Nearest rank of 20: the 5th percentile is rank 1, the median rank 10, the 95th
        // rank 19.
        let all = |s: &Spread| (s.p5, s.median, s.p95);
        assert_eq!(all(&s.wasted), (1, 10, 19));
        assert_eq!(all(&s.timed_out), (10, 100, 190));
        assert_eq!(all(&s.throttled), (80, 89, 98));
        assert_eq!(s.latency_runs, 20);
        assert_eq!(all(&s.latency_p50.unwrap()), (1_000, 10_000, 19_000));
        assert_eq!(all(&s.latency_p99.unwrap()), (10_000, 100_000, 190_000));
    }

    #[test]
    fn latency_is_over_the_runs_that_answered_a_call_in_time() {
        // Four runs, one of which answered nothing in time: the percentiles are those of
        // the three others (ranks 1, 2 and 3 of three), not "never" as the missing run
        // would make a time over all runs.
        let latency = |p50: Option<u64>, p99: Option<u64>| Totals {
            latency_p50: p50,
            latency_p99: p99,
            ..Totals::default()
        };
        let s = summarised(&[
            latency(Some(300_000), Some(900_000)),
            latency(None, None),
            latency(Some(100_000), Some(2_000_000)),
            latency(Some(200_000), Some(400_000)),
        ]);
        assert_eq!(s.latency_runs, 3);
        let p50 = s.latency_p50.unwrap();
        assert_eq!((p50.p5, p50.median, p50.p95), (100_000, 200_000, 300_000));
        let p99 = s.latency_p99.unwrap();
        assert_eq!((p99.p5, p99.median, p99.p95), (400_000, 900_000, 2_000_000));
        // One run of fifty with a latency: it is the latency, however few runs have one.
        let mut one = vec![latency(None, None); 49];
        one.push(latency(Some(7), Some(9)));
        let s = summarised(&one);
        assert_eq!(s.latency_runs, 1);
        assert_eq!(s.latency_p50.unwrap().median, 7);
        // None at all: no latency.
        let s = summarised(&[latency(None, None); 3]);
        assert_eq!(
            (s.latency_runs, s.latency_p50, s.latency_p99),
            (0, None, None)
        );
    }

    #[test]
    fn the_features_say_which_overload_totals_apply() {
        use crate::engine::scenario::{Queue, QueueOrder, Throttle};
        let mut scenario = Scenario::with_clients("s", 10);
        assert_eq!(Features::of(&scenario), Features::default());
        let queue = |limit| Queue {
            limit,
            order: QueueOrder::Fifo,
            drop_expired: false,
        };
        scenario.server.queue = Some(queue(0));
        assert!(!Features::of(&scenario).queue, "a limit of 0 is no queue");
        scenario.server.queue = Some(queue(5));
        scenario.retry.timeout = Some(SECOND);
        scenario.retry.throttle = Some(Throttle {
            k_milli: 2_000,
            window: 10 * SECOND,
        });
        let f = Features::of(&scenario);
        assert!(f.queue && f.timeout && f.throttle);
    }

    #[test]
    fn a_library_strategy_with_its_own_budget_gives_the_scenario_a_budget() {
        // botocore's standard mode brings its retry quota; tenacity brings none.
        let mut scenario = Scenario::with_clients("s", 10);
        scenario.strategies = vec![Strategy::Tenacity];
        assert!(!Features::of(&scenario).budget);
        scenario.strategies = vec![Strategy::Tenacity, Strategy::AwsStandard];
        assert!(Features::of(&scenario).budget);
        let result = run_scenario_with(&scenario, false);
        assert!(
            result.features.budget,
            "the JSON and the tables have `denied`"
        );
    }

    #[test]
    fn the_peak_is_the_most_calls_turned_away_in_one_tick_of_a_run() {
        // 25 clients against 10 calls a tick, a fixed delay of one tick, rejections free:
        // tick 0 sees 25 (10 served, 15 turned away), tick 1 the 15 (10 served, 5 turned
        // away), tick 2 the 5 (all served). The peak is 15, not the 20 of the sum.
        let mut scenario = Scenario::with_clients("s", 25);
        scenario.server.rejection_cost_milli = 0;
        scenario.strategies = vec![Strategy::Fixed];
        scenario.runs = 3;
        let result = run_scenario_with(&scenario, false);
        let s = &result.strategies[0];
        assert_eq!(s.calls.median, 45);
        assert_eq!((s.peak_rejected.p5, s.peak_rejected.p95), (15, 15));
        // With the cost of a rejection: tick 1 serves floor(10 − 0.1 × 15) = 8 of the 15
        // and turns 7 away; tick 2 serves the 7. The peak is still the first tick's.
        scenario.server.rejection_cost_milli = 100;
        let s = &run_scenario_with(&scenario, false).strategies[0];
        assert_eq!(s.calls.median, 47);
        assert_eq!(s.peak_rejected.median, 15);
        // Ten clients fit in the first tick: nobody is turned away.
        let mut few = Scenario::with_clients("s", 10);
        few.strategies = vec![Strategy::Fixed];
        let s = &run_scenario_with(&few, false).strategies[0];
        assert_eq!(s.peak_rejected.median, 0);
        // The summary takes each run's peak, not a peak over runs summed.
        let peaks: Vec<Totals> = [3, 9, 1]
            .iter()
            .map(|&p| Totals {
                peak_rejected: p,
                ..Totals::default()
            })
            .collect();
        let s = summarised(&peaks);
        let p = s.peak_rejected;
        assert_eq!((p.p5, p.median, p.p95), (1, 3, 9));
    }

    #[test]
    fn a_time_some_runs_lack_is_quoted_over_all_runs() {
        // One run of fifty has a time: the median is "never".
        let mut one = vec![None; 49];
        one.push(Some(70));
        assert_eq!(Spread::of_all(&one), None);
        // Two of four: the median (rank 2) is the later of the two times.
        let half = [Some(30), None, Some(10), None];
        let s = Spread::of_all(&half).unwrap();
        assert_eq!((s.p5, s.median, s.p95), (10, 30, 30));
        // Three of four: the median counts the missing run as the latest.
        let most = [Some(40), Some(10), None, Some(20)];
        let s = Spread::of_all(&most).unwrap();
        assert_eq!((s.p5, s.median, s.p95), (10, 20, 40));
        // Every run: the same as over the times alone.
        let all: Vec<Option<u64>> = (1..=200).map(Some).collect();
        let s = Spread::of_all(&all).unwrap();
        assert_eq!((s.p5, s.median, s.p95), (10, 100, 190));
        assert_eq!(Spread::of_all(&[]), None);
    }
}
