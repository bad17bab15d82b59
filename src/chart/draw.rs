//! Small builders for the SVG elements the charts draw, with coordinates printed by
//! [`coord`](super::coord) so that output is compact and deterministic.

use super::coord;
use super::svg::{Element, Node};

/// Default colour of grid lines, for an SVG on its own; the page's stylesheet overrides it.
pub(crate) const GRID: &str = "#d1d9e0";

/// One of the two layouts every chart is drawn in. A chart scales to its container, so
/// its text is as large as the container is wide: the wide layout keeps 14-unit text at
/// 11 CSS px or more down to a container 503 px wide, and the narrow one, half as wide
/// with 12-unit text and its labels above the plots, from 294 px up (a 390 px phone's
/// column is about 332 px). The page shows the one that fits (see `chart.css`) and
/// hides the other with `display: none`, which also takes it out of the accessibility
/// tree; the two differ in their ids, so a page has each id once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// For a column of 32rem (512 px) or more.
    Wide,
    /// For a narrower column: a phone's.
    Narrow,
}

impl Form {
    /// Both, in the order the figure holds them.
    pub(crate) const BOTH: [Form; 2] = [Form::Wide, Form::Narrow];

    /// Width of the view box, in SVG units.
    pub(crate) fn width(self) -> f64 {
        match self {
            Form::Wide => 640.0,
            Form::Narrow => 320.0,
        }
    }

    /// Font size, in SVG units.
    pub(crate) fn font(self) -> f64 {
        match self {
            Form::Wide => 14.0,
            Form::Narrow => 12.0,
        }
    }

    /// Rough advance of one character, for laying out text side by side; generous, so
    /// that what is laid out as fitting does fit.
    pub(crate) fn char(self) -> f64 {
        self.font() * 0.56
    }

    /// Rough width of a text, in SVG units; bold text is a little wider.
    pub(crate) fn text_width(self, text: &str, bold: bool) -> f64 {
        let n = text.chars().count() as f64;
        n * self.char() * if bold { 1.08 } else { 1.0 }
    }

    /// The class that the page's stylesheet shows or hides it by.
    pub(crate) fn class(self) -> &'static str {
        match self {
            Form::Wide => "sim-wide",
            Form::Narrow => "sim-narrow",
        }
    }

    /// An id of a chart of `id`: `{id}-{name}`, and `{id}-{name}-narrow` in the narrow
    /// layout. No suffix of a figure's ids is "narrow" on its own, so these never meet
    /// the ids of a figure whose id ends in `-narrow`.
    pub(crate) fn id(self, id: &str, name: &str) -> String {
        match self {
            Form::Wide => format!("{id}-{name}"),
            Form::Narrow => format!("{id}-{name}-narrow"),
        }
    }
}

/// A `<text>` element, kept on one line: `<text …>served</text>`.
#[derive(Clone, Debug)]
pub(crate) struct Label(Element);

impl Label {
    /// The text at a point.
    pub(crate) fn at(x: f64, y: f64, content: &str) -> Label {
        Label(
            Element::new("text")
                .set("x", coord(x))
                .set("y", coord(y))
                .text(content),
        )
    }

    /// With an attribute.
    pub(crate) fn set(self, name: &'static str, value: impl Into<String>) -> Label {
        Label(self.0.set(name, value))
    }
}

impl From<Label> for Node {
    fn from(label: Label) -> Node {
        Node::Element(label.0)
    }
}

/// A text element at a point, in the text colour.
pub(crate) fn text(x: f64, y: f64, content: &str) -> Label {
    Label::at(x, y, content).set("fill", "currentColor")
}

/// A line between two points.
pub(crate) fn line(x1: f64, y1: f64, x2: f64, y2: f64) -> Element {
    Element::new("line")
        .set("x1", coord(x1))
        .set("y1", coord(y1))
        .set("x2", coord(x2))
        .set("y2", coord(y2))
}

/// A rectangle.
pub(crate) fn rect(x: f64, y: f64, width: f64, height: f64) -> Element {
    Element::new("rect")
        .set("x", coord(x))
        .set("y", coord(y))
        .set("width", coord(width))
        .set("height", coord(height))
}

/// Rectangles drawn as one `<path>`, so that a chart of thousands of bars is a few
/// elements rather than thousands. Each is a subpath traced as SVG traces a `<rect>`
/// without rounded corners: from its top left corner rightwards, down, back and up
/// (SVG 2, §10.2 "The 'rect' element"), at the coordinates its `<rect>` would have, so
/// that fill, stroke and patterns draw it as they drew the element.
///
/// `Rects::joined()` draws a run of rectangles side by side on one bottom edge (bars on
/// one baseline, or equal slices of a stack) as one outline instead: up from the first
/// one's bottom left corner, along each top, and down and back along the bottom,
/// `M x bottom V top h dx V top … h dx V bottom Z`. Each step is the difference of two
/// coordinates as written, in hundredths, so that every corner falls where the
/// rectangles' would and nothing drifts however long the run; a top equal to the one
/// before adds nothing. It paints the rectangles' pixels without the seams between them
/// (their fills are patterns in user space, so a hatch does not move), in about half
/// the bytes. Only for bars without an outline, which would lose the edges between
/// them. A run of one is the rectangle as `Rects::default()` traces it.
#[derive(Debug, Default)]
pub(crate) struct Rects {
    d: String,
    join: bool,
    /// The run being joined, each rectangle's x, y, width and height, and the run's
    /// bottom edge.
    run: Vec<(f64, f64, f64, f64)>,
    bottom: f64,
}

impl Rects {
    /// Rectangles that join each run side by side on one bottom edge into one outline.
    pub(crate) fn joined() -> Self {
        Rects {
            join: true,
            ..Rects::default()
        }
    }

    /// Adds the rectangle from (x, y), `width` wide and `height` high.
    pub(crate) fn push(&mut self, x: f64, y: f64, width: f64, height: f64) {
        if !self.join {
            trace(&mut self.d, x, y, width, height);
            return;
        }
        let bottom = y + height;
        if let Some(&(left, _, wide, _)) = self.run.last()
            && (x - (left + wide)).abs() < 1e-6
            && (bottom - self.bottom).abs() < 1e-6
        {
            self.run.push((x, y, width, height));
            return;
        }
        self.close();
        self.run.push((x, y, width, height));
        self.bottom = bottom;
    }

    /// Writes the run being joined, if any.
    fn close(&mut self) {
        let hundredths = |v: f64| (v * 100.0).round() as i64;
        let at = |h: i64| coord(h as f64 / 100.0);
        match self.run[..] {
            [] => {}
            [(x, y, width, height)] => trace(&mut self.d, x, y, width, height),
            [(x, y, _, height), .., (last, _, width, _)] => {
                // The bottom as the first rectangle's trace would reach it.
                let bottom = hundredths(y) + hundredths(height);
                let mut now = hundredths(x);
                self.d.push_str(&format!("M{} {}", at(now), at(bottom)));
                let mut top = None;
                for &(x, y, _, _) in &self.run {
                    // At least a hundredth high, as the rectangle's own trace would be.
                    let this = hundredths(y).min(bottom - 1);
                    if top == Some(this) {
                        continue;
                    }
                    let left = hundredths(x);
                    if left != now {
                        self.d.push_str(&format!("h{}", at(left - now)));
                        now = left;
                    }
                    self.d.push_str(&format!("V{}", at(this)));
                    top = Some(this);
                }
                let right = hundredths(last) + hundredths(width);
                self.d
                    .push_str(&format!("h{}V{}Z", at(right - now), at(bottom)));
            }
        }
        self.run.clear();
    }

    /// Adds the slice of a stacked bar from `bottom` up to `top`, `width` wide at `x`,
    /// unless it is too short to survive rounding, which would print as height 0; says
    /// whether it was added.
    pub(crate) fn slice(&mut self, x: f64, width: f64, bottom: f64, top: f64) -> bool {
        let drawn = bottom - top >= 0.005;
        if drawn {
            self.push(x, top, width, bottom - top);
        }
        drawn
    }

    /// `group` with the rectangles as its one `<path>`, or as it is when there are none.
    pub(crate) fn into_group(mut self, group: Element) -> Element {
        self.close();
        if self.d.is_empty() {
            group
        } else {
            group.add(Element::new("path").set("d", self.d))
        }
    }
}

/// The rectangle from (x, y), `width` wide and `height` high, as a subpath of `d`.
fn trace(d: &mut String, x: f64, y: f64, width: f64, height: f64) {
    let x = coord(x);
    d.push_str(&format!(
        "M{x} {}h{}v{}H{x}Z",
        coord(y),
        coord(width),
        coord(height)
    ));
}

/// An accessible chart in one of its layouts: a responsive `<svg>` of the layout's width
/// and the given height, with a `<title>` and a `<desc>` that label it, their ids
/// prefixed with `id` (several charts share a page) and marked by the layout.
pub(crate) fn document(
    id: &str,
    class: &str,
    form: Form,
    height: f64,
    title: String,
    desc: String,
) -> Element {
    Element::document()
        .set(
            "viewBox",
            format!("0 0 {} {}", coord(form.width()), coord(height)),
        )
        .set("width", "100%")
        .set("class", format!("{class} {}", form.class()))
        .set("role", "img")
        .set("aria-labelledby", form.id(id, "title"))
        .set("aria-describedby", form.id(id, "desc"))
        .set("font-family", "system-ui, sans-serif")
        .set("font-size", coord(form.font()))
        .add(
            Element::new("title")
                .set("id", form.id(id, "title"))
                .text(title),
        )
        .add(
            Element::new("desc")
                .set("id", form.id(id, "desc"))
                .text(desc),
        )
}

/// A text with a halo of the background around its letters, legible over bars and grid
/// lines; the page's stylesheet gives the halo the background's colour.
pub(crate) fn halo(label: Label) -> Label {
    label
        .set("class", "label halo")
        .set("stroke", "#ffffff")
        .set("stroke-width", "3")
        .set("stroke-linejoin", "round")
        .set("style", "paint-order: stroke")
}

/// Splits `text` at its `", "` into lines no wider than `width`, keeping each phrase
/// whole (a phrase wider than the line gets a line of its own).
pub(crate) fn wrap(form: Form, text: &str, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for phrase in text.split(", ") {
        match lines.last_mut() {
            Some(last) if form.text_width(&format!("{last}, {phrase}"), false) <= width => {
                last.push_str(", ");
                last.push_str(phrase);
            }
            Some(last) => {
                last.push(',');
                lines.push(phrase.to_string());
            }
            None => lines.push(phrase.to_string()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::Rects;

    fn path(mut rects: Rects) -> String {
        rects.close();
        rects.d
    }

    #[test]
    fn a_run_on_one_bottom_edge_is_one_outline() {
        let mut rects = Rects::joined();
        // Three equal bars side by side, 0.5 wide from x = 10, then a taller one on
        // the same bottom edge: one outline, its top stepping up once. One after a gap
        // is a rectangle of its own.
        for i in 0..3 {
            rects.push(10.0 + 0.5 * f64::from(i), 20.0, 0.5, 4.0);
        }
        rects.push(11.5, 19.0, 0.5, 5.0);
        rects.push(12.5, 19.0, 0.5, 5.0);
        // A slice of a stack on another bottom edge, next to it: a rectangle too.
        rects.push(13.0, 10.0, 0.5, 2.0);
        assert_eq!(
            path(rects),
            "M10 24V20h1.5V19h0.5V24ZM12.5 19h0.5v5H12.5ZM13 10h0.5v2H13Z"
        );
    }

    #[test]
    fn a_long_run_of_thin_bars_ends_where_its_last_bar_does() {
        // 300 bars a third of a unit wide: the steps are differences of coordinates as
        // written, so that they add up to the last bar's right edge, 100, exactly.
        let mut rects = Rects::joined();
        for i in 0..300 {
            let top = if i % 2 == 0 { 5.0 } else { 6.0 };
            rects.push(f64::from(i) / 3.0, top, 1.0 / 3.0, 10.0 - top);
        }
        let d = path(rects);
        let steps: f64 = (d.split('h').skip(1))
            .map(|s| s[..s.find('V').unwrap()].parse::<f64>().unwrap())
            .sum();
        assert!((steps - 100.0).abs() < 1e-9, "{steps}");
        assert_eq!(d.matches('M').count(), 1);
    }

    #[test]
    fn rects_not_joined_keep_every_bar_and_its_outline() {
        let mut rects = Rects::default();
        rects.push(10.0, 20.0, 0.5, 4.0);
        rects.push(10.5, 20.0, 0.5, 4.0);
        assert_eq!(path(rects), "M10 20h0.5v4H10ZM10.5 20h0.5v4H10.5Z");
    }

    #[test]
    fn a_thin_bar_in_a_run_stays_a_hundredth_high() {
        // A bar 0.006 high on the run's bottom edge, 10: its top would be written as
        // the bottom, a stretch of no height; it is drawn a hundredth high instead.
        let mut rects = Rects::joined();
        rects.push(0.0, 9.0, 1.0, 1.0);
        rects.push(1.0, 9.994, 1.0, 0.006);
        assert_eq!(path(rects), "M0 10V9h1V9.99h1V10Z");
    }
}
