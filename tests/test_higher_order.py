"""Higher order: forward mode over generated gradients (loops, branches,
calls and closures included), hvp, jacobian, hessian and vjp, against
finite differences.

A generated gradient saves values on a list named ``stack``; forward mode
over it pushes each value's tangent after the value and pops it first,
and gives each pullback's ``back`` closure a forward closure ``dback``, so
``tad.jvp(tad.grad(f))`` is an exact Hessian-vector product.
"""
import importlib.util

import numpy as np
import pytest

import call_functions
import closure_functions
import container_functions
import control_flow_functions
import hook_functions
import tangent_ad as tad
from rule_specs import SPECS
from tangent_ad.testing import check_jvp, numerical_grad
from test_numpy_rules import MODULE_HEADER, function_source, sample


def _fd_jacobian(f, x, eps=1e-6):
    """Central differences, column by column: shape f(x).shape + x.shape."""
    x = np.asarray(x, np.float64)
    columns = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        e = e.reshape(x.shape)
        columns.append(np.ravel((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps)))
    out = np.shape(f(x))
    return np.array(columns).T.reshape(out + x.shape)


# ---- forward over reverse, with loops and branches ---------------------------

# The cases' functions are smooth, or piecewise smooth with switch points
# that random arguments miss; the Hessian is the derivative of the gradient
# on the piece the arguments are on.
CONTROL_FLOW = sorted(control_flow_functions.CASES)


@pytest.mark.parametrize("name", CONTROL_FLOW)
@pytest.mark.parametrize("seed", range(2))
def test_jvp_of_a_gradient_with_control_flow_is_a_hessian_vector_product(name, seed):
    func, make_args, wrt = control_flow_functions.CASES[name]
    args = make_args(np.random.default_rng(seed))
    for k in wrt:
        gradient = tad.grad(func, wrt=(k,))
        product = tad.jvp(gradient, wrt=(k,))
        check_jvp(gradient, lambda *a: product(*a[:-1], 1.0, a[-1]), args, wrt=(k,),
                  seed=seed)


TABLES = {"containers": container_functions.CASES, "calls": call_functions.CASES,
          "closures": closure_functions.CASES}


@pytest.mark.parametrize("table, name", [(t, n) for t, cases in sorted(TABLES.items())
                                         for n in sorted(cases)])
def test_jvp_of_a_gradient_with_containers_calls_and_closures(table, name):
    func, make_args, wrt = TABLES[table][name]
    args = make_args(np.random.default_rng(0))
    for k in wrt:
        gradient = tad.grad(func, wrt=(k,))
        product = tad.jvp(gradient, wrt=(k,))
        check_jvp(gradient, lambda *a: product(*a[:-1], 1.0, a[-1]), args, wrt=(k,))


MIXED = [(t, n) for t, cases in sorted({**TABLES, "control_flow":
                                        control_flow_functions.CASES}.items())
         for n, (_, _, wrt) in sorted(cases.items()) if len(wrt) > 1]


@pytest.mark.parametrize("table, name", MIXED)
def test_a_gradient_of_several_arguments_along_one(table, name):
    """A tangent for one of the gradient's arguments only: the others' saved
    values get None tangents, and a pullback called on values that do not
    vary still gets a forward closure, for the adjoint it is called with
    does."""
    func, make_args, wrt = {**TABLES, "control_flow": control_flow_functions.CASES}[
        table][name]
    args = make_args(np.random.default_rng(2))
    gradient = tad.grad(func, wrt=wrt)
    for k in wrt:
        product = tad.jvp(gradient, wrt=(k,))
        check_jvp(gradient, lambda *a: product(*a[:-1], 1.0, a[-1]), args, wrt=(k,))


def test_a_pullbacks_closure_gets_a_forward_closure():
    """The gradient calls `back_t(bt)`, the closure a pullback returned;
    its forward function returns the closure's tangent, `dback`, a
    function computing both the adjoint and its tangent."""
    source = tad.show_source(tad.hvp(call_functions.helper_in_loop))
    assert "def dback(bresult, dbresult):" in source
    assert "dback_t = dt5[1]" in source and "= dback_t(" in source
    lines = [line.strip() for line in source.splitlines()]
    # the loop saves the forward closure; the closure it stands for is read
    # by nothing once dback_t computes both, so its save goes (saves.py)
    assert "stack.append(dback_t)" in lines and "dback_t = stack.pop()" in lines
    assert "stack.append(back_t)" not in lines and "back_t = stack.pop()" not in lines


def test_a_checkpointed_call_in_a_gradient():
    W = np.random.default_rng(0).normal(size=(3, 3)) * 0.5
    h = np.random.default_rng(1).normal(size=3)
    for k in (0, 1):
        gradient = tad.grad(hook_functions.checkpointed_net, wrt=(k,))
        product = tad.hvp(hook_functions.checkpointed_net, wrt=k)
        check_jvp(gradient, lambda *a: (gradient(*a[:-1]), product(*a)), (W, h, 3),
                  wrt=(k,))


def test_each_push_and_pop_is_paired_with_its_tangent():
    gradient = tad.grad(control_flow_functions.loop_branch)
    source = tad.show_source(tad.jvp(gradient, optimized=False))
    lines = [line.strip() for line in source.splitlines()]
    assert lines[lines.index("stack.append(x)") + 1] == "stack.append(dx)"
    assert lines[lines.index("stack.append(True)") + 1] == "stack.append(None)"
    assert lines[lines.index("x = stack.pop()") - 1] == "dx = stack.pop()"
    decision = lines.index("if stack.pop():")
    assert lines[decision - 1] == "stack.pop()"
    assert "appended" not in source  # the stack is used in place, not copied
    # optimized, a decision's tangent (None, popped and dropped) is saved no
    # more: the pairs are declared (saves.py), so DCE drops them together
    lines = [line.strip() for line in tad.show_source(tad.jvp(gradient)).splitlines()]
    assert "stack.append(None)" not in lines and "stack.pop()" not in lines
    assert lines[lines.index("stack.append(x)") + 1] == "stack.append(dx)"
    assert lines[lines.index("x = stack.pop()") - 1] == "dx = stack.pop()"


def test_while_and_break_in_a_gradient():
    def f(x, n):
        i = 0
        while i < n:
            x = np.sin(x) * 1.5
            if np.sum(x) > 10.0:
                break
            i = i + 1
        return np.sum(x ** 2)
    x = np.array([0.3, -0.2, 0.5])
    v = np.array([1.0, 0.5, -1.0])
    got = tad.hvp(f)(x, 4, v)
    want = numerical_grad(lambda t: np.vdot(tad.grad(f)(x + t * v, 4), v), (0.0,), 0)
    assert np.vdot(got, v) == pytest.approx(want, rel=1e-6)
    check_jvp(tad.grad(f), lambda x, n, dx: (tad.grad(f)(x, n), tad.hvp(f)(x, n, dx)),
              (x, 4))


def test_a_users_own_list_named_stack_stays_an_ordinary_list():
    def f(x):
        stack = []
        stack.append(x * 2.0)
        stack.append(x * 3.0)
        return stack[0] * stack[1]
    assert tad.grad(f)(1.5) == pytest.approx(18.0)
    source = tad.show_source(tad.jvp(f))
    assert "appended" in source

    def g(x):
        stack = [x]
        return stack.pop()
    with pytest.raises(tad.UnsupportedSyntaxError, match="pop"):
        tad.grad(g)


# ---- hvp -------------------------------------------------------------------------

def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def mlp(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    return np.mean((h @ W2 - y) ** 2)


def looped(x, w, n):
    h = x
    for i in range(n):
        if np.sum(h) > 0.0:
            h = np.tanh(h * w) + 0.1 * h
        else:
            h = np.sin(h) * w
    return np.sum(h ** 2)


def sin_cubed(x):
    return np.sin(x) * x ** 3


HVP_CASES = {
    "rosenbrock": (rosenbrock, lambda r: (r.normal(size=5),), 0),
    "mlp_W1": (mlp, lambda r: (r.normal(size=(3, 4)), r.normal(size=4), r.normal(size=(4, 2)),
                               r.normal(size=(5, 3)), r.normal(size=(5, 2))), 0),
    "mlp_b1": (mlp, lambda r: (r.normal(size=(3, 4)), r.normal(size=4), r.normal(size=(4, 2)),
                               r.normal(size=(5, 3)), r.normal(size=(5, 2))), 1),
    "looped_x": (looped, lambda r: (r.normal(size=3), 0.8, 4), 0),
    "looped_w": (looped, lambda r: (r.normal(size=3), 0.8, 4), 1),
    "scalar": (sin_cubed, lambda r: (float(r.uniform(0.2, 2.0)),), 0),
}


@pytest.mark.parametrize("name", sorted(HVP_CASES))
@pytest.mark.parametrize("seed", range(3))
def test_hvp_matches_finite_differences_of_the_gradient(name, seed):
    func, make_args, k = HVP_CASES[name]
    args = make_args(np.random.default_rng(seed))
    gradient = tad.grad(func, wrt=(k,))
    product = tad.hvp(func, wrt=k)
    check_jvp(gradient, lambda *a: (gradient(*a[:-1]), product(*a)), args, wrt=(k,),
              seed=seed)


def test_hvp_has_the_shape_and_dtype_of_x():
    def cubes(x):
        return np.sum(x ** 3)

    def fourth(x):
        return x ** 4
    x = np.ones((2, 3), np.float32)
    hv = tad.hvp(cubes)(x, np.ones((2, 3), np.float32))
    assert hv.shape == (2, 3) and hv.dtype == np.float32
    np.testing.assert_allclose(hv, 6.0)
    assert tad.hvp(fourth)(2.0, 1.0) == pytest.approx(48.0)


def test_hvp_passes_other_arguments_and_fills_defaults():
    def f(x, w, scale=2.0):
        return scale * np.sum(np.tanh(x * w))
    x, w, v = np.array([0.1, 0.4]), np.array([1.0, -2.0]), np.array([1.0, 1.0])
    by_name = tad.hvp(f, wrt="w")
    np.testing.assert_allclose(by_name(x, w, v), by_name(x, w, 2.0, v))
    np.testing.assert_allclose(tad.hvp(f, wrt=1)(x, w, v), by_name(x, w, v))
    t = np.tanh(x * w)
    np.testing.assert_allclose(tad.hvp(f)(x, w, v), 2.0 * -2 * t * (1 - t * t) * w * w * v)


def test_hvp_with_respect_to_several_arguments():
    def f(x, y):
        return np.sum(x ** 2 * y)
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    vx, vy = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    hx, hy = tad.hvp(f, wrt=(0, 1))(x, y, vx, vy)
    # H = [[diag(2y), diag(2x)], [diag(2x), 0]]
    np.testing.assert_allclose(hx, 2 * y * vx + 2 * x * vy)
    np.testing.assert_allclose(hy, 2 * x * vx)


def test_hvp_shows_the_generated_code_and_is_a_decorator():
    product = tad.hvp(looped)
    source = tad.show_source(product)
    assert source.startswith("def hvp_looped_dx(x, w, n, bresult, dx):")
    assert "stack.append(dh)" in source
    # the tangent of the gradient's result, cast like the argument
    assert "dresult = cast_like(dbh, x2)\n    return dresult" in source
    assert product.__name__ == "hvp_looped"

    @tad.hvp(wrt=0)
    def cubic(x):
        return np.sum(x ** 3)
    np.testing.assert_allclose(cubic(np.array([1.0, 2.0]), np.array([1.0, 1.0])), [6.0, 12.0])


# ---- jacobian -------------------------------------------------------------------

def wide(x):       # 2 inputs -> 3 outputs: forward mode, by column
    return np.array([x[0] * x[1], np.sin(x[0]) + 2.0 * x[1], x[1] ** 2])


def narrow(x):     # 4 inputs -> 2 outputs: reverse mode, by row
    return np.sum(x) * x[:2] + np.tanh(x[2:])


def outer(x):
    return np.outer(x, x)


def exp_sum(x):
    return np.sum(np.exp(x))


def scaled(x):
    return x * np.array([1.0, 2.0, 3.0])


def looped_map(x, n):
    for i in range(n):
        x = np.where(x > 0.0, np.sin(x) * 1.1, x * 0.5) + np.roll(x, 1) * 0.1
    return x


@pytest.mark.parametrize("func, x", [
    (wide, np.array([0.3, -1.2])),
    (narrow, np.array([0.3, -1.2, 0.5, 2.0])),
    (outer, np.array([1.0, 2.0, 3.0])),
    (exp_sum, np.array([[0.1, 0.2], [0.3, 0.4]])),
    (scaled, 0.7),
], ids=["forward", "reverse", "matrix_output", "scalar_output", "scalar_input"])
def test_jacobian_matches_finite_differences(func, x):
    got = tad.jacobian(func)(x)
    want = _fd_jacobian(func, x)
    assert np.shape(got) == np.shape(func(x)) + np.shape(x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_jacobian_with_a_loop_other_arguments_and_both_modes():
    x = np.array([0.5, -0.3, 0.8])
    got = tad.jacobian(looped_map)(x, 3)
    np.testing.assert_allclose(got, _fd_jacobian(lambda t: looped_map(t, 3), x),
                               rtol=1e-6, atol=1e-8)

    def f(a, x):
        return np.tanh(a @ x)
    a = np.random.default_rng(0).normal(size=(2, 5))
    x = np.random.default_rng(1).normal(size=5)
    np.testing.assert_allclose(tad.jacobian(f, wrt="x")(a, x),
                               _fd_jacobian(lambda t: f(a, t), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(tad.jacobian(f, wrt=0)(a, x),
                               _fd_jacobian(lambda t: f(t, x), a), rtol=1e-6, atol=1e-8)


def test_jacobian_keeps_float32_and_refuses_structured_outputs():
    def double(x):
        return x * 2.0

    def pair(x):
        return x, x
    J = tad.jacobian(double)(np.ones(3, np.float32))
    assert J.dtype == np.float32
    np.testing.assert_array_equal(J, 2.0 * np.eye(3))
    with pytest.raises(TypeError, match="jvp"):
        tad.jacobian(pair)(np.ones(2))
    source = tad.show_source(tad.jacobian(wide))
    assert "def jvp_wide_dx(" in source and "def vjp_wide_dx(" in source


# ---- hessian --------------------------------------------------------------------

def sin_times_reversed(x):
    return np.sum(np.sin(x) * x[::-1])


def exp_times_square(x):
    return np.exp(x) * x ** 2


@pytest.mark.parametrize("func, args", [
    (rosenbrock, (np.array([0.5, -0.2, 1.1, 0.3]),)),
    (sin_times_reversed, (np.array([[0.1, 0.7], [-0.4, 1.3]]),)),
    (looped, (np.array([0.4, -0.1, 0.2]), 0.9, 3)),
    (exp_times_square, (0.6,)),
], ids=["rosenbrock", "matrix_input", "loop_and_branch", "scalar"])
def test_hessian_matches_finite_differences_of_the_gradient(func, args):
    H = tad.hessian(func)(*args)
    x = args[0]
    gradient = tad.grad(func)
    want = _fd_jacobian(lambda t: gradient(t, *args[1:]), x)
    assert np.shape(H) == np.shape(x) * 2
    np.testing.assert_allclose(H, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(H, np.reshape(np.reshape(H, (np.size(x),) * 2).T, np.shape(H)),
                               rtol=1e-10, atol=1e-12)


# ---- vjp ------------------------------------------------------------------------

def array_out(x, w):
    return np.tanh(x @ w) * 2.0


def tuple_out(x, w):
    h = x * w
    return np.sin(h), np.sum(h ** 2)


def dict_out(x, w):
    return {"a": x * w, "b": np.exp(x), "c": np.sum(w)}


def dot_out(x, w):
    return np.sum(x * w)


VJP_CASES = {
    "array": (array_out, lambda r: (r.normal(size=(3, 4)), r.normal(size=(4, 2))),
              lambda r: r.normal(size=(3, 2))),
    "tuple": (tuple_out, lambda r: (r.normal(size=3), r.normal(size=3)),
              lambda r: (r.normal(size=3), float(r.normal()))),
    "dict": (dict_out, lambda r: (r.normal(size=2), r.normal(size=2)),
             lambda r: {"a": r.normal(size=2), "b": r.normal(size=2), "c": float(r.normal())}),
    "scalar": (dot_out, lambda r: (r.normal(size=3), r.normal(size=3)),
               lambda r: float(r.normal())),
}


def _inner(a, b):
    if isinstance(a, dict):
        return sum(_inner(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return sum(_inner(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a) * np.asarray(b)))


@pytest.mark.parametrize("name", sorted(VJP_CASES))
@pytest.mark.parametrize("wrt", [(0,), (1,), (0, 1)])
def test_vjp_matches_finite_differences(name, wrt):
    func, make_args, make_cotangent = VJP_CASES[name]
    rng = np.random.default_rng(4)
    args, cotangent = make_args(rng), make_cotangent(rng)
    got = tad.vjp(func, wrt=wrt)(*args, cotangent)
    got = got if len(wrt) > 1 else (got,)
    for i, g in zip(wrt, got):
        want = numerical_grad(lambda *a: _inner(func(*a), cotangent), args, i)
        assert np.shape(g) == np.shape(args[i])
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)


def test_vjp_takes_the_cotangent_without_a_default():
    back = tad.vjp(tuple_out)
    source = tad.show_source(back)
    assert "def vjp_tuple_out_dx(x, w, bresult):" in source
    assert "ensure_scalar" not in source
    x, w = np.array([1.0, 2.0]), np.array([0.5, -0.5])
    np.testing.assert_allclose(back(x, w, bresult=(np.zeros(2), 1.0)), 2 * x * w * w)
    with pytest.raises(TypeError):
        back(x, w)


def test_vjp_with_a_loop_and_a_decorator():
    @tad.vjp(wrt=(0,))
    def run(x, n):
        ys = []
        for i in range(n):
            x = np.sin(x) + x * 0.5
            ys.append(x)
        return ys[-1], x * 2.0
    x = np.array([0.2, -0.4])
    c = (np.array([1.0, 2.0]), np.array([0.5, 0.0]))

    def f(x, n):
        for i in range(n):
            x = np.sin(x) + x * 0.5
        return x, x * 2.0
    want = numerical_grad(lambda t: _inner(f(t, 3), c), (x,), 0)
    np.testing.assert_allclose(run(x, 3, c), want, rtol=1e-6, atol=1e-8)


def test_the_new_transforms_are_exported():
    modules = {"vjp": "tangent_ad.api", "hvp": "tangent_ad.matrices",
               "jacobian": "tangent_ad.matrices", "hessian": "tangent_ad.matrices"}
    for name, module in modules.items():
        assert name in tad.__all__ and getattr(tad, name).__module__ == module


# ---- every rule's gradient, differentiated forward -------------------------------

# Adjoints whose own derivative has no forward rule yet, by spec id prefix
# (none now: np.linalg.svd's vectors have one, runtime/svd_formulas.py).
NO_SECOND_DERIVATIVE = {
}


def _rule_params():
    out = []
    for spec in SPECS:
        if spec.xfail_reason(np.float64):
            continue  # a known-wrong first derivative
        reason = next((r for p, r in NO_SECOND_DERIVATIVE.items()
                       if spec.id.startswith(p)), None)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(spec, id=spec.id, marks=marks))
    return out


@pytest.fixture(scope="module")
def rule_module(tmp_path_factory):
    names = {spec.id: f"f_{n}" for n, spec in enumerate(SPECS)}
    source = "\n\n".join([MODULE_HEADER] + [function_source(names[spec.id], spec)
                                            for spec in SPECS])
    path = tmp_path_factory.mktemp("second") / "second_rule_functions.py"
    path.write_text(source)
    loader = importlib.util.spec_from_file_location("second_rule_functions", path)
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return {spec_id: getattr(module, name) for spec_id, name in names.items()}


@pytest.mark.parametrize("spec", _rule_params())
def test_every_rules_gradient_has_a_forward_derivative(spec, rule_module):
    """jvp of the gradient of each rule spec (all its arguments at once)
    against central differences of the gradient: the runtime helpers that
    gradients call have forward rules of their own."""
    func = rule_module[spec.id]
    args = sample(spec, np.float64)
    wrt = tuple(range(len(spec.shapes)))
    gradient = tad.grad(func, wrt=wrt)
    product = tad.jvp(gradient, wrt=wrt)
    n = len(args)
    check_jvp(gradient, lambda *a: product(*a[:n], 1.0, *a[n:]), args, wrt=wrt)


# ---- other compositions ------------------------------------------------------------

def branchy_map(x, n):
    for i in range(n):
        if np.sum(x) > 0:
            x = np.sin(x) * 1.2
        else:
            x = x * x
    return x


def test_forward_over_vjp_forward_over_forward_and_reverse_over_forward():
    x = np.array([0.3, -0.1, 0.4])
    v = np.array([1.0, 0.5, -0.3])
    c = np.array([0.2, 1.0, -1.0])
    back = tad.vjp(branchy_map)
    check_jvp(back, tad.jvp(back, wrt=(0,)), (x, 3, c), wrt=(0,))
    forward = tad.jvp(branchy_map)
    check_jvp(forward, tad.jvp(forward, wrt=(0,)), (x, 3, v), wrt=(0,))
    cotangent = (np.ones(3), np.array([0.5, -1.0, 2.0]))
    got = tad.vjp(forward, wrt=(0,))(x, 3, v, cotangent)
    want = numerical_grad(lambda t: _inner(forward(t, 3, v), cotangent), (x,), 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("func, x, n", [
    (control_flow_functions.loop_branch, 0.7, 4),
    (call_functions.use_power, 1.1, 4),
    (control_flow_functions.while_counter, np.array([0.3, 0.2]), 3),
], ids=["loop_branch", "recursive_call", "while"])
def test_third_order_forward_over_forward_over_reverse(func, x, n):
    """The code forward mode writes over a gradient is generated code too:
    its stack carries values, tangents and their tangents in pairs."""
    product = tad.jvp(tad.grad(func))
    v = np.ones_like(x) if np.ndim(x) else 1.0
    check_jvp(product, tad.jvp(product, wrt=(0, 3)), (x, n, 1.0, v), wrt=(0, 3))


def scaled_cubes(x, scale=1.0, shift=0.0):
    return np.sum(scale * (x + shift) ** 3)


def test_dense_matrices_and_hvp_take_keyword_arguments():
    x, v = np.array([0.5, -1.0]), np.array([1.0, 2.0])
    want = np.diag(6.0 * 2.0 * (x + 0.5))
    np.testing.assert_allclose(tad.hessian(scaled_cubes)(x, shift=0.5, scale=2.0), want)
    np.testing.assert_allclose(tad.hvp(scaled_cubes)(x, v, scale=2.0, shift=0.5), want @ v)
    np.testing.assert_allclose(tad.jacobian(tad.grad(scaled_cubes))(x, scale=2.0, shift=0.5),
                               want)


def _pair_list(x):
    return list((x, x * 2.0))


def _product_of_pair(x):
    pair = _pair_list(x)
    return pair[0] * pair[1]


def test_second_derivatives_through_list_of_a_tuple():
    # autograd's test_list.py::test_make_list: forward mode over the
    # derivative of list(...) (converted_tangent has a forward rule)
    assert tad.hvp(_product_of_pair)(1.5, 1.0) == pytest.approx(4.0)
    assert tad.grad(tad.grad(_product_of_pair))(1.5) == pytest.approx(4.0)


def _dict_loss(d):
    return np.sum(np.sin(d["a"])) + np.sum(np.cos(d["b"]) * d["a"][0])


_DICT_GRADIENT = tad.grad(_dict_loss)


def _of_a_dict_gradient(d):
    g = _DICT_GRADIENT(d)
    return np.sum(g["a"] * g["a"]) + np.sum(np.sin(g["b"]))


def test_reverse_over_the_gradient_of_a_dict_argument():
    """The cotangent of a dict gradient is a dict, not the scalar seed of
    grad(grad(f)) (np.ndim of a dict is 0)."""
    d = {"a": np.array([0.3, 0.5]), "b": np.array([1.0, 2.0])}
    gradient = tad.grad(_of_a_dict_gradient)(d)
    h = 1e-6
    for key in d:
        for i in range(2):
            up = {k: v.copy() for k, v in d.items()}
            down = {k: v.copy() for k, v in d.items()}
            up[key][i] += h
            down[key][i] -= h
            numeric = (_of_a_dict_gradient(up) - _of_a_dict_gradient(down)) / (2 * h)
            assert gradient[key][i] == pytest.approx(numeric, rel=1e-6, abs=1e-8)


def _writes_an_item(x):
    args = [x, 2.0]
    args[0] = 0.5 * (x + np.swapaxes(x, -1, -2))  # autograd's symmetrize_matrix_arg
    return np.sum(np.sin(args[0]) * args[1])


def _writes_a_complex_item(x):
    z = x * (1.0 + 0.5j)
    z[0] = np.sin(x[1]) * 2j
    return np.sum(np.abs(z) ** 2)


@pytest.mark.parametrize("func, shape", [(_writes_an_item, (3, 3)),
                                         (_writes_a_complex_item, (3,))])
def test_an_item_write_differentiated_twice(func, shape):
    # forward mode writes an item's tangent with updated_tangent; a jvp of a
    # jvp (autograd's sqrtm test, order 2) and a gradient of a jvp need its
    # own rules
    rng = np.random.default_rng(0)
    x, v, w = (rng.normal(size=shape) for _ in range(3))
    directional = tad.jvp(func)

    def along_v(y):
        return directional(y, v)[1]
    numerical = numerical_grad(along_v, (x,), 0)
    np.testing.assert_allclose(tad.grad(along_v)(x), numerical, rtol=1e-6, atol=1e-8)
    assert tad.jvp(along_v)(x, w)[1] == pytest.approx(np.sum(numerical * w), rel=1e-6)
