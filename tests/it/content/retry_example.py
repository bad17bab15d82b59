"""Runs the retry example of backoff-and-jitter.md (in $RETRY_EXAMPLE) against a made-up
server, with made-up clocks and sleep, and prints `ok` if it does what the page says."""

import email.utils
import os
import random
import time

clock = [0.0]                      # seconds since the test began
WALL = 1_800_000_000.0             # the wall clock at that moment
slept = []


def sleep(seconds):
    assert seconds >= 0, seconds
    slept.append(seconds)
    clock[0] += seconds


time.monotonic = lambda: clock[0]
time.time = lambda: WALL + clock[0]
time.sleep = sleep
random.seed(7)

exec(os.environ["RETRY_EXAMPLE"])


class Response:
    def __init__(self, status, headers=None):
        self.status, self.headers = status, headers or {}


def server(*outcomes, takes=0.0):
    """A call that plays `outcomes` in order: a response, or an exception to raise."""
    calls = []

    def call(timeout):
        calls.append((clock[0], timeout))
        outcome = outcomes[min(len(calls), len(outcomes)) - 1]
        if isinstance(outcome, BaseException):
            clock[0] += timeout if isinstance(outcome, TimeoutError) else takes
            raise outcome
        clock[0] += takes
        return outcome
    return call, calls


def reset():
    clock[0] = 0.0
    slept.clear()


# Retry-After as delay-seconds: the wait is at least what the server asked for.
reset()
call, calls = server(Response(503, {"Retry-After": "3"}), Response(200))
assert call_with_retries(call).status == 200
assert slept == [3.0], slept

# Retry-After as an HTTP-date, five seconds after the response.
reset()
date = email.utils.formatdate(WALL + 5, usegmt=True)
call, calls = server(Response(429, {"Retry-After": date}), Response(200))
assert call_with_retries(call).status == 200
assert slept == [5.0], (date, slept)

# A date in the past asks for no wait; a malformed value is ignored: only jitter is left.
reset()
past = email.utils.formatdate(WALL - 60, usegmt=True)
call, calls = server(Response(503, {"Retry-After": past}),
                     Response(503, {"Retry-After": "soon"}), Response(200))
assert call_with_retries(call).status == 200
assert len(slept) == 2 and slept[0] <= 0.1 and slept[1] <= 0.2, slept

# Refused and reset connections and timeouts are retried.
reset()
call, calls = server(ConnectionRefusedError(), ConnectionResetError(), TimeoutError(),
                     Response(200))
assert call_with_retries(call).status == 200
assert len(calls) == 4, calls

# A failure that retrying will not fix is returned at once.
reset()
call, calls = server(Response(404))
assert call_with_retries(call).status == 404
assert len(calls) == 1 and slept == [], (calls, slept)

# Attempts run out: the last response is kept in the error.
reset()
call, calls = server(Response(503))
try:
    call_with_retries(call, max_attempts=3)
    raise AssertionError("no error")
except GaveUp as gave_up:
    assert gave_up.args[0].status == 503
assert len(calls) == 3, calls

# The deadline: no retry is scheduled past it, and no attempt outlives it.
reset()
call, calls = server(Response(503, {"Retry-After": "4"}))
try:
    call_with_retries(call, max_attempts=10, deadline=10.0)
    raise AssertionError("no error")
except GaveUp:
    pass
assert [at for at, _ in calls] == [0.0, 4.0, 8.0], calls
assert clock[0] < 10.0, clock

reset()
call, calls = server(TimeoutError())
try:
    call_with_retries(call, max_attempts=10, attempt_timeout=3.0, deadline=7.0)
    raise AssertionError("no error")
except GaveUp as gave_up:
    assert isinstance(gave_up.args[0], TimeoutError)
for at, timeout in calls:
    assert at + timeout <= 7.0, calls
assert calls[-1][1] < 3.0, calls   # the last attempt only had what was left
print("ok")
