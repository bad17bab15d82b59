//! A stored live run beside the simulation, as the figure of a ```` ```live ````
//! directive: a table with a row per strategy and, for each total, the simulated median
//! (with its 5th–95th percentile where runs disagree), the live value and the
//! difference. A total that is zero on both sides for every strategy is left out, and
//! the caption says so.

use super::table::{escape, fit_class};
use crate::engine::metric::Metric;
use crate::live::record::{self, LiveStrategy, cells};
use crate::report::short_heading;

/// What the caption says about the run, besides its rows.
pub struct LiveRun<'a> {
    /// The scenario's id.
    pub id: &'a str,
    /// The day it was played.
    pub date: &'a str,
    /// The server's software, like `hyper 1.12.0 on tokio 1.54.1`.
    pub server: &'a str,
    /// The simulated runs beside it.
    pub runs: u32,
    /// The author's caption, if any.
    pub caption: Option<&'a str>,
}

/// The figure: the table, with its caption.
pub fn live_figure(run: &LiveRun, rows: &[LiveStrategy]) -> String {
    let id = escape(run.id);
    let all = record::totals();
    let totals: Vec<Metric> = all
        .iter()
        .copied()
        .filter(|&t| rows.iter().any(|s| !is_zero(s, t)))
        .collect();
    let left_out: Vec<&str> = all
        .into_iter()
        .filter(|t| !totals.contains(t))
        .map(short_heading)
        .collect();
    let mut labels = Vec::new();
    for total in &totals {
        for side in ["simulated", "live", "difference"] {
            labels.push(format!("{} {side}", short_heading(*total)));
        }
    }
    let cells: Vec<(String, Vec<String>)> = rows
        .iter()
        .map(|s| {
            let row = totals
                .iter()
                .flat_map(|&t| {
                    let [simulated, live, difference] = cells(s, t);
                    [range_span(&simulated), escape(&live), escape(&difference)]
                })
                .collect();
            (s.strategy.name().to_string(), row)
        })
        .collect();
    let headings: Vec<&str> = labels.iter().map(String::as_str).collect();
    let caption = match run.caption {
        Some(text) => escape(text),
        None => escape(&generated_caption(run, rows, &left_out)),
    };
    let mut out = format!("<figure class=\"sim sim-live\" id=\"live-{id}\">\n");
    out.push_str("<div class=\"sim-results-wrap\">\n");
    out.push_str(&format!(
        "<table class=\"sim-results sim-live-results sim-fit-{}\">\n<caption id=\"{id}-live-caption\">\
         Each total simulated, live, and live less the simulated median</caption>\n<thead>\n",
        fit_class(&headings, &cells)
    ));
    out.push_str("<tr><th scope=\"col\" rowspan=\"2\">strategy</th>");
    for total in &totals {
        out.push_str(&format!(
            "<th scope=\"colgroup\" colspan=\"3\">{}</th>",
            short_heading(*total)
        ));
    }
    out.push_str("</tr>\n<tr>");
    for _ in &totals {
        for side in ["simulated", "live", "difference"] {
            out.push_str(&format!("<th scope=\"col\" class=\"num\">{side}</th>"));
        }
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for (name, row) in &cells {
        out.push_str(&format!(
            "<tr><th scope=\"row\" data-label=\"strategy\">{}</th>",
            escape(name)
        ));
        for (label, cell) in labels.iter().zip(row) {
            out.push_str(&format!(
                "<td class=\"num\" data-label=\"{label}\">{cell}</td>"
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    out.push_str(&format!("<figcaption>{caption}</figcaption>\n</figure>\n"));
    out
}

/// Whether a total is zero on both sides for strategy `s`.
fn is_zero(s: &LiveStrategy, total: Metric) -> bool {
    // "never" on both sides of a time still says something.
    record::count(s, total).is_some_and(|c| c.live == 0 && c.p5 == 0 && c.p95 == 0)
}

/// A simulated cell with its percentile range kept on one line.
fn range_span(cell: &str) -> String {
    match cell.split_once(" (") {
        Some((median, range)) => format!(
            "{} <span class=\"range\">({}</span>",
            escape(median),
            escape(range)
        ),
        None => escape(cell),
    }
}

/// The caption the figure gets unless its author writes one: what was played, when,
/// with what, and who computed each strategy's waits.
fn generated_caption(run: &LiveRun, rows: &[LiveStrategy], left_out: &[&str]) -> String {
    // Strategies grouped by who computed their waits, in the rows' order.
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for s in rows {
        let by = if s.waits.name == "retrylab" {
            "the engine's own policy (no maintained crate implements it as the model defines it)"
                .to_string()
        } else {
            format!("{} {}", s.waits.name, s.waits.version)
        };
        match groups.iter_mut().find(|(b, _)| *b == by) {
            Some((_, names)) => names.push(s.strategy.name()),
            None => groups.push((by, vec![s.strategy.name()])),
        }
    }
    let waits: Vec<String> = groups
        .iter()
        .map(|(by, names)| format!("{} by {by}", list(names)))
        .collect();
    let runs = if run.runs == 1 {
        "one simulated run".to_string()
    } else {
        format!(
            "{} simulated runs (the median, with the 5th–95th percentile in brackets)",
            crate::format::thousands(u64::from(run.runs))
        )
    };
    let mut text = format!(
        "The scenario {} played for real on {}: one run of each strategy over HTTP on loopback, \
         the server {}, beside {runs}. Waits: {}.",
        run.id,
        run.date,
        run.server,
        waits.join("; ")
    );
    if !left_out.is_empty() {
        text.push_str(&format!(
            " Left out, as zero on both sides: {}.",
            list(left_out)
        ));
    }
    text
}

/// Names joined as prose: `a`, `a and b`, `a, b and c`.
fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
