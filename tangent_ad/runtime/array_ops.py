"""Runtime helpers of the rules in templates/numpy_arrays.py: the
adjoints of ``np.cross`` with its axis arguments, of ``np.gradient`` and
of ``np.select``. Each is linear in the adjoint it moves. And
``real_matrix``, the guard of rules written for real matrices."""
import numpy as np

from tangent_ad.errors import NoDerivativeError
from tangent_ad.runtime.core import unbroadcast

__all__ = ["grad_cross_lhs", "grad_cross_rhs", "ungradient", "unselect", "unselect_default",
           "real_matrix", "convolution_full", "signal_full"]


# ---- np.cross --------------------------------------------------------------

def _as_3_vectors(x, axis):
    """`x` with its vector axis last, 2-vectors padded with a zero z."""
    x = np.moveaxis(x, axis, -1)
    if np.shape(x)[-1] == 2:
        x = np.concatenate([x, np.zeros_like(x[..., :1])], axis=-1)
    return x


def _cross_parts(g, a, b, axisa, axisb, axisc, axis):
    if axis is not None:
        axisa = axisb = axisc = axis
    a3, b3 = _as_3_vectors(a, axisa), _as_3_vectors(b, axisb)
    if np.shape(a)[axisa] == 2 and np.shape(b)[axisb] == 2:  # the result is z alone
        g3 = np.stack([np.zeros_like(g), np.zeros_like(g), g], axis=-1)
    else:
        g3 = np.moveaxis(g, axisc, -1)
    return g3, a3, b3, axisa, axisb


def _back(grad3, x, axis):
    """A 3-vector adjoint back to `x`'s vector length, axis and shape."""
    grad = grad3[..., :np.shape(x)[axis]]
    return unbroadcast(np.moveaxis(grad, -1, axis), x)


def grad_cross_lhs(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The adjoint of `a` in ``np.cross(a, b, axisa, axisb, axisc, axis)``:
    ``cross(b, g)`` with the vectors along the last axis.

    >>> grad_cross_lhs(np.array([0.0, 0.0, 1.0]), np.zeros(3), np.array([1.0, 0.0, 0.0]))
    array([ 0., -1.,  0.])
    """
    g3, _, b3, axisa, _ = _cross_parts(g, a, b, axisa, axisb, axisc, axis)
    return _back(np.cross(b3, g3), a, axisa)


def grad_cross_rhs(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The adjoint of `b` in ``np.cross(a, b, ...)``: ``cross(g, a)``."""
    g3, a3, _, _, axisb = _cross_parts(g, a, b, axisa, axisb, axisc, axis)
    return _back(np.cross(g3, a3), b, axisb)


# ---- np.gradient -----------------------------------------------------------

def _ungradient_axis(g, axis):
    """The adjoint of the unit-spacing, first-order-edge difference along
    `axis`: y[0] = x[1] - x[0], y[i] = (x[i+1] - x[i-1]) / 2, y[-1] =
    x[-1] - x[-2]."""
    g = np.moveaxis(g, axis, -1)
    half = np.concatenate([g[..., :1], g[..., 1:-1] / 2, g[..., -1:]], axis=-1)
    zero = np.zeros_like(g[..., :1])
    grad = np.concatenate([zero, half[..., :-1]], axis=-1) - \
        np.concatenate([half[..., 1:], zero], axis=-1)
    grad = np.concatenate([grad[..., :1] - g[..., :1], grad[..., 1:-1],
                           grad[..., -1:] + g[..., -1:]], axis=-1)
    return np.moveaxis(grad, -1, axis)


def ungradient(g, f, axis=None, edge_order=1):
    """The adjoint of `f` in ``np.gradient(f, axis=axis)`` (unit spacing,
    ``edge_order=1``) from `g`: one adjoint per axis (a tuple, entries
    possibly None) or one array for one axis.

    >>> ungradient(np.array([1.0, 0.0, 0.0]), np.zeros(3))
    array([-1.,  1.,  0.])
    """
    if edge_order != 1:
        raise NoDerivativeError("the derivative of np.gradient is implemented for edge_order=1")
    ndim = np.ndim(f)
    axes = tuple(range(ndim)) if axis is None else \
        tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))
    parts = (g,) if len(axes) == 1 else tuple(g)
    total = np.zeros(np.shape(f), dtype=np.result_type(f, *[p for p in parts if p is not None]))
    for ax, part in zip(axes, parts):
        if part is not None:
            total = total + _ungradient_axis(part, ax)
    return total


# ---- np.select -------------------------------------------------------------

def _chosen(condlist, shape):
    """For each choice, where np.select takes it: its condition holds and no
    earlier one does."""
    taken = np.zeros(shape, dtype=bool)
    masks = []
    for cond in condlist:
        cond = np.broadcast_to(cond, shape)
        masks.append(cond & ~taken)
        taken = taken | cond
    return masks, taken


def unselect(g, condlist, choicelist):
    """The adjoints of the choices in ``np.select(condlist, choicelist)``:
    `g` where each is taken, 0 elsewhere.

    >>> unselect(np.ones(2), [np.array([True, False])], [np.zeros(2)])
    [array([1., 0.])]
    """
    masks, _ = _chosen(condlist, np.shape(g))
    return [unbroadcast(np.where(m, g, 0.0), c) for m, c in zip(masks, choicelist)]


def unselect_default(g, condlist, default):
    """The adjoint of `default` in ``np.select(condlist, choicelist,
    default)``: `g` where no condition holds."""
    _, taken = _chosen(condlist, np.shape(g))
    return unbroadcast(np.where(taken, 0.0, g), default)


# ---- np.convolve ----------------------------------------------------------

def convolution_full(g, a, v, mode="full"):
    """The adjoint `g` of ``np.convolve(a, v, mode)`` placed in the full
    convolution (zeros outside), from where the adjoint of each operand is a
    'valid' convolution with the other one reversed. 'same' keeps the full
    result from (min(n, m) - 1) // 2 on, 'valid' from min(n, m) - 1.

    >>> convolution_full(np.ones(2), np.ones(3), np.ones(2), "valid")
    array([0., 1., 1., 0.])
    """
    n, m = np.size(a), np.size(v)
    mode = {"f": "full", "s": "same", "v": "valid"}.get(str(mode)[:1], mode)
    start = {"full": 0, "same": (min(n, m) - 1) // 2, "valid": min(n, m) - 1}[mode]
    g = np.reshape(g, (-1,))
    return np.pad(g, (start, n + m - 1 - start - np.size(g)))


def signal_full(g, in1, in2, mode="full"):
    """The adjoint `g` of ``scipy.signal.convolve(in1, in2, mode)`` (or of
    ``correlate``) placed in the full N-d result (zeros outside), along
    each axis from (m - 1) // 2 for 'same', min(n, m) - 1 for 'valid'
    (SciPy centres both in the full result).

    >>> signal_full(np.ones((1, 2)), np.ones((2, 3)), np.ones((2, 2)), "valid")
    array([[0., 0., 0., 0.],
           [0., 1., 1., 0.],
           [0., 0., 0., 0.]])
    """
    pads = []
    for n, m, k in zip(np.shape(in1), np.shape(in2), np.shape(g)):
        start = {"full": 0, "same": (m - 1) // 2, "valid": min(n, m) - 1}[mode]
        pads.append((start, n + m - 1 - start - k))
    return np.pad(g, pads)


# ---- guards ----------------------------------------------------------------

def real_matrix(a, what):
    """`a`, refused when complex: the rules that call it (`what`) use plain
    transposes where a complex matrix needs conjugate ones.

    >>> real_matrix(np.eye(2), "np.linalg.pinv")[0, 0]
    np.float64(1.0)
    """
    if np.iscomplexobj(a):
        raise NoDerivativeError(f"the derivative of {what} is implemented for real matrices only")
    return a
