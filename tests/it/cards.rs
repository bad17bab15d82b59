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

#[test]
fn the_home_page_leaves_out_a_section_with_no_page() {
    let site = tempfile::tempdir().unwrap();
    std::fs::write(site.path().join("site.yaml"), "title: T\n").unwrap();
    std::fs::create_dir(site.path().join("content")).unwrap();
    std::fs::write(
        site.path().join("content/index.md"),
        "---\ntitle: Home\n---\n\nHi.\n",
    )
    .unwrap();
    let build = |out: &str| {
        let (code, _, stderr) = run(&["build", "--root", site.path().to_str().unwrap(), "-o", out]);
        assert_eq!(code, 0, "{stderr}");
        std::fs::read_to_string(std::path::Path::new(out).join("index.html")).unwrap()
    };
    let out = site.path().join("public");
    let home = build(out.to_str().unwrap());
    assert!(!home.contains("articles-heading"), "{home}");
    assert!(!home.contains("tools-heading"), "{home}");

    // An article, and no tool: the articles' section alone.
    std::fs::write(
        site.path().join("content/a.md"),
        "---\ntitle: A\n---\n\nA.\n",
    )
    .unwrap();
    let home = build(out.to_str().unwrap());
    assert!(
        home.contains("<h2 id=\"articles-heading\">Articles</h2>"),
        "{home}"
    );
    assert!(!home.contains("tools-heading"), "{home}");
}
