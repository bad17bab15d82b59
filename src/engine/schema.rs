//! The scenario format as data: every key, its type, default and meaning.
//!
//! The parser takes its lists of known keys from this table, and the authors' reference
//! is written from it, so the documentation cannot drift from what is accepted.

/// Where in a scenario a key lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// The top level of the scenario.
    Top,
    /// Under `server:`.
    Server,
    /// Each entry of `server.outages`.
    Outage,
    /// Under `retry:`.
    Retry,
    /// Under `figure:`: how an article draws the scenario. The engine ignores it.
    Figure,
}

impl Section {
    /// The dotted prefix used in messages (`server.`), empty at the top.
    pub fn prefix(self) -> &'static str {
        match self {
            Section::Top => "",
            Section::Server => "server.",
            Section::Outage => "server.outages[].",
            Section::Retry => "retry.",
            Section::Figure => "figure.",
        }
    }
}

/// One documented key.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// Where it lives.
    pub section: Section,
    /// Its name.
    pub name: &'static str,
    /// Its type, as an author writes it.
    pub kind: &'static str,
    /// Its default, or "required".
    pub default: &'static str,
    /// What it means.
    pub meaning: &'static str,
}

/// Every key of the scenario format.
pub const KEYS: &[Key] = &[
    Key {
        section: Section::Top,
        name: "id",
        kind: "name (letters, digits, `-`, `_`)",
        default: "required in an article; the file name for `retrylab sim`",
        meaning: "What the prose and other directives call this scenario.",
    },
    Key {
        section: Section::Top,
        name: "clients",
        kind: "whole number, 1 to 10,000,000",
        default: "required",
        meaning: "How many clients make their first call together (the closed crowd).",
    },
    Key {
        section: Section::Top,
        name: "spread",
        kind: "duration",
        default: "0s",
        meaning: "Each client's first call is at a uniformly random time in [0, spread).",
    },
    Key {
        section: Section::Top,
        name: "horizon",
        kind: "duration, a whole number of ticks, at most 1h",
        default: "2m",
        meaning: "How long the simulation runs; no call is made at or after it.",
    },
    Key {
        section: Section::Top,
        name: "server",
        kind: "map",
        default: "the defaults of its keys",
        meaning: "The server the clients call.",
    },
    Key {
        section: Section::Top,
        name: "retry",
        kind: "map",
        default: "the defaults of its keys",
        meaning: "The parameters every strategy shares.",
    },
    Key {
        section: Section::Top,
        name: "figure",
        kind: "map",
        default: "the defaults of its keys",
        meaning: "How an article draws the scenario; `retrylab sim` ignores it.",
    },
    Key {
        section: Section::Top,
        name: "sweep",
        kind: "map",
        default: "none",
        meaning: "In a `sweep` directive: the parameter to vary, its values and the total \
                  to chart; `retrylab sim` ignores it.",
    },
    Key {
        section: Section::Top,
        name: "strategies",
        kind: "list of strategy names",
        default: "all five",
        meaning: "The strategies to compare, each one a lane: fixed, exponential, \
                  full-jitter, equal-jitter, decorrelated-jitter.",
    },
    Key {
        section: Section::Top,
        name: "runs",
        kind: "whole number, 1 to 10,000",
        default: "1",
        meaning: "Monte Carlo runs per strategy, with seeds seed, seed+1, …",
    },
    Key {
        section: Section::Top,
        name: "seed",
        kind: "whole number",
        default: "1",
        meaning: "The seed of the first run.",
    },
    Key {
        section: Section::Server,
        name: "model",
        kind: "`capacity` or `all-or-nothing`",
        default: "capacity",
        meaning: "`capacity` serves up to its capacity and pays for rejections in the next \
                  tick; `all-or-nothing` rejects every call of a tick that brings more than \
                  its capacity.",
    },
    Key {
        section: Section::Server,
        name: "capacity",
        kind: "number, more than 0, at most three decimals",
        default: "10",
        meaning: "Calls the server can serve per tick.",
    },
    Key {
        section: Section::Server,
        name: "tick",
        kind: "duration, more than 0",
        default: "100ms",
        meaning: "The length of a tick: the server looks at each tick's calls together.",
    },
    Key {
        section: Section::Server,
        name: "rejection_cost",
        kind: "number from 0 to 1, at most three decimals",
        default: "0.1",
        meaning: "What turning a call away costs, as a share of serving one; paid out of \
                  the next tick (`capacity` model only).",
    },
    Key {
        section: Section::Server,
        name: "outages",
        kind: "list of `{from, to}`",
        default: "none",
        meaning: "Windows in which the server is down: every call is rejected at no cost.",
    },
    Key {
        section: Section::Outage,
        name: "from",
        kind: "duration",
        default: "required",
        meaning: "When the outage starts.",
    },
    Key {
        section: Section::Outage,
        name: "to",
        kind: "duration, after `from`",
        default: "required",
        meaning: "When the server is back; a tick is down when its start lies in [from, to).",
    },
    Key {
        section: Section::Retry,
        name: "base",
        kind: "duration",
        default: "100ms",
        meaning: "The first wait, and the wait of `fixed`.",
    },
    Key {
        section: Section::Retry,
        name: "cap",
        kind: "duration, at least `base`, at most 1h",
        default: "10s",
        meaning: "The longest wait.",
    },
    Key {
        section: Section::Retry,
        name: "multiplier",
        kind: "number from 1 to 100",
        default: "2",
        meaning: "How much the ceiling grows after each failure.",
    },
    Key {
        section: Section::Retry,
        name: "max_attempts",
        kind: "whole number, at least 1",
        default: "no limit",
        meaning: "Calls a client makes at most, counting the first; after the last failed \
                  one it gives up.",
    },
    Key {
        section: Section::Retry,
        name: "deadline",
        kind: "duration, more than 0",
        default: "none",
        meaning: "Time from a client's first call after which it sends nothing: it gives up \
                  instead of scheduling a retry that would be sent later.",
    },
    Key {
        section: Section::Figure,
        name: "window",
        kind: "duration, or `auto`",
        default: "auto",
        meaning: "The end of the time axis. `auto` ends shortly after the last lane is done, \
                  or at the horizon when a lane never finishes.",
    },
    Key {
        section: Section::Figure,
        name: "caption",
        kind: "text",
        default: "a generated one",
        meaning: "The caption under the chart.",
    },
];

/// The names of the keys of one section, in table order.
pub fn names(section: Section) -> impl Iterator<Item = &'static str> {
    KEYS.iter()
        .filter(move |k| k.section == section)
        .map(|k| k.name)
}
