//! The schedule figure: the waits of one client, retry by retry, for each strategy in a
//! panel of its own: the ceiling `d(a)` as a stepped line, the range a wait may be drawn
//! from as a shaded band, and one sampled wait as a marker. The panels share both
//! scales, so they compare at a glance, and a table gives the same numbers.
//!
//! The three differ by form (line, area, marker), not only by colour; a strategy keeps
//! the colour and marker it has in the sweep figures.

use svg::node::element::{Group, Path};

use crate::engine::Strategy;
use crate::engine::schedule::Step;
use crate::engine::units::{Micros, SECOND};

use super::draw::{CHAR, GRID, Label, WIDTH, line, rect, text};
use super::sweep::{Shape, mark, marker};
use super::table::escape;
use super::{coord, seconds_fixed, tidy_ceiling, tidy_step};

/// Right edge of the panels.
const RIGHT: f64 = WIDTH - 16.0;
/// Height of the legend row at the top.
const LEGEND: f64 = 30.0;
/// Height of the label row above each panel.
const LABEL: f64 = 26.0;
/// Height of a panel's plot.
const PANEL: f64 = 90.0;
/// Space below a panel.
const GAP: f64 = 16.0;
/// Height of the retry axis below the last panel.
const AXIS: f64 = 46.0;

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
pub(crate) fn wait_number(us: Micros) -> String {
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

/// The shared scales.
struct Layout {
    /// Retries shown (the longest schedule).
    retries: usize,
    /// Left edge of the plots.
    left: f64,
    /// The top of the wait scale, µs.
    top: Micros,
    /// The wait scale's step, µs.
    step: Micros,
}

impl Layout {
    fn slot(&self) -> f64 {
        (RIGHT - self.left) / self.retries.max(1) as f64
    }

    /// The left edge of retry `i`'s slot (counting from 0).
    fn x_of(&self, i: usize) -> f64 {
        self.left + i as f64 * self.slot()
    }

    /// The height of a wait above a baseline.
    fn height(&self, us: Micros) -> f64 {
        PANEL * us as f64 / self.top as f64
    }

    /// The baseline of panel `i`.
    fn base(&self, i: usize) -> f64 {
        LEGEND + i as f64 * (LABEL + PANEL + GAP) + LABEL + PANEL
    }
}

/// The whole HTML block of a schedule directive: a `<figure class="sim sim-schedule"
/// id="schedule-{id}">` with a panel of waits per strategy and a caption, then the
/// waits as a table.
pub fn schedule_figure(id: &str, rows: &[(Strategy, Vec<Step>)], caption: Option<&str>) -> String {
    let id = escape(id);
    let caption = match caption {
        Some(text) => escape(text),
        None => escape(&generated_caption(rows)),
    };
    let mut out = format!("<figure class=\"sim sim-schedule\" id=\"schedule-{id}\">\n");
    out.push_str(&format!(
        "<div class=\"sim-scroll\" role=\"region\" tabindex=\"0\" aria-labelledby=\"{id}-title\">\n"
    ));
    out.push_str(&schedule_chart(&id, rows));
    out.push_str("\n</div>\n");
    out.push_str(&format!("<figcaption>{caption}</figcaption>\n</figure>\n"));
    out.push_str(&format!(
        "<div class=\"sim-scroll\" role=\"region\" tabindex=\"0\" aria-labelledby=\"{id}-waits-caption\">\n{}</div>\n",
        schedule_table(&id, rows)
    ));
    out
}

/// The panels as an `<svg>` element whose ids start with `id` (already escaped).
fn schedule_chart(id: &str, rows: &[(Strategy, Vec<Step>)]) -> String {
    let retries = rows.iter().map(|(_, s)| s.len()).max().unwrap_or(0).max(1);
    let highest = rows
        .iter()
        .flat_map(|(strategy, steps)| {
            steps.iter().map(move |s| {
                let ceiling = if uses_ceiling(*strategy) {
                    s.ceiling
                } else {
                    0
                };
                s.high.max(s.wait).max(ceiling)
            })
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let top = tidy_ceiling(highest);
    let step = tidy_step(top.div_ceil(2)).max(1);
    let top = top.div_ceil(step) * step;
    let widest = (0..=top / step)
        .map(|k| wait_number(k * step).len())
        .max()
        .unwrap_or(1);
    let layout = Layout {
        retries,
        left: (34.0 + CHAR * widest as f64).max(48.0),
        top,
        step,
    };
    let panels = rows.len().max(1);
    let height = layout.base(panels - 1) + AXIS;

    let mut doc = super::draw::document(
        id,
        "sim-schedule",
        (WIDTH, height),
        format!("{id}: the wait before each retry, by strategy"),
        description(rows),
    )
    .add(legend(layout.left));
    for (i, (strategy, steps)) in rows.iter().enumerate() {
        doc = doc.add(panel(&layout, i, *strategy, steps));
    }
    doc.add(retry_axis(&layout, panels)).to_string()
}

/// One strategy's panel: its name, grid, range band, ceiling and sampled waits.
fn panel(layout: &Layout, i: usize, strategy: Strategy, steps: &[Step]) -> Group {
    let base = layout.base(i);
    let plot_top = base - PANEL;
    let m = mark(strategy);
    let slot = layout.slot();
    let mut group = Group::new().set("class", format!("panel {}", m.class));

    let mut grid = Group::new()
        .set("class", "grid")
        .set("stroke", GRID)
        .set("stroke-width", "0.5");
    let mut labels = Group::new()
        .set("class", "label")
        .set("fill", "currentColor")
        .set("text-anchor", "end");
    for k in 0..=layout.top / layout.step {
        let y = base - layout.height(k * layout.step);
        if k > 0 {
            grid = grid.add(line(layout.left, y, RIGHT, y));
        }
        labels = labels.add(Label::at(
            layout.left - 6.0,
            y + 4.5,
            &wait_number(k * layout.step),
        ));
    }
    group = group.add(grid);

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
            Path::new()
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
            Path::new()
                .set("d", d)
                .set("class", "ceiling")
                .set("fill", "none")
                .set("stroke", "currentColor")
                .set("stroke-width", "1.5"),
        );
    }

    let mut markers = Group::new()
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
            line(layout.left, base, RIGHT, base)
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
fn retry_axis(layout: &Layout, panels: usize) -> Group {
    let last = layout.base(panels - 1);
    // Every retry numbered when there is room, else every second, fifth, …
    let every = tidy_step(
        (layout.retries as f64 * 3.0 * CHAR / (RIGHT - layout.left)).ceil() as u64,
    )
    .max(1) as usize;
    let mut ticks = Group::new()
        .set("class", "axis")
        .set("stroke", "currentColor");
    let mut labels = Group::new()
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
        labels = labels.add(Label::at(x, last + 19.0, &number.to_string()));
    }
    let middle = (LEGEND + LABEL + last) / 2.0;
    Group::new()
        .add(ticks)
        .add(labels)
        .add(
            text((layout.left + RIGHT) / 2.0, last + 39.0, "retry")
                .set("class", "label")
                .set("text-anchor", "middle"),
        )
        .add(
            text(18.0, middle, "wait (s)")
                .set("class", "label")
                .set("text-anchor", "middle")
                .set("transform", format!("rotate(-90 18 {})", coord(middle))),
        )
}

/// The legend row: the ceiling, the range and a sampled wait, each as drawn.
fn legend(left: f64) -> Group {
    let y = 8.0;
    let item = |group: Group, swatch: Box<dyn svg::Node>, name: &str, x: &mut f64| {
        let at = *x;
        *x += 24.0 + CHAR * name.chars().count() as f64 + 18.0;
        group
            .add(swatch)
            .add(text(at + 24.0, y + 10.5, name).set("class", "label"))
    };
    let mut x = left;
    let mut group = Group::new().set("class", "legend");
    let ceiling = Path::new()
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
        .set("stroke-width", "1.5");
    group = item(group, Box::new(ceiling), "ceiling d(a)", &mut x);
    let range = rect(x, y, 18.0, 12.0)
        .set("class", "range neutral")
        .set("fill", "currentColor")
        .set("fill-opacity", "0.22");
    group = item(group, Box::new(range), "possible waits", &mut x);
    let sample = marker(Shape::Circle, x + 9.0, y + 6.0, 9.0)
        .set("class", "marker neutral")
        .set("fill", "currentColor");
    item(group, Box::new(sample), "sampled wait", &mut x)
}

/// The waits in words, for the SVG's `<desc>`: per strategy, the sampled waits.
fn description(rows: &[(Strategy, Vec<Step>)]) -> String {
    let mut out = "The wait before each retry of one client, one panel per strategy: the \
                   range a wait may be drawn from, the ceiling d(a) where the strategy \
                   uses it, and one sampled wait."
        .to_string();
    for (strategy, steps) in rows {
        let waits: Vec<String> = steps.iter().map(|s| wait_number(s.wait)).collect();
        out.push_str(&format!(" {}: {} s.", strategy.name(), waits.join(", ")));
    }
    out
}

/// The caption written when the author gives none.
fn generated_caption(rows: &[(Strategy, Vec<Step>)]) -> String {
    let retries = rows.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    format!(
        "The wait before each of the first {retries} retries of one client: the ceiling \
         d(a) as a stepped line, the range a wait may be drawn from shaded, and one \
         sampled wait marked."
    )
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
    let mut out = format!(
        "<table class=\"sim-ticks sim-waits\">\n<caption id=\"{id}-waits-caption\">The wait \
         before each retry, in seconds: the ceiling d(a), the range a wait may be drawn \
         from, and the wait sampled</caption>\n<thead>\n"
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
    for n in 0..retries {
        out.push_str(&format!(
            "<tr><th scope=\"row\" class=\"num\">{}</th>",
            n + 1
        ));
        for (strategy, steps) in rows {
            match steps.get(n) {
                Some(s) => {
                    let ceiling = if uses_ceiling(*strategy) {
                        format!("{}&nbsp;s", wait_number(s.ceiling))
                    } else {
                        "–".to_string()
                    };
                    out.push_str(&format!(
                        "<td class=\"num\">{ceiling}</td><td class=\"num\">{}</td><td class=\"num\">{}&nbsp;s</td>",
                        range_cell(s.low, s.high),
                        wait_number(s.wait)
                    ));
                }
                None => out.push_str("<td></td><td></td><td></td>"),
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
}
