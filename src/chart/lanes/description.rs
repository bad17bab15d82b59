//! The chart in words, for the SVG's `<desc>`.

use super::layout::Layout;
use super::{binned_note, overload};
use crate::engine::{Scenario, ScenarioResult};
use crate::format::{duration, milli, seconds, thousands};

/// The chart in words, for the SVG's `<desc>`: what the lanes show, and per strategy
/// its run's calls and when it was done or that it never was.
pub(super) fn description(scenario: &Scenario, result: &ScenarioResult, layout: &Layout) -> String {
    let end = layout.end;
    let mut out = format!(
        "Calls per {} tick over the first {}, one lane per strategy: calls served, and \
         calls turned away above them; the server's capacity is {} calls per tick.",
        duration(scenario.server.tick),
        duration(end),
        milli(scenario.server.capacity_milli)
    );
    if let Some(cache) = scenario.server.cache {
        out.push_str(&format!(
            " A cache in front of the server raises its capacity up to {} calls per tick \
             as it warms{}.",
            milli(cache.capacity_milli),
            match layout.capacity_shown {
                true => "; each lane's dashed line is the capacity its run had",
                false => "",
            }
        ));
    }
    if !layout.capacity_shown {
        out.push_str(" The height scale ends below the capacity, to fit the bars.");
    }
    if layout.bin > 1 {
        out.push(' ');
        out.push_str(&binned_note(scenario, layout.bin));
    }
    if scenario.retry.breaker.is_some() {
        out.push_str(
            " Calls that failed fast at the clients' circuit breaker, never reaching the \
             server, are stacked on top.",
        );
    }
    out.push_str(&overload::description(layout));
    for o in scenario.server.outages.iter().filter(|o| o.from < end) {
        out.push_str(&format!(
            " The server is down from {} to {}.",
            seconds(o.from),
            seconds(o.to)
        ));
    }
    for s in scenario.server.slowdowns.iter().filter(|s| s.from < end) {
        out.push_str(&format!(
            " From {} to {} the server's capacity is {} calls per tick.",
            seconds(s.from),
            seconds(s.to),
            milli(s.capacity_milli)
        ));
    }
    for s in &result.strategies {
        let t = &s.typical.totals;
        out.push_str(&format!(
            " {}, in the run drawn: {} calls, {} clients served",
            s.strategy.name(),
            thousands(t.calls),
            thousands(t.served)
        ));
        if t.failed_fast > 0 {
            out.push_str(&format!(", {} failed fast", thousands(t.failed_fast)));
        }
        out.push_str(&overload::lane_description(layout, s));
        if t.gave_up > 0 {
            out.push_str(&format!(", {} gave up", thousands(t.gave_up)));
        }
        // A capacity that moved: its lowest and highest while the server was up.
        let up = (s.typical.lanes.as_ref())
            .map(|l| l.capacity.iter().take(layout.shown).filter(|&&c| c > 0))
            .into_iter()
            .flatten();
        let (low, high) = up.fold((u64::MAX, 0), |(lo, hi), &c| (lo.min(c), hi.max(c)));
        if high > 0 {
            out.push_str(&match low == high {
                true => format!(", its capacity {} calls per tick", milli(low)),
                false => format!(
                    ", its capacity from {} to {} calls per tick",
                    milli(low),
                    milli(high)
                ),
            });
        }
        match t.done_at {
            _ if t.still_retrying > 0 => out.push_str(&format!(
                ", {} still retrying at the horizon ({})",
                thousands(t.still_retrying),
                duration(scenario.horizon)
            )),
            Some(done) if done >= end => out.push_str(&format!(
                ", the last done at {}, after the end of the chart",
                seconds(done)
            )),
            Some(done) => out.push_str(&format!(", the last done at {}", seconds(done))),
            None => {}
        }
        out.push('.');
    }
    out
}
