//! `extends: NAME`: a scenario written once and shared by the blocks and files that vary
//! it.
//!
//! A `sim` or `sweep` block, or a scenario file, may say `extends: NAME`. NAME is the
//! scenario file `scenarios/NAME.yaml` of the site when there is one, and otherwise the
//! `sim` or `sweep` block with the id NAME on any page. The base is read first (its own
//! `extends` resolved the same way, so chains work), then the extending text's keys
//! are laid over it:
//!
//! - a map is merged key by key, at every depth (`server: {capacity: 20}` changes the
//!   capacity and keeps the rest of the base's server);
//! - a list or a single value replaces the base's (`strategies: [fixed]` is the whole
//!   list);
//! - a key written with no value (`queue: ~`, or `queue:` alone) removes the base's;
//! - `id`, `figure` and `sweep` are the base's own presentation and are never inherited.
//!
//! A cycle (`a` extends `b`, which extends `a`) is refused with the chain shown. Every
//! mistake is placed in the file where its key was written: the merged tree keeps each
//! node's position, with the lines of the `k`-th base of the chain moved by
//! `k × LINE_STRIDE`, and [`Chain::place`] moves them back into their own file.

use std::fmt::Write as _;

use crate::diag::Diagnostic;
use crate::engine::ScenarioError;
use crate::yaml::{self, Node, Pos, Value};

/// The lines of one source of a chain: a scenario of more lines than this is far past
/// any size the reader accepts, so the lines of two sources never meet.
const LINE_STRIDE: usize = 1 << 24;

/// The longest chain of `extends`: far more than any site needs, and a bound on the
/// work a chain of files can ask for.
const MAX_CHAIN: usize = 16;

/// The keys of a base that the extending text does not inherit.
const OWN_KEYS: [&str; 4] = ["id", "figure", "sweep", "extends"];

/// A text that holds YAML: a scenario file, or the page a block stands in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The file as messages name it: `scenarios/crowd.yaml`, `content/backoff.md`.
    pub file: String,
    /// The whole text of the file.
    pub text: String,
    /// Where the YAML's line 1, column 1 stands in the file.
    pub origin: Pos,
    /// The YAML itself: the file, or the block's body.
    pub body: String,
}

/// Where the scenarios that `extends` names are found.
pub trait Bases {
    /// The scenario named `name`, or why there is none (the help line of the error).
    fn find(&self, name: &str) -> Result<Source, String>;
}

/// The bases a text was laid over, in order: the first is the one it names.
#[derive(Clone, Debug, Default)]
pub struct Chain {
    /// The sources, the `k`-th of the chain at index `k − 1`.
    pub bases: Vec<Source>,
}

impl Chain {
    /// Whether the text extended nothing.
    pub fn is_empty(&self) -> bool {
        self.bases.is_empty()
    }

    /// A mistake of the merged text, placed in the file where its key was written:
    /// `own` for the extending text's own keys.
    pub fn place(&self, own: &Source, mut error: ScenarioError) -> Diagnostic {
        let level = error.pos.line / LINE_STRIDE;
        error.pos.line %= LINE_STRIDE;
        let source = match level {
            0 => own,
            k => self.bases.get(k - 1).unwrap_or(own),
        };
        Diagnostic::from_scenario(&source.file, &source.text, source.origin, error)
    }

    /// A key that tells the texts of the chain apart: a memo of what was read from
    /// the merged text must be read again when any base changes.
    pub fn key(&self, own_body: &str) -> String {
        let mut key = own_body.to_string();
        for base in &self.bases {
            key.push('\0');
            key.push_str(&base.file);
            key.push('\0');
            key.push_str(&base.body);
        }
        key
    }
}

/// Lays `root`, the parsed text of `own`, over the scenario its `extends` names, if it
/// names one, and records the chain of bases in `chain`. A text without `extends`
/// comes back as it was. Errors are positioned for [`Chain::place`].
pub fn resolve(
    root: Node,
    own: &Source,
    bases: &dyn Bases,
    chain: &mut Chain,
) -> Result<Node, Vec<ScenarioError>> {
    let mut seen = vec![(own.file.clone(), own.origin)];
    let mut names = Vec::new();
    resolve_at(root, bases, chain, &mut seen, &mut names)
}

fn resolve_at(
    root: Node,
    bases: &dyn Bases,
    chain: &mut Chain,
    seen: &mut Vec<(String, Pos)>,
    names: &mut Vec<String>,
) -> Result<Node, Vec<ScenarioError>> {
    let at = root.position("extends");
    let Node { value, pos, width } = root;
    let Value::Map(mut pairs) = value else {
        return Ok(Node { value, pos, width });
    };
    let Some(at) = at else {
        return Ok(Node {
            value: Value::Map(pairs),
            pos,
            width,
        });
    };
    let (_, named) = pairs.remove(at);
    let own = Node {
        value: Value::Map(pairs),
        pos,
        width,
    };
    let name = match &named.value {
        Value::Scalar { text, .. } if !named.is_null() => text.clone(),
        _ => {
            return Err(vec![ScenarioError::at(
                &named,
                format!("`extends` names one scenario, found {}", named.describe()),
                Some(
                    "write the id of a block on a page, or the name of a file in scenarios/ \
                     without `.yaml`: `extends: crowd`"
                        .to_string(),
                ),
            )]);
        }
    };
    let base = match bases.find(&name) {
        Ok(base) => base,
        Err(help) => {
            return Err(vec![ScenarioError::at(
                &named,
                format!("there is no scenario `{name}` to extend"),
                Some(help),
            )]);
        }
    };
    names.push(name.clone());
    if let Some(i) = seen
        .iter()
        .position(|s| *s == (base.file.clone(), base.origin))
    {
        // seen[0] is the text being read; seen[j] the source that names[j - 1] named.
        let ring = |names: &[String]| {
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", which extends ")
        };
        let message = match i {
            0 => format!(
                "`extends` goes round in a circle: this scenario extends {}, which is this scenario",
                ring(names)
            ),
            i => format!(
                "`extends` goes round in a circle: `{}` extends {}",
                names[i - 1],
                ring(&names[i..])
            ),
        };
        return Err(vec![ScenarioError::at(
            &named,
            message,
            Some("a scenario cannot extend itself, directly or through others".to_string()),
        )]);
    }
    if chain.bases.len() >= MAX_CHAIN {
        return Err(vec![ScenarioError::at(
            &named,
            format!("this chain of `extends` is longer than {MAX_CHAIN} scenarios"),
            Some("extend the scenario the chain ends with directly".to_string()),
        )]);
    }
    seen.push((base.file.clone(), base.origin));
    chain.bases.push(base.clone());
    let depth = chain.bases.len();
    let parsed = match yaml::parse(&base.body) {
        Ok(node) => node,
        Err(e) => {
            return Err(vec![ScenarioError {
                pos: shifted(e.pos, depth),
                width: 1,
                message: e.message,
                help: e.help,
            }]);
        }
    };
    let mut base_root = parsed;
    shift(&mut base_root, depth);
    if !matches!(base_root.value, Value::Map(_)) {
        return Err(vec![ScenarioError::at(
            &base_root,
            format!(
                "`{name}`, which a scenario extends, is {}, not a map of keys",
                base_root.describe()
            ),
            None,
        )]);
    }
    let base_root = resolve_at(base_root, bases, chain, seen, names)?;
    Ok(id_first(lay_over(inherited(base_root), own)))
}

fn shifted(pos: Pos, depth: usize) -> Pos {
    Pos {
        line: pos.line.min(LINE_STRIDE - 1) + depth * LINE_STRIDE,
        column: pos.column,
    }
}

/// Moves every position of `node` into the lines of the `depth`-th source.
fn shift(node: &mut Node, depth: usize) {
    node.pos = shifted(node.pos, depth);
    match &mut node.value {
        Value::Scalar { .. } => {}
        Value::Seq(items) => items.iter_mut().for_each(|n| shift(n, depth)),
        Value::Map(pairs) => pairs.iter_mut().for_each(|(k, v)| {
            shift(k, depth);
            shift(v, depth);
        }),
    }
}

/// The scenario's own `id` written first, where an author writes it.
fn id_first(mut node: Node) -> Node {
    if let Some(i) = node.position("id")
        && let Value::Map(pairs) = &mut node.value
    {
        let id = pairs.remove(i);
        pairs.insert(0, id);
    }
    node
}

/// The base without the keys that are its own.
fn inherited(mut base: Node) -> Node {
    if let Value::Map(pairs) = &mut base.value {
        pairs.retain(|(k, _)| !k.as_scalar().is_some_and(|k| OWN_KEYS.contains(&k)));
    }
    base
}

/// `own` laid over `base`: maps merged key by key, anything else replaced; the result
/// stands where `own` does. A key written twice in `own` stays twice, for the reader to
/// report.
fn lay_over(base: Node, own: Node) -> Node {
    let (Value::Map(mut merged), Value::Map(own_pairs)) = (base.value, own.value) else {
        unreachable_merge()
    };
    let mut replaced = vec![false; merged.len()];
    let mut extra = Vec::new();
    for (key, value) in own_pairs {
        let slot = merged
            .iter()
            .enumerate()
            .position(|(i, (k, _))| !replaced[i] && k.as_scalar() == key.as_scalar());
        match slot {
            Some(i) => {
                replaced[i] = true;
                let (_, old) = std::mem::replace(&mut merged[i], (key.clone(), null(&key)));
                let value =
                    if matches!(old.value, Value::Map(_)) && matches!(value.value, Value::Map(_)) {
                        lay_over(old, value)
                    } else {
                        value
                    };
                merged[i] = (key, value);
            }
            None => extra.push((key, value)),
        }
    }
    merged.extend(extra);
    // A key written with no value removes the base's.
    merged.retain(|(_, v)| !v.is_null());
    Node {
        value: Value::Map(merged),
        pos: own.pos,
        width: own.width,
    }
}

/// Never reached: [`lay_over`] is called on two maps only.
fn unreachable_merge() -> ! {
    unreachable!("lay_over is given two maps")
}

fn null(at: &Node) -> Node {
    Node {
        value: Value::Scalar {
            text: String::new(),
            plain: true,
            quoted: false,
        },
        pos: at.pos,
        width: 1,
    }
}

/// The merged tree as YAML that reads back to the same values: what the playground and
/// the explorable figure are given for a block that extends another. Comments and the
/// author's layout are not kept: maps are written a key a line, lists of scalars and the
/// maps of scalars inside lists in flow style (`[fixed, full-jitter]`,
/// `- {from: 10s, to: 12s}`), as this site's own scenarios write them.
pub fn emit(root: &Node) -> String {
    let mut out = String::new();
    match &root.value {
        Value::Map(pairs) => emit_map(pairs, 0, &mut out),
        _ => {
            emit_value(root, 0, &mut out);
        }
    }
    out
}

fn emit_map(pairs: &[(Node, Node)], indent: usize, out: &mut String) {
    for (key, value) in pairs {
        let _ = write!(out, "{:indent$}{}:", "", scalar(key));
        emit_value(value, indent, out);
    }
}

/// A list or map of scalars only, written on one line in flow style.
fn flat(node: &Node) -> Option<String> {
    let item = |n: &Node| match &n.value {
        Value::Scalar { .. } => Some(flow_scalar(n)),
        _ => None,
    };
    match &node.value {
        Value::Seq(items) => {
            let items: Option<Vec<String>> = items.iter().map(item).collect();
            Some(format!("[{}]", items?.join(", ")))
        }
        Value::Map(pairs) => {
            let pairs: Option<Vec<String>> = pairs
                .iter()
                .map(|(k, v)| Some(format!("{}: {}", item(k)?, item(v)?)))
                .collect();
            Some(format!("{{{}}}", pairs?.join(", ")))
        }
        Value::Scalar { .. } => None,
    }
}

fn emit_value(value: &Node, indent: usize, out: &mut String) {
    match &value.value {
        Value::Scalar { .. } if value.is_null() => out.push_str(" ~\n"),
        Value::Scalar { .. } => {
            let _ = writeln!(out, " {}", scalar(value));
        }
        Value::Map(pairs) if pairs.is_empty() => out.push_str(" {}\n"),
        Value::Seq(items) if items.is_empty() => out.push_str(" []\n"),
        Value::Map(pairs) => {
            out.push('\n');
            emit_map(pairs, indent + 2, out);
        }
        Value::Seq(items) => {
            if let Some(line) = flat(value) {
                let _ = writeln!(out, " {line}");
                return;
            }
            out.push('\n');
            for item in items {
                let _ = write!(out, "{:w$}-", "", w = indent + 2);
                match (&item.value, flat(item)) {
                    (Value::Scalar { .. }, _) => emit_value(item, indent + 2, out),
                    (_, Some(line)) => {
                        let _ = writeln!(out, " {line}");
                    }
                    (Value::Map(pairs), None) => {
                        out.push('\n');
                        emit_map(pairs, indent + 4, out);
                    }
                    // A list in a list: its items one level deeper.
                    (Value::Seq(_), None) => emit_value(item, indent + 2, out),
                }
            }
        }
    }
}

/// A scalar as YAML writes it: as it was, when it was plain; in double quotes, escaped,
/// otherwise.
fn scalar(node: &Node) -> String {
    match &node.value {
        Value::Scalar {
            text, plain: true, ..
        } if !text.is_empty() => text.clone(),
        Value::Scalar { text, .. } => quoted(text),
        // Not reached for a tree the reader accepts: keys are scalars.
        _ => quoted(&node.describe()),
    }
}

/// A scalar inside `[...]` or `{...}`, where a plain one cannot hold the flow
/// indicators.
fn flow_scalar(node: &Node) -> String {
    match &node.value {
        Value::Scalar { text, .. } if node.is_null() && text.is_empty() => "~".to_string(),
        Value::Scalar {
            text, plain: true, ..
        } if !text.contains([',', '[', ']', '{', '}']) && !text.is_empty() => text.clone(),
        _ => match &node.value {
            Value::Scalar { text, .. } => quoted(text),
            _ => quoted(&node.describe()),
        },
    }
}

fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    struct Files(BTreeMap<&'static str, &'static str>);

    impl Bases for Files {
        fn find(&self, name: &str) -> Result<Source, String> {
            let body = self.0.get(name).ok_or("no such scenario".to_string())?;
            Ok(Source {
                file: format!("scenarios/{name}.yaml"),
                text: body.to_string(),
                origin: Pos::START,
                body: body.to_string(),
            })
        }
    }

    fn own(body: &str) -> Source {
        Source {
            file: "content/page.md".to_string(),
            text: body.to_string(),
            origin: Pos::START,
            body: body.to_string(),
        }
    }

    fn merged(files: &[(&'static str, &'static str)], body: &str) -> Result<String, String> {
        let files = Files(files.iter().copied().collect());
        let mut chain = Chain::default();
        let source = own(body);
        let root = yaml::parse(body).unwrap();
        resolve(root, &source, &files, &mut chain)
            .map(|n| emit(&n))
            .map_err(|errors| {
                errors
                    .into_iter()
                    .map(|e| {
                        let d = chain.place(&source, e);
                        let pos = d.pos.unwrap_or(Pos::START);
                        format!("{}:{}:{}: {}", d.file, pos.line, pos.column, d.message)
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
    }

    const CROWD: &str = "id: crowd\nclients: 100\nserver:\n  capacity: 10\n  tick: 100ms\n\
                         strategies: [fixed, full-jitter]\nfigure:\n  caption: The crowd\n";

    #[test]
    fn maps_merge_key_by_key_lists_and_values_are_replaced() {
        let out = merged(
            &[("crowd", CROWD)],
            "id: small\nextends: crowd\nserver: {capacity: 20}\nstrategies: [fixed]\n",
        )
        .unwrap();
        assert_eq!(
            out,
            "id: small\nclients: 100\nserver:\n  capacity: 20\n  tick: 100ms\nstrategies: [fixed]\n"
        );
    }

    #[test]
    fn a_key_without_a_value_removes_the_bases() {
        let out = merged(&[("crowd", CROWD)], "extends: crowd\nserver:\n  tick: ~\n").unwrap();
        assert_eq!(
            out,
            "clients: 100\nserver:\n  capacity: 10\nstrategies: [fixed, full-jitter]\n"
        );
    }

    #[test]
    fn chains_resolve_and_cycles_are_refused_with_the_chain() {
        let out = merged(
            &[("crowd", CROWD), ("big", "extends: crowd\nclients: 400\n")],
            "extends: big\nid: x\n",
        )
        .unwrap();
        assert!(out.starts_with("id: x\nclients: 400\nserver:"), "{out}");
        let err = merged(
            &[("a", "extends: b\n"), ("b", "extends: a\n")],
            "extends: a\n",
        )
        .unwrap_err();
        assert_eq!(
            err,
            "scenarios/b.yaml:1:10: `extends` goes round in a circle: `a` extends `b`, \
             which extends `a`"
        );
    }

    #[test]
    fn mistakes_are_placed_in_the_file_that_has_them() {
        let err = merged(&[("bad", "clients: [\n")], "\n\nextends: bad\n").unwrap_err();
        assert!(err.starts_with("scenarios/bad.yaml:"), "{err}");
        let err = merged(&[], "id: x\nextends: nowhere\n").unwrap_err();
        assert_eq!(
            err,
            "content/page.md:2:10: there is no scenario `nowhere` to extend"
        );
        let err = merged(&[], "extends: [a, b]\n").unwrap_err();
        assert_eq!(
            err,
            "content/page.md:1:10: `extends` names one scenario, found a list"
        );
    }

    #[test]
    fn emitted_yaml_reads_back_to_the_same_values() {
        let text = "a: \"quoted: # odd\"\nb: [x, 'y z', \"\\t\"]\nc:\n  d: ~\n  e: {}\n  f: []\n\
                    g:\n  - {h: 1, i: [2, 3]}\n  - [4, 5]\n  - plain words\nk: |\n  two\n  lines\n\
                    l:\n  - {m: \"x, y\", n: ~, o: 'p'}\n  - q: plain, with a comma\n";
        let tree = yaml::parse(text).unwrap();
        let again = yaml::parse(&emit(&tree)).unwrap();
        fn strip(n: &Node) -> String {
            match &n.value {
                Value::Scalar { text, .. } if n.is_null() => format!("~{}", text.is_empty()),
                Value::Scalar { text, .. } => format!("{text:?}"),
                Value::Seq(items) => format!(
                    "[{}]",
                    items.iter().map(strip).collect::<Vec<_>>().join(",")
                ),
                Value::Map(pairs) => format!(
                    "{{{}}}",
                    pairs
                        .iter()
                        .map(|(k, v)| format!("{}:{}", strip(k), strip(v)))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            }
        }
        // A null written `~` comes back as `~`, so compare nulls as nulls.
        let norm = |s: String| s.replace("~false", "~").replace("~true", "~");
        assert_eq!(norm(strip(&tree)), norm(strip(&again)), "{}", emit(&tree));
    }
}
