//! The figure of a ```` ```live ```` directive, drawn from the text it is given: a table
//! with a row per strategy and, for each total, three columns (simulated, live and the
//! difference), with its caption. Which totals it shows, each cell's text and the caption
//! are worked out where live runs are read (see the crate's `live` module).

use super::table::{escape, fit_class};

/// What a live figure shows, as text.
pub struct LiveTable<'a> {
    /// The scenario's id, which names the figure.
    pub id: &'a str,
    /// The totals shown, by their headings, in the order of the columns.
    pub totals: Vec<&'a str>,
    /// A row per strategy: its name, then for each total its simulated cell (a median,
    /// with its percentile range in brackets where runs disagree), its live cell and the
    /// difference.
    pub rows: Vec<(String, Vec<[String; 3]>)>,
    /// The caption.
    pub caption: &'a str,
}

/// The columns under each total.
const SIDES: [&str; 3] = ["simulated", "live", "difference"];

/// The figure: the table, with its caption.
pub fn live_figure(table: &LiveTable) -> String {
    let id = escape(table.id);
    let totals = &table.totals;
    let mut labels = Vec::new();
    for total in totals {
        for side in SIDES {
            labels.push(format!("{total} {side}"));
        }
    }
    let cells: Vec<(String, Vec<String>)> = table
        .rows
        .iter()
        .map(|(name, row)| {
            let row = row
                .iter()
                .flat_map(|[simulated, live, difference]| {
                    [range_span(simulated), escape(live), escape(difference)]
                })
                .collect();
            (name.clone(), row)
        })
        .collect();
    let headings: Vec<&str> = labels.iter().map(String::as_str).collect();
    let caption = escape(table.caption);
    let mut out = format!("<figure class=\"sim sim-live\" id=\"live-{id}\">\n");
    out.push_str("<div class=\"sim-results-wrap\">\n");
    out.push_str(&format!(
        "<table class=\"sim-results sim-live-results sim-fit-{}\">\n<caption id=\"{id}-live-caption\">\
         Each total simulated, live, and live less the simulated median</caption>\n<thead>\n",
        fit_class(&headings, &cells)
    ));
    out.push_str("<tr><th scope=\"col\" rowspan=\"2\">strategy</th>");
    for total in totals {
        out.push_str(&format!(
            "<th scope=\"colgroup\" colspan=\"3\">{total}</th>"
        ));
    }
    out.push_str("</tr>\n<tr>");
    for _ in totals {
        for side in SIDES {
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
