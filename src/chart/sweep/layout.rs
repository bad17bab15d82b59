//! Where a sweep chart's parts go: the plot, its two scales and the "never" row, and the
//! axes drawn from them.

use super::super::coord;
use super::super::draw::{Form, GRID, Label, line, text};
use super::super::scale::Scale;
use super::super::svg::Element;

/// Where everything goes, in one of the two layouts.
pub(super) struct Layout {
    pub(super) form: Form,
    /// Top of the plot.
    pub(super) top: f64,
    /// Left edge of the plot.
    pub(super) left: f64,
    /// Height of the plot.
    pub(super) plot: f64,
    /// The row above the plot where points with no value sit ("never"), when a point
    /// has none: its y.
    pub(super) never: Option<f64>,
    pub(super) x: Scale,
    pub(super) y: Scale,
}

impl Layout {
    /// Right edge of the plot (room for the last x label).
    pub(super) fn right(&self) -> f64 {
        self.form.width()
            - match self.form {
                Form::Wide => 24.0,
                Form::Narrow => 18.0,
            }
    }

    pub(super) fn x_of(&self, v: f64) -> f64 {
        self.left + (self.right() - self.left) * self.x.at(v)
    }

    pub(super) fn y_of(&self, v: f64) -> f64 {
        self.top + self.plot * (1.0 - self.y.at(v))
    }

    pub(super) fn bottom(&self) -> f64 {
        self.top + self.plot
    }
}

/// The grid, both axes with their ticks and `y_labels`, their titles, the break of a
/// log axis that also shows zero, and the "never" row's name.
pub(super) fn axes(
    layout: &Layout,
    y_labels: &[(f64, String)],
    x_title: &str,
    y_title: &str,
) -> Element {
    let form = layout.form;
    let right = layout.right();
    let bottom = layout.bottom();
    let lift = form.font() * 0.32;
    let mut grid = Element::new("g")
        .set("class", "grid")
        .set("stroke", GRID)
        .set("stroke-width", "0.5");
    let mut ticks = Element::new("g")
        .set("class", "axis")
        .set("stroke", "currentColor");
    let mut labels = Element::new("g")
        .set("class", "label")
        .set("fill", "currentColor");
    for (v, label) in y_labels {
        let y = layout.y_of(*v);
        if y < bottom - 0.5 {
            grid = grid.add(line(layout.left, y, right, y));
        }
        labels =
            labels.add(Label::at(layout.left - 6.0, y + lift, label).set("text-anchor", "end"));
    }
    if let Some(y) = layout.never {
        labels = labels.add(
            Label::at(layout.left - 10.0, y + lift, "never")
                .set("text-anchor", "end")
                .set("font-style", "italic"),
        );
        grid = grid.add(line(layout.left, y, right, y).set("stroke-dasharray", "2 3"));
    }
    let x_labels = layout.x.labelled(right - layout.left, |l| {
        form.text_width(l, false) + 1.5 * form.char()
    });
    for (v, _) in &layout.x.ticks {
        let x = layout.x_of(*v);
        grid = grid.add(line(x, layout.top, x, bottom));
    }
    for (v, label) in &x_labels {
        let x = layout.x_of(*v);
        ticks = ticks.add(line(x, bottom, x, bottom + 4.0));
        labels = labels
            .add(Label::at(x, bottom + 5.0 + form.font(), label).set("text-anchor", "middle"));
    }
    ticks = ticks
        .add(line(layout.left, bottom, right, bottom))
        .add(line(layout.left, layout.top, layout.left, bottom));
    if let Some(gap) = layout.x.gap() {
        let x = layout.left + (right - layout.left) * gap;
        ticks = ticks.add(
            Element::new("path")
                .set(
                    "d",
                    format!(
                        "M{} {}l4 -8M{} {}l4 -8",
                        coord(x - 4.0),
                        coord(bottom + 4.0),
                        coord(x),
                        coord(bottom + 4.0)
                    ),
                )
                .set("class", "break"),
        );
    }
    let middle = layout.top + layout.plot / 2.0;
    let title_x = form.font() + 4.0;
    Element::new("g")
        .add(grid)
        .add(ticks)
        .add(labels)
        .add(
            text(
                (layout.left + right) / 2.0,
                bottom + 5.0 + 2.4 * form.font(),
                x_title,
            )
            .set("class", "label")
            .set("text-anchor", "middle"),
        )
        .add(
            text(title_x, middle, y_title)
                .set("class", "label")
                .set("text-anchor", "middle")
                .set(
                    "transform",
                    format!("rotate(-90 {} {})", coord(title_x), coord(middle)),
                ),
        )
}
