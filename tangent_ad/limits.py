"""Bounds on the transformation's fixed points and worklists.

Every loop of the transformer that runs until nothing changes (a dataflow
worklist, an optimization fixed point, the growing set of functions of a
unit) counts its rounds with `rounds`. A loop that has not settled by its
bound is a bug (a transfer that is not monotone, two rewrites undoing
each other): it raises `InternalError` naming the pass instead of
hanging.

>>> for step in rounds("example", 3):
...     if step == 1:
...         break
"""
from tangent_ad.errors import InternalError


def rounds(what, limit):
    """Yield 0, 1, ... `limit` - 1; if the caller's loop is still running
    after that, raise `InternalError` saying that `what` did not settle."""
    yield from range(limit)
    raise InternalError(f"{what} did not reach a fixed point within {limit} rounds")
