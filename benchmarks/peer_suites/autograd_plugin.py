"""pytest plugin for autograd_tests.py: classifies each test's outcome and
writes one JSON line per test to $PEER_RESULTS.

Outcomes: ``pass``; ``wrong`` (an AssertionError: a number, shape or type
that differs from what the test expects, or an expected error that did not
come); ``refused`` (a TangentADError other than InternalError, also when
the shim re-raised it as the TypeError autograd raises); ``crash`` (any
other exception, an InternalError, or the per-test time limit); ``n/a``
(listed in NOT_APPLICABLE, or skipped by autograd's suite).
"""
import json
import os
import signal

import pytest

import tangent_ad as tad

from autograd_not_applicable import NOT_APPLICABLE

TIME_LIMIT = int(os.environ.get("PEER_TIME_LIMIT", "300"))


class TimeLimit(Exception):
    """The test ran longer than TIME_LIMIT seconds."""


def _chain(exc):
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def classify(excinfo):
    """(outcome, first line of the reason) for a failed test."""
    exc = excinfo.value
    chain = _chain(exc)
    for link in chain:
        if isinstance(link, tad.InternalError):
            return "crash", _line(link)
    for link in chain:
        if isinstance(link, tad.TangentADError):
            return "refused", f"{type(link).__name__}: {_line(link)}"
    if isinstance(exc, AssertionError) or type(exc).__name__ == "Failed":
        return "wrong", _line(exc) or "AssertionError"
    return "crash", f"{type(exc).__name__}: {_line(exc)}"


def _line(exc):
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else ""


def _write(record):
    with open(os.environ["PEER_RESULTS"], "a") as out:
        out.write(json.dumps(record) + "\n")


def pytest_collection_modifyitems(config, items):
    keep = []
    for item in items:
        reason = NOT_APPLICABLE.get(_key(item)) or NOT_APPLICABLE.get(_key(item).split("[")[0]) \
            or NOT_APPLICABLE.get(item.nodeid.split("::")[0])
        if reason:
            _write({"id": item.nodeid, "outcome": "n/a", "reason": reason})
        else:
            keep.append(item)
    items[:] = keep


def _key(item):
    return item.nodeid


def _alarm(signum, frame):
    raise TimeLimit(f"over the time limit of {TIME_LIMIT} s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if report.passed:
            record = {"outcome": "pass", "reason": ""}
        elif report.skipped:
            record = {"outcome": "n/a", "reason": "skipped by autograd's suite: " +
                      (str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else "")}
        else:
            kind, reason = classify(call.excinfo)
            record = {"outcome": kind, "reason": reason}
        record["id"] = item.nodeid
        _write(record)
