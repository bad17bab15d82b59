//! The per-tick data of every scenario figure, as a CSV file of its own rather than a
//! table of thousands of cells in the page: the figure links to the file, and
//! `ticks.js` builds the table from it when the reader opens the figure's "chart's
//! data" (a screen reader gets the same table then); without JavaScript the link still
//! gives the data.
//!
//! The files live in a folder the build owns, `ticks/` at the output's root, one per
//! figure at `ticks/{page's folder}{figure's id}.csv` (and a fleet's, each replica's,
//! at `{figure's id}-replicas.csv` beside it), so that no file of `content/`
//! can be overwritten: the folder is a built-in name (see [`super::address::BUILT_IN`]),
//! and a page or a file of `content/` that would be written in it is refused, naming it.

use super::BlockResults;
use super::output::Staging;
use super::page::Page;
use super::parts::{Block, PageParts};
use crate::chart;
use crate::chart::table::escape;
use crate::diag::Failure;

/// The folder of the output that holds the data files.
pub const FOLDER: &str = "ticks";

/// The script that builds a figure's table from its data.
pub const SCRIPT: (&str, &str) = ("ticks.js", include_str!("defaults/ticks.js"));

/// The path below the output of the data of the figure `id` of the page in `folder`
/// (its real folder name, as [`Page::folder`]).
pub fn path(folder: &str, id: &str) -> String {
    format!("{FOLDER}/{folder}{id}.csv")
}

/// The address that links to the data of the figure `id` of the page in `folder`.
pub fn address(base_path: &str, folder: &str, id: &str) -> String {
    format!("{base_path}{}", super::address::encode(&path(folder, id)))
}

/// The script tag written after each scenario figure (a module runs once, however often
/// it is named).
pub fn script(base_path: &str) -> String {
    format!(
        "<script type=\"module\" src=\"{}{}\"></script>\n",
        escape(base_path),
        SCRIPT.0
    )
}

/// Writes each scenario figure's data file, and the script when there is any or the site
/// has a playground, which uses it too (unless `static/` brought its own, which also
/// replaces a data file it brings).
pub(super) fn write_files(
    staging: &Staging,
    pages: &[Page],
    parts: &[PageParts],
    results: &BlockResults,
    playground: bool,
) -> Result<(), Failure> {
    let mut any = playground;
    for ((page, part), results) in pages.iter().zip(parts).zip(results) {
        for (placed, results) in part.blocks.iter().zip(results) {
            let Block::Sim(sim, _) = &placed.block else {
                continue;
            };
            any = true;
            let file = path(&page.folder, &sim.scenario.id);
            if !staging.has(&file) {
                let csv = chart::tick_csv(&sim.scenario, &results[0], &sim.figure);
                staging.write(&file, csv.as_bytes())?;
            }
            // A fleet's strips: each replica's data, at the figure's own name with
            // `-replicas`, which no other figure of the page may take.
            let each = path(&page.folder, &format!("{}-replicas", sim.scenario.id));
            if !staging.has(&each)
                && let Some(csv) = chart::replica_csv(&sim.scenario, &results[0], &sim.figure)
            {
                staging.write(&each, csv.as_bytes())?;
            }
        }
    }
    if any && !staging.has(SCRIPT.0) {
        staging.write(SCRIPT.0, SCRIPT.1.as_bytes())?;
    }
    Ok(())
}
