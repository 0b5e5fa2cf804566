"""The signatures of the functions that templates stand for, read once.

Binding a call to a template reads its callee's signature, and leaving
defaulted arguments out of a template's calls reads theirs: a
transformation reads dozens of them for the same few functions.
"""
import functools
import inspect
import types


def signature_of(callee):
    """`callee`'s signature, or None where Python cannot read one.

    Cached for functions written in C (``operator.mul``, NumPy's
    dispatchers): Python reads their signature by parsing its text form,
    about 60 µs, and a transformation binds dozens of calls to the same
    few. A Python function's signature is cheap to read and may change
    (``__defaults__`` can be assigned), so it is read every time."""
    if isinstance(callee, (types.FunctionType, types.MethodType)):
        return _read_signature(callee)
    try:
        return _cached_signature(callee)
    except TypeError:  # unhashable
        return _read_signature(callee)


@functools.lru_cache(maxsize=1024)
def _cached_signature(callee):
    return _read_signature(callee)


def _read_signature(callee):
    try:
        return inspect.signature(callee)
    except (TypeError, ValueError):
        return None


def callee_name(callee):
    return getattr(callee, "__name__", repr(callee))
