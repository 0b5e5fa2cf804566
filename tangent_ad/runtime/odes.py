"""The derivatives of ``scipy.integrate.odeint`` (templates/scipy_integrate.py).

``ys = odeint(func, y0, t, args)`` solves ``y' = func(y, t, *args)``. Its
derivatives are ODEs too, solved with odeint itself:

* the tangent along ``(dy0, dargs)`` solves the sensitivity equation
  ``s' = J_y s + J_args dargs`` with ``s(t0) = dy0``, alongside ``y``;
* the adjoint runs backwards, interval by interval from the last time: on
  ``[t[i-1], t[i]]`` the state ``(y, a, b)`` follows ``y' = func``, ``a' =
  -J_y^T a``, ``b' = -J_args^T a`` from ``y = ys[i]``; then ``a`` receives
  the output adjoint at ``t[i-1]``. ``a`` at ``t[0]`` is the adjoint of
  ``y0``, ``b`` that of the args.

The Jacobian products of `func` are its vjp and jvp, made by tangent_ad
when they are first needed (``function_values``). SciPy is imported when
a derivative runs.
"""
import numpy as np

from tangent_ad.runtime.function_values import jvp_function, vjp_function

__all__ = ["unodeint", "unodeint_tangent", "odeint_tangent"]


def _leaves(value):
    """The arrays and numbers of a value made of tuples, lists and dicts
    (``args=(params,)`` with ``params`` a list of ``(W, b)`` pairs).

    >>> _leaves(([1.0, 2.0], {"b": 3.0}))
    [1.0, 2.0, 3.0]
    """
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, dict):
        return [leaf for key in value for leaf in _leaves(value[key])]
    return [value]


def _flat(value):
    leaves = _leaves(value)
    return np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in leaves]) \
        if leaves else np.zeros(0)


def _unflat(flat, like, start=0):
    """(`like`'s structure with the values of `flat` from `start`, where it ends)."""
    if isinstance(like, (tuple, list)):
        items = []
        for item in like:
            value, start = _unflat(flat, item, start)
            items.append(value)
        return type(like)(items), start
    if isinstance(like, dict):
        out = {}
        for key in like:
            out[key], start = _unflat(flat, like[key], start)
        return out, start
    size = np.size(like)
    piece = flat[start:start + size]
    if np.ndim(like) == 0 and not isinstance(like, np.ndarray):
        return float(piece[0]), start + size
    return np.reshape(piece, np.shape(like)).astype(np.result_type(like, 0.0)), start + size


def _zeros(like):
    return _unflat(np.zeros(len(_flat(like))), like)[0]


def _pulled(back, args, size):
    """The flat adjoints ``(of y, of args)`` in a vjp of ``func(y, t, *args)``
    (None where an argument has none: zeros)."""
    of_y = np.ravel(back[0]) if back[0] is not None else np.zeros(size)
    of_args = _flat([b if b is not None else _zeros(v) for b, v in zip(back[2:], args)])
    return of_y, of_args


def unodeint(g, ys, func, y0, t, args=(), rtol=None, atol=None):
    """The adjoints ``(of y0, of args)`` of ``odeint(func, y0, t, args)``
    for the output adjoint `g` (of the shape of the solution `ys`)."""
    from scipy import integrate

    args = tuple(args)
    shape, size = np.shape(y0), np.size(y0)
    g = np.reshape(np.asarray(g, dtype=float), (len(t), size))
    ys = np.reshape(np.asarray(ys, dtype=float), (len(t), size))
    count = len(_flat(args))

    def backwards(state, time):
        y, a = state[:size], state[size:2 * size]
        values = (np.reshape(y, shape), time) + args
        back = vjp_function(func, values)(np.reshape(a, shape), values)
        of_y, of_args = _pulled(back, args, size)
        return np.concatenate([np.ravel(func(*values)), -of_y, -of_args])

    a, b = g[-1].copy(), np.zeros(count)
    for i in range(len(t) - 1, 0, -1):
        state = np.concatenate([ys[i], a, b])
        state = integrate.odeint(backwards, state, np.array([t[i], t[i - 1]]),
                                 rtol=rtol, atol=atol)[1]
        a, b = state[size:2 * size] + g[i - 1], state[2 * size:]
    adjoint_y0 = np.reshape(a, shape).astype(np.result_type(y0, 0.0))
    return adjoint_y0, _unflat(b, args)[0]


def unodeint_tangent(dg, dys, dargs, g, ys, func, y0, t, args=(), rtol=None, atol=None):
    """The tangent of ``unodeint(g, ys, func, y0, t, args)`` along `dg`,
    `dys` and `dargs` (each None for no tangent): a second derivative of
    odeint. The backward ODE of ``unodeint`` is solved again with its own
    tangent alongside: ``y`` moves with ``func``'s jvp, the adjoints with
    the jvp of ``func``'s vjp (in the adjoint and in ``y`` and the args),
    both made when they run.
    """
    from scipy import integrate

    args = tuple(args)
    shape, size = np.shape(y0), np.size(y0)
    rows = (len(t), size)
    g = np.reshape(np.asarray(g, dtype=float), rows)
    ys = np.reshape(np.asarray(ys, dtype=float), rows)
    dg = np.zeros(rows) if dg is None else np.reshape(np.asarray(dg, dtype=float), rows)
    dys = np.zeros(rows) if dys is None else np.reshape(np.asarray(dys, dtype=float), rows)
    dargs = _zeros(args) if dargs is None else tuple(dargs)
    count = len(_flat(args))
    pieces = np.cumsum([size, size, count, size, size])

    def backwards(state, time):
        y, a, _, dy, da, _ = np.split(state, pieces)
        y, a, dy, da = (np.reshape(p, shape) for p in (y, a, dy, da))
        values, tangents = (y, time) + args, (dy, 0.0) + dargs
        pullback = vjp_function(func, values)
        back = pullback(a, values)
        dback = jvp_function(pullback, (a, values))((a, values), (da, tangents))
        of_y, of_args = _pulled(back, args, size)
        d_of_y, d_of_args = _pulled(dback, args, size)
        moved = jvp_function(func, values)(values, tangents)
        return np.concatenate([np.ravel(func(*values)), -of_y, -of_args,
                               np.ravel(moved), -d_of_y, -d_of_args])

    a, b, da, db = g[-1].copy(), np.zeros(count), dg[-1].copy(), np.zeros(count)
    for i in range(len(t) - 1, 0, -1):
        state = np.concatenate([ys[i], a, b, dys[i], da, db])
        state = integrate.odeint(backwards, state, np.array([t[i], t[i - 1]]),
                                 rtol=rtol, atol=atol)[1]
        _, a, b, _, da, db = np.split(state, pieces)
        a, da = a + g[i - 1], da + dg[i - 1]
    tangent_y0 = np.reshape(da, shape).astype(np.result_type(y0, 0.0))
    return tangent_y0, _unflat(db, args)[0]


def odeint_tangent(dy0, dargs, ys, func, y0, t, args=(), rtol=None, atol=None):
    """The tangent of ``odeint(func, y0, t, args)`` along `dy0` and
    `dargs` (either may be None: no tangent there)."""
    from scipy import integrate

    args = tuple(args)
    shape, size = np.shape(y0), np.size(y0)
    dargs = _zeros(args) if dargs is None else tuple(dargs)
    start = np.zeros(size) if dy0 is None else np.ravel(np.asarray(dy0, dtype=float))

    def forwards(state, time):
        y, s = np.reshape(state[:size], shape), np.reshape(state[size:], shape)
        values = (y, time) + args
        ds = jvp_function(func, values)(values, (s, 0.0) + dargs)
        return np.concatenate([np.ravel(func(*values)), np.ravel(ds)])

    state = np.concatenate([np.ravel(np.asarray(y0, dtype=float)), start])
    tangents = integrate.odeint(forwards, state, t, rtol=rtol, atol=atol)[:, size:]
    return np.reshape(tangents, np.shape(ys)).astype(np.result_type(ys, 0.0))
