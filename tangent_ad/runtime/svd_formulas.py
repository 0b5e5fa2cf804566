"""The formulas of ``np.linalg.svd``'s derivative (runtime/svd.py), for real
and complex matrices, written once for arrays and for dual numbers.

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


def _h(x):
    """The conjugate transpose (the transpose, for a real x)."""
    x = np.swapaxes(x, -1, -2)
    return np.conj(x) if np.iscomplexobj(x) else x


def _c(x):
    """`x` conjugated, for complex values (an array or a Dual)."""
    return linear(np.conj, x) if np.iscomplexobj(value(x)) else x


def _diagonal_matrix(d, k):
    return linear(np.expand_dims, d, -1) * np.eye(k)


def _gaps(s, k):
    """``1 / (s_j^2 - s_i^2)`` off the diagonal, 0 on it."""
    s2 = s * s
    gaps = linear(np.expand_dims, s2, -2) - linear(np.expand_dims, s2, -1)
    eye = np.eye(k)
    return (1.0 - eye) * (1.0 / (gaps + eye))


def _phase(m, s, k):
    """``diag(i Im(m_ii) / s_i)``: for a complex matrix, the part of du
    that fixes the phase of each pair of vectors (dv gets none)."""
    return _diagonal_matrix(1j * linear(np.imag, linear(np.diagonal, m, 0, -2, -1)) / s, k)


def vectors_adjoint(gu, gs, gvh, u, s, vh):
    """The adjoint of a from those of (u, s, vh) (any may be None), in the
    convention of the other reverse rules (JAX's): the transpose of
    `vectors_tangent` for the real inner product is taken on conjugated
    adjoints, and conjugated back."""
    k = np.shape(value(s))[-1]
    f = _gaps(s, k)
    sd = linear(np.expand_dims, s, -2)  # multiplies columns by s
    complex_ = np.iscomplexobj(value(u))
    inner, total = 0.0, 0.0
    if gs is not None:
        inner = inner + _diagonal_matrix(gs, k)
    if gu is not None:
        gu = _c(gu)
        ugu = linear(_h, u) @ gu
        inner = inner + (f * (ugu - linear(_h, ugu))) * sd
        if complex_:
            inner = inner + _phase(ugu, s, k)
        total = total + ((gu - u @ ugu) / sd) @ vh
    if gvh is not None:
        v, gv = linear(_h, vh), linear(_h, _c(gvh))
        vgv = linear(_h, v) @ gv
        inner = inner + linear(np.expand_dims, s, -1) * (f * (vgv - linear(_h, vgv)))
        total = total + (u / sd) @ linear(_h, gv - v @ vgv)
    return _c(total + u @ (inner @ vh))


def vectors_tangent(da, u, s, vh):
    """The tangents (du, ds, dvh) from that of a."""
    k = np.shape(value(s))[-1]
    v = linear(_h, vh)
    dav = da @ v
    p = linear(_h, u) @ dav
    f = _gaps(s, k)
    sd, sc = linear(np.expand_dims, s, -2), linear(np.expand_dims, s, -1)
    ds = linear(np.real, linear(np.diagonal, p, 0, -2, -1))
    inner = f * (p * sd + sc * linear(_h, p))
    if np.iscomplexobj(value(p)):
        inner = inner + _phase(p, s, k)
    du = u @ inner + (dav - u @ (linear(_h, u) @ dav)) / sd
    dau = linear(_h, da) @ u
    dv = v @ (f * (sc * p + linear(_h, p) * sd)) + (dau - v @ (vh @ dau)) / sd
    return du, ds, linear(_h, dv)
