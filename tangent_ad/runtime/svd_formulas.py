"""The formulas of ``np.linalg.svd``'s derivative (runtime/svd.py) for real
singular vectors, written once for arrays and for dual numbers.

``vectors_adjoint`` is the adjoint of a from those of (u, s, vh),
``vectors_tangent`` the tangents of (u, s, vh) from that of a (the
formulas in svd.py's docstring). Both are built from products, sums,
quotients and linear maps (transposes, expand_dims, diagonals) only, so
evaluating them on ``Dual`` numbers, a value with a tangent, gives their
own tangents exactly: that is how svd.py differentiates them a second
time (forward over reverse, forward over forward) without a second set
of hand-derived formulas.
"""
import numpy as np

__all__ = []


class Dual:
    """A value and its tangent (None for zero), with the arithmetic the
    formulas use; the product rule and the quotient rule are the only
    calculus here.

    >>> (Dual(np.array([2.0]), np.array([1.0])) * Dual(np.array([3.0]))).t
    array([3.])
    """
    __slots__ = ("v", "t")
    __array_ufunc__ = None  # a NumPy array on the left defers to these methods

    def __init__(self, v, t=None):
        self.v, self.t = v, t

    def __add__(self, other):
        other = lift(other)
        return Dual(self.v + other.v, _plus(self.t, other.t))

    __radd__ = __add__

    def __neg__(self):
        return Dual(-self.v, None if self.t is None else -self.t)

    def __sub__(self, other):
        return self + -lift(other)

    def __rsub__(self, other):
        return lift(other) - self

    def __mul__(self, other):
        other = lift(other)
        return Dual(self.v * other.v, _plus(_times(self.t, other.v), _times(self.v, other.t)))

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = lift(other)
        quotient = self.v / other.v
        return Dual(quotient, _plus(None if self.t is None else self.t / other.v,
                                    None if other.t is None else -quotient * other.t / other.v))

    def __rtruediv__(self, other):
        return lift(other) / self

    def __matmul__(self, other):
        other = lift(other)
        return Dual(self.v @ other.v, _plus(_mat(self.t, other.v), _mat(self.v, other.t)))

    def __rmatmul__(self, other):
        return lift(other) @ self


def lift(x):
    return x if isinstance(x, Dual) else Dual(x)


def _plus(a, b):
    return b if a is None else a if b is None else a + b


def _times(a, b):
    return None if a is None or b is None else a * b


def _mat(a, b):
    return None if a is None or b is None else a @ b


def linear(f, x, *args):
    """A linear map `f` of `x` (an array or a Dual), applied to both parts."""
    if not isinstance(x, Dual):
        return f(x, *args)
    return Dual(f(x.v, *args), None if x.t is None else f(x.t, *args))


def value(x):
    return x.v if isinstance(x, Dual) else x


def _t(x):
    return np.swapaxes(x, -1, -2)


def _gaps(s, k):
    """``1 / (s_j^2 - s_i^2)`` off the diagonal, 0 on it."""
    s2 = s * s
    gaps = linear(np.expand_dims, s2, -2) - linear(np.expand_dims, s2, -1)
    eye = np.eye(k)
    return (1.0 - eye) * (1.0 / (gaps + eye))


def vectors_adjoint(gu, gs, gvh, u, s, vh):
    """The adjoint of a from those of (u, s, vh) (any may be None)."""
    k = np.shape(value(s))[-1]
    f = _gaps(s, k)
    sd = linear(np.expand_dims, s, -2)  # multiplies columns by s
    inner, total = 0.0, 0.0
    if gs is not None:
        inner = inner + linear(np.expand_dims, gs, -1) * np.eye(k)
    if gu is not None:
        ugu = linear(_t, u) @ gu
        inner = inner + (f * (ugu - linear(_t, ugu))) * sd
        total = total + ((gu - u @ ugu) / sd) @ vh
    if gvh is not None:
        v, gv = linear(_t, vh), linear(_t, gvh)
        vgv = linear(_t, v) @ gv
        inner = inner + linear(np.expand_dims, s, -1) * (f * (vgv - linear(_t, vgv)))
        total = total + (u / sd) @ linear(_t, gv - v @ vgv)
    return total + u @ (inner @ vh)


def vectors_tangent(da, u, s, vh):
    """The tangents (du, ds, dvh) from that of a."""
    k = np.shape(value(s))[-1]
    v = linear(_t, vh)
    dav = da @ v
    p = linear(_t, u) @ dav
    f = _gaps(s, k)
    sd, sc = linear(np.expand_dims, s, -2), linear(np.expand_dims, s, -1)
    ds = linear(np.diagonal, p, 0, -2, -1)
    du = u @ (f * (p * sd + sc * linear(_t, p))) + (dav - u @ (linear(_t, u) @ dav)) / sd
    dau = linear(_t, da) @ u
    dv = v @ (f * (sc * p + linear(_t, p) * sd)) + (dau - v @ (vh @ dau)) / sd
    return du, ds, linear(_t, dv)
