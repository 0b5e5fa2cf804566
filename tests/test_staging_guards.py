"""The guards of staged copies are trees (staging/guards.py): the text
tracebacks show must say what the compiled tree does, and each of their
checks must send a call that breaks it back to the stager."""
import ast
import linecache
import types

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.live import Dependencies, LIVE_KEY
from tangent_ad.staging import guards
from tangent_ad.staging.kinds import kind_of
from tangent_ad.testing import numerical_grad


def _checked(checks, params):
    node, lines = guards.statement(checks, params)
    text = f"def f({', '.join(params)}):\n" + "\n".join(lines) + "\n    return 0\n"
    return node, text


def test_the_text_of_a_guard_is_its_tree():
    ns = {}
    writer = guards.Guards(ns)
    key = (kind_of(np.ones((2, 3))), kind_of(1.5), ("DT", kind_of(np.float32(0.5))),
           ("W", kind_of(np.ones(4, dtype=np.float32))))
    helper = types.FunctionType((lambda: 0).__code__, {})
    deps = Dependencies(names=[({"h": helper}, "h", helper)], codes=[(helper, helper.__code__)])
    checks = writer.kind_checks(["x", "s"], key) + writer.dependency_checks(deps)
    node, text = _checked(checks, ["x", "s"])
    parsed = ast.parse(text).body[0].body[0]  # (a test may parse: the module does not)
    assert ast.dump(parsed) == ast.dump(node)
    assert f"type({LIVE_KEY}['DT']) is " in text  # a global is read from the module's dict
    assert text.count("\n            and ") == len(checks) - 1  # one check per line
    # the text runs as the tree says: true for the kinds it was written for
    ns.update(_tad_ndarray=np.ndarray, _tad_stage=lambda *a: "staged")
    ns[LIVE_KEY] = {"DT": np.float32(0.25), "W": np.zeros(4, dtype=np.float32)}
    exec(compile(text, "<guard>", "exec"), ns)
    assert ns["f"](np.zeros((2, 3)), 2.5) == 0
    assert ns["f"](np.zeros((2, 3), dtype=np.float32), 2.5) == "staged"
    assert ns["f"](np.zeros((3, 2)), 2.5) == "staged"
    assert ns["f"](np.zeros((2, 3)), 2) == "staged"
    ns[LIVE_KEY]["DT"] = 0.25
    assert ns["f"](np.zeros((2, 3)), 2.5) == "staged"


def test_no_checks_is_a_guard_that_passes():
    node, text = _checked([ast.Constant(value=True)], ["x"])
    assert "if not (True):" in text and ast.dump(ast.parse(text).body[0].body[0]) == ast.dump(node)


@pytest.mark.parametrize("change", ["shape", "dtype", "python type", "global kind"])
def test_a_call_that_breaks_a_check_gets_its_own_gradient(change):
    namespace = {"np": np, "scale": 2.0}
    source = "def f(x, s):\n    return scale * s * np.sum(np.sin(x) ** 2)\n"
    filename = f"<guards test {change}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    g = tad.grad(namespace["f"])
    x = np.linspace(0.1, 0.9, 6)
    for _ in range(3):
        g(x, 1.5)
    s = 1.5
    if change == "shape":
        x = x.reshape(2, 3)
    elif change == "dtype":
        x = x.astype(np.float32)
    elif change == "python type":
        s = np.float64(1.5)
    else:
        namespace["scale"] = np.float32(2.0)
    for _ in range(3):  # (the new kinds get their own copy at the second call)
        np.testing.assert_allclose(g(x, s), numerical_grad(namespace["f"], (x, s), 0),
                                   rtol=1e-4 if x.dtype == np.float32 else 1e-6)
        assert g(x, s).dtype == x.dtype
