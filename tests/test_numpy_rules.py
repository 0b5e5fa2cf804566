"""Every registered reverse rule against central finite differences.

The specs live in ``rule_specs.py``, one line per case. Each becomes a
function in a module written once per session (tangent_ad reads source,
so the functions must live in a real file)::

    def f_17(x, y, weight):
        # x * y [x=(3, 2), y=(1, 2)]
        v = x * y
        return np.sum(v * weight)

``weight`` is a fixed random array shaped like the expression's value, so
the adjoint reaching the rule is not all ones. The expression gets a line
of its own because the ``# Grad of:`` comment that quotes it must fit on one
line (see the xfail spec in rule_specs.py). The gradient with respect to
every spec argument is compared with ``tangent_ad.testing.check_grads`` at
seeded random points of the spec's domain, in float64 and in float32
(where each gradient must also stay float32).
"""
import importlib.util
import math
import operator
import subprocess
import sys
import zlib

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.hooks import checkpointed, stop_gradient
from tangent_ad.registry import REGISTRY
from tangent_ad.runtime import c_concat, field, r_concat
from tangent_ad.testing import check_grads, check_jvp, random_args

from rule_specs import NAMESPACE, SCIPY_SECOND_ORDER_KEYS, SPECS

special = getattr(NAMESPACE.get("scipy"), "special", None)

MODULE_HEADER = '''\
"""Written by tests/test_numpy_rules.py: one function per rule spec."""
import math

import numpy as np
from tangent_ad.runtime import appended, concatenated, iterated, repeated, updated, updated_tangent
from tangent_ad.runtime import built, call_value, formatted, jvp_function, vjp_function
from rule_specs import Pair, ode_rhs
from tangent_ad.runtime.ordering import extreme_index, reversed_indices, sort_order
''' + ("import scipy.special\nimport scipy.integrate\n" if "scipy" in NAMESPACE else "")


def function_source(name, spec):
    params = ", ".join([*spec.shapes, "weight"])
    return (f"def {name}({params}):\n"
            f"    # {spec.id}\n"
            f"    v = {spec.expr}\n"
            f"    return np.sum(v * weight)\n")


@pytest.fixture(scope="session")
def rule_functions(tmp_path_factory):
    """{spec id: the spec's function}, from one module written for the table."""
    names = {spec.id: f"f_{n}" for n, spec in enumerate(SPECS)}
    source = "\n\n".join([MODULE_HEADER] + [function_source(names[spec.id], spec)
                                            for spec in SPECS])
    path = tmp_path_factory.mktemp("rules") / "rule_functions.py"
    path.write_text(source)
    loader_spec = importlib.util.spec_from_file_location("rule_functions", path)
    module = importlib.util.module_from_spec(loader_spec)
    loader_spec.loader.exec_module(module)
    return {spec_id: getattr(module, name) for spec_id, name in names.items()}


def sample(spec, dtype):
    """Seeded arguments in the spec's domain, followed by the weight.

    The seed comes from the spec's id, so it differs between specs and
    does not change when the table is reordered.
    """
    seed = zlib.crc32(spec.id.encode())
    args = [random_args([shape], dtype=dtype, seed=seed + n, low=low, high=high)[0]
            for n, (shape, (low, high))
            in enumerate(zip(spec.shapes.values(), spec.domains.values()))]
    value = eval(spec.expr, dict(NAMESPACE), dict(zip(spec.shapes, args)))
    (weight,) = random_args([np.shape(value)], dtype=dtype, seed=seed + len(args))
    return (*args, weight)


def check_rule(spec, f, dtype):
    """check_grads w.r.t. every spec argument; Python floats get float gradients."""
    args = sample(spec, dtype)
    wrt = tuple(range(len(spec.shapes)))
    df = tad.grad(f, wrt=wrt)
    check_grads(f, df, args, wrt=wrt, **spec.tolerance(dtype))
    grads = df(*args)
    grads = grads if len(wrt) > 1 else (grads,)
    for name, x, g in zip(spec.shapes, args, grads):
        if isinstance(x, float):
            assert isinstance(g, float), (
                f"the gradient of the Python float {name} is a "
                f"{type(g).__name__}, not a float")


def params(dtype):
    """The specs as pytest params, marked xfail where the spec says so for `dtype`."""
    out = []
    for spec in SPECS:
        reason = spec.xfail_reason(dtype)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(spec, id=spec.id, marks=marks))
    return out


@pytest.mark.parametrize("spec", params(np.float64))
def test_rule_float64(spec, rule_functions):
    check_rule(spec, rule_functions[spec.id], np.float64)


@pytest.mark.parametrize("spec", params(np.float32))
def test_rule_float32(spec, rule_functions):
    check_rule(spec, rule_functions[spec.id], np.float32)


def describe(func):
    """How a registered function reads in a message: np.sum, operator.mul."""
    name = getattr(func, "__name__", repr(func))
    for prefix, module in [("np", np), ("np.linalg", np.linalg), ("np.fft", np.fft), ("math", math),
                           ("operator", operator), ("scipy.special", special)]:
        if getattr(module, name, None) is func:
            return f"{prefix}.{name}"
    return f"{getattr(func, '__module__', None)}.{name}"


# Rules that differ from finite differences on purpose, tested elsewhere:
# stop_gradient (tests/test_hooks.py) is the identity with a zero gradient;
# checkpointed marks a loop (tests/test_hooks.py), it is never differentiated;
# field reads an attribute of an object, which an expression of arrays cannot
# build: tests/test_pytrees.py and tests/test_methods.py check it.
NOT_FINITE_DIFFERENCES = {stop_gradient, checkpointed, field}


def test_every_registered_rule_has_a_spec():
    covered = {spec.key for spec in SPECS} | NOT_FINITE_DIFFERENCES
    registered = REGISTRY.functions("reverse") + REGISTRY.zero_functions()
    missing = sorted(describe(func) for func in registered if func not in covered)
    assert not missing, ("registered rules without a spec in tests/rule_specs.py: "
                         + ", ".join(missing))


def test_every_built_in_template_is_well_formed():
    """Built-in templates are checked when first looked up, not when they
    load (registry._checked): this checks the ones no test used."""
    REGISTRY.check_all()
    assert not REGISTRY._unchecked


def test_scipy_rules_load_with_their_module(tmp_path):
    """A program that imports no SciPy module loads none of SciPy's rules
    (importing scipy.stats alone takes most of a second)."""
    script = ("import sys, numpy as np, tangent_ad as tad\n"
              "print(tad.grad(lambda x: np.sum(np.sin(x) * x))(np.ones(3))[0])\n"
              "print(sorted(m for m in sys.modules if m.startswith('scipy.')))\n"
              "import scipy.special\n"
              "print(tad.grad(lambda x: scipy.special.expit(x))(0.0))\n")
    program = tmp_path / "program.py"
    program.write_text(script)
    out = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert float(out[0]) == pytest.approx(np.sin(1.0) + np.cos(1.0))
    assert out[1] == "[]"
    assert float(out[2]) == pytest.approx(0.25)


def test_spec_ids_are_unique():
    ids = [spec.id for spec in SPECS]
    duplicates = sorted({spec_id for spec_id in ids if ids.count(spec_id) > 1})
    assert not duplicates, f"specs with the same id: {duplicates}"


# ---- points where a rule's formula reads 0 * inf ------------------------------
# The value is locally constant there (0 ** y = 0 for y > 0, x ** 0 = 1, the
# std of one element is 0), so central differences give 0, and so must every
# derivative: autograd's and JAX's conventions. Both the operator and NumPy's
# function, both modes, first and second order, float64 and float32.

def zero_base_operator(y):
    return 0.0 ** y * 3.0


def zero_base_power(y):
    return np.sum(np.power(0.0, y))


def zero_exponent_operator(x):
    return np.sum(x ** 0.0 + x)


def zero_exponent_power(x):
    return np.sum(np.power(x, 0.0) * x)


def zero_exponent_builtin(x):
    return pow(x, 0) + math.pow(x, 0.0)


def zero_exponent_of_a_float(x):
    return x ** 0.0 * 2.0 + np.power(x, 0.0) + x


def std_of_one(x):
    return np.std(x) + np.sum(np.std(np.reshape(x, (1, 1)), axis=1)) + x[0]


SINGULAR = [
    (zero_base_operator, 0.5), (zero_base_power, np.array([0.5, 2.0])),
    (zero_exponent_operator, np.array([0.0, 1.5])), (zero_exponent_power, np.array([0.0, 0.0])),
    (zero_exponent_builtin, 0.0), (zero_exponent_of_a_float, 0.0),
    (std_of_one, np.array([1.5])),
]


def as_dtype(x, dtype):
    return x if isinstance(x, float) else x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("f, x", SINGULAR, ids=[f.__name__ for f, _ in SINGULAR])
def test_a_locally_constant_power_or_std_has_a_finite_gradient(f, x, dtype):
    x = as_dtype(x, dtype)
    with np.errstate(all="raise"):  # no 0 * inf on the way
        check_grads(f, tad.grad(f), (x,))


def forward_params():
    out = []
    for dtype in (np.float64, np.float32):
        for f, x in SINGULAR:
            out.append(pytest.param(f, x, dtype, id=f"{f.__name__}-{np.dtype(dtype).name}"))
    return out


@pytest.mark.parametrize("f, x, dtype", forward_params())
def test_a_locally_constant_power_or_std_has_a_finite_tangent(f, x, dtype):
    x = as_dtype(x, dtype)
    with np.errstate(all="raise"):
        check_jvp(f, tad.jvp(f), (x,))


@pytest.mark.parametrize("f, x", SINGULAR, ids=[f.__name__ for f, _ in SINGULAR])
def test_second_derivatives_at_a_locally_constant_power_or_std(f, x):
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(tad.hvp(f)(x, np.ones_like(x)), np.zeros_like(x))
        value, tangent = tad.jvp(tad.grad(f))(x, 1.0, np.ones_like(x))
        np.testing.assert_array_equal(tangent, np.zeros_like(x))
        np.testing.assert_array_equal(tad.grad(tad.grad(f))(x) if np.ndim(x) == 0 else
                                      tad.jacobian(tad.grad(f))(x), 0.0)


# ---- reductions whose output has size 1 ---------------------------------------
# grad seeds such an output with the float 1.0, whose adjoint then has fewer
# axes than the rules' arguments (an AxisError once, in unreduce).

REDUCTIONS = [np.sum, np.mean, np.average, np.var, np.std, np.max, np.min, np.median,
              np.prod, np.ptp, np.nansum, np.nanmean, np.linalg.norm]
SIZE_ONE = [((1,), 0), ((1,), None), ((1, 1), 0), ((1, 1), 1), ((3, 1), 0), ((1, 3), 1),
            ((1, 3), -1), ((1, 3), (0, 1))]


def reduce_of(reduction, axis, keepdims):
    def f(x):
        return reduction(x, axis=axis, keepdims=keepdims)
    return f


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape, axis", SIZE_ONE, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS, ids=describe)
def test_a_reduction_to_one_element(reduction, shape, axis, keepdims, dtype):
    f = reduce_of(reduction, axis, keepdims)
    x = random_args([shape], dtype=dtype, seed=zlib.crc32(str(shape).encode()),
                    low=0.5, high=2.0)[0]
    check_grads(f, tad.grad(f), (x,))
    check_jvp(f, tad.jvp(f), (x,))


# ---- second order of the rules changed for issues 12 and 20 --------------------
# Forward over reverse (the tangent of the gradient, what hvp computes) and
# forward over forward, each against central differences of the first
# derivative, for every spec of these functions.

SECOND_ORDER_KEYS = (np.average, np.sign, np.std, np.var, np.power, operator.pow,
                     c_concat, r_concat, np.einsum, np.cross, np.gradient, np.select,
                     np.linalg.pinv, np.linalg.eigvalsh, np.nanmax, np.nanmin, np.nanprod,
                     np.convolve, np.correlate, np.interp, np.polyval, np.trapezoid,
                     np.quantile, np.percentile, np.nanquantile, np.nanpercentile,
                     np.linalg.eig, np.linalg.eigvals, np.linalg.lstsq,
                     np.nanvar, np.nanstd, np.nanmedian, np.nancumsum, np.nancumprod,
                     np.meshgrid, np.unwrap, np.linalg.matrix_power,
                     np.linalg.cholesky, np.linalg.eigh,
                     np.fft.fft, np.fft.ifft, np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn,
                     np.fft.rfft, np.fft.rfft2, np.fft.rfftn, np.fft.irfft, np.fft.irfft2,
                     np.fft.irfftn, np.fft.fftshift, np.fft.ifftshift,
                     *SCIPY_SECOND_ORDER_KEYS)


# np.linalg.svd: its vectors' second derivatives evaluate the first ones on
# dual numbers (tangent_ad/runtime/svd_formulas.py)
SECOND_ORDER_EXPRESSIONS = ("np.linalg.svd",)


@pytest.mark.parametrize("spec", [pytest.param(spec, id=spec.id) for spec in SPECS
                                  if spec.key in SECOND_ORDER_KEYS
                                  or any(e in spec.expr for e in SECOND_ORDER_EXPRESSIONS)])
def test_second_order_of_a_rule(spec, rule_functions):
    f = rule_functions[spec.id]
    args = sample(spec, np.float64)
    wrt = tuple(range(len(spec.shapes)))
    tol = spec.tolerance(np.float64)
    df = tad.grad(f, wrt=wrt)
    check_jvp(df, tad.jvp(df, wrt=wrt), (*args, 1.0), wrt=wrt, **tol)
    jf = tad.jvp(f, wrt=wrt)
    directions = tuple(np.full_like(a, 0.7) if isinstance(a, np.ndarray) else 0.7
                       for a in args[:len(wrt)])
    check_jvp(jf, tad.jvp(jf, wrt=wrt), (*args, *directions), wrt=wrt, **tol)


# ---- np.interp where it is not differentiable ----------------------------------
# At a knot the slope is that of the interval to the right (to the inside at
# the first and last knots), JAX's convention; outside the knots it is 0.

def interp_at(x):
    return np.sum(np.interp(x, np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0])))


@pytest.mark.parametrize("x, slope", [(0.0, 2.0), (1.0, 0.5), (3.0, 0.5), (-1.0, 0.0), (4.0, 0.0)])
def test_interp_at_a_knot_takes_the_slope_to_the_right(x, slope):
    assert tad.grad(interp_at)(x) == slope
    assert tad.jvp(interp_at)(x, 1.0)[1] == slope


@pytest.mark.parametrize("method", ["nearest", "lower", "midpoint", "weibull"])
def test_a_quantile_by_another_method_is_refused(method):
    def f(x):
        return np.quantile(x, 0.3, method=method)
    with pytest.raises(tad.TangentADError, match="method='linear' only"):
        tad.grad(f)(np.arange(5.0))
    with pytest.raises(tad.TangentADError, match="method='linear' only"):
        tad.jvp(f)(np.arange(5.0), np.ones(5))


def test_a_quantile_that_overwrites_its_input_is_refused():
    def f(x):
        return np.percentile(x, 30.0, overwrite_input=True)
    with pytest.raises(tad.TangentADError, match="overwrite_input"):
        tad.grad(f)(np.array([3.0, 1.0, 2.0]))


# ---- np.linalg.lstsq: the solution's derivative at full rank only ---------------

def lstsq_solution(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0])


def test_lstsq_of_a_rank_deficient_matrix_is_refused():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    b = np.array([1.0, 0.0, 2.0])
    for df in (tad.grad(lstsq_solution, wrt=(0, 1)),):
        with pytest.raises(tad.TangentADError, match="full rank"):
            df(a, b)
    with pytest.raises(tad.TangentADError, match="full rank"):
        tad.jvp(lstsq_solution, wrt=(0, 1))(a, b, np.ones_like(a), np.ones_like(b))


# a gradient of a one-element result built by concatenate or stack: the seed is
# 1.0, which the adjoints cut along an axis it does not have (IndexError; the
# shim's flatten in autograd's gmm.py ends so)
def _one_concatenated(x):
    return np.concatenate([np.ravel(np.sum(x ** 2))])


def _one_stacked(x):
    return np.stack([np.sum(np.sin(x))])


def _one_flattened(x):
    return np.concatenate([np.atleast_2d(np.sum(x ** 3))], axis=None)


@pytest.mark.parametrize("f", [_one_concatenated, _one_stacked, _one_flattened])
def test_a_gradient_of_one_concatenated_element(f):
    check_grads(f, tad.grad(f), (np.array([1.0, -2.0, 0.5]),))


@pytest.mark.parametrize("func", [np.maximum, np.minimum, np.fmax, np.fmin],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_tie_shares_the_derivative_equally(func, dtype):
    """At x1 == x2 each argument gets half, in both modes: what central
    differences give there (and autograd, JAX, PyTorch, and np.max)."""
    weights = np.array([1.0, 2.0, 3.0, 4.0], dtype=dtype)
    x1 = np.array([1.0, 2.0, 3.0, np.nan], dtype=dtype)
    x2 = np.array([1.0, 1.0, 4.0, 0.5], dtype=dtype)

    def f(a, b):
        return np.sum(np.nan_to_num(func(a, b)) * weights)
    ga, gb = tad.grad(f, wrt=(0, 1))(x1, x2)
    assert ga.dtype == dtype and gb.dtype == dtype
    np.testing.assert_allclose(ga[:3], [0.5, 2.0 * (func in (np.maximum, np.fmax)),
                                        3.0 * (func in (np.minimum, np.fmin))])
    np.testing.assert_allclose(ga[:3] + gb[:3], weights[:3])  # all of it, split
    assert gb[3] == (4.0 if func in (np.fmax, np.fmin) else 0.0)  # fmax/fmin skip a NaN
    for i in range(3):
        step = np.zeros(4, dtype=np.float64)
        step[i] = 1e-6
        slope = (f(x1.astype(np.float64) + step, x2) - f(x1.astype(np.float64) - step, x2)) / 2e-6
        assert ga[i] == pytest.approx(slope, rel=1e-5)
        tangent = tad.jvp(f, wrt=(0,))(x1, x2, step.astype(dtype) * 1e6)[1]
        assert tangent == pytest.approx(float(ga[i]), rel=1e-5)
