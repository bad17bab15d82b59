//! Small builders for the SVG elements the charts draw, with coordinates printed by
//! [`coord`](super::coord) so that output is compact and deterministic.

use svg::Document;
use svg::Node;
use svg::node::Text as TextNode;
use svg::node::Value;
use svg::node::element::{Description, Element, Line, Rectangle, Title};

use super::coord;

/// Width of a full-size chart's view box, in SVG units; charts scale to their container.
pub(crate) const WIDTH: f64 = 640.0;
/// Default colour of grid lines, for an SVG on its own; the page's stylesheet overrides it.
pub(crate) const GRID: &str = "#d1d9e0";

/// Font size, in SVG units.
pub(crate) const FONT: f64 = 14.0;
/// Rough advance of one character at [`FONT`], for laying out text side by side.
pub(crate) const CHAR: f64 = 7.8;

/// A `<text>` element. The crate's own `Text` prints its content on lines of their own,
/// which renders the same but reads worse in snapshots and in the page's source; a plain
/// element keeps `<text …>served</text>` on one line.
#[derive(Clone, Debug)]
pub(crate) struct Label(Element);

impl Label {
    /// The text at a point.
    pub(crate) fn at(x: f64, y: f64, content: &str) -> Label {
        let mut element = Element::new("text");
        element.assign("x", coord(x));
        element.assign("y", coord(y));
        element.append(TextNode::new(content));
        Label(element)
    }

    /// With an attribute.
    pub(crate) fn set(mut self, name: &str, value: impl Into<Value>) -> Label {
        self.0.assign(name, value);
        self
    }
}

impl From<Label> for Box<dyn Node> {
    fn from(label: Label) -> Box<dyn Node> {
        Box::new(label.0)
    }
}

/// A text element at a point, in the text colour.
pub(crate) fn text(x: f64, y: f64, content: &str) -> Label {
    Label::at(x, y, content).set("fill", "currentColor")
}

/// A line between two points.
pub(crate) fn line(x1: f64, y1: f64, x2: f64, y2: f64) -> Line {
    Line::new()
        .set("x1", coord(x1))
        .set("y1", coord(y1))
        .set("x2", coord(x2))
        .set("y2", coord(y2))
}

/// A rectangle.
pub(crate) fn rect(x: f64, y: f64, width: f64, height: f64) -> Rectangle {
    Rectangle::new()
        .set("x", coord(x))
        .set("y", coord(y))
        .set("width", coord(width))
        .set("height", coord(height))
}

/// An accessible chart: a responsive `<svg>` of the given size with a `<title>` and a
/// `<desc>` that label it, their ids prefixed with `id` (several charts share a page).
pub(crate) fn document(
    id: &str,
    class: &str,
    size: (f64, f64),
    title: String,
    desc: String,
) -> Document {
    Document::new()
        .set(
            "viewBox",
            format!("0 0 {} {}", coord(size.0), coord(size.1)),
        )
        .set("width", "100%")
        .set("class", class)
        .set("role", "img")
        .set("aria-labelledby", format!("{id}-title"))
        .set("aria-describedby", format!("{id}-desc"))
        .set("font-family", "system-ui, sans-serif")
        .set("font-size", coord(FONT))
        .add(Title::new(title).set("id", format!("{id}-title")))
        .add(
            Description::new()
                .set("id", format!("{id}-desc"))
                .add(TextNode::new(desc)),
        )
}
