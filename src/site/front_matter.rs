//! The front matter keys that shape a page's place in the output: `slug` (its address),
//! `aliases` (old addresses that send readers on) and `extra` (the author's own keys
//! for templates), each checked where it is written.

use crate::yaml::{Map, Naming, Node, Problem, Value};

use super::meta::Meta;

/// What is wrong with one part of an address, if anything: it must be a name a folder
/// can have on every system a site is built or served on.
fn bad_part(part: &str) -> Option<&'static str> {
    if part == "." || part == ".." {
        Some("`.` and `..` name folders relative to another, not a place of their own")
    } else if part.chars().any(char::is_control) {
        Some("it holds a control character")
    } else if part.contains('\\') {
        Some("it holds `\\`, which Windows reads as a folder separator")
    } else {
        None
    }
}

/// The `slug:` of the page whose address is `url`, checked: one name, which takes the
/// place of the address's last part.
pub fn slug(meta: &mut Meta, url: &str) -> Option<String> {
    let node = meta.node("slug")?;
    let text = meta.text("slug")?;
    let problem = if url.is_empty() {
        Some((
            "the home page takes no `slug`: its address is the site's root".to_string(),
            "remove `slug:` from content/index.md".to_string(),
        ))
    } else if text.trim().is_empty() {
        Some((
            "`slug` is empty".to_string(),
            "write the last part of the page's address, such as `retries`".to_string(),
        ))
    } else if text.contains('/') {
        Some((
            format!("`slug` must be one part of an address, found `{text}`"),
            "a slug holds no `/`: move the file to change the folders above it".to_string(),
        ))
    } else {
        bad_part(&text).map(|why| {
            (
                format!("`slug` cannot be an address: {why}"),
                "write the last part of the page's address, such as `retries`".to_string(),
            )
        })
    };
    match problem {
        Some((message, help)) => {
            meta.problem(&node, message, Some(help));
            None
        }
        None => Some(text),
    }
}

/// The `aliases:` as written, and the file below the output each one is written to:
/// `/old/path/` gives `old/path/index.html`, and `/old.html` gives `old.html`. An alias
/// is an address of this site, from its root; escapes (`%20`) are decoded, as a server
/// decodes them.
pub fn aliases(meta: &mut Meta) -> (Vec<String>, Vec<String>) {
    let Some(node) = meta.node("aliases") else {
        return (Vec::new(), Vec::new());
    };
    let items = match node.value {
        Value::Seq(items) => items,
        Value::Scalar { .. } => vec![node],
        Value::Map(_) => {
            let help = "write a list of addresses, such as `[/old/path/]`".to_string();
            meta.problem(
                &node,
                "`aliases` must be a list of addresses".to_string(),
                Some(help),
            );
            return (Vec::new(), Vec::new());
        }
    };
    let (mut written, mut files) = (Vec::new(), Vec::new());
    for item in items {
        match alias_file(&item) {
            Ok(file) => {
                written.push(item.as_scalar().unwrap_or_default().to_string());
                files.push(file);
            }
            Err((message, help)) => meta.problem(&item, message, Some(help)),
        }
    }
    (written, files)
}

/// The file an alias is written to, or what is wrong with it.
fn alias_file(item: &Node) -> Result<String, (String, String)> {
    let help = "an alias is an address of this site, such as `/old/path/`".to_string();
    let Some(text) = item.as_scalar().filter(|_| !item.is_null()) else {
        return Err(("`aliases` must be a list of addresses".to_string(), help));
    };
    if text.contains("://") || text.starts_with("//") {
        return Err((format!("the alias `{text}` is on another site"), help));
    }
    if text.contains(['?', '#']) {
        let message = format!("the alias `{text}` has a query or an anchor, which no file has");
        return Err((message, help));
    }
    let Some(decoded) = super::address::decode(text) else {
        let message = format!("the alias `{text}` decodes to bytes that are not UTF-8 text");
        return Err((message, help));
    };
    let path = decoded.trim_start_matches('/');
    if path.is_empty() {
        let message = format!("the alias `{text}` is the site's root, the home page's address");
        return Err((message, help));
    }
    for part in path.trim_end_matches('/').split('/') {
        if part.is_empty() {
            return Err((format!("the alias `{text}` has an empty part (`//`)"), help));
        }
        if let Some(why) = bad_part(part) {
            return Err((
                format!("the alias `{text}` cannot be an address: {why}"),
                help,
            ));
        }
    }
    Ok(if path.ends_with(".html") {
        path.to_string()
    } else {
        format!("{}/index.html", path.trim_end_matches('/'))
    })
}

/// The `extra:` map, as JSON for the templates. Its keys are the author's own; values
/// keep their YAML types (a plain `3` is a number, `true` a boolean, `"3"` text).
pub fn extra(meta: &mut Meta) -> serde_json::Map<String, serde_json::Value> {
    let Some(node) = meta.node("extra") else {
        return serde_json::Map::new();
    };
    match &node.value {
        Value::Map(pairs) => {
            // The keys are free, but a key twice would silently lose a value, and a list
            // or map as a key would become an empty name.
            let mut problems = Vec::new();
            checked(&node, "extra.", &mut problems);
            for problem in problems {
                meta.add(problem);
            }
            object(pairs)
        }
        Value::Seq(_) | Value::Scalar { .. } => {
            let message = format!("`extra` must be a map of keys, found {}", node.describe());
            let help = "write keys under it, such as `extra:` and then `  video: intro.mp4`";
            meta.problem(&node, message, Some(help.to_string()));
            serde_json::Map::new()
        }
    }
}

/// Checks the keys of every map in `node`, which is named `prefix` less its dot.
fn checked(node: &Node, prefix: &str, problems: &mut Vec<Problem>) {
    match &node.value {
        Value::Map(pairs) => {
            Map::read_free(node, Naming::Path(prefix), "", problems);
            for (key, value) in pairs {
                if let Some(name) = key.as_scalar() {
                    checked(value, &format!("{prefix}{name}."), problems);
                }
            }
        }
        Value::Seq(items) => {
            let prefix = format!("{}[].", prefix.trim_end_matches('.'));
            for item in items {
                checked(item, &prefix, problems);
            }
        }
        Value::Scalar { .. } => {}
    }
}

/// A YAML map as a JSON object.
fn object(pairs: &[(Node, Node)]) -> serde_json::Map<String, serde_json::Value> {
    pairs
        .iter()
        .map(|(key, value)| (key.as_scalar().unwrap_or_default().to_string(), json(value)))
        .collect()
}

/// A YAML value as JSON.
fn json(node: &Node) -> serde_json::Value {
    match &node.value {
        Value::Seq(items) => items.iter().map(json).collect(),
        Value::Map(pairs) => object(pairs).into(),
        Value::Scalar { .. } if node.is_null() => serde_json::Value::Null,
        Value::Scalar {
            text, plain: true, ..
        } => match text.as_str() {
            "true" => true.into(),
            "false" => false.into(),
            _ => text
                .parse::<i64>()
                .map(serde_json::Value::from)
                .ok()
                .or_else(|| {
                    text.parse::<f64>()
                        .ok()
                        .filter(|f| f.is_finite())
                        .and_then(serde_json::Number::from_f64)
                        .map(serde_json::Value::Number)
                })
                .unwrap_or_else(|| text.clone().into()),
        },
        Value::Scalar { text, .. } => text.clone().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(text: &str) -> Result<String, String> {
        let node = Node {
            value: Value::Scalar {
                text: text.to_string(),
                plain: true,
                quoted: false,
            },
            pos: crate::yaml::Pos::START,
            width: 1,
        };
        alias_file(&node).map_err(|(message, _)| message)
    }

    #[test]
    fn aliases_become_files_below_the_output() {
        assert_eq!(file_of("/old/path/").unwrap(), "old/path/index.html");
        assert_eq!(file_of("old").unwrap(), "old/index.html");
        assert_eq!(file_of("/old%20notes/").unwrap(), "old notes/index.html");
        assert_eq!(file_of("/2019/post.html").unwrap(), "2019/post.html");
        for bad in [
            "/",
            "/a/../b/",
            "/a//b/",
            "https://x.org/a/",
            "/a/?x",
            "/%FF/",
            "/a\u{7}/",
        ] {
            assert!(file_of(bad).is_err(), "{bad}");
        }
    }
}
