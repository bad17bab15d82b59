//! Every kind of mistake in a scenario, with the exact text the author sees.

use crate::util::errors;

#[track_caller]
fn check(yaml: &str, expected: &str) {
    let actual = errors(yaml);
    assert_eq!(actual, expected.trim_matches('\n'), "\n{actual}\n");
}

#[test]
fn unknown_key_suggests_the_nearest() {
    // One mistake, one error: the misspelt key is not also a missing one.
    check(
        "id: a\nclinets: 100\n",
        r"
error: unknown key `clinets`
 --> s.yaml:2:1
  |
2 | clinets: 100
  | ^^^^^^^
  = help: did you mean `clients`?
",
    );
}

#[test]
fn a_missing_key_with_no_misspelling_of_it_is_still_reported() {
    check(
        "id: a\nstrategies: [fixed]\n",
        r"
error: missing key `clients`
 --> s.yaml:1:1
  |
1 | id: a
  | ^
  = help: add `clients:`, how many clients call at once
",
    );
    // A misspelt nested key that is required: the queue's `limit`.
    let text = errors("id: a\nclients: 5\nserver: {queue: {limt: 5}}\n");
    assert!(
        text.contains("unknown key `server.queue.limt`") || text.contains("unknown key `limt`"),
        "{text}"
    );
    assert!(!text.contains("missing key"), "{text}");
}

#[test]
fn unknown_nested_key_without_a_near_match_lists_the_keys() {
    check(
        "id: a\nclients: 1\nserver:\n  speed: 3\n",
        r"
error: unknown key `server.speed`
 --> s.yaml:4:3
  |
4 |   speed: 3
  |   ^^^^^
  = help: the keys here are: model, capacity, tick, rejection_cost, outages, retry_after, pushback, cache, queue, slowdowns, replicas, balancer, overrides
",
    );
}

#[test]
fn wrong_types_say_what_was_expected() {
    check(
        "id: a\nclients: many\nruns: [1, 2]\nserver: 10\n",
        r"
error: `clients` must be a whole number, found `many`
 --> s.yaml:2:10
  |
2 | clients: many
  |          ^^^^

error: `runs` must be a single value, found a list
 --> s.yaml:3:7
  |
3 | runs: [1, 2]
  |       ^

error: `server` must be a map of keys, found `10`
 --> s.yaml:4:9
  |
4 | server: 10
  |         ^^
",
    );
}

#[test]
fn unknown_strategy_and_model_name_the_valid_ones() {
    check(
        "id: a\nclients: 1\nserver: {model: all-or-none}\nstrategies: [fixed, full-jiter, linear]\n",
        r"
error: unknown server model `all-or-none`
 --> s.yaml:3:17
  |
3 | server: {model: all-or-none}
  |                 ^^^^^^^^^^^
  = help: did you mean `all-or-nothing`?

error: unknown strategy `full-jiter`
 --> s.yaml:4:21
  |
4 | strategies: [fixed, full-jiter, linear]
  |                     ^^^^^^^^^^
  = help: did you mean `full-jitter`?

error: unknown strategy `linear`
 --> s.yaml:4:33
  |
4 | strategies: [fixed, full-jiter, linear]
  |                                 ^^^^^^
  = help: the strategies are: fixed, exponential, full-jitter, equal-jitter, decorrelated-jitter, proportional-jitter, aws-standard, aws-legacy, google-cloud, python-backoff, urllib3, tenacity, polly, resilience4j, spring-retry, spring-retryable, go-backoff
",
    );
}

#[test]
fn malformed_durations() {
    check(
        "id: a\nclients: 1\nhorizon: 2 minutes\nspread: 100\nretry: {base: 0.5us}\n",
        r"
error: `horizon` must be a duration like 250ms, 1.5s or 2m, found `2 minutes`
 --> s.yaml:3:10
  |
3 | horizon: 2 minutes
  |          ^^^^^^^^^

error: `spread` needs a unit, found `100`
 --> s.yaml:4:9
  |
4 | spread: 100
  |         ^^^
  = help: write `100ms` or `100s`; the units are us, ms, s, m, h

error: `retry.base` is finer than a microsecond: `0.5us`
 --> s.yaml:5:15
  |
5 | retry: {base: 0.5us}
  |               ^^^^^
",
    );
}

#[test]
fn impossible_values() {
    check(
        "id: a\nclients: 0\nserver:\n  tick: 0s\n  capacity: -5\n  rejection_cost: 1.5\n",
        r"
error: `clients` must be at least 1, found 0
 --> s.yaml:2:10
  |
2 | clients: 0
  |          ^

error: `server.tick` must be longer than 0s
 --> s.yaml:4:9
  |
4 |   tick: 0s
  |         ^^

error: `server.capacity` cannot be negative, found -5
 --> s.yaml:5:13
  |
5 |   capacity: -5
  |             ^^

error: `server.rejection_cost` is 1.5; the most it can be is 1
 --> s.yaml:6:19
  |
6 |   rejection_cost: 1.5
  |                   ^^^
",
    );
}

#[test]
fn cap_below_base() {
    check(
        "id: a\nclients: 1\nretry:\n  base: 1s\n  cap: 500ms\n",
        r"
error: `retry.cap` (500ms) is below `retry.base` (1s)
 --> s.yaml:5:8
  |
5 |   cap: 500ms
  |        ^^^^^
  = help: the cap is the longest wait, so it must be at least the base
",
    );
}

#[test]
fn horizon_shorter_than_a_tick_or_not_a_whole_number_of_them() {
    check(
        "id: a\nclients: 1\nhorizon: 50ms\n",
        r"
error: `horizon` (50ms) is shorter than one tick (100ms)
 --> s.yaml:3:10
  |
3 | horizon: 50ms
  |          ^^^^
",
    );
    check(
        "id: a\nclients: 1\nhorizon: 2.05s\n",
        r"
error: `horizon` (2.05s) is not a whole number of ticks (100ms each)
 --> s.yaml:3:10
  |
3 | horizon: 2.05s
  |          ^^^^^
  = help: try 2s or 2.1s
",
    );
}

#[test]
fn sizes_beyond_the_limits_are_refused_before_running() {
    check(
        "id: a\nclients: 20000000\n",
        r"
error: `clients` is 20,000,000; the limit is 10,000,000
 --> s.yaml:2:10
  |
2 | clients: 20000000
  |          ^^^^^^^^
",
    );
    check(
        "id: a\nclients: 10000000\nruns: 100\n",
        r"
error: this scenario needs at least 5,000,600,000 steps of simulation (each tick, and the first call of each client, in every run of every strategy); the limit is 500,000,000
 --> s.yaml:2:10
  |
2 | clients: 10000000
  |          ^^^^^^^^
  = help: use fewer clients, runs or strategies, a shorter horizon or a longer tick
",
    );
    check(
        "id: a\nclients: 1\nhorizon: 2h\n",
        r"
error: `horizon` is 2h; the limit is 1h
 --> s.yaml:3:10
  |
3 | horizon: 2h
  |          ^^
",
    );
}

#[test]
fn yaml_syntax_errors_point_at_the_fault() {
    check(
        "id: a\nclients: [1, 2\nruns: 3\n",
        r"
error: a `:` cannot stand here (is a list or map above it left open?)
 --> s.yaml:3:5
  |
3 | runs: 3
  |     ^
",
    );
}

#[test]
fn an_empty_scenario_and_a_duplicate_key() {
    check(
        "",
        r"
error: the scenario is empty
 --> s.yaml:1:1
  |
1 |
  | ^
  = help: a scenario needs at least `id` and `clients`
",
    );
    check(
        "id: a\nclients: 1\nclients: 2\n",
        r"
error: `clients` is given twice
 --> s.yaml:3:1
  |
3 | clients: 2
  | ^^^^^^^
",
    );
}

#[test]
fn keys_beyond_backoff_say_what_is_wrong() {
    check(
        "id: a\nclients: 1\nserver:\n  retry_after: {hint: 0s, when: busy}\n\
         retry: {honor_retry_after: yes}\n",
        r"
error: `server.retry_after.hint` must be longer than 0s
 --> s.yaml:4:23
  |
4 |   retry_after: {hint: 0s, when: busy}
  |                       ^^

error: unknown hint rule `busy`
 --> s.yaml:4:33
  |
4 |   retry_after: {hint: 0s, when: busy}
  |                                 ^^^^
  = help: the choices are: always, overloaded, down

error: `retry.honor_retry_after` must be true or false, found `yes`
 --> s.yaml:5:28
  |
5 | retry: {honor_retry_after: yes}
  |                            ^^^
",
    );
}

#[test]
fn budgets_are_named_and_take_only_their_own_settings() {
    check(
        "id: a\nclients: 1\nretry:\n  budget: grcp\n",
        r"
error: unknown retry budget `grcp`
 --> s.yaml:4:11
  |
4 |   budget: grcp
  |           ^^^^
  = help: did you mean `grpc`?
",
    );
    check(
        "id: a\nclients: 1\nretry:\n  budget: {kind: grpc, ttl: 5s}\n",
        r"
error: `retry.budget.ttl` is not a setting of the `grpc` budget
 --> s.yaml:4:24
  |
4 |   budget: {kind: grpc, ttl: 5s}
  |                        ^^^
  = help: the grpc budget takes: max_tokens, token_ratio
",
    );
    check(
        "id: a\nclients: 1\nretry:\n  budget: {max_tokens: 3}\n",
        r"
error: missing key `kind`
 --> s.yaml:4:12
  |
4 |   budget: {max_tokens: 3}
  |            ^
  = help: add `kind:`, the budget to follow: grpc, finagle or aws
",
    );
}

#[test]
fn a_breaker_window_must_hold_its_minimum_calls() {
    check(
        "id: a\nclients: 1\nretry:\n  breaker: {window: 10}\n",
        r"
error: `retry.breaker.minimum_calls` (20) is more than `retry.breaker.window` (10)
 --> s.yaml:4:21
  |
4 |   breaker: {window: 10}
  |                     ^^
  = help: the window never holds more calls than its size
",
    );
}

#[test]
fn arrivals_stay_within_the_horizon_and_the_client_limit() {
    check(
        "id: a\nhorizon: 1m\narrivals:\n  - {rate: 10, to: 2m}\n",
        r"
error: `arrivals.to` (2m) is after the horizon (1m)
 --> s.yaml:4:20
  |
4 |   - {rate: 10, to: 2m}
  |                    ^^
  = help: no request is made after the horizon; end the window there
",
    );
    check(
        "id: a\narrivals: {rate: 100000, from: 10s, to: 5s}\n",
        r"
error: arrivals must end after they start: `to` (5s) is not after `from` (10s)
 --> s.yaml:2:41
  |
2 | arrivals: {rate: 100000, from: 10s, to: 5s}
  |                                         ^^
",
    );
    check(
        "id: a\nclients: 0\narrivals: {rate: 0}\n",
        r"
error: `arrivals.rate` must be more than 0
 --> s.yaml:3:18
  |
3 | arrivals: {rate: 0}
  |                  ^
",
    );
    check(
        "id: a\nclients: 9000000\nretry: {max_attempts: 1}\narrivals: {rate: 10000}\n",
        r"
error: the crowd and the arrivals make 10,200,000 clients; the limit is 10,000,000
 --> s.yaml:4:12
  |
4 | arrivals: {rate: 10000}
  |            ^
  = help: use a lower rate, a shorter window or fewer clients
",
    );
}

#[test]
fn layers_replace_the_attempt_limit() {
    check(
        "id: a\nclients: 1\nretry: {max_attempts: 3}\nlayers: [{attempts: 4}, {attempts: 2}]\n",
        r"
error: `layers` and `retry.max_attempts` cannot be used together
 --> s.yaml:4:9
  |
4 | layers: [{attempts: 4}, {attempts: 2}]
  |         ^
  = help: with layers, each layer's `attempts` is its limit
",
    );
    check(
        "id: a\nclients: 1\nlayers: [{attempts: 4}, {attempts: 2, strategy: linear}]\n",
        r"
error: unknown strategy `linear`
 --> s.yaml:3:49
  |
3 | layers: [{attempts: 4}, {attempts: 2, strategy: linear}]
  |                                                 ^^^^^^
  = help: the strategies are: fixed, exponential, full-jitter, equal-jitter, decorrelated-jitter, proportional-jitter
",
    );
}

#[test]
fn a_quoted_number_is_called_a_quoted_string() {
    check(
        "id: a\nclients: \"10\"\nserver: {capacity: '2.5'}\n",
        r#"
error: `clients` must be a whole number, found the quoted string "10"
 --> s.yaml:2:10
  |
2 | clients: "10"
  |          ^^^^
  = help: remove the quotes: in quotes, `10` is text, not a number

error: `server.capacity` must be a number, found the quoted string "2.5"
 --> s.yaml:3:20
  |
3 | server: {capacity: '2.5'}
  |                    ^^^^^
  = help: remove the quotes: in quotes, `2.5` is text, not a number
"#,
    );
    check(
        "id: a\nclients: \"ten\"\n",
        r#"
error: `clients` must be a whole number, found the quoted string "ten"
 --> s.yaml:2:10
  |
2 | clients: "ten"
  |          ^^^^^
"#,
    );
}

#[test]
fn a_byte_order_mark_before_a_scenario_is_skipped() {
    check(
        "\u{feff}id: a b\nclients: 1\n",
        r"
error: `id` may hold only letters, digits, `-` and `_`, found `a b`
 --> s.yaml:1:5
  |
1 | id: a b
  |     ^^^
",
    );
    crate::util::scenario("\u{feff}clients: 1\n");
}

#[test]
fn a_mistake_repeated_many_times_is_reported_fifty_times() {
    let names = vec!["linear"; 1_000].join(", ");
    let actual = errors(&format!("id: a\nclients: 1\nstrategies: [{names}]\n"));
    assert_eq!(
        actual.matches("error: unknown strategy `linear`").count(),
        50
    );
    let last = actual.rsplit("\n\n").next().unwrap();
    assert_eq!(
        last,
        "error: 950 more mistakes in this scenario, from here on, not shown
 --> s.yaml:3:414
  |
3 | …linear, linear, linear, linear, linear, linear, linear, linear, linear, linear, linear, linear, line…
  |                                          ^
  = help: fix the ones above, then check again"
    );
}
