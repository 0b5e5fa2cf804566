"""autograd's gradient checker, rewritten on tangent_ad's public API.

``check_grads(f, argnum=0, modes=["fwd", "rev"], order=2)(*args, **kw)``
compares tangent_ad's jvp (``fwd``) and vjp (``rev``) of ``f`` with
central differences (step 1e-6) along random directions, with autograd's
tolerances (absolute or relative 1e-6 on the projected numbers). For
``order > 1`` it checks the derivative function itself, by the same
test, with respect to its point and its direction: for ``rev`` the
generated vjp ``(*args, g) -> J^T g``, for ``fwd`` the generated jvp
``(*args, v) -> (f, J v)``. Those are tangent_ad's own generated
functions, so orders 2 and 3 test its derivatives of derivatives.

Values are pytrees of numbers and arrays (tuples, lists, dicts); the
pairing of a cotangent ``g`` with an output tangent ``t`` is autograd's,
``Re(sum(g * t))``, with vjp results put in autograd's complex convention
(see ``_convert.to_autograd``).
"""
from itertools import product

import numpy as np

import tangent_ad as tad

from autograd._convert import argnums as _argnums, closed, to_autograd

TOL = 1e-6
RTOL = 1e-6
EPS = 1e-6


def scalar_close(a, b):
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


# ---- pytree arithmetic ----

def _map(fn, *trees):
    first = trees[0]
    if isinstance(first, (tuple, list)):
        return type(first)(_map(fn, *parts) for parts in zip(*trees))
    if isinstance(first, dict):
        return {k: _map(fn, *(t[k] for t in trees)) for k in first}
    return fn(*trees)


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for part in tree for leaf in _leaves(part)]
    if isinstance(tree, dict):
        return [leaf for k in tree for leaf in _leaves(tree[k])]
    return [tree]


def _randn(x):
    """A random direction in `x`'s space (complex for a complex `x`)."""
    shape = np.shape(x)
    v = np.random.randn(*shape)
    if np.iscomplexobj(x):
        v = v + 1j * np.random.randn(*shape)
    if isinstance(x, np.ndarray):
        return np.asarray(v, dtype=x.dtype if x.dtype.kind in "fc" else v.dtype)
    return v


def _inner(a, b):
    """autograd's pairing of a cotangent and a tangent: Re(sum(a * b))."""
    return sum(float(np.real(np.sum(np.asarray(x) * np.asarray(y))))
               for x, y in zip(_leaves(a), _leaves(b)))


def _axpy(a, x, y):
    return _map(lambda xi, yi: yi + a * xi, x, y)


def _space(tree):
    """What autograd's vspace compares: structure, shapes, real or complex."""
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__, tuple(_space(t) for t in tree))
    if isinstance(tree, dict):
        return ("dict", tuple((k, _space(tree[k])) for k in tree))
    return (np.shape(tree), bool(np.iscomplexobj(tree)))


def _name(f):
    return getattr(f, "__name__", "fun")


def _numerical_jvp(f, args, wrt, tangents):
    """(f(x + v eps/2) - f(x - v eps/2)) / eps, along `tangents` of `wrt`."""
    def shifted(sign):
        moved = list(args)
        for i, v in zip(wrt, tangents):
            moved[i] = _axpy(sign * EPS / 2, v, args[i])
        return f(*moved)
    plus, minus = shifted(1.0), shifted(-1.0)
    return _map(lambda p, m: (np.asarray(p) - np.asarray(m)) / EPS, plus, minus)


def check_vjp(f, args, wrt):
    derivative = tad.vjp(f, wrt=wrt)
    y = f(*args)
    g = _map(_randn, y)
    cotangents = derivative(*args, g)
    if len(wrt) == 1:
        cotangents = (cotangents,)
    cotangents = to_autograd(tuple(cotangents), derivative)
    for i, c in zip(wrt, cotangents):
        assert _space(c) == _space(args[i]) or _space(c) == _space(_map(np.asarray, args[i])), (
            f"VSpace mismatch in the (VJP) check of {_name(f)}: "
            f"{_space(c)} for an argument of {_space(args[i])}")
    tangents = [_map(_randn, args[i]) for i in wrt]
    exact = sum(_inner(c, v) for c, v in zip(cotangents, tangents))
    numeric = _inner(g, _numerical_jvp(f, args, wrt, tangents))
    assert scalar_close(numeric, exact), (
        f"Derivative (VJP) check of {_name(f)} failed with arg {args}:\n"
        f"analytic: {exact}\nnumeric:  {numeric}")
    return derivative, g


def check_jvp(f, args, wrt):
    derivative = tad.jvp(f, wrt=wrt)
    tangents = [_map(_randn, args[i]) for i in wrt]
    _, t = derivative(*args, *tangents)
    check_equivalent(t, _numerical_jvp(f, args, wrt, tangents))
    return derivative, tangents


def check_equivalent(x, y):
    x_space, y_space = _space(x), _space(y)
    assert x_space == y_space, f"VSpace mismatch:\nx: {x_space}\ny: {y_space}"
    v = _map(_randn, x)
    assert scalar_close(_inner(x, v), _inner(y, v)), f"Value mismatch:\nx: {x}\ny: {y}"


def _check(f, args, wrt, modes, order):
    if "fwd" in modes:
        derivative, tangents = check_jvp(f, args, wrt)
        if order > 1:
            outer = tuple(wrt) + tuple(range(len(args), len(args) + len(wrt)))
            _check(derivative, tuple(args) + tuple(tangents), outer, modes, order - 1)
    if "rev" in modes:
        derivative, g = check_vjp(f, args, wrt)
        if order > 1:
            _check(derivative, tuple(args) + (g,), tuple(wrt) + (len(args),), modes, order - 1)


def check_grads(f, argnum=0, modes=["fwd", "rev"], order=2):
    """autograd's ``check_grads(f, argnum, modes, order)(*args, **kwargs)``."""
    assert all(m in ["fwd", "rev"] for m in modes)
    wrt = _argnums(argnum)

    def checker(*args, **kwargs):
        _check(closed(f, len(args), kwargs), tuple(args), wrt, modes, order)
    return checker


def combo_check(fun, *args, **kwargs):
    """check_grads for every combination of the listed arguments and
    keyword arguments."""
    def _combo_check(*arg_lists, **kwarg_lists):
        kwarg_key_vals = [[(k, x) for x in xs] for k, xs in kwarg_lists.items()]
        for _args in product(*arg_lists):
            for _kwargs in product(*kwarg_key_vals):
                check_grads(fun, *args, **kwargs)(*_args, **dict(_kwargs))
    return _combo_check
