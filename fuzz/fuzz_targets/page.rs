//! The whole Markdown-to-page pipeline on any page: the text is written as
//! `content/a.md` of a minimal site, which is checked and, when its simulations are
//! tiny, built. Either may refuse the page with diagnostics; neither may panic.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use retrylab::diag::Failure;
use retrylab::directive::{self, Kind, sweep};
use retrylab::site::{self, Options};

/// Steps of simulation (as the work limit counts them) above which a page is only
/// checked, not built, so that each input takes milliseconds.
const TINY: u128 = 20_000;

/// A site folder for this process, with its `site.yaml`.
fn site() -> &'static tempfile::TempDir {
    static SITE: OnceLock<tempfile::TempDir> = OnceLock::new();
    SITE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::fs::create_dir(dir.path().join("content")).unwrap();
        std::fs::write(
            dir.path().join("site.yaml"),
            "title: fuzz\nbase_url: https://example.github.io/REPO/\n",
        )
        .unwrap();
        dir
    })
}

/// The most work (steps of simulation, as the limit counts them) of a page's directives.
fn work(text: &str) -> u128 {
    directive::scan(text)
        .directives
        .iter()
        .map(|found| match found.kind {
            Kind::Sim => directive::read_sim(&found.body).map_or(0, |sim| sim.scenario.most_work()),
            Kind::Sweep => sweep::read_sweep(&found.body)
                .map_or(0, |sweep| sweep.points.iter().map(|p| p.2.most_work()).sum()),
            // A live block shows a sim block's results, which that block has counted.
            Kind::Schedule | Kind::ReferenceTable | Kind::Live => 0,
        })
        .sum()
}

/// A failure as the command line prints it.
fn describe(failure: &Failure) -> String {
    match failure {
        Failure::Input(problems) => problems.iter().map(ToString::to_string).collect(),
        Failure::Other(sentence) => sentence.clone(),
    }
}

fuzz_target!(|text: &str| {
    let root = site().path();
    std::fs::write(root.join("content/a.md"), text).unwrap();
    let options = Options {
        root: root.to_path_buf(),
        output: Some(root.join("public")),
        base_url: None,
        drafts: true,
        progress: false,
    };
    let checked = site::check(&options);
    if work(text) <= TINY {
        let built = site::build(&options);
        // What check accepts, build accepts too (check sees more: links and anchors).
        if let Err(failure) = &built {
            let why = describe(failure);
            assert!(checked.is_err(), "check passed but build failed: {why}");
        }
    }
    if let Err(failure) = &checked {
        let _ = describe(failure);
    }
    let _ = std::fs::remove_dir_all(root.join(PathBuf::from(site::cache::FOLDER)));
});
