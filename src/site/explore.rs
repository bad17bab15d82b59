//! Explorable figures: a scenario figure whose directive says `figure.explore` gets,
//! under its charts, a control for each thing a reader may vary. With JavaScript, a
//! change reruns the scenario in the browser (`explore.js`, in a worker of its own,
//! `explore-worker.js`, with the engine module the playground runs), redraws the figure
//! and its tables, and updates every reference to the scenario on the page, each marked
//! `<span data-ref="…">` by the build.
//!
//! The controls are in the page as it is built, so that they take their place at the
//! first paint and nothing moves when the script starts; the stylesheet shows them only
//! where scripting is on (`@media (scripting: enabled)`), so without JavaScript the page
//! reads as a printed one.

use std::path::Path;

use super::output::Staging;
use crate::chart::table::escape;
use crate::diag::Failure;
use crate::directive::explore::Explore;
use crate::engine::Strategy;
use crate::engine::read::vary::{Kind, Parameter};
use crate::engine::units::format_duration;
use crate::format::{duration, milli, thousands};

/// The scripts of an explorable page, by their name in the output: the page's, and its
/// worker's, which loads the engine with the playground's loader (`playground.js`).
pub const SCRIPTS: &[(&str, &str)] = &[
    ("explore.js", include_str!("defaults/explore.js")),
    (
        "explore-worker.js",
        include_str!("defaults/explore-worker.js"),
    ),
    ("playground.js", include_str!("defaults/playground.js")),
];

/// Writes the scripts of explorable pages, unless `static/` brought its own (or the
/// playground's files wrote its loader), and the engine module.
pub fn write_files(staging: &Staging, root: &Path) -> Result<(), Failure> {
    for (name, text) in SCRIPTS {
        if !staging.has(name) {
            staging.write(name, text.as_bytes())?;
        }
    }
    super::playground::write_module(staging, root)
}

/// A value of `parameter` as the control shows it, with its unit: `100 clients`,
/// `10 calls per tick`, `1.5 s`.
pub fn shown(parameter: Parameter, value: u64) -> String {
    match parameter.kind() {
        Kind::Duration => duration(value),
        Kind::Whole | Kind::Milli => {
            let number = match parameter.kind() {
                Kind::Whole => thousands(value),
                Kind::Milli | Kind::Duration => milli(value),
            };
            format!("{number} {}", unit(parameter))
        }
    }
}

/// The unit a control shows after a number (durations carry their own).
fn unit(parameter: Parameter) -> &'static str {
    match parameter {
        Parameter::Clients => "clients",
        Parameter::Capacity => "calls per tick",
        Parameter::RejectionCost => "of a served call",
        Parameter::Multiplier => "times the last ceiling",
        Parameter::MaxAttempts => "calls",
        Parameter::QueueLimit => "calls",
        Parameter::Replicas => "replicas",
        Parameter::Load => "requests per second",
        Parameter::Outage
        | Parameter::Base
        | Parameter::Cap
        | Parameter::Spread
        | Parameter::Timeout
        | Parameter::HedgeDelay => "",
    }
}

/// The kind of a parameter's values, as the page's script reads it.
fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Duration => "duration",
        Kind::Whole => "whole",
        Kind::Milli => "milli",
    }
}

/// The ids the controls of scenario `id` give, with a name per knob (the strategies'
/// boxes are in their labels, and have none).
pub fn ids(id: &str, explore: &Explore) -> Vec<String> {
    explore
        .knobs
        .iter()
        .map(|k| format!("{id}-explore-{}", k.parameter.name()))
        .collect()
}

/// The controls of an explorable figure of scenario `id`, written as the author wrote
/// it (`source`), with the window and caption the author set (`None` for the automatic
/// window and the generated caption, which a rerun computes anew).
///
/// A slider per knob, in the parameter's unit (µs, whole numbers or thousandths), so
/// that every position is a value the engine reads exactly; its label names the key it
/// changes, and its output and `aria-valuetext` say the value with its unit. Then the
/// note that the figure was changed, the Reset button and a polite live region.
///
/// With `strategies: true`, a box per strategy under the legend `strategies`: the
/// scenario's own, `built`, first and checked, in the author's order, then the others
/// in the articles' order. The figure compares the checked ones, in that order.
pub fn controls(
    id: &str,
    source: &str,
    explore: &Explore,
    built: &[Strategy],
    window: Option<u64>,
    caption: Option<&str>,
) -> String {
    let knobs = &explore.knobs;
    let mut out = format!(
        "<div class=\"sim-explore\" data-yaml=\"{}\" data-window=\"{}\" data-caption=\"{}\">\n",
        escape(source),
        window.map(format_duration).unwrap_or_default(),
        escape(caption.unwrap_or_default())
    );
    for (knob, control) in knobs.iter().zip(ids(id, explore)) {
        let name = knob.parameter.name();
        let value = shown(knob.parameter, knob.value);
        out.push_str(&format!(
            "<p class=\"sim-knob\"><label for=\"{control}\">{name}</label> \
             <input type=\"range\" id=\"{control}\" name=\"{name}\" min=\"{}\" max=\"{}\" \
             step=\"{}\" value=\"{}\" data-kind=\"{}\" data-unit=\"{}\" aria-valuetext=\"{value}\"> \
             <output for=\"{control}\">{value}</output></p>\n",
            knob.min,
            knob.max,
            knob.step,
            knob.value,
            kind_name(knob.parameter.kind()),
            unit(knob.parameter),
        ));
    }
    if explore.strategies {
        out.push_str(
            "<fieldset class=\"sim-strategies\"><legend>strategies</legend><div class=\"sim-boxes\">\n",
        );
        for strategy in Strategy::offered(built) {
            let name = strategy.name();
            let checked = if built.contains(&strategy) {
                " checked"
            } else {
                ""
            };
            out.push_str(&format!(
                "<label><input type=\"checkbox\" name=\"strategies\" value=\"{name}\"{checked}> {name}</label>\n"
            ));
        }
        out.push_str("</div></fieldset>\n");
    }
    out.push_str(
        "<p class=\"sim-explore-status\"><span class=\"sim-explore-changed\">Changed from the article</span> \
         <button type=\"button\" class=\"sim-explore-reset\" disabled>Reset</button></p>\n\
         <p class=\"sim-explore-live\" aria-live=\"polite\"></p>\n</div>\n",
    );
    out
}

/// The script tag that starts an explorable page, written after each explorable
/// figure (a module runs once, however often it is named).
pub fn script(base_path: &str) -> String {
    format!(
        "<script type=\"module\" src=\"{}explore.js\"></script>\n",
        escape(base_path)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::directive::explore::Knob;

    #[test]
    fn a_value_is_shown_with_its_unit() {
        assert_eq!(shown(Parameter::Clients, 1_000), "1,000 clients");
        assert_eq!(shown(Parameter::Capacity, 2_500), "2.5 calls per tick");
        assert_eq!(shown(Parameter::Outage, 3_000_000), "3 s");
        assert_eq!(shown(Parameter::Base, 100_000), "100 ms");
        assert_eq!(shown(Parameter::Outage, 0), "0 s");
    }

    #[test]
    fn the_controls_name_their_key_and_start_at_the_built_value() {
        let knobs = [Knob {
            parameter: Parameter::Clients,
            min: 10,
            max: 1_000,
            step: 1,
            value: 100,
        }];
        let explore = Explore {
            knobs: knobs.to_vec(),
            strategies: false,
        };
        let html = controls(
            "crowd",
            "id: crowd\nclients: 100\n",
            &explore,
            &Strategy::CLASSIC,
            None,
            Some("A \"crowd\""),
        );
        assert!(html.starts_with(
            "<div class=\"sim-explore\" data-yaml=\"id: crowd\nclients: 100\n\" data-window=\"\" data-caption=\"A &quot;crowd&quot;\">\n"
        ), "{html}");
        assert!(html.contains(
            "<label for=\"crowd-explore-clients\">clients</label> <input type=\"range\" id=\"crowd-explore-clients\" name=\"clients\" min=\"10\" max=\"1000\" step=\"1\" value=\"100\" data-kind=\"whole\" data-unit=\"clients\" aria-valuetext=\"100 clients\"> <output for=\"crowd-explore-clients\">100 clients</output>"
        ), "{html}");
        assert_eq!(ids("crowd", &explore), ["crowd-explore-clients"]);
        assert!(!html.contains("checkbox"), "{html}");
    }

    #[test]
    fn the_strategies_boxes_put_the_scenarios_own_first_and_checked() {
        let explore = Explore {
            knobs: Vec::new(),
            strategies: true,
        };
        let built = [Strategy::FullJitter, Strategy::Fixed];
        let html = controls("crowd", "id: crowd\n", &explore, &built, None, None);
        let boxes: Vec<&str> = html
            .lines()
            .filter(|line| line.contains("checkbox"))
            .collect();
        assert_eq!(
            boxes,
            [
                "<label><input type=\"checkbox\" name=\"strategies\" value=\"full-jitter\" checked> full-jitter</label>",
                "<label><input type=\"checkbox\" name=\"strategies\" value=\"fixed\" checked> fixed</label>",
                "<label><input type=\"checkbox\" name=\"strategies\" value=\"exponential\"> exponential</label>",
                "<label><input type=\"checkbox\" name=\"strategies\" value=\"equal-jitter\"> equal-jitter</label>",
                "<label><input type=\"checkbox\" name=\"strategies\" value=\"decorrelated-jitter\"> decorrelated-jitter</label>",
                "<label><input type=\"checkbox\" name=\"strategies\" value=\"proportional-jitter\"> proportional-jitter</label>",
            ]
        );
        assert!(html.contains(
            "<fieldset class=\"sim-strategies\"><legend>strategies</legend><div class=\"sim-boxes\">"
        ));
        assert!(ids("crowd", &explore).is_empty());
    }
}
