"""Randomized differential test of reverse mode, general and staged.

`generate(seed)` writes a random, valid Python function of 1-3 float/array
arguments (elementwise NumPy, reductions, ``@``, indexing, ``np.where``,
reassignment, ``for``/``while``/``if``, helper calls, lists, tuple
unpacking, writes into a copy). `check_program` differentiates it with
respect to every argument and checks that

(a) the staged dispatcher (calls 2.. write and run a copy specialized to the
    argument kinds) agrees with the general derivative (``__wrapped__``),
(b) the gradient matches central finite differences (float64),
(c) float32 arrays give float32 gradients of the arguments' shapes,
(d) ``optimized=False`` agrees.

Run more seeds by hand with ``python tests/test_fuzz_reverse.py 0 300``.
"""
import importlib.util
import itertools
import os
import random
import sys
import tempfile

import numpy as np
import pytest

import tangent_ad as tad

HELPERS = '''
def helper_mix(u, v):
    return np.sin(u) * v + u


def helper_pair(u):
    w = np.tanh(u)
    return w * w, u * 2.0


def helper_loop(u, n):
    s = u
    for j in range(n):
        s = s * 0.5 + np.cos(s)
    return s
'''

ARG_SHAPES = [(), (3,), (3, 3), (2, 3)]
UNARY = ["np.sin({0})", "np.exp(np.sin({0}))", "np.exp(0.3 * {0})", "np.tanh({0})",
         "np.log(np.abs({0}) + 1.0)", "np.sqrt({0} * {0} + 1.0)", "({0}) ** 2",
         # float64 values that promote a float32 argument (issue 19, item 5)
         "np.float64(0.5) * ({0})", "np.float_power({0}, 2.0)"]


def _bshape(a, b):
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


def _matmul_shape(a, b):
    if not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return () if a == b else None
    if len(a) == 1:
        return (b[1],) if a[0] == b[0] else None
    if len(b) == 1:
        return (a[0],) if a[1] == b[0] else None
    return (a[0], b[1]) if a[1] == b[0] else None


class Generator:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.rs = random.Random(seed + 1_000_003)  # syntax_statement's own stream
        self.vars = {}      # top-level name -> shape
        self.lines = []
        self.count = itertools.count()

    def fresh(self, prefix="v"):
        return "%s%d" % (prefix, next(self.count))

    def var(self, pred=lambda s: True, scope=None):
        names = [n for n, s in (scope or self.vars).items() if pred(s)]
        return self.r.choice(names) if names else None

    # ---- expressions: (code, shape) ----
    def leaf(self, scope):
        if self.r.random() < 0.12:
            return repr(round(self.r.uniform(0.5, 1.5), 2)), ()
        n = self.var(scope=scope)
        return n, scope[n]

    def expr(self, scope, depth=2):
        r = self.r
        if depth == 0 or r.random() < 0.25:
            return self.leaf(scope)
        choice = r.randrange(9)
        a, sa = self.expr(scope, depth - 1)
        if choice <= 1:
            return r.choice(UNARY).format(a), sa
        if choice <= 3:
            b, sb = self.expr(scope, depth - 1)
            s = _bshape(sa, sb)
            if s is None:
                b, s = "np.sum(%s)" % b, sa
            op = r.choice(["+", "-", "*", "/"])
            if op == "/":
                return "(%s / (%s * %s + 1.0))" % (a, b, b), s
            return "(%s %s %s)" % (a, op, b), s
        if choice == 4 and sa:
            if r.random() < 0.5:
                return "np.sum(%s)" % a, ()
            axis = r.randrange(len(sa))
            fn = r.choice(["np.sum", "np.mean"])
            return "%s(%s, axis=%d)" % (fn, a, axis), sa[:axis] + sa[axis + 1:]
        if choice == 5:
            b, sb = self.expr(scope, depth - 1)
            s = _matmul_shape(sa, sb) if len(sa) <= 2 and len(sb) <= 2 else None
            if s is not None:
                return "(%s @ %s)" % (a, b), s
            return a, sa
        if choice == 6 and sa:
            if len(sa) == 2 and r.random() < 0.5:
                return "%s[:, %d]" % (a, r.randrange(sa[1])), (sa[0],)
            if r.random() < 0.5:
                return "%s[1:]" % a, (sa[0] - 1,) + sa[1:]
            return "%s[%d]" % (a, r.randrange(sa[0])), sa[1:]
        if choice == 7:
            b, sb = self.expr(scope, depth - 1)
            c, sc = self.expr(scope, 0)
            s = _bshape(sa, sb)
            s2 = None if s is None else _bshape(s, sc)
            if s2 is None:
                return a, sa
            if r.random() < 0.5:
                return "np.where(%s > 0, %s, %s)" % (a, b, c), s2
            return "np.maximum(%s, %s)" % (b, c), _bshape(sb, sc)
        b, sb = self.expr(scope, 0)
        s = _bshape(sa, sb)
        if s is None:
            return a, sa
        return "helper_mix(%s, %s)" % (a, b), s

    def fit(self, scope, target, depth=2):
        """An expression whose shape broadcasts to `target`."""
        code, s = self.expr(scope, depth)
        if _bshape(s, target) != target:
            code = "np.sum(%s)" % code
        return code

    # ---- statements ----
    def emit(self, line, indent=1):
        self.lines.append("    " * indent + line)

    def statement(self):
        r = self.r
        k = r.randrange(13)
        sc = self.vars
        if k <= 2:
            name = self.fresh()
            code, s = self.expr(sc)
            self.emit("%s = %s" % (name, code))
            self.vars[name] = s
        elif k == 3:  # reassignment
            name = self.var()
            s = sc[name]
            self.emit("%s = %s * 2.0 + %s" % (name, name, self.fit(sc, s, 1)))
        elif k == 4:  # for loop with carried value, maybe if on i % 2
            src = self.var()
            acc, s = self.fresh("acc"), sc[src]
            self.emit("%s = %s" % (acc, src))
            n = r.randint(2, 3)
            self.emit("for i in range(%d):" % n)
            if r.random() < 0.5:
                self.emit("if i % 2 == 0:", 2)
                self.emit("%s = %s * 0.5 + np.tanh(%s)" % (acc, acc, self.fit(sc, s)), 3)
                self.emit("else:", 2)
                self.emit("%s = %s * %s" % (acc, acc, self.fit(sc, s, 1)), 3)
            else:
                self.emit("%s = %s * 0.5 + np.sin(%s) * i" % (acc, acc, self.fit(sc, s)), 2)
            self.vars[acc] = s
        elif k == 5:  # if on a value
            name, v = self.fresh(), self.var()
            a, sa = self.expr(sc)
            b = self.fit(sc, sa)
            self.emit("if np.sum(%s) > 0:" % v)
            self.emit("%s = %s" % (name, a), 2)
            self.emit("else:")
            self.emit("%s = %s * 0.5 + %s" % (name, a, b), 2)
            self.vars[name] = sa
        elif k == 6:  # while with a counter
            src = self.var()
            acc, s = self.fresh("acc"), sc[src]
            self.emit("%s = %s * 0.5 + %s" % (acc, src, self.fit(sc, s, 1)))
            self.emit("k = 0")
            self.emit("while k < %d:" % r.randint(1, 3))
            self.emit("%s = np.tanh(%s) + %s * 0.5" % (acc, acc, self.fit(sc, s, 1)), 2)
            self.emit("k += 1", 2)
            self.vars[acc] = s
        elif k == 7:  # helper calls
            name = self.fresh()
            a, s = self.expr(sc, 1)
            if r.random() < 0.5:
                self.emit("%s = helper_loop(%s, %d)" % (name, a, r.randint(1, 3)))
                self.vars[name] = s
            else:
                other = self.fresh()
                self.emit("%s, %s = helper_pair(%s)" % (name, other, a))
                self.vars[name] = self.vars[other] = s
        elif k == 8:  # list append + np.stack / sum
            lst, name = self.fresh("lst"), self.fresh()
            a, s = self.expr(sc, 1)
            self.emit("%s = []" % lst)
            self.emit("for i in range(3):")
            self.emit("%s.append(%s * (i + 1.0))" % (lst, a), 2)
            if r.random() < 0.5:
                self.emit("%s = np.stack(%s)" % (name, lst))
                self.vars[name] = (3,) + s
            else:
                self.emit("%s = sum(%s)" % (name, lst))
                self.vars[name] = s
        elif k == 9:  # literal list
            name = self.fresh()
            a, s = self.expr(sc, 1)
            b = self.fit(sc, s, 1)
            if r.random() < 0.5:
                self.emit("%s = np.stack([%s, %s + 0.0 * %s])" % (name, a, b, a))
                self.vars[name] = (2,) + s
            else:
                self.emit("%s = sum([%s, %s + 0.0 * %s])" % (name, a, b, a))
                self.vars[name] = s
        elif k == 10:  # tuple unpacking
            p, q = self.fresh(), self.fresh()
            a, sa = self.expr(sc, 1)
            b, sb = self.expr(sc, 1)
            self.emit("%s, %s = %s, %s" % (p, q, a, b))
            self.vars[p], self.vars[q] = sa, sb
        else:  # x[i] = v into a copy
            src = self.var(lambda t: len(t) >= 1)
            if src is None:
                return
            s = sc[src]
            name = self.fresh("c")
            self.emit("%s = np.copy(%s)" % (name, src))
            if r.random() < 0.5:
                self.emit("%s[%d] = %s" % (name, r.randrange(s[0]), self.fit(sc, s[1:])))
            else:
                self.emit("for i in range(%d):" % s[0])
                self.emit("%s[i] = %s[i] * %s" % (name, name, self.fit(sc, s[1:], 1)), 2)
            self.vars[name] = s

    def syntax_statement(self):
        """One of the shapes that broke the emitter or the normalizer (from
        its own random stream, so the other statements stay as they were):
        powers of negative constants, ``for ... else``, chained assignment,
        ``+0.5``, empty loop bodies, ``enumerate(xs, start)``, a loop that
        rebinds the array it iterates."""
        r, sc = self.rs, self.vars
        src = self.var()
        acc, s = self.fresh("acc"), sc[src]
        k = r.randrange(7)
        if k == 0:
            self.emit("%s = %s" % (acc, src))
            self.emit("for i in range(%d):" % r.randint(1, 3))
            self.emit("%s = (%s) ** i * %s + %s" % (acc, r.choice(["-1.2", "-0.5", "-2.0"]),
                                                  acc, self.fit(sc, s, 1)), 2)
        elif k == 1:
            self.emit("%s = (-2.0) ** %d * %s - (-1.5) ** 2 * %s" % (
                acc, r.randint(1, 3), src, self.fit(sc, s, 1)))
        elif k == 2:
            self.emit("%s = %s" % (acc, src))
            self.emit("for i in range(3):")
            self.emit("if i >= %d:" % r.randint(1, 3), 2)
            self.emit("break", 3)
            self.emit("%s = %s * 0.5 + np.sin(%s)" % (acc, acc, self.fit(sc, s, 1)), 2)
            self.emit("else:")
            self.emit("%s = %s * 1.5" % (acc, acc), 2)
        elif k == 3:
            other = self.fresh()
            self.emit("%s = %s = %s * 0.5 + %s" % (acc, other, src, self.fit(sc, s, 1)))
            self.vars[other] = s
        elif k == 4:
            self.emit("t = +0.5")
            self.emit("%s = t * %s" % (acc, src))
        elif k == 5:
            self.emit("%s = %s * 1.5" % (acc, src))
            self.emit("for i in range(2):")
            self.emit("pass", 2)
        else:
            array = self.var(lambda t: len(t) >= 1)
            if array is None:
                self.emit("%s = %s" % (acc, src))
                self.emit("for j, v in enumerate([%s, %s * 2.0], start=%d):" % (
                    src, src, r.randint(-1, 2)))
                self.emit("%s = %s + j * v" % (acc, acc), 2)
            else:
                s, copied = sc[array][1:], self.fresh("c")
                self.emit("%s = np.copy(%s)" % (copied, array))
                self.emit("%s = np.sum(%s) * 0.0" % (acc, array) if s else "%s = 0.0" % acc)
                self.emit("for row in %s:" % copied)
                self.emit("%s = %s * 0.5" % (copied, copied), 2)
                self.emit("%s = %s + np.sin(row)" % (acc, acc), 2)
                self.vars[copied] = sc[array]
        self.vars[acc] = s

    def program(self):
        r = self.r
        nargs = r.randint(1, 3)
        args = []
        for j in range(nargs):
            name = "x%d" % j
            shape = r.choice(ARG_SHAPES)
            args.append(shape)
            self.vars[name] = shape
        for _ in range(r.randint(3, 7)):
            self.statement()
        if self.rs.random() < 0.6:
            self.syntax_statement()
        terms = ["np.sum(np.sin(%s))" % n for n in self.vars]
        self.emit("return " + " + ".join(terms))
        head = "def f(%s):" % ", ".join("x%d" % j for j in range(nargs))
        src = "import numpy as np\n" + HELPERS + "\n\n" + head + "\n" + "\n".join(self.lines) + "\n"
        return src, args


def generate(seed):
    return Generator(seed).program()


_TMP = tempfile.mkdtemp(prefix="tad_fuzz_")


def load(src, seed):
    path = os.path.join(_TMP, "fuzz_%d.py" % seed)
    with open(path, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location("tad_fuzz_%d" % seed, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


def make_args(rng, shapes, dtype=np.float64):
    out = []
    for s in shapes:
        if s == ():
            out.append(float(rng.uniform(-1.5, 1.5)))
        else:
            out.append(rng.uniform(-1.5, 1.5, size=s).astype(dtype))
    return out


def as_tuple(g, n):
    return tuple(g) if n > 1 else (g,)


def numerical(f, args, j, eps):
    x = args[j]
    if isinstance(x, float):
        def at(v):
            a = list(args)
            a[j] = v
            return float(f(*a))
        return (at(x + eps) - at(x - eps)) / (2 * eps)
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        vals = []
        for sgn in (1, -1):
            y = x.copy()
            y[idx] += sgn * eps
            a = list(args)
            a[j] = y
            vals.append(float(f(*a)))
        out[idx] = (vals[0] - vals[1]) / (2 * eps)
    return out


def close(a, b, rtol, atol, equal_nan=False):
    return np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=rtol, atol=atol,
                                                      equal_nan=equal_nan)


def check_program(seed):
    src, shapes = generate(seed)
    f = load(src, seed)
    n = len(shapes)
    wrt = tuple(range(n))
    rng = np.random.default_rng(seed)
    g = tad.grad(f, wrt=wrt)
    general = getattr(g, "__wrapped__", g)
    g0 = tad.grad(f, wrt=wrt, optimized=False)

    # (a) staged vs general, with new values of the same kinds on later calls
    points = [make_args(rng, shapes)]
    points = [points[0], points[0]] + [make_args(rng, shapes) for _ in range(2)]
    for args in points:
        got = as_tuple(g(*args), n)
        want = as_tuple(general(*args), n)
        for j in range(n):
            # nan where both overflow (``np.exp(np.exp(...))``) is agreement
            assert close(got[j], want[j], 1e-10, 1e-10, equal_nan=True), \
                "staged != general for arg %d\n%s" % (j, src)
        # (d) unoptimized agrees
        unopt = as_tuple(g0(*args), n)
        for j in range(n):
            assert close(unopt[j], want[j], 1e-8, 1e-10, equal_nan=True), \
                "optimized=False differs for arg %d\n%s" % (j, src)

    # (b) finite differences, at points away from kinks
    checked = 0
    for attempt in range(6):
        args = make_args(rng, shapes)
        grads = as_tuple(g(*args), n)
        kink = False
        for j in range(n):
            fd = numerical(f, args, j, 1e-6)
            fd2 = numerical(f, args, j, 1e-5)
            scale = 1e-6 * max(1.0, np.max(np.abs(fd)))
            if not close(fd, fd2, 1e-4, scale):
                kink = True
                break
            assert close(grads[j], fd, 1e-5, scale), \
                "gradient != finite differences for arg %d: %r vs %r\n%s" % (
                    j, grads[j], fd, src)
        if not kink:
            checked += 1
            if checked == 2:
                break

    # (c) float32 arrays give float32 gradients of the right shapes, even
    # where they meet float64 values; Python floats give Python floats
    if any(shapes):
        for _ in range(3):
            args = make_args(rng, shapes, np.float32)
            grads = as_tuple(g(*args), n)
            for j in range(n):
                assert type(grads[j]) is type(args[j]), (j, type(grads[j]), src)
                if shapes[j] != ():
                    assert np.shape(grads[j]) == shapes[j], (j, src)
                    assert grads[j].dtype == np.float32, \
                        "float32 arg %d got %s gradient\n%s" % (j, grads[j].dtype, src)
    return src


SEEDS = list(range(50))


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_reverse(seed):
    check_program(seed)


if __name__ == "__main__":
    lo, hi = int(sys.argv[1]), int(sys.argv[2])
    fails = 0
    for seed in range(lo, hi):
        try:
            check_program(seed)
        except Exception as e:  # report and continue
            fails += 1
            print("=== seed %d: %s: %s" % (seed, type(e).__name__, str(e).splitlines()[0][:200]))
    print("failures:", fails)


# ---- minimal reproducers of bugs the fuzzer found ----

def _sum_of_mixed_list(x):
    return np.sum(sum([x, 1.0]))


# once a bug: the adjoint of builtin sum(list) read the list as one array
def test_builtin_sum_of_list_with_mixed_shapes():
    g = tad.grad(_sum_of_mixed_list)(np.ones(3))
    assert np.allclose(g, 1.0)
