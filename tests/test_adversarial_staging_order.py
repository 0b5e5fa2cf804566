"""Adversarial tests for three recent changes: folding single-use
temporaries in staged copies (staging/inline.py), the seed check of
second derivatives (second_order.py), and the CLI's --order N."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.staging.dispatch import variants

X3 = np.array([0.3, -0.7, 1.1])
W = np.array([[0.2, -0.1, 0.4], [0.5, 0.3, -0.2], [0.1, 0.1, 0.9]])


def helper(a):
    return np.sin(a) * a


def loop_tmp(x):
    s = 0.0
    for i in range(3):
        s = s + np.tanh(x * i + 1.0) * np.cos(x)
    return np.sum(s)


def branch_tmp(x):
    if np.sum(x) > 0:
        y = np.exp(x * 2.0) * x
    else:
        y = np.log(x * x + 1.0) * x
    return np.sum(y * y)


def while_tmp(x):
    i = 0
    y = x
    while i < 3:
        y = np.sin(y * 1.5) + y * y
        i = i + 1
    return np.sum(y)


def user_named_t(x):
    t = x * 3.0
    t2 = np.sin(t) * x
    bt2 = t2 * t
    return np.sum(bt2 * np.cos(x))


def user_t_reassigned(x):
    t = x * 2.0
    y = np.sin(t)
    t = np.cos(x) * t
    return np.sum(y * t)


def print_between(x):
    a = np.sin(x) * x
    print("", end="")
    b = np.cos(a) * a
    return np.sum(b)


def helper_between(x):
    a = x * x + 1.0
    b = helper(a) * np.tanh(a)
    return np.sum(b * a)


def random_between(x):
    np.random.seed(0)
    a = x * np.random.normal(size=x.shape)
    b = np.sin(a) * a
    return np.sum(b)


def augassign(x):
    y = x * 2.0
    y += np.sin(x) * x
    y *= np.cos(y)
    return np.sum(y)


def list_write(x):
    ys = [x, x * 2.0, x * 3.0]
    for i in range(3):
        ys[i] = np.sin(ys[i]) * ys[i]
    return np.sum(ys[0] * ys[1] + ys[2])


def dict_write(x):
    d = {"a": x * 2.0}
    d["b"] = np.sin(d["a"]) * x
    d["a"] = d["b"] * d["a"]
    return np.sum(d["a"] + d["b"])


def closure(x):
    c = np.sin(x)

    def inner(z):
        return z * c * np.cos(z)
    return np.sum(inner(x * 2.0) * x)


def rec(x, n):
    if n == 0:
        return x * x
    return np.sin(rec(x, n - 1)) * x


def recursion(x):
    return np.sum(rec(x, 3))


def comprehension(x):
    vs = [np.sin(x * k) * x for k in range(3)]
    return np.sum(vs[0] * vs[1] + vs[2])


def indexing(x):
    y = x[1:] * x[:-1]
    z = np.sin(y) * y
    return np.sum(z[::2] * 2.0) + x[0] * z[0]


def branches_in_loop(x):
    y = x
    for i in range(4):
        if i % 2 == 0:
            y = y * np.sin(y)
        else:
            y = np.cos(y) + y
    return np.sum(y)


def int_only_branch(x):
    n = 1
    if x[0] > 0:
        n = 3
    y = np.sin(x) * x
    return np.sum(y) * n


def loop_single_temp(x):
    y = x
    for i in range(2):
        y = np.sin(y * 2.0)
    return np.sum(y)


def mlp(W, x):
    h = np.tanh(W @ x + 1.0)
    h2 = np.tanh(W @ h * 0.5)
    return np.sum(h2 * h2)


def scalar_loop(x):
    a = x * x
    b = np.sin(a) * a
    for i in range(2):
        b = b * np.cos(b + a)
    return b


def hook_clip(x):
    h = x * 3.0
    with tad.insert_grad_code(h) as dh:
        dh = np.clip(dh, -1.0, 1.0)
    y = np.sin(h) * h
    return np.sum(y * y)


def hook_clip_out(x):
    h = x * 3.0
    with tad.insert_grad_code(h) as dh:
        np.clip(dh, -1.0, 1.0, out=dh)
    y = np.sin(h) * h
    return np.sum(y * y)


def hook_scale_inplace(x):
    h = np.tanh(x * 3.0)
    with tad.insert_grad_code(h) as dh:
        dh *= 0.5
    y = np.sin(h) * h * x
    return np.sum(y * y)


def hook_in_loop(x):
    h = x
    for i in range(3):
        with tad.insert_grad_code(h) as dh:
            np.multiply(dh, 0.5, out=dh)
        h = np.tanh(h * 1.3 + 0.1)
    return np.sum(h * h)


def _copy(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _central(f, args, i, eps=1e-6):
    x = args[i]
    if isinstance(x, float):
        hi, lo = list(args), list(args)
        hi[i], lo[i] = x + eps, x - eps
        return (f(*hi) - f(*lo)) / (2 * eps)
    out = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        hi, lo = list(args), list(args)
        hi[i], lo[i] = x.copy(), x.copy()
        hi[i][k] += eps
        lo[i][k] -= eps
        out[k] = (f(*hi) - f(*lo)) / (2 * eps)
    return out


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _staged_matches_general(f, args, wrt=0):
    g = tad.grad(f, wrt=wrt)
    general = getattr(g, "__wrapped__", g)
    expected = _as_tuple(general(*_copy(args)))
    for _ in range(5):
        for got, want in zip(_as_tuple(g(*_copy(args))), expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    for source in variants(g).values():
        compile(source, "<variant>", "exec")
    return expected


SMOOTH = [loop_tmp, branch_tmp, while_tmp, user_named_t, user_t_reassigned, print_between,
          helper_between, random_between, augassign, list_write, dict_write, closure,
          recursion, comprehension, indexing, branches_in_loop, int_only_branch,
          loop_single_temp]


@pytest.mark.parametrize("f", SMOOTH, ids=lambda f: f.__name__)
def test_staged_copy_matches_general_and_finite_differences(f):
    (grad,) = _staged_matches_general(f, (X3,))
    np.testing.assert_allclose(grad, _central(f, [X3], 0), rtol=1e-5, atol=1e-6)


def test_staged_copy_branch_not_taken_matches():
    (grad,) = _staged_matches_general(branch_tmp, (-X3,))
    np.testing.assert_allclose(grad, _central(branch_tmp, [-X3], 0), rtol=1e-5, atol=1e-6)


def test_staged_copy_of_two_argument_mlp():
    grads = _staged_matches_general(mlp, (W, X3), wrt=(0, 1))
    for i, grad in enumerate(grads):
        np.testing.assert_allclose(grad, _central(mlp, [W, X3], i), rtol=1e-5, atol=1e-6)


def test_staged_copy_of_python_float_function():
    (grad,) = _staged_matches_general(scalar_loop, (0.7,))
    np.testing.assert_allclose(grad, _central(scalar_loop, [0.7], 0), rtol=1e-5)


@pytest.mark.parametrize("f", [hook_clip, hook_clip_out, hook_scale_inplace, hook_in_loop],
                         ids=lambda f: f.__name__)
def test_staged_copy_keeps_hooks_that_modify_adjoints(f):
    _staged_matches_general(f, (X3,))


# second derivatives

def cubic_sin(x):
    return np.sum(np.sin(x) * x * x)


def two_args(x, y):
    return np.sum(np.sin(x) * y * y)


def with_default(x, a=2.0):
    return np.sum(np.sin(x * a) * x)


def of_dict(p):
    return np.sum(np.sin(p["a"]) * p["a"]) * p["b"]


def of_list(p):
    return np.sum(np.sin(p[0]) * p[0]) * p[1]


def _exact_second(x):
    return -np.sin(x) * x * x + 4 * x * np.cos(x) + 2 * np.sin(x)


@pytest.mark.parametrize("x", [0.7, np.array(0.7), np.array([0.7]), np.float32(0.7),
                               np.array([0.7], dtype=np.float32)],
                         ids=["float", "0d", "shape1", "float32", "float32-shape1"])
def test_second_derivative_of_scalar_kinds(x):
    gg = tad.grad(tad.grad(cubic_sin))
    for _ in range(4):
        np.testing.assert_allclose(np.squeeze(gg(x)), _exact_second(0.7), rtol=1e-6)


def test_second_derivative_of_vector_argument_refuses():
    gg = tad.grad(tad.grad(cubic_sin))
    for _ in range(3):
        with pytest.raises(tad.NonScalarOutputError):
            gg(np.array([0.7, 0.1, 0.2]))


def test_gradient_of_gradient_of_several_arguments_refuses():
    g = tad.grad(two_args, wrt=(0, 1))
    for wrt in (0, 1):
        with pytest.raises(tad.NonScalarOutputError):
            tad.grad(g, wrt=wrt)(0.7, 0.3)


def test_mixed_partials_and_third_order():
    gx = tad.grad(two_args, wrt=0)
    assert tad.grad(gx, wrt=1)(0.7, 0.3) == pytest.approx(2 * 0.3 * np.cos(0.7))
    assert tad.grad(gx, wrt=0)(0.7, 0.3) == pytest.approx(-np.sin(0.7) * 0.09)
    np.testing.assert_allclose(tad.grad(gx, wrt=1)(0.7, np.ones(3)), 2 * np.cos(0.7) * np.ones(3))
    with pytest.raises(tad.NonScalarOutputError):
        tad.grad(gx, wrt=1)(np.ones(3), 0.3)
    ggg = tad.grad(tad.grad(tad.grad(cubic_sin)))
    gg = tad.grad(tad.grad(cubic_sin))
    h = 1e-5
    assert ggg(0.7) == pytest.approx((gg(0.7 + h) - gg(0.7 - h)) / (2 * h), rel=1e-6)


def test_second_derivative_with_keywords_and_defaults():
    gg = tad.grad(tad.grad(with_default))
    assert gg(0.7) == pytest.approx(-4 * np.sin(1.4) * 0.7 + 4 * np.cos(1.4))
    assert gg(0.7, a=3.0) == pytest.approx(-9 * np.sin(2.1) * 0.7 + 6 * np.cos(2.1))
    assert tad.grad(tad.grad(cubic_sin))(x=0.7, bresult=2.0) == pytest.approx(
        2 * _exact_second(0.7))


def test_vjp_and_jvp_of_gradient_of_vector():
    x = np.array([0.7, 0.1, 0.2])
    np.testing.assert_allclose(tad.vjp(tad.grad(cubic_sin))(x, np.ones(3)), _exact_second(x))
    _, tangent = tad.jvp(tad.grad(cubic_sin))(x, 1.0, np.ones(3))
    np.testing.assert_allclose(tangent, _exact_second(x))


@pytest.mark.parametrize("f,arg", [
    (of_dict, {"a": np.ones(3), "b": 2.0}),
    (of_dict, {"a": 0.5, "b": 2.0}),
    (of_list, [np.ones(3), 2.0]),
    (of_list, [0.5, 2.0]),
    (of_list, (0.5, 2.0)),
], ids=["dict-array", "dict-floats", "ragged-list", "list", "tuple"])
def test_second_derivative_of_container_argument_refuses(f, arg):
    # regression: a dict raised TypeError deep in the Hessian-vector
    # product and a ragged list a ValueError from np.size, instead of
    # NonScalarOutputError (the gradient of a container is a container)
    with pytest.raises(tad.NonScalarOutputError):
        tad.grad(tad.grad(f))(arg)


# CLI --order N

CLI_SOURCE = textwrap.dedent("""
    import numpy as np

    def helper(a):
        return np.sin(a) * a

    def loss(x, y):
        s = 0.0
        for i in range(3):
            s = s + helper(x * y) * np.exp(y / 3.0)
        return np.sum(s * x)

    def fact(x, n):
        if n == 0:
            return x
        return np.tanh(fact(x, n - 1)) * x

    def rec(x):
        return np.sum(fact(x, 2))
""")


def _cli(tmp_path, *args):
    (tmp_path / "model.py").write_text(CLI_SOURCE)
    return subprocess.run([sys.executable, "-m", "tangent_ad", *args], cwd=tmp_path,
                          capture_output=True, text=True)


@pytest.mark.parametrize("func,call,wrt", [("loss", "(0.7, 0.4)", "x"),
                                           ("loss", "(0.7, 0.4)", "y"),
                                           ("rec", "(0.7,)", "x")])
def test_cli_order_two_module_runs_in_fresh_process(tmp_path, func, call, wrt):
    done = _cli(tmp_path, f"model.py:{func}", "--wrt", wrt, "--order", "2", "--check",
                "-o", "out.py")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "out.py").read_text()
    imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
    assert all(line == "import numpy as np" or line.startswith("from tangent_ad.runtime ")
               or line.split()[0] == "import" and line.split()[-1] in sys.stdlib_module_names
               for line in imports), imports
    script = (f"import out, model, tangent_ad as tad\n"
              f"got = out.dd{func}_d{wrt}_d{wrt}{call}\n"
              f"want = tad.grad(tad.grad(model.{func}, wrt='{wrt}'), wrt='{wrt}'){call}\n"
              f"assert abs(got - want) < 1e-12, (got, want)\n")
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


# fixed: the module now holds the generated functions the derivative calls
# by name (here the first derivative), not only those made on demand
def test_cli_order_two_without_optimization(tmp_path):
    done = _cli(tmp_path, "model.py:loss", "--order", "2", "--no-optimize", "--check",
                "-o", "out.py")
    assert done.returncode == 0, done.stderr
