"""Kinds of NumPy calls whose result's kind depends on their arguments'
kinds only, found by running the call on stand-ins of those kinds.

``np.stack([a, b])``, ``np.concatenate((x, y), axis=1)``, ``np.mean(x,
axis=0)``, ``np.dot(u, v)``: shape and dtype of the result follow from the
shapes and dtypes of the arguments and from constant options, never from
the values. `kind` calls the function on stand-ins: an array of its
kind's shape and dtype (a broadcast view of one entry, so nothing of that
size is allocated for the arguments), a NumPy scalar or a Python number of
its kind, the constants as they are, list and tuple literals (looked
through a name bound once) item by item. An int argument must be a
constant the kinds fix (a size, an axis): its value may decide the shape.

Only the functions of `FUNCTIONS` are called this way: none whose result's
shape depends on values (``np.nonzero``, ``np.unique``) or that refuses
some values (``np.linalg.cholesky`` of a stand-in of ones).
"""
import gast
import numpy as np

from tangent_ad import runtime
from tangent_ad.staging.kind_values import BOTTOM, REAL, kind_of, same_for_any_real

FUNCTIONS = frozenset({
    np.stack, np.concatenate, np.hstack, np.vstack, np.column_stack, np.copy, np.dot,
    np.vdot, np.inner, np.matmul, np.transpose, np.diag, np.diagonal,
    np.trace, np.mean, np.tril, np.triu, np.squeeze, np.ravel, np.flip, np.reshape, np.eye,
    np.array, np.asarray, np.swapaxes, np.moveaxis, np.tile, np.broadcast_to, np.kron,
    np.cross, np.atleast_1d, np.atleast_2d, np.real, np.imag, np.conj, np.conjugate,
    np.clip, np.where, np.ones, np.full, np.zeros, np.empty,
    *([np.permute_dims] if hasattr(np, "permute_dims") else [])})  # (NumPy 2)
# np.where with one argument is np.nonzero: only its three-argument form
_ARGUMENTS = {np.where: 3}
MAX_ENTRIES = 1 << 20  # a larger result is not worth computing for its kind
# the adjoints of a concatenation and of a stack: one piece of g per array
PIECES = frozenset({runtime.unconcatenate, runtime.unstack})


class _Unknown(Exception):
    pass


class _Bottom(Exception):
    pass


def kind(kinds, node, func):
    """The Kind of the call `node` of `func` (a function of `FUNCTIONS`), for
    the ``kinds.Kinds`` of its function; None when unknown, BOTTOM when an
    argument's kind is not found yet."""
    if func not in FUNCTIONS or _ARGUMENTS.get(func, len(node.args)) != len(node.args):
        return None
    out = _run(kinds, node, func)
    if out is BOTTOM or out is _FAILED:
        return None if out is _FAILED else BOTTOM
    if isinstance(out, np.ndarray) and out.size > MAX_ENTRIES:
        return None
    return kind_of(out)


_FAILED = object()  # what `_run` returns when the call has no kind


def _run(kinds, call, func):
    """What the NumPy function `func` that `call` calls returns on stand-ins of its
    arguments' kinds; BOTTOM while one is not found yet, `_FAILED` when an
    argument has no stand-in (or is ``*args``, ``**kwargs``) or NumPy
    refuses them."""
    if any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return _FAILED
    try:
        args = [_stand_in(kinds, a) for a in call.args]
        options = {k.arg: _constant(k.value, kinds) for k in call.keywords}
    except _Bottom:
        return BOTTOM
    except _Unknown:
        return _FAILED
    real = _has_real(args)
    try:
        with np.errstate(all="ignore"):
            out = func(*(_as(args, REAL.sample()) if real else args), **options)
    except Exception:  # noqa: BLE001 - what NumPy refuses has no kind here
        return _FAILED
    if real and not same_for_any_real(
            lambda value: kind_of(func(*_as(args, value), **options)), kind_of(out)):
        return _FAILED  # its kind depends on what a real scalar argument is
    return out


class _RealScalar:
    """The stand-in of a real scalar (a Python int or float, or an
    np.float64: NumPy types the first two weakly), replaced by each."""


_REAL = _RealScalar()


def _as(args, value):
    """`args` with the real scalar stand-ins replaced by `value`."""
    if args is _REAL:
        return value
    if isinstance(args, (list, tuple)):
        return type(args)(_as(a, value) for a in args)
    return args


def _has_real(args):
    return args is _REAL or isinstance(args, (list, tuple)) and any(map(_has_real, args))


def item(kinds, call, index):
    """The Kind of item `index` of what `call` returns, for the adjoints of
    a concatenation and a stack (`PIECES`) and for ``np.split`` (whose
    adjoint, a list, ``Kinds.pieces`` follows); None for other calls."""
    if kinds.callee(call) in PIECES and len(call.args) >= 2:
        return _piece(kinds, call, index)
    if kinds.callee(call) in SPLITS:
        return _split_piece(kinds, call, index)
    return None


SPLITS = frozenset({np.split, np.array_split})


def split_pieces(kinds, call):
    """The kinds of the pieces ``np.split(x, sections)`` returns, a tuple,
    for an array `x` of a known kind and sections the kinds fix; None when
    unknown, BOTTOM when an argument's kind is not found yet."""
    func = kinds.callee(call)
    if func not in SPLITS:
        return None
    pieces = _run(kinds, call, func)
    if pieces is BOTTOM or pieces is _FAILED:
        return None if pieces is _FAILED else BOTTOM
    return tuple(kind_of(np.ascontiguousarray(p)) for p in pieces)


def _split_piece(kinds, call, index):
    pieces = split_pieces(kinds, call)
    if not isinstance(pieces, tuple):
        return pieces
    return pieces[index] if -len(pieces) <= index < len(pieces) else None


def _piece(kinds, call, index):
    """Piece `index` of ``unconcatenate(g, parts, axis)`` (or ``unstack``)
    for a list or tuple literal `parts`: an array of its part's kind when g
    and that part are arrays of one dtype (the piece is then a slice of g)."""
    parts = kinds._through(call.args[1])
    if not isinstance(parts, (gast.List, gast.Tuple)) or \
            not -len(parts.elts) <= index < len(parts.elts):
        return None
    g, part = kinds.of(call.args[0]), kinds.of(parts.elts[index])
    if BOTTOM in (g, part):
        return BOTTOM
    if g is None or part is None or g.box != "array" or part.box != "array" or \
            g.dtype != part.dtype:
        return None
    return part


def sliced(kinds, node):
    """The Kind of ``x[a:b]`` (or ``x[:, a:b]``, ...) for an array `x` of a
    known kind and bounds the kinds fix; None when unknown."""
    parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    index = []
    try:
        for part in parts:
            if isinstance(part, gast.Constant) and part.value is None:
                index.append(None)  # a new axis of length 1
            elif isinstance(part, gast.Slice):
                index.append(slice(*(None if b is None else _static(kinds, b)
                                     for b in (part.lower, part.upper, part.step))))
            else:
                index.append(_static(kinds, part))
        x = _stand_in(kinds, node.value)
    except _Bottom:
        return BOTTOM
    except _Unknown:
        return None
    if not isinstance(x, np.ndarray):
        return None
    try:
        out = x[tuple(index)]
    except Exception:  # noqa: BLE001 - an index NumPy refuses has no kind here
        return None
    return kind_of(np.ascontiguousarray(out)) if isinstance(out, np.ndarray) else kind_of(out)


def _static(kinds, node):
    value = kinds._static_int(node)
    if value is None:
        raise _Unknown
    return value


def _stand_in(kinds, node, depth=2):
    through = kinds._through(node)
    if isinstance(through, (gast.List, gast.Tuple)) and depth:
        items = [_stand_in(kinds, e, depth - 1) for e in through.elts]
        return items if isinstance(through, gast.List) else tuple(items)
    if isinstance(node, (gast.Constant, gast.UnaryOp, gast.Call)):
        try:
            return _constant(node, kinds)
        except _Unknown:
            pass
    found = kinds.of(node)
    if found is None and depth:
        found = kinds.pieces(node)  # a list of arrays: a split's adjoint
        if isinstance(found, tuple):
            return [_stand_in_of(k) for k in found]
    if found == BOTTOM:
        raise _Bottom
    if found is None:
        raise _Unknown
    if found.box in ("int", "bool") or found.box == "scalar" and found.dtype.kind in "biu":
        value = kinds._static_int(node)  # a size or an axis: its value matters
        if value is None:
            raise _Unknown
        return value
    return _stand_in_of(found)


def _stand_in_of(found):
    if found == REAL:
        return _REAL
    if found.box == "array":
        if found.size > MAX_ENTRIES:
            raise _Unknown
        return np.broadcast_to(np.ones((), found.dtype), found.shape)
    return found.sample()


def _constant(node, kinds):
    """The value of an option: a number, a bool, None, a string, a tuple
    of those, a NumPy scalar type (``dtype=np.float32``), or the axes
    ``inverse_permutation`` gives for constant axes."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Tuple):
        return tuple(_constant(e, kinds) for e in node.elts)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    if isinstance(node, gast.Call) and kinds.callee(node) is runtime.inverse_permutation \
            and len(node.args) == 1 and not node.keywords:  # the axes np.transpose undoes
        return runtime.inverse_permutation(_constant(node.args[0], kinds))
    scalar_type = kinds.callees.of(node)
    if isinstance(scalar_type, type) and issubclass(scalar_type, np.generic):
        return scalar_type
    raise _Unknown
