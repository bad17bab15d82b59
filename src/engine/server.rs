//! The server: how many of a tick's calls it serves.
//!
//! **Slowdowns.** `server.slowdowns: [{from, to, capacity}]`: a tick whose start lies in
//! a slowdown's `[from, to)` has that capacity instead of the server's (the first such
//! slowdown in the author's order, when several hold the tick), in both models; in the
//! `capacity` model the rejections of the previous tick are paid out of it as usual. An
//! outage holds over a slowdown: while down, nothing is served.
//!
//! All arithmetic is in integer thousandths of a call, so that ten rejections at a cost of
//! 0.1 cost exactly one call, never 1.0000000000000002.

use super::scenario::{Server, ServerModel};
use super::units::Micros;

/// The server during one run: its setup and what the last tick's rejections cost.
#[derive(Clone, Debug)]
pub struct ServerState<'a> {
    server: &'a Server,
    /// Rejections of the previous tick that are still to be paid for.
    owed_rejections: u64,
}

impl<'a> ServerState<'a> {
    /// A server at rest: nothing owed.
    pub fn new(server: &'a Server) -> ServerState<'a> {
        ServerState {
            server,
            owed_rejections: 0,
        }
    }

    /// Whether the server is down in the tick that starts at `start`: a tick is down
    /// when its start lies in an outage's `[from, to)`.
    pub fn is_down(&self, start: Micros) -> bool {
        self.server
            .outages
            .iter()
            .any(|o| o.from <= start && start < o.to)
    }

    /// The capacity of the tick that starts at `start`, in thousandths of a call.
    #[inline]
    pub fn capacity_at(&self, start: Micros) -> u64 {
        self.server
            .slowdowns
            .iter()
            .find(|s| s.from <= start && start < s.to)
            .map_or(self.server.capacity_milli, |s| s.capacity_milli)
    }

    /// The calls the `capacity` model can serve in the tick that starts at `start`:
    /// its capacity less what the previous tick's rejections cost; 0 while down.
    pub fn budget(&self, start: Micros, down: bool) -> u64 {
        if down {
            return 0;
        }
        let owed = self
            .server
            .rejection_cost_milli
            .saturating_mul(self.owed_rejections);
        self.capacity_at(start).saturating_sub(owed) / 1000
    }

    /// Records the tick's `rejected` calls, to be paid for in the next tick (nothing
    /// when the server is down: the next tick starts afresh).
    pub fn rejected(&mut self, rejected: u64, down: bool) {
        self.owed_rejections = if down { 0 } else { rejected };
    }

    /// Decides one tick that starts at `start`: given its `arrivals` and whether the
    /// server is down, returns how many are served, and remembers what the rejections
    /// cost the next tick.
    pub fn serve(&mut self, start: Micros, arrivals: u64, down: bool) -> u64 {
        if down {
            // Rejections while down cost nothing, and the next tick starts afresh.
            self.owed_rejections = 0;
            return 0;
        }
        match self.server.model {
            ServerModel::Capacity => {
                let served = arrivals.min(self.budget(start, down));
                self.owed_rejections = arrivals - served;
                served
            }
            ServerModel::AllOrNothing => {
                if arrivals.saturating_mul(1000) <= self.capacity_at(start) {
                    arrivals
                } else {
                    0
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::scenario::{Outage, Scenario};

    #[test]
    fn thirty_rejections_at_a_tenth_cost_exactly_three_calls() {
        let server = Scenario::with_clients("t", 1).server;
        let mut state = ServerState::new(&server);
        assert_eq!(state.serve(0, 40, false), 10);
        // 30 rejected at 0.1 each: the budget is exactly 10 - 3 = 7, not 6.
        assert_eq!(state.serve(0, 100, false), 7);
        // 93 rejected: 10 - 9.3 = 0.7, floored to 0.
        assert_eq!(state.serve(0, 5, false), 0);
        // 5 rejected: 10 - 0.5 = 9.5, floored to 9.
        assert_eq!(state.serve(0, 20, false), 9);
    }

    #[test]
    fn all_or_nothing_chokes_above_capacity() {
        let mut server = Scenario::with_clients("t", 1).server;
        server.model = ServerModel::AllOrNothing;
        let mut state = ServerState::new(&server);
        assert_eq!(state.serve(0, 10, false), 10);
        assert_eq!(state.serve(0, 11, false), 0);
        assert_eq!(state.serve(0, 3, false), 3);
    }

    #[test]
    fn an_outage_rejects_everything_for_free() {
        let mut server = Scenario::with_clients("t", 1).server;
        server.outages = vec![Outage {
            from: 0,
            to: 300_000,
        }];
        let mut state = ServerState::new(&server);
        assert!(state.is_down(0) && state.is_down(200_000) && !state.is_down(300_000));
        assert_eq!(state.serve(0, 100, true), 0);
        assert_eq!(state.serve(0, 100, false), 10);
    }
}
