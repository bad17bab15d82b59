#!/usr/bin/env python3
"""The library strategies against the libraries' own code.

    python verify.py path/to/retrylab

For aws-standard, aws-legacy, google-cloud, python-backoff, urllib3 and tenacity, runs
each library's own default retry machinery against a server that always refuses, with
the library's sleep replaced by one that records the wait, and compares the waits,
retry by retry, with `retrylab sim --schedule --draws 2000 --json` by a two-sample
Kolmogorov-Smirnov test (refused at alpha 0.001: D > 1.949 * sqrt((n + m) / (n * m)));
waits the engine and the library both fix at zero compare exactly. Then it checks the
attempt limits, google-api-core's 120 s timeout, botocore's retry quota and urllib3's
rule that a 503 is retried only with Retry-After, each against the library and against
a run of the engine.

Needs Python 3 and the libraries of requirements.txt beside this file, at the versions
the engine's `SOURCES` cites. Python's `random` is seeded, so a run is deterministic.
One line per check; exit status 1 on any failure.
"""

import json
import math
import os
import random
import subprocess
import sys
import tempfile
import types
import warnings

# google-api-core warns at import about the Python version's end of life, which is not
# this check's business.
warnings.filterwarnings("ignore", category=FutureWarning, module="google.api_core")
# botocore's behaviour depends on this opt-in flag, read at import
# (botocore/configprovider.py:24-41); the engine models the default, flag off.
os.environ.pop("AWS_NEW_RETRIES_2026", None)

import backoff  # noqa: E402
import backoff._sync  # noqa: E402
import botocore.endpoint  # noqa: E402
import botocore.hooks  # noqa: E402
import botocore.retryhandler  # noqa: E402
import botocore.session  # noqa: E402
import botocore.translate  # noqa: E402
from botocore.awsrequest import AWSResponse  # noqa: E402
from botocore.retries import standard  # noqa: E402
import google.api_core.exceptions  # noqa: E402
import google.api_core.retry  # noqa: E402
import google.api_core.retry.retry_base  # noqa: E402
import google.api_core.retry.retry_unary  # noqa: E402
import tenacity  # noqa: E402
import urllib3  # noqa: E402
from urllib3.exceptions import MaxRetryError  # noqa: E402
from urllib3.response import HTTPResponse  # noqa: E402
from urllib3.util.retry import Retry as Urllib3Retry  # noqa: E402

DRAWS = 2000
SEED = 20261204
# Retries compared for a library with no attempt limit.
UNLIMITED = 8
# The two-sample KS test's critical coefficient at alpha 0.001.
KS_C = 1.949

VERSIONS = {
    "botocore": "1.43.67",
    "google-api-core": "2.29.0",
    "backoff": "2.2.1",
    "urllib3": "2.7.0",
    "tenacity": "9.1.4",
}

failures = []


def report(ok, line):
    print(("ok    " if ok else "FAIL  ") + line)
    if not ok:
        failures.append(line)


class Stop(BaseException):
    """Raised from a recording sleep to end a retry loop after K sleeps; a
    BaseException so that no library's `except Exception` takes it for a failure."""


def recorder(limit):
    """A sleep that records its waits and stops the loop after `limit` of them."""
    waits = []

    def sleep(seconds):
        waits.append(float(seconds))
        if len(waits) >= limit:
            raise Stop()

    return waits, sleep


# --- botocore ------------------------------------------------------------------------

SESSION = botocore.session.get_session()
STS = SESSION.get_service_model("sts")
OPERATION = STS.operation_model("GetCallerIdentity")


def throttled():
    """A throttling error as botocore's parser hands it over: HTTP 400, code Throttling."""
    http = AWSResponse("https://sts.amazonaws.com/", 400, {}, None)
    return (http, {"Error": {"Code": "Throttling", "Message": "Rate exceeded"},
                   "ResponseMetadata": {}})


def fake_client():
    """What standard.register_retry_handler reads of a client: its service model and
    its event emitter."""
    meta = types.SimpleNamespace(service_model=STS,
                                 events=botocore.hooks.HierarchicalEmitter())
    return types.SimpleNamespace(meta=meta)


def standard_client():
    # botocore/retries/standard.py:52-118 (register_retry_handler, flag off): a
    # RetryHandler of StandardRetryConditions(3), ExponentialBackoff() and a RetryQuota().
    client = fake_client()
    standard.register_retry_handler(client)
    return client


def legacy_client():
    # botocore/client.py:271-300 (_register_legacy_retries): the config of
    # botocore/data/_retry.json translated by botocore/translate.py, made into a handler
    # by botocore/retryhandler.py:create_retry_handler.
    client = fake_client()
    loader = SESSION.get_component("data_loader")
    original = loader.load_data("_retry")
    prefix = STS.endpoint_prefix
    config = botocore.translate.build_retry_config(
        prefix, original.get("retry", {}), original.get("definitions", {}), None)
    handler = botocore.retryhandler.create_retry_handler(config, prefix)
    client.meta.events.register(f"needs-retry.{STS.service_id.hyphenize()}", handler,
                                unique_id="retry-config-sts")
    return client


def botocore_request(client, limit=10**6):
    """One request through botocore/endpoint.py's retry loop (Endpoint._send,
    endpoint.py:200-218, and _needs_retry, endpoint.py:350-380, which sleeps with
    time.sleep), every attempt throttled. Returns the waits slept."""
    waits = []
    endpoint = types.SimpleNamespace(_event_emitter=client.meta.events)
    request_dict = {"context": {}}
    real_sleep = botocore.endpoint.time.sleep
    botocore.endpoint.time.sleep = waits.append
    try:
        attempts = 1
        while len(waits) < limit and botocore.endpoint.Endpoint._needs_retry(
                endpoint, attempts, OPERATION, request_dict, throttled(), None):
            attempts += 1
    finally:
        botocore.endpoint.time.sleep = real_sleep
    return waits


def aws_draws(make_client):
    # A fresh client for every draw: its quota (500 tokens) is then never the limit.
    return [botocore_request(make_client()) for _ in range(DRAWS)]


# --- google-api-core -----------------------------------------------------------------


class FakeClock:
    """time.monotonic and time.sleep for google-api-core's retry_unary.py and
    retry_base.py; `frozen` keeps the clock still, so the 120 s timeout never ends a
    loop and the waits are the sleep generator's alone."""

    def __init__(self, frozen, limit):
        self.now = 1000.0
        self.frozen = frozen
        self.waits, self._sleep = recorder(limit)

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        if not self.frozen:
            self.now += seconds
        self._sleep(seconds)


class LastDraw:
    """random for retry_base.py, remembering the last uniform draw of
    exponential_sleep_generator (retry_base.py:100-122)."""

    def __init__(self):
        self.last = None

    def uniform(self, a, b):
        self.last = random.uniform(a, b)
        return self.last


def google_request(frozen, limit=10**6):
    """One call of `Retry()(target)()` (google/api_core/retry/retry_unary.py:137-167,
    retry_target at :110-112 and the loop below it) whose target always raises
    ServiceUnavailable (503), a transient error of the default predicate
    (retry_base.py:74-95). Returns the waits, the RetryError (or None) and the last
    drawn wait."""
    clock = FakeClock(frozen, limit)
    draw = LastDraw()
    unary, base = google.api_core.retry.retry_unary, google.api_core.retry.retry_base
    saved = unary.time, base.time, base.random
    unary.time = base.time = clock
    base.random = draw
    error = None

    def target():
        raise google.api_core.exceptions.ServiceUnavailable("down")

    try:
        google.api_core.retry.Retry()(target)()
    except Stop:
        pass
    except google.api_core.exceptions.RetryError as e:
        error = e
    finally:
        unary.time, base.time, base.random = saved
    return clock.waits, error, draw.last


# --- backoff (Python) ----------------------------------------------------------------


def backoff_request(limit):
    """`@backoff.on_exception(backoff.expo, Exception)` (backoff/_decorator.py:123-137,
    full jitter by default, backoff/_jitter.py:18-28, over backoff/_wait_gen.py:7-31),
    the loop of backoff/_sync.py sleeping with time.sleep."""
    waits, sleep = recorder(limit)
    saved = backoff._sync.time.sleep
    backoff._sync.time.sleep = sleep

    @backoff.on_exception(backoff.expo, Exception, logger=None)
    def target():
        raise RuntimeError("down")

    try:
        target()
    except Stop:
        pass
    finally:
        backoff._sync.time.sleep = saved
    return waits


# --- urllib3 -------------------------------------------------------------------------


def refusal(retry_after=None):
    headers = {} if retry_after is None else {"Retry-After": retry_after}
    return HTTPResponse(body=b"", headers=headers, status=503, preload_content=False)


def urllib3_request(retry_after=None):
    """What urllib3/connectionpool.py's urlopen does with a 503 under Retry.DEFAULT
    (src/urllib3/util/retry.py:556-557): while is_retry(...) (retry.py:411-431), it
    increments (retry.py:452-) and sleeps (retry.py:373-387, which sleeps the
    Retry-After or get_backoff_time(), retry.py:309-326, and nothing for a zero
    backoff). Returns the waits before each retry, 0 where it does not sleep."""
    retries = Urllib3Retry.DEFAULT
    waits = []
    saved = urllib3.util.retry.time.sleep
    slept = []
    urllib3.util.retry.time.sleep = slept.append
    try:
        while True:
            response = refusal(retry_after)
            has_retry_after = bool(response.headers.get("Retry-After"))
            if not retries.is_retry("GET", response.status, has_retry_after):
                break
            try:
                retries = retries.increment("GET", "/", response=response)
            except MaxRetryError:
                break
            slept.clear()
            retries.sleep(response)
            waits.append(sum(slept))
    finally:
        urllib3.util.retry.time.sleep = saved
    return waits


def urllib3_backoffs():
    """get_backoff_time() before each retry Retry.DEFAULT allows (retry.py:309-326):
    the wait of a retry that carries no Retry-After (a read error of a GET)."""
    retries = Urllib3Retry.DEFAULT
    waits = []
    while True:
        try:
            retries = retries.increment("GET", "/", error=urllib3.exceptions.ReadTimeoutError(
                None, "/", "read timed out"))
        except MaxRetryError:
            break
        waits.append(retries.get_backoff_time())
    return waits


# --- tenacity ------------------------------------------------------------------------


def tenacity_request(limit):
    """`Retrying()` (tenacity/__init__.py:215-239: stop_never, wait_none(),
    retry_if_exception_type()) with a recording sleep."""
    waits, sleep = recorder(limit)

    def target():
        raise RuntimeError("down")

    try:
        tenacity.Retrying(sleep=sleep)(target)
    except Stop:
        pass
    return waits


# --- the engine ----------------------------------------------------------------------


def engine(retrylab, yaml, *args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "libraries.yaml")
        with open(path, "w") as f:
            f.write(yaml)
        out = subprocess.run([retrylab, "sim", path, *args], capture_output=True,
                             text=True)
    if out.returncode != 0:
        sys.exit(f"retrylab sim failed ({out.returncode}):\n{out.stderr}")
    return json.loads(out.stdout)


SCHEDULE = """\
id: libraries
clients: 1
strategies: [aws-standard, aws-legacy, google-cloud, python-backoff, urllib3, tenacity]
"""


def run_totals(retrylab, strategy, clients, horizon, tick, server_extra=""):
    """The totals of one run of `clients` clients at 0 against a server that is down
    for the whole horizon."""
    yaml = f"""\
id: libraries-{strategy}
clients: {clients}
spread: 0s
horizon: {horizon}
server:
  capacity: 1
  tick: {tick}
  outages: [{{from: 0s, to: {horizon}}}]
{server_extra}strategies: [{strategy}]
runs: 1
"""
    # With runs: 1 each median is the run's own number.
    lane = engine(retrylab, yaml, "--json")["strategies"][0]
    return {key: lane[key]["median"] for key in ("calls", "gave_up", "done_at_s")}


# --- the test ------------------------------------------------------------------------


def ks(a, b):
    """The two-sample Kolmogorov-Smirnov statistic, by hand."""
    a, b = sorted(a), sorted(b)
    n, m = len(a), len(b)
    i = j = 0
    d = 0.0
    while i < n and j < m:
        x = min(a[i], b[j])
        while i < n and a[i] == x:
            i += 1
        while j < m and b[j] == x:
            j += 1
        d = max(d, abs(i / n - j / m))
    return d


def compare(name, library, engine_retries, limit):
    """Retry by retry, the library's draws against the engine's."""
    for r in range(limit):
        lib = [w[r] for w in library if len(w) > r]
        eng = engine_retries[r]["waits_s"]
        if all(x == 0 for x in lib) or all(x == 0 for x in eng):
            ok = all(x == 0 for x in lib) and all(x == 0 for x in eng)
            report(ok, f"{name} retry {r + 1}: " + (
                f"waits zero in the library ({len(lib)} draws) and the engine "
                f"({len(eng)} draws)" if ok else
                f"waits compared exactly differ: library {min(lib)} to {max(lib)} s, "
                f"engine {min(eng)} to {max(eng)} s"))
            continue
        n, m = len(lib), len(eng)
        d = ks(lib, eng)
        threshold = KS_C * math.sqrt((n + m) / (n * m))
        report(d <= threshold,
               f"{name} retry {r + 1}: KS D = {d:.4f} "
               f"{'<=' if d <= threshold else '>'} threshold {threshold:.4f} "
               f"(library {n} draws, mean {sum(lib) / n:.3f} s; engine {m} draws, "
               f"mean {sum(eng) / m:.3f} s)")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: verify.py path/to/retrylab")
    retrylab = sys.argv[1]
    random.seed(SEED)

    import importlib.metadata as md
    for package, version in VERSIONS.items():
        have = md.version(package)
        report(have == version, f"{package} {have} installed (the engine cites {version})")

    schedule = engine(retrylab, SCHEDULE, "--schedule", "--draws", str(DRAWS), "--json")
    by_name = {s["strategy"]: s for s in schedule["strategies"]}

    def attempts(name, library_attempts):
        got = by_name[name]["max_attempts"]
        report(got == library_attempts,
               f"{name} attempt limit: library {library_attempts}, engine {got}")

    def unbounded(name, request):
        """A library with no attempt limit: a loop of 100 retries is still going when
        the recording sleep stops it, and the engine has no limit either."""
        waits = request(100)
        got = by_name[name]["max_attempts"]
        report(len(waits) == 100 and got is None,
               f"{name} attempt limit: library none ({len(waits)} retries, still "
               f"retrying when stopped), engine {got}")

    # aws-standard: botocore/retries/standard.py:44-48 (DEFAULT_MAX_ATTEMPTS = 3),
    # :425-429 (random() * min(2 ** (n - 1), 20) with the flag off), :468-482.
    draws = aws_draws(standard_client)
    counts = {len(w) for w in draws}
    attempts("aws-standard", max(counts) + 1 if len(counts) == 1 else None)
    compare("aws-standard", draws, by_name["aws-standard"]["retries"], max(counts))

    # aws-legacy: botocore/data/_retry.json:91-113 (max_attempts 5, base "rand",
    # growth_factor 2), botocore/retryhandler.py:43-63 (no cap) and :260-300.
    draws = aws_draws(legacy_client)
    counts = {len(w) for w in draws}
    attempts("aws-legacy", max(counts) + 1 if len(counts) == 1 else None)
    compare("aws-legacy", draws, by_name["aws-legacy"]["retries"], max(counts))

    # google-cloud: google/api_core/retry/retry_base.py:43-46 (1 s, 60 s, x2, 120 s)
    # and :100-122 (uniform(0, ceiling)); the clock frozen, so 8 sleeps are the
    # generator's alone.
    draws = [google_request(frozen=True, limit=UNLIMITED)[0] for _ in range(DRAWS)]
    unbounded("google-cloud", lambda k: google_request(frozen=True, limit=k)[0])
    compare("google-cloud", draws, by_name["google-cloud"]["retries"], UNLIMITED)

    # python-backoff: backoff/_decorator.py:123-137, _wait_gen.py:7-31, _jitter.py:18-28.
    draws = [backoff_request(UNLIMITED) for _ in range(DRAWS)]
    unbounded("python-backoff", backoff_request)
    compare("python-backoff", draws, by_name["python-backoff"]["retries"], UNLIMITED)

    # urllib3: src/urllib3/util/retry.py:219-253 (backoff_factor 0), :309-326,
    # :556-557 (Retry.DEFAULT = Retry(3)). The waits of a retry without Retry-After.
    draws = [urllib3_backoffs() for _ in range(DRAWS)]
    counts = {len(w) for w in draws}
    attempts("urllib3", max(counts) + 1 if len(counts) == 1 else None)
    compare("urllib3", draws, by_name["urllib3"]["retries"], max(counts))

    # tenacity: tenacity/__init__.py:215-239, tenacity/stop.py:64-71 (stop_never),
    # tenacity/wait.py:49-63 (wait_none).
    draws = [tenacity_request(UNLIMITED) for _ in range(DRAWS)]
    unbounded("tenacity", tenacity_request)
    compare("tenacity", draws, by_name["tenacity"]["retries"], UNLIMITED)

    check_google_timeout(retrylab)
    check_botocore_quota(retrylab)
    check_urllib3_retry_after(retrylab)

    print(f"{len(failures)} failed" if failures else "all checks passed")
    if failures:
        print("failures:", file=sys.stderr)
        for line in failures:
            print("  " + line, file=sys.stderr)
        sys.exit(1)


def check_google_timeout(retrylab):
    """google/api_core/retry/retry_base.py:207-233 (_retry_error_helper: a RetryError
    when now + next_sleep > deadline) and retry_unary.py:137-167 (the deadline set to
    monotonic() + 120 before the first attempt)."""
    draws = [google_request(frozen=False) for _ in range(DRAWS)]
    rule = all(e is not None and sum(w) <= 120.0 and sum(w) + last > 120.0
               for w, e, last in draws)
    report(rule, "google-cloud timeout: every draw ends in RetryError, its last retry at "
                 "or before 120 s and the next one it drew after it")
    calls = [len(w) + 1 for w, _, _ in draws]
    lib_mean = sum(calls) / len(calls)
    lib_var = sum((c - lib_mean) ** 2 for c in calls) / (len(calls) - 1)
    # The engine: the same many clients, down for 3 minutes, with a 1 ms tick so that
    # its rounding to ticks is far below the waits.
    clients = 1000
    eng = run_totals(retrylab, "google-cloud", clients, "3m", "1ms")
    eng_mean = eng["calls"] / clients
    gave_up = eng["gave_up"]
    # Calls per client, a mean over many independent clients: a z-test at alpha 0.001.
    se = math.sqrt(lib_var / len(calls) + lib_var / clients)
    z = abs(eng_mean - lib_mean) / se
    report(z <= 3.29 and gave_up == clients,
           f"google-cloud timeout: calls per request until it gives up, library "
           f"{lib_mean:.3f}, engine {eng_mean:.3f} (|z| = {z:.2f}, threshold 3.29); "
           f"engine gave up {gave_up} of {clients}")


def check_botocore_quota(retrylab):
    """botocore/retries/quota.py:6-50 (500 tokens) and standard.py:669-738 (5 a retry,
    1 back for a first call served, the retry's cost back for a retry served)."""
    client = standard_client()
    requests = 200
    retries = sum(len(botocore_request(client)) for _ in range(requests))
    eng = run_totals(retrylab, "aws-standard", requests, "1m", "100ms")
    eng_retries = eng["calls"] - requests
    report(retries == 100 and eng_retries == retries,
           f"aws-standard quota: {requests} throttled requests on one client get "
           f"{retries} retries from the library (500 tokens, 5 a retry), "
           f"{eng_retries} from the engine")
    # A first call served gives back 1 token: five of them pay for one more retry.
    http = AWSResponse("https://sts.amazonaws.com/", 200, {}, None)
    for _ in range(5):
        client.meta.events.emit("after-call.sts", context={}, http_response=http,
                                parsed={}, model=OPERATION)
    more = len(botocore_request(client))
    report(more == 1, f"aws-standard quota: five first calls served refund one retry "
                      f"(library: {more})")


def check_urllib3_retry_after(retrylab):
    """src/urllib3/util/retry.py:411-431 (is_retry: a 503 only with has_retry_after)
    and :349-387 (sleep: the header's value)."""
    plain = Urllib3Retry.DEFAULT.is_retry("GET", 503, has_retry_after=False)
    hinted = Urllib3Retry.DEFAULT.is_retry("GET", 503, has_retry_after=True)
    waits = urllib3_request("2")
    none = urllib3_request(None)
    lib_ok = (not plain) and hinted and waits == [2.0, 2.0, 2.0] and none == []
    clients = 10
    bare = run_totals(retrylab, "urllib3", clients, "20s", "100ms")
    hint = run_totals(retrylab, "urllib3", clients, "20s", "100ms",
                      "  retry_after: {hint: 2s, when: always}\n")
    eng_ok = (bare["calls"] == clients and bare["gave_up"] == clients
              and hint["calls"] == 4 * clients and hint["gave_up"] == clients
              and hint["done_at_s"] == 6.0)
    report(lib_ok and eng_ok,
           f"urllib3 Retry-After: a 503 retried without the header: library {plain}; "
           f"with 'Retry-After: 2': library {hinted}, waits {waits}; engine "
           f"{bare['calls']} calls for {clients} clients without the hint, "
           f"{hint['calls']} with it, the last at {hint['done_at_s']} s")


if __name__ == "__main__":
    main()
