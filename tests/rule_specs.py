"""The rule table: one line per derivative rule under test.

A :class:`Spec` names the registered function it exercises (the registry
key), an expression calling it on named arguments, and each argument's
shape (``None`` for a Python float). ``test_numpy_rules.py`` writes each
spec as a real function (``v = <expression>``, then ``return np.sum(v *
weight)``) and checks its gradient with respect to all the named arguments
against central differences, in float64 and in float32. A spec whose rule
is known to be wrong carries the diagnosis as its ``xfail`` reason.

Adding a rule is one line: a ``Spec``, or ``*unary(...)`` / ``*binary(...)``
for an elementwise function, which expand into specs at the standard
scalar, vector, matrix, broadcast and Python-float shapes.
"""
import operator

import numpy as np

from tangent_ad.runtime import appended, updated

DEFAULT_DOMAIN = (-1.0, 1.0)
POSITIVE = (0.5, 2.0)
RESERVED_NAMES = {"np", "v", "weight"}  # used by the functions the test writes

UNARY_SHAPES = ((), (4,), (3, 2), None)
BINARY_SHAPES = (
    ((3, 2), (3, 2)), ((3, 2), (1, 2)), ((3, 1), (1, 2)), ((), (3,)),
    ((3, 2), (2,)), ((3, 2), None), (None, (3,)), (None, None),
)


class Spec:
    """One gradient check.

    `domain` is a ``(low, high)`` range for every argument, or a dict of
    ranges by argument name (the others use DEFAULT_DOMAIN). `xfail` is
    the reason a known-wrong rule fails this check, or a dict of reasons
    by dtype name ("float32", "float64") when only one dtype fails.
    `tol` is a dict of ``(rtol, atol)`` by dtype name, overriding
    ``tangent_ad.testing.tolerances``.
    """

    def __init__(self, key, expr, *, domain=DEFAULT_DOMAIN, xfail=None,
                 tol=None, **shapes):
        assert not RESERVED_NAMES & set(shapes), f"{expr}: rename the argument"
        self.key = key
        self.expr = expr
        self.shapes = shapes
        self.domains = {name: domain.get(name, DEFAULT_DOMAIN)
                        if isinstance(domain, dict) else domain
                        for name in shapes}
        self.xfail = xfail
        self.tol = tol or {}
        described = ", ".join(f"{name}={'float' if shape is None else shape}"
                              for name, shape in shapes.items())
        self.id = f"{expr} [{described}]"

    def xfail_reason(self, dtype):
        if isinstance(self.xfail, dict):
            return self.xfail.get(np.dtype(dtype).name)
        return self.xfail

    def tolerance(self, dtype):
        """Keyword arguments rtol and atol for check_grads (empty: defaults)."""
        rtol_atol = self.tol.get(np.dtype(dtype).name)
        return {} if rtol_atol is None else dict(zip(("rtol", "atol"), rtol_atol))

    def __repr__(self):
        return f"Spec({self.id})"


def unary(key, expr, **options):
    """Specs of a one-argument elementwise expression in `x` at UNARY_SHAPES."""
    return [Spec(key, expr, x=shape, **options) for shape in UNARY_SHAPES]


def binary(key, expr, **options):
    """Specs of a two-argument elementwise expression in `x`, `y` at BINARY_SHAPES."""
    return [Spec(key, expr, x=x, y=y, **options) for x, y in BINARY_SHAPES]


FULL_LIKE_OF_FLOAT = (  # an xfail reason shared by several specs
    "optimizer: simplify rewrites unreduce(g, x, None, False) to "
    "np.full_like(x, g), a 0-d ndarray for a Python float x; unreduce "
    "itself returns a float")


SPECS = [
    # ---- operators, binary --------------------------------------------------
    *binary(operator.add, "x + y"),
    Spec(operator.add, "x + x", x=(3,)),
    Spec(operator.add, "x + 1.0", x=(3, 2)),
    Spec(operator.matmul, "x @ y", x=(3, 4), y=(4, 2)),
    Spec(operator.matmul, "x @ y", x=(4,), y=(4, 2)),
    Spec(operator.matmul, "x @ y", x=(3, 4), y=(4,)),
    Spec(operator.matmul, "x @ y", x=(4,), y=(4,)),
    Spec(operator.matmul, "x @ y", x=(2, 3, 4), y=(4, 5)),
    Spec(operator.matmul, "x @ y", x=(2, 3, 4), y=(2, 4, 5)),
    Spec(operator.matmul, "x @ y", x=(4,), y=(2, 4, 5)),
    Spec(operator.matmul, "x @ y", x=(2, 1, 3, 4), y=(5, 4, 2)),
    *binary(operator.mul, "x * y"),
    Spec(operator.mul, "x * x", x=(3,)),
    Spec(operator.mul, "2.0 * x", x=(3, 2)),
    *binary(operator.pow, "x ** y", domain={"x": POSITIVE}),
    Spec(operator.pow, "x ** 2", x=(3, 2)),
    Spec(operator.pow, "x ** 3", x=(4,)),
    Spec(operator.pow, "x ** 0.5", x=(4,), domain=POSITIVE),
    Spec(operator.pow, "x ** -1", x=(4,), domain=POSITIVE),
    Spec(operator.pow, "2.0 ** x", x=(3, 2)),
    *binary(operator.sub, "x - y"),
    Spec(operator.sub, "x - x", x=(3,)),
    Spec(operator.mod, "x % 0.7", x=(3, 2), domain=(0.1, 0.6)),
    Spec(operator.mod, "x % y", x=(3, 2), y=(1, 2), domain={"x": (2.1, 2.6), "y": (0.9, 1.0)}),
    Spec(operator.sub, "1.0 - x", x=(3, 2)),
    *binary(operator.truediv, "x / y", domain={"y": POSITIVE}),
    Spec(operator.truediv, "1.0 / x", x=(3, 2), domain=POSITIVE),
    Spec(operator.truediv, "x / 4.0", x=(3, 2)),

    # ---- operators, unary ---------------------------------------------------
    *unary(operator.neg, "-x"),
    *unary(operator.pos, "+x"),

    # ---- elementwise, one argument ------------------------------------------
    *unary(np.abs, "np.abs(x)"),
    *unary(np.cos, "np.cos(x)"),
    *unary(np.exp, "np.exp(x)"),
    *unary(np.expm1, "np.expm1(x)"),
    *unary(np.log, "np.log(x)", domain=POSITIVE),
    *unary(np.log1p, "np.log1p(x)", domain=(-0.5, 2.0)),
    *unary(np.negative, "np.negative(x)"),
    *unary(np.sin, "np.sin(x)"),
    *unary(np.sqrt, "np.sqrt(x)", domain=POSITIVE),
    *unary(np.square, "np.square(x)"),
    *unary(np.tan, "np.tan(x)"),
    *unary(np.tanh, "np.tanh(x)"),
    Spec(np.tanh, "np.tanh(np.tanh(x))", x=(3, 2)),
    Spec(np.tanh, "np.tanh(np.tanh(np.tanh(np.tanh(np.tanh(x)))))", x=(3, 2)),

    # ---- elementwise, two or more arguments ---------------------------------
    *binary(np.add, "np.add(x, y)"),
    *binary(np.divide, "np.divide(x, y)", domain={"y": POSITIVE}),
    *binary(np.maximum, "np.maximum(x, y)"),
    Spec(np.maximum, "np.maximum(x, 0.0)", x=(3, 2)),
    *binary(np.minimum, "np.minimum(x, y)"),
    Spec(np.minimum, "np.minimum(x, 0.0)", x=(3, 2)),
    *binary(np.multiply, "np.multiply(x, y)"),
    *binary(np.power, "np.power(x, y)", domain={"x": POSITIVE}),
    Spec(np.power, "np.power(x, 3.0)", x=(3, 2)),
    *binary(np.subtract, "np.subtract(x, y)"),

    # ---- clipping and selection ---------------------------------------------
    Spec(np.clip, "np.clip(x, -0.5, 0.5)", x=(3, 2)),
    Spec(np.clip, "np.clip(x, a_max=0.3, a_min=-0.3)", x=(4,)),
    Spec(np.clip, "np.clip(x, None, 0.5)", x=(4,)),
    Spec(np.clip, "np.clip(x, min=-0.5, max=0.5)", x=(4,), xfail=(
        "rule: the template has no parameters for NumPy 2.1's min= and max= "
        "keywords, so tad.grad refuses the call (UnsupportedSyntaxError)")),
    Spec(np.clip, "np.clip(x, lo, hi)", x=(3, 2), lo=(3, 1), hi=(2,),
         domain={"lo": (-0.8, -0.2), "hi": (0.2, 0.8)}),
    Spec(np.clip, "np.clip(x, lo, hi)", x=(4,), lo=None, hi=None,
         domain={"lo": (-0.8, -0.2), "hi": (0.2, 0.8)}),
    Spec(np.where, "np.where(x > 0, x, y)", x=(3, 2), y=(3, 2)),
    Spec(np.where, "np.where(x > y, x, y)", x=(3, 2), y=(1, 2)),
    Spec(np.where, "np.where(x > 0, x, 0.0)", x=(4,)),
    Spec(np.where, "np.where(c > 0, x, y)", c=(3, 1), x=(3, 2), y=(2,)),
    Spec(np.where, "np.where(x > 0, s, x)", x=(3,), s=None),

    # ---- reductions ---------------------------------------------------------
    Spec(np.mean, "np.mean(x)", x=(3, 4)),
    Spec(np.mean, "np.mean(x, axis=0)", x=(3, 4)),
    Spec(np.mean, "np.mean(x, 1)", x=(3, 4)),
    Spec(np.mean, "np.mean(x, axis=-1, keepdims=True)", x=(2, 3, 4)),
    Spec(np.mean, "np.mean(x, axis=(0, 2))", x=(2, 3, 4)),
    Spec(np.mean, "np.mean(x, (0, 2), keepdims=True)", x=(2, 3, 4)),
    Spec(np.mean, "np.mean(x, keepdims=True)", x=(3, 4)),
    Spec(np.mean, "x - np.mean(x, axis=0)", x=(3, 4)),
    Spec(np.mean, "np.mean(x)", x=None, xfail=FULL_LIKE_OF_FLOAT),
    Spec(np.sum, "np.sum(x)", x=(3, 4)),
    Spec(np.sum, "np.sum(x)", x=()),
    Spec(np.sum, "np.sum(x)", x=None, xfail=FULL_LIKE_OF_FLOAT),
    Spec(np.sum, "np.sum(x, axis=0)", x=(3, 4)),
    Spec(np.sum, "np.sum(x, 1)", x=(3, 4)),
    Spec(np.sum, "np.sum(x, axis=None)", x=(3, 4)),
    Spec(np.sum, "np.sum(x, axis=1, keepdims=True)", x=(3, 4)),
    Spec(np.sum, "np.sum(x, axis=-1)", x=(2, 3, 4)),
    Spec(np.sum, "np.sum(x, axis=(0, 2))", x=(2, 3, 4)),
    Spec(np.sum, "np.sum(x, (-1, 0), keepdims=True)", x=(2, 3, 4)),
    Spec(np.sum, "np.sum(x, keepdims=True)", x=(3, 4)),
    Spec(np.sum, "x / np.sum(x, axis=1, keepdims=True)", x=(3, 4), domain=POSITIVE),

    # ---- shape --------------------------------------------------------------
    Spec(np.reshape, "np.reshape(x, (2, 6))", x=(3, 4)),
    Spec(np.reshape, "np.reshape(x, (-1,))", x=(3, 4)),
    Spec(np.reshape, "np.reshape(x, 6)", x=(2, 3)),
    Spec(np.reshape, "np.reshape(x, (4, -1, 1))", x=(2, 3, 2)),
    Spec(np.reshape, "np.reshape(x, shape=(3, 2))", x=(6,)),
    Spec(np.reshape, "np.reshape(x, (2, 6), order='F')", x=(3, 4), xfail=(
        "rule: the template has no order parameter, so tad.grad refuses "
        "the call (UnsupportedSyntaxError)")),
    Spec(np.reshape, "np.reshape(x, (1, 1))", x=None, xfail=(
        "rule: np.reshape(d[result], np.shape(a)) gives a 0-d ndarray, "
        "not a float, for a Python float a")),
    Spec(np.transpose, "np.transpose(x)", x=(2, 3, 4)),
    Spec(np.transpose, "np.transpose(x, (1, 0, 2))", x=(2, 3, 4)),
    Spec(np.transpose, "np.transpose(x, axes=(2, 0, 1))", x=(2, 3, 4)),
    Spec(np.transpose, "np.transpose(x, (-1, 0, 1))", x=(2, 3, 4)),
    Spec(np.transpose, "x.T", x=(3, 2)),
    Spec(np.transpose, "x.T", x=(2, 3, 4)),
    Spec(np.transpose, "x.T * y", x=(3, 2), y=(2, 1)),

    # ---- linear algebra -----------------------------------------------------
    Spec(np.dot, "np.dot(x, y)", x=(3, 4), y=(4, 2)),
    Spec(np.dot, "np.dot(x, y)", x=(4,), y=(4,)),
    Spec(np.dot, "np.dot(x, y)", x=(3, 4), y=(4,)),
    Spec(np.dot, "np.dot(x, y)", x=(4,), y=(4, 2)),
    Spec(np.dot, "np.dot(s, x)", s=None, x=(3, 2)),
    Spec(np.dot, "np.dot(x, y)", x=(2, 3, 4), y=(4, 5)),
    Spec(np.dot, "np.dot(x, y)", x=(2, 3, 4), y=(5, 4, 2), xfail=(
        "rule: np.dot of two N-D arrays is a tensordot over (-1, -2), not a "
        "batched matmul; grad_matmul_lhs raises ValueError broadcasting "
        "(2, 3, 5, 2) against (5, 4, 2)")),
    Spec(np.matmul, "np.matmul(x, y)", x=(3, 4), y=(4, 2)),
    Spec(np.matmul, "np.matmul(x, y)", x=(4,), y=(4,)),
    Spec(np.matmul, "np.matmul(x, y)", x=(2, 3, 4), y=(2, 4, 5)),
    Spec(np.matmul, "np.matmul(x, y)", x=(4,), y=(2, 4, 5)),
    Spec(np.matmul, "np.matmul(x, y)", x=(2, 1, 3, 4), y=(5, 4, 2)),

    # ---- zero derivative: the product rule does the rest --------------------
    # A random point lies within a finite-difference step of a kink with
    # probability of a few in a million; the seeds are fixed, so no flakes.
    Spec(np.ceil, "np.ceil(x) * x", x=(3, 2), domain=(-2.4, 2.4)),
    Spec(np.floor, "np.floor(x) * x", x=(3, 2), domain=(-2.4, 2.4)),
    Spec(np.rint, "np.rint(x) * x", x=(3, 2), domain=(-2.4, 2.4)),
    Spec(np.round, "np.round(x) * x", x=(3, 2), domain=(-2.4, 2.4)),
    Spec(np.sign, "np.sign(x) * x", x=(3, 2)),
    Spec(np.sign, "np.sign(x) * x", x=None),
    Spec(np.trunc, "np.trunc(x) * x", x=(3, 2), domain=(-2.4, 2.4)),
    Spec(np.ndim, "x * np.ndim(x)", x=(3, 2)),
    Spec(np.ones_like, "x * np.ones_like(y)", x=(3, 2), y=(3, 2)),
    Spec(np.shape, "np.reshape(x, np.shape(y)) * y", x=(6,), y=(2, 3)),
    Spec(np.size, "np.zeros_like(x) + x * np.size(x)", x=(3, 2)),
    Spec(np.zeros_like, "np.zeros_like(x) + y", x=(3, 2), y=(3, 2)),
    Spec(np.equal, "x * np.equal(np.sign(x), 1.0)", x=(4,)),
    Spec(np.greater, "np.where(np.greater(x, y), x, y)", x=(3, 2), y=(1, 2)),
    Spec(np.greater_equal, "x * np.greater_equal(x, y)", x=(3, 2), y=(3, 2)),
    Spec(np.less, "np.where(np.less(x, y), x, y)", x=(3, 2), y=(3, 2)),
    Spec(np.less_equal, "np.where(np.less_equal(x, y), x, y)", x=(3, 2), y=(1, 2)),
    Spec(np.not_equal, "np.where(np.not_equal(x, y), x, y)", x=(3, 2), y=(2,)),

    # ---- indexing -------------------------------------------------------------------
    Spec(operator.getitem, "x[1]", x=(3, 2)),
    Spec(operator.getitem, "x[-1] * x[0]", x=(4,)),
    Spec(operator.getitem, "x[1:3]", x=(4, 2)),
    Spec(operator.getitem, "x[::-2]", x=(5,)),
    Spec(operator.getitem, "x[:, 0]", x=(3, 2)),
    Spec(operator.getitem, "x[None]", x=(3,)),
    Spec(operator.getitem, "x[..., 1]", x=(2, 3, 2)),
    Spec(operator.getitem, "x[[0, 0, 2]]", x=(3, 2)),
    Spec(operator.getitem, "x[1][0]", x=(3, 2)),
    Spec(appended, "appended([x], y)[1] * x", x=(3,), y=(3,)),
    Spec(appended, "appended([x, y], y)[0] * y", x=(2, 2), y=(2, 2)),
    Spec(updated, "updated(x, 1, y)", x=(3,), y=None),
    Spec(updated, "updated(x, slice(0, 2, None), y)", x=(3, 2), y=(2,)),
    Spec(updated, "updated(x, (1, slice(None, None, None)), y * 2.0)", x=(3, 2), y=(1,)),

    # ---- builtins with no derivative -------------------------------------------
    Spec(len, "x * len(x)", x=(3, 2)),
    Spec(operator.floordiv, "x * (x // 0.7)", x=(3, 2), domain=(0.1, 0.6)),
    Spec(range, "x * len(range(3))", x=(3,)),
    Spec(int, "x * int(2.7)", x=(3,)),
    Spec(bool, "x * bool(1)", x=(3,)),
    Spec(round, "x * round(2.6)", x=(3,)),
    Spec(isinstance, "x * isinstance(x, float)", x=None),
]
