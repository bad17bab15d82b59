//! Results as pictures and tables, pure: a scenario's results in, SVG and HTML out.
//! No files and no templates, so the same input always gives byte-identical output.
//!
//! - [`lanes`]: the lane chart, one lane of calls per tick for each strategy;
//! - [`table`]: the results table, the per-tick data table, and HTML escaping;
//! - [`figure`]: both put together into the block that a scenario directive becomes;
//! - [`sweep`]: a total against a varied parameter, a line per strategy, and its table;
//! - `marks`: the colour, dash and marker of each strategy, and the legend;
//! - [`schedule`]: the waits of one client retry by retry, a panel per strategy;
//! - [`thumb`]: a small lane chart, bars only, for a card on the home page;
//! - [`live`]: a stored live run beside the simulation, as a table;
//! - [`CSS`]: the stylesheet that themes them, light and dark.

pub mod lanes;
#[cfg(feature = "site")]
pub mod live;
#[cfg(feature = "site")]
mod marks;
#[cfg(feature = "site")]
mod scale;
#[cfg(feature = "site")]
pub mod schedule;
#[cfg(feature = "site")]
pub mod sweep;
pub mod table;
#[cfg(feature = "site")]
pub mod thumb;

pub(crate) mod draw;
mod svg;

#[cfg(all(test, feature = "site"))]
mod readable;
#[cfg(all(test, feature = "site"))]
mod tests;

use crate::engine::outcome::REPLICA_LANES;
use crate::engine::scenario::Process;
use crate::engine::units::Micros;
use crate::engine::{Scenario, ScenarioResult, ServerModel};
use crate::format::{duration, milli, thousands};

use self::table::escape;

/// What the author chose about a figure, which the chart draws.
pub use crate::figure::FigureOptions;

#[cfg(feature = "site")]
pub use self::schedule::schedule_figure;
#[cfg(feature = "site")]
pub use self::sweep::{Sweep, SweepPoint, sweep_figure};
#[cfg(feature = "site")]
pub use self::thumb::thumbnail;

/// The stylesheet for figures, charts and tables, the site's `chart.css` (static/chart.css).
/// Only the site has it, so that a change of style leaves the playground's module as it is.
#[cfg(feature = "site")]
pub const CSS: &str = include_str!("../../static/chart.css");

/// The whole HTML block for one scenario directive: a `<figure class="sim" id="sim-{id}">`
/// holding the lane chart in both its layouts, wide and narrow, and a `<figcaption>`, then
/// the results table, then a
/// `<details>` with the per-tick data of the window (the chart's data for readers who
/// cannot see it): a link to it as CSV, and the table that `ticks.js` builds from that
/// file when the reader opens it, so that its thousands of cells are not in the page
/// until asked for. A window with more ticks than the chart has columns is drawn and
/// tabulated in bins of ticks (see [`lanes`]), so that neither grows with the horizon.
/// `csv` is the address of the data's file ([`table::tick_data`]); empty for a figure
/// whose script holds its data.
pub fn figure(scenario: &Scenario, result: &ScenarioResult, options: &FigureOptions) -> String {
    explorable_figure(scenario, result, options, "", "")
}

/// A [`figure`] whose reader may rerun it: the `<figure>` carries `data-scenario` with
/// the scenario's id, and `controls` (HTML) stand under its charts, above its caption.
/// Without controls it is the printed [`figure`], its data at the address `csv`.
pub fn explorable_figure(
    scenario: &Scenario,
    result: &ScenarioResult,
    options: &FigureOptions,
    controls: &str,
    csv: &str,
) -> String {
    let parts = FigureParts::new(scenario, result, options, csv);
    let id = escape(&result.id);
    let mut out = String::new();
    if controls.is_empty() {
        out.push_str(&format!("<figure class=\"sim\" id=\"sim-{id}\">\n"));
    } else {
        out.push_str(&format!(
            "<figure class=\"sim\" id=\"sim-{id}\" data-scenario=\"{id}\">\n"
        ));
    }
    out.push_str(&parts.charts);
    out.push_str(controls);
    out.push_str(&format!(
        "<figcaption>{}</figcaption>\n</figure>\n",
        parts.caption
    ));
    // The results never scroll: the table's column fits it, or it stacks a strategy to
    // a block (the stylesheet asks its wrapper's width), so no column is out of view.
    out.push_str(&format!(
        "<div class=\"sim-results-wrap\">\n{}</div>\n",
        parts.results
    ));
    out.push_str(
        "<details class=\"sim-data\">\n<summary>The chart’s data: calls per tick</summary>\n",
    );
    out.push_str(&parts.ticks);
    out.push_str("</details>\n");
    out
}

/// The parts of a scenario's [`figure`], each as the figure holds it, for the
/// playground, which shows them one by one as its replay goes.
pub struct FigureParts {
    /// The window shown, in µs: the author's, or [`auto_window`].
    pub window: Micros,
    /// The lane chart in both its layouts, wide then narrow, one `<svg>` a line; for a
    /// fleet, its replicas' chart after it, in both layouts too.
    pub charts: String,
    /// Whether `charts` has the replicas' chart.
    pub replicas: bool,
    /// The left and right edges of the plots of each `<svg>` of `charts`, in order, by
    /// which the playground's replay shows the bars up to a tick.
    pub plots: Vec<(f64, f64)>,
    /// The caption, as HTML.
    pub caption: String,
    /// The results table, as HTML.
    pub results: String,
    /// What the per-tick data's disclosure holds, as HTML: the link to its CSV and the
    /// place of the table that `ticks.js` builds from it.
    pub ticks: String,
    /// The per-tick data as CSV ([`table::tick_data`]).
    pub csv: String,
}

impl FigureParts {
    /// The parts of the figure of `scenario`'s `result`, its data's file at `csv`.
    pub fn new(
        scenario: &Scenario,
        result: &ScenarioResult,
        options: &FigureOptions,
        csv: &str,
    ) -> Self {
        let window = options
            .window
            .unwrap_or_else(|| auto_window(scenario, result));
        let id = escape(&result.id);
        // A fleet's lanes are drawn, and its caption written, against the fleet as one
        // server: its capacity the replicas' together, down where all are.
        let one = as_one(scenario);
        let mut caption = match &options.caption {
            Some(text) => escape(text),
            None => escape(&generated_caption(
                scenario,
                one.as_ref().map_or(&scenario.server, |one| &one.server),
                result,
                window,
            )),
        };
        let written = scenario;
        let scenario = one.as_ref().unwrap_or(written);
        // A binned chart says so, under the author's caption too.
        let bin = lanes::ticks_per_column(scenario, result, window);
        if bin > 1 {
            caption.push(' ');
            caption.push_str(&escape(&lanes::binned_note(scenario, bin)));
        }
        let data = table::tick_data(scenario, result, window, bin);
        // The table's caption and its id ride on the place the script fills; the link's
        // `download` names the file a reader saves after the figure.
        let mut drawn = charts(|form| lanes::lane_chart(scenario, result, window, form));
        // A fleet's replicas, each a strip, under the fleet drawn as one server.
        let replicas = one.as_ref().is_some_and(|one| {
            let both: Option<Vec<String>> = (draw::Form::BOTH.iter())
                .map(|&form| lanes::replica_chart(written, one, result, window, form))
                .collect();
            for svg in both.iter().flatten() {
                drawn.push_str(svg);
                drawn.push('\n');
            }
            both.is_some()
        });
        if let Some(fleet) = &written.server.fleet {
            let ticks = scenario.ticks();
            if u64::from(fleet.replicas).saturating_mul(ticks) > REPLICA_LANES {
                caption.push(' ');
                caption.push_str(&escape(&format!(
                    "Each replica’s strip is not drawn: a run keeps them for {} ticks of \
                     all replicas together, and {} replicas over {} ticks are more.",
                    thousands(REPLICA_LANES),
                    fleet.replicas,
                    thousands(ticks)
                )));
            }
        }
        // A fleet's strips have their data beside the chart's, in a file named after it
        // ([`replica_csv`]).
        // Its rows, as the chart's file's, are the calls of a bin of ticks where the chart
        // is binned: the link says so, as the chart's table's caption does.
        let per = match bin {
            1 => String::new(),
            _ => format!(
                ", per {} ({} ticks)",
                duration(bin as u64 * scenario.server.tick),
                thousands(bin as u64)
            ),
        };
        // Without a file's name (the browser's module, which gives the link its data as
        // it gives the chart's) neither link has an address yet.
        let each = if replicas {
            format!(
                ", and <a href=\"{}\" download=\"{id}-replicas.csv\" type=\"text/csv\">CSV</a> \
                 of each replica’s{per}",
                escape(
                    &csv.strip_suffix(".csv")
                        .map(|stem| format!("{stem}-replicas.csv"))
                        .unwrap_or_default()
                )
            )
        } else {
            String::new()
        };
        let ticks = format!(
            "<p class=\"sim-data-csv\"><a href=\"{}\" download=\"{id}-ticks.csv\" \
             type=\"text/csv\">CSV</a> of the calls per tick{each}</p>\n<div class=\"sim-ticks-box\" \
             data-id=\"{id}\" data-caption=\"{}\"></div>\n",
            escape(csv),
            escape(&data.caption),
        );
        // Where the plots of each `<svg>` are: the replicas' chart has the lane chart's.
        let plots = (draw::Form::BOTH.iter().cycle())
            .take(if replicas { 4 } else { 2 })
            .map(|&form| lanes::plot_edges(scenario, result, window, form))
            .collect();
        FigureParts {
            window,
            replicas,
            plots,
            charts: drawn,
            caption,
            results: table::results_table(result),
            ticks,
            csv: data.csv,
        }
    }
}

/// The per-tick data of the figure of `scenario`'s `result` as CSV, as
/// [`FigureParts::new`] gives it, for the file beside the page.
pub fn tick_csv(scenario: &Scenario, result: &ScenarioResult, options: &FigureOptions) -> String {
    let window = options
        .window
        .unwrap_or_else(|| auto_window(scenario, result));
    // Binned as the figure is, whose chart draws a fleet as one server.
    let one = as_one(scenario);
    let scenario = one.as_ref().unwrap_or(scenario);
    let bin = lanes::ticks_per_column(scenario, result, window);
    table::tick_data(scenario, result, window, bin).csv
}

/// Each replica's calls over the figure's window as CSV ([`table::replica_data`]),
/// binned as the figure's chart is; `None` for one server, or a fleet whose strips are
/// not drawn.
pub fn replica_csv(
    scenario: &Scenario,
    result: &ScenarioResult,
    options: &FigureOptions,
) -> Option<String> {
    let one = as_one(scenario)?;
    let window = options
        .window
        .unwrap_or_else(|| auto_window(scenario, result));
    let bin = lanes::ticks_per_column(&one, result, window);
    table::replica_data(&one, result, window, bin)
}

/// A fleet's scenario with the fleet seen as one server ([`crate::engine::fleet::Fleet::as_one`]),
/// which the lane chart draws and the caption and the per-tick data speak of; `None` for
/// one server.
pub(crate) fn as_one(scenario: &Scenario) -> Option<Scenario> {
    (scenario.server.fleet.as_ref()).map(|fleet| Scenario {
        server: fleet.as_one(&scenario.server, scenario.horizon),
        ..scenario.clone()
    })
}

/// A chart in both its layouts, wide then narrow, one a line: drawn for the width it is
/// shown at rather than scrolled or shrunk, so that its text stays at 11 CSS px or more
/// (see [`draw::Form`]). The page's stylesheet shows one and hides the other.
pub(crate) fn charts(chart: impl Fn(draw::Form) -> String) -> String {
    let mut out = String::new();
    for form in draw::Form::BOTH {
        out.push_str(&chart(form));
        out.push('\n');
    }
    out
}

/// The automatic window, in µs, so that a chart shows the action and not minutes of
/// empty ticks:
///
/// 1. the end of the last active tick over the typical runs: the largest `done_at` plus
///    one tick (a run with no call at all counts as done after its first tick);
/// 2. plus a margin of a tenth of that, and at least two ticks;
/// 3. rounded up to a multiple of a tidy step: the first of 1, 2, 5 × a power of ten
///    µs that is at least a tenth of the sum, itself rounded up to whole ticks;
/// 4. never past the horizon.
///
/// When a typical run still has clients retrying at the horizon, the window is the
/// whole horizon: the point of such a chart is that the storm never ends.
pub fn auto_window(scenario: &Scenario, result: &ScenarioResult) -> Micros {
    let tick = scenario.server.tick.max(1);
    let mut latest = 0;
    for strategy in &result.strategies {
        let totals = &strategy.typical.totals;
        if totals.still_retrying > 0 {
            return scenario.horizon;
        }
        latest = latest.max(totals.done_at.unwrap_or(0) + tick);
    }
    let wanted = latest + (latest / 10).max(2 * tick);
    let step = tidy_step(wanted / 10).div_ceil(tick) * tick;
    (wanted.div_ceil(step) * step).min(scenario.horizon)
}

/// The first of 1, 2, 5 × a power of ten that is at least `at_least` (and at least 1).
pub(crate) fn tidy_step(at_least: u64) -> u64 {
    let mut power: u64 = 1;
    loop {
        for m in [1, 2, 5] {
            let step = m * power;
            if step >= at_least {
                return step;
            }
        }
        power = power.saturating_mul(10);
        if power == u64::MAX {
            return u64::MAX;
        }
    }
}

/// A tidy upper bound for a count: the count itself up to 10, then the first of
/// 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × a power of ten that holds it.
pub(crate) fn tidy_ceiling(count: u64) -> u64 {
    if count <= 10 {
        return count.max(1);
    }
    let mut power: u64 = 10;
    loop {
        for tenths in [10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100] {
            let ceiling = power / 10 * tenths;
            if ceiling >= count {
                return ceiling;
            }
        }
        power = power.saturating_mul(10);
    }
}

/// A coordinate as the SVG prints it: two decimals at most, no trailing zeros, so
/// that output is compact and the same on every machine. Printed from the whole number
/// of hundredths rather than by the float formatter, which would add several kilobytes
/// to the playground's module; a chart's coordinates are far within the ±2^53
/// hundredths where the two agree.
pub(crate) fn coord(x: f64) -> String {
    // `as` saturates, and reads NaN as 0.
    let hundredths = (x * 100.0).round() as i64;
    let size = hundredths.unsigned_abs();
    let (whole, frac) = (size / 100, size % 100);
    let sign = if hundredths < 0 { "-" } else { "" };
    match (frac, frac % 10) {
        (0, _) => format!("{sign}{whole}"),
        (_, 0) => format!("{sign}{whole}.{}", frac / 10),
        _ => format!("{sign}{whole}.{frac:02}"),
    }
}

/// The caption written when the author gives none: the setup in one sentence, then
/// what the lanes show. `server` is the scenario's, or a fleet's as one server
/// ([`crate::engine::fleet::Fleet::as_one`]).
fn generated_caption(
    scenario: &Scenario,
    server: &crate::engine::scenario::Server,
    result: &ScenarioResult,
    window: Micros,
) -> String {
    let clients = thousands(scenario.clients);
    let start = if scenario.spread == 0 {
        "call at once".to_string()
    } else {
        format!("start over the first {}", duration(scenario.spread))
    };
    let rates: Vec<String> = scenario
        .arrivals
        .iter()
        .map(|a| match a.process {
            Process::Even => format!("{} per second", milli(a.rate_milli)),
            Process::Poisson => format!(
                "{} per second at random (a Poisson process)",
                milli(a.rate_milli)
            ),
        })
        .collect();
    let (clients, start) = match (scenario.clients, rates.is_empty()) {
        (_, true) => (clients, start),
        (0, false) => (
            format!("New requests at {}", rates.join(", then ")),
            "call".to_string(),
        ),
        (_, false) => (
            clients,
            format!(
                "{start}, and new requests at {} call,",
                rates.join(", then ")
            ),
        ),
    };
    // A fleet is written of as one server: its replicas' capacity together, down
    // where all of them are.
    let fleet = scenario.server.fleet.as_ref();
    let (who, serves, is) = match fleet {
        Some(f) => (
            format!(
                "{} replicas behind a {} balancer, which",
                f.replicas,
                f.balancer.name()
            ),
            "serve",
            "are all",
        ),
        None => ("a server that".to_string(), "serves", "is"),
    };
    let together = if fleet.is_some() { " together" } else { "" };
    let warm = match server.cache {
        Some(cache) => format!(
            " with a cold cache, up to {} with a warm one{}",
            milli(cache.capacity_milli),
            if fleet.is_some() {
                " (each replica its own)"
            } else {
                ""
            }
        ),
        None => String::new(),
    };
    let serves = match server.model {
        ServerModel::Capacity => format!(
            "{serves} up to {} calls per {} tick{together}{warm}",
            milli(server.capacity_milli),
            duration(server.tick)
        ),
        ServerModel::AllOrNothing => format!(
            "{serves} up to {} calls per {} tick{together}{warm} and none when more arrive{}",
            milli(server.capacity_milli),
            duration(server.tick),
            if fleet.is_some() {
                " at a replica than it can serve"
            } else {
                ""
            }
        ),
    };
    let down: Vec<String> = server
        .outages
        .iter()
        .map(|o| format!("{} to {}", duration(o.from), duration(o.to)))
        .collect();
    let down = if down.is_empty() {
        String::new()
    } else {
        format!(" and {is} down from {}", down.join(" and from "))
    };
    let shown = if window >= scenario.horizon {
        format!("all {}", duration(scenario.horizon))
    } else {
        format!(
            "the first {} of {}",
            duration(window),
            duration(scenario.horizon)
        )
    };
    let random = scenario.spread > 0 || result.strategies.iter().any(|s| s.strategy.is_jittered());
    let typical = if result.runs > 1 && random {
        format!(
            "; where runs differ, the lane shows the first run with the median number of calls of {}",
            thousands(u64::from(result.runs))
        )
    } else {
        String::new()
    };
    format!(
        "{clients}{} {start} {who} {serves}{down}. \
         Calls per tick over {shown}, one lane per strategy{typical}.",
        if scenario.clients == 0 && !scenario.arrivals.is_empty() {
            ""
        } else {
            " clients"
        }
    )
}
