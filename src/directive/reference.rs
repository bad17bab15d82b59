//! Inline references: prose that quotes the engine instead of typing a number.
//!
//! `{{ crowd.exponential.calls }}` is the median number of calls of the `exponential`
//! lane of scenario `crowd`; `{{ crowd.full-jitter.calls.p95 }}` its 95th percentile;
//! `{{ crowd.clients }}` a setting of the scenario; `{{ crowd.fixed.served | percent }}`
//! a share. See [`FIELDS`], [`SETTINGS`] and [`FORMATS`] for every name.
//! References inside code are left alone, and so is `\{{`; `\\{{` is a backslash and
//! a reference.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::engine::metric::{Metric, Stat};
use crate::engine::{Scenario, ScenarioResult};
pub use crate::quote::{Format, Setting, Target};
use crate::suggest::{self, closest};

mod links;

/// The totals a strategy can be quoted by, with what they mean: [`Metric::ALL`] by name.
pub const FIELDS: &[(&str, &str)] = &FIELD_TABLE;

const FIELD_TABLE: [(&str, &str); Metric::ALL.len()] = {
    let mut table = [("", ""); Metric::ALL.len()];
    let mut i = 0;
    while i < table.len() {
        table[i] = (Metric::ALL[i].name(), Metric::ALL[i].meaning());
        i += 1;
    }
    table
};

/// The settings of a scenario that prose can quote, with what they mean:
/// [`Setting::ALL`] by name.
pub const SETTINGS: &[(&str, &str)] = &SETTING_TABLE;

const SETTING_TABLE: [(&str, &str); Setting::ALL.len()] = {
    let mut table = [("", ""); Setting::ALL.len()];
    let mut i = 0;
    while i < table.len() {
        table[i] = (Setting::ALL[i].name(), Setting::ALL[i].meaning());
        i += 1;
    }
    table
};

/// The formats a reference can ask for after `|`, with what they give:
/// [`Format::ALL`] by name.
pub const FORMATS: &[(&str, &str)] = &FORMAT_TABLE;

const FORMAT_TABLE: [(&str, &str); Format::ALL.len()] = {
    let mut table = [("", ""); Format::ALL.len()];
    let mut i = 0;
    while i < table.len() {
        table[i] = (Format::ALL[i].name(), Format::ALL[i].meaning());
        i += 1;
    }
    table
};

/// A reference in the text, parsed but not yet checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawReference {
    /// Byte range of the whole `{{ … }}`.
    pub range: Range<usize>,
    /// The dotted path, split.
    pub path: Vec<String>,
    /// The format after `|`, if any.
    pub format: Option<String>,
}

/// A mistake in a reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceError {
    /// Byte range of the reference.
    pub range: Range<usize>,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub help: Option<String>,
}

/// A reference that names a real scenario, lane and field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// Byte range in the text.
    pub range: Range<usize>,
    /// The scenario id.
    pub id: String,
    /// What it quotes.
    pub target: Target,
    /// How to write it.
    pub format: Option<Format>,
}

/// Finds every `{{ … }}` outside the `code` ranges (sorted). Malformed ones are errors.
///
/// A `{{` after an odd number of backslashes is escaped and stays as it is written;
/// after an even number, the backslashes are text of their own and the reference is
/// read. In a link's address or label, where nothing is replaced, text that is not a
/// reference path stays as it is (`[api](https://h/items/{{id}})`) and a reference path
/// is an error. The `|` before a format may be written `\|`, as a table cell needs.
pub fn find(text: &str, code: &[Range<usize>]) -> Vec<Result<RawReference, ReferenceError>> {
    let links = links::link_parts(text);
    let mut out = Vec::new();
    let mut from = 0;
    // The code ranges come in order of their starts and so do the `{{`: one pass over
    // both, keeping the furthest end of the ranges begun so far (a page with many code
    // spans and many braces stays linear). The link parts likewise.
    let (mut next_code, mut code_end) = (0, 0);
    let (mut next_link, mut link): (usize, Option<(Range<usize>, links::Part)>) = (0, None);
    // Where the last `}}` looked for is: unknown, none, or at a byte offset.
    let mut close: Option<Option<usize>> = None;
    while let Some(found) = text[from..].find("{{") {
        let start = from + found;
        from = start + 2;
        while let Some(r) = code.get(next_code).filter(|r| r.start <= start) {
            code_end = code_end.max(r.end);
            next_code += 1;
        }
        while let Some(part) = links.get(next_link).filter(|(r, _)| r.start <= start) {
            if link.as_ref().is_none_or(|(r, _)| r.end < part.0.end) {
                link = Some(part.clone());
            }
            next_link += 1;
        }
        let backslashes = text[..start].len() - text[..start].trim_end_matches('\\').len();
        if start < code_end || backslashes % 2 == 1 {
            continue;
        }
        let in_link = link
            .as_ref()
            .filter(|(r, _)| start < r.end)
            .map(|(r, part)| (r.end, *part));
        // The first `}}` after this `{{`; in links, where `{{` is passed over, many may
        // share it, and it is looked for once.
        close = match close {
            Some(Some(at)) if at >= start => Some(Some(at)),
            Some(None) => Some(None),
            _ => Some(text[start..].find("}}").map(|len| start + len)),
        };
        let Some(Some(close_at)) = close else {
            if in_link.is_some() {
                continue;
            }
            out.push(Err(ReferenceError {
                range: start..start + 2,
                message: "this reference is not closed: expected `}}`".to_string(),
                help: Some(ESCAPE_HELP.to_string()),
            }));
            break;
        };
        let end = close_at + 2;
        let inner = &text[start + 2..close_at];
        // A condition's markers are read by `condition::find`.
        if in_link.is_none() && super::condition::is_marker(inner) {
            from = end;
            continue;
        }
        // Only these characters make a reference: a look that stops at any other stays
        // short, however far away the `}}` is.
        let plausible = inner.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '|' | '\\' | ' ' | '\t')
        });
        let (path, format) = match plausible.then(|| inner.split_once('|')).flatten() {
            Some((p, f)) => {
                let p = p.trim_end();
                (
                    p.strip_suffix('\\').unwrap_or(p).trim(),
                    Some(f.trim().to_string()),
                )
            }
            None => (inner.trim(), None),
        };
        let segments: Vec<String> = match plausible {
            true => path.split('.').map(str::to_string).collect(),
            false => Vec::new(),
        };
        let well_formed = segments.len() >= 2
            && segments.iter().all(|s| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            });
        if let Some((link_end, part)) = in_link {
            // Syntax, not prose: only a reference path is worth a word, and it is never
            // replaced there.
            if well_formed && end <= link_end {
                from = end;
                out.push(Err(ReferenceError {
                    range: start..end,
                    message: match part {
                        links::Part::Address => format!(
                            "`{{{{{inner}}}}}` stands in a link's address, where references are not replaced"
                        ),
                        links::Part::Label => format!(
                            "`{{{{{inner}}}}}` stands in a label, where references are not replaced"
                        ),
                    },
                    help: Some(match part {
                        links::Part::Address => {
                            "write the address in full; a reference can stand in the link's text or title"
                                .to_string()
                        }
                        links::Part::Label => {
                            "a label only names a link or a footnote: write it in plain words".to_string()
                        }
                    }),
                }));
            }
            continue;
        }
        from = end;
        if !well_formed {
            out.push(Err(ReferenceError {
                range: start..end,
                message: format!("`{{{{{inner}}}}}` is not a reference"),
                help: Some(format!(
                    "a reference reads `{{{{ scenario.strategy.field }}}}` or `{{{{ scenario.setting }}}}`; {ESCAPE_HELP}"
                )),
            }));
            continue;
        }
        out.push(Ok(RawReference {
            range: start..end,
            path: segments,
            format,
        }));
    }
    out
}

/// How to write `{{` that is not a reference, for every error about one.
const ESCAPE_HELP: &str = "to write `{{` as it is, write `\\{{`";

/// Checks a reference against the site's scenarios (by id).
pub fn check(
    raw: &RawReference,
    scenarios: &BTreeMap<String, Scenario>,
) -> Result<Reference, ReferenceError> {
    let fail = |message: String, help: Option<String>| ReferenceError {
        range: raw.range.clone(),
        message,
        help,
    };
    let id = &raw.path[0];
    let Some(scenario) = scenarios.get(id) else {
        let help = match closest(id, scenarios.keys().map(String::as_str)) {
            Some(near) => Some(format!("did you mean `{near}`?")),
            None if scenarios.is_empty() => Some("no page of this site has a scenario".to_string()),
            None => Some(format!(
                "the scenarios are: {}",
                scenarios.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        };
        return Err(fail(format!("no scenario has the id `{id}`"), help));
    };
    let target = if raw.path.len() == 2 {
        let name = &raw.path[1];
        let Some(setting) = Setting::from_name(name) else {
            let strategy_names = scenario.strategies.iter().map(|s| s.name());
            let help = if scenario.strategies.iter().any(|s| s.name() == name) {
                format!("name a total too: `{{{{ {id}.{name}.calls }}}}`")
            } else {
                suggest::help(
                    name,
                    SETTINGS.iter().map(|(s, _)| *s).chain(strategy_names),
                    "settings and strategies",
                )
            };
            return Err(fail(
                format!("scenario `{id}` has no setting `{name}`"),
                Some(help),
            ));
        };
        Target::Setting(setting)
    } else {
        let (name, field) = (&raw.path[1], &raw.path[2]);
        let Some(strategy) = scenario
            .strategies
            .iter()
            .copied()
            .find(|s| s.name() == name)
        else {
            let names: Vec<&str> = scenario.strategies.iter().map(|s| s.name()).collect();
            return Err(fail(
                format!("scenario `{id}` has no strategy `{name}`"),
                Some(suggest::help(
                    name,
                    names.iter().copied(),
                    "strategies of this scenario",
                )),
            ));
        };
        let Some(field) = Metric::from_name(field) else {
            return Err(fail(
                format!("there is no total `{field}`"),
                Some(total_help(field, scenario, strategy)),
            ));
        };
        let stat = match raw.path.get(3) {
            None => Stat::Median,
            Some(s) => match Stat::from_name(s) {
                Some(stat) if raw.path.len() == 4 => stat,
                _ => {
                    return Err(fail(
                        format!("`{s}` is not a statistic over runs"),
                        Some(suggest::help(s, Stat::ALL.map(Stat::name), "statistics")),
                    ));
                }
            },
        };
        Target::Total {
            strategy,
            field,
            stat,
        }
    };
    if let Some((message, help)) = cannot_have(id, scenario, &target) {
        return Err(fail(message, Some(help)));
    }
    let format = match &raw.format {
        None => None,
        Some(f) => {
            let Some(format) = Format::from_name(f) else {
                return Err(fail(
                    format!("unknown format `{f}`"),
                    Some(suggest::help(f, FORMATS.iter().map(|(n, _)| *n), "formats")),
                ));
            };
            if !format.fits(&target) {
                return Err(fail(
                    format!(
                        "the format `{}` does not fit `{}`",
                        format.name(),
                        raw.path.join(".")
                    ),
                    Some(
                        "`percent` fits served, gave_up, still_retrying and finished_runs \
                         (and denied, recovered_runs); `seconds` fits done_at (and recovery, \
                         latency_p50, latency_p99)"
                            .to_string(),
                    ),
                ));
            }
            Some(format)
        }
    };
    Ok(Reference {
        range: raw.range.clone(),
        id: id.clone(),
        target,
        format,
    })
}

/// The words an author reaches for, by the total they mean, in the order tried: the
/// first whose total the scenario can have is suggested.
const SYNONYMS: &[(&[&str], Metric)] = &[
    (
        &[
            "finished",
            "finish",
            "end",
            "ended",
            "ends",
            "completion",
            "complete",
            "completed",
            "done",
            "duration",
            "makespan",
            "last",
        ],
        Metric::DoneAt,
    ),
    (&["p99", "tail", "p999"], Metric::LatencyP99),
    (
        &["latency", "p50", "median", "delay", "response"],
        Metric::LatencyP50,
    ),
    (&["throughput", "rps", "qps", "goodput"], Metric::Goodput),
    (&["throughput", "rate"], Metric::Served),
    (&["amplification", "per"], Metric::CallsPerClient),
    (
        &["retries", "attempts", "requests", "load", "traffic"],
        Metric::Calls,
    ),
    (
        &["success", "succeeded", "successes", "ok", "answered"],
        Metric::Served,
    ),
    (
        &[
            "failed",
            "failures",
            "failure",
            "errors",
            "abandoned",
            "lost",
        ],
        Metric::GaveUp,
    ),
    (
        &["rejected", "rejections", "refused", "shed", "dropped"],
        Metric::PeakRejected,
    ),
    (
        &["pending", "waiting", "remaining", "stuck"],
        Metric::StillRetrying,
    ),
    (&["timeouts", "timeout"], Metric::TimedOut),
    (&["budget"], Metric::Denied),
    (&["pushback", "told"], Metric::PushedBack),
    (&["hedge", "hedged", "backup"], Metric::Hedges),
    (&["breaker", "circuit"], Metric::FailedFast),
];

/// Help for `name`, which is no total: the total a word of it means (`finished_at` →
/// `done_at`), said with what it means, and the closest by spelling where that is
/// another; a plain typo (one letter off) gets its total alone.
fn total_help(name: &str, scenario: &Scenario, strategy: crate::engine::Strategy) -> String {
    let names = || FIELDS.iter().map(|(f, _)| *f);
    let short = |m: Metric| {
        let meaning = m.meaning();
        meaning
            .split([':', '('])
            .next()
            .unwrap_or(meaning)
            .trim_end_matches([',', ' '])
            .to_string()
    };
    let spelt = suggest::closest(name, names()).and_then(Metric::from_name);
    if let Some(typo) = spelt.filter(|m| suggest::distance(name, m.name()) <= 1) {
        return format!("did you mean `{}`?", typo.name());
    }
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(['_', '-', '.'])
        .filter(|w| !w.is_empty())
        .collect();
    let has = |m: Metric| {
        let target = Target::Total {
            strategy,
            field: m,
            stat: Stat::Median,
        };
        crate::quote::lacks(scenario, &target).is_none()
    };
    let meant = SYNONYMS
        .iter()
        .filter(|(said, _)| words.iter().any(|w| said.contains(w)))
        .map(|(_, m)| *m)
        .find(|&m| has(m));
    match (meant, spelt) {
        (Some(m), Some(s)) if s != m => format!(
            "did you mean `{}` ({})? `{}` is {}",
            m.name(),
            short(m),
            s.name(),
            short(s)
        ),
        (Some(m), _) => format!("did you mean `{}` ({})?", m.name(), short(m)),
        (None, _) => suggest::help(name, names(), "totals"),
    }
}

/// Why scenario `id` cannot have what `target` quotes, and what it would need, if it
/// cannot ([`crate::quote::lacks`]): a total or setting of a feature the scenario
/// lacks, which would publish a zero or "never" that no run measured.
fn cannot_have(id: &str, scenario: &Scenario, target: &Target) -> Option<(String, String)> {
    use crate::quote::Lack;
    let lack = crate::quote::lacks(scenario, target)?;
    let (what, reads) = match target {
        Target::Setting(setting) => (format!("`{}`", setting.name()), "0"),
        Target::Total { field, .. } => (
            format!("the total `{}`", field.name()),
            if *field == Metric::Recovery {
                "\"never\""
            } else {
                "0"
            },
        ),
    };
    let (lacks, help) = match lack {
        Lack::Arrivals => (
            "no open-loop `arrivals`".to_string(),
            match target {
                Target::Setting(_) => {
                    "add `arrivals:` (requests that come at a rate, whoever is retrying), or \
                     quote `clients`, the crowd"
                }
                _ => {
                    "add `arrivals:` (requests that come at a rate, whoever is retrying), or \
                     quote `served` or `done_at` of the crowd"
                }
            }
            .to_string(),
        ),
        Lack::Trigger => (
            "no outage or slowdown for goodput to recover from".to_string(),
            "recovery is timed from the end of the last outage or slowdown; add one, or \
             quote `goodput`"
                .to_string(),
        ),
        Lack::Budget => (
            match target {
                Target::Total { strategy, .. } => {
                    format!("no retry budget for `{}`", strategy.name())
                }
                Target::Setting(_) => "no retry budget".to_string(),
            },
            "set `retry.budget` (grpc, finagle or aws), or quote `gave_up`".to_string(),
        ),
        Lack::Breaker => (
            "no circuit breaker".to_string(),
            "set `retry.breaker`, or quote `calls`".to_string(),
        ),
        Lack::Timeout => (
            "no per-attempt timeout".to_string(),
            "set `retry.timeout`, or quote `served` or `latency_p99`".to_string(),
        ),
        Lack::Throttle => (
            "no adaptive throttling".to_string(),
            "set `retry.throttle`, or quote `calls`".to_string(),
        ),
        Lack::Pushback => (
            "no pushback \"don't retry\" from the server".to_string(),
            "set `server.pushback` without `after`, or quote `gave_up`".to_string(),
        ),
        Lack::Hedging => (
            "no hedging".to_string(),
            "set `retry.hedging`, or quote `calls`".to_string(),
        ),
    };
    Some((
        format!(
            "scenario `{id}` cannot have {what}: it has {lacks}, and the page would say \
             {reads} where no run measured anything"
        ),
        help,
    ))
}

/// Writes the value a checked reference quotes. A reference is checked against the
/// scenario, but its value comes from the results, which may have been read from a
/// cache that does not match the scenario: results without the lane it names are an
/// error at the reference, never a panic.
pub fn render(
    reference: &Reference,
    scenario: &Scenario,
    result: &ScenarioResult,
) -> Result<String, ReferenceError> {
    crate::quote::value(&reference.target, reference.format, scenario, result).ok_or_else(|| {
        let strategy = match &reference.target {
            Target::Total { strategy, .. } => strategy.name(),
            Target::Setting(_) => "",
        };
        ReferenceError {
            range: reference.range.clone(),
            message: format!(
                "the results of scenario `{}` have no strategy `{strategy}`",
                reference.id,
            ),
            help: Some(
                "the results do not match the scenario: delete the site's simulation \
                 cache and build again"
                    .to_string(),
            ),
        }
    })
}

/// The reference as the page marks it for the browser (see [`crate::quote::parse`]):
/// `crowd.fixed.calls.p95`, `crowd.clients`, `crowd.fixed.served|percent`.
pub fn marked(reference: &Reference) -> String {
    let path = match &reference.target {
        Target::Setting(name) => format!("{}.{}", reference.id, name.name()),
        Target::Total {
            strategy,
            field,
            stat,
        } => match stat {
            Stat::Median => format!("{}.{}.{}", reference.id, strategy.name(), field.name()),
            stat => format!(
                "{}.{}.{}.{}",
                reference.id,
                strategy.name(),
                field.name(),
                stat.name()
            ),
        },
    };
    match reference.format {
        Some(format) => format!("{path}|{}", format.name()),
        None => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Strategy;
    use crate::engine::run_scenario;

    fn site() -> (BTreeMap<String, Scenario>, ScenarioResult) {
        let mut s = Scenario::with_clients("crowd", 100);
        s.strategies = vec![Strategy::Fixed, Strategy::Exponential];
        let result = run_scenario(&s);
        (BTreeMap::from([("crowd".to_string(), s)]), result)
    }

    fn quote(text: &str) -> Result<String, String> {
        let (scenarios, result) = site();
        let raw = find(text, &[]).remove(0).map_err(|e| e.message)?;
        let r = check(&raw, &scenarios)
            .map_err(|e| format!("{} ({})", e.message, e.help.unwrap_or_default()))?;
        render(&r, &scenarios["crowd"], &result).map_err(|e| e.message)
    }

    #[test]
    fn quotes_totals_settings_and_formats() {
        assert_eq!(quote("{{ crowd.fixed.calls }}").unwrap(), "1,947");
        assert_eq!(quote("{{crowd.fixed.calls|raw}}").unwrap(), "1947");
        assert_eq!(quote("{{ crowd.exponential.done_at }}").unwrap(), "42.7 s");
        assert_eq!(
            quote("{{ crowd.exponential.done_at | number }}").unwrap(),
            "42.7"
        );
        assert_eq!(quote("{{ crowd.fixed.served | percent }}").unwrap(), "100%");
        assert_eq!(
            quote("{{ crowd.fixed.calls_per_client }}").unwrap(),
            "19.47"
        );
        assert_eq!(quote("{{ crowd.fixed.calls.p95 }}").unwrap(), "1,947");
        assert_eq!(quote("{{ crowd.clients }}").unwrap(), "100");
        assert_eq!(quote("{{ crowd.tick }}").unwrap(), "100 ms");
        assert_eq!(quote("{{ crowd.horizon }}").unwrap(), "2 min");
        assert_eq!(quote("{{ crowd.cap }}").unwrap(), "10 s");
        assert_eq!(quote("{{ crowd.max_attempts }}").unwrap(), "no limit");
        assert_eq!(quote("{{ crowd.outage }}").unwrap(), "no outage");
    }

    #[test]
    fn every_setting_and_format_reads_back_by_its_name() {
        for &setting in Setting::ALL {
            assert_eq!(Setting::from_name(setting.name()), Some(setting));
        }
        for &format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
        }
        assert_eq!(Setting::from_name("max_attempt"), None);
        assert_eq!(Format::from_name("Percent"), None);
        let error = quote("{{ crowd.tick_length }}").unwrap_err();
        assert!(
            error.starts_with("scenario `crowd` has no setting `tick_length`"),
            "{error}"
        );
    }

    #[test]
    fn a_name_an_author_reaches_for_is_suggested_by_its_meaning() {
        // Meaning first where a word says it, with the total spelt closest beside it.
        assert_eq!(
            quote("{{ crowd.fixed.finished_at }}").unwrap_err(),
            "there is no total `finished_at` (did you mean `done_at` (when the last client \
             finished, over all runs)? `finished_runs` is runs in which every client \
             finished)"
        );
        // A plain typo is a typo.
        assert_eq!(
            quote("{{ crowd.fixed.finished_run }}").unwrap_err(),
            "there is no total `finished_run` (did you mean `finished_runs`?)"
        );
        for (said, meant) in [
            ("completion_time", "done_at"),
            ("end", "done_at"),
            ("p99", "latency_p99"),
            ("latency", "latency_p50"),
            ("retries", "calls"),
            // A closed crowd has no goodput: throughput is what it served.
            ("throughput", "served"),
        ] {
            let help = quote(&format!("{{{{ crowd.fixed.{said} }}}}")).unwrap_err();
            assert!(
                help.contains(&format!("did you mean `{meant}` (")),
                "{said}: {help}"
            );
        }
    }

    #[test]
    fn mistakes_say_what_exists() {
        assert_eq!(
            quote("{{ crwd.fixed.calls }}").unwrap_err(),
            "no scenario has the id `crwd` (did you mean `crowd`?)"
        );
        assert_eq!(
            quote("{{ crowd.full-jitter.calls }}").unwrap_err(),
            "scenario `crowd` has no strategy `full-jitter` (the strategies of this scenario \
             are: fixed, exponential)"
        );
        assert_eq!(
            quote("{{ crowd.fixed.cals }}").unwrap_err(),
            "there is no total `cals` (did you mean `calls`?)"
        );
        assert_eq!(
            quote("{{ crowd.fixed.calls | percent }}").unwrap_err(),
            "the format `percent` does not fit `crowd.fixed.calls` (`percent` fits served, \
             gave_up, still_retrying and finished_runs (and denied, recovered_runs); `seconds` \
             fits done_at (and recovery, latency_p50, latency_p99))"
        );
        assert_eq!(
            quote("{{ crowd }}").unwrap_err(),
            "`{{ crowd }}` is not a reference"
        );
    }

    #[test]
    fn quotes_the_totals_beyond_backoff() {
        let yaml = "id: m\nclients: 0\narrivals: {rate: 80}\n\
                    server: {outages: [{from: 10s, to: 12s}]}\n\
                    retry: {max_attempts: 10, budget: grpc}\nstrategies: [fixed]\n";
        let s = crate::engine::parse_scenario(yaml, None).unwrap();
        let result = run_scenario(&s);
        let scenarios = BTreeMap::from([("m".to_string(), s)]);
        let quote = |text: &str| {
            let raw = find(text, &[]).remove(0).unwrap();
            let r = check(&raw, &scenarios).map_err(|e| e.message)?;
            render(&r, &scenarios["m"], &result).map_err(|e| e.message)
        };
        assert_eq!(quote("{{ m.fixed.denied }}").unwrap(), "160");
        assert_eq!(quote("{{ m.fixed.denied | percent }}").unwrap(), "2%");
        assert_eq!(quote("{{ m.fixed.goodput }}").unwrap(), "80.0");
        assert_eq!(quote("{{ m.fixed.recovery }}").unwrap(), "0.0 s");
        assert_eq!(quote("{{ m.fixed.recovered_runs }}").unwrap(), "1");
        assert!(quote("{{ m.fixed.failed_fast }}").unwrap_err().starts_with(
            "scenario `m` cannot have the total `failed_fast`: it has no circuit breaker"
        ));
        assert_eq!(quote("{{ m.arrivals }}").unwrap(), "9,600");
        assert_eq!(quote("{{ m.offered }}").unwrap(), "80.0");
        assert_eq!(quote("{{ m.outage }}").unwrap(), "2 s");
        assert_eq!(quote("{{ m.spread }}").unwrap(), "0 s");
        assert_eq!(
            quote("{{ m.fixed.goodput | seconds }}").unwrap_err(),
            "the format `seconds` does not fit `m.fixed.goodput`"
        );
    }

    #[test]
    fn a_time_some_runs_lack_is_never_when_fewer_than_half_have_it() {
        use crate::engine::Spread;
        let (scenarios, mut result) = site();
        result.runs = 4;
        let lane = &mut result.strategies[1];
        // One run of four finished: the median over all runs is "never".
        lane.done_at = Spread::of_all(&[None, Some(2_000_000), None, None]);
        lane.finished_runs = 1;
        let quote = |text: &str, result: &ScenarioResult| {
            let raw = find(text, &[]).remove(0).unwrap();
            let r = check(&raw, &scenarios).unwrap();
            render(&r, &scenarios["crowd"], result).unwrap()
        };
        assert_eq!(quote("{{ crowd.exponential.done_at }}", &result), "never");
        assert_eq!(quote("{{ crowd.exponential.finished_runs }}", &result), "1");
        assert_eq!(
            quote("{{ crowd.exponential.finished_runs | percent }}", &result),
            "25%"
        );
        // Three of five: the runs that never finished count as the latest, so the median
        // is the third time, not the median of the three times.
        result.runs = 5;
        let lane = &mut result.strategies[1];
        lane.done_at = Spread::of_all(&[
            Some(3_000_000),
            None,
            Some(1_000_000),
            None,
            Some(2_000_000),
        ]);
        lane.finished_runs = 3;
        assert_eq!(quote("{{ crowd.exponential.done_at }}", &result), "3.0 s");
        assert_eq!(
            quote("{{ crowd.exponential.done_at.p5 }}", &result),
            "1.0 s"
        );
    }

    #[test]
    fn quotes_the_overload_totals() {
        use crate::engine::Spread;
        let (mut scenarios, mut result) = site();
        // Timed-out, wasted and throttled attempts need a timeout and a throttle.
        let crowd = scenarios.get_mut("crowd").unwrap();
        crowd.retry.timeout = Some(2_000_000);
        crowd.retry.throttle = Some(crate::engine::scenario::Throttle {
            k_milli: 2_000,
            window: 60_000_000,
        });
        result.runs = 4;
        let lane = &mut result.strategies[1];
        lane.wasted = Spread::of(vec![1_200, 40, 7, 300]).unwrap();
        lane.timed_out = Spread::of(vec![5, 6, 7, 8]).unwrap();
        lane.throttled = Spread::of(vec![0, 0, 0, 9]).unwrap();
        // Three of four runs answered a call in time.
        lane.latency_runs = 3;
        lane.latency_p50 = Spread::of(vec![250_000, 50_000, 1_500_000]);
        lane.latency_p99 = Spread::of(vec![2_000_000, 900_000, 3_000_000]);
        let quote = |text: &str, result: &ScenarioResult| {
            let raw = find(text, &[]).remove(0).unwrap();
            let r = check(&raw, &scenarios)
                .map_err(|e| format!("{} ({})", e.message, e.help.unwrap_or_default()))?;
            render(&r, &scenarios["crowd"], result).map_err(|e| e.message)
        };
        let ok = |text: &str| quote(text, &result).unwrap();
        // Nearest rank of four: 5th percentile rank 1, median rank 2, 95th rank 4.
        assert_eq!(ok("{{ crowd.exponential.wasted }}"), "40");
        assert_eq!(ok("{{ crowd.exponential.wasted.p95 }}"), "1,200");
        assert_eq!(ok("{{ crowd.exponential.wasted.p95 | raw }}"), "1200");
        assert_eq!(ok("{{ crowd.exponential.timed_out.p5 }}"), "5");
        assert_eq!(ok("{{ crowd.exponential.throttled }}"), "0");
        assert_eq!(ok("{{ crowd.exponential.throttled.p95 }}"), "9");
        // Of three: ranks 1, 2 and 3; to the millisecond.
        assert_eq!(ok("{{ crowd.exponential.latency_p50 }}"), "0.250 s");
        assert_eq!(ok("{{ crowd.exponential.latency_p50.p5 }}"), "0.050 s");
        assert_eq!(ok("{{ crowd.exponential.latency_p99.p95 }}"), "3.000 s");
        assert_eq!(
            ok("{{ crowd.exponential.latency_p99 | seconds }}"),
            "2.000 s"
        );
        assert_eq!(ok("{{ crowd.exponential.latency_p99 | number }}"), "2.000");
        assert_eq!(
            quote("{{ crowd.exponential.wasted | percent }}", &result).unwrap_err(),
            "the format `percent` does not fit `crowd.exponential.wasted` (`percent` fits \
             served, gave_up, still_retrying and finished_runs (and denied, recovered_runs); \
             `seconds` fits done_at (and recovery, latency_p50, latency_p99))"
        );
        assert!(
            quote("{{ crowd.exponential.timed_out | seconds }}", &result)
                .unwrap_err()
                .starts_with("the format `seconds` does not fit")
        );
        assert_eq!(
            quote("{{ crowd.exponential.latency_p90 }}", &result).unwrap_err(),
            "there is no total `latency_p90` (did you mean `latency_p50`?)"
        );
        // No run answered a call in time.
        let lane = &mut result.strategies[1];
        lane.latency_runs = 0;
        lane.latency_p50 = None;
        lane.latency_p99 = None;
        assert_eq!(
            quote("{{ crowd.exponential.latency_p99 }}", &result).unwrap(),
            "never"
        );
    }

    #[test]
    fn quotes_the_timeout_and_the_queue_limit() {
        use crate::engine::scenario::{Queue, QueueOrder};
        let (mut scenarios, result) = site();
        let quote = |text: &str, scenarios: &BTreeMap<String, Scenario>| {
            let raw = find(text, &[]).remove(0).unwrap();
            let r = check(&raw, scenarios).unwrap();
            render(&r, &scenarios["crowd"], &result).unwrap()
        };
        assert_eq!(quote("{{ crowd.timeout }}", &scenarios), "no timeout");
        assert_eq!(quote("{{ crowd.queue_limit }}", &scenarios), "no queue");
        let crowd = scenarios.get_mut("crowd").unwrap();
        crowd.retry.timeout = Some(1_500_000);
        crowd.server.queue = Some(Queue {
            limit: 2_000,
            order: QueueOrder::Fifo,
            drop_expired: false,
        });
        assert_eq!(quote("{{ crowd.timeout }}", &scenarios), "1.5 s");
        assert_eq!(quote("{{ crowd.queue_limit }}", &scenarios), "2,000");
        assert_eq!(quote("{{ crowd.queue_limit | raw }}", &scenarios), "2000");
        scenarios.get_mut("crowd").unwrap().server.queue = Some(Queue {
            limit: 0,
            order: QueueOrder::Lifo,
            drop_expired: true,
        });
        assert_eq!(quote("{{ crowd.queue_limit }}", &scenarios), "no queue");
        assert_eq!(quote("{{ crowd.hedge_delay }}", &scenarios), "no hedging");
        scenarios.get_mut("crowd").unwrap().retry.hedging =
            Some(crate::engine::scenario::Hedging {
                delay: 250_000,
                max_attempts: 2,
            });
        assert_eq!(quote("{{ crowd.hedge_delay }}", &scenarios), "250 ms");
    }

    #[test]
    fn results_without_the_lane_are_an_error_not_a_panic() {
        let (scenarios, mut result) = site();
        // As a cache entry that is valid JSON but lost a strategy would read.
        result.strategies.retain(|s| s.strategy != Strategy::Fixed);
        let raw = find("{{ crowd.fixed.calls }}", &[]).remove(0).unwrap();
        let r = check(&raw, &scenarios).unwrap();
        let e = render(&r, &scenarios["crowd"], &result).unwrap_err();
        assert_eq!(
            e.message,
            "the results of scenario `crowd` have no strategy `fixed`"
        );
        assert_eq!(e.range, 0..23);
        let raw = find("{{ crowd.clients }}", &[]).remove(0).unwrap();
        let r = check(&raw, &scenarios).unwrap();
        assert_eq!(render(&r, &scenarios["crowd"], &result).unwrap(), "100");
    }

    #[test]
    fn an_escape_is_an_odd_number_of_backslashes() {
        let starts = |text: &str| -> Vec<(usize, usize)> {
            find(text, &[])
                .into_iter()
                .map(|f| f.map_or_else(|e| e.range, |r| r.range))
                .map(|r| (r.start, r.end))
                .collect()
        };
        assert_eq!(starts("\\{{ a.b }} {{ a.b }}"), [(11, 20)]);
        assert_eq!(starts("\\\\{{ a.b }}"), [(2, 11)]);
        assert_eq!(starts("\\\\\\{{ a.b }}"), []);
        assert_eq!(starts("\\{{{ a.b }}"), []);
    }

    #[test]
    fn a_format_may_follow_an_escaped_pipe() {
        let raw = find("{{ crowd.fixed.served \\| percent }}", &[])
            .remove(0)
            .unwrap();
        assert_eq!(raw.path, ["crowd", "fixed", "served"]);
        assert_eq!(raw.format.as_deref(), Some("percent"));
        assert_eq!(quote("{{crowd.fixed.served\\|percent}}").unwrap(), "100%");
    }

    #[test]
    fn in_an_address_only_a_reference_path_is_an_error() {
        let found = find(
            "[a](https://h/{{id}}) <https://h/{{x}}> [b](/c/{{a.b}})",
            &[],
        );
        assert_eq!(found.len(), 1);
        let e = found[0].as_ref().unwrap_err();
        assert_eq!(e.range, 47..54);
        assert_eq!(
            e.message,
            "`{{a.b}}` stands in a link's address, where references are not replaced"
        );
    }

    #[test]
    fn code_and_escapes_are_left_alone() {
        let text = "a `{{ x.y }}` b \\{{ x.y }} c {{ crowd.clients }}";
        let code = [Range { start: 2, end: 13 }];
        let found = find(text, &code);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].as_ref().unwrap().path, ["crowd", "clients"]);
    }
}
