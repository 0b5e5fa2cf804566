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
    assert "X" not in namespace and "scale" not in namespace
    assert "X @ w" in tad.show_source(g)
