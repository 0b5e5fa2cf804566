"""Every callable a transform is given: lambdas, bound methods, classmethods,
objects with ``__call__``, functools.partial; and ``has_aux``.

Each derivative is checked against central differences (float64) and for
its dtype (float32), in reverse mode, forward mode (jvp) and hvp.
"""
import functools
import linecache
import os
import subprocess
import sys

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.testing import numerical_grad

RNG = np.random.default_rng(7)
X = RNG.normal(size=3)
V = RNG.normal(size=3)
W = RNG.normal(size=(3, 3))


def loss(w, s, t=1.0):
    return np.sum(np.tanh(w) * s) * t + np.sum(w ** 3) * 0.1


class Model:
    SCALE = 1.5

    def __init__(self, W):
        self.W = W

    def loss(self, x, s=1.0):
        return np.sum(np.sin(self.W @ x)) * s * self.SCALE

    @classmethod
    def cm(cls, x):
        return np.sum(x ** 3) * cls.SCALE

    @staticmethod
    def sm(x):
        return np.sum(np.cos(x))

    def __call__(self, x):
        return np.sum(np.tanh(self.W @ x) ** 2)


module_lambda = lambda w: loss(w, 2.0)  # noqa: E731
twin_a = lambda w: np.sum(w ** 2); twin_b = lambda w: np.sum(np.sin(w))  # noqa: E702,E731
same_a = lambda w: w * 2.0; same_b = lambda w: w * 3.0  # noqa: E702,E731


def hessian_fd(f, x, v, eps=1e-5):
    """H(x) @ v by central differences of the gradient (checked against
    central differences of `f` by the same tests)."""
    g = tad.grad(f)
    return (g(x + eps * v) - g(x - eps * v)) / (2 * eps)


def check_all(f, x=X, v=V):
    """grad, jvp and hvp of the one-argument callable `f` against central
    differences, and the float32 gradient's dtype."""
    expected = numerical_grad(f, (x,), 0)
    np.testing.assert_allclose(tad.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
    value, tangent = tad.jvp(f)(x, v)
    np.testing.assert_allclose(value, f(x), rtol=1e-12)
    np.testing.assert_allclose(tangent, expected @ v, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(tad.hvp(f)(x, v), hessian_fd(f, x, v), rtol=1e-6, atol=1e-8)
    g32 = tad.grad(f)(x.astype(np.float32))
    assert g32.dtype == np.float32 and g32.shape == x.shape


# ---- lambdas ------------------------------------------------------------------

def test_a_module_level_lambda():
    check_all(module_lambda)


def test_an_inline_lambda_as_an_argument():
    check_all(lambda w: loss(w, 3.0, t=0.5))
    assert "Grad of: loss(w, 3.0, t=0.5)" in tad.show_source(tad.grad(lambda w: loss(w, 3.0, t=0.5)))


def test_two_lambdas_on_one_line_are_told_apart():
    check_all(twin_a)
    check_all(twin_b)
    np.testing.assert_allclose(tad.grad(twin_b)(X), np.cos(X))
    assert tad.grad(same_a)(1.0) == 2.0 and tad.grad(same_b)(1.0) == 3.0


def test_two_identical_lambdas_on_one_line_are_told_apart_by_column():
    a, b = (lambda w: w * 2.0), (lambda w: w * 2.0)
    assert "Grad of: w * 2.0" in tad.show_source(tad.grad(a))
    assert tad.grad(b)(1.0) == 2.0


def test_two_lambdas_that_cannot_be_told_apart_are_refused(tmp_path):
    # without column positions (python -X no_debug_ranges) only the line is known
    script = tmp_path / "two.py"
    script.write_text(
        "import tangent_ad as tad\n"
        "a, b = (lambda w: w * 2.0), (lambda w: w * 3.0)\n"
        "try:\n"
        "    tad.grad(a)\n"
        "except tad.UnsupportedSyntaxError as exc:\n"
        "    print(type(exc).__name__, exc)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-X", "no_debug_ranges", str(script)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert "UnsupportedSyntaxError" in out.stdout, out.stderr
    assert "cannot tell which lambda" in out.stdout and "two.py:2" in out.stdout


def test_a_lambda_in_a_notebook_cell():
    source = "f = lambda w: np.sum(np.sin(w) * scale)\n"
    filename = "<notebook cell lambda>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = {"np": np, "scale": 2.0, "__name__": "__notebook__"}
    exec(compile(source, filename, "exec"), ns)
    check_all(ns["f"])
    df = tad.grad(ns["f"])
    ns["scale"] = 5.0  # a global is read when the derivative runs
    np.testing.assert_allclose(df(X), 5.0 * np.cos(X))


def test_a_lambda_without_source_says_so():
    ns = {"np": np}
    exec(compile("f = lambda w: w * 2.0\n", "<stdin>", "exec"), ns)
    with pytest.raises(tad.SourceUnavailableError, match="plain `python` prompt") as info:
        tad.grad(ns["f"])
    assert "IPython or Jupyter" in str(info.value)


def test_a_def_without_source_says_so():
    ns = {"np": np}
    exec(compile("def f(w):\n    return w * 2.0\n", "<stdin>", "exec"), ns)
    with pytest.raises(tad.SourceUnavailableError, match="IPython or Jupyter"):
        tad.grad(ns["f"])


# ---- methods and callable objects ---------------------------------------------

def test_a_bound_method_counts_parameters_after_self():
    model = Model(W)
    check_all(model.loss)
    np.testing.assert_allclose(tad.grad(model.loss, wrt="s")(X, 2.0),
                               numerical_grad(model.loss, (X, 2.0), 1), rtol=1e-6)
    np.testing.assert_allclose(tad.grad(model.loss, wrt=1)(X, 2.0),
                               numerical_grad(model.loss, (X, 2.0), 1), rtol=1e-6)


def test_two_instances_and_a_rebound_attribute():
    a, b = Model(W), Model(2.0 * W)
    ga, gb = tad.grad(a.loss), tad.grad(b.loss)
    np.testing.assert_allclose(ga(X), numerical_grad(a.loss, (X,), 0), rtol=1e-6)
    np.testing.assert_allclose(gb(X), numerical_grad(b.loss, (X,), 0), rtol=1e-6)
    a.W = W.T  # seen when the derivative runs, as Python reads it
    np.testing.assert_allclose(ga(X), numerical_grad(a.loss, (X,), 0), rtol=1e-6)
    Model.SCALE = 3.0
    try:
        np.testing.assert_allclose(ga(X), numerical_grad(a.loss, (X,), 0), rtol=1e-6)
    finally:
        Model.SCALE = 1.5


def test_classmethod_staticmethod_and_call():
    check_all(Model.cm)
    check_all(Model.sm)
    check_all(Model(W))


def test_value_and_grad_vjp_and_jacobian_of_a_bound_method():
    model = Model(W)
    value, g = tad.value_and_grad(model.loss)(X, 2.0)
    assert value == pytest.approx(model.loss(X, 2.0))
    np.testing.assert_allclose(g, numerical_grad(model.loss, (X, 2.0), 0), rtol=1e-6)
    np.testing.assert_allclose(tad.vjp(model.loss)(X, 2.0, 1.0), g, rtol=1e-12)
    np.testing.assert_allclose(tad.hessian(model.loss)(X) @ V,
                               hessian_fd(model.loss, X, V), rtol=1e-4, atol=1e-6)


# ---- functools.partial --------------------------------------------------------

def test_partial_with_keyword_and_positional_bound_arguments():
    check_all(functools.partial(loss, s=3.0))
    check_all(functools.partial(loss, s=3.0, t=0.5))
    s = RNG.normal(size=3)
    by_position = functools.partial(loss, X)  # wrt counts the remaining: s
    np.testing.assert_allclose(tad.grad(by_position)(s), numerical_grad(by_position, (s,), 0),
                               rtol=1e-6)
    nested = functools.partial(functools.partial(loss, s=2.0), t=3.0)
    check_all(nested)


def test_partial_of_a_bound_method():
    check_all(functools.partial(Model(W).loss, s=2.0))


def test_a_decorated_function_keeps_working():
    def twice(fn):
        @functools.wraps(fn)
        def wrapper(x):
            return 2.0 * fn(x)
        return wrapper

    @twice
    def f(x):
        return np.sum(np.sin(x))

    check_all(f)


# ---- has_aux ------------------------------------------------------------------

def with_aux(w):
    value = np.sum(np.tanh(w) ** 2)
    return value, {"value": value, "label": "tanh", "n": 3}


def test_grad_with_aux_returns_the_gradient_and_aux():
    g, aux = tad.grad(with_aux, has_aux=True)(X)
    np.testing.assert_allclose(g, numerical_grad(lambda w: with_aux(w)[0], (X,), 0), rtol=1e-6)
    assert aux["label"] == "tanh" and aux["n"] == 3 and aux["value"] == with_aux(X)[0]
    (value, aux), g2 = tad.value_and_grad(with_aux, has_aux=True)(X)
    assert value == with_aux(X)[0] and aux["label"] == "tanh"
    np.testing.assert_allclose(g2, g)
    g32, _ = tad.grad(with_aux, has_aux=True)(X.astype(np.float32))
    assert g32.dtype == np.float32


def test_has_aux_on_a_bound_method_and_a_lambda():
    model = Model(W)
    g, aux = tad.grad(lambda x: (model.loss(x), "aux"), has_aux=True)(X)
    np.testing.assert_allclose(g, numerical_grad(model.loss, (X,), 0), rtol=1e-6)
    assert aux == "aux"


def test_a_tuple_output_without_has_aux_names_vjp_and_has_aux():
    with pytest.raises(tad.NonScalarOutputError) as info:
        tad.grad(with_aux)(X)
    assert "vjp" in str(info.value) and "has_aux=True" in str(info.value)


# ---- the documented examples run ---------------------------------------------

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _blocks(path, start, end):
    with open(os.path.join(ROOT, path)) as f:
        text = f.read()
    part = text[text.index(start):text.index(end, text.index(start))]
    return [b.split("```")[0] for b in part.split("```python")[1:]]


@pytest.mark.parametrize("path, start, end", [
    ("docs/supported-python.md", "## Callables", "## Expressions and assignments"),
    ("README.md", "### Any callable", "## Command line"),
])
def test_documented_examples_run(path, start, end):
    blocks = _blocks(path, start, end)
    assert blocks
    for i, block in enumerate(blocks):
        filename = f"<{path} example {i}>"  # kept like a notebook cell's source
        linecache.cache[filename] = (len(block), None, block.splitlines(True), filename)
        exec(compile(block, filename, "exec"), {"__name__": "__doc_example__"})


def test_value_and_grad_checks_the_output_like_grad():
    # it used to seed a vector output with ones (the gradient of its sum)
    with pytest.raises(tad.NonScalarOutputError, match="vjp"):
        tad.value_and_grad(lambda w: w * 2.0)(X)
    with pytest.raises(tad.NonScalarOutputError, match="has_aux=True"):
        tad.value_and_grad(with_aux)(X)
