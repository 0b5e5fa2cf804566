"""Globals are live: a derivative reads what the function reads when it runs.

The functions under test run in *notebook cells*: source registered in
``linecache`` and executed in one shared namespace, as IPython does, so a
test can rebind a global or run a cell again (redefine a helper) between
two calls of the same derivative.
"""
import itertools
import linecache

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.staging.dispatch import variants
from tangent_ad.testing import numerical_grad

_cells = itertools.count()


class Notebook:
    """A namespace that runs cells of source, like a notebook kernel."""

    def __init__(self):
        self.ns = {"np": np, "tad": tad, "__name__": "__notebook__"}

    def run(self, source):
        filename = f"<notebook cell {next(_cells)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), self.ns)

    def __getitem__(self, name):
        return self.ns[name]

    def __setitem__(self, name, value):
        self.ns[name] = value


def fd(nb, name, *args, argnum=0):
    return numerical_grad(nb[name], args, argnum)


CALLS = 4  # enough for the staged copy to be written and run


@pytest.fixture
def nb():
    notebook = Notebook()
    notebook.run(
        "X = np.ones((3, 2))\n"
        "scale = 2.0\n"
        "def loss(w):\n"
        "    return scale * np.sum((X @ w) ** 2)\n")
    return notebook


def test_rebinding_a_global_array_and_number_changes_the_next_gradient(nb):
    w = np.array([1.0, -2.0])
    g = tad.grad(nb["loss"])
    for _ in range(CALLS):
        np.testing.assert_allclose(g(w), fd(nb, "loss", w), rtol=1e-6)
    nb["X"] = np.arange(6.0).reshape(3, 2)
    nb["scale"] = 5.0
    for _ in range(CALLS):  # the existing derivative and its staged copies
        np.testing.assert_allclose(g(w), fd(nb, "loss", w), rtol=1e-6)
    np.testing.assert_allclose(tad.grad(nb["loss"])(w), fd(nb, "loss", w), rtol=1e-6)


@pytest.mark.parametrize("value", [3, 0.5, np.float32(1.5), np.array(2.0),
                                   np.array([1.0, 2.0]), np.ones((3, 2))])
def test_every_kind_of_data_global_is_read_when_called(nb, value):
    w = np.array([1.0, -2.0])
    g = tad.grad(nb["loss"])
    for _ in range(CALLS):
        g(w)
    nb["scale"] = value
    expected = fd(nb, "loss", w) if np.ndim(value) == 0 else None
    for _ in range(CALLS):
        if expected is None:  # a non-scalar scale: the loss is not a scalar
            with pytest.raises(tad.TangentADError):
                g(w)
        else:
            np.testing.assert_allclose(g(w), expected, rtol=1e-5)


def test_a_staged_copy_assumes_a_globals_kind_only_behind_its_guard(nb):
    # issue 15: a module constant (DT = 0.5) has a kind the copy may use, so
    # no unbroadcast is left for a scalar loop; its value stays live, and
    # another kind of value fails the guard and gets a copy of its own
    nb.run(
        "DT = 0.5\n"
        "def step(x):\n"
        "    for i in range(3):\n"
        "        x = x + DT * np.cos(x)\n"
        "    return x\n")
    g = tad.grad(nb["step"])
    for _ in range(CALLS):
        np.testing.assert_allclose(g(0.3), fd(nb, "step", 0.3), rtol=1e-6)
    (copy,) = variants(g).values()
    assert "unbroadcast" not in copy and "DT" in copy
    for value in (0.25, np.float32(0.25), 2, np.array(0.5), 0.5):
        nb["DT"] = value
        for _ in range(CALLS):
            np.testing.assert_allclose(g(0.3), fd(nb, "step", 0.3), rtol=1e-5)
    assert len(variants(g)) >= 4


def test_a_guard_on_the_kind_of_a_global_that_only_a_pullback_reads(nb):
    # found by the fuzzer: the copy of a decorated function (its wrapper,
    # calling the pullback of the function it wraps) reads no global, but
    # its guard checks the kinds of those the pullback reads, by name; the
    # guarded copy, compiled from its text as it was, raised NameError
    nb.run(
        "import functools\n"
        "SCALE = 0.7\n"
        "FLAG = True\n"
        "def shifted(fn):\n"
        "    @functools.wraps(fn)\n"
        "    def wrapper(*args):\n"
        "        return fn(*args) * 0.5 + 0.25\n"
        "    return wrapper\n"
        "@shifted\n"
        "def f(x):\n"
        "    if FLAG:\n"
        "        x = x * SCALE\n"
        "    return np.sum(np.sin(x))\n")
    g = tad.grad(nb["f"])
    x = np.array([0.3, -1.2, 2.0])
    for _ in range(CALLS):
        np.testing.assert_allclose(g(x), fd(nb, "f", x), rtol=1e-6)
    nb["SCALE"] = 2.0
    for _ in range(CALLS):
        np.testing.assert_allclose(g(x), fd(nb, "f", x), rtol=1e-6)


def test_globals_read_by_a_helper_and_in_forward_mode_are_live(nb):
    nb.run(
        "offset = 1.0\n"
        "def inner(v):\n"
        "    return np.sin(v + offset)\n"
        "def outer(v):\n"
        "    return np.sum(inner(v) * scale)\n")
    v = np.array([0.1, 0.2, 0.3])
    g, f = tad.grad(nb["outer"]), tad.jvp(nb["outer"])
    t = np.array([1.0, 0.5, -1.0])
    for offset in (1.0, -0.7, 2.5):
        nb["offset"] = offset
        for _ in range(CALLS):
            np.testing.assert_allclose(g(v), fd(nb, "outer", v), rtol=1e-6)
            np.testing.assert_allclose(f(v, t)[1], fd(nb, "outer", v) @ t, rtol=1e-6)


def test_a_closure_cell_named_like_a_global_read_live_elsewhere(nb):
    # autograd's ica.py: `latent_dimension` is a global of the script, read
    # live by one helper, and a cell of a closure another helper calls (the
    # closure's generated code found no such name; reading it live too would
    # have read the global's 5.0 for the cell's 2.0)
    nb.run(
        "offset = 1.0\n"
        "def make_scaled(scale):\n"
        "    def scaled(v):\n"
        "        return np.sin(v * scale + offset)\n"
        "    return scaled\n"
        "scaled = make_scaled(2.0)\n"
        "def weigh(u):\n"
        "    return u * scale\n"
        "def cell_and_global(v):\n"
        "    return np.sum(weigh(scaled(v)))\n")
    nb["scale"] = 5.0
    v, t = np.array([0.1, 0.2, 0.3]), np.array([1.0, 0.5, -1.0])
    g, f, h = tad.grad(nb["cell_and_global"]), tad.jvp(nb["cell_and_global"]), \
        tad.hvp(nb["cell_and_global"])
    for scale, offset in ((5.0, 1.0), (-3.0, 0.25)):
        nb["scale"], nb["offset"] = scale, offset
        for _ in range(CALLS):
            np.testing.assert_allclose(g(v), fd(nb, "cell_and_global", v), rtol=1e-6)
            np.testing.assert_allclose(f(v, t)[1], fd(nb, "cell_and_global", v) @ t, rtol=1e-6)
            # d/dv of 2 * scale * cos(2 v + offset) is -4 * scale * sin(2 v + offset)
            np.testing.assert_allclose(h(v, t), -4 * scale * np.sin(2 * v + offset) * t, rtol=1e-6)


def test_a_global_read_live_named_like_a_cell_of_the_requested_function_is_refused(nb):
    # the unit would hold one name for two values (its hvp reads it by name)
    nb.run(
        "def weigh(u):\n"
        "    return u * scale\n"
        "def make(scale):\n"
        "    def outer(v):\n"
        "        return np.sum(weigh(v) * scale)\n"
        "    return outer\n"
        "outer = make(2.0)\n")
    with pytest.raises(tad.UnsupportedSyntaxError, match="reads the global 'scale'"):
        tad.grad(nb["outer"])


def test_second_derivatives_read_globals_live(nb):
    nb.run("def cubic(x):\n    return scale * x ** 3\n")
    dd = tad.grad(tad.grad(nb["cubic"]))
    for scale in (2.0, -1.0):
        nb["scale"] = scale
        for _ in range(CALLS):
            assert dd(1.5) == pytest.approx(6 * scale * 1.5)


def test_the_generated_code_does_not_copy_the_global(nb):
    g = tad.grad(nb["loss"])
    namespace = g.__tangent_ad__.namespace
    assert "X" not in namespace and "scale" not in namespace  # no old batch kept alive
    assert "X @ w" in tad.show_source(g)


def test_numpy_inside_the_derivative_can_import_lazily(nb):
    # the generated frame's builtins are Python's (NumPy's C code imports
    # through them, e.g. for ndarray.sum)
    nb.run("def colsum(W):\n    return np.sum(np.tanh(W).sum(axis=0) * scale)\n")
    W = np.ones((3, 2))
    for _ in range(CALLS):
        np.testing.assert_allclose(tad.grad(nb["colsum"])(W), fd(nb, "colsum", W), rtol=1e-6)



def test_code_reading_globals_live_is_compiled_without_parsing_its_text(nb, monkeypatch):
    """The reads are rewritten on the trees the text was printed from: the
    loader and the stager never parse generated code (its adjoints name
    ``bresult``), and tracebacks still name the text's lines."""
    import ast
    parsed, parse = [], ast.parse

    def recording_parse(source, *args, **kwargs):
        parsed.append(source)
        return parse(source, *args, **kwargs)
    monkeypatch.setattr(ast, "parse", recording_parse)
    nb.run("at = 1\n"
           "def pick(w):\n"
           "    # the row a global names\n"
           "    y = np.tanh(X @ w)\n"
           "    return scale * y[at] ** 2\n")
    g = tad.grad(nb["pick"])
    w = np.array([0.3, -0.2])
    for _ in range(CALLS):
        np.testing.assert_allclose(g(w), fd(nb, "pick", w), rtol=1e-6)
    assert variants(g)  # the staged copy, behind its guard, ran too
    nb["at"] = 7  # same kind (the guard passes), out of range inside the copy
    with pytest.raises(IndexError) as raised:
        g(w)
    frame = raised.traceback[-1]
    assert frame.path.startswith("<tangent_ad ") and "guarded" in frame.path
    assert "y[at]" in linecache.getline(frame.path, frame.lineno + 1)  # the failing read
    assert not any("bresult" in text for text in parsed if isinstance(text, str))


# ---- what shaped the code: helpers, rules, closures ----

def test_a_redefined_helper_is_differentiated_anew_on_the_next_call(nb):
    nb.run("def helper(v):\n    return np.sin(v)\n"
           "def model(v):\n    return np.sum(helper(v) * 2.0)\n")
    v = np.array([0.3, -0.4])
    g, f = tad.grad(nb["model"]), tad.jvp(nb["model"])
    h, gu = tad.hvp(nb["model"]), tad.grad(nb["model"], optimized=False)
    t = np.array([1.0, 2.0])
    for _ in range(CALLS):
        np.testing.assert_allclose(g(v), 2 * np.cos(v), rtol=1e-12)
    nb.run("def helper(v):\n    return v ** 3\n")  # the cell run again
    for _ in range(CALLS):
        np.testing.assert_allclose(g(v), 6 * v ** 2, rtol=1e-12)
        np.testing.assert_allclose(gu(v), 6 * v ** 2, rtol=1e-12)
        np.testing.assert_allclose(f(v, t)[1], 6 * v ** 2 @ t, rtol=1e-12)
        np.testing.assert_allclose(h(v, t), 12 * v * t, rtol=1e-12)
    source = tad.show_source(g)  # shows the pullback of the helper as it is now
    assert "v ** 3" in source and "np.sin" not in source
    np.testing.assert_allclose(tad.grad(nb["model"])(v), 6 * v ** 2, rtol=1e-12)


def test_a_rule_registered_after_the_first_gradient_takes_effect(nb):
    nb.run("def cube(x):\n    return x * x * x\n"
           "def uses_cube(x):\n    return cube(x) + 1.0\n")
    g = tad.grad(nb["uses_cube"])
    for _ in range(CALLS):
        assert g(2.0) == pytest.approx(12.0)
    with tad.registry.REGISTRY.scoped():
        nb.run("@tad.adjoint(cube)\ndef _(result, x):\n    d[x] = d[result] * 100.0\n")
        for _ in range(CALLS):  # the user's (deliberately odd) rule is what runs
            assert g(2.0) == pytest.approx(100.0)
    for _ in range(CALLS):  # and once it is gone, the source again
        assert g(2.0) == pytest.approx(12.0)


def test_the_cache_returns_the_same_derivative_while_nothing_changed(nb):
    g = tad.grad(nb["loss"])
    assert tad.grad(nb["loss"]) is g
    nb["X"] = np.zeros((3, 2))  # data: no new derivative needed
    assert tad.grad(nb["loss"]) is g


def test_a_changed_closure_cell_is_seen(tmp_path):
    nb = Notebook()
    nb.run("def make():\n"
           "    k = 2.0\n"
           "    def f(x):\n"
           "        return k * x * x\n"
           "    def set_k(value):\n"
           "        nonlocal k\n"
           "        k = value\n"
           "    return f, set_k\n"
           "f, set_k = make()\n")
    g = tad.grad(nb["f"])
    for _ in range(CALLS):
        assert g(3.0) == pytest.approx(12.0)
    nb["set_k"](5.0)
    for _ in range(CALLS):
        assert g(3.0) == pytest.approx(30.0)


# ---- names: one generated unit, many functions, every kind of name shared ----

def test_free_names_follow_python_scopes():
    import ast
    from tangent_ad.scopes import free_names as _free_names
    tree = ast.parse(
        "def a(W, k):\n    return W * k + np.sum(W)\n"
        "def b(x):\n    t = W @ x\n    return t * k, [k for k in x], lambda W: W + c\n"
        "def c2(x):\n    def back(by):\n        return by * x * n\n    n = 2\n    return back\n")
    assert _free_names(tree) == ["W", "c", "k", "np"]


@pytest.mark.parametrize("shared", ["W", "k", "np_sum", "scale"])
def test_a_helper_local_named_like_a_closure_variable_of_its_caller(shared):
    nb = Notebook()
    nb.run(
        "np_sum = np.sum\n"
        "def make(W, k, scale):\n"
        f"    def helper({shared}):\n"
        f"        {shared}2 = {shared} * 2.0\n"
        f"        return {shared}2 * 1.5\n"
        "    def model(x):\n"
        "        return np_sum(helper(x) * W @ x) * k * scale\n"
        "    return model\n"
        "model = make(np.array([[1.0, 2.0], [0.5, -1.0]]), 3.0, 0.5)\n")
    x = np.array([0.2, -0.3])
    for _ in range(CALLS):
        np.testing.assert_allclose(tad.grad(nb["model"])(x), fd(nb, "model", x), rtol=1e-6)


def test_a_helper_from_another_module_reads_that_modules_globals():
    lib, nb = Notebook(), Notebook()
    lib.run("OFF = 1.0\nscale = 100.0\ndef shifted(v):\n    return np.sin(v * scale + OFF)\n")
    nb["shifted"] = lib["shifted"]
    nb.run("scale = 0.5\ndef model(v):\n    return np.sum(shifted(v)) * scale\n")
    v = np.array([0.01, -0.02])
    g, h = tad.grad(nb["model"]), tad.jvp(nb["model"])
    for off in (1.0, -2.0):
        lib["OFF"] = off
        for _ in range(CALLS):
            np.testing.assert_allclose(g(v), fd(nb, "model", v), rtol=1e-6)
            np.testing.assert_allclose(h(v, v)[1], fd(nb, "model", v) @ v, rtol=1e-6)
    try:  # a second derivative: right, or refused; never read from the wrong module
        got = tad.hvp(nb["model"])(v, v)
    except tad.TangentADError as exc:
        assert "several modules" in str(exc)
    else:
        np.testing.assert_allclose(got, numerical_grad(lambda u: g(u) @ v, (v,), 0), rtol=1e-5)


def test_a_source_file_edited_after_import_is_refused_not_misread(tmp_path, monkeypatch):
    import importlib
    import sys
    (tmp_path / "edited_model.py").write_text(
        "import numpy as np\n\ndef energy(x):\n    return np.sum(x ** 2)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("edited_model")
    try:
        (tmp_path / "edited_model.py").write_text(  # another function now sits there
            "import numpy as np\n\ndef other(x, y):\n    return np.sum(x * y)\n")
        linecache.checkcache()
        with pytest.raises(tad.SourceUnavailableError, match="not the code that runs"):
            tad.grad(module.energy)
    finally:
        sys.modules.pop("edited_model", None)
