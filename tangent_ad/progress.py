"""Feedback on long work: a transformation or staging step that is slow says so.

Differentiating a long function can take seconds, and so can writing its
specialized copy on a later call; silence there looks like a hang. A step
that takes `SLOW_SECONDS` or more is reported on the ``tangent_ad`` logger:
the first one in a process as a warning (which Python prints on stderr when
logging is not configured), later ones at INFO level. With ``verbose=1`` or
more every slow step is also printed on stderr.
"""
import contextlib
import logging
import sys
import time

SLOW_SECONDS = 2.0
LOG = logging.getLogger("tangent_ad")
_warned = False


@contextlib.contextmanager
def timed(what, verbose=0):
    """Time the block; report it when it took `SLOW_SECONDS` or more.
    `what` names the step (``"differentiating f"``)."""
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    if elapsed >= SLOW_SECONDS:
        report(f"{what} took {elapsed:.1f} s", verbose)


def report(message, verbose=0):
    global _warned
    if verbose:
        print(f"tangent_ad: {message}", file=sys.stderr)
        LOG.info(message)
    elif not _warned:
        _warned = True
        LOG.warning("tangent_ad: %s (further slow steps go to the 'tangent_ad' "
                    "logger at INFO level)", message)
    else:
        LOG.info(message)
