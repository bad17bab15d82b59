//! The keys of the overload model (queue, slowdowns, timeout, throttling, proportional
//! jitter): what they read as, and the exact text of every mistake in them.

use retrylab::engine::policy::Strategy;
use retrylab::engine::scenario::{Queue, QueueOrder, Slowdown, Throttle};
use retrylab::engine::units::SECOND;

use crate::util::{errors, scenario};

#[track_caller]
fn check(yaml: &str, expected: &str) {
    let actual = errors(yaml);
    assert_eq!(actual, expected.trim_matches('\n'), "\n{actual}\n");
}

#[test]
fn every_key_of_the_overload_model_is_read() {
    let s = scenario(
        "clients: 5\n\
         server:\n\
         \x20 queue: {limit: 200, order: lifo, drop_expired: true}\n\
         \x20 slowdowns: [{from: 10s, to: 15s, capacity: 5.5}, {from: 20s, to: 21s, capacity: 0}]\n\
         retry:\n\
         \x20 timeout: 1.5s\n\
         \x20 throttle: {k: 1.25, window: 5s}\n\
         \x20 jitter: 0.35\n\
         strategies: [proportional-jitter, fixed]\n",
    );
    assert_eq!(
        s.server.queue,
        Some(Queue {
            limit: 200,
            order: QueueOrder::Lifo,
            drop_expired: true
        })
    );
    // Each capacity in thousandths, like `server.capacity`.
    assert_eq!(
        s.server.slowdowns,
        vec![
            Slowdown {
                from: 10 * SECOND,
                to: 15 * SECOND,
                capacity_milli: 5_500
            },
            Slowdown {
                from: 20 * SECOND,
                to: 21 * SECOND,
                capacity_milli: 0
            },
        ]
    );
    assert_eq!(s.retry.timeout, Some(1_500_000));
    assert_eq!(
        s.retry.throttle,
        Some(Throttle {
            k_milli: 1_250,
            window: 5 * SECOND
        })
    );
    assert_eq!(s.retry.jitter, 0.35);
    assert_eq!(
        s.strategies,
        vec![Strategy::ProportionalJitter, Strategy::Fixed]
    );
}

#[test]
fn the_overload_keys_default_to_nothing_and_a_jitter_of_a_fifth() {
    let s = scenario("clients: 5\n");
    assert_eq!(s.server.queue, None);
    assert!(s.server.slowdowns.is_empty());
    assert_eq!(s.retry.timeout, None);
    assert_eq!(s.retry.throttle, None);
    assert_eq!(s.retry.jitter, 0.2);
    // Naming no strategy compares the five classic ones, not proportional jitter.
    assert_eq!(s.strategies, Strategy::CLASSIC.to_vec());
}

#[test]
fn a_queue_takes_fifo_and_keeps_expired_calls_by_default_and_limit_zero_stays_a_queue() {
    let s = scenario("clients: 5\nserver: {queue: {limit: 0}}\n");
    // The engine reads a limit of 0 as no queue; the reader keeps what was written.
    assert_eq!(
        s.server.queue,
        Some(Queue {
            limit: 0,
            order: QueueOrder::Fifo,
            drop_expired: false
        })
    );
    let s = scenario("clients: 5\nserver: {queue: {limit: 10000000}}\n");
    assert_eq!(s.server.queue.map(|q| q.limit), Some(10_000_000));
}

#[test]
fn an_empty_throttle_takes_k_two_and_a_ten_second_window() {
    let s = scenario("clients: 5\nretry: {throttle: {}}\n");
    assert_eq!(
        s.retry.throttle,
        Some(Throttle {
            k_milli: 2_000,
            window: 10 * SECOND
        })
    );
    // At the bounds: the smallest k, a window of exactly one tick, of exactly 1h.
    let s = scenario("clients: 5\nretry: {throttle: {k: 0.001, window: 100ms}}\n");
    assert_eq!(
        s.retry.throttle,
        Some(Throttle {
            k_milli: 1,
            window: 100_000
        })
    );
    let s = scenario("clients: 5\nretry: {throttle: {k: 1000, window: 1h}}\n");
    assert_eq!(s.retry.throttle.map(|t| t.window), Some(3_600 * SECOND));
}

#[test]
fn a_timeout_of_exactly_two_ticks_or_one_hour_is_accepted() {
    let s = scenario("clients: 5\nserver: {tick: 250ms}\nretry: {timeout: 500ms}\n");
    assert_eq!(s.retry.timeout, Some(500_000));
    let s = scenario("clients: 5\nretry: {timeout: 1h}\n");
    assert_eq!(s.retry.timeout, Some(3_600 * SECOND));
}

#[test]
fn jitter_reads_at_its_bounds_and_without_proportional_jitter() {
    // Other strategies ignore the jitter: giving it is no mistake.
    let s = scenario("clients: 5\nretry: {jitter: 0}\nstrategies: [fixed]\n");
    assert_eq!(s.retry.jitter, 0.0);
    let s = scenario("clients: 5\nretry: {jitter: 1}\n");
    assert_eq!(s.retry.jitter, 1.0);
    let s = scenario("clients: 5\nretry: {jitter: 0.125}\n");
    assert_eq!(s.retry.jitter, 0.125);
}

#[test]
fn slowdowns_that_touch_do_not_overlap_and_outages_may_cross_them() {
    let s = scenario(
        "clients: 5\nserver:\n  slowdowns: [{from: 1s, to: 2s, capacity: 3}, {from: 2s, to: 3s, capacity: 1000000000}]\n  outages: [{from: 1s, to: 3s}]\n",
    );
    assert_eq!(s.server.slowdowns.len(), 2);
    assert_eq!(s.server.slowdowns[1].capacity_milli, 1_000_000_000_000);
}

#[test]
fn a_layer_may_use_proportional_jitter() {
    let s = scenario("clients: 5\nlayers: [{attempts: 2, strategy: proportional-jitter}]\n");
    assert_eq!(s.layers[0].strategy, Some(Strategy::ProportionalJitter));
}

#[test]
fn a_queue_is_a_map_not_a_number() {
    check(
        "id: a\nclients: 1\nserver: {queue: 5}\n",
        r"
error: `server.queue` must be a map of keys, found `5`
 --> s.yaml:3:17
  |
3 | server: {queue: 5}
  |                 ^
  = help: write `queue: {limit: 5}`
",
    );
}

#[test]
fn a_queue_needs_its_limit() {
    check(
        "id: a\nclients: 1\nserver:\n  queue: {order: lifo}\n",
        r"
error: missing key `limit`
 --> s.yaml:4:11
  |
4 |   queue: {order: lifo}
  |           ^
  = help: add `limit:`, the most calls the queue holds
",
    );
}

#[test]
fn a_queue_limit_is_a_whole_number_within_the_crowd_limit() {
    check(
        "id: a\nclients: 1\nserver:\n  queue: {limit: 10000001}\n",
        r"
error: `server.queue.limit` is 10,000,001; the limit is 10,000,000
 --> s.yaml:4:18
  |
4 |   queue: {limit: 10000001}
  |                  ^^^^^^^^
",
    );
}

#[test]
fn a_queue_limit_is_whole_and_unquoted() {
    check(
        "id: a\nclients: 1\nserver:\n  queue: {limit: \"200\"}\n",
        r#"
error: `server.queue.limit` must be a whole number, found the quoted string "200"
 --> s.yaml:4:18
  |
4 |   queue: {limit: "200"}
  |                  ^^^^^
  = help: remove the quotes: in quotes, `200` is text, not a number
"#,
    );
}

#[test]
fn a_queue_limit_is_not_negative() {
    check(
        "id: a\nclients: 1\nserver:\n  queue: {limit: -1}\n",
        r"
error: `server.queue.limit` must be a whole number, found `-1`
 --> s.yaml:4:18
  |
4 |   queue: {limit: -1}
  |                  ^^
",
    );
}

#[test]
fn a_queue_order_is_fifo_or_lifo() {
    check(
        "id: a\nclients: 1\nserver:\n  queue: {limit: 10, order: lifi}\n",
        r"
error: unknown queue order `lifi`
 --> s.yaml:4:29
  |
4 |   queue: {limit: 10, order: lifi}
  |                             ^^^^
  = help: did you mean `lifo`?
",
    );
}

#[test]
fn a_queue_order_far_from_any_lists_them() {
    check(
        "id: a\nclients: 1\nserver:\n  queue: {limit: 10, order: random}\n",
        r"
error: unknown queue order `random`
 --> s.yaml:4:29
  |
4 |   queue: {limit: 10, order: random}
  |                             ^^^^^^
  = help: the choices are: fifo, lifo
",
    );
}

#[test]
fn drop_expired_is_true_or_false() {
    check(
        "id: a\nclients: 1\nserver:\n  queue: {limit: 10, drop_expired: yes}\n",
        r"
error: `server.queue.drop_expired` must be true or false, found `yes`
 --> s.yaml:4:36
  |
4 |   queue: {limit: 10, drop_expired: yes}
  |                                    ^^^
",
    );
}

#[test]
fn an_unknown_queue_key_suggests_the_nearest() {
    check(
        "id: a\nclients: 1\nserver:\n  queue: {limit: 10, ordr: fifo}\n",
        r"
error: unknown key `server.queue.ordr`
 --> s.yaml:4:22
  |
4 |   queue: {limit: 10, ordr: fifo}
  |                      ^^^^
  = help: did you mean `order`?
",
    );
}

#[test]
fn a_queue_needs_the_capacity_model() {
    check(
        "id: a\nclients: 1\nserver:\n  model: all-or-nothing\n  queue: {limit: 10}\n",
        r"
error: a queue needs the capacity model
 --> s.yaml:5:3
  |
5 |   queue: {limit: 10}
  |   ^^^^^
  = help: `all-or-nothing` serves all of a tick's calls or none, holding none over: remove `queue` or use `model: capacity`
",
    );
}

#[test]
fn slowdowns_are_a_list() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns: {from: 1s, to: 2s, capacity: 5}\n",
        r"
error: `server.slowdowns` must be a list like [{from: 10s, to: 15s, capacity: 5}], found a map of keys
 --> s.yaml:4:15
  |
4 |   slowdowns: {from: 1s, to: 2s, capacity: 5}
  |               ^
",
    );
}

#[test]
fn an_empty_slowdown_names_its_keys() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns: [~]\n",
        r"
error: a slowdown needs `from`, `to` and `capacity`
 --> s.yaml:4:15
  |
4 |   slowdowns: [~]
  |               ^
",
    );
}

#[test]
fn a_slowdown_needs_from_to_and_capacity() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns: [{from: 1s}]\n",
        r"
error: missing key `to`
 --> s.yaml:4:16
  |
4 |   slowdowns: [{from: 1s}]
  |                ^
  = help: add `to:`, a duration

error: missing key `capacity`
 --> s.yaml:4:16
  |
4 |   slowdowns: [{from: 1s}]
  |                ^
  = help: add `capacity:`, calls the server can serve per tick during the slowdown
",
    );
}

#[test]
fn a_slowdown_must_end_after_it_starts() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns: [{from: 2s, to: 2s, capacity: 5}]\n",
        r"
error: a slowdown must end after it starts: `to` (2s) is not after `from` (2s)
 --> s.yaml:4:30
  |
4 |   slowdowns: [{from: 2s, to: 2s, capacity: 5}]
  |                              ^^
",
    );
}

#[test]
fn a_slowdown_capacity_has_at_most_three_decimals() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns: [{from: 1s, to: 2s, capacity: 2.5001}]\n",
        r"
error: `server.slowdowns[].capacity` may have at most three decimals, found 2.5001
 --> s.yaml:4:44
  |
4 |   slowdowns: [{from: 1s, to: 2s, capacity: 2.5001}]
  |                                            ^^^^^^
",
    );
}

#[test]
fn a_slowdown_capacity_is_at_most_the_capacity_limit() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns: [{from: 1s, to: 2s, capacity: 1000000001}]\n",
        r"
error: `server.slowdowns[].capacity` is 1000000001; the most it can be is 1000000000
 --> s.yaml:4:44
  |
4 |   slowdowns: [{from: 1s, to: 2s, capacity: 1000000001}]
  |                                            ^^^^^^^^^^
",
    );
}

#[test]
fn a_slowdown_capacity_is_not_negative() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns: [{from: 1s, to: 2s, capacity: -3}]\n",
        r"
error: `server.slowdowns[].capacity` cannot be negative, found -3
 --> s.yaml:4:44
  |
4 |   slowdowns: [{from: 1s, to: 2s, capacity: -3}]
  |                                            ^^
",
    );
}

#[test]
fn a_slowdown_capacity_is_a_number() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns: [{from: 1s, to: 2s, capacity: half}]\n",
        r"
error: `server.slowdowns[].capacity` must be a number, found `half`
 --> s.yaml:4:44
  |
4 |   slowdowns: [{from: 1s, to: 2s, capacity: half}]
  |                                            ^^^^
",
    );
}

#[test]
fn an_unknown_slowdown_key_suggests_the_nearest() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns: [{from: 1s, to: 2s, capcity: 5}]\n",
        r"
error: unknown key `server.slowdowns[].capcity`
 --> s.yaml:4:34
  |
4 |   slowdowns: [{from: 1s, to: 2s, capcity: 5}]
  |                                  ^^^^^^^
  = help: did you mean `capacity`?
",
    );
}

#[test]
fn slowdowns_are_in_order_of_time_and_do_not_overlap() {
    check(
        "id: a\nclients: 1\nserver:\n  slowdowns:\n    - {from: 10s, to: 20s, capacity: 5}\n    - {from: 15s, to: 25s, capacity: 1}\n    - {from: 30s, to: 40s, capacity: 2}\n    - {from: 0s, to: 5s, capacity: 2}\n",
        r"
error: this slowdown starts at 15s, before the one above it ends (20s)
 --> s.yaml:6:8
  |
6 |     - {from: 15s, to: 25s, capacity: 1}
  |        ^
  = help: list the slowdowns in order of time, each starting at or after the end of the one before: they may not overlap

error: this slowdown starts at 0s, before the one above it ends (40s)
 --> s.yaml:8:8
  |
8 |     - {from: 0s, to: 5s, capacity: 2}
  |        ^
  = help: list the slowdowns in order of time, each starting at or after the end of the one before: they may not overlap
",
    );
}

#[test]
fn a_timeout_is_at_least_two_ticks() {
    check(
        "id: a\nclients: 1\nretry:\n  timeout: 150ms\n",
        r"
error: `retry.timeout` (150ms) is shorter than two ticks (200ms)
 --> s.yaml:4:12
  |
4 |   timeout: 150ms
  |            ^^^^^
  = help: a call is answered at the end of its tick and may be seen a tick after it is sent, so a timeout must be at least two ticks
",
    );
}

#[test]
fn a_timeout_of_zero_is_shorter_than_two_ticks() {
    check(
        "id: a\nclients: 1\nserver: {tick: 1s}\nretry: {timeout: 0s}\n",
        r"
error: `retry.timeout` (0s) is shorter than two ticks (2s)
 --> s.yaml:4:18
  |
4 | retry: {timeout: 0s}
  |                  ^^
  = help: a call is answered at the end of its tick and may be seen a tick after it is sent, so a timeout must be at least two ticks
",
    );
}

#[test]
fn a_timeout_is_at_most_an_hour() {
    check(
        "id: a\nclients: 1\nretry:\n  timeout: 2h\n",
        r"
error: `retry.timeout` is 2h; the limit is 1h
 --> s.yaml:4:12
  |
4 |   timeout: 2h
  |            ^^
",
    );
}

#[test]
fn a_timeout_needs_a_unit() {
    check(
        "id: a\nclients: 1\nretry:\n  timeout: 500\n",
        r"
error: `retry.timeout` needs a unit, found `500`
 --> s.yaml:4:12
  |
4 |   timeout: 500
  |            ^^^
  = help: write `500ms` or `500s`; the units are us, ms, s, m, h
",
    );
}

#[test]
fn a_throttle_is_a_map() {
    check(
        "id: a\nclients: 1\nretry:\n  throttle: true\n",
        r"
error: `retry.throttle` must be a map of keys, found `true`
 --> s.yaml:4:13
  |
4 |   throttle: true
  |             ^^^^
",
    );
}

#[test]
fn throttle_k_is_more_than_zero() {
    check(
        "id: a\nclients: 1\nretry:\n  throttle: {k: 0}\n",
        r"
error: `retry.throttle.k` must be more than 0
 --> s.yaml:4:17
  |
4 |   throttle: {k: 0}
  |                 ^
",
    );
}

#[test]
fn throttle_k_has_at_most_three_decimals() {
    check(
        "id: a\nclients: 1\nretry:\n  throttle: {k: 1.2345}\n",
        r"
error: `retry.throttle.k` may have at most three decimals, found 1.2345
 --> s.yaml:4:17
  |
4 |   throttle: {k: 1.2345}
  |                 ^^^^^^
",
    );
}

#[test]
fn throttle_k_is_at_most_a_thousand() {
    check(
        "id: a\nclients: 1\nretry:\n  throttle: {k: 1000.001}\n",
        r"
error: `retry.throttle.k` is 1000.001; the most it can be is 1000
 --> s.yaml:4:17
  |
4 |   throttle: {k: 1000.001}
  |                 ^^^^^^^^
",
    );
}

#[test]
fn throttle_window_is_longer_than_zero() {
    check(
        "id: a\nclients: 1\nretry:\n  throttle: {window: 0s}\n",
        r"
error: `retry.throttle.window` must be longer than 0s
 --> s.yaml:4:22
  |
4 |   throttle: {window: 0s}
  |                      ^^
",
    );
}

#[test]
fn throttle_window_is_at_most_an_hour() {
    check(
        "id: a\nclients: 1\nretry:\n  throttle: {window: 61m}\n",
        r"
error: `retry.throttle.window` is 61m; the limit is 1h
 --> s.yaml:4:22
  |
4 |   throttle: {window: 61m}
  |                      ^^^
",
    );
}

#[test]
fn throttle_window_is_at_least_one_tick() {
    check(
        "id: a\nclients: 1\nretry:\n  throttle: {window: 50ms}\n",
        r"
error: `retry.throttle.window` (50ms) is shorter than one tick (100ms)
 --> s.yaml:4:22
  |
4 |   throttle: {window: 50ms}
  |                      ^^^^
  = help: use a window of at least 100ms
",
    );
}

#[test]
fn the_default_throttle_window_is_checked_against_the_tick() {
    check(
        "id: a\nclients: 1\nhorizon: 2m\nserver: {tick: 1m}\nretry:\n  throttle: {}\n",
        r"
error: `retry.throttle.window` (10s, the default) is shorter than one tick (1m)
 --> s.yaml:6:13
  |
6 |   throttle: {}
  |             ^
  = help: use a window of at least 1m
",
    );
}

#[test]
fn an_unknown_throttle_key_suggests_the_nearest() {
    check(
        "id: a\nclients: 1\nretry:\n  throttle: {windw: 5s}\n",
        r"
error: unknown key `retry.throttle.windw`
 --> s.yaml:4:14
  |
4 |   throttle: {windw: 5s}
  |              ^^^^^
  = help: did you mean `window`?
",
    );
}

#[test]
fn jitter_is_at_most_one() {
    check(
        "id: a\nclients: 1\nretry:\n  jitter: 1.5\n",
        r"
error: `retry.jitter` is 1.5; the most it can be is 1
 --> s.yaml:4:11
  |
4 |   jitter: 1.5
  |           ^^^
",
    );
}

#[test]
fn jitter_is_not_negative() {
    check(
        "id: a\nclients: 1\nretry:\n  jitter: -0.1\n",
        r"
error: `retry.jitter` cannot be negative, found -0.1
 --> s.yaml:4:11
  |
4 |   jitter: -0.1
  |           ^^^^
",
    );
}

#[test]
fn jitter_has_at_most_three_decimals() {
    check(
        "id: a\nclients: 1\nretry:\n  jitter: 0.1234\n",
        r"
error: `retry.jitter` may have at most three decimals, found 0.1234
 --> s.yaml:4:11
  |
4 |   jitter: 0.1234
  |           ^^^^^^
",
    );
}

#[test]
fn jitter_is_a_number() {
    check(
        "id: a\nclients: 1\nretry:\n  jitter: some\n",
        r"
error: `retry.jitter` must be a number, found `some`
 --> s.yaml:4:11
  |
4 |   jitter: some
  |           ^^^^
",
    );
}

#[test]
fn a_misspelt_proportional_jitter_is_suggested() {
    check(
        "id: a\nclients: 1\nstrategies: [proportional-jiter]\n",
        r"
error: unknown strategy `proportional-jiter`
 --> s.yaml:3:14
  |
3 | strategies: [proportional-jiter]
  |              ^^^^^^^^^^^^^^^^^^
  = help: did you mean `proportional-jitter`?
",
    );
}

#[test]
fn an_unknown_retry_key_suggests_the_timeout() {
    check(
        "id: a\nclients: 1\nretry:\n  timout: 1s\n",
        r"
error: unknown key `retry.timout`
 --> s.yaml:4:3
  |
4 |   timout: 1s
  |   ^^^^^^
  = help: did you mean `timeout`?
",
    );
}
