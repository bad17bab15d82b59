//! The playground's presets and the scenario files in `scenarios/` are the articles'
//! scenarios: the build writes each preset from its article's block, and each file
//! here must read as the same scenario as the block of its id, so `retrylab sim FILE`
//! gives the article's numbers.

use std::collections::BTreeMap;
use std::path::Path;

use retrylab::directive::read_sim_root;
use retrylab::engine::{Scenario, parse_scenario};

/// Every `sim` block of `content/`, by id, with the file it is in.
fn blocks() -> BTreeMap<String, (String, Scenario)> {
    let mut all = BTreeMap::new();
    for (path, node) in crate::util::article_sims() {
        let sim = read_sim_root(&node).unwrap();
        let id = sim.scenario.id.clone();
        all.insert(id, (path.display().to_string(), sim.scenario));
    }
    all
}

#[test]
fn every_scenario_file_is_its_articles_block() {
    let blocks = blocks();
    let mut compared = 0;
    for entry in std::fs::read_dir("scenarios").unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let file = parse_scenario(&text, None).unwrap();
        let (article, block) = blocks.get(&file.id).unwrap_or_else(|| {
            panic!(
                "{}: no article has a block with the id `{}`",
                path.display(),
                file.id
            )
        });
        assert_eq!(
            &file,
            block,
            "{} differs from its block in {article}",
            path.display()
        );
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} scenario files");
}

#[test]
fn every_preset_of_the_playground_is_an_articles_figure_and_a_file() {
    let page = std::fs::read_to_string("content/playground.md").unwrap();
    let blocks = blocks();
    let ids: Vec<&str> = page
        .split("#sim-")
        .skip(1)
        .map(|rest| rest.split(')').next().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "crowd",
            "half-capacity",
            "outage",
            "beginner",
            "metastable",
            "library-outage",
            "collapse",
            "slow-replica",
            "hedging",
            "cold-cache"
        ]
    );
    for id in ids {
        assert!(
            blocks.contains_key(id),
            "no article has the figure #sim-{id}"
        );
        assert!(
            Path::new(&format!("scenarios/{id}.yaml")).is_file(),
            "the preset {id} has no file in scenarios/"
        );
    }
}
