//! What open-loop load is measured by: goodput after the trigger and the recovery time.
//!
//! Definitions, for anyone reproducing a run:
//!
//! - **Goodput** is calls answered in time per second (served, not wasted) from the
//!   first tick that starts at or after the end of the trigger (the end of the last
//!   outage or slowdown; 0 without one) to the horizon.
//! - **Recovery time.** With open-loop load and an outage or a slowdown: let `W` be the
//!   ticks in one second (at least one). A window of `W` ticks is good when its calls
//!   answered in time are at least 95% of the requests that arrived in it. Recovery is
//!   at the first tick `s`, at or after the end of the trigger, from which every window
//!   of `W` ticks that starts at or after `s` and ends by the horizon is good; the
//!   recovery time is the start of `s` minus the end of the trigger. There is none
//!   ("never") when the last window before the horizon is not good, or when less than
//!   one window fits after the trigger.

use super::scenario::{Process, Scenario};
use super::units::Micros;

/// The first tick that starts at or after the end of the trigger (0 without one), at
/// most the number of ticks.
pub fn after_trigger(scenario: &Scenario) -> usize {
    let tick = scenario.server.tick.max(1);
    let from = scenario.trigger_end().map_or(0, |end| end.div_ceil(tick));
    from.min(scenario.ticks()) as usize
}

/// The offered load, in thousandths of a request per second, over the same stretch as
/// goodput: from the end of the trigger to the horizon. An evenly spaced window offers
/// the requests it makes there; a Poisson one its rate over the part of it there (its
/// mean: a run's count varies about it).
pub fn offered_milli(scenario: &Scenario) -> u64 {
    let tick = scenario.server.tick.max(1);
    let from = after_trigger(scenario) as u64 * tick;
    let span = scenario.horizon.saturating_sub(from);
    if span == 0 {
        return 0;
    }
    // Requests times 10⁹ (thousandths per second times µs).
    let scaled: u128 = (scenario.arrivals.iter())
        .map(|a| match a.process {
            Process::Even => {
                let r = a.indices_in(from, scenario.horizon);
                u128::from(r.end - r.start) * 1_000_000_000
            }
            Process::Poisson => {
                let within = a.to.min(scenario.horizon).saturating_sub(a.from.max(from));
                u128::from(a.rate_milli) * u128::from(within)
            }
        })
        .sum();
    (scaled / u128::from(span)) as u64
}

/// Calls per second, in thousandths, over ticks of `tick` µs.
pub fn per_second_milli(per_tick: &[u32], tick: Micros) -> u64 {
    let span = per_tick.len() as u128 * u128::from(tick);
    if span == 0 {
        return 0;
    }
    let calls: u128 = per_tick.iter().map(|&c| u128::from(c)).sum();
    (calls * 1_000_000_000 / span) as u64
}

/// The recovery tick (see the module docs): the first tick `s >= from` from which every
/// window of `window` ticks up to the end is good, or `None`.
pub fn recovery_tick(served: &[u32], offered: &[u32], from: usize, window: usize) -> Option<usize> {
    let n = served.len().min(offered.len());
    if window == 0 || n < window || from > n - window {
        return None;
    }
    let sum = |v: &[u32]| v.iter().map(|&c| u64::from(c)).sum::<u64>();
    let mut s = sum(&served[n - window..n]);
    let mut o = sum(&offered[n - window..n]);
    let mut j = n - window;
    loop {
        if 20 * s < 19 * o {
            return (j < n - window).then_some(j + 1);
        }
        if j == from {
            return Some(from);
        }
        j -= 1;
        s = s + u64::from(served[j]) - u64::from(served[j + window]);
        o = o + u64::from(offered[j]) - u64::from(offered[j + window]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_is_the_first_tick_from_which_every_window_is_good() {
        let offered = [10; 10];
        // Bad windows until tick 4; good from window [5, 7).
        let served = [0, 0, 0, 0, 0, 10, 10, 10, 10, 10];
        assert_eq!(recovery_tick(&served, &offered, 0, 2), Some(5));
        assert_eq!(recovery_tick(&served, &offered, 7, 2), Some(7));
        // 95% exactly is good; below it is not.
        let served = [19, 19, 19, 19];
        assert_eq!(recovery_tick(&served, &[20; 4], 0, 2), Some(0));
        let served = [19, 18, 19, 19];
        assert_eq!(recovery_tick(&served, &[20; 4], 0, 2), Some(2));
        // The last window bad: never.
        assert_eq!(recovery_tick(&[10, 10, 0], &[10; 3], 0, 2), None);
        // Less than a window after the trigger: never.
        assert_eq!(recovery_tick(&[10; 3], &[10; 3], 2, 2), None);
    }

    #[test]
    fn per_second_rates_are_exact() {
        assert_eq!(per_second_milli(&[8, 8, 8], 100_000), 80_000);
        assert_eq!(per_second_milli(&[1, 0, 0], 100_000), 3_333);
        assert_eq!(per_second_milli(&[], 100_000), 0);
    }
}
