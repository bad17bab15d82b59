//! The schedule directive, read: the waits of a policy, attempt by attempt, for a few
//! strategies, drawn by [`crate::chart::schedule`].

use crate::engine::Strategy;
use crate::engine::scenario::Retry;

/// A schedule, read.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleDirective {
    /// Its id.
    pub id: String,
    /// The strategies.
    pub strategies: Vec<Strategy>,
    /// The parameters, as a scenario's `retry`.
    pub retry: Retry,
    /// How many waits.
    pub waits: u32,
    /// The seed.
    pub seed: u64,
    /// The author's caption.
    pub caption: Option<String>,
}
