//! Open-loop arrivals as a Poisson process (`arrivals.process: poisson`): read, run and
//! reported as a user meets them. The draws themselves are tested by hand in the
//! engine's `poisson` module.

use retrylab::engine::{Strategy, parse_scenario, simulate};

use crate::util::run;

const POISSON: &str = "id: p\nclients: 0\nhorizon: 30s\n\
                       arrivals: {rate: 80, process: poisson}\n\
                       server: {capacity: 10, outages: [{from: 5s, to: 7s}]}\n\
                       retry: {max_attempts: 5}\n\
                       strategies: [exponential, full-jitter]\nruns: 20\n";

fn arrivals(yaml: &str, strategy: Strategy, seed: u64) -> u64 {
    let scenario = parse_scenario(yaml, None).unwrap();
    simulate(&scenario, strategy, seed, false).totals.arrivals
}

#[test]
fn a_run_s_requests_depend_on_its_seed_alone() {
    // The same for every strategy of a seed, different from seed to seed, and not the
    // even window's 2,400.
    let counts: Vec<u64> = (1..=6)
        .map(|seed| arrivals(POISSON, Strategy::Exponential, seed))
        .collect();
    for (seed, &count) in (1..=6).zip(&counts) {
        assert_eq!(arrivals(POISSON, Strategy::FullJitter, seed), count);
        assert!((2_200..2_600).contains(&count), "{count}");
    }
    assert!(counts.windows(2).any(|w| w[0] != w[1]), "{counts:?}");
    let even = POISSON.replace(", process: poisson", "");
    assert_eq!(arrivals(&even, Strategy::Exponential, 1), 2_400);
    let said_even = POISSON.replace("process: poisson", "process: even");
    assert_eq!(
        parse_scenario(&said_even, None).unwrap(),
        parse_scenario(&even, None).unwrap()
    );
}

#[test]
fn sim_reports_the_median_requests_and_the_rate_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::write(&file, POISSON).unwrap();
    let path = file.to_str().unwrap();
    let (code, first, stderr) = run(&["sim", path, "--json"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(run(&["sim", path, "--json"]).1, first);
    let json: serde_json::Value = serde_json::from_str(&first).unwrap();
    // The median of the runs' requests (seeds 1 to 20), and the rate as offered.
    let mut counts: Vec<u64> = (1..=20)
        .map(|seed| arrivals(POISSON, Strategy::Exponential, seed))
        .collect();
    counts.sort_unstable();
    assert_eq!(json["arrivals"], counts[9]);
    assert_eq!(json["offered_per_s"], 80.0);
    let (_, text, _) = run(&["sim", path]);
    assert!(
        text.starts_with(&format!(
            "p: 0 clients and {},{:03} arrivals",
            counts[9] / 1000,
            counts[9] % 1000
        )),
        "{text}"
    );
}

#[test]
fn a_process_that_is_not_one_is_named_where_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::write(
        &file,
        POISSON.replace("process: poisson", "process: poison"),
    )
    .unwrap();
    let (code, stdout, stderr) = run(&["sim", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stderr.contains("error: unknown process `poison`"),
        "{stderr}"
    );
    assert!(stderr.contains("p.yaml:4:31"), "{stderr}");
    assert!(stderr.contains("did you mean `poisson`?"), "{stderr}");
    assert!(stderr.contains("1 problem found"), "{stderr}");
}
