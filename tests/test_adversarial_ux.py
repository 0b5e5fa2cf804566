"""An adversarial batch on the user's experience when things go wrong.

Functions a user might plausibly write, some unsupported: each must either
be differentiated correctly by grad, jvp and hvp (checked against central
finite differences) or refused with a TangentADError that has a hint and
points at this file. Also forward mode on unusual control flow and
containers, and the CLI's refusals (exit code, no traceback).
"""
import dataclasses
import functools
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.errors import InternalError, SourceUnavailableError, TangentADError

X3 = np.array([0.3, -0.8, 1.1])
V3 = np.array([0.5, 0.2, -0.7])
G = 2.0


# ---- functions tangent_ad should refuse, at a line of this file ----------------

def uses_try(x):
    try:
        y = x * 2.0
    except ValueError:
        y = x
    return y * x


def uses_global(x):
    global G
    G = x
    return x * G


def uses_genexp(x):
    return sum(x * i for i in range(3))


def uses_yield(x):
    yield x * x


def uses_setcomp(x):
    s = {i for i in range(3)}
    return x * len(s)


def uses_kwargs(x, **kw):
    return x * x


def uses_fft(x):
    return np.sum(np.fft.hfft(x) ** 2)  # hfft has no rule


def uses_polyfit(x):
    return np.sum(np.polyfit(np.arange(3.0), x, 1))  # polyfit has no rule (lstsq has one now)


def uses_ufunc_reduce(x):
    return np.add.reduce(x * x)


def uses_fstring(x):
    label = f"{x:.3f}"
    return x * x


def uses_walrus(x):
    if (y := x * x) > 0:
        return y
    return x


OPS = {"sq": lambda t: t * t}


def uses_lambda_in_dict(x):
    return OPS["sq"](x)


def uses_del(x):
    y = x * 2.0
    del y
    return x * x


def uses_star_unpack(x):
    a, *rest = (x, x * 2.0, x * 3.0)
    return a * rest[1]


def uses_nonlocal(x):
    acc = 0.0

    def add(t):
        nonlocal acc
        acc = acc + t
    add(x * x)
    return acc


def uses_vectorize(x):
    return np.sum(np.vectorize(np.sin)(x))


def uses_getattr_call(x):
    return getattr(np, "sin")(x)


REFUSED = [
    (uses_try, 0.7), (uses_global, 0.7), (uses_yield, 0.7),
    (uses_kwargs, 0.7), (uses_fft, X3),
    (uses_polyfit, X3), (uses_ufunc_reduce, X3),
    (uses_nonlocal, 0.7),
    (uses_vectorize, X3),
]
# once refused, now rewritten before validation (frontend/statements.py,
# frontend/comprehensions.py): differentiated in every mode instead
NOW_SUPPORTED = [uses_genexp, uses_walrus, uses_del, uses_star_unpack,
                 uses_lambda_in_dict, uses_getattr_call,  # function values: runtime/function_values.py
                 uses_setcomp, uses_fstring]  # a set of indices, a string: no derivative


def _transform(kind, f):
    return {"grad": tad.grad, "jvp": tad.jvp, "hvp": tad.hvp}[kind](f)


@pytest.mark.parametrize("kind", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("func,x", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_refused_with_location_and_hint(func, x, kind):
    with pytest.raises(TangentADError) as info:
        _transform(kind, func)(x, x) if kind != "grad" else _transform(kind, func)(x)
    err = info.value
    assert not isinstance(err, InternalError), str(err)
    assert err.hint
    assert err.filename == __file__
    first = func.__code__.co_firstlineno
    assert first <= err.lineno <= first + 10
    assert f"{__file__}:{err.lineno}" in str(err)


@pytest.mark.parametrize("func", NOW_SUPPORTED, ids=lambda f: f.__name__)
def test_once_refused_forms_are_differentiated(func):
    from corpus import check_all_modes
    check_all_modes(func, (0.7,))


# ---- callables that are not plain functions -----------------------------------

class Model:
    def __init__(self):
        self.w = 3.0

    def loss(self, x):
        return self.w * x * x


def _two(x, y):
    return x * y * y


ns = {}
exec("def from_exec(x):\n    return x * x\n", ns)

NOT_FUNCTIONS = [
    ("exec", ns["from_exec"]), ("builtin", abs), ("ufunc", np.sin),
]


@pytest.mark.parametrize("kind", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("label,func", NOT_FUNCTIONS, ids=[n for n, _ in NOT_FUNCTIONS])
def test_not_a_function_is_refused_with_hint(label, func, kind):
    # jvp of a functools.partial used to be an InternalError (AttributeError
    # on __name__ while naming the forward function)
    with pytest.raises(SourceUnavailableError) as info:
        _transform(kind, func)
    assert info.value.hint


# a bound method and a functools.partial were refused here; they are
# differentiated now (tests/test_callables.py has the full checks)
@pytest.mark.parametrize("kind", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("func, expected", [
    (Model().loss, lambda x: 6.0 * x), (functools.partial(_two, y=2.0), lambda x: 4.0)],
    ids=["bound_method", "partial"])
def test_bound_method_and_partial_are_differentiated(func, expected, kind):
    x, v = 1.5, 0.5
    if kind == "grad":
        assert tad.grad(func)(x) == pytest.approx(expected(x))
    elif kind == "jvp":
        assert tad.jvp(func)(x, v)[1] == pytest.approx(expected(x) * v)
    else:
        second = (expected(x + 1e-6) - expected(x - 1e-6)) / 2e-6
        assert tad.hvp(func)(x, v) == pytest.approx(second * v, rel=1e-6)


# ---- unusual code that is supported: grad, jvp, hvp against differences --------

@dataclasses.dataclass
class Params:
    w: float = 3.0


PARAMS = Params()


def dataclass_attr(x):
    return PARAMS.w * x * x


def astype_int(x):
    return np.sum(x.astype(int) * x * x)


def bool_mask(x):
    return np.sum(x[x > 0] ** 2 * x[x > 0])


def factorial_const(x):
    return x * x * math.factorial(3)


def _cube(t):
    return t * t * t


def _decorate(fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        return fn(*a, **k)
    return wrapper


@_decorate
def decorated(x):
    return x * x * x


def assert_inside(x):
    assert x > -100, "bad"
    return np.sin(x) * x


def chained_compare(x):
    return x * x * x if 0 < x < 10 else x


def dictcomp(x):
    d = {k: x * k for k in range(3)}
    return d[2] * x


def isinstance_branch(x):
    if isinstance(x, float):
        return np.cos(x) * x
    return x


def min_builtin(x):
    return min(x, 2.0) * x * x


def sorted_weights(x):
    return np.sum(np.sort(x) ** 2 * np.arange(3.0))


SUPPORTED = [
    (dataclass_attr, 0.7, 0.5), (astype_int, X3 * 2, V3), (bool_mask, X3, V3),
    (factorial_const, 0.7, 0.5), (decorated, 0.7, 0.5), (assert_inside, 0.7, 0.5),
    (chained_compare, 0.7, 0.5), (dictcomp, 0.7, 0.5), (isinstance_branch, 0.7, 0.5),
    (min_builtin, 0.7, 0.5), (sorted_weights, X3, V3),
]


def directional(f, x, v, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    up, down = x + eps * v, x - eps * v
    if x.ndim == 0:
        up, down = float(up), float(down)
    return (np.asarray(f(up), dtype=np.float64) - np.asarray(f(down), dtype=np.float64)) / (2 * eps)


@pytest.mark.parametrize("func,x,v", SUPPORTED, ids=[f.__name__ for f, _, _ in SUPPORTED])
def test_supported_grad_jvp_hvp(func, x, v):
    df = tad.grad(func)
    np.testing.assert_allclose(np.sum(np.asarray(df(x)) * v), directional(func, x, v),
                               rtol=1e-5, atol=1e-6)
    value, tangent = tad.jvp(func)(x, v)
    np.testing.assert_allclose(value, func(x))
    np.testing.assert_allclose(tangent, directional(func, x, v), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tad.hvp(func)(x, v), directional(df, x, v, eps=1e-5),
                               rtol=1e-4, atol=1e-6)


# ---- forward mode on unusual control flow and containers ------------------------

def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def value_dependent_while(x):
    y = x
    while y < 10.0:
        y = y * 1.5 + x
    return y


def early_return_in_loop(x):
    for i in range(5):
        x = x * 1.1 + np.sin(x)
        if x > 3.0:
            return x * x
    return x


def early_return_array(x):
    acc = 0.0
    for i in range(4):
        acc = acc + np.sum(x ** (i + 1))
        if acc > 2.0:
            return acc * x
    return acc + x


def list_output(x):
    return [x * 2.0, np.sin(x)]


def dict_output(x):
    return {"a": x * x, "b": np.exp(x)}


def where_output(x):
    return np.where(x > 0, x ** 2, np.sin(x))


def item_writes(x):
    y = np.zeros(3)
    y[0] = x[1] * x[2]
    y[2] = np.sin(x[0])
    y[1] = y[0] * x[0]
    return y


def item_writes_in_loop(x):
    y = np.copy(x)
    for i in range(1, 3):
        y[i] = y[i - 1] * x[i]
    return y


def local_closure(x):
    s = 2.0

    def inner(t):
        return t * s * x
    return inner(x) + inner(x * x)


def _make_closure(c):
    def g(x):
        return c * x * x
    return g


closure_from_factory = _make_closure(3.0)


def break_out(x):
    y = x
    for i in range(10):
        y = y * x
        if y > 5.0:
            break
    return y


def int_of_value_loop(x):
    n = int(x * 3)
    y = x
    for i in range(n):
        y = y * x
    return y


def _flat(o):
    if isinstance(o, dict):
        return np.concatenate([np.ravel(o[k]) for k in sorted(o)])
    if isinstance(o, (list, tuple)):
        return np.concatenate([np.ravel(t) for t in o])
    return np.ravel(o)


FORWARD = [
    (newton_sqrt, 2.0, 0.7), (value_dependent_while, 1.3, 0.5),
    (early_return_in_loop, 0.6, 1.0), (early_return_array, X3, V3),
    (list_output, 0.4, 1.0), (dict_output, 0.4, 1.0), (where_output, X3, V3),
    (item_writes, X3, V3), (item_writes_in_loop, X3, V3), (local_closure, 0.7, 0.3),
    (closure_from_factory, 0.7, 0.3), (break_out, 1.3, 1.0), (int_of_value_loop, 1.4, 1.0),
]


@pytest.mark.parametrize("func,x,v", FORWARD, ids=[f.__name__ + str(i) for i, (f, _, _) in enumerate(FORWARD)])
def test_forward_unusual(func, x, v):
    eps = 1e-6
    want = (_flat(func(x + eps * v)) - _flat(func(x - eps * v))) / (2 * eps)
    value, tangent = tad.jvp(func)(x, v)
    assert type(value) is type(func(x)) or np.ndim(value) == np.ndim(func(x))
    np.testing.assert_allclose(_flat(value), _flat(func(x)))
    np.testing.assert_allclose(_flat(tangent), want, rtol=1e-5, atol=1e-6)


# ---- the CLI's refusals -----------------------------------------------------------

def run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "tangent_ad", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "syn.py").write_text("def f(x:\n    return x\n")
    (tmp_path / "boom.py").write_text("raise RuntimeError('boom')\ndef f(x):\n    return x\n")
    (tmp_path / "ok.py").write_text(textwrap.dedent("""\
        def f(x, *, s=2.0):
            return x * s
        def g(x):
            return x * x
    """))
    (tmp_path / "adir").mkdir()
    return tmp_path


@pytest.mark.parametrize("args,code,text", [
    (("missing.py:f",), 1, "no such file"),
    (("adir:f",), 1, "is a directory"),
    (("syn.py:f",), 1, "syn.py:1"),
    (("boom.py:f",), 1, "RuntimeError: boom"),
    (("ok.py:f",), 1, "not supported in a derivative written for every call"),
    (("ok.py:f", "--wrt", "s"), 2, "'s' is a keyword-only parameter of f"),
    (("ok.py:g", "--order", "0"), 2, "--order"),
    (("ok.py:g", "--order", "3", "--mode", "forward"), 2, "--order"),
    (("ok.py:g", "-o", "adir"), 1, "is a directory"),
    (("ok.py:g", "-o", "nodir/out.py"), 1, "cannot write"),
    (("ok.py:nope",), 1, "no function 'nope'"),
])
def test_cli_refusals(files, args, code, text):
    result = run_cli(*args, cwd=files)
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    assert "tangent-ad: error:" in result.stderr
    assert text in result.stderr
    assert result.stdout == ""
    assert sorted(p.name for p in files.iterdir()) == ["adir", "boom.py", "ok.py", "syn.py"]
