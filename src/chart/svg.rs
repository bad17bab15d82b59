//! The few SVG elements the charts need, and their text: an element is a name, its
//! attributes and its children, printed with the attributes in name order and each
//! child element on a line of its own, text inline. Small on purpose: the playground's
//! WebAssembly module draws the lane chart with it too, and must stay within its budget.

use std::fmt;

/// A child of an element: another element, or text.
#[derive(Clone, Debug)]
pub(crate) enum Node {
    /// An element, printed on a line of its own.
    Element(Element),
    /// Text, escaped, printed where it stands.
    Text(String),
}

impl From<Element> for Node {
    fn from(element: Element) -> Node {
        Node::Element(element)
    }
}

/// An element: its name, its attributes (each name once) and its children. Boxed, so
/// that the charts' chains of `set` and `add` move a pointer, not the element.
#[derive(Clone, Debug)]
pub(crate) struct Element(Box<Parts>);

/// What an [`Element`] holds.
#[derive(Clone, Debug)]
struct Parts {
    name: &'static str,
    attributes: Vec<(&'static str, String)>,
    children: Vec<Node>,
}

impl Element {
    /// An element with neither attributes nor children.
    #[inline(never)]
    pub(crate) fn new(name: &'static str) -> Element {
        Element(Box::new(Parts {
            name,
            attributes: Vec::new(),
            children: Vec::new(),
        }))
    }

    /// An `<svg>` document: the element with its namespace.
    pub(crate) fn document() -> Element {
        Element::new("svg").set("xmlns", "http://www.w3.org/2000/svg")
    }

    /// With an attribute, replacing one of the same name.
    pub(crate) fn set(mut self, name: &'static str, value: impl Into<String>) -> Element {
        self.assign(name, value.into());
        self
    }

    /// Sets an attribute, replacing one of the same name. Never inlined: the charts set
    /// attributes in a few hundred places, and one copy keeps the module small.
    #[inline(never)]
    pub(crate) fn assign(&mut self, name: &'static str, value: String) {
        match self.0.attributes.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.attributes.push((name, value)),
        }
    }

    /// With a child after the others.
    pub(crate) fn add(mut self, child: impl Into<Node>) -> Element {
        self.append(child.into());
        self
    }

    /// Appends a child; never inlined, as [`Element::assign`].
    #[inline(never)]
    fn append(&mut self, child: Node) {
        self.0.children.push(child);
    }

    /// With a text child after the others.
    pub(crate) fn text(self, content: impl Into<String>) -> Element {
        self.add(Node::Text(content.into()))
    }

    /// Appends the element's text to `out`.
    pub(crate) fn write(&self, out: &mut String) {
        let Parts {
            name,
            attributes,
            children,
        } = &*self.0;
        out.push('<');
        out.push_str(name);
        let mut attributes: Vec<&(&str, String)> = attributes.iter().collect();
        // By name, by insertion: an element has a handful of attributes, each named
        // once, and a sort of the library would add kilobytes to the browser's module.
        for i in 1..attributes.len() {
            let mut j = i;
            while j > 0 && attributes[j - 1].0 > attributes[j].0 {
                attributes.swap(j - 1, j);
                j -= 1;
            }
        }
        for (name, value) in attributes {
            out.push(' ');
            out.push_str(name);
            out.push_str("=\"");
            escape(value, true, out);
            out.push('"');
        }
        let Some(last) = children.last() else {
            out.push_str("/>");
            return;
        };
        out.push('>');
        for child in children {
            match child {
                Node::Element(element) => {
                    out.push('\n');
                    element.write(out);
                }
                Node::Text(text) => escape(text, false, out),
            }
        }
        // A closing tag follows an element on a line of its own, and text directly.
        if let Node::Element(_) = last {
            out.push('\n');
        }
        out.push_str("</");
        out.push_str(name);
        out.push('>');
    }
}

impl fmt::Display for Element {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        let mut out = String::new();
        self.write(&mut out);
        formatter.write_str(&out)
    }
}

/// Appends `text` to `out` with `&`, `<` and `>` escaped, and in an attribute's value
/// (`quoted`) both quotes as well.
fn escape(text: &str, quoted: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quoted => out.push_str("&quot;"),
            '\'' if quoted => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_print_in_name_order_and_escaped() {
        let e = Element::new("rect")
            .set("y", "1")
            .set("class", "a\"b'<&>")
            .set("x", "0")
            .set("y", "2");
        assert_eq!(
            e.to_string(),
            "<rect class=\"a&quot;b&apos;&lt;&amp;&gt;\" x=\"0\" y=\"2\"/>"
        );
    }

    #[test]
    fn elements_go_on_lines_of_their_own_and_text_inline() {
        let e = Element::new("g")
            .add(Element::new("text").text("a < b"))
            .add(Element::new("line"));
        assert_eq!(e.to_string(), "<g>\n<text>a &lt; b</text>\n<line/>\n</g>");
    }
}
