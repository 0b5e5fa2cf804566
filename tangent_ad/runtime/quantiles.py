"""Runtime helpers of the rules of ``np.quantile``, ``np.percentile``,
``np.nanquantile``, ``np.nanpercentile`` and ``np.nanmedian``
(templates/numpy_reductions.py), for NumPy's default method, 'linear';
and ``unreduce_nanvar``, the slope of ``np.nanvar`` and ``np.nanstd``.

Along the reduced axes the values are sorted (NaNs last, and left out of
the count by the nan* functions); quantile q sits at the virtual index
``i = q (n - 1)`` (q / 100 for a percentile), between the sorted values
``lo = floor(i)`` and ``hi = min(lo + 1, n - 1)`` with weight
``gamma = i - lo``: the result ``(1 - gamma) s[lo] + gamma s[hi]``. It is
linear in the values once their order is fixed, and linear in q between
two sorted values. Where two values are equal (ties) or q falls on a
sorted value, the function is not differentiable: the derivative is
that of the order argsort gives and of the interval above the virtual
index, as with JAX's sort-based quantile. Other methods are refused.

Each helper is linear in the array it moves, with a forward rule in
templates/numpy_reductions_forward.py, so second derivatives follow.
"""
import numpy as np

from tangent_ad.errors import NoDerivativeError
from tangent_ad.runtime.arrays import as_array
from tangent_ad.runtime.core import _axes, _like, unreduce

__all__ = ["quantile_of", "quantile_step", "unquantile", "unquantile_q", "unquantile_step",
           "unreduce_nanvar"]


def _layout(a, q, axis, keepdims, method, per, nan, overwrite_input):
    """The sorted layout of `a` and the positions of the quantiles q."""
    if method != "linear":
        raise NoDerivativeError(
            f"the derivative of a quantile is implemented for method='linear' only, "
            f"not {method!r}",
            hint="use the default method, or wrap the call in tangent_ad.stop_gradient")
    if overwrite_input:
        raise NoDerivativeError(
            "the derivative of a quantile with overwrite_input=True is not supported: "
            "the call reorders its argument, whose derivative it needs",
            hint="leave overwrite_input at its default, False")
    axes = _axes(axis, np.ndim(a))
    ends = tuple(range(-len(axes), 0))
    moved = np.moveaxis(a, axes, ends)
    rest = np.shape(moved)[:np.ndim(a) - len(axes)]
    values = np.reshape(moved, rest + (-1,))
    n = np.shape(values)[-1]
    order = np.argsort(values, axis=-1)
    count = np.sum(~np.isnan(values), axis=-1) if nan else np.full(rest, n)
    last = np.maximum(count - 1, 0)
    q = as_array(q) / per
    qshape = np.shape(q)
    index = np.reshape(q, qshape + (1,) * len(rest)) * last
    lo = np.clip(np.floor(index), 0, last).astype(int)
    hi = np.minimum(lo + 1, last)
    kept = tuple(1 if k in axes else s for k, s in enumerate(np.shape(a)))
    shape = qshape + (kept if keepdims else rest)
    return dict(axes=axes, ends=ends, moved_shape=np.shape(moved), rest=rest, order=order,
                n=n, lo=lo, hi=hi, gamma=index - lo, scale=last / per, qshape=qshape,
                shape=shape)


def _sorted(t, layout):
    """`t` (shaped like a) in a's sorted order, broadcast over the q axes."""
    t = np.moveaxis(t, layout["axes"], layout["ends"])
    t = np.take_along_axis(np.reshape(t, layout["rest"] + (-1,)), layout["order"], -1)
    return np.broadcast_to(t, layout["qshape"] + np.shape(t))


def _pick(ts, index):
    return np.take_along_axis(ts, np.broadcast_to(index, np.shape(ts)[:-1])[..., None], -1)[..., 0]


def _unsorted(parts, layout, like):
    """The adjoint of `_sorted`: `parts` (q axes + rest + sorted axis)
    summed over the q axes and put back in a's order and layout."""
    s = np.sum(parts, axis=tuple(range(len(layout["qshape"]))))
    s = np.take_along_axis(s, np.argsort(layout["order"], axis=-1), -1)
    s = np.reshape(s, layout["moved_shape"])
    return _like(np.moveaxis(s, layout["ends"], layout["axes"]), like)


def _onehot(index, layout, weights):
    return (np.arange(layout["n"]) == index[..., None]) * weights[..., None]


def _inner(g, layout):
    return np.reshape(np.broadcast_to(g, layout["shape"]), layout["qshape"] + layout["rest"])


def quantile_of(t, a, q, axis=None, keepdims=False, method="linear", per=1.0, nan=False,
                overwrite_input=False):
    """The linear map ``t -> (1 - gamma) t[lo] + gamma t[hi]`` with the
    positions of the quantiles `q` of `a`: the tangent of the quantile for
    a tangent `t` of `a`.

    >>> quantile_of(np.array([10.0, 20.0, 30.0]), np.array([3.0, 1.0, 2.0]), 0.25)
    np.float64(25.0)
    """
    layout = _layout(a, q, axis, keepdims, method, per, nan, overwrite_input)
    ts = _sorted(t, layout)
    out = (1 - layout["gamma"]) * _pick(ts, layout["lo"]) + layout["gamma"] * _pick(ts, layout["hi"])
    return np.reshape(out, layout["shape"])[()]


def quantile_step(t, a, q, dq, axis=None, keepdims=False, method="linear", per=1.0, nan=False,
                overwrite_input=False):
    """The slope of the quantile in q, applied to `dq`, with the values
    `t` in place of a: ``dq (n - 1) (t[hi] - t[lo])`` (bilinear in t, dq).

    >>> quantile_step(np.array([3.0, 1.0, 2.0]), np.array([3.0, 1.0, 2.0]), 0.25, 1.0)
    np.float64(2.0)
    """
    layout = _layout(a, q, axis, keepdims, method, per, nan, overwrite_input)
    ts = _sorted(t, layout)
    dq = np.reshape(dq, layout["qshape"] + (1,) * len(layout["rest"]))
    out = dq * layout["scale"] * (_pick(ts, layout["hi"]) - _pick(ts, layout["lo"]))
    return np.reshape(out, layout["shape"])[()]


def unquantile(g, a, q, axis=None, keepdims=False, method="linear", per=1.0, nan=False,
                overwrite_input=False):
    """The adjoint of `a` in ``np.quantile(a, q, axis)`` (the adjoint of
    `quantile_of`): ``(1 - gamma) g`` to the lower of the two sorted values
    around each quantile, ``gamma g`` to the upper one.

    >>> unquantile(1.0, np.array([3.0, 1.0, 2.0]), 0.25)
    array([0. , 0.5, 0.5])
    """
    layout = _layout(a, q, axis, keepdims, method, per, nan, overwrite_input)
    g = _inner(g, layout)
    parts = _onehot(layout["lo"], layout, g * (1 - layout["gamma"])) + \
        _onehot(layout["hi"], layout, g * layout["gamma"])
    return _unsorted(parts, layout, a)


def unquantile_step(g, a, q, dq, axis=None, keepdims=False, method="linear", per=1.0, nan=False,
                overwrite_input=False):
    """The adjoint of `t` in ``quantile_step(t, a, q, dq)``: ``g dq (n - 1)``
    to the upper sorted value, minus that to the lower one.

    >>> unquantile_step(1.0, np.array([3.0, 1.0, 2.0]), 0.25, 1.0)
    array([ 0., -2.,  2.])
    """
    layout = _layout(a, q, axis, keepdims, method, per, nan, overwrite_input)
    dq = np.reshape(dq, layout["qshape"] + (1,) * len(layout["rest"]))
    step = _inner(g, layout) * dq * layout["scale"]
    parts = _onehot(layout["hi"], layout, step) - _onehot(layout["lo"], layout, step)
    return _unsorted(parts, layout, a)


def unquantile_q(g, t, a, q, axis=None, keepdims=False, method="linear", per=1.0, nan=False,
                overwrite_input=False):
    """The adjoint of `dq` in ``quantile_step(t, a, q, dq)``, hence (with
    t = a) that of q in ``np.quantile(a, q)``: ``g (n - 1) (t[hi] - t[lo])``
    summed over the reduced axes, shaped like q.

    >>> unquantile_q(1.0, np.array([3.0, 1.0, 2.0]), np.array([3.0, 1.0, 2.0]), 0.25)
    2.0
    """
    layout = _layout(a, q, axis, keepdims, method, per, nan, overwrite_input)
    ts = _sorted(t, layout)
    slope = layout["scale"] * (_pick(ts, layout["hi"]) - _pick(ts, layout["lo"]))
    out = np.sum(_inner(g, layout) * slope,
                 axis=tuple(range(len(layout["qshape"]), len(layout["qshape"]) + len(layout["rest"]))))
    return _like(out, q)


def unreduce_nanvar(g, x, axis=None, ddof=0, keepdims=False, valid_from=None):
    """Spread the adjoint `g` of ``np.nanvar(x, axis, ddof=ddof)`` over `x`:
    g 2 (x - mean) / (n - ddof) on the elements that are not NaN (n of
    them), 0 on the NaNs. Which elements count is read from `valid_from`
    when given (the tangent rule passes x's tangent as `x`); linear in g
    and in x. Complex entries: the slope is conjugated, as unreduce_var's.

    >>> unreduce_nanvar(1.0, np.array([1.0, np.nan, 3.0]))
    array([-1.,  0.,  1.])
    """
    valid = ~np.isnan(x if valid_from is None else valid_from)
    axes = _axes(axis, np.ndim(x))
    values = np.where(valid, x, 0.0)
    n = np.sum(valid, axis=axes, keepdims=True)
    mean = np.sum(values, axis=axes, keepdims=True) / np.maximum(n, 1)
    slope = np.where(valid, 2.0 * np.conj(values - mean) / (n - ddof), 0.0)
    return _like(unreduce(np.real(g), x, axis, keepdims) * slope, x)
