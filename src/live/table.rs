//! A live run beside its simulation as a terminal table: a row for each total of each
//! strategy, with the simulated median (and its 5th–95th percentile where runs
//! disagree), the live value and the difference; then who computed the waits.

use super::record::{self, Record};
use crate::format::thousands;
use crate::report::short_heading;

/// The table, with a heading line and the crates after it.
pub fn table(record: &Record) -> String {
    let mut rows: Vec<[String; 5]> = vec![[
        "strategy".to_string(),
        "total".to_string(),
        "simulated".to_string(),
        "live".to_string(),
        "difference".to_string(),
    ]];
    let totals = record::totals(&record.strategies);
    for s in &record.strategies {
        for (i, &total) in totals.iter().enumerate() {
            let [simulated, live, difference] = record::cells(s, total);
            let name = if i == 0 { s.strategy.name() } else { "" };
            rows.push([
                name.to_string(),
                short_heading(total).to_string(),
                simulated,
                live,
                difference,
            ]);
        }
    }
    let widths: Vec<usize> = (0..5)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let runs = if record.runs == 1 {
        "1 simulated run".to_string()
    } else {
        format!(
            "{} simulated runs (median, with the 5th–95th percentile in brackets)",
            thousands(u64::from(record.runs))
        )
    };
    let who = match (record.clients, record.arrivals) {
        (clients, 0) => format!("{} clients", thousands(clients)),
        (0, arrivals) => format!("{} open-loop requests", thousands(arrivals)),
        (clients, arrivals) => format!(
            "{} clients and {} open-loop requests",
            thousands(clients),
            thousands(arrivals)
        ),
    };
    let mut out = format!(
        "{}: {who}, {runs} beside one live run over HTTP on loopback\n\n",
        record.id
    );
    for row in &rows {
        let mut line = String::new();
        for (c, text) in row.iter().enumerate() {
            let pad = " ".repeat(widths[c] - text.chars().count());
            if c < 2 {
                line.push_str(text);
                line.push_str(&pad);
                line.push_str("  ");
            } else {
                line.push_str(&pad);
                line.push_str(text);
                line.push_str("  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push('\n');
    let server: Vec<String> = record
        .server
        .iter()
        .map(|s| format!("{} {}", s.name, s.version))
        .collect();
    out.push_str(&format!("server: {}\n", server.join(" on ")));
    if let Some(machine) = &record.machine {
        out.push_str(&format!("machine: {machine}\n"));
    }
    for s in &record.strategies {
        out.push_str(&format!(
            "{}: waits by {} {}, {}; played in {:.1} s\n",
            s.strategy.name(),
            s.waits.name,
            s.waits.version,
            s.waits.using,
            s.elapsed_s
        ));
    }
    out
}
