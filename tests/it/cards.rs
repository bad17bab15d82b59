//! The home page's cards, as a build writes them: each card's chart shows the window
//! of its scenario's figure, as the author set it.

use retrylab::chart::thumbnail;
use retrylab::engine::run_scenario;
use retrylab::engine::units::SECOND;

use crate::util::{fixture, run, scenario};

/// The storm of the fixture site, as its article writes it (without its figure).
const STORM: &str = "id: storm\nclients: 20\nhorizon: 3s\nserver: {capacity: 5, tick: 100ms}\n\
                     retry: {base: 100ms}\nstrategies: [fixed, exponential]\n";

#[test]
fn a_card_shows_the_window_of_its_figure() {
    let site = fixture("good");
    let article = site.path().join("content/storm.md");
    let text = std::fs::read_to_string(&article).unwrap();
    // The storm's card; its figure shows the first 2 s of 3.
    let text = text.replacen("weight: 1\n", "weight: 1\ncard: storm\n", 1);
    assert!(text.contains("figure: {window: 2s,"));
    std::fs::write(&article, text).unwrap();
    let out = site.path().join("public");
    let (code, _, stderr) = run(&[
        "build",
        "--root",
        site.path().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let home = std::fs::read_to_string(out.join("index.html")).unwrap();

    let storm = scenario(STORM);
    let result = run_scenario(&storm);
    let card = thumbnail(&storm, &result, Some(2 * SECOND));
    assert!(home.contains(&card), "{home}");
    // Not the automatic window, which is the whole horizon here.
    assert!(!home.contains(&thumbnail(&storm, &result, None)));
}
