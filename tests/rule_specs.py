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
scalar, vector, matrix, broadcast and Python-float shapes. Expressions
may use the modules in NAMESPACE; the scipy.special specs exist only when
SciPy is installed, as do its rules.
"""
import math
import operator

import numpy as np

from tangent_ad.runtime import appended, c_concat, r_concat, updated

try:
    import scipy.special
except ImportError:  # SciPy is optional: its rules are not registered either
    scipy = None

DEFAULT_DOMAIN = (-1.0, 1.0)
POSITIVE = (0.5, 2.0)
# The modules the expressions may use, and the names the test's functions use.
NAMESPACE = {"np": np, "math": math, "appended": appended, "updated": updated,
             **({"scipy": scipy} if scipy else {})}
RESERVED_NAMES = {*NAMESPACE, "scipy", "v", "weight"}

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


SCIPY_SPECS = [] if scipy is None else [
    *unary(scipy.special.erf, "scipy.special.erf(x)"),
    *unary(scipy.special.erfc, "scipy.special.erfc(x)"),
    *unary(scipy.special.expit, "scipy.special.expit(x)", domain=(-3.0, 3.0)),
    *unary(scipy.special.gammaln, "scipy.special.gammaln(x)", domain=(0.2, 5.0)),
    Spec(scipy.special.gammaln, "scipy.special.gammaln(x)", x=(2, 2), domain=(-2.9, -2.1)),
    *unary(scipy.special.logit, "scipy.special.logit(x)", domain=(0.1, 0.9)),
    *binary(scipy.special.xlogy, "scipy.special.xlogy(x, y)", domain={"y": POSITIVE}),
    Spec(scipy.special.log_softmax, "scipy.special.log_softmax(x)", x=(4,)),
    Spec(scipy.special.log_softmax, "scipy.special.log_softmax(x, axis=1)", x=(3, 4)),
    Spec(scipy.special.log_softmax, "scipy.special.log_softmax(x, axis=(0, 2))", x=(2, 3, 2)),
    Spec(scipy.special.logsumexp, "scipy.special.logsumexp(x)", x=(3, 4)),
    Spec(scipy.special.logsumexp, "scipy.special.logsumexp(x, axis=0)", x=(3, 4)),
    Spec(scipy.special.logsumexp, "scipy.special.logsumexp(x, axis=-1, keepdims=True)",
         x=(2, 3, 4)),
    Spec(scipy.special.logsumexp, "scipy.special.logsumexp(x, b=y)", x=(3,), y=(3,),
         domain={"y": POSITIVE}),
    Spec(scipy.special.logsumexp, "scipy.special.logsumexp(x, 1, y)", x=(2, 3), y=(3,),
         domain={"y": POSITIVE}),
    Spec(scipy.special.softmax, "scipy.special.softmax(x)", x=(4,)),
    Spec(scipy.special.softmax, "scipy.special.softmax(x, axis=0)", x=(3, 4)),
    Spec(scipy.special.softmax, "scipy.special.softmax(x, axis=(1, 2))", x=(2, 3, 2)),
]

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
    Spec(operator.mul, "x * y", x=(1,), y=(3,)),
    Spec(operator.mul, "x * y", x=(1, 1), y=(3,)),
    Spec(operator.mul, "x * y", x=(1,), y=(1, 1)),
    Spec(operator.mul, "x * y", x=(3, 1), y=(1, 3)),
    Spec(operator.mul, "x * y", x=(1, 3), y=()),
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
    *unary(np.abs, "np.absolute(x)"),
    *unary(np.arccos, "np.arccos(x)", domain=(-0.9, 0.9)),
    *unary(np.arccosh, "np.arccosh(x)", domain=(1.2, 3.0)),
    *unary(np.arcsin, "np.arcsin(x)", domain=(-0.9, 0.9)),
    *unary(np.arcsinh, "np.arcsinh(x)"),
    *unary(np.arctan, "np.arctan(x)"),
    *unary(np.arctanh, "np.arctanh(x)", domain=(-0.9, 0.9)),
    *unary(np.cbrt, "np.cbrt(x)", domain=POSITIVE),
    Spec(np.cbrt, "np.cbrt(x)", x=(2, 3), domain=(-2.0, -0.5)),
    *unary(np.cosh, "np.cosh(x)"),
    *unary(np.deg2rad, "np.deg2rad(x)"),
    *unary(np.degrees, "np.degrees(x)"),
    *unary(np.exp2, "np.exp2(x)"),
    *unary(np.fabs, "np.fabs(x)"),
    *unary(np.log10, "np.log10(x)", domain=POSITIVE),
    *unary(np.log2, "np.log2(x)", domain=POSITIVE),
    *unary(np.nan_to_num, "np.nan_to_num(x)"),
    Spec(np.nan_to_num, "np.nan_to_num(np.log(x), neginf=-5.0)", x=(4,), domain=POSITIVE),
    *unary(np.positive, "np.positive(x)"),
    *unary(np.rad2deg, "np.rad2deg(x)"),
    *unary(np.radians, "np.radians(x)"),
    *unary(np.reciprocal, "np.reciprocal(x)", domain=POSITIVE),
    *unary(np.sinc, "np.sinc(x)", domain=(-2.0, 2.0)),
    *unary(np.sinh, "np.sinh(x)"),
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
    *binary(np.arctan2, "np.arctan2(x, y)", domain={"y": POSITIVE}),
    Spec(np.arctan2, "np.arctan2(x, y)", x=(2, 3), y=(2, 3), domain={"y": (-2.0, -0.5)}),
    Spec(np.divide, "np.true_divide(x, y)", x=(3, 2), y=(2,), domain={"y": POSITIVE}),
    *binary(np.float_power, "np.float_power(x, y)", domain={"x": POSITIVE}),
    *binary(np.fmax, "np.fmax(x, y)"),
    *binary(np.fmin, "np.fmin(x, y)"),
    *binary(np.hypot, "np.hypot(x, y)", domain=POSITIVE),
    *binary(np.logaddexp, "np.logaddexp(x, y)"),
    *binary(np.logaddexp2, "np.logaddexp2(x, y)"),
    *binary(np.mod, "np.mod(x, y)", domain={"x": (2.1, 2.6), "y": (0.9, 1.0)}),
    Spec(np.mod, "np.remainder(x, 0.7)", x=(3, 2), domain=(0.1, 0.6)),
    *binary(np.fmod, "np.fmod(x, y)", domain={"x": (-2.6, -2.1), "y": (0.9, 1.0)}),

    # ---- clipping and selection ---------------------------------------------
    Spec(np.clip, "np.clip(x, -0.5, 0.5)", x=(3, 2)),
    Spec(np.clip, "np.clip(x, a_max=0.3, a_min=-0.3)", x=(4,)),
    Spec(np.clip, "np.clip(x, None, 0.5)", x=(4,)),
    Spec(np.clip, "np.clip(x, min=-0.5, max=0.5)", x=(4,)),
    Spec(np.clip, "np.clip(x, min=lo)", x=(3, 2), lo=(2,), domain={"lo": (-0.5, 0.5)}),
    Spec(np.clip, "np.clip(x, lo, hi)", x=(2,), lo=(3, 1), hi=None,
         domain={"lo": (-0.8, -0.2), "hi": (0.2, 0.8)}),
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
    Spec(np.amax, "np.amax(x, axis=0)", x=(3, 4)),
    Spec(np.amin, "np.amin(x, axis=(0, 2), keepdims=True)", x=(2, 3, 4)),
    Spec(np.average, "np.average(x)", x=(3, 4)),
    Spec(np.average, "np.average(x, axis=1)", x=(3, 4)),
    Spec(np.average, "np.average(x, axis=(0, 1), keepdims=True)", x=(2, 3, 4)),
    Spec(np.cumprod, "np.cumprod(x)", x=(3, 2), domain=(0.5, 1.5)),
    Spec(np.cumprod, "np.cumprod(x, axis=1)", x=(3, 4), domain=(-1.5, -0.5)),
    Spec(np.cumsum, "np.cumsum(x)", x=(3, 4)),
    Spec(np.cumsum, "np.cumsum(x, axis=0)", x=(3, 4)),
    Spec(np.cumsum, "np.cumsum(x, -1)", x=(2, 3, 4)),
    Spec(np.cumsum, "np.cumsum(x)", x=()),
    Spec(np.diff, "np.diff(x)", x=(5,)),
    Spec(np.diff, "np.diff(x, 2, axis=0)", x=(4, 3)),
    Spec(np.diff, "np.diff(x, n=3)", x=(2, 5)),
    Spec(np.linalg.norm, "np.linalg.norm(x)", x=(4,)),
    Spec(np.linalg.norm, "np.linalg.norm(x)", x=(2, 3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, 'fro')", x=(3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, ord=1)", x=(4,)),
    Spec(np.linalg.norm, "np.linalg.norm(x, ord=3)", x=(4,)),
    Spec(np.linalg.norm, "np.linalg.norm(x, ord=0.5)", x=(4,), domain=POSITIVE),
    Spec(np.linalg.norm, "np.linalg.norm(x, np.inf)", x=(4,)),
    Spec(np.linalg.norm, "np.linalg.norm(x, -np.inf)", x=(4,)),
    Spec(np.linalg.norm, "np.linalg.norm(x, axis=1)", x=(3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1, axis=0, keepdims=True)", x=(3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, axis=(0, 2))", x=(2, 3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1)", x=(3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, -1)", x=(3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, np.inf)", x=(3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, -np.inf)", x=(3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, 2)", x=(3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, -2)", x=(3, 4)),
    Spec(np.linalg.norm, "np.linalg.norm(x, 'nuc')", x=(4, 3)),
    Spec(np.linalg.norm, "np.linalg.norm(x, 2, axis=(2, 0), keepdims=True)", x=(3, 2, 4)),
    Spec(np.max, "np.max(x)", x=(3, 4)),
    Spec(np.max, "np.max(x, axis=1)", x=(3, 4)),
    Spec(np.max, "np.max(x, -1, keepdims=True)", x=(2, 3, 4)),
    Spec(np.max, "np.max(x)", x=()),
    Spec(np.max, "np.max(x, axis=1) + np.log(np.sum(np.exp("
                 "x - np.max(x, axis=1, keepdims=True)), axis=1))", x=(3, 4)),
    Spec(np.min, "np.min(x)", x=(3, 4)),
    Spec(np.min, "np.min(x, axis=(0, 1))", x=(2, 3, 4)),
    Spec(np.min, "np.min(x, 0, keepdims=True)", x=(3, 4)),
    Spec(np.median, "np.median(x)", x=(5,)),
    Spec(np.median, "np.median(x)", x=(2, 3)),
    Spec(np.median, "np.median(x, axis=1)", x=(3, 4)),
    Spec(np.median, "np.median(x, axis=0, keepdims=True)", x=(3, 4)),
    Spec(np.nanmean, "np.nanmean(x)", x=(3, 4)),
    Spec(np.nanmean, "np.nanmean(np.where(x > 0.5, np.nan, x), axis=0)", x=(3, 4)),
    Spec(np.nansum, "np.nansum(x, axis=1)", x=(3, 4)),
    Spec(np.nansum, "np.nansum(np.where(x > 0.5, np.nan, x))", x=(3, 4)),
    Spec(np.mean, "np.mean(x, axis=0)", x=(3, 4)),
    Spec(np.mean, "np.mean(x, 1)", x=(3, 4)),
    Spec(np.mean, "np.mean(x, axis=-1, keepdims=True)", x=(2, 3, 4)),
    Spec(np.mean, "np.mean(x, axis=(0, 2))", x=(2, 3, 4)),
    Spec(np.mean, "np.mean(x, (0, 2), keepdims=True)", x=(2, 3, 4)),
    Spec(np.mean, "np.mean(x, keepdims=True)", x=(3, 4)),
    Spec(np.mean, "x - np.mean(x, axis=0)", x=(3, 4)),
    Spec(np.mean, "np.mean(x)", x=None, xfail=FULL_LIKE_OF_FLOAT),
    Spec(np.prod, "np.prod(x)", x=(3, 4), domain=(0.5, 1.5)),
    Spec(np.prod, "np.prod(x, axis=0)", x=(3, 4), domain=(-1.5, -0.5)),
    Spec(np.prod, "np.prod(x, axis=(0, 2), keepdims=True)", x=(2, 3, 2), domain=(0.5, 1.5)),
    Spec(np.ptp, "np.ptp(x)", x=(3, 4)),
    Spec(np.ptp, "np.ptp(x, axis=1)", x=(3, 4)),
    Spec(np.ptp, "np.ptp(x, axis=0, keepdims=True)", x=(3, 4)),
    Spec(np.std, "np.std(x)", x=(3, 4)),
    Spec(np.std, "np.std(x, axis=0, ddof=1)", x=(3, 4)),
    Spec(np.std, "np.std(x, (0, 2), keepdims=True)", x=(2, 3, 4)),
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
    Spec(np.sum, "np.log(np.sum(np.exp(x), axis=0))", x=(3, 4)),
    Spec(np.var, "np.var(x)", x=(3, 4)),
    Spec(np.var, "np.var(x, axis=1)", x=(3, 4)),
    Spec(np.var, "np.var(x, axis=-1, ddof=1, keepdims=True)", x=(2, 3, 4)),
    Spec(np.var, "np.var(x, ddof=2)", x=(5,)),
    # size-1 axes: reduced, kept, and broadcast against
    Spec(np.sum, "np.sum(x, axis=1)", x=(1, 3)),
    Spec(np.sum, "np.sum(x, axis=0, keepdims=True) * y", x=(3, 1), y=(1, 3)),
    Spec(np.sum, "np.sum(x, axis=1) + y", x=(1, 1), y=(1,)),
    Spec(np.sum, "np.sum(x, 0) * y", x=(1,), y=(3,)),
    Spec(np.mean, "np.mean(x, axis=1, keepdims=True) * y", x=(1, 3), y=(3, 1)),
    Spec(np.mean, "np.mean(x, axis=-1)", x=(3, 1)),
    Spec(np.var, "np.var(x, axis=0) + np.var(x, axis=1)", x=(1, 3)),
    Spec(np.std, "np.std(x, axis=1) + x", x=(3, 1)),
    Spec(np.std, "np.std(x, axis=1)", x=(1, 3)),
    Spec(np.max, "np.max(x, axis=0) * y", x=(3, 1), y=(1,)),
    Spec(np.median, "np.median(x, axis=(0, 2))", x=(2, 3, 2)),
    Spec(np.median, "np.median(x, axis=(0, 1), keepdims=True)", x=(1, 3)),
    Spec(np.linalg.norm, "np.linalg.norm(x, axis=1)", x=(1, 3)),
    Spec(np.prod, "np.prod(x, axis=(0, 1)) * y", x=(1, 1), y=(1, 3)),

    # ---- complex parts (real arguments here; complex ones in test_complex.py)
    Spec(np.angle, "np.angle(x) * x", x=(3, 2), domain=(-1.0, -0.2)),
    Spec(np.conj, "np.conj(x)", x=(3, 2)),
    Spec(np.conj, "np.conjugate(x)", x=(4,)),
    Spec(np.imag, "np.imag(x) + x", x=(3, 2)),
    Spec(np.real, "np.real(x)", x=(3, 2)),
    Spec(np.real, "np.real(x)", x=None),

    # ---- array construction -------------------------------------------------
    Spec(np.array, "np.array(x)", x=(3, 2)),
    Spec(np.array, "np.array(x, dtype=np.float64)", x=(3,)),
    Spec(np.array, "np.array(x, ndmin=2)", x=(3,)),
    Spec(np.array, "np.array(s)", s=None),
    Spec(np.array, "np.array((s, t))", s=None, t=None),
    Spec(np.array, "np.array((x, y))", x=(3,), y=(3,)),
    Spec(np.array, "np.array(((s, t), (t, 1.0)))", s=None, t=None),
    Spec(np.array, "np.array([s, t, s])", s=None, t=None),
    Spec(np.asarray, "np.asarray((x, y))", x=(2,), y=(2,)),
    *([Spec(np.astype, "np.astype(x, np.float64)", x=(3, 2)),
       Spec(np.astype, "np.real(np.astype(x, np.complex128)) * x", x=(3,))]
      if hasattr(np, "astype") else []),  # NumPy >= 2.1
    Spec(np.asarray, "np.asarray(x)", x=(3, 2)),
    Spec(np.asarray, "np.asarray(x, dtype=np.int64) * x", x=(3,), domain=(-2.4, 2.4)),
    Spec(np.array, "np.array((s, x), dtype=np.int64) * x", s=None, x=(), domain=(-2.4, 2.4)),
    Spec(np.asarray, "np.asarray(x, dtype=np.float64)", x=(3,)),
    Spec(np.full, "np.full((3, 2), s)", s=None),
    Spec(np.full, "np.full((3, 2), y) * x", x=(3, 2), y=(2,)),
    Spec(np.full_like, "np.full_like(x, s) * x", x=(3, 2), s=None),
    Spec(np.linspace, "np.linspace(s, t, 5)", s=None, t=None),
    Spec(np.linspace, "np.linspace(s, t, 4, endpoint=False)", s=None, t=None),
    Spec(np.linspace, "np.linspace(x, y, 5)", x=(3,), y=(3,)),
    Spec(np.linspace, "np.linspace(x, y, 4, axis=1)", x=(2, 3), y=(3,)),
    Spec(np.linspace, "np.linspace(x, y, 4, axis=-1)", x=(3,), y=None),

    # ---- shape: reshaping ---------------------------------------------------
    Spec(np.atleast_1d, "np.atleast_1d(s)", s=None),
    Spec(np.atleast_2d, "np.atleast_2d(x)", x=(3,)),
    Spec(np.atleast_3d, "np.atleast_3d(x)", x=(3, 2)),
    Spec(np.broadcast_to, "np.broadcast_to(x, (3, 2))", x=(2,)),
    Spec(np.broadcast_to, "np.broadcast_to(x, (2, 3, 2))", x=(3, 1)),
    Spec(np.broadcast_to, "np.broadcast_to(x, (3,))", x=()),
    Spec(np.broadcast_to, "np.broadcast_to(s, (3,))", s=None),
    Spec(np.expand_dims, "np.expand_dims(x, 0)", x=(3, 2)),
    Spec(np.expand_dims, "np.expand_dims(x, axis=-1)", x=(3, 2)),
    Spec(np.expand_dims, "np.expand_dims(x, (0, 2))", x=(3, 2)),
    Spec(np.ravel, "np.ravel(x)", x=(3, 4)),
    Spec(np.ravel, "np.ravel(x, order='F') * y", x=(3, 4), y=(12,)),
    Spec(np.reshape, "np.reshape(x, (2, 6))", x=(3, 4)),
    Spec(np.reshape, "np.reshape(x, (-1,))", x=(3, 4)),
    Spec(np.reshape, "np.reshape(x, 6)", x=(2, 3)),
    Spec(np.reshape, "np.reshape(x, (4, -1, 1))", x=(2, 3, 2)),
    Spec(np.reshape, "np.reshape(x, shape=(3, 2))", x=(6,)),
    Spec(np.reshape, "np.reshape(x, (2, 6), order='F') * y", x=(3, 4), y=(2, 6)),
    Spec(np.reshape, "np.reshape(x, (1, 1))", x=None, xfail=(
        "rule: np.reshape(d[result], np.shape(a)) gives a 0-d ndarray, "
        "not a float, for a Python float a")),
    Spec(np.squeeze, "np.squeeze(x)", x=(3, 1, 2)),
    Spec(np.squeeze, "np.squeeze(x, axis=1)", x=(3, 1, 1)),

    # ---- shape: permuting ---------------------------------------------------
    Spec(np.flip, "np.flip(x)", x=(3, 2)),
    Spec(np.flip, "np.flip(x, 0)", x=(3, 2)),
    Spec(np.flip, "np.flip(x, axis=(0, 2))", x=(2, 3, 2)),
    Spec(np.fliplr, "np.fliplr(x)", x=(3, 2)),
    Spec(np.flipud, "np.flipud(x)", x=(3, 2)),
    Spec(np.moveaxis, "np.moveaxis(x, 0, -1)", x=(2, 3, 4)),
    Spec(np.moveaxis, "np.moveaxis(x, (0, 1), (2, 0))", x=(2, 3, 4)),
    Spec(np.roll, "np.roll(x, 1)", x=(3, 2)),
    Spec(np.roll, "np.roll(x, -1, axis=1)", x=(3, 4)),
    Spec(np.roll, "np.roll(x, (1, -2), axis=(0, 1))", x=(3, 4)),
    Spec(np.sort, "np.sort(x)", x=(5,)),
    Spec(np.sort, "np.sort(x, axis=0)", x=(3, 4)),
    Spec(np.sort, "np.sort(x, axis=None)", x=(3, 4)),
    Spec(np.partition, "np.partition(x, 2)", x=(5,)),
    Spec(np.partition, "np.partition(x, (0, 2), axis=0)", x=(4, 3)),
    Spec(np.partition, "np.partition(x, 3, axis=None)", x=(3, 2)),
    Spec(np.rollaxis, "np.rollaxis(x, 2)", x=(2, 3, 4)),
    Spec(np.rollaxis, "np.rollaxis(x, 0, 3)", x=(2, 3, 4)),
    Spec(np.rollaxis, "np.rollaxis(x, -1, 1)", x=(2, 3, 4)),
    Spec(np.rot90, "np.rot90(x)", x=(3, 2)),
    Spec(np.rot90, "np.rot90(x, 3, axes=(1, 2))", x=(2, 3, 4)),
    Spec(np.swapaxes, "np.swapaxes(x, 0, 2)", x=(2, 3, 4)),
    Spec(np.swapaxes, "np.swapaxes(x, -1, 0)", x=(3, 2)),
    Spec(np.transpose, "np.transpose(x)", x=(2, 3, 4)),
    Spec(np.transpose, "np.transpose(x, (1, 0, 2))", x=(2, 3, 4)),
    Spec(np.transpose, "np.transpose(x, axes=(2, 0, 1))", x=(2, 3, 4)),
    Spec(np.transpose, "np.transpose(x, (-1, 0, 1))", x=(2, 3, 4)),
    Spec(np.transpose, "x.T", x=(3, 2)),
    Spec(np.transpose, "x.T", x=(2, 3, 4)),
    Spec(np.transpose, "x.T * y", x=(3, 2), y=(2, 1)),

    # ---- shape: joining and splitting ---------------------------------------
    # Tuples of arrays, and the lists np.split returns.
    Spec(np.array_split, "np.array_split(x, 2)[0] * 2.0", x=(4,)),
    Spec(np.array_split, "np.concatenate(np.array_split(x, 3))", x=(4,)),
    Spec(np.array_split, "np.array_split(x, 3)[0]", x=(4,)),
    Spec(np.column_stack, "np.column_stack(np.split(x, 2))", x=(4,)),
    Spec(np.dsplit, "np.dsplit(x, 2)[1]", x=(2, 2, 4)),
    Spec(np.hsplit, "np.hsplit(x, 2)[0]", x=(4,)),
    Spec(np.hsplit, "np.hsplit(x, (1,))[1]", x=(2, 3)),
    Spec(np.vsplit, "np.vsplit(x, 3)[2]", x=(3, 2)),
    Spec(np.column_stack, "np.column_stack(np.split(x, 2, axis=1))", x=(3, 4)),
    Spec(np.column_stack, "np.column_stack((x, y))", x=(3,), y=(3, 2)),
    Spec(np.concatenate, "np.concatenate(np.split(x, 2), axis=0)", x=(4, 3)),
    # np.r_[...] and np.c_[...], rewritten into r_concat((...)) and c_concat((...))
    Spec(r_concat, "np.r_[x, y]", x=(3,), y=(2,)),
    Spec(r_concat, "np.r_[x, 2.0, s, x]", x=(2,), s=None),
    Spec(r_concat, "np.r_[s, t]", s=None, t=None),
    Spec(r_concat, "np.r_[x, y]", x=(2, 3), y=(1, 3)),
    Spec(r_concat, "np.r_[x]", x=()),
    Spec(c_concat, "np.c_[x, y]", x=(3,), y=(3,)),
    Spec(c_concat, "np.c_[x, y, x]", x=(3,), y=(3, 2)),
    Spec(c_concat, "np.c_[x, y]", x=(2, 2), y=(2, 1)),
    Spec(c_concat, "np.c_[s, x]", s=None, x=(1, 2)),
    Spec(np.concatenate, "np.concatenate(np.split(x, (1, 3), axis=1), axis=1)", x=(2, 4)),
    Spec(np.concatenate, "np.concatenate((x, y))", x=(2,), y=(3,)),
    Spec(np.concatenate, "np.concatenate((x, y), axis=1)", x=(2, 2), y=(2, 3)),
    Spec(np.dstack, "np.dstack(np.split(x, 2))", x=(4,)),
    Spec(np.dstack, "np.dstack(np.split(x, 3, axis=1))", x=(2, 3)),
    Spec(np.dstack, "np.dstack((x, y))", x=(3, 2), y=(3, 2)),
    Spec(np.hstack, "np.hstack(np.split(x, 2))", x=(4,)),
    Spec(np.hstack, "np.hstack(np.split(x, (1, 3), axis=1))", x=(3, 4)),
    Spec(np.hstack, "np.hstack((x, y))", x=(2,), y=(3,)),
    Spec(np.split, "np.split(x, 2)[1]", x=(4,)),
    Spec(np.split, "np.split(x, 3, axis=1)[0] * y", x=(2, 3), y=(2, 1)),
    Spec(np.split, "np.split(x, (1, 3))[1]", x=(4,)),
    Spec(np.stack, "np.stack(np.split(x, 2))", x=(4,)),
    Spec(np.stack, "np.stack(np.split(x, 2), axis=-1)", x=(4, 3)),
    Spec(np.stack, "np.stack((x, y), axis=1)", x=(3,), y=(3,)),
    Spec(np.vstack, "np.vstack(np.split(x, 2))", x=(4,)),
    Spec(np.vstack, "np.vstack(np.split(x, (1,), axis=0))", x=(3, 2)),
    Spec(np.vstack, "np.vstack((x, y))", x=(3,), y=(2, 3)),
    Spec(np.concatenate, "np.concatenate((x, 2.0 * x, y))", x=(2,), y=(3,)),
    Spec(np.concatenate, "np.concat((x, y), axis=None)", x=(2, 2), y=(3,)),
    Spec(np.stack, "np.stack((x, y, x))", x=(2, 2), y=(2, 2)),
    Spec(np.hstack, "np.hstack((x, y))", x=(2, 1), y=(2, 3)),
    Spec(np.hstack, "np.hstack((x, s))", x=(2,), s=None),

    # ---- shape: copying -----------------------------------------------------
    Spec(np.append, "np.append(x, y)", x=(3, 2), y=(2,)),
    Spec(np.append, "np.append(x, y, axis=1)", x=(3, 2), y=(3, 1)),
    Spec(np.append, "np.append(x, s)", x=(3,), s=None),
    Spec(np.copy, "np.copy(x)", x=(3, 2)),
    Spec(np.copy, "x.copy()", x=(3,)),
    Spec(np.pad, "np.pad(x, 1)", x=(3, 2)),
    Spec(np.pad, "np.pad(x, ((1, 0), (2, 1)))", x=(3, 2)),
    Spec(np.pad, "np.pad(x, (1, 2), constant_values=s)", x=(3,), s=None),
    Spec(np.pad, "np.pad(x, (2, 1), 'constant', constant_values=c)", x=(3, 2), c=()),
    Spec(np.pad, "np.pad(x, ((1, 2), (2, 0)), mode='edge')", x=(3, 2)),
    Spec(np.pad, "np.pad(x, ((2, 1), (1, 3)), mode='reflect')", x=(3, 2)),
    Spec(np.pad, "np.pad(x, (5, 2), 'reflect')", x=(3,)),
    Spec(np.pad, "np.pad(x, ((2, 1), (1, 3)), mode='symmetric')", x=(3, 2)),
    Spec(np.pad, "np.pad(x, ((4, 1), (1, 2)), mode='wrap')", x=(3, 2)),
    Spec(np.repeat, "np.repeat(x, 2)", x=(3, 2)),
    Spec(np.real_if_close, "np.real_if_close(x)", x=(3, 2)),
    Spec(np.repeat, "np.repeat(x, (2, 0, 1), axis=0)", x=(3, 2)),
    Spec(np.repeat, "np.repeat(x, 3, axis=-1)", x=(3, 2)),
    Spec(np.repeat, "np.repeat(s, 3)", s=None),
    Spec(np.tile, "np.tile(x, 2)", x=(3, 2)),
    Spec(np.tile, "np.tile(x, (2, 1))", x=(3, 2)),
    Spec(np.tile, "np.tile(x, (2, 1, 3))", x=(3, 2)),
    Spec(np.tile, "np.tile(x, (2, 2))", x=(3,)),

    # ---- shape: selecting ---------------------------------------------------
    Spec(np.diag, "np.diag(x)", x=(3,)),
    Spec(np.diag, "np.diag(x, 1)", x=(3,)),
    Spec(np.diag, "np.diag(x, k=-1)", x=(3,)),
    Spec(np.diag, "np.diag(x)", x=(3, 4)),
    Spec(np.diag, "np.diag(x, 1)", x=(3, 4)),
    Spec(np.diag, "np.diag(x, -2)", x=(3, 4)),
    Spec(np.diagonal, "np.diagonal(x)", x=(3, 4)),
    Spec(np.diagonal, "np.diagonal(x, 1)", x=(3, 4)),
    Spec(np.diagonal, "np.diagonal(x, offset=-1, axis1=1, axis2=2)", x=(2, 3, 4)),
    Spec(np.take, "np.take(x, (0, 2, 2))", x=(3, 2)),
    Spec(np.take, "np.take(x, (1, 0), axis=1)", x=(3, 2)),
    Spec(np.take, "np.take(x, ((0, 1), (2, 2)), axis=0)", x=(3, 2)),
    Spec(np.take, "np.take(x, (5, -1), mode='wrap')", x=(4,)),
    Spec(np.take, "np.take(x, (5, -1), mode='clip')", x=(4,)),
    Spec(np.take_along_axis, "np.take_along_axis(x, np.argsort(x, axis=1), axis=1)", x=(3, 4)),
    Spec(np.take_along_axis, "np.take_along_axis(x, np.argsort(x, axis=0), 0)", x=(3, 4)),
    Spec(np.take_along_axis, "np.take_along_axis(x, np.argsort(x, axis=None), axis=None)",
         x=(3, 2)),
    Spec(np.trace, "np.trace(x)", x=(3, 4)),
    Spec(np.trace, "np.trace(x, 1)", x=(3, 4)),
    Spec(np.trace, "np.trace(x, axis1=1, axis2=2)", x=(2, 3, 3)),
    Spec(np.tril, "np.tril(x)", x=(3, 4)),
    Spec(np.tril, "np.tril(x, -1)", x=(2, 3, 3)),
    Spec(np.triu, "np.triu(x)", x=(3, 4)),
    Spec(np.triu, "np.triu(x, k=1)", x=(3, 4)),

    # ---- linear algebra: products -------------------------------------------
    Spec(np.cross, "np.cross(x, y)", x=(3,), y=(3,)),
    Spec(np.cross, "np.cross(x, y)", x=(4, 3), y=(3,)),
    Spec(np.cross, "np.cross(x, y, axis=0)", x=(3, 4), y=(3, 4)),
    Spec(np.dot, "np.dot(x, y)", x=(3, 4), y=(4, 2)),
    Spec(np.dot, "np.dot(x, y)", x=(4,), y=(4,)),
    Spec(np.dot, "np.dot(x, y)", x=(3, 4), y=(4,)),
    Spec(np.dot, "np.dot(x, y)", x=(4,), y=(4, 2)),
    Spec(np.dot, "np.dot(s, x)", s=None, x=(3, 2)),
    Spec(np.dot, "np.dot(x, y)", x=(2, 3, 4), y=(4, 5)),
    Spec(np.dot, "np.dot(x, y)", x=(2, 3, 4), y=(5, 4, 2)),
    Spec(np.dot, "np.dot(x, y)", x=(4,), y=(2, 4, 3)),
    Spec(np.einsum, "np.einsum('ij,jk->ik', x, y)", x=(3, 4), y=(4, 2)),
    Spec(np.einsum, "np.einsum('ii->i', x)", x=(3, 3)),
    Spec(np.einsum, "np.einsum('i,j->ij', x, y)", x=(3,), y=(2,)),
    Spec(np.einsum, "np.einsum('bij,bjk->bik', x, y)", x=(2, 3, 4), y=(2, 4, 2)),
    Spec(np.atleast_2d, "np.stack(np.atleast_2d(x, y))", x=(3,), y=(3,)),
    Spec(np.inner, "np.inner(x, y)", x=(4,), y=(4,)),
    Spec(np.inner, "np.inner(x, y)", x=(3, 4), y=(2, 4)),
    Spec(np.inner, "np.inner(x, y)", x=(2, 3, 4), y=(4,)),
    Spec(np.inner, "np.inner(s, x)", s=None, x=(3, 2)),
    Spec(np.kron, "np.kron(x, y)", x=(2,), y=(3,)),
    Spec(np.kron, "np.kron(x, y)", x=(2, 3), y=(2, 2)),
    Spec(np.kron, "np.kron(x, y)", x=(2,), y=(2, 3)),
    Spec(np.matmul, "np.matmul(x, y)", x=(3, 4), y=(4, 2)),
    Spec(np.matmul, "np.matmul(x, y)", x=(4,), y=(4,)),
    Spec(np.matmul, "np.matmul(x, y)", x=(2, 3, 4), y=(2, 4, 5)),
    Spec(np.matmul, "np.matmul(x, y)", x=(4,), y=(2, 4, 5)),
    Spec(np.matmul, "np.matmul(x, y)", x=(2, 1, 3, 4), y=(5, 4, 2)),
    Spec(np.outer, "np.outer(x, y)", x=(3,), y=(4,)),
    Spec(np.outer, "np.outer(x, y)", x=(2, 2), y=(3,)),
    Spec(np.tensordot, "np.tensordot(x, y, 1)", x=(3, 4), y=(4, 2)),
    Spec(np.tensordot, "np.tensordot(x, y)", x=(2, 3, 4), y=(3, 4, 5)),
    Spec(np.tensordot, "np.tensordot(x, y, axes=((0, 2), (1, 0)))", x=(2, 3, 4), y=(4, 2, 5)),
    Spec(np.tensordot, "np.tensordot(x, y, axes=0)", x=(2,), y=(3,)),
    Spec(np.vdot, "np.vdot(x, y)", x=(4,), y=(4,)),
    Spec(np.vdot, "np.vdot(x, y)", x=(3, 2), y=(6,)),

    # ---- linear algebra: np.linalg (well-conditioned inputs built inside) ---
    Spec(np.linalg.cholesky, "np.linalg.cholesky(x @ x.T + 3.0 * np.eye(3))", x=(3, 4)),
    Spec(np.linalg.cholesky, "np.linalg.cholesky(x @ x.T + 3.0 * np.eye(3), upper=True)",
         x=(3, 2)),
    Spec(np.linalg.cholesky,
         "np.linalg.cholesky(x @ np.swapaxes(x, -1, -2) + 3.0 * np.eye(3))", x=(2, 3, 3)),
    Spec(np.linalg.det, "np.linalg.det(x)", x=(3, 3)),
    Spec(np.linalg.det, "np.linalg.det(x + 3.0 * np.eye(3))", x=(2, 3, 3)),
    Spec(np.linalg.eigh, "np.linalg.eigh(x + x.T)[0]", x=(3, 3)),
    Spec(np.linalg.eigh, "np.linalg.eigh(x + x.T)[1] ** 2", x=(3, 3)),
    Spec(np.linalg.inv, "np.linalg.inv(x + 3.0 * np.eye(3))", x=(3, 3)),
    Spec(np.linalg.inv, "np.linalg.inv(x + 3.0 * np.eye(2))", x=(2, 2, 2)),
    Spec(np.linalg.slogdet, "np.linalg.slogdet(x + 3.0 * np.eye(3))[1]", x=(3, 3)),
    Spec(np.linalg.slogdet, "np.linalg.slogdet(x - 3.0 * np.eye(2))[1]", x=(4, 2, 2)),
    Spec(np.linalg.solve, "np.linalg.solve(x + 3.0 * np.eye(3), y)", x=(3, 3), y=(3,)),
    Spec(np.linalg.solve, "np.linalg.solve(x + 3.0 * np.eye(3), y)", x=(3, 3), y=(3, 2)),
    Spec(np.linalg.solve, "np.linalg.solve(x + 3.0 * np.eye(3), y)", x=(2, 3, 3), y=(3, 2)),
    Spec(np.linalg.solve, "np.linalg.solve(x + 3.0 * np.eye(3), y)", x=(3, 3), y=(2, 3, 1)),

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
    Spec(np.around, "np.around(x) * x", x=(3, 2), domain=(-2.4, 2.4)),
    Spec(np.fix, "np.fix(x) * x", x=(3, 2), domain=(-2.4, 2.4)),
    Spec(np.floor_divide, "np.floor_divide(x, 0.7) * x", x=(3, 2), domain=(0.1, 2.0)),
    Spec(np.signbit, "np.signbit(x) * x", x=(3, 2)),
    Spec(np.isclose, "np.where(np.isclose(x, y), x, y)", x=(3, 2), y=(2,)),
    Spec(np.allclose, "x * np.allclose(x, y)", x=(3, 2), y=(2,)),
    Spec(np.array_equal, "x * np.array_equal(x, x)", x=(3, 2)),
    Spec(np.isfinite, "np.where(np.isfinite(x), x, 0.0)", x=(4,)),
    Spec(np.isinf, "np.where(np.isinf(x), 0.0, x)", x=(4,)),
    Spec(np.isnan, "np.where(np.isnan(x), 0.0, x)", x=(4,)),
    Spec(np.logical_and, "np.where(np.logical_and(x > 0, y > 0), x, y)", x=(3, 2), y=(2,)),
    Spec(np.logical_not, "np.where(np.logical_not(x > 0), x, y)", x=(3, 2), y=(2,)),
    Spec(np.logical_or, "np.where(np.logical_or(x > 0, y > 0), x, y)", x=(3, 2), y=(2,)),
    Spec(np.logical_xor, "np.where(np.logical_xor(x > 0, y > 0), x, y)", x=(3, 2), y=(2,)),
    Spec(np.all, "x * np.all(x > -2.0)", x=(3, 2)),
    Spec(np.any, "x * np.any(x > 0.0)", x=(3, 2)),
    Spec(np.count_nonzero, "x * np.count_nonzero(x > 0.0)", x=(3, 2)),
    Spec(np.argmax, "x * np.argmax(x)", x=(4,)),
    Spec(np.argmin, "x * np.argmin(x, axis=0)", x=(3, 2)),
    Spec(np.argsort, "x * np.argsort(x)", x=(4,)),
    Spec(np.argwhere, "x * np.size(np.argwhere(x > 0.0))", x=(4,)),
    Spec(np.flatnonzero, "np.take(x, np.flatnonzero(x > 0.0))", x=(6,)),
    Spec(np.nonzero, "x[np.nonzero(x > 0.0)]", x=(3, 2)),
    Spec(np.searchsorted, "x * np.searchsorted((-0.5, 0.5), x)", x=(4,)),
    Spec(np.arange, "x * np.arange(3)", x=(3,)),
    Spec(np.empty, "x * np.size(np.empty((3, 2)))", x=(3,)),
    Spec(np.empty_like, "x * np.size(np.empty_like(x))", x=(3,)),
    Spec(np.eye, "np.linalg.cholesky(x @ x.T + 3.0 * np.eye(3))", x=(3, 2)),
    Spec(np.identity, "x @ np.identity(3)", x=(2, 3)),
    Spec(np.ones, "x * np.ones(3)", x=(3,)),
    Spec(np.tri, "x * np.tri(3)", x=(3, 3)),
    Spec(np.zeros, "x + np.zeros((3, 2))", x=(2,)),
    Spec(np.argpartition, "x * np.argpartition(x, 1)", x=(4,)),
    Spec(np.array_equiv, "x * np.array_equiv(x, y)", x=(3, 2), y=(2,)),
    Spec(np.iscomplex, "x * np.iscomplex(x)", x=(3,)),
    Spec(np.iscomplexobj, "x * np.iscomplexobj(x)", x=(3,)),
    Spec(np.isneginf, "np.where(np.isneginf(x), 0.0, x)", x=(3,)),
    Spec(np.isposinf, "np.where(np.isposinf(x), 0.0, x)", x=(3,)),
    Spec(np.isreal, "x * np.isreal(x)", x=(3,)),
    Spec(np.isscalar, "x * np.isscalar(s)", x=(3,), s=None),
    Spec(np.result_type, "x * np.size(np.zeros(2, np.result_type(x)))", x=(3,)),

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

    # ---- math ---------------------------------------------------------------
    Spec(math.acos, "math.acos(s)", s=None, domain=(-0.9, 0.9)),
    Spec(math.asin, "math.asin(s)", s=None, domain=(-0.9, 0.9)),
    Spec(math.atan, "math.atan(s)", s=None),
    Spec(math.atan2, "math.atan2(s, t)", s=None, t=None),
    Spec(math.cos, "math.cos(s)", s=None),
    Spec(math.cosh, "math.cosh(s)", s=None),
    Spec(math.erf, "math.erf(s)", s=None),
    Spec(math.exp, "math.exp(s)", s=None),
    Spec(math.exp, "math.exp(math.sin(s)) * x", s=None, x=(3,)),
    Spec(math.expm1, "math.expm1(s)", s=None),
    Spec(math.fabs, "math.fabs(s)", s=None),
    Spec(math.hypot, "math.hypot(s, t)", s=None, t=None),
    Spec(math.log, "math.log(s)", s=None, domain=POSITIVE),
    Spec(math.log10, "math.log10(s)", s=None, domain=POSITIVE),
    Spec(math.log1p, "math.log1p(s)", s=None),
    Spec(math.log2, "math.log2(s)", s=None, domain=POSITIVE),
    Spec(math.pow, "math.pow(s, t)", s=None, t=None, domain={"s": POSITIVE}),
    Spec(math.pow, "math.pow(s, 3.0)", s=None),
    Spec(math.sin, "math.sin(s)", s=None),
    Spec(math.sinh, "math.sinh(s)", s=None),
    Spec(math.sqrt, "math.sqrt(s)", s=None, domain=POSITIVE),
    Spec(math.tan, "math.tan(s)", s=None),
    Spec(math.tanh, "math.tanh(s)", s=None),
    Spec(math.ceil, "math.ceil(s) * s", s=None, domain=(-2.4, 2.4)),
    Spec(math.floor, "math.floor(s) * s", s=None, domain=(-2.4, 2.4)),
    Spec(math.trunc, "math.trunc(s) * s", s=None, domain=(-2.4, 2.4)),
    Spec(math.isfinite, "math.isfinite(s) * s", s=None),
    Spec(math.isinf, "s - math.isinf(s) * s", s=None),
    Spec(math.isnan, "s - math.isnan(s) * s", s=None),

    # ---- builtins -----------------------------------------------------------
    Spec(abs, "abs(s)", s=None),
    Spec(abs, "abs(x)", x=(3, 2)),
    Spec(float, "float(s) * s", s=None),
    Spec(float, "float(np.sum(x)) * x", x=(3,)),
    Spec(max, "max(s, t)", s=None, t=None),
    Spec(max, "max(s, 0.0)", s=None),
    Spec(min, "min(s, t)", s=None, t=None),
    Spec(min, "min(0.0, s)", s=None),
    Spec(pow, "pow(s, t)", s=None, t=None, domain={"s": POSITIVE}),
    Spec(pow, "pow(x, 2)", x=(3, 2)),
    Spec(pow, "pow(x, y)", x=(3, 2), y=(2,), domain={"x": POSITIVE}),
    Spec(sum, "sum(x)", x=(3, 2)),
    Spec(sum, "sum(x, s)", x=(3,), s=None),
    Spec(sum, "sum((s, t))", s=None, t=None),
    Spec(sum, "sum([x, y, x])", x=(3,), y=(3,)),

    # ---- ndarray methods: the same rules, reached through the method ---------
    Spec(np.clip, "x.clip(-0.5, 0.5)", x=(3, 2)),
    Spec(np.cumsum, "x.cumsum(axis=0)", x=(3, 2)),
    Spec(np.diagonal, "x.diagonal(1)", x=(3, 3)),
    Spec(np.dot, "x.dot(y)", x=(3, 4), y=(4,)),
    Spec(np.max, "x.max(axis=1)", x=(3, 4)),
    Spec(np.mean, "x.mean(0)", x=(3, 4)),
    Spec(np.prod, "x.prod()", x=(3, 2), domain=POSITIVE),
    Spec(np.ravel, "x.flatten()", x=(3, 2)),
    Spec(np.repeat, "x.repeat(2, axis=1)", x=(3, 2)),
    Spec(np.reshape, "x.reshape(2, 3)", x=(3, 2)),
    Spec(np.squeeze, "x.squeeze()", x=(3, 1)),
    Spec(np.std, "x.std(axis=0, ddof=1)", x=(3, 4)),
    Spec(np.swapaxes, "x.swapaxes(0, 1)", x=(3, 2)),
    Spec(np.take, "x.take((2, 0))", x=(3, 2)),
    Spec(np.trace, "x.trace()", x=(3, 3)),
    Spec(np.transpose, "x.transpose(1, 0, 2)", x=(2, 3, 2)),
    Spec(np.var, "x.var()", x=(3, 4)),
    *SCIPY_SPECS,
]
