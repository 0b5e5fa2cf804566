"""The optimizer and the runtime fast paths it relies on.

* the runtime helpers' fast paths give what their general paths give;
* each rewrite of ``staging/specialize.py``: a small function in, the
  expected source out, and both run on arguments of the kinds it was
  specialized for, giving the same values, types, shapes and dtypes;
* the kinds inference (``staging/kinds.py``);
* staging end to end (``staging/dispatch.py``): the dispatcher, its guard,
  other kinds, pullbacks, and gradients against finite differences.
"""
import doctest
import inspect
import textwrap

import gast
import numpy as np
import pytest

import tangent_ad as tad
from corpus import check_all_modes
from tangent_ad import emit, runtime, saves
from tangent_ad.nodes import is_pop, is_push
from tangent_ad.optimize import dce, fixed_point, propagate, simplify
from tangent_ad.staging import dispatch as staging
from tangent_ad.staging import passes as staging_passes
from tangent_ad.staging import array_rules, kind_values, specialize
from tangent_ad.staging.kinds import Kind, Kinds, kind_of
from tangent_ad.testing import check_grads


class Sub(np.ndarray):
    """An ndarray subclass: the runtime helpers take their general path."""


def general(x):
    return x.view(Sub) if isinstance(x, np.ndarray) else x


def assert_same(got, want):
    """Same structure, types, shapes and dtypes; values equal to rounding."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    assert type(got) is type(want), (type(got), type(want))
    assert np.shape(got) == np.shape(want)
    assert getattr(got, "dtype", None) == getattr(want, "dtype", None)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


# ---- runtime fast paths -------------------------------------------------------

RNG = np.random.default_rng(0)
UNBROADCAST = [
    (1.5, 2.5),
    (np.float64(1.5), 2.5),
    (1.5, np.float64(2.5)),
    (RNG.normal(size=(3, 2)), RNG.normal(size=(3, 2))),
    (RNG.normal(size=(3, 2)), RNG.normal(size=2)),
    (RNG.normal(size=(4, 3, 2)), RNG.normal(size=2)),
    (RNG.normal(size=(3, 2)), RNG.normal(size=(1, 2))),
    (RNG.normal(size=(3, 2)), 2.5),
    (RNG.normal(size=(3, 2)).astype(np.float32), RNG.normal(size=2)),
    (RNG.normal(size=(3, 2)), RNG.normal(size=2).astype(np.float32)),
]


@pytest.mark.parametrize("g,x", UNBROADCAST, ids=range(len(UNBROADCAST)))
def test_unbroadcast_fast_path_gives_the_general_result(g, x):
    got = runtime.unbroadcast(g, x)
    want = runtime.unbroadcast(general(g), general(x))
    want = np.asarray(want) if isinstance(want, Sub) else want
    assert_same(got, want)


MATMULS = [((3, 4), (4, 2)), ((3, 4), (4,)), ((4,), (4, 2)), ((4,), (4,)),
           ((2, 3, 4), (4, 2))]


@pytest.mark.parametrize("dtypes", [(np.float64,) * 3, (np.float32,) * 3,
                                    (np.float32, np.float64, np.float64)])
@pytest.mark.parametrize("shapes", MATMULS, ids=str)
def test_matmul_adjoint_fast_paths_give_the_general_results(shapes, dtypes):
    a = RNG.normal(size=shapes[0]).astype(dtypes[0])
    b = RNG.normal(size=shapes[1]).astype(dtypes[1])
    g = RNG.normal(size=np.shape(a @ b)).astype(dtypes[2])
    g = g if g.shape else g[()]
    for helper in (runtime.grad_matmul_lhs, runtime.grad_matmul_rhs):
        got = helper(g, a, b)
        want = np.asarray(helper(general(g), general(a), general(b)))
        assert_same(got, want)


def test_ensure_scalar_fast_path_accepts_numbers_only():
    for value in (1.0, 2, np.float32(1.0), np.ones(1)):
        runtime.ensure_scalar(value)
    with pytest.raises(tad.NonScalarOutputError):
        runtime.ensure_scalar(np.ones(2))


# ---- the general passes ---------------------------------------------------------

def functions(source):
    """The FunctionDefs of `source`, written as a derivative would be: its
    ``stack.append(v)`` and ``v = stack.pop()`` declared as saves of v,
    its ``stack.append(True)`` and ``if stack.pop():`` as one branch site
    (the reverse pass declares a site per push; one per variable is
    enough for these small functions)."""
    tree = gast.parse(source)
    sites = {}
    for node in gast.walk(tree):
        if is_push(node):
            value = node.value.args[0]
            key = value.id if isinstance(value, gast.Name) else "branch"
        elif isinstance(node, gast.Assign) and is_pop(node.value):
            key = node.targets[0].id
        elif isinstance(node, gast.If) and is_pop(node.test):
            key = "branch"
        else:
            continue
        site = saves.branch_site() if key == "branch" else saves.value_site(key)
        saves.declare(node, sites.setdefault(key, site))
    return [f for f in tree.body if isinstance(f, gast.FunctionDef)]


def test_reductions_read_their_shape_from_the_earliest_name_in_one_round():
    tree = functions(textwrap.dedent("""
        def f(x, bresult):
            t = np.tanh(x)
            t2 = t * 2.0
            bt2 = unreduce_mean(bresult, t2, None, False)
            return bt2
        """))[0]
    before = fixed_point.fingerprint(tree)
    once = fixed_point.fingerprint(simplify.run(tree, None))
    twice = fixed_point.fingerprint(simplify.run(tree, None))
    assert before != once == twice
    assert "np.full_like(x, bresult / size_of(x))" in emit.run(tree)


def test_dead_code_goes_as_a_whole_chain_in_one_run():
    source = textwrap.dedent("""
        def f(x, bresult):
            t = x * 2.0
            u = np.tanh(t)
            loss = u + 1.0
            bx = bresult * 2.0
            return bx
        """)
    tree = dce.run(functions(source)[0], None)
    assert emit.run(tree) == "def f(x, bresult):\n    bx = bresult * 2.0\n    return bx\n"
    assert run(emit.run(tree), [1.5, 2.0]) == run(source, [1.5, 2.0])


def test_a_name_bound_once_to_a_number_is_a_scalar_for_shapes():
    # ``total = 0.0`` then ``total2 = total + t``: total2 has t's shape. The
    # unbroadcast went only a round later, once copy propagation had put
    # 0.0 in total's place (one more round of the fixed point)
    source = textwrap.dedent("""
        def f(x, bresult):
            total = 0.0
            t = np.sin(x)
            total2 = total + t
            g = unbroadcast(total2 * 2.0, t)
            return g
        """)
    tree = simplify.run(functions(source)[0], None)
    assert "g = total2 * 2.0" in emit.run(tree)
    rebound = source.replace("    t = np.sin(x)\n", "    t = np.sin(x)\n    total = x\n")
    tree = simplify.run(functions(rebound)[0], None)  # bound twice: no scalar
    assert "unbroadcast(total2 * 2.0, t)" in emit.run(tree)


def _accumulates_from_zero(x, s):
    total = 0.0
    for i in range(2):
        total = total + np.sin(x) * s
    h = 0.5 * x + total
    return np.sum(h * h) + total[0]


def test_accumulation_from_a_python_zero_keeps_its_gradients():
    check_all_modes(_accumulates_from_zero, (np.array([0.3, -1.2, 0.8]), 1.7))


@pytest.mark.parametrize("constant, expected", [("1.0", "u = bresult"), ("1", "u = x"),
                                                ("0.5 + 0.5", "u = bresult")])
def test_propagated_constants_are_simplified_in_the_same_run(constant, expected):
    # ``t = 1.0`` then ``u = bresult * t`` became ``bresult * 1.0``, which
    # only simplification's next run reduced, a round of the fixed point later
    name = "bresult" if "." in constant else "x"
    tree = functions(textwrap.dedent(f"""
        def f(x, bresult):
            t = {constant}
            u = {name} * t
            return u
        """))[0]
    tally = fixed_point.Tally()
    assert expected in emit.run(propagate.run(tree, tally)) and tally.rewrites >= 2


def test_the_fixed_point_of_a_long_function_settles_in_two_rounds(monkeypatch):
    # round one changes, round two confirms (simplify and propagate; dead
    # code is idempotent): five runs on the first block of the 199-line
    # function of benchmarks/long_function.py, which took eight
    import long_function
    runs = []
    for module in fixed_point.PASSES:
        monkeypatch.setattr(module, "run", lambda t, c, _run=module.run, _m=module:
                            runs.append((t.name, _m)) or _run(t, c))
    f = long_function.with_blocks(1)
    name = tad.grad(f, wrt=(0, 1, 2, 3, 4)).__name__
    assert [m.__name__.rsplit(".", 1)[-1] for n, m in runs if n == name] == \
        ["simplify", "propagate", "dce", "simplify", "propagate"]


# ---- specialize: source in, source out, same results ---------------------------

def run(source, args):
    namespace = {"np": np, **{h: getattr(runtime, h) for h in runtime.__all__}}
    exec(source, namespace)
    return namespace["f"](*args)


def specialized(source, args):
    """`source` specialized for the kinds of `args`, checked against it."""
    source = textwrap.dedent(source)
    tree = functions(source)[0]
    params = dict(zip([a.id for a in tree.args.args], map(kind_of, args)))
    out = emit.run(staging_passes.optimize(tree, params))
    assert_same(run(out, args), run(source, args))
    return out


def arrays(*shapes, dtype=np.float64):
    return [RNG.normal(size=s).astype(dtype) for s in shapes]


CASES = {
    "unbroadcast of equal kinds, and a fill times an array": ("""
        def f(x, y, bresult):
            t = x * y
            bt = np.full_like(t, bresult)
            bx = unbroadcast(bt * y, x)
            return bx
        """, [*arrays((3, 2), (3, 2)), 1.5], """
        def f(x, y, bresult):
            bx = bresult * y
            return bx
        """),
    "unbroadcast of Python floats": ("""
        def f(a, x, bresult):
            t = a * x
            ba = unbroadcast(bresult * x, a)
            bx = unbroadcast(bresult * a, x)
            return ba, bx
        """, [0.5, 1.5, 1.0], """
        def f(a, x, bresult):
            ba = bresult * x
            bx = bresult * a
            return ba, bx
        """),
    "unbroadcast of a bias, matrix products": ("""
        def f(W, b, x, bresult):
            t = x @ W
            t2 = t + b
            bt = unbroadcast(bresult, t)
            bb = unbroadcast(bresult, b)
            bW = grad_matmul_rhs(bt, x, W)
            bx = grad_matmul_lhs(bt, x, W)
            return bW, bb, bx
        """, arrays((3, 2), (2,), (4, 3), (4, 2)), """
        def f(W, b, x, bresult):
            bb = bresult.sum(axis=0)
            bW = x.T @ bresult
            bx = bresult @ W.T
            return bW, bb, bx
        """),
    "matrix times vector": ("""
        def f(X, w, bresult):
            z = X @ w
            bw = grad_matmul_rhs(bresult, X, w)
            bX = grad_matmul_lhs(bresult, X, w)
            return bw, bX
        """, arrays((4, 3), (3,), (4,)), """
        def f(X, w, bresult):
            bw = bresult @ X
            bX = bresult[:, None] * w
            return bw, bX
        """),
    "vector times matrix": ("""
        def f(v, W, bresult):
            z = v @ W
            bv = grad_matmul_lhs(bresult, v, W)
            bW = grad_matmul_rhs(bresult, v, W)
            return bv, bW
        """, arrays((3,), (3, 2), (2,)), """
        def f(v, W, bresult):
            bv = W @ bresult
            bW = v[:, None] * bresult
            return bv, bW
        """),
    "np.size, ensure_scalar, a fill scaled by a power of two in float32": ("""
        def f(x, bresult):
            t = x * x
            r = np.mean(t)
            ensure_scalar(r)
            bt = np.full_like(t, bresult / np.size(t))
            bx = bt * 2 * x
            return bx
        """, [*arrays((5,), dtype=np.float32), 0.7], """
        def f(x, bresult):
            bx = bresult / 5 * 2 * x
            return bx
        """),
    "a fill scaled by 3 in float32 stays (rounding)": ("""
        def f(x, bresult):
            t = x * x
            bt = np.full_like(t, bresult)
            bx = bt * 3 * x
            return bx
        """, [*arrays((5,), dtype=np.float32), 0.7], """
        def f(x, bresult):
            t = x * x
            bx = np.full_like(t, bresult) * 3 * x
            return bx
        """),
    "a negated fill, a fill divided": ("""
        def f(x, y, bresult):
            t = x - y
            bt = np.full_like(t, bresult / np.size(t))
            by = -bt * y
            bx = bt / (1.0 + x)
            return bx, by
        """, [*arrays((4,), (4,)), 2.0], """
        def f(x, y, bresult):
            by = -(bresult / 4) * y
            bx = bresult / 4 / (1.0 + x)
            return bx, by
        """),
    "no fill whose number changes in a loop (read a round later)": ("""
        def f(x, n, bresult):
            bx = x
            for i in range(n):
                if i > 0:
                    bx = bt * x
                s = bresult * i
                bt = np.full_like(x, s)
            return bx
        """, [*arrays((3,)), 3, 1.5], """
        def f(x, n, bresult):
            bx = x
            for i in range(n):
                if i > 0:
                    bx = bt * x
                s = bresult * i
                bt = np.full_like(x, s)
            return bx
        """),
    "restores read only for a shape go, with their pushes, and then the values": ("""
        def f(x, n, bresult):
            stack = []
            t = None
            for i in range(n):
                stack.append(t)
                t = x * 2.0
                stack.append(x)
                x = t + 1.0
            bx = bresult
            for i in reversed(range(n)):
                x = stack.pop()
                bt = unbroadcast(bx, t)
                bx = unbroadcast(bt * 2.0, x)
                t = stack.pop()
            return bx
        """, [0.5, 3, 1.0], """
        def f(x, n, bresult):
            for i in range(n):
                pass
            bx = bresult
            for i in reversed(range(n)):
                bx = bx * 2.0
            return bx
        """),
    "zeros: a Python float, an array; a placeholder's stays": ("""
        def f(a, W, n, bresult):
            stack = []
            t = None
            for i in range(n):
                stack.append(t)
                t = a * W
            ba = zeros_like(a)
            bW = zeros_like(W)
            bt = zeros_like(t)
            return ba, bW, bt
        """, [0.5, *arrays((2, 3)), 0, 1.0], """
        def f(a, W, n, bresult):
            stack = []
            t = None
            for i in range(n):
                stack.append(t)
                t = a * W
            bW = np.zeros((2, 3))
            bt = zeros_like(t)
            return 0.0, bW, bt
        """),
    "accumulation in place into a fresh array": ("""
        def f(W, xs, bresult):
            bW = zeros_like(W)
            for i in range(len(xs)):
                x = xs[i]
                bW = bW + grad_matmul_rhs(bresult, x, W)
            return bW
        """, arrays((3, 2), (5, 4, 3), (4, 2)), """
        def f(W, xs, bresult):
            bW = np.zeros((3, 2))
            for i in range(len(xs)):
                x = xs[i]
                bW += x.T @ bresult
            return bW
        """),
    "no accumulation in place into an array something else holds": ("""
        def f(W, g, n, bresult):
            bW = g
            for i in range(n):
                bW = bW + W
            return bW, g
        """, [*arrays((3, 2), (3, 2)), 2, 1.0], """
        def f(W, g, n, bresult):
            bW = g
            for i in range(n):
                bW = bW + W
            return bW, g
        """),
    "a large array is released after its last read, before the next is made": ("""
        def f(x, bresult):
            a = np.sin(x)
            b = a * a
            c = np.cos(b)
            bx = c * bresult
            return bx
        """, [*arrays((100, 100)), 1.0], """
        def f(x, bresult):
            a = np.sin(x)
            b = a * a
            del a
            c = np.cos(b)
            del b
            bx = c * bresult
            return bx
        """),
    "no release of a small array, nor in a loop, a branch or a comprehension (bx: yes)": ("""
        def f(x, y, n, bresult):
            a = np.sin(x)
            for i in range(n):
                a = a * 2.0
            c = np.tanh(x)
            if n > 1:
                c = c * 2.0
            b = np.cos(x)
            h = [b for _ in range(n)]
            s = y * 2.0
            u = np.sum(s) * bresult
            bx = a + c * u
            by = bx + h[0]
            bz = by * 2.0
            return bz
        """, [*arrays((100, 100), (3,)), 2, 1.0], """
        def f(x, y, n, bresult):
            a = np.sin(x)
            for i in range(n):
                a = a * 2.0
            c = np.tanh(x)
            if n > 1:
                c = c * 2.0
            b = np.cos(x)
            h = [b for _ in range(n)]
            s = y * 2.0
            u = np.sum(s) * bresult
            bx = a + c * u
            by = bx + h[0]
            del bx
            bz = by * 2.0
            return bz
        """),
    "accumulation in place into undiag of a matrix (of a number), read after the last one": ("""
        def f(d, L, g, bresult):
            bL = undiag(bresult * 2.0, L)
            bL = bL + g
            bL = bL + matrix_transpose(g)
            h = np.sin(bL)
            return h
        """, [*arrays((3,), (3, 3), (3, 3)), 1.5], """
        def f(d, L, g, bresult):
            bL = undiag(bresult * 2.0, L)
            bL += g
            bL += matrix_transpose(g)
            h = np.sin(bL)
            return h
        """),
    "no accumulation in place after a read, nor into undiag of a vector or np.diag of a matrix (views)": ("""
        def f(d, L, g, bresult):
            bL = undiag(bresult / d, L)
            h = matrix_transpose(bL)
            bL = bL + g
            bd = undiag(g, d)
            bd = bd + d
            bg = np.diag(g)
            bg = bg + d
            return bL, h, bd, bg
        """, arrays((3,), (3, 3), (3, 3), ()), """
        def f(d, L, g, bresult):
            bL = np.diag(bresult / d)
            h = matrix_transpose(bL)
            bL = bL + g
            bd = undiag(g, d)
            bd = bd + d
            bg = np.diag(g)
            bg = bg + d
            return bL, h, bd, bg
        """),
    "no accumulation in place after a read when a loop accumulates too": ("""
        def f(W, g, n, bresult):
            bW = W * bresult
            h = matrix_transpose(bW)
            for i in range(n):
                bW = bW + g
            return bW, h
        """, [*arrays((3, 3), (3, 3)), 2, 1.0], """
        def f(W, g, n, bresult):
            bW = W * bresult
            h = matrix_transpose(bW)
            for i in range(n):
                bW = bW + g
            return bW, h
        """),
    "the adjoints of np.dot of vectors are products; undiag of a matrix is np.diag": ("""
        def f(y, a, L, d, bresult):
            ba = grad_dot_rhs(bresult * 0.5, y, a)
            by = grad_dot_lhs(bresult, y, a)
            bL = undiag(bresult / d, L)
            bL = bL + L
            return ba, by, bL
        """, [*arrays((3,), (3,), (3, 3), (3,)), 1.5], """
        def f(y, a, L, d, bresult):
            ba = y * (bresult * 0.5)
            by = bresult * a
            bL = np.diag(bresult / d)
            bL += L
            return ba, by, bL
        """),
    "np.dot of float32 vectors and undiag of a vector stay; of matrices, matmul": ("""
        def f(u, v, A, x, bresult):
            bu = grad_dot_lhs(bresult, u, v)
            bx = grad_dot_rhs(x * bresult, A, x)
            bd = undiag(A, x)
            return bu, bx, bd
        """, [*arrays((3,), (3,), dtype=np.float32), *arrays((3, 3), (3,)), 1.5], """
        def f(u, v, A, x, bresult):
            bu = grad_dot_lhs(bresult, u, v)
            bx = x * bresult @ A
            bd = undiag(A, x)
            return bu, bx, bd
        """),
    "unbroadcast to an np.float64 gives a Python float: float()": ("""
        def f(x, s, bresult):
            bs = unbroadcast(bresult, s)
            return bs
        """, [*arrays((3,)), np.float64(2.0), np.float64(1.0)], """
        def f(x, s, bresult):
            bs = float(bresult)
            return bs
        """),
    "a name that is a Python float and an np.float64 is a real scalar": ("""
        def f(x, n, bresult):
            y = x
            for i in range(n):
                y = np.cos(y)
            by = unbroadcast(bresult, y)
            bt = unbroadcast(by * y, x)
            return bt
        """, [1.5, 3, 1.0], """
        def f(x, n, bresult):
            y = x
            for i in range(n):
                y = np.cos(y)
            bt = float(bresult * y)
            return bt
        """),
    "unbroadcast that casts float32 to float64 stays": ("""
        def f(x, bresult):
            bx = unbroadcast(bresult, x)
            return bx
        """, [*arrays((3,)), *arrays((3,), dtype=np.float32)], """
        def f(x, bresult):
            bx = unbroadcast(bresult, x)
            return bx
        """),
    "unknown kinds: nothing changes": ("""
        def f(x, y, bresult):
            bx = unbroadcast(bresult * y, x)
            return bx
        """, [[1.0, 2.0], *arrays((2,)), 1.0], """
        def f(x, y, bresult):
            bx = unbroadcast(bresult * y, x)
            return bx
        """),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_specialize(name):
    source, args, expected = CASES[name]
    assert specialized(source, args) == textwrap.dedent(expected).lstrip("\n")


# ---- kinds --------------------------------------------------------------------

F64, F32 = np.dtype(np.float64), np.dtype(np.float32)


@pytest.mark.parametrize("module", [array_rules, kind_values], ids=lambda m: m.__name__)
def test_doctests(module):
    failures, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


def test_kind_of_values():
    assert kind_of(1.5) == Kind("float") and kind_of(2) == Kind("int")
    assert kind_of(True) == Kind("bool")
    assert kind_of(np.zeros((2, 3), np.float32)) == Kind("array", (2, 3), F32)
    assert kind_of(np.float32(1.0)) == Kind("scalar", (), F32)
    for other in ([1.0], None, np.zeros(2, object), np.zeros(2).view(Sub), "s"):
        assert kind_of(other) is None


def kinds_of(source, **params):
    tree = functions(textwrap.dedent(source))[0]
    return Kinds(tree, params).names


def test_kind_of_a_product_triangle():
    names = kinds_of("""
        def f(g, x, v):
            t = product_triangle(g, x, True)
            u = product_triangle(g, v, False)
        """, g=Kind("array", (4, 1), F64), x=Kind("array", (3, 1), F64),
        v=Kind("array", (4, 2), F64))
    assert names["t"] == Kind("array", (4, 3), F64) and names["u"] is None


def test_kind_of_a_power_with_an_int_exponent():
    """An inexact base keeps its kind whatever the exponent's sign; an int
    base's result is an int or a float by the exponent's sign: unknown."""
    names = kinds_of("""
        def f(x, a, n, s):
            for i in range(n):
                u = 0.5 ** i
                v = x ** i
                w = a ** i
                z = s ** i
                k = n ** i
        """, x=Kind("float"), a=Kind("array", (3,), F32), n=Kind("int"),
        s=Kind("scalar", (), F64))
    assert names["u"] == names["v"] == Kind("float")
    assert names["w"] == Kind("array", (3,), F32) and names["z"] == Kind("scalar", (), F64)
    assert names["k"] is None


def test_kinds_of_a_log_determinant_and_its_adjoint():
    """slogdet's sign and log (scalars of a matrix, arrays of a stack's
    shape; the log is real), unindex(g, t, i)[i] of its tuple (g itself),
    a module's float constant (np.pi),
    np.expand_dims of a number with negative axes, and a solve's adjoints
    seeded by a Python float."""
    names = kinds_of("""
        def f(K, S, C, y, g):
            t = np.linalg.slogdet(K)
            sign = t[0]
            log = t[1]
            stacked = np.linalg.slogdet(S)[1]
            csign = np.linalg.slogdet(C)[0]
            clog = np.linalg.slogdet(C)[1]
            item = unindex(g * 0.5, t, 1)[1]
            other = unindex(g * 0.5, t, 1)[0]
            spread = np.expand_dims(item, (-2, -1))
            x = np.linalg.solve(K, y)
            gx = grad_matmul_rhs(g, y, x)
            gb = grad_solve_rhs(gx, K, x)
            ga = grad_solve_lhs(gb, K, x)
            inverse = np.linalg.inv(K)
            constant = 0.5 * np.log(2.0 * np.pi)
            module = np.linalg
        """, K=Kind("array", (4, 4), F64), S=Kind("array", (2, 3, 3), F32),
        C=Kind("array", (3, 3), np.dtype(np.complex128)), y=Kind("array", (4,), F64),
        g=Kind("float"))
    assert names["sign"] == names["log"] == Kind("scalar", (), F64)
    assert names["stacked"] == Kind("array", (2,), F32)
    assert names["csign"] == Kind("scalar", (), np.dtype(np.complex128))
    assert names["clog"] == Kind("scalar", (), F64)
    assert names["item"] == Kind("float") and names["other"] is None
    assert names["spread"] == Kind("array", (1, 1), F64)
    assert names["x"] == names["gx"] == names["gb"] == Kind("array", (4,), F64)
    assert names["ga"] == names["inverse"] == Kind("array", (4, 4), F64)
    # np.pi is a Python float: a loss with the Gaussian's constant is a real scalar
    assert names["constant"] == Kind("scalar", (), F64) and names["module"] is None


def test_kinds_follow_numpy_broadcasting_and_promotion():
    names = kinds_of("""
        def f(x, v, s, n):
            a = x * 2.0
            b = x + v
            c = np.tanh(b) * s
            d = x @ np.ones(3)
            e = np.sum(a)
            g = n * 2
            h = n / 2
            k = v[n]
            m = x @ v
        """, x=Kind("array", (4, 3), F32), v=Kind("array", (3,), F64),
        s=Kind("scalar", (), F64), n=Kind("int"))
    assert names["a"] == Kind("array", (4, 3), F32)   # a Python float is weak
    assert names["b"] == Kind("array", (4, 3), F64)
    assert names["c"] == Kind("array", (4, 3), F64)   # a NumPy scalar is not
    assert names["d"] == Kind("array", (4,), F64)     # staging/sampled.py: on stand-ins
    assert names["e"] == Kind("scalar", (), F32)
    assert names["g"] == Kind("int") and names["h"] == Kind("float")
    assert names["k"] == Kind("scalar", (), F64)
    assert names["m"] == Kind("array", (4,), F64)


def test_kinds_of_reductions_with_axis_and_keepdims_keywords():
    names = kinds_of("""
        def f(x, g):
            a = np.sum(x, axis=1, keepdims=True)
            b = np.max(x, axis=-1)
            c = np.mean(x, axis=(0, 1))
            d = np.sum(x, keepdims=True)
            e = np.sum(x, axis=k)
            h = unreduce(g, x, 1, True)
            m = unreduce_max(g, a, x, 1, True)
            u = np.sum(x, axis=3)
        """, x=Kind("array", (4, 3, 2), F32), g=Kind("array", (4, 1, 2), F64))
    assert names["a"] == Kind("array", (4, 1, 2), F32)
    assert names["b"] == Kind("array", (4, 3), F32)
    assert names["c"] == Kind("array", (2,), F32)
    assert names["d"] == Kind("array", (1, 1, 1), F32)
    assert names["e"] is None and names["u"] is None  # an axis not constant, out of range
    assert names["h"] == names["m"] == Kind("array", (4, 3, 2), F32)  # x's kind (core._like)


def test_subtracting_zero_goes_where_it_keeps_the_kind():
    out = specialized("""
        def f(x, n):
            return np.exp(x - 0.0) + (n - 0.0)
    """, [arrays((3,))[0], 2])
    assert "np.exp(x)" in out and "n - 0.0" in out  # an int minus 0.0 is a float


def test_softmax_with_keepdims_is_specialized():
    """The staged copy of a log-softmax gradient: the reductions with
    keywords have kinds, so the adjoints of the shapes that do not change
    need no unbroadcast, and the weights' adjoint is a plain product."""
    def loss(W, X):
        logits = X @ W
        shifted = logits - np.max(logits, axis=1, keepdims=True)
        return -np.mean(shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True)))
    rng = np.random.default_rng(0)
    W, X = rng.normal(size=(4, 3)), rng.normal(size=(6, 4))
    gradient = tad.grad(loss)
    source = tad.show_source(gradient, W, X)
    assert "X.T @ " in source and "grad_matmul_rhs" not in source
    assert source.count("unbroadcast(") <= 2
    for _ in range(3):
        check_grads(loss, gradient, (W, X))


def test_kinds_join_over_loops_and_branches():
    names = kinds_of("""
        def f(x, n, flag):
            stack = []
            t = None
            s = 0.0
            for i in range(n):
                stack.append(t)
                t = x * 2.0
                x = t + 1.0
                s = s + x
            if flag:
                y = x
            else:
                y = 1.0
            x = stack.pop()
        """, x=Kind("array", (3,), F64), n=Kind("int"), flag=Kind("bool"))
    assert names["i"] == Kind("int")
    assert names["t"] == names["x"] == Kind("array", (3,), F64)  # None placeholder, pop
    assert names["s"] is None and names["y"] is None             # float or array


# ---- staging ------------------------------------------------------------------

@pytest.fixture(autouse=True)
def stage_on_the_second_call(monkeypatch):
    monkeypatch.setattr(staging, "CALLS_BEFORE_STAGING", 2)


def plain_grad(func, wrt):
    """The general generated gradient, even if tad.grad stages it."""
    df = tad.grad(func, wrt=wrt)
    return getattr(df, "__wrapped__", df)


def mlp(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    out = h @ W2
    return np.mean((out - y) ** 2)


def mlp_inputs(n, dtype=np.float64, batch=5):
    return [a.astype(dtype) for a in arrays((n, n), (n,), (n, 2), (batch, n), (batch, 2))]


MLP_VARIANT = """\
def dmlp_dW1_b1_W2(W1, b1, W2, x, y, bresult=1.0):
    h = np.tanh(x @ W1 + b1)
    out = h @ W2
    # Grad of: return np.mean((out - y) ** 2)
    bt3 = bresult / 10 * 2 * (out - y)
    # Grad of: out = h @ W2
    bh = bt3 @ W2.T
    bW2 = h.T @ bt3
    # Grad of: h = np.tanh(x @ W1 + b1)
    bt2 = bh * (1.0 - h * h)
    bb1 = bt2.sum(axis=0)
    bW1 = x.T @ bt2
    return bW1, bb1, bW2
"""


def test_dispatcher_keeps_signature_and_source_and_stages_on_the_second_call():
    general_df = plain_grad(mlp, wrt=(0, 1, 2))
    df = staging.staged(general_df)
    assert staging.staged(df) is df
    assert tad.show_source(df) == tad.show_source(general_df)
    assert inspect.signature(df) == inspect.signature(general_df)
    args = mlp_inputs(3)
    want = general_df(*args)
    assert_same(df(*args), want)
    assert staging.variants(df) == {}
    assert_same(df(*args), want)
    assert list(staging.variants(df).values()) == [MLP_VARIANT]
    assert_same(df(*args), want)
    assert inspect.getsource(df) == tad.show_source(df)


@pytest.mark.parametrize("make", [
    lambda: mlp_inputs(4),
    lambda: mlp_inputs(3, batch=1),
    lambda: mlp_inputs(3, np.float32),
    lambda: [np.asarray(a) for a in mlp_inputs(3)[:4]] + [np.zeros(2)],
    lambda: [a.view(Sub) for a in mlp_inputs(3)],
    lambda: [a.tolist() if a.ndim == 1 else a for a in mlp_inputs(3)],
], ids=["other shapes", "batch of one", "float32", "y broadcast", "a subclass",
        "lists"])
def test_other_kinds_get_their_own_copy_or_the_general_function(make):
    general_df = plain_grad(mlp, wrt=(0, 1, 2))
    df = staging.staged(general_df)
    first = mlp_inputs(3)
    for _ in range(3):
        df(*first)
    args = make()
    for _ in range(3):  # general, staged, guarded by the other kinds
        assert_same(df(*args), general_df(*args))
        assert_same(df(*first), general_df(*first))
    assert not df.__tangent_ad_stager__.errors


def test_staged_gradients_match_finite_differences():
    for dtype in (np.float64, np.float32):
        df = staging.staged(plain_grad(mlp, wrt=(0, 1, 2)))
        args = mlp_inputs(3, dtype)
        df(*args)
        check_grads(mlp, df, args, wrt=(0, 1, 2))
        assert staging.variants(df)


def node(W, b, leaves, lo, hi):
    if hi - lo == 1:
        return leaves[lo]
    mid = (lo + hi) // 2
    return np.tanh(node(W, b, leaves, lo, mid) @ W + node(W, b, leaves, mid, hi) + b)


def tree_loss(W, b, leaves):
    return np.sum(node(W, b, leaves, 0, len(leaves)) ** 2)


def test_recursive_pullbacks_are_specialized_with_their_caller():
    general_df = plain_grad(tree_loss, wrt=(0, 1))
    df = staging.staged(general_df)
    args = arrays((3, 3), (3,), (4, 3))
    df(*args)
    assert_same(df(*args), general_df(*args))
    source, = staging.variants(df).values()
    assert "pullback_node_dW_b_1(W, b, leaves, lo, mid)" in source
    assert "unbroadcast" not in source and "grad_matmul" not in source
    assert "return result, None" in source  # a leaf has no back (ad/zero_backs.py)
    assert "if back_t2 is not None:" in source
    check_grads(tree_loss, df, args, wrt=(0, 1))


def test_a_failure_while_staging_falls_back_to_the_general_function(monkeypatch):
    general_df = plain_grad(mlp, wrt=(0, 1, 2))
    df = staging.staged(general_df)
    args = mlp_inputs(3)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")
    monkeypatch.setattr(specialize, "run", broken)
    for _ in range(3):
        assert_same(df(*args), general_df(*args))
    assert [type(e) for e in df.__tangent_ad_stager__.errors.values()] == [RuntimeError]


def test_at_most_max_variants_copies(monkeypatch):
    monkeypatch.setattr(staging, "MAX_VARIANTS", 2)
    general_df = plain_grad(mlp, wrt=(0, 1, 2))
    df = staging.staged(general_df)
    for n in (2, 3, 4, 5):
        args = mlp_inputs(n)
        for _ in range(2):
            assert_same(df(*args), general_df(*args))
    assert len(staging.variants(df)) == 2


def benchmark_workloads():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import workloads
    return [pytest.param(m, id=name) for name, m in workloads.BY_NAME.items()]


@pytest.mark.parametrize("module", benchmark_workloads())
def test_staged_benchmark_workloads_give_the_general_results(module):
    args = module.make_inputs(module.SMALL, np.random.default_rng(0))
    general_df = plain_grad(module.loss, module.WRT)
    df = staging.staged(general_df)
    for _ in range(3):
        assert_same(df(*args), general_df(*args))
    assert not df.__tangent_ad_stager__.errors
    specialized = staging.variants(df)
    assert specialized  # the loop's copy only folds temporaries
    for source in specialized.values():
        assert "unbroadcast" not in source and "grad_matmul" not in source


def _loop_changes_shape(x, y):
    a = np.sum(y)
    for i in range(1):
        a = a + x
    return np.sum(a)


def test_loop_carried_value_that_changes_shape():
    # The simplifier's shape classes were flow-insensitive: `a = t` put `a`
    # in `t`'s class, so the adjoint of `a = a + x` dropped
    # ``unbroadcast(bt, a)`` although the earlier `a` was a scalar, and
    # d/dy came out as ones instead of len(x).
    x = np.ones(3)
    dx, dy = tad.grad(_loop_changes_shape, wrt=(0, 1))(x, np.ones(3))
    assert np.allclose(dx, 1.0) and np.allclose(dy, 3.0)


def _rebinds_its_parameter(v, s):
    if np.sum(v) > 0.0:
        v = (np.tanh(v) + s) * 2.0
        return np.sum(v)
    return 1.0


def _calls_it(u):
    return _rebinds_its_parameter(u, u * 0.5)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_shape_is_read_only_from_a_name_bound_once(sign):
    # `v = t2 * 2.0` was v's only assignment, but v is also a parameter:
    # `zeros_like(v)` on the path where v keeps its value was rewritten to
    # `zeros_like(t2)`, a temporary of the other branch (NameError "free
    # variable 't2'", or a hang when the two names were each other's source)
    check_all_modes(_calls_it, (sign * np.array([0.3, 0.4]),))


def _tanh_dot(a, b):
    return np.sum(np.tanh(a) * b)


def _rebound_by_a_helper(x, n):
    y = x * 0.5
    s = 0.0
    for i in range(n):
        s = s + np.sum(x * y)
        x = _tanh_dot(x, y)  # from the second iteration on, x is a scalar
    return s + np.sum(y)


def test_a_loop_carried_value_a_helper_rebinds_keeps_its_unbroadcast():
    # `x = t4` (t4 the helper's result) made itself of x's shape class, so
    # `unbroadcast(bt * y, x)` went where x is a scalar: wrong numbers
    check_all_modes(_rebound_by_a_helper, (np.array([1.2, 0.9]), 2))
    source = tad.show_source(tad.grad(_rebound_by_a_helper))
    assert "unbroadcast(bt * y, x)" in source


def _int_copy_written(x0, x1):
    c2 = x0 * 1.0  # a float copy of an integer array: not foldable into x0
    c2[0] *= 2.5
    return np.sum(np.sin(c2)) * x1


def test_times_one_point_zero_of_a_primal_is_not_folded_away():
    # found by the fuzzer: jvp's value was f of the truncated integer copy
    x0, x1 = np.array([[1, 2, 3], [4, 5, 6]]), 0.7
    value, tangent = tad.jvp(_int_copy_written, wrt=(1,))(x0, x1, 1.0)
    assert value == pytest.approx(_int_copy_written(x0, x1))
    assert tangent == pytest.approx(_int_copy_written(x0, 1.0))
    for _ in range(3):  # general and staged
        assert tad.grad(_int_copy_written, wrt=(1,))(x0, x1) == \
            pytest.approx(_int_copy_written(x0, 1.0))


def test_a_templates_choice_by_a_constant_option_is_folded():
    """solve_triangular's adjoint picks its product and triangle by
    ``trans`` and ``lower``: with constants, only the chosen ones are
    written (and computed)."""
    linalg = pytest.importorskip("scipy.linalg")

    def loss(A, b):
        L = np.tril(A) + 3.0 * np.eye(3)
        return np.sum(linalg.solve_triangular(L, b, lower=True) ** 2)

    rng = np.random.default_rng(1)
    A, b = rng.normal(size=(3, 3)), rng.normal(size=3)
    gradient = tad.grad(loss, wrt=(0, 1))
    source = tad.show_source(gradient)
    assert "np.where(" not in source and " if " not in source
    assert source.count("product_triangle(") == 1 and "product_triangle(g2, x2, True, L)" in source
    check_grads(loss, gradient, (A, b), wrt=(0, 1))


@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("b_shape", [(4,), (4, 2)])
def test_solve_triangular_with_a_transposed_factor(trans, b_shape):
    """``L.T`` is in Fortran order, and so is the adjoint product_triangle
    makes for it (added back through the transpose in memory order):
    general and staged gradients against central differences."""
    linalg = pytest.importorskip("scipy.linalg")

    def loss(A, b):
        L = np.tril(A) + 3.0 * np.eye(4)
        return np.sum(np.sin(linalg.solve_triangular(L.T, b, trans=trans, lower=False)))

    rng = np.random.default_rng(5)
    A, b = rng.normal(size=(4, 4)), rng.normal(size=b_shape)
    gradient = tad.grad(loss, wrt=(0, 1))
    for _ in range(3):  # general, then staged
        check_grads(loss, gradient, (A, b), wrt=(0, 1))


def _halves(z):
    n = np.shape(z)[0] // 2
    return np.split(z, [n])


def _pair(z):
    return (np.sin(z), z * 2.0)


def _named(z):
    return {"a": np.tanh(z), "b": z * z}


def unpacks_a_list(z):
    cand, gate = _halves(z)
    return np.sum(np.tanh(cand) * gate)


def unpacks_a_tuple_and_a_dict(z):
    s, t = _pair(z)
    d = _named(z)
    return np.sum(s * t) + np.sum(d["a"] * d["b"])


def unpacks_an_array(z):
    a, b = z[:2]
    return a * np.sin(b)


@pytest.mark.parametrize("func", [unpacks_a_list, unpacks_a_tuple_and_a_dict, unpacks_an_array],
                         ids=lambda f: f.__name__)
def test_items_read_at_constant_indices_are_added_where_they_are(func):
    """``accumulate(bt, unindex(g, t, 1))`` becomes ``accumulate_at(bt, g,
    t, 1)``: the adjoint of one more item of a list, tuple or dict read at
    a constant index, without zeros for the other items (an array as
    before)."""
    assert "accumulate_at(" in tad.show_source(tad.grad(func))
    check_all_modes(func, (np.array([0.3, -0.7, 1.1, 0.4]),))


def test_accumulate_at_is_accumulate_of_unindex():
    x = [np.zeros(2), 0.0, {"k": np.zeros(1)}]
    a = [np.ones(2), 2.0, {"k": np.ones(1)}]
    for index, g in ((0, np.full(2, 3.0)), (1, 4.0), (2, {"k": np.full(1, 5.0)})):
        expected = runtime.accumulate(a, runtime.unindex(g, x, index))
        got = runtime.accumulate_at(a, g, x, index)
        assert type(got) is type(expected) and repr(got) == repr(expected)
    d = {"u": 1.0}
    assert runtime.accumulate_at(d, 2.0, {"u": 0.0, "v": 0.0}, "v") == \
        runtime.accumulate(d, runtime.unindex(2.0, {"u": 0.0, "v": 0.0}, "v"))
    assert runtime.accumulate_at(None, 2.0, (0.0, 0.0), 1) == (0.0, 2.0)
    assert runtime.accumulate_at((1.0, 1.0), None, (0.0, 0.0), 1) == (1.0, 1.0)
    array = np.zeros((3, 2))
    assert np.array_equal(runtime.accumulate_at(np.ones((3, 2)), np.ones(2), array, 1),
                          np.ones((3, 2)) + runtime.unindex(np.ones(2), array, 1))



def layers_of_a_list(params, x):
    for W, b in params:
        x = np.tanh(x @ W + b)
    return np.sum(x * x)


def rows_in_a_loop(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.tanh(x[i] @ w)
    return s


def test_items_read_at_a_loop_index_are_added_where_they_are():
    """A list of (W, b) pairs gone through in a loop: each pair's adjoint
    is added at its index, not as a whole list of zeros around it added to
    the list's adjoint (layers times layers array additions)."""
    rng = np.random.default_rng(3)
    params = [(rng.normal(size=(4, 3)), rng.normal(size=3)),
              (rng.normal(size=(3, 2)), rng.normal(size=2))]
    x = rng.normal(size=(5, 4))
    source = tad.show_source(tad.grad(layers_of_a_list))
    assert "accumulate_at(bt, bt2, t, i)" in source and "unindex(bt2, t, i)" not in source
    got = tad.grad(layers_of_a_list)(params, x)
    plain = tad.grad(layers_of_a_list, optimized=False)(params, x)  # zeros added, as written
    assert type(got) is list and [type(p) for p in got] == [tuple, tuple]
    for (gW, gb), (pW, pb) in zip(got, plain):
        np.testing.assert_allclose(gW, pW, rtol=1e-12)
        np.testing.assert_allclose(gb, pb, rtol=1e-12)
    step, (W, b) = 1e-6, params[1]
    nudged = [params[0], (W + np.eye(3, 2) * step, b)]
    back = [params[0], (W - np.eye(3, 2) * step, b)]
    slope = (layers_of_a_list(nudged, x) - layers_of_a_list(back, x)) / (2 * step)
    assert got[1][0][0, 0] + got[1][0][1, 1] == pytest.approx(slope, rel=1e-6)


def test_an_array_row_read_at_a_loop_index_is_added_in_place_when_staged():
    rng = np.random.default_rng(4)
    x, w = rng.normal(size=(6, 3)), rng.normal(size=3)
    g = tad.grad(rows_in_a_loop, wrt=(0, 1))
    for _ in range(3):
        got = g(x, w)
    staged, = staging.variants(g).values()
    assert "bx[i] += " in staged and "unindex" not in staged
    check_grads(rows_in_a_loop, tad.grad(rows_in_a_loop, wrt=(0, 1)), (x, w), wrt=(0, 1))
    expected = tad.grad(rows_in_a_loop, wrt=(0, 1), optimized=False)(x, w)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("dtype, g_dtype", [(np.float64, np.float64), (np.float32, np.float64),
                                            (np.float32, np.float32), (np.complex128, np.float64)])
@pytest.mark.parametrize("index, g_shape", [(1, (4,)), (-1, (4,)), ((2, 3), ()), (1, ()),
                                            (slice(1, 3), (2, 4)), (slice(None), (1, 4)),
                                            ((Ellipsis, 0), (3,))])
def test_accumulate_at_of_an_array_is_accumulate_of_unindex(dtype, g_dtype, index, g_shape):
    rng = np.random.default_rng(5)
    x = np.zeros((3, 4), dtype=dtype)
    a = rng.normal(size=(3, 4)).astype(dtype)
    g = rng.normal(size=g_shape).astype(g_dtype) if g_shape else g_dtype(1.7)
    expected = runtime.accumulate(a, runtime.unindex(g, x, index))
    before = a.copy()
    got = runtime.accumulate_at(a, g, x, index)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected)
    assert np.array_equal(a, before)  # a new array: a itself is not written


def test_sizes_computed_from_shapes_are_static_ints():
    names = kinds_of("""
        def f(x):
            n = np.shape(x)[0] // 2 + 1
            z = np.zeros(n * 2)
            w = np.ones(np.shape(x)[1] - 1)
        """, x=Kind("array", (6, 4), F64))
    assert names["z"] == Kind("array", (8,), F64)
    assert names["w"] == Kind("array", (3,), F64)
