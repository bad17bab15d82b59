//! One strategy's lane: its label block and totals, grid, bars, capacity line, height
//! labels, and the mark of where its run ends.

use super::DOWN;
use super::bars::{bars, capacity_line, capacity_run, capacity_steps};
use super::layout::Layout;
use super::overload;
use crate::chart::coord;
use crate::chart::draw::{GRID, Label, halo, line, rect, text, wrap};
use crate::chart::svg::Element;
use crate::engine::StrategyResult;
use crate::engine::units::Micros;
use crate::format::{seconds, thousands};

/// How a lane's typical run ends, as its lane marks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// The last client was done in the tick that starts at this time, inside the window.
    Done(Micros),
    /// Clients were still calling after the window: past its end, or at the horizon.
    Continues,
    /// No client at all.
    Empty,
}

impl End {
    fn of(strategy: &StrategyResult, end: Micros) -> End {
        let totals = &strategy.typical.totals;
        match totals.done_at {
            _ if totals.still_retrying > 0 => End::Continues,
            Some(done) if done >= end => End::Continues,
            Some(done) => End::Done(done),
            None => End::Empty,
        }
    }
}

/// The lines of the label block above a lane: its name, and the typical run's totals
/// beside it when both fit on one line for every lane of the chart, else under it.
pub(super) fn label_lines(layout: &Layout, strategy: &StrategyResult) -> Vec<String> {
    let name = strategy.strategy.name();
    let summary = lane_summary(strategy);
    let form = layout.form;
    let room = layout.right() - layout.left;
    if !layout.stacked
        && form.text_width(name, true) + 2.0 * form.char() + form.text_width(&summary, false)
            <= room
    {
        return vec![name.to_string()];
    }
    let mut lines = vec![name.to_string()];
    lines.extend(wrap(form, &summary, room));
    lines
}

/// One strategy's lane: its label block, grid, bars, capacity line, height labels, and
/// the mark of where it ends.
pub(super) fn lane(
    layout: &Layout,
    id: &str,
    i: usize,
    strategy: &StrategyResult,
    times: &[Micros],
    down: &[(Micros, Micros)],
) -> Element {
    let form = layout.form;
    let right = layout.right();
    let base = layout.base(i);
    let plot_top = base - layout.lane();
    let scale_top = base - layout.scale();
    let mut lane = Element::new("g").set("class", "lane");

    for &(from, to) in down {
        let x = layout.x_of(from);
        lane = lane.add(
            rect(x, scale_top, layout.x_of(to) - x, layout.scale())
                .set("class", "down")
                .set("fill", DOWN),
        );
    }
    let mut grid = Element::new("g")
        .set("class", "grid")
        .set("stroke", GRID)
        .set("stroke-width", "0.5")
        .add(line(layout.left, scale_top, right, scale_top));
    for &t in times {
        grid = grid.add(line(layout.x_of(t), scale_top, layout.x_of(t), base));
    }
    lane = lane.add(grid);
    let end = End::of(strategy, layout.end);
    if let End::Done(done) = end {
        lane = lane.add(done_line(layout, done, plot_top, base));
    }
    lane = lane.add(bars(layout, id, strategy, base));
    let moved = (strategy.typical.lanes.as_ref()).filter(|l| !l.capacity.is_empty());
    if let (true, Some(lanes)) = (layout.capacity_shown, moved) {
        lane = lane.add(capacity_run(layout, base, lanes));
    } else if layout.capacity_shown {
        let cap_y = base - layout.capacity_height();
        lane = lane.add(if layout.slowdowns.is_empty() {
            capacity_line(layout.left, right, cap_y)
        } else {
            capacity_steps(layout, base, right)
        });
    }
    lane = lane
        .add(
            line(layout.left, base, right, base)
                .set("class", "axis")
                .set("stroke", "currentColor"),
        )
        .add(
            text(layout.left - 6.0, base + form.font() * 0.32, "0")
                .set("class", "label")
                .set("text-anchor", "end"),
        )
        .add(
            text(
                layout.left - 6.0,
                scale_top + form.font() * 0.32,
                &thousands(layout.top),
            )
            .set("class", "label")
            .set("text-anchor", "end"),
        );
    if let Some(top) = overload::scale_label(layout, scale_top) {
        lane = lane.add(top);
    }

    // The label block: the name, and the run's totals at the right of it or under it.
    let line_height = form.font() + 6.0;
    let block_top = plot_top - layout.label();
    let baseline = |j: usize| block_top + (j + 1) as f64 * line_height - 6.0;
    let lines = label_lines(layout, strategy);
    lane = lane.add(
        text(layout.left, baseline(0), strategy.strategy.name())
            .set("class", "label name")
            .set("font-weight", "600"),
    );
    if lines.len() == 1 {
        lane = lane.add(
            text(right, baseline(0), &lane_summary(strategy))
                .set("class", "label")
                .set("text-anchor", "end"),
        );
    } else {
        for (j, content) in lines.iter().enumerate().skip(1) {
            lane = lane.add(text(layout.left, baseline(j), content).set("class", "label"));
        }
    }
    match end {
        End::Done(done) => lane.add(done_label(layout, done, plot_top)),
        End::Continues => lane.add(continues(layout, plot_top, base)),
        End::Empty => lane,
    }
}

/// The x of the middle of the column that holds the tick starting at `t`.
fn column_middle(layout: &Layout, t: Micros) -> f64 {
    let column = (t / layout.tick) as usize / layout.bin;
    let from = layout.x_col(column);
    let to = layout.x_col(column + 1).min(layout.right());
    (from + to) / 2.0
}

/// A dashed line down the middle of the column in which the last client was done.
fn done_line(layout: &Layout, done: Micros, plot_top: f64, base: f64) -> Element {
    let x = column_middle(layout, done);
    line(x, plot_top + 2.0, x, base)
        .set("class", "end")
        .set("stroke", "currentColor")
        .set("stroke-width", "1")
        .set("stroke-dasharray", "2 2")
}

/// "done at 2.9 s" at the top of the done line, in the lane's strip: after the line, or
/// before it when the plot ends too soon.
fn done_label(layout: &Layout, done: Micros, plot_top: f64) -> Label {
    let form = layout.form;
    let content = format!("done at {}", seconds(done));
    let x = column_middle(layout, done);
    let y = plot_top + form.font() + 1.0;
    let label = if x + 4.0 + form.text_width(&content, false) <= layout.right() {
        text(x + 4.0, y, &content)
    } else {
        text(x - 4.0, y, &content).set("text-anchor", "end")
    };
    halo(label)
}

/// "continues →" in the strip at the top right of a lane whose clients were still
/// calling after the window, and an arrowhead that carries its baseline on past the plot.
fn continues(layout: &Layout, plot_top: f64, base: f64) -> Element {
    let right = layout.right();
    let form = layout.form;
    let arrow = Element::new("path")
        .set(
            "d",
            format!(
                "M{} {}L{} {}L{} {}Z",
                coord(right),
                coord(base - 4.0),
                coord(right + 8.0),
                coord(base),
                coord(right),
                coord(base + 4.0)
            ),
        )
        .set("fill", "currentColor");
    Element::new("g")
        .set("class", "continues")
        .add(arrow)
        .add(halo(
            text(right - 4.0, plot_top + form.font() + 1.0, "continues →")
                .set("text-anchor", "end"),
        ))
}

/// The line above a lane: the typical run's own totals, named as one run's, since the
/// table beside the chart gives medians over every run.
fn lane_summary(strategy: &StrategyResult) -> String {
    let totals = &strategy.typical.totals;
    let mut text = format!("this run: {} calls", thousands(totals.calls));
    if totals.wasted > 0 {
        text.push_str(&format!(", {} wasted", thousands(totals.wasted)));
    }
    if totals.failed_fast > 0 {
        text.push_str(&format!(", {} failed fast", thousands(totals.failed_fast)));
    }
    if totals.throttled > 0 {
        text.push_str(&format!(", {} throttled", thousands(totals.throttled)));
    }
    if totals.still_retrying > 0 {
        text.push_str(&format!(
            ", {} still retrying",
            thousands(totals.still_retrying)
        ));
    }
    text
}
