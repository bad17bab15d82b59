//! The schedule figure: the waits of one client, retry by retry, for each strategy in a
//! panel of its own: the ceiling `d(a)` as a stepped line, the range a wait may be drawn
//! from as a shaded band, and one sampled wait as a marker. The panels share both
//! scales, so they compare at a glance, and a table gives the same numbers.
//!
//! The three differ by form (line, area, marker), not only by colour; a strategy keeps
//! the colour and marker it has in the sweep figures.

use super::svg::Element;

use crate::engine::Strategy;
use crate::engine::schedule::Step;
use crate::engine::units::{Micros, SECOND};

use super::draw::{Form, GRID, Label, line, rect, text};
use super::marks::{Shape, mark, marker};
use super::scale::Scale;
use super::table::escape;
use super::{coord, tidy_step};
use crate::format::seconds_fixed;

/// Space below a panel.
const GAP: f64 = 16.0;

/// Whether a strategy's waits follow the ceiling `d(a)`: fixed waits are always the
/// base, and decorrelated jitter draws from three times its previous wait, so for them
/// the ceiling would only mislead.
fn uses_ceiling(strategy: Strategy) -> bool {
    matches!(
        strategy,
        Strategy::Exponential | Strategy::FullJitter | Strategy::EqualJitter
    )
}

/// A wait as a reader compares it: seconds, with more decimals the shorter it is, and
/// no trailing zeros: `0.1`, `0.025`, `1.6`, `3.46`, `10`.
fn wait_number(us: Micros) -> String {
    let decimals = if us >= 10 * SECOND {
        1
    } else if us >= SECOND {
        2
    } else if us >= 1_000 {
        3
    } else {
        6
    };
    let mut text = seconds_fixed(us, decimals);
    if text.contains('.') {
        while text.ends_with('0') {
            text.pop();
        }
        if text.ends_with('.') {
            text.pop();
        }
    }
    text
}

/// The shared scales, in one of the two layouts.
struct Layout {
    form: Form,
    /// Retries shown (the longest schedule).
    retries: usize,
    /// Left edge of the plots.
    left: f64,
    /// The wait scale, in seconds: logarithmic when the waits span orders of magnitude,
    /// so that the first doublings show as clearly as the last.
    scale: Scale,
    /// Height of the legend at the top.
    legend: f64,
}

impl Layout {
    /// Right edge of the panels.
    fn right(&self) -> f64 {
        self.form.width()
            - match self.form {
                Form::Wide => 16.0,
                Form::Narrow => 12.0,
            }
    }

    /// Height of a panel's plot.
    fn panel(&self) -> f64 {
        match self.form {
            Form::Wide => 90.0,
            Form::Narrow => 80.0,
        }
    }

    /// Height of the label row above each panel.
    fn label(&self) -> f64 {
        self.form.font() + 12.0
    }

    fn slot(&self) -> f64 {
        (self.right() - self.left) / self.retries.max(1) as f64
    }

    /// The left edge of retry `i`'s slot (counting from 0).
    fn x_of(&self, i: usize) -> f64 {
        self.left + i as f64 * self.slot()
    }

    /// The height of a wait above a baseline.
    fn height(&self, us: Micros) -> f64 {
        self.panel() * self.scale.at(us as f64 / SECOND as f64)
    }

    /// The baseline of panel `i`.
    fn base(&self, i: usize) -> f64 {
        self.legend + i as f64 * (self.label() + self.panel() + GAP) + self.label() + self.panel()
    }
}

/// The whole HTML block of a schedule directive: a `<figure class="sim sim-schedule"
/// id="schedule-{id}">` with a panel of waits per strategy, in both layouts, and a
/// caption, then the waits as a table.
pub fn schedule_figure(id: &str, rows: &[(Strategy, Vec<Step>)], caption: Option<&str>) -> String {
    let id = escape(id);
    let caption = match caption {
        Some(text) => escape(text),
        None => escape(&generated_caption(rows)),
    };
    let mut out = format!("<figure class=\"sim sim-schedule\" id=\"schedule-{id}\">\n");
    out.push_str(&super::charts(|form| schedule_chart(&id, rows, form)));
    out.push_str(&format!("<figcaption>{caption}</figcaption>\n</figure>\n"));
    // The waits never scroll either: a table where the column is wide enough, a block
    // of labelled values per retry where it is not.
    out.push_str(&format!(
        "<div class=\"sim-results-wrap\">\n{}</div>\n",
        schedule_table(&id, rows)
    ));
    out
}

/// The wait scale of `rows`, in seconds: every wait, range end and ceiling drawn, with
/// zero in a slot of its own when a range starts at zero; waits under a thousandth of
/// the longest share the scale's floor.
fn wait_scale(rows: &[(Strategy, Vec<Step>)]) -> Scale {
    let mut values: Vec<Micros> = Vec::new();
    for (strategy, steps) in rows {
        for s in steps {
            values.extend([s.low, s.high, s.wait]);
            if uses_ceiling(*strategy) {
                values.push(s.ceiling);
            }
        }
    }
    let values: Vec<f64> = values
        .into_iter()
        .map(|us| us as f64 / SECOND as f64)
        .collect();
    let highest = values.iter().copied().fold(0.0, f64::max);
    if highest <= 0.0 {
        return Scale::linear(0.0, 1.0, 2.0);
    }
    let floor = highest / 1000.0;
    let clamped: Vec<f64> = values
        .iter()
        .map(|&v| if v > 0.0 { v.max(floor) } else { 0.0 })
        .collect();
    let mut with_zero = clamped.clone();
    with_zero.push(0.0);
    let scale = Scale::of(&clamped, 2.0, true, 10.0);
    if scale.log {
        scale
    } else {
        Scale::of(&with_zero, 2.0, false, 10.0)
    }
}

/// The panels in one layout, as an `<svg>` element whose ids start with `id` (already
/// escaped).
fn schedule_chart(id: &str, rows: &[(Strategy, Vec<Step>)], form: Form) -> String {
    let retries = rows.iter().map(|(_, s)| s.len()).max().unwrap_or(0).max(1);
    let scale = wait_scale(rows);
    let mut layout = Layout {
        form,
        retries,
        left: 0.0,
        scale,
        legend: 0.0,
    };
    let labels = layout.scale.labelled(layout.panel(), |_| form.font() + 2.0);
    let widest = labels
        .iter()
        .map(|t| form.text_width(&t.1, false))
        .fold(0.0, f64::max);
    layout.left = (form.font() + 16.0 + widest).max(form.font() * 3.4);
    let (legend, rows_of_legend) = legend(&layout);
    layout.legend = 8.0 + rows_of_legend as f64 * (form.font() + 8.0);
    let panels = rows.len().max(1);
    let height = layout.base(panels - 1) + form.font() * 3.3;

    let mut doc = super::draw::document(
        id,
        "sim-schedule",
        form,
        height,
        format!("{id}: the wait before each retry, by strategy"),
        description(rows, &layout.scale),
    )
    .add(legend);
    for (i, (strategy, steps)) in rows.iter().enumerate() {
        doc = doc.add(panel(&layout, &labels, i, *strategy, steps));
    }
    doc.add(retry_axis(&layout, panels)).to_string()
}

/// One strategy's panel: its name, grid, range band, ceiling and sampled waits.
fn panel(
    layout: &Layout,
    ticks: &[(f64, String)],
    i: usize,
    strategy: Strategy,
    steps: &[Step],
) -> Element {
    let form = layout.form;
    let right = layout.right();
    let base = layout.base(i);
    let plot_top = base - layout.panel();
    let m = mark(strategy);
    let slot = layout.slot();
    let mut group = Element::new("g").set("class", format!("panel {}", m.class));

    let mut grid = Element::new("g")
        .set("class", "grid")
        .set("stroke", GRID)
        .set("stroke-width", "0.5");
    let mut labels = Element::new("g")
        .set("class", "label")
        .set("fill", "currentColor")
        .set("text-anchor", "end");
    for (v, label) in ticks {
        let y = base - layout.panel() * layout.scale.at(*v);
        if y < base - 0.5 {
            grid = grid.add(line(layout.left, y, right, y));
        }
        labels = labels.add(Label::at(layout.left - 6.0, y + form.font() * 0.32, label));
    }
    group = group.add(grid);
    if let Some(gap) = layout.scale.gap() {
        let y = base - layout.panel() * gap;
        group = group.add(
            Element::new("path")
                .set(
                    "d",
                    format!(
                        "M{} {}l8 -4M{} {}l8 -4",
                        coord(layout.left - 4.0),
                        coord(y + 4.0),
                        coord(layout.left - 4.0),
                        coord(y)
                    ),
                )
                .set("class", "axis break")
                .set("stroke", "currentColor"),
        );
    }

    // The range: one shape of slots, each as wide as its retry; a range of one value
    // is a thin line, so that it still shows.
    let mut band = String::new();
    for (n, s) in steps.iter().enumerate() {
        let (lo, hi) = (base - layout.height(s.low), base - layout.height(s.high));
        let (lo, hi) = if lo - hi < 1.5 {
            let mid = (lo + hi) / 2.0;
            (mid + 0.75, mid - 0.75)
        } else {
            (lo, hi)
        };
        band.push_str(&format!(
            "M{} {}H{}V{}H{}Z",
            coord(layout.x_of(n) + 1.0),
            coord(lo),
            coord(layout.x_of(n + 1) - 1.0),
            coord(hi),
            coord(layout.x_of(n) + 1.0)
        ));
    }
    if !band.is_empty() {
        group = group.add(
            Element::new("path")
                .set("d", band)
                .set("class", "range")
                .set("fill", m.colour)
                .set("fill-opacity", "0.22"),
        );
    }

    if uses_ceiling(strategy) && !steps.is_empty() {
        let mut d = String::new();
        for (n, s) in steps.iter().enumerate() {
            let y = coord(base - layout.height(s.ceiling));
            if n == 0 {
                d.push_str(&format!("M{} {y}", coord(layout.x_of(0))));
            } else {
                d.push_str(&format!("V{y}"));
            }
            d.push_str(&format!("H{}", coord(layout.x_of(n + 1))));
        }
        group = group.add(
            Element::new("path")
                .set("d", d)
                .set("class", "ceiling")
                .set("fill", "none")
                .set("stroke", "currentColor")
                .set("stroke-width", "1.5"),
        );
    }

    let mut markers = Element::new("g")
        .set("class", "marker")
        .set("fill", m.colour)
        .set("stroke", "#ffffff")
        .set("stroke-width", "1");
    for (n, s) in steps.iter().enumerate() {
        let x = layout.x_of(n) + slot / 2.0;
        markers = markers.add(marker(m.shape, x, base - layout.height(s.wait), 9.0));
    }
    group
        .add(markers)
        .add(
            line(layout.left, base, right, base)
                .set("class", "axis")
                .set("stroke", "currentColor"),
        )
        .add(labels)
        .add(
            text(layout.left, plot_top - 6.0, strategy.name())
                .set("class", "label name")
                .set("font-weight", "600"),
        )
}

/// The retry numbers under the last panel, the axis titles.
fn retry_axis(layout: &Layout, panels: usize) -> Element {
    let form = layout.form;
    let right = layout.right();
    let last = layout.base(panels - 1);
    // Every retry numbered when there is room, else every second, fifth, …
    let every = tidy_step(
        (layout.retries as f64 * 3.0 * form.char() / (right - layout.left)).ceil() as u64,
    )
    .max(1) as usize;
    let mut ticks = Element::new("g")
        .set("class", "axis")
        .set("stroke", "currentColor");
    let mut labels = Element::new("g")
        .set("class", "label")
        .set("fill", "currentColor")
        .set("text-anchor", "middle");
    for n in 0..layout.retries {
        let number = n + 1;
        if number != 1 && number % every != 0 {
            continue;
        }
        let x = layout.x_of(n) + layout.slot() / 2.0;
        ticks = ticks.add(line(x, last, x, last + 4.0));
        labels = labels.add(Label::at(x, last + 5.0 + form.font(), &number.to_string()));
    }
    let middle = (layout.legend + last) / 2.0;
    let title_x = form.font() + 4.0;
    let title = if layout.scale.log {
        "wait (s, log scale)"
    } else {
        "wait (s)"
    };
    Element::new("g")
        .add(ticks)
        .add(labels)
        .add(
            text(
                (layout.left + right) / 2.0,
                last + 5.0 + 2.4 * form.font(),
                "retry",
            )
            .set("class", "label")
            .set("text-anchor", "middle"),
        )
        .add(
            text(title_x, middle, title)
                .set("class", "label")
                .set("text-anchor", "middle")
                .set(
                    "transform",
                    format!("rotate(-90 {} {})", coord(title_x), coord(middle)),
                ),
        )
}

/// The legend: the ceiling, the range and a sampled wait, each as drawn, wrapped onto
/// as many rows as needed. Returns it and its number of rows.
fn legend(layout: &Layout) -> (Element, usize) {
    let form = layout.form;
    let (left, right) = (layout.left, layout.right());
    let names = ["ceiling d(a)", "possible waits", "sampled wait"];
    let mut group = Element::new("g").set("class", "legend");
    let (mut x, mut row) = (left, 0);
    for (n, name) in names.into_iter().enumerate() {
        let width = 24.0 + form.text_width(name, false);
        if x > left && x + width > right {
            x = left;
            row += 1;
        }
        let y = 8.0 + row as f64 * (form.font() + 8.0);
        let swatch: Element = match n {
            0 => Element::new("path")
                .set(
                    "d",
                    format!(
                        "M{} {}H{}V{}H{}",
                        coord(x),
                        coord(y + 10.0),
                        coord(x + 9.0),
                        coord(y + 2.0),
                        coord(x + 18.0)
                    ),
                )
                .set("class", "ceiling")
                .set("fill", "none")
                .set("stroke", "currentColor")
                .set("stroke-width", "1.5"),
            1 => rect(x, y, 18.0, 12.0)
                .set("class", "range neutral")
                .set("fill", "currentColor")
                .set("fill-opacity", "0.22"),
            _ => marker(Shape::Circle, x + 9.0, y + 6.0, 9.0)
                .set("class", "marker neutral")
                .set("fill", "currentColor"),
        };
        group = group
            .add(swatch)
            .add(text(x + 24.0, y + 6.0 + form.font() * 0.32, name).set("class", "label"));
        x += width + 18.0;
    }
    (group, row + 1)
}

/// The waits in words, for the SVG's `<desc>`: per strategy, the sampled waits.
fn description(rows: &[(Strategy, Vec<Step>)], scale: &Scale) -> String {
    let mut out = "The wait before each retry of one client, one panel per strategy: the \
                   range a wait may be drawn from, the ceiling d(a) where the strategy \
                   uses it, and one sampled wait."
        .to_string();
    if scale.log {
        out.push_str(
            " The wait axis is logarithmic, so that each doubling is a step of the same \
             height; zero has a place of its own at the bottom.",
        );
    }
    for (strategy, steps) in rows {
        let waits: Vec<String> = steps.iter().map(|s| wait_number(s.wait)).collect();
        out.push_str(&format!(" {}: {} s.", strategy.name(), waits.join(", ")));
    }
    out
}

/// The caption written when the author gives none.
fn generated_caption(rows: &[(Strategy, Vec<Step>)]) -> String {
    let retries = rows.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    let mut out = format!(
        "The wait before each of the first {retries} retries of one client: the ceiling \
         d(a) as a stepped line, the range a wait may be drawn from shaded, and one \
         sampled wait marked."
    );
    // A strategy with an attempt limit stops sooner: say so, not leave it to the reader.
    for (strategy, steps) in rows.iter().filter(|(_, s)| s.len() < retries) {
        let n = steps.len();
        out.push_str(&format!(
            " {} stops after {n} {}, at its attempt limit.",
            strategy.name(),
            if n == 1 { "retry" } else { "retries" }
        ));
    }
    out
}

/// A range of waits as cell HTML: `0–1.6 s`, or one value when it is one.
fn range_cell(low: Micros, high: Micros) -> String {
    if low == high {
        format!("{}&nbsp;s", wait_number(low))
    } else {
        format!("{}–{}&nbsp;s", wait_number(low), wait_number(high))
    }
}

/// The waits as an HTML table: a row per retry, and per strategy its ceiling, range
/// and sampled wait. Its caption's id is `{id}-waits-caption` (`id` already escaped).
fn schedule_table(id: &str, rows: &[(Strategy, Vec<Step>)]) -> String {
    let retries = rows.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    let mut labels = Vec::new();
    for (strategy, _) in rows {
        for heading in ["ceiling", "range", "wait"] {
            labels.push(format!("{} {heading}", strategy.name()));
        }
    }
    let mut cells: Vec<(String, Vec<String>)> = Vec::new();
    for n in 0..retries {
        let mut row = Vec::new();
        for (strategy, steps) in rows {
            match steps.get(n) {
                Some(s) => {
                    row.push(if uses_ceiling(*strategy) {
                        format!("{}&nbsp;s", wait_number(s.ceiling))
                    } else {
                        "–".to_string()
                    });
                    row.push(range_cell(s.low, s.high));
                    row.push(format!("{}&nbsp;s", wait_number(s.wait)));
                }
                // Past its attempt limit the client has given up: no wait to show.
                None => row.extend(["–".to_string(), "–".to_string(), "no retry".to_string()]),
            }
        }
        cells.push(((n + 1).to_string(), row));
    }
    let headings: Vec<&str> = labels.iter().map(String::as_str).collect();
    let mut out = format!(
        "<table class=\"sim-results sim-waits sim-fit-{}\">\n<caption id=\"{id}-waits-caption\">The wait \
         before each retry, in seconds: the ceiling d(a), the range a wait may be drawn \
         from, and the wait sampled</caption>\n<thead>\n",
        super::table::fit_class(&headings, &cells)
    );
    out.push_str("<tr><th scope=\"col\" rowspan=\"2\" class=\"num\">retry</th>");
    for (strategy, _) in rows {
        out.push_str(&format!(
            "<th scope=\"colgroup\" colspan=\"3\">{}</th>",
            escape(strategy.name())
        ));
    }
    out.push_str("</tr>\n<tr>");
    for _ in rows {
        for heading in ["ceiling", "range", "wait"] {
            out.push_str(&format!("<th scope=\"col\" class=\"num\">{heading}</th>"));
        }
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for (retry, row) in &cells {
        out.push_str(&format!(
            "<tr><th scope=\"row\" class=\"num\" data-label=\"retry\">{retry}</th>"
        ));
        for (label, cell) in labels.iter().zip(row) {
            // An empty cell (a strategy with fewer retries) has nothing to name.
            if cell.is_empty() {
                out.push_str("<td></td>");
            } else {
                out.push_str(&format!(
                    "<td class=\"num\" data-label=\"{label}\">{cell}</td>"
                ));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_print_short() {
        assert_eq!(wait_number(0), "0");
        assert_eq!(wait_number(100_000), "0.1");
        assert_eq!(wait_number(25_000), "0.025");
        assert_eq!(wait_number(1_600_000), "1.6");
        assert_eq!(wait_number(3_456_789), "3.46");
        assert_eq!(wait_number(10_000_000), "10");
        assert_eq!(wait_number(12_345_678), "12.3");
        assert_eq!(wait_number(250), "0.00025");
    }

    #[test]
    fn a_library_at_its_attempt_limit_stops_and_the_caption_says_so() {
        use crate::engine::Scenario;
        use crate::engine::schedule::schedule;
        let retry = Scenario::with_clients("s", 1).retry;
        let rows: Vec<_> = [Strategy::FullJitter, Strategy::AwsStandard]
            .into_iter()
            .map(|s| (s, schedule(s, &retry, 6, 1)))
            .collect();
        let html = schedule_figure("w", &rows, None);
        assert!(
            html.contains("the first 6 retries of one client")
                && html.contains("aws-standard stops after 2 retries, at its attempt limit."),
            "{html}"
        );
        // Retries 3 to 6: aws-standard's client has given up.
        assert_eq!(
            html.matches("data-label=\"aws-standard wait\">no retry</td>")
                .count(),
            4,
            "{html}"
        );
    }
}
