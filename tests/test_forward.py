"""Forward mode (tad.jvp): the reverse-mode corpus against finite differences,
the generated code's shape, the API, and the forward rule registry.

Each case of the control-flow, call, container and closure tables is
differentiated along random tangents and compared with the central
difference of the function along them (``tangent_ad.testing.check_jvp``),
with respect to the case's ``wrt`` arguments together and to each alone
(an argument without a tangent exercises the symbolic zeros).
"""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import call_functions
import closure_functions
import container_functions
import control_flow_functions
import tangent_ad as tad
from golden_functions import GOLDEN
from tangent_ad.registry import REGISTRY
from tangent_ad.testing import GradientMismatch, check_jvp

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
d = None  # d[x] in a template is the tangent of x; templates are never run
TABLES = {"control_flow": control_flow_functions.CASES, "calls": call_functions.CASES,
          "containers": container_functions.CASES, "closures": closure_functions.CASES}


def _cases():
    for table, cases in sorted(TABLES.items()):
        for name, (func, make_args, wrt) in sorted(cases.items()):
            subsets = [wrt] + ([(i,) for i in wrt] if len(wrt) > 1 else [])
            for subset in subsets:
                yield pytest.param(func, make_args, subset,
                                   id=f"{table}-{name}-wrt{'_'.join(map(str, subset))}")


CASES = list(_cases())


@pytest.mark.parametrize("func, make_args, wrt", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_jvp_matches_finite_differences(func, make_args, wrt, seed):
    args = make_args(np.random.default_rng(seed))
    check_jvp(func, tad.jvp(func, wrt=wrt), args, wrt=wrt, seed=seed)


@pytest.mark.parametrize("func, make_args, wrt", CASES)
def test_unoptimized_jvp_agrees(func, make_args, wrt):
    args = make_args(np.random.default_rng(11))
    tangents = [np.ones_like(args[i]) if np.ndim(args[i]) else 1.0 for i in wrt]
    if any(isinstance(args[i], (list, tuple, dict)) for i in wrt):
        pytest.skip("container tangents are covered by the finite-difference test")
    fast = tad.jvp(func, wrt=wrt)(*args, *tangents)
    slow = tad.jvp(func, wrt=wrt, optimized=False)(*args, *tangents)
    np.testing.assert_allclose(fast[1], slow[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-12, atol=1e-12)


def test_checker_catches_a_wrong_tangent():
    with pytest.raises(GradientMismatch):
        check_jvp(np.sin, lambda x, dx: (np.sin(x), dx), (np.ones(3),))


# ---- the generated code --------------------------------------------------

FORWARD_GOLDEN = {"forward_loop_branch": "loop_branch", "forward_helper_call": "helper_call"}


@pytest.mark.parametrize("name", sorted(FORWARD_GOLDEN))
def test_generated_source_matches_golden(name):
    func, wrt = GOLDEN[FORWARD_GOLDEN[name]]
    source = tad.show_source(tad.jvp(func, wrt=wrt))
    path = GOLDEN_DIR / f"{name}.py"
    if os.environ.get("TANGENT_AD_UPDATE_GOLDEN"):
        path.write_text(source)
    assert source == path.read_text()


def test_each_tangent_follows_its_statement_and_loops_stay_loops():
    func, _ = GOLDEN["loop_branch"]
    source = tad.show_source(tad.jvp(func))
    assert source.count("for i in range(n):") == 1
    assert "stack" not in source and "reversed" not in source
    lines = [line.strip() for line in source.splitlines()]
    assert lines[lines.index("t = x * 0.9") + 1] == "dt = dx * 0.9"


def test_inactive_arguments_get_no_tangent():
    def f(x, w, b):
        return np.tanh(x * w + 1.0) * b
    source = tad.show_source(tad.jvp(f))
    assert "dw" not in source and "db" not in source
    assert "dt = dx * w" in source and "zeros_like" not in source


def test_a_tangent_is_broadcast_only_when_a_left_out_term_did_it():
    def f(x, y):
        return x + y
    source = tad.show_source(tad.jvp(f))
    assert "broadcast_like(dx, result)" in source
    value, tangent = tad.jvp(f)(1.5, np.zeros(3), 2.0)
    np.testing.assert_array_equal(tangent, np.full(3, 2.0))

    def g(x):
        return x + 1.0
    assert "broadcast_like" not in tad.show_source(tad.jvp(g))


def test_recursion_deeper_than_the_generated_code():
    value, tangent = tad.jvp(call_functions.use_power)(1.01, 200, 1.0)
    assert tangent == pytest.approx(200 * 1.01 ** 199)
    assert "def jvp_power_dx(x, n, dx):" in tad.show_source(tad.jvp(call_functions.use_power))


def test_each_callee_gets_a_readable_forward_function():
    source = tad.show_source(tad.jvp(call_functions.net, wrt=(0, 1)))
    assert "def jvp_layer_dW(W, x, scale, dW):" in source
    assert "h2, dh2 = jvp_layer_dW_x(W2, h, 2.0, dW2, dh)" in source


def test_closures_and_function_arguments():
    source = tad.show_source(tad.jvp(closure_functions.higher_order))
    assert "def jvp_apply_dx_with_square(f, x, dx):" in source
    source = tad.show_source(tad.jvp(closure_functions.closure, wrt=(0, 1)))
    assert "def jvp_scaled_dy_w(y, w, dy, dw):" in source


def test_gradient_hooks_do_not_run_in_forward_mode():
    def f(x):
        with tad.insert_grad_code(x) as dx:
            dx = dx * 100.0
        return np.sin(x)
    value, tangent = tad.jvp(f)(0.5, 1.0)
    assert tangent == pytest.approx(np.cos(0.5))


def test_checkpointed_calls_are_ordinary_calls_in_forward_mode():
    inner = tad.checkpoint(call_functions.layer)

    def f(W, x):
        return np.sum(inner(W, x))
    rng = np.random.default_rng(0)
    args = (rng.normal(size=(3, 3)), rng.normal(size=3))
    check_jvp(f, tad.jvp(f, wrt=(0, 1)), args, wrt=(0, 1))


def test_looping_over_a_differentiated_sequence():
    def f(x):
        s = 0.0
        for row in np.split(x, 2):
            s = s + np.sum(row) * row[0]
        return s
    # once refused; the list np.split returns is now evaluated once and indexed
    x, t = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 0.5, -1.0, 2.0])
    _, tangent = tad.jvp(f)(x, t)
    np.testing.assert_allclose(tangent, (f(x + 1e-6 * t) - f(x - 1e-6 * t)) / 2e-6, rtol=1e-6)

    def g(x):
        s = 0.0
        for row in iter(np.split(x, 2)):  # an iterator: not indexed
            s = s + np.sum(row)
        return s
    with pytest.raises(tad.UnsupportedSyntaxError, match="looping over"):
        tad.jvp(g)


# ---- the API -------------------------------------------------------------

def test_jvp_returns_the_value_and_the_directional_derivative():
    def f(x, y):
        return np.sin(x) * y
    value, tangent = tad.jvp(f, wrt=(0, 1))(0.5, 2.0, 1.0, 0.5)
    assert value == pytest.approx(np.sin(0.5) * 2.0)
    assert tangent == pytest.approx(np.cos(0.5) * 2.0 + np.sin(0.5) * 0.5)
    assert tad.jvp(f, wrt=("x", "y")) is tad.jvp(f, wrt=(0, 1))
    assert tad.autodiff(f, mode="forward") is tad.jvp(f)


def test_decorator_forms():
    @tad.jvp
    def f(x):
        return x * x

    @tad.jvp(wrt=(1,))
    def g(x, y):
        return x * y
    assert f(3.0, 1.0) == (9.0, 6.0)
    assert g(3.0, 2.0, 1.0) == (6.0, 3.0)


def test_tuple_and_dict_outputs_get_tangents_of_the_same_structure(rng):
    def f(x):
        return np.sin(x), {"c": np.cos(x), "n": 3}
    x, dx = rng.normal(size=3), rng.normal(size=3)
    (s, out), (ds, dout) = tad.jvp(f)(x, dx)
    np.testing.assert_allclose(ds, np.cos(x) * dx)
    np.testing.assert_allclose(dout["c"], -np.sin(x) * dx)
    assert dout["n"] == 0.0


def test_parameters_with_defaults_are_all_passed():
    def f(x, scale=2.0):
        return x * scale
    assert tad.jvp(f)(1.0, 3.0, 1.0) == (3.0, 3.0)


def test_an_output_that_does_not_vary_has_a_zero_tangent():
    def f(x, y):
        return y * 2.0
    np.testing.assert_array_equal(tad.jvp(f)(1.0, np.ones(2), 1.0)[1], np.zeros(2))


def test_unknown_mode_is_an_error():
    with pytest.raises(tad.UnsupportedSyntaxError, match="sideways"):
        tad.autodiff(np.sin, mode="sideways")


def test_jvp_is_exported():
    assert "jvp" in tad.__all__ and tad.jvp.__module__ == "tangent_ad.api"


# ---- rules -----------------------------------------------------------------

def _forward_rule_module(func):
    return REGISTRY.lookup("forward", func).__module__


# Documented exceptions to the equality of the two registries: the runtime
# helpers that reverse-mode code calls have forward rules (for jvp of a
# gradient) but no reverse rules: grad of a gradient uses a derived rule
# (tangent_ad/second_order.py) instead of reverse mode over generated code.
FORWARD_ONLY = {f for f in REGISTRY.functions("forward")
                if _forward_rule_module(f) == "tangent_ad.templates.runtime_forward"
                or getattr(f, "__module__", "").startswith("tangent_ad.runtime")}
REVERSE_ONLY = set()


def test_forward_and_reverse_registries_cover_the_same_functions():
    forward = set(REGISTRY.functions("forward"))
    reverse = set(REGISTRY.functions("reverse"))
    missing = sorted(getattr(f, "__name__", repr(f)) for f in reverse - forward - REVERSE_ONLY)
    extra = sorted(getattr(f, "__name__", repr(f)) for f in forward - reverse - FORWARD_ONLY)
    assert not missing, f"reverse rules without a forward rule: {', '.join(missing)}"
    assert not extra, f"forward rules without a reverse rule: {', '.join(extra)}"


def test_a_user_forward_rule_is_used():
    def cube(x):
        return x * x * x

    def f(x):
        return cube(x) + 1.0
    with REGISTRY.scoped():
        @tad.tangent(cube)
        def _(result, x):
            d[result] = 3.0 * x * x * d[x]
        source = tad.show_source(tad.autodiff(f, mode="forward", optimized=False))
    assert "dt = 3.0 * x * x * dx" in source


# ---- forward over reverse ------------------------------------------------------

def tanh_sum(x):
    return np.sum(np.tanh(x) * 2.0)


def mlp(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    return np.mean((h @ W2 - y) ** 2)


def logistic(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def spread(x, w):
    x = x * w
    return np.sum(np.sin(x) + x) / np.sqrt(np.sum(x ** 4) + 1.0) + np.var(x)


HESSIAN_CASES = {
    "tanh_sum": (tanh_sum, lambda r: (r.normal(size=4),), 0),
    "mlp": (mlp, lambda r: (r.normal(size=(3, 4)), r.normal(size=4), r.normal(size=(4, 2)),
                            r.normal(size=(5, 3)), r.normal(size=(5, 2))), 0),
    "logistic": (logistic, lambda r: (r.normal(size=3), r.normal(size=(6, 3)),
                                      (r.uniform(size=6) > 0.5) * 1.0), 0),
    "spread": (spread, lambda r: (r.normal(size=3), r.normal(size=3)), 1),
}


@pytest.mark.parametrize("name", sorted(HESSIAN_CASES))
def test_jvp_of_a_gradient_is_a_hessian_vector_product(name):
    """Straight-line code only for now: a gradient with a stack (loops,
    branches) or pullbacks (calls) cannot be read by the front end yet."""
    func, make_args, k = HESSIAN_CASES[name]
    args = make_args(np.random.default_rng(3))
    gradient = tad.grad(func, wrt=(k,))
    hvp = tad.jvp(gradient, wrt=(k,))
    check_jvp(gradient, lambda *a: hvp(*a[:-1], 1.0, a[-1]), args, wrt=(k,))


# ---- command line ------------------------------------------------------------

def test_cli_writes_and_checks_a_forward_module(tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent('''\
        import numpy as np


        def f(x, w):
            return np.tanh(x * w) + np.sum(x)
    '''))
    result = subprocess.run(
        [sys.executable, "-m", "tangent_ad", "model.py:f", "--mode", "forward",
         "--check", "-o", "jvp_f.py"], cwd=tmp_path, capture_output=True, text=True,
        timeout=120)
    assert result.returncode == 0, result.stderr
    assert "check passed" in result.stderr
    text = (tmp_path / "jvp_f.py").read_text()
    assert "def jvp_f_dx(x, w, dx):" in text and "import tangent_ad" not in text


# ---- other workloads ---------------------------------------------------------

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "benchmarks"))
import workloads  # noqa: E402


@pytest.mark.parametrize("module", [pytest.param(m, id=n) for n, m in workloads.BY_NAME.items()])
def test_benchmark_workloads(module):
    args = module.make_inputs(module.SMALL, np.random.default_rng(0))
    check_jvp(module.loss, tad.jvp(module.loss, wrt=module.WRT), args, wrt=module.WRT)



def _layout(v):
    return (type(v).__name__, np.size(v)), 0


def _by_type_name(x):
    # type() has no derivative: it had no forward rule, so hvp refused a
    # helper that reads type(value).__name__ (the shim's flatten, under
    # autograd's gmm.py's hessian_vector_product)
    (kind, n), _ = _layout(x)
    if kind == "ndarray":
        return np.sum(np.sin(x) * x) * n
    return x * 0.0


def test_type_has_a_zero_derivative_in_every_mode():
    from tangent_ad.testing import check_grads
    x, v = np.array([0.3, -1.1, 2.0]), np.array([1.0, 0.5, -0.25])
    check_jvp(_by_type_name, tad.jvp(_by_type_name), (x,))
    check_grads(_by_type_name, tad.grad(_by_type_name), (x,))
    # 3 times d/dx of sin(x) + x cos(x), which is 2 cos(x) - x sin(x)
    np.testing.assert_allclose(tad.hvp(_by_type_name)(x, v), 3 * (2 * np.cos(x) - x * np.sin(x)) * v)
