//! The ```` ```live ```` directive at build time: its stored run read from the site's
//! folder; what the run must be and how it is drawn is [`crate::live::stored`]'s.
//!
//! The data file's path is written from the page's own folder, as its links and images
//! are, and stays inside it; the file is published beside the page like any other file
//! of `content/`. A file that cannot be read, or does not read as a stored run, is a
//! located error, at the directive's `data` value or in the data file itself.

use std::path::Path;

use super::page::Page;
use crate::diag::Diagnostic;
use crate::directive::live::LiveDirective;
use crate::engine::{ScenarioError, parse_scenario};
use crate::live::record;
pub use crate::live::stored::{LiveBlock, check, figure};
use crate::yaml::Pos;

/// Reads the stored run of `directive`, found on `page` with its body at `origin`;
/// `root` is the site's folder.
pub fn load(
    root: &Path,
    page: &Page,
    origin: Pos,
    directive: LiveDirective,
) -> Result<LiveBlock, Vec<Diagnostic>> {
    let at_data = |message: String, help: Option<String>| {
        vec![Diagnostic::from_scenario(
            &page.file,
            &page.source,
            origin,
            ScenarioError::at(&directive.data_node, message, help),
        )]
    };
    // The path is the page's, from its own folder, as its links and images are.
    let folder = Path::new(&page.file).parent().unwrap_or(Path::new(""));
    let shown = folder
        .join(&directive.data)
        .to_string_lossy()
        .replace('\\', "/");
    let data = &shown;
    let bytes = match std::fs::read(root.join(data)) {
        Ok(bytes) => bytes,
        Err(e) => {
            let help = match e.kind() {
                std::io::ErrorKind::NotFound => Some(format!(
                    "play the scenario and store the run with `retrylab live SCENARIO.yaml --record {data}`"
                )),
                _ => None,
            };
            return Err(at_data(
                format!("cannot read the live run `{data}`: {e}"),
                help,
            ));
        }
    };
    let text = crate::diag::utf8_or_located(data, bytes)?;
    let record = record::parse(&text)
        .map_err(|(pos, message)| vec![Diagnostic::new(data, &text, pos, 1, message)])?;
    let played = parse_scenario(&record.scenario, Some(&record.id)).map_err(|errors| {
        let first = errors.first().map_or(String::new(), |e| e.message.clone());
        at_data(
            format!("the scenario stored in `{data}` does not read: {first}"),
            Some(
                "play it again with `retrylab live` to store it as this retrylab reads it"
                    .to_string(),
            ),
        )
    })?;
    Ok(LiveBlock {
        file: shown.clone(),
        directive,
        record,
        played,
        scenario: None,
    })
}
