//! The live directive, read: a stored live run (`retrylab live FILE --record DATA`) set
//! beside the simulation of a scenario of the site.
//!
//! ````markdown
//! ```live
//! scenario: crowd          # the id of a sim directive
//! data: live/crowd.json    # the stored run, from the page's folder
//! caption: optional text
//! ```
//! ````
//!
//! The site reads the data file (from the page's folder, as a link or an image is
//! read, and published beside the page like them), and refuses it unless it was played with that very
//! scenario (its `runs` and `seed` aside, which only the simulation uses); see
//! [`crate::site`]'s `live` module.

use crate::engine::ScenarioError;
use crate::engine::read::parse_yaml;
use crate::yaml::{Map, Naming, Node};

/// The keys of a live directive, in documentation order, each with its meaning.
pub const KEYS: [(&str, &str); 3] = [
    (
        "scenario",
        "the id of the sim directive whose scenario was played",
    ),
    (
        "data",
        "the stored live run, a path from the page's folder (`retrylab live FILE --record PATH` writes it)",
    ),
    (
        "caption",
        "the figure's caption, instead of the generated one",
    ),
];

/// A live directive, read.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveDirective {
    /// The id of the scenario it sets the live run beside.
    pub scenario: String,
    /// The `scenario` value, for errors about it.
    pub scenario_node: Node,
    /// The stored run's path, from the page's folder.
    pub data: String,
    /// The `data` value, for errors about it.
    pub data_node: Node,
    /// The author's caption.
    pub caption: Option<String>,
}

/// Reads a live directive's YAML. Errors are positioned relative to the body.
pub fn read_live(body: &str) -> Result<LiveDirective, Vec<ScenarioError>> {
    let root = parse_yaml(body)?;
    let mut errors = Vec::new();
    let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
    let Some(map) = Map::read(
        &root,
        &known,
        Naming::Path(""),
        "a live directive",
        &mut errors,
    ) else {
        return Err(errors);
    };
    let mut text = |name: &str, meaning: &str| -> Option<(String, Node)> {
        let node = match map.required(name, meaning) {
            Ok(node) => node,
            Err(e) => {
                errors.push(e);
                return None;
            }
        };
        match map.text(name) {
            Ok(Some(text)) if !text.trim().is_empty() => Some((text.to_string(), node.clone())),
            Ok(_) => {
                errors.push(ScenarioError::at(node, format!("`{name}` is empty"), None));
                None
            }
            Err(e) => {
                errors.push(e);
                None
            }
        }
    };
    let scenario = text(
        "scenario",
        "the id of the sim directive whose scenario was played",
    );
    let data = text("data", "the stored live run, like live/crowd.json");
    if let Some((path, node)) = &data
        && let Some(problem) = path_problem(path)
    {
        errors.push(ScenarioError::at(
            node,
            problem,
            Some("give a path from the page's folder, like live/crowd.json".to_string()),
        ));
    }
    let caption = match map.text("caption") {
        Ok(caption) => caption.map(str::to_string),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    match (scenario, data) {
        (Some((scenario, scenario_node)), Some((data, data_node))) if errors.is_empty() => {
            Ok(LiveDirective {
                scenario,
                scenario_node,
                data,
                data_node,
                caption,
            })
        }
        _ => {
            errors.sort_by_key(|e| e.pos);
            Err(errors)
        }
    }
}

/// What is wrong with a data path, if anything: it must stay inside the page's folder.
fn path_problem(path: &str) -> Option<String> {
    let p = std::path::Path::new(path);
    if p.is_absolute() || path.starts_with('/') || path.starts_with('\\') {
        return Some(format!(
            "`data` must be a path inside the site, found `{path}`"
        ));
    }
    if p.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    }) {
        return Some(format!(
            "`data` must stay inside the page's folder, found `{path}`"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_keys_and_places_its_mistakes() {
        let ok = read_live("scenario: crowd\ndata: live/crowd.json\n").expect("a valid block");
        assert_eq!(
            (ok.scenario.as_str(), ok.data.as_str()),
            ("crowd", "live/crowd.json")
        );
        assert_eq!(ok.caption, None);
        let err = read_live("scenario: crowd\ndat: live/crowd.json\n").unwrap_err();
        assert_eq!(err[0].message, "missing key `data`");
        assert_eq!(err[1].message, "unknown key `dat`");
        assert_eq!(err[1].help.as_deref(), Some("did you mean `data`?"));
        assert_eq!((err[1].pos.line, err[1].pos.column), (2, 1));
        let err = read_live("scenario: crowd\ndata: ../secret.json\n").unwrap_err();
        assert_eq!(
            err[0].message,
            "`data` must stay inside the page's folder, found `../secret.json`"
        );
        assert_eq!((err[0].pos.line, err[0].pos.column), (2, 7));
        let err = read_live("scenario: [a]\ndata: /etc/passwd\n").unwrap_err();
        assert_eq!(err.len(), 2);
        let err = read_live("- a\n").unwrap_err();
        assert_eq!(
            err[0].message,
            "a live directive must be a map of keys, found a list"
        );
    }
}
