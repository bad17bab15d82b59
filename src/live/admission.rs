//! The live server's rule for one tick: how many of the calls that arrived in it are
//! served, and what the others are told. Pure, and the engine's own arithmetic:
//! [`ServerState`] decides, exactly as in a simulated run (capacity, the rejections'
//! cost paid out of the next tick, slowdowns, outages, all-or-nothing), and the hint is
//! the scenario's `server.retry_after` where it applies.

use crate::engine::scenario::Server;
use crate::engine::server::ServerState;
use crate::engine::units::Micros;

/// What the server answers the calls of one tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// How many of them are served (which ones is chosen at random by the caller).
    pub served: u64,
    /// Whether the server is down in the tick (an outage: the others get 503, not 429).
    pub down: bool,
    /// The Retry-After hint the rejections carry, if the scenario gives one.
    pub hint: Option<Micros>,
}

/// The server's state from tick to tick.
#[derive(Clone, Debug)]
pub struct Admission<'a> {
    server: &'a Server,
    state: ServerState<'a>,
}

impl<'a> Admission<'a> {
    /// A server at rest.
    pub fn new(server: &'a Server) -> Admission<'a> {
        Admission {
            server,
            state: ServerState::new(server),
        }
    }

    /// Decides tick `k`, in which `arrivals` calls arrived. Ticks must be decided in
    /// order, each once (an empty tick too: it pays the last one's rejections).
    pub fn decide(&mut self, k: u64, arrivals: u64) -> Verdict {
        let start = k * self.server.tick;
        let down = self.state.is_down(start);
        let served = self.state.serve(start, arrivals, down);
        let hint = self.hint(down);
        Verdict { served, down, hint }
    }

    /// Whether the server is down in tick `k`.
    pub fn is_down(&self, k: u64) -> bool {
        self.state.is_down(k * self.server.tick)
    }

    /// The Retry-After hint of a rejection in a tick that is `down` or not, if the
    /// scenario gives one there.
    pub fn hint(&self, down: bool) -> Option<Micros> {
        self.server
            .retry_after
            .filter(|r| r.applies(down))
            .map(|r| r.hint)
    }

    /// With a queue: the calls tick `k` serves out of the queue, the capacity less what
    /// the last tick's rejections cost (0 while down); then `turned_away`, the calls
    /// refused in tick `k` for a full queue or while down, are owed to the next tick.
    /// Ticks must be decided in order, each once.
    pub fn serve_queue(&mut self, k: u64, turned_away: u64) -> u64 {
        let down = self.is_down(k);
        let budget = self.state.budget(k * self.server.tick, down);
        self.state.rejected(turned_away, down);
        budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Strategy, parse_scenario, simulate};

    /// The live rule, given the arrivals of each tick of a simulated run, serves what
    /// the engine served in that tick, to the call.
    #[test]
    fn the_live_rule_serves_what_the_engine_served_tick_by_tick() {
        let scenarios = [
            "clients: 100\nhorizon: 30s\n",
            "clients: 100\nhorizon: 30s\nserver: {capacity: 5}\n",
            "clients: 300\nhorizon: 20s\nserver: {capacity: 7.5, rejection_cost: 0.35, \
             outages: [{from: 0s, to: 3s}, {from: 5s, to: 5.5s}]}\n",
            "clients: 30\nhorizon: 1m\nserver: {model: all-or-nothing, capacity: 10, tick: 1s}\n\
             retry: {base: 1s, max_attempts: 6}\n",
            "clients: 200\nspread: 2s\nhorizon: 30s\nserver: {capacity: 12, \
             slowdowns: [{from: 1s, to: 4s, capacity: 3}]}\n",
            "clients: 80\nhorizon: 30s\nserver: {capacity: 10, \
             retry_after: {hint: 1s, when: overloaded}}\n",
        ];
        let mut ticks = 0;
        for yaml in scenarios {
            let scenario = parse_scenario(yaml, Some("t")).expect("a valid scenario");
            for strategy in Strategy::ALL {
                let run = simulate(&scenario, strategy, 3, true);
                let lanes = run.lanes.expect("lanes were asked for");
                let mut admission = Admission::new(&scenario.server);
                for (k, (&served, &rejected)) in
                    lanes.served.iter().zip(&lanes.rejected).enumerate()
                {
                    let verdict = admission.decide(k as u64, u64::from(served + rejected));
                    assert_eq!(
                        verdict.served,
                        u64::from(served),
                        "{yaml} {strategy:?} tick {k}"
                    );
                    ticks += 1;
                }
            }
        }
        assert!(ticks > 8_000, "{ticks}");
    }

    #[test]
    fn rejections_carry_the_hint_only_where_the_scenario_says() {
        let yaml = "clients: 1\nserver: {capacity: 1, outages: [{from: 0s, to: 200ms}], \
                    retry_after: {hint: 2s, when: down}}\n";
        let scenario = parse_scenario(yaml, Some("t")).expect("a valid scenario");
        let mut admission = Admission::new(&scenario.server);
        let down = admission.decide(0, 3);
        assert_eq!(
            (down.served, down.down, down.hint),
            (0, true, Some(2_000_000))
        );
        admission.decide(1, 0);
        let up = admission.decide(2, 3);
        assert_eq!((up.served, up.down, up.hint), (1, false, None));
        // Two rejections at 0.1 cost a fifth of a call: the budget is floor(0.8) = 0.
        assert_eq!(admission.decide(3, 1).served, 0);
    }

    #[test]
    fn a_queued_tick_serves_its_budget_and_owes_its_refusals_to_the_next() {
        let yaml = "clients: 1\nserver: {capacity: 10, rejection_cost: 0.1, \
                    outages: [{from: 300ms, to: 400ms}], queue: {limit: 5}}\n";
        let scenario = parse_scenario(yaml, Some("t")).expect("a valid scenario");
        let mut admission = Admission::new(&scenario.server);
        // Nothing owed: the whole capacity; 30 refusals at 0.1 cost 3 calls next tick.
        assert_eq!(admission.serve_queue(0, 30), 10);
        assert_eq!(admission.serve_queue(1, 5), 7);
        // 5 refusals: 10 - 0.5 = 9.5, floored to 9.
        assert_eq!(admission.serve_queue(2, 0), 9);
        // Down: nothing served, and refusals while down cost nothing.
        assert!(admission.is_down(3));
        assert_eq!(admission.serve_queue(3, 40), 0);
        assert_eq!(admission.serve_queue(4, 0), 10);
    }
}
