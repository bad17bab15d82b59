//! The server: how many of a tick's calls it serves.
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

    /// Decides one tick: given its `arrivals` and whether the server is down, returns
    /// how many are served, and remembers what the rejections cost the next tick.
    pub fn serve(&mut self, arrivals: u64, down: bool) -> u64 {
        if down {
            // Rejections while down cost nothing, and the next tick starts afresh.
            self.owed_rejections = 0;
            return 0;
        }
        let capacity = self.server.capacity_milli;
        match self.server.model {
            ServerModel::Capacity => {
                let owed = self
                    .server
                    .rejection_cost_milli
                    .saturating_mul(self.owed_rejections);
                let budget = capacity.saturating_sub(owed) / 1000;
                let served = arrivals.min(budget);
                self.owed_rejections = arrivals - served;
                served
            }
            ServerModel::AllOrNothing => {
                if arrivals.saturating_mul(1000) <= capacity {
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
        assert_eq!(state.serve(40, false), 10);
        // 30 rejected at 0.1 each: the budget is exactly 10 - 3 = 7, not 6.
        assert_eq!(state.serve(100, false), 7);
        // 93 rejected: 10 - 9.3 = 0.7, floored to 0.
        assert_eq!(state.serve(5, false), 0);
        // 5 rejected: 10 - 0.5 = 9.5, floored to 9.
        assert_eq!(state.serve(20, false), 9);
    }

    #[test]
    fn all_or_nothing_chokes_above_capacity() {
        let mut server = Scenario::with_clients("t", 1).server;
        server.model = ServerModel::AllOrNothing;
        let mut state = ServerState::new(&server);
        assert_eq!(state.serve(10, false), 10);
        assert_eq!(state.serve(11, false), 0);
        assert_eq!(state.serve(3, false), 3);
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
        assert_eq!(state.serve(100, true), 0);
        assert_eq!(state.serve(100, false), 10);
    }
}
