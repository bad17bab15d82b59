//! The limit of work: how much simulation one scenario may do.
//!
//! A step is one tick of one run, or one call seen in a tick of one run, weighted as
//! [`Scenario::step_costs`] says. A scenario may do at most its limit of steps
//! ([`MAX_WORK`], or a sweep's share of it) over every run of every strategy:
//!
//! - one whose least work ([`Scenario::least_work`]) passes the limit is refused before
//!   it runs, where it is read;
//! - one whose most work ([`Scenario::most_work`]) is within the limit runs without
//!   counting;
//! - any other runs, counting its steps as it goes, and stops as soon as they pass the
//!   limit ([`Overwork`]).
//!
//! Whether a scenario passes the limit does not depend on how its runs are spread over
//! threads: every run tells the shared count its steps, and a run stops only when the
//! count has passed the limit, which the sum of all its runs' steps then does too. What
//! the error says of the scenario (one run's steps per strategy) is measured again, one
//! run after another, so that it too is the same on every machine.

use std::sync::atomic::{AtomicU64, Ordering};

use super::policy::{Policies, Strategy};
use super::run::simulate_within;
use super::scenario::{MAX_WORK, Scenario};
use crate::format::thousands;

/// How many steps a run does before it tells the shared count: seldom enough that two
/// threads do not wait on each other, often enough that a run passes the limit by little.
pub(super) const TOLD_EVERY: u64 = 1 << 16;

/// The steps that every run of one scenario has done, against its limit.
#[derive(Debug)]
pub struct Work {
    limit: u64,
    spent: AtomicU64,
}

impl Work {
    /// A count of nothing done yet, against `limit` steps.
    pub fn new(limit: u64) -> Work {
        Work {
            limit,
            spent: AtomicU64::new(0),
        }
    }

    /// Adds `steps` to the count: whether it has passed the limit.
    pub(super) fn spend(&self, steps: u64) -> bool {
        let before = self.spent.fetch_add(steps, Ordering::Relaxed);
        before.saturating_add(steps) > self.limit
    }
}

/// A scenario that passed its limit of work, with what it would take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overwork {
    /// The limit it passed, in steps.
    pub limit: u64,
    /// Its runs per strategy.
    pub runs: u32,
    /// One run (the first seed's) of each strategy, in the scenario's order, each
    /// measured within what the ones before it left of the limit.
    pub per_run: Vec<(Strategy, Measured)>,
}

/// What one run was found to take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measured {
    /// This many steps.
    Steps(u64),
    /// More than this many, which were all that was left of the limit.
    MoreThan(u64),
    /// Nothing was left of the limit to measure it with.
    Unmeasured,
}

impl Overwork {
    /// Measures one run of each strategy of `scenario`, one after another within
    /// `limit` steps in all.
    pub(super) fn measure(scenario: &Scenario, limit: u64) -> Overwork {
        let mut left = limit;
        let mut per_run = Vec::new();
        for &strategy in &scenario.strategies {
            let measured = if left == 0 {
                Measured::Unmeasured
            } else {
                let policies = Policies::new(scenario, strategy);
                let work = Work::new(left);
                match simulate_within(scenario, &policies, scenario.seed, false, Some(&work)) {
                    Some(_) => Measured::Steps(work.spent.load(Ordering::Relaxed)),
                    None => Measured::MoreThan(left),
                }
            };
            left = match measured {
                Measured::Steps(steps) => left - steps,
                Measured::MoreThan(_) | Measured::Unmeasured => 0,
            };
            per_run.push((strategy, measured));
        }
        Overwork {
            limit,
            runs: scenario.runs,
            per_run,
        }
    }

    /// The steps of every run of every strategy, when one run of each fits the limit.
    pub fn estimate(&self) -> Option<u128> {
        self.per_run
            .iter()
            .map(|(_, measured)| match measured {
                Measured::Steps(steps) => Some(u128::from(*steps) * u128::from(self.runs)),
                Measured::MoreThan(_) | Measured::Unmeasured => None,
            })
            .sum()
    }

    /// The error, placed at `node` ([`super::read::load_node`], or a sweep's value):
    /// `point` when the scenario is a sweep's.
    pub fn error(&self, node: &crate::yaml::Node, point: bool) -> super::ScenarioError {
        super::ScenarioError {
            pos: node.pos,
            width: node.width,
            message: self.message(point),
            help: Some(self.help()),
        }
    }

    /// What went wrong, for a scenario or, with `point`, the scenario of a sweep's value.
    pub fn message(&self, point: bool) -> String {
        let what = match point {
            true => "the scenario at this value",
            false => "this scenario",
        };
        let share = match u128::from(self.limit) == MAX_WORK {
            true => String::new(),
            false => format!(", its share of {}", thousands(MAX_WORK)),
        };
        let limit = thousands(self.limit);
        let needs = match self.estimate() {
            Some(steps) => format!(
                "about {} steps of simulation, more than the limit of {limit}{share}",
                thousands(steps)
            ),
            None => format!("more than the limit of {limit} steps of simulation{share}"),
        };
        format!(
            "{what} needs {needs} (a step is one tick or one call of one run, over every run \
             of every strategy): it was stopped at the limit"
        )
    }

    /// What one run of each strategy takes, and what to change.
    pub fn help(&self) -> String {
        let mut runs: Vec<String> = Vec::new();
        for (i, (strategy, measured)) in self.per_run.iter().enumerate() {
            let steps = match measured {
                Measured::Steps(steps) => thousands(*steps),
                Measured::MoreThan(steps) => format!("more than {}", thousands(*steps)),
                Measured::Unmeasured => break,
            };
            let unit = if i == 0 { " steps" } else { "" };
            runs.push(format!("{steps}{unit} with `{}`", strategy.name()));
        }
        let runs = match runs.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        };
        let each = match (self.runs, self.per_run.len()) {
            (1, _) => String::new(),
            (n, 1) => format!(", and the scenario has {} runs", thousands(n)),
            (n, _) => format!(", and the scenario has {} runs of each", thousands(n)),
        };
        format!(
            "one run takes {runs}{each}; use fewer clients, runs or strategies, a shorter \
             horizon or a longer tick, or a `retry.max_attempts`"
        )
    }
}

/// The limit of a scenario of a sweep of `points` values: each has an equal share.
pub fn share(points: usize) -> u64 {
    let points = u128::try_from(points.max(1)).unwrap_or(u128::MAX);
    u64::try_from(MAX_WORK / points).unwrap_or(u64::MAX)
}

/// [`MAX_WORK`] as a count of steps.
pub fn limit() -> u64 {
    share(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{parse_scenario, run_scenario_with, run_scenario_within};

    /// Ten clients that a server of ten calls per tick serves in the first of ten
    /// ticks: each run is 10 ticks and 10 calls, 20 steps, the nine idle ticks that a
    /// run ends early on counted as if it had run them.
    const SERVED_AT_ONCE: &str = "id: a\nclients: 10\nhorizon: 1s\n\
                                  server: {capacity: 10, tick: 100ms}\nruns: 3\n";

    fn scenario(yaml: &str) -> Scenario {
        parse_scenario(yaml, None).unwrap()
    }

    #[test]
    fn a_scenario_runs_up_to_its_limit_and_no_further() {
        let s = scenario(&format!("{SERVED_AT_ONCE}strategies: [fixed]\n"));
        // Counted: its most work, a call per client per tick, is far above 60.
        assert!(s.most_work() > 60);
        assert_eq!(s.least_work(), 60);
        let within = run_scenario_within(&s, true, 60).unwrap();
        assert_eq!(within, run_scenario_with(&s, true));
        let over = run_scenario_within(&s, true, 59).unwrap_err();
        assert_eq!(
            over,
            Overwork {
                limit: 59,
                runs: 3,
                per_run: vec![(Strategy::Fixed, Measured::Steps(20))],
            }
        );
        assert_eq!(over.estimate(), Some(60));
        // The same on every run of the test, however the runs met the threads.
        assert_eq!(run_scenario_within(&s, true, 59).unwrap_err(), over);
    }

    #[test]
    fn arrivals_count_each_tick_and_call_twice() {
        // 100 requests a second arrive, ten a tick, and are served at once: each of
        // the ten ticks costs 2 × (1 + 1 window of arrivals), each call 2.
        let s = scenario(
            "id: b\nclients: 0\narrivals: {rate: 100}\nhorizon: 1s\n\
             server: {capacity: 10, tick: 100ms}\nstrategies: [fixed]\nruns: 1\n",
        );
        assert_eq!(s.step_costs(), (4, 2));
        assert_eq!(s.least_work(), 240);
        assert!(run_scenario_within(&s, false, 240).is_ok());
        // One run alone is past the limit: all of it was left to measure that run.
        let over = run_scenario_within(&s, false, 239).unwrap_err();
        assert_eq!(
            over.per_run,
            vec![(Strategy::Fixed, Measured::MoreThan(239))]
        );
    }

    #[test]
    fn each_replica_of_a_fleet_costs_a_step_a_tick() {
        // Ten replicas, one with an outage of its own: each tick costs 2 × (1 + 10
        // replicas + 1 window), so that a hundred replicas with queues and few calls
        // cost what their ticks do.
        let s = scenario(
            "id: f\nclients: 1\nhorizon: 1s\nstrategies: [fixed]\nruns: 1\n\
             server: {capacity: 10, replicas: 10,\n  \
             overrides: [{replica: 4, outages: [{from: 0s, to: 1s}]}]}\n",
        );
        assert_eq!(s.step_costs(), (24, 2));
        let hundred = scenario(
            "id: f\nclients: 1\nhorizon: 1s\nstrategies: [fixed]\nruns: 1\n\
             server: {capacity: 10, replicas: 100, queue: {limit: 5}}\n",
        );
        assert_eq!(hundred.step_costs(), (202, 2));
    }

    #[test]
    fn each_strategy_is_measured_within_what_the_ones_before_it_left() {
        let s = scenario(&format!(
            "{SERVED_AT_ONCE}strategies: [fixed, exponential]\n"
        ));
        let over = run_scenario_within(&s, false, 25).unwrap_err();
        assert_eq!(
            over.per_run,
            vec![
                (Strategy::Fixed, Measured::Steps(20)),
                (Strategy::Exponential, Measured::MoreThan(5)),
            ]
        );
        assert_eq!(over.estimate(), None);
        assert_eq!(
            over.message(false),
            "this scenario needs more than the limit of 25 steps of simulation, its share of \
             500,000,000 (a step is one tick or one call of one run, over every run of every \
             strategy): it was stopped at the limit"
        );
        assert_eq!(
            over.help(),
            "one run takes 20 steps with `fixed` and more than 5 with `exponential`, and the \
             scenario has 3 runs of each; use fewer clients, runs or strategies, a shorter \
             horizon or a longer tick, or a `retry.max_attempts`"
        );
        let over = run_scenario_within(&s, false, 15).unwrap_err();
        assert_eq!(
            over.per_run,
            vec![
                (Strategy::Fixed, Measured::MoreThan(15)),
                (Strategy::Exponential, Measured::Unmeasured),
            ]
        );
        assert!(
            over.help()
                .starts_with("one run takes more than 15 steps with `fixed`, and")
        );
    }

    #[test]
    fn the_estimate_of_a_scenario_past_the_whole_limit_is_its_runs_times_one_run() {
        let s = scenario(&format!(
            "{SERVED_AT_ONCE}strategies: [fixed, exponential]\n"
        ));
        let over = run_scenario_within(&s, false, 100).unwrap_err();
        assert_eq!(over.estimate(), Some(120));
        assert_eq!(
            over.message(false),
            "this scenario needs about 120 steps of simulation, more than the limit of 100, \
             its share of 500,000,000 (a step is one tick or one call of one run, over every \
             run of every strategy): it was stopped at the limit"
        );
    }

    #[test]
    fn a_sweeps_values_share_the_limit_equally() {
        assert_eq!(limit(), 500_000_000);
        assert_eq!(share(40), 12_500_000);
        assert_eq!(share(3), 166_666_666);
        assert_eq!(share(0), limit());
    }
}
