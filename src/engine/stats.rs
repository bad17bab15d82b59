//! Monte Carlo: every strategy over `runs` seeds on all cores, summarised as median,
//! 5th and 95th percentile, with one typical run kept for the charts.
//!
//! The typical run of a strategy is the first run (lowest seed) whose number of calls is
//! the median number of calls. Its lanes, when asked for, are computed again after the
//! runs, so a thousand runs never hold a thousand sets of lanes; a strategy of a single
//! run keeps the lanes of that run instead, and without lanes nothing is run again (the
//! typical run's totals are those of its first pass: same seed, same run).

#[cfg(feature = "parallel")]
use rayon::prelude::*;
#[cfg(not(feature = "parallel"))]
use sequential::*;
use serde::{Deserialize, Serialize};

use super::outcome::{Run, Totals};
use super::policy::{Policies, Strategy};
use super::run::simulate_with;
use super::scenario::Scenario;
use super::units::Micros;

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
fn nearest_rank(sorted: &[u64], p: usize) -> u64 {
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
    /// Served calls per second after the trigger, in thousandths (open-loop load only).
    pub goodput_milli: Spread,
    /// Runs in which goodput recovered (a trigger and open-loop load only).
    pub recovered_runs: u32,
    /// The recovery time, over all runs (see [`Spread::of_all`]): `None`, "never", when
    /// fewer than half the runs recovered.
    pub recovery: Option<Spread>,
    /// The typical run, with its lanes.
    pub typical: Run,
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
    /// Open-loop requests per run (the same in every run).
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
    /// Layers of retries.
    pub layers: bool,
}

impl Features {
    /// The features of a scenario.
    pub fn of(scenario: &Scenario) -> Features {
        Features {
            open: !scenario.arrivals.is_empty(),
            recovery: scenario.trigger_end().is_some(),
            budget: scenario.retry.budget.is_some(),
            breaker: scenario.retry.breaker.is_some(),
            layers: !scenario.layers.is_empty(),
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
/// (otherwise its `lanes` are `None`, and everything else is the same).
pub fn run_scenario_with(scenario: &Scenario, with_lanes: bool) -> ScenarioResult {
    let runs = scenario.runs as usize;
    let seed_of = |run: usize| scenario.seed.wrapping_add(run as u64);
    // Built once per strategy: every run of the strategy shares its table of ceilings.
    let policies: Vec<Policies> = scenario
        .strategies
        .iter()
        .map(|&s| Policies::new(scenario, s))
        .collect();
    let jobs: Vec<(&Policies, usize)> = policies
        .iter()
        .flat_map(|p| (0..runs).map(move |r| (p, r)))
        .collect();
    // A single run is the typical one: its lanes are kept rather than run again.
    let lanes_now = with_lanes && runs == 1;
    let done: Vec<Run> = jobs
        .par_iter()
        .map(|&(policies, run)| simulate_with(scenario, policies, seed_of(run), lanes_now))
        .collect();

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
        arrivals: scenario.arrivals_total(),
        offered_milli: super::recovery::offered_milli(scenario),
        features: Features::of(scenario),
        strategies,
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
        goodput_milli: spread(|t| t.goodput_milli),
        recovered_runs: recovered.iter().flatten().count() as u32,
        recovery: Spread::of_all(&recovered),
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
