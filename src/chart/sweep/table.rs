//! A sweep's numbers as an HTML table: a row per value of the parameter, a column per
//! strategy.

use crate::cell::Cell;
use crate::engine::metric::Metric;
use crate::format::thousands;

use super::super::table::escape;
use super::{Charted, Sweep, strategies};

/// The numbers as an HTML table: a row per value of the parameter, a column per
/// strategy, each cell the median with the 5th–95th percentile. Its caption's id is
/// `{id}-sweep-caption`.
pub(super) fn sweep_table(sweep: &Sweep, total: Metric) -> String {
    let id = escape(sweep.id);
    let strategies = strategies(sweep.points);
    let runs = sweep
        .points
        .iter()
        .map(|p| p.result.runs)
        .max()
        .unwrap_or(1);
    let how = if runs > 1 {
        format!(
            ", median of {} runs with the 5th–95th percentile in brackets",
            thousands(runs)
        )
    } else {
        String::new()
    };
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    for p in sweep.points {
        let mut cells = Vec::new();
        for &s in &strategies {
            // The axis's title carries the unit, so a cell has none.
            let cell = match p.result.strategy(s) {
                None => "–".to_string(),
                Some(r) => Cell::of(&p.result.value(r, total)).without_unit().html(),
            };
            cells.push(cell);
        }
        rows.push((escape(&p.label), cells));
    }
    let names: Vec<&str> = strategies.iter().map(|s| s.name()).collect();
    // A duration's value is written with its unit ("500 ms"), so its heading has none.
    let axis = escape(sweep.axis.strip_suffix(" (s)").unwrap_or(sweep.axis));
    let mut out = format!(
        "<table class=\"sim-results sim-sweep-data sim-fit-{}\">\n<caption id=\"{id}-sweep-caption\">{}{} by {}{how}</caption>\n<thead>\n<tr>",
        super::super::table::fit_class(&names, &rows),
        escape(&total.axis()[..1].to_uppercase()),
        escape(&total.axis()[1..]),
        escape(sweep.parameter)
    );
    out.push_str(&format!("<th scope=\"col\" class=\"num\">{axis}</th>"));
    for name in &names {
        out.push_str(&format!(
            "<th scope=\"col\" class=\"num\">{}</th>",
            escape(name)
        ));
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for (label, cells) in &rows {
        // Stacked, a row's heading reads "clients 25", and each value is named by its
        // strategy.
        out.push_str(&format!(
            "<tr><th scope=\"row\" class=\"num\" data-label=\"{axis}\">{label}</th>"
        ));
        for (name, cell) in names.iter().zip(cells) {
            out.push_str(&format!(
                "<td class=\"num\" data-label=\"{}\">{cell}</td>",
                escape(name)
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}
