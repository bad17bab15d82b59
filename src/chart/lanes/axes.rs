//! The shared time axis under the last lane, with the titles of both scales.

use super::layout::Layout;
use crate::chart::coord;
use crate::chart::draw::{Label, line, text};
use crate::chart::svg::Element;
use crate::engine::units::Micros;
use crate::format::seconds_fixed;

/// The shared time axis under the last lane, with its labels and title, and the title
/// of the height scale along the left.
pub(super) fn time_axis(layout: &Layout, lanes: usize, times: &[Micros], decimals: u32) -> Element {
    let last_base = layout.base(lanes - 1);
    axis_at(
        layout,
        (layout.legend, last_base),
        times,
        decimals,
        "calls per tick",
    )
}

/// A time axis at the foot of plots that span `(top, bottom)`, with its labels and
/// title, and `title` along the left, beside the plots' middle.
pub(super) fn axis_at(
    layout: &Layout,
    (top, last_base): (f64, f64),
    times: &[Micros],
    decimals: u32,
    title: &str,
) -> Element {
    let form = layout.form;
    let mut ticks = Element::new("g")
        .set("class", "axis")
        .set("stroke", "currentColor");
    let mut labels = Element::new("g")
        .set("class", "label")
        .set("fill", "currentColor")
        .set("text-anchor", "middle");
    for &t in times {
        let x = layout.x_of(t);
        ticks = ticks.add(line(x, last_base, x, last_base + 4.0));
        labels = labels.add(Label::at(
            x,
            last_base + 5.0 + form.font(),
            &seconds_fixed(t, decimals),
        ));
    }
    let middle = (top + last_base) / 2.0;
    let title_x = form.font() + 4.0;
    Element::new("g")
        .add(ticks)
        .add(labels)
        .add(
            text(
                layout.left + layout.plot() / 2.0,
                last_base + 5.0 + 2.4 * form.font(),
                "time (s)",
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
