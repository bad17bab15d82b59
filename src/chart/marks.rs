//! How strategies are drawn in the sweep and schedule figures: each its own colour, dash
//! pattern and marker shape, and the legend that names them.
//!
//! Strategies differ by more than hue, for colour-blind readers, and keep their marks in
//! every figure of a site, so that a reader learns them once. Colours come from CSS
//! classes (`st-fixed`, …, see `chart.css`); the presentation attributes are only
//! defaults, so that the SVG also reads standalone.

use super::coord;
use super::draw::{Form, line, text};
use super::svg::Element;
use crate::engine::Strategy;

/// How a strategy is drawn: its CSS class, default colour, dash pattern and marker.
pub(crate) struct Mark {
    /// The CSS class: `st-fixed`, …
    pub(crate) class: &'static str,
    /// The colour without the page's stylesheet.
    pub(crate) colour: &'static str,
    /// The line's `stroke-dasharray`; `None` = solid.
    pub(crate) dash: Option<&'static str>,
    /// The marker's shape.
    pub(crate) shape: Shape,
}

/// A marker's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Circle,
    Square,
    Triangle,
    Diamond,
    Down,
    /// A plus sign, for proportional jitter: no other marker has arms.
    Plus,
}

/// The six shapes, in the order of the six strategies of the model.
const SHAPES: [Shape; 6] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
    Shape::Down,
    Shape::Plus,
];

/// The library strategies' classes and dashes, in the order of [`Strategy::ALL`]. Each
/// takes the hue of one of the six (in turn) and the marker of the next but one or two,
/// and a dash of its own: any two strategies differ in dash and in hue or marker.
const LIBRARY_MARKS: [(&str, &str); 11] = [
    ("st-aws-standard", "1 2"),
    ("st-aws-legacy", "6 2"),
    ("st-google-cloud", "3 2"),
    ("st-python-backoff", "4 4"),
    ("st-urllib3", "8 2 2 2"),
    ("st-tenacity", "1 4"),
    ("st-polly", "6 3 1 3"),
    ("st-resilience4j", "3 1"),
    ("st-spring-retry", "10 3"),
    ("st-spring-retryable", "2 2 6 2"),
    ("st-go-backoff", "4 1 1 1"),
];

/// The marks of the strategies, fixed per strategy rather than per position so that a
/// strategy looks the same in every figure.
pub(crate) fn mark(strategy: Strategy) -> Mark {
    let at = Strategy::ALL
        .iter()
        .position(|&s| s == strategy)
        .unwrap_or(0);
    if let Some(i) = at.checked_sub(Strategy::GENERIC.len()) {
        let (class, dash) = LIBRARY_MARKS[i % LIBRARY_MARKS.len()];
        let hue = i % 6;
        let like = mark(Strategy::GENERIC[hue]);
        return Mark {
            class,
            colour: like.colour,
            dash: Some(dash),
            shape: SHAPES[(hue + 1 + i / 6) % 6],
        };
    }
    let (class, colour, dash, shape) = match strategy {
        Strategy::Fixed => ("st-fixed", "#0072b2", None, Shape::Circle),
        Strategy::Exponential => ("st-exponential", "#c15500", Some("9 4"), Shape::Square),
        Strategy::FullJitter => ("st-full-jitter", "#007a5a", Some("2 3"), Shape::Triangle),
        Strategy::EqualJitter => (
            "st-equal-jitter",
            "#a1467e",
            Some("9 3 2 3"),
            Shape::Diamond,
        ),
        Strategy::DecorrelatedJitter => (
            "st-decorrelated-jitter",
            "#8a6d00",
            Some("5 2 1 2 1 2"),
            Shape::Down,
        ),
        // Violet, the one hue left beside the Okabe–Ito five, deep enough to stand
        // apart from fixed's blue in grey and for red-green colour-blind readers; its
        // dash is the one pattern of pairs.
        Strategy::ProportionalJitter => (
            "st-proportional-jitter",
            "#4e1a9a",
            Some("5 2 5 6"),
            Shape::Plus,
        ),
        // The libraries', above.
        _ => ("st-fixed", "#0072b2", None, Shape::Circle),
    };
    Mark {
        class,
        colour,
        dash,
        shape,
    }
}

/// A marker of about `size` units centred on a point, as a path.
pub(crate) fn marker(shape: Shape, x: f64, y: f64, size: f64) -> Element {
    let r = size / 2.0;
    let p = |dx: f64, dy: f64| format!("{} {}", coord(x + dx), coord(y + dy));
    let d = match shape {
        Shape::Circle => format!(
            "M{}a{r} {r} 0 1 0 {d} 0a{r} {r} 0 1 0 -{d} 0Z",
            p(-r, 0.0),
            r = coord(r),
            d = coord(2.0 * r)
        ),
        Shape::Square => {
            let s = r * 0.9;
            format!("M{}L{}L{}L{}Z", p(-s, -s), p(s, -s), p(s, s), p(-s, s))
        }
        Shape::Triangle => format!(
            "M{}L{}L{}Z",
            p(0.0, -1.2 * r),
            p(1.1 * r, 0.8 * r),
            p(-1.1 * r, 0.8 * r)
        ),
        Shape::Diamond => format!(
            "M{}L{}L{}L{}Z",
            p(0.0, -1.25 * r),
            p(1.1 * r, 0.0),
            p(0.0, 1.25 * r),
            p(-1.1 * r, 0.0)
        ),
        Shape::Down => format!(
            "M{}L{}L{}Z",
            p(0.0, 1.2 * r),
            p(1.1 * r, -0.8 * r),
            p(-1.1 * r, -0.8 * r)
        ),
        Shape::Plus => {
            // Arms a third of its span thick: a cross that stays a cross at 9 units,
            // not a blob, and as wide as the triangles, for ink like theirs.
            let (a, t) = (1.1 * r, 0.38 * r);
            format!(
                "M{}L{}L{}L{}L{}L{}L{}L{}L{}L{}L{}L{}Z",
                p(-t, -a),
                p(t, -a),
                p(t, -t),
                p(a, -t),
                p(a, t),
                p(t, t),
                p(t, a),
                p(-t, a),
                p(-t, t),
                p(-a, t),
                p(-a, -t),
                p(-t, -t)
            )
        }
    };
    Element::new("path").set("d", d)
}

/// The legend: per strategy a stretch of its line with its marker, and its name,
/// wrapped onto rows from `left` to `right` as needed. Returns it and its number of rows.
pub(crate) fn legend(
    strategies: &[Strategy],
    form: Form,
    left: f64,
    right: f64,
) -> (Element, usize) {
    let row_height = form.font() + 8.0;
    let mut group = Element::new("g").set("class", "legend");
    let (mut x, mut row) = (left, 0);
    for &s in strategies {
        let m = mark(s);
        let width = 30.0 + 6.0 + form.text_width(s.name(), false);
        if x > left && x + width > right {
            x = left;
            row += 1;
        }
        let y = 8.0 + row as f64 * row_height + 6.0;
        let mut sample = line(x, y, x + 30.0, y)
            .set("class", "line")
            .set("stroke", m.colour)
            .set("stroke-width", "2");
        if let Some(dash) = m.dash {
            sample = sample.set("stroke-dasharray", dash);
        }
        group = group.add(
            Element::new("g")
                .set("class", format!("strategy {}", m.class))
                .add(sample)
                .add(
                    marker(m.shape, x + 15.0, y, 9.0)
                        .set("class", "marker")
                        .set("fill", m.colour)
                        .set("stroke", "#ffffff")
                        .set("stroke-width", "1"),
                )
                .add(text(x + 36.0, y + form.font() * 0.32, s.name()).set("class", "label")),
        );
        x += width + 18.0;
    }
    (group, row + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each of the six strategies of the model differs from every other by hue, dash
    /// and marker alike; a library strategy differs from every strategy by dash and by
    /// hue or marker. The stylesheet colours each in both themes.
    #[test]
    fn every_strategy_has_a_mark_of_its_own() {
        let marks: Vec<(Strategy, Mark)> = Strategy::ALL.iter().map(|&s| (s, mark(s))).collect();
        for (i, (a, ma)) in marks.iter().enumerate() {
            for (b, mb) in &marks[i + 1..] {
                assert_ne!(ma.dash, mb.dash, "{a:?} and {b:?}");
                assert!(
                    ma.colour != mb.colour || ma.shape != mb.shape,
                    "{a:?} and {b:?}"
                );
                if a.library().is_none() && b.library().is_none() {
                    assert_ne!(ma.colour, mb.colour, "{a:?} and {b:?}");
                    assert_ne!(ma.shape, mb.shape, "{a:?} and {b:?}");
                }
            }
            if a.library().is_none() {
                let property = format!("--sim-{}:", ma.class);
                // Light, dark by the reader's system, and dark by the page.
                assert_eq!(
                    super::super::CSS.matches(&property).count(),
                    3,
                    "{property}"
                );
            }
            assert!(super::super::CSS.contains(&format!("svg.sim-sweep .{},", ma.class)));
            assert_eq!(ma.class, format!("st-{}", a.name()));
        }
    }

    #[test]
    fn a_plus_is_a_closed_cross_of_twelve_corners() {
        let svg = marker(Shape::Plus, 10.0, 10.0, 9.0).to_string();
        assert_eq!(svg.matches('L').count(), 11, "{svg}");
        assert!(
            svg.contains("d=\"M8.29 5.05L11.71 5.05L11.71 8.29L14.95 8.29L14.95 11.71"),
            "{svg}"
        );
    }
}
