//! The sentences that compare strategies are conditions over their page's own results:
//! each one the articles hold to their figures fails, and the build refuses the page,
//! when its scenario is changed so that the numbers no longer support it.

use crate::util::{copy_tree, root, run_in};

/// A copy of the site with each `from` replaced by its `to` once in `page`, and what
/// `check` says.
fn check_with(page: &str, changes: &[(&str, &str)]) -> (i32, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let site = dir.path();
    for folder in [
        "content",
        "scenarios",
        "templates",
        "static",
        ".retrylab-cache",
    ] {
        if root().join(folder).exists() {
            copy_tree(&root().join(folder), &site.join(folder));
        }
    }
    for file in ["site.yaml", "sources.yaml"] {
        std::fs::copy(root().join(file), site.join(file)).unwrap();
    }
    let path = site.join("content").join(page);
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (from, to) in changes {
        assert_eq!(text.matches(from).count(), 1, "`{from}` once in {page}");
        text = text.replacen(from, to, 1);
    }
    std::fs::write(&path, text).unwrap();
    let (code, _, stderr) = run_in(site, &["check"]);
    (code, stderr)
}

/// The page holds `condition`, and is refused with it when `changes` are made.
fn refused(page: &str, changes: &[(&str, &str)], id: &str, condition: &str) {
    let text = std::fs::read_to_string(root().join("content").join(page)).unwrap();
    assert!(
        text.contains(&format!("{{{{ if {condition} }}}}")),
        "{page} holds `{condition}`"
    );
    let (code, stderr) = check_with(page, changes);
    assert_eq!(code, 1, "{stderr}");
    let expected = format!(
        "error: this condition does not hold for the numbers of `{id}` as built: {condition}\n"
    );
    let at = stderr
        .find(&expected)
        .unwrap_or_else(|| panic!("{expected}\n\n{stderr}"));
    let place = stderr[at + expected.len()..].lines().next().unwrap_or("");
    assert!(
        place
            .trim_start()
            .starts_with(&format!("--> content/{page}:")),
        "{place}\n\n{stderr}"
    );
}

#[test]
fn without_a_crowd_the_gap_without_jitter_is_refused() {
    // Ten clients against ten calls a tick: every strategy serves them at once.
    refused(
        "backoff-and-jitter.md",
        &[
            (
                "id: crowd\nextends: crowd\n",
                "id: crowd\nextends: crowd\nclients: 10\n",
            ),
            // The stored live run is of the crowd of a hundred.
            ("```live\nscenario: crowd\ndata: live/crowd.json\n```\n", ""),
        ],
        "crowd",
        "crowd.exponential.calls_per_client > crowd.full-jitter.calls_per_client and \
         crowd.exponential.calls_per_client > crowd.equal-jitter.calls_per_client and \
         crowd.exponential.done_at > crowd.full-jitter.done_at and \
         crowd.exponential.done_at > crowd.equal-jitter.done_at and \
         crowd.exponential.done_at > crowd.decorrelated-jitter.done_at",
    );
}

#[test]
fn a_breaker_that_never_opens_refuses_the_sentence_on_its_retried_fast_failures() {
    // An outage of one tick: too short for the breaker to open, so nothing fails fast.
    refused(
        "beyond-backoff.md",
        &[(
            "id: metastable-breaker\nextends: metastable-breaker\n",
            "id: metastable-breaker\nextends: metastable-breaker\n\
             server:\n  outages: [{from: 10s, to: 10.1s}]\n",
        )],
        "metastable-breaker",
        "metastable-breaker.fixed.failed_fast > 0 and \
         metastable-breaker.fixed.goodput < metastable-breaker.offered and \
         metastable-breaker.fixed.peak_rejected > metastable-breaker.capacity",
    );
}

#[test]
fn a_collapse_that_recovers_refuses_the_sentence_on_its_latency() {
    // A mild slowdown: the server keeps up, and goodput is the offered load.
    refused(
        "timeouts-and-overload.md",
        &[
            (
                "id: collapse\nextends: collapse\n",
                "id: collapse\nextends: collapse\n\
                 server:\n  slowdowns: [{from: 10s, to: 15s, capacity: 9}]\n",
            ),
            // The stored live run is of the page's collapse.
            (
                "```live\nscenario: collapse\ndata: live/collapse.json\n```\n",
                "",
            ),
        ],
        "collapse",
        "collapse.full-jitter.latency_p99 < 1 and collapse.full-jitter.goodput < collapse.offered",
    );
}

#[test]
fn with_free_rejections_equal_jitter_no_longer_beats_full_jitter_in_the_crowd() {
    // Without the cost of a rejection, equal jitter finishes after full jitter even at a
    // tick as long as the base.
    refused(
        "backoff-and-jitter.md",
        &[
            (
                "id: crowd\nextends: crowd\n",
                "id: crowd\nextends: crowd\nserver:\n  rejection_cost: 0\n",
            ),
            ("```live\nscenario: crowd\ndata: live/crowd.json\n```\n", ""),
        ],
        "crowd",
        "crowd.equal-jitter.calls < crowd.full-jitter.calls and \
         crowd.equal-jitter.done_at < crowd.full-jitter.done_at",
    );
}

#[test]
fn with_costly_rejections_the_fine_tick_loses_brookers_ordering() {
    // A rejection that costs a tenth of a call takes the whole next tick of a server
    // that serves one call a tick: equal jitter's longer waits then save calls.
    refused(
        "backoff-and-jitter.md",
        &[(
            "  tick: 10ms\n  rejection_cost: 0\n",
            "  tick: 10ms\n  rejection_cost: 0.1\n",
        )],
        "fine-tick",
        "fine-tick.equal-jitter.calls > fine-tick.full-jitter.calls and \
         fine-tick.equal-jitter.done_at > fine-tick.full-jitter.done_at",
    );
}

#[test]
fn a_server_big_enough_for_the_crowd_refuses_the_seconds_when_everyone_collides() {
    // Forty per second for thirty programs: no second turns every program away.
    refused(
        "why-waiting-longer.md",
        &[(
            "id: beginner\nextends: beginner\n",
            "id: beginner\nextends: beginner\nserver:\n  capacity: 40\n",
        )],
        "beginner",
        "beginner.full-jitter.peak_rejected == beginner.clients",
    );
}
