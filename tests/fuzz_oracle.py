"""The oracle of the differential fuzzer: run one generated program through
tangent_ad and judge every answer.

`run(seed)` (or `run_program(program)`) differentiates ``f`` with respect to
every argument and checks, in order:

grad      the staged dispatcher (calls 2.. run a copy specialized to the
          argument kinds) agrees with the general derivative, each gradient
          has its argument's type, structure, shape and dtype (an int gets a
          float64 gradient), and the gradient matches central finite
          differences in float64 (at points away from kinks);
unopt     ``optimized=False`` agrees;
float32   float32 arrays get float32 gradients of the right shape and about
          the right value;
jvp       forward mode agrees with reverse: ``<grad, t>`` is the jvp's tangent;
hvp       ``tad.hvp`` matches finite differences of the gradient;
vjp_jvp   reverse over forward, ``tad.vjp(tad.jvp(f))``, gives
          ``cv * grad + ct * H t``;
third     ``tad.jvp`` of that matches its finite differences;
rebind    after module globals (numbers, arrays, a flag, a helper function) are
          rebound, the next gradient follows the new values.

The verdict is a :class:`Result` whose ``kind`` is one of KINDS. A clean
``TangentADError`` that is not an ``InternalError`` is a refusal (acceptable);
an ``InternalError``, any other exception escaping, a wrong number, a wrong
type/dtype or a hang is a failure. ``invalid`` means the generator wrote a
program that Python itself cannot run (a fuzzer bug, not a tangent_ad one).
"""
import importlib.util
import itertools
import os
import re
import signal
import sys
import tempfile

import numpy as np

import tangent_ad as tad
from fuzz_programs import REBIND, generate

KINDS = ["pass", "refused", "wrong", "dtype", "internal", "crash", "hang", "invalid"]
FAILURES = ("wrong", "dtype", "internal", "crash", "hang")
CHECKS = ["grad", "staged", "unopt", "float32", "jvp", "hvp", "vjp_jvp", "third", "rebind"]


class Result:
    def __init__(self, kind, check=None, error=None, detail="", refusals=None, features=()):
        self.kind, self.check, self.error, self.detail = kind, check, error, detail
        self.refusals = refusals or []      # [(check, error class)]
        self.features = sorted(features)
        self.source = None

    def signature(self):
        """What groups failures of one cause: kind, check, error, message shape."""
        msg = self.detail.splitlines()[0] if self.detail else ""
        msg = re.sub(r"^\S*tad_fuzz_\w+\.py:\d+:\d+: ", "", msg)
        msg = re.sub(r"<tangent_ad [^>]*>:\d+:\d+: ", "", msg)
        msg = re.sub(r"\b(v|acc|c|w|z|e|tup|box|it|items|lst)\d+\b", r"\1N", msg)
        msg = re.sub(r"rebinding [\w,]+", "rebinding G", msg)
        msg = re.sub(r"\d+(\.\d+)?", "N", msg)
        if self.kind in ("wrong", "dtype"):
            msg = re.split(r":| is | for arg", msg)[0]
        return "%s/%s/%s: %s" % (self.kind, self.check, self.error or "", msg[:90])

    def __repr__(self):
        return "Result(%s, %s, %s, %r)" % (self.kind, self.check, self.error, self.detail[:200])


class Finding(Exception):
    """A failed check: kind in FAILURES."""

    def __init__(self, kind, check, detail, error=None):
        super().__init__(detail)
        self.kind, self.check, self.detail, self.error = kind, check, detail, error


class Refusal(Exception):
    pass


class Hang(BaseException):
    pass


class Invalid(Exception):
    pass


# ---- loading a program as a module (inspect needs a file) ----

_TMP = tempfile.mkdtemp(prefix="tad_fuzz_")
_COUNT = itertools.count()


def load(src):
    n = next(_COUNT)
    name = "tad_fuzz_%d_%d" % (os.getpid(), n)
    path = os.path.join(_TMP, name + ".py")
    with open(path, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---- pytrees of arguments ----

def leaves(x):
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in leaves(x[k])]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in leaves(item)]
    return [x]


def rebuild(x, values):
    """x's structure with its leaves replaced by `values` (an iterator)."""
    if isinstance(x, dict):
        return {k: rebuild(x[k], values) for k in sorted(x)}
    if isinstance(x, tuple):
        return tuple(rebuild(v, values) for v in x)
    if isinstance(x, list):
        return [rebuild(v, values) for v in x]
    return next(values)


def tmap(fn, x, *others):
    vals = [fn(*z) for z in zip(leaves(x), *(leaves(o) for o in others))]
    return rebuild(x, iter(vals))


def make_args(prog, rng, dtype=np.float64):
    cdtype = np.complex64 if dtype == np.float32 else np.complex128
    out = []
    for a in prog.args:
        def real(shape):
            if shape == ():
                return float(rng.uniform(-1.5, 1.5))
            return rng.uniform(-1.5, 1.5, size=shape).astype(dtype)
        if a.kind in ("float", "array"):
            out.append(real(a.shape))
        elif a.kind == "int":
            out.append(int(rng.integers(-2, 3)))
        elif a.kind == "intarray":
            out.append(rng.integers(-2, 3, size=a.shape))
        elif a.kind == "complex":
            out.append(complex(rng.uniform(-1, 1), rng.uniform(-1, 1)))
        elif a.kind == "carray":
            out.append((rng.uniform(-1, 1, a.shape) + 1j * rng.uniform(-1, 1, a.shape))
                       .astype(cdtype))
        else:
            vals = [real(s) for s in a.leaves]
            if a.kind == "dict":
                out.append({"a": vals[0], "b": vals[1]})
            else:
                out.append(vals if a.kind == "list" else tuple(vals))
    return out


def to64(x):
    """float64 (complex128) copy of an argument tree: ints become floats."""
    def leaf(v):
        if isinstance(v, np.ndarray):
            return v.astype(np.complex128 if np.iscomplexobj(v) else np.float64)
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            return float(v)
        return v
    return tmap(leaf, x)


def structure_problem(x, g):
    """Why gradient `g` does not have the type/structure/shape/dtype of `x`."""
    if isinstance(x, dict):
        if not isinstance(g, dict) or sorted(g) != sorted(x):
            return "dict argument got %s" % type(g).__name__
        for k in x:
            p = structure_problem(x[k], g[k])
            if p:
                return p
        return None
    if isinstance(x, (list, tuple)):
        if type(g) is not type(x) or len(g) != len(x):
            return "%s argument got %s" % (type(x).__name__, type(g).__name__)
        for a, b in zip(x, g):
            p = structure_problem(a, b)
            if p:
                return p
        return None
    if isinstance(x, complex) and not isinstance(x, np.generic):
        return None if isinstance(g, complex) else "complex argument got %s" % type(g).__name__
    if isinstance(x, (int, float)) and not isinstance(x, np.generic):
        if isinstance(g, float):
            return None
        return "%s argument got %s %s" % (type(x).__name__, type(g).__name__,
                                          getattr(g, "dtype", ""))
    if not isinstance(g, np.ndarray):
        return "ndarray argument %s got %s" % (x.shape, type(g).__name__)
    if g.shape != x.shape:
        return "ndarray argument %s got shape %s" % (x.shape, g.shape)
    want = np.dtype(np.float64) if x.dtype.kind in "iub" else x.dtype
    if g.dtype != want:
        return "%s argument got %s gradient" % (x.dtype, g.dtype)
    return None


def scalar(v):
    arr = np.asarray(v)
    if arr.size != 1 or np.iscomplexobj(arr):
        raise Invalid("f returned %r" % (v,))
    return float(arr.reshape(()))


def _lines_run(f, args):
    """The lines of f's module that ``f(*args)`` runs, in order."""
    filename = f.__code__.co_filename
    lines = []

    def trace(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return None
        if event == "line":
            lines.append(frame.f_lineno)
        return trace
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        f(*args)
    except Exception:
        pass
    finally:
        sys.settrace(previous)
    return lines


def numerical(f, args, j, eps, kinks=None):
    """Central differences of scalar f w.r.t. args[j] (float64 tree), in the
    convention df/dRe + i df/dIm for complex leaves. If `kinks` is a list,
    True is appended when a one-sided slope differs from the other (a kink
    at the point itself, e.g. a tie of np.maximum at an integer point,
    which central differences alone do not see)."""
    x = args[j]
    flat = leaves(x)
    grads = []
    base = scalar(f(*args)) if kinks is not None else None

    def slope(up, down):
        if kinks is not None:
            right, left = (up - base) / eps, (base - down) / eps
            if abs(right - left) > 1e-3 * (1.0 + abs(right) + abs(left)):
                kinks.append(True)
        return (up - down) / (2 * eps)
    for li, leaf in enumerate(flat):
        def at(new):
            vals = list(flat)
            vals[li] = new
            a = list(args)
            a[j] = rebuild(x, iter(vals))
            return scalar(f(*a))
        steps = [1.0, 1j] if np.iscomplexobj(leaf) else [1.0]
        if np.ndim(leaf) == 0:
            g = 0.0
            for st in steps:
                g = g + st * slope(at(leaf + st * eps), at(leaf - st * eps))
            grads.append(g)
            continue
        out = np.zeros_like(leaf)
        for idx in np.ndindex(leaf.shape):
            for st in steps:
                up, down = leaf.copy(), leaf.copy()
                up[idx] += st * eps
                down[idx] -= st * eps
                out[idx] += st * slope(at(up), at(down))
        grads.append(out)
    return rebuild(x, iter(grads))


def allclose(a, b, rtol, atol):
    la, lb = leaves(a), leaves(b)
    if len(la) != len(lb):
        return False
    for p, q in zip(la, lb):
        if np.shape(p) != np.shape(q):
            return False
        p, q = np.asarray(p), np.asarray(q)
        if p.dtype == object or q.dtype == object:
            return False
        if not np.allclose(p, q, rtol=rtol, atol=atol):
            return False
    return True


def magnitude(x):
    vals = [np.max(np.abs(v)) if np.size(v) else 0.0 for v in leaves(x)]
    return float(max(vals + [1.0]))


def inner(g, t):
    """<g, t> = Re(sum(conj(g) * t)) over a tree: the directional derivative."""
    return sum(float(np.real(np.sum(np.conj(np.asarray(a)) * np.asarray(b))))
               for a, b in zip(leaves(g), leaves(t)))


def random_like(x, rng):
    def leaf(v):
        shape = np.shape(v)
        if np.iscomplexobj(v):
            t = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
        else:
            t = rng.uniform(-1, 1, shape)
        return complex(t) if shape == () and np.iscomplexobj(v) else (
            float(t) if shape == () else t)
    return tmap(leaf, to64(x))


def axpy(a, x, y):
    """a * x + y over trees."""
    return tmap(lambda p, q: a * np.asarray(p) + np.asarray(q), x, y)


def _floated(x):
    """`x` with its integers (not bools) as float64, containers too."""
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_floated(v) for v in x)
    if isinstance(x, dict):
        return {k: _floated(v) for k, v in x.items()}
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        return x.astype(np.float64)
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return float(x)
    return x


def as_tuple(g, n):
    return tuple(g) if n > 1 else (g,)


# ---- running the checks ----

class Oracle:
    def __init__(self, prog, checks, keep=None, prune=False):
        self.prog, self.checks = prog, checks
        self.src = prog.source(keep, prune)
        self.refusals = []
        self.stage = "load"
        self.rng = np.random.default_rng(prog.seed)

    def guard(self, check, fn, *a, **kw):
        """Run one step of a check; classify what escapes."""
        self.stage = check
        try:
            return fn(*a, **kw)
        except (Finding, Hang, Invalid, Refusal):
            raise
        except tad.InternalError as e:
            raise Finding("internal", check, str(e).splitlines()[0], "InternalError")
        except tad.TangentADError as e:
            self.refusals.append((check, type(e).__name__, str(e).splitlines()[0]))
            raise Refusal(check)
        except RecursionError as e:
            raise Finding("crash", check, "RecursionError: %s" % e, "RecursionError")
        except Exception as e:
            raise Finding("crash", check, "%s: %s" % (type(e).__name__, str(e)[:300]),
                          type(e).__name__)

    def wrong(self, check, what):
        raise Finding("wrong", check, what)

    def struct(self, check, x, g, j, note=""):
        p = structure_problem(x, g)
        if p:
            raise Finding("dtype", check, "arg %d: %s%s" % (j, p, note))

    def primal(self, args):
        try:
            v = self.f(*args)
        except Exception as e:
            raise Invalid("%s: %s" % (type(e).__name__, e))
        v = scalar(v)
        if not np.isfinite(v) or abs(v) > 1e9:
            raise Invalid("f = %r (overflow)" % v)
        return v

    def fd_point(self, args, js, fn=None):
        """Finite differences of fn (default f) w.r.t. args[j] for j in js at a
        smooth point, or None near a kink."""
        fn = fn or self.f
        a64 = [to64(a) for a in args]
        out = []
        for j in js:
            kinks = []
            fd = numerical(fn, a64, j, 1e-6)
            fd2 = numerical(fn, a64, j, 1e-5, kinks)
            if kinks or not allclose(fd, fd2, 1e-4, 1e-6 * magnitude(fd)):
                return None
            out.append(fd)
        return out

    def fd_precise(self, args, j, fn=None):
        """Richardson-extrapolated central differences with a larger step:
        error O(h^4) and a rounding error 100x smaller than numerical's at
        1e-6, which matters where f is large (|f| 1e5 gives ~1e-5 noise).
        A mismatch with plain central differences is confirmed with it."""
        fn = fn or self.f
        a64 = [to64(a) for a in args]
        h = 1e-3
        coarse, fine = numerical(fn, a64, j, h), numerical(fn, a64, j, h / 2)
        return tmap(lambda c, f: (4 * np.asarray(f) - np.asarray(c)) / 3, coarse, fine)

    def on_branch_boundary(self, args, j, eps=1e-6):
        """Whether f takes another path (other lines of the program run)
        at a point that central differences step to than at `args`: an
        integer argument can sit exactly on a branch condition (``if
        np.sum(v) > 0`` at v = 0) where f is continuous, both sides take
        one branch, and the point itself the other. Every AD system
        differentiates the branch taken there, and differences see the
        other: not a wrong gradient."""
        a64 = [to64(a) for a in args]
        base = _lines_run(self.f, a64)
        flat = leaves(a64[j])
        for li, leaf in enumerate(flat):
            for step in ([eps, -eps, 1j * eps, -1j * eps] if np.iscomplexobj(leaf)
                         else [eps, -eps]):
                vals = list(flat)
                vals[li] = leaf + step
                moved = list(a64)
                moved[j] = rebuild(a64[j], iter(vals))
                if _lines_run(self.f, moved) != base:
                    return True
        return False

    def singular_point(self, gradient, args, j, fd, eps=1e-7):
        """Whether the gradient just beside `args` (arg j moved by +-eps
        as a whole) agrees with the differences at `args` where the
        gradient at `args` does not: an integer argument can sit exactly
        on an elementwise condition (``np.where(v > 0, ...)`` at v = 0,
        ``np.maximum`` at a tie) that no line of the program reveals, and
        the gradient there is that of the branch taken at that one point.
        The gradient at `args` must equal the one at the same point given
        as floats: a fault of integer arguments is still found."""
        a64 = [to64(a) for a in args]
        try:  # the same point as floats: a fault of int arguments is not excused
            at_point = as_tuple(gradient(*args), self.n)[j]
            as_floats = as_tuple(gradient(*a64), self.n)[j]
        except Exception:  # noqa: BLE001
            return False
        if not allclose(at_point, as_floats, 1e-9, 1e-12 * magnitude(at_point)):
            return False
        for step in (eps, -eps):
            moved = list(a64)
            moved[j] = tmap(lambda v: v + step, a64[j])
            try:
                beside = as_tuple(gradient(*moved), self.n)[j]
            except Exception:  # noqa: BLE001 - no gradient beside: not this case
                return False
            if not allclose(beside, fd, 1e-4, 1e-5 * magnitude(fd)):
                return False
        return True

    def agrees_with_fd(self, got, fd, args, j):
        """Whether gradient `got` matches central differences `fd` of f
        w.r.t. args[j], or, failing that, the precise differences."""
        tol = 1e-6 * magnitude(fd)
        return allclose(got, fd, 1e-5, tol) or allclose(got, self.fd_precise(args, j), 1e-5, tol)

    def run(self):
        prog = self.prog
        try:
            self.mod = load(self.src)
        except Exception as e:
            raise Invalid("load: %s: %s" % (type(e).__name__, e))
        f = self.f = self.mod.f
        n = self.n = len(prog.args)
        wrt = self.wrt = tuple(range(n))
        rng = self.rng
        points = [make_args(prog, rng)]
        points = self.points = [points[0], points[0]] + [make_args(prog, rng) for _ in range(2)]
        for args in points:
            self.primal(args)
        a0 = points[0]
        self.int_safe = abs(scalar(f(*a0)) - scalar(f(*[to64(a) for a in a0]))) < 1e-9 * (
            1 + abs(scalar(f(*a0))))

        # grad: structure and finite differences; staged: the dispatcher's
        # calls 2.. (a copy specialized to the argument kinds) agree
        g = self.g = self.guard("grad", tad.grad, f, wrt)
        general = self.general = getattr(g, "__wrapped__", g)
        staged = "staged" in self.checks
        if not staged:
            g = self.g = general
        self.want = []
        for args in points:
            want = as_tuple(self.guard("grad", general, *args), n)
            self.want.append(want)
            for j in range(n):
                self.struct("grad", args[j], want[j], j, " (general)")
            if not staged:
                continue
            got = as_tuple(self.guard("staged", g, *args), n)
            for j in range(n):
                self.struct("staged", args[j], got[j], j, " (staged)")
                scale = 1e-10 * magnitude(want[j])
                if not allclose(got[j], want[j], 1e-9, scale):
                    self.wrong("staged", "staged != general for arg %d: %r vs %r"
                               % (j, got[j], want[j]))
        if self.int_safe:
            checked = 0
            for attempt in range(6):
                args = points[0] if attempt == 0 else make_args(prog, rng)
                if attempt:
                    try:  # differences of an f near 1e9 are rounding, not slope
                        self.primal(args)
                    except Invalid:
                        continue
                fds = self.fd_point(args, wrt)
                if fds is None:
                    continue
                grads = as_tuple(self.guard("grad", general, *args), n)
                boundary = False
                for j in range(n):
                    if self.agrees_with_fd(grads[j], fds[j], args, j):
                        continue
                    if self.on_branch_boundary(args, j) or \
                            self.singular_point(general, args, j, fds[j]):
                        boundary = True  # like a kink: try another point
                        break
                    self.wrong("grad", "gradient != finite differences for arg %d: "
                               "%r vs %r" % (j, grads[j], fds[j]))
                if boundary:
                    continue
                checked += 1
                if checked == 2:
                    break
        for name in CHECKS[2:]:
            if name in self.checks:
                try:
                    getattr(self, "check_" + name)()
                except Refusal:
                    pass

    def check_unopt(self):
        g0 = self.guard("unopt", tad.grad, self.f, self.wrt, optimized=False)
        for args, want in zip(self.points[1:3], self.want[1:3]):
            got = as_tuple(self.guard("unopt", g0, *args), self.n)
            for j in range(self.n):
                self.struct("unopt", args[j], got[j], j)
                if not allclose(got[j], want[j], 1e-8, 1e-10 * magnitude(want[j])):
                    self.wrong("unopt", "optimized=False differs for arg %d: %r vs %r"
                               % (j, got[j], want[j]))

    def check_float32(self):
        prog = self.prog
        if not any(isinstance(v, np.ndarray) and v.dtype.kind in "fc"
                   for a in self.points[0] for v in leaves(a)):
            return
        for _ in range(2):
            args = make_args(prog, self.rng, np.float32)
            got = as_tuple(self.guard("float32", self.g, *args), self.n)
            got2 = as_tuple(self.guard("float32", self.g, *args), self.n)
            want = as_tuple(self.guard("float32", self.general, *[to64(a) for a in args]),
                            self.n)
            # compare values only where float32 arithmetic itself is accurate
            # (f in float32 close to f in float64): elsewhere rounding, not
            # the derivative, decides the digits
            v32, v64 = scalar(self.f(*args)), scalar(self.f(*[to64(a) for a in args]))
            conditioned = abs(v32 - v64) <= 1e-5 * (1.0 + abs(v64))
            for j in range(self.n):
                self.struct("float32", args[j], got[j], j)
                self.struct("float32", args[j], got2[j], j, " (second call)")
                if conditioned and not allclose(got[j], want[j], 2e-2,
                                                1e-3 * magnitude(want[j])) \
                        and self.gradient_conditioned(args, j, want[j]):
                    self.wrong("float32", "float32 gradient far from float64 for arg %d: "
                               "%r vs %r" % (j, got[j], want[j]))

    def gradient_conditioned(self, args, j, want, trials=4):
        """Whether the float64 gradient stays within 1e-3 when the inputs
        move by float32 rounding (relative 6e-8): only then can a float32
        gradient be expected near it. A gradient that amplifies input
        rounding (cancellation, a large sin argument) moves by percent in
        float64 too, and its float32 digits are rounding, not a rule."""
        a64 = [to64(a) for a in args]
        for _ in range(trials):
            moved = [tmap(self._rounded, a) if i in self.wrt else a
                     for i, a in enumerate(a64)]
            try:
                other = as_tuple(self.general(*moved), self.n)[j]
            except Exception:
                return True
            if not allclose(other, want, 1e-3, 1e-4 * magnitude(want)):
                return False
        return True

    def _rounded(self, v):
        if np.asarray(v).dtype.kind not in "fc":
            return v
        return v * (1 + 6e-8 * self.rng.standard_normal(np.shape(v)))

    def check_jvp(self):
        J = self.guard("jvp", tad.jvp, self.f, self.wrt)
        for args, want in zip(self.points[2:], self.want[2:]):
            ts = [random_like(a, self.rng) for a in args]
            value, tangent = self.guard("jvp", J, *args, *ts)
            # an integer wrt argument is differentiated, and evaluated, as a
            # float (docs/supported-python.md): compare with f on floats
            at = [_floated(a) if i in self.wrt else a for i, a in enumerate(args)]
            if not np.allclose(value, self.f(*at), rtol=1e-9, atol=1e-12):
                self.wrong("jvp", "jvp value %r != f %r" % (value, self.f(*at)))
            expect = sum(inner(want[j], ts[j]) for j in range(self.n))
            scale = max(1.0, sum(magnitude(w) * magnitude(t) for w, t in zip(want, ts)))
            if np.ndim(tangent) != 0 or not np.isclose(tangent, expect, rtol=1e-7,
                                                       atol=1e-9 * scale):
                self.wrong("jvp", "jvp tangent %r != <grad, t> %r" % (tangent, expect))

    def second_order_arg(self):
        for j, a in enumerate(self.prog.args):
            if a.kind in ("array", "float") and not self.prog.complex_mode:
                return j
        return None

    def grad_j(self, j):
        general = self.general
        n = self.n
        return lambda *args: as_tuple(general(*args), n)[j]

    def fd_directional(self, fn, args, j, v):
        """(fn(x + e v) - fn(x - e v)) / 2e for tree-valued fn, or None at a kink."""
        out = []
        for eps in (1e-5, 1e-4):
            a1, a2 = list(args), list(args)
            a1[j] = axpy(eps, v, args[j])
            a2[j] = axpy(-eps, v, args[j])
            up, down = fn(*a1), fn(*a2)
            out.append(tmap(lambda p, q: (np.asarray(p) - np.asarray(q)) / (2 * eps), up, down))
        if not allclose(out[0], out[1], 1e-3, 1e-5 * magnitude(out[0])):
            return None
        return out[0]

    def hvp_setup(self):
        if getattr(self, "_hvp", None) is None:
            j = self.second_order_arg()
            if j is None:
                self._hvp = False
                return False
            args = self.points[2]
            v = random_like(args[j], self.rng)
            fd = self.fd_directional(self.grad_j(j), args, j, v)
            self._hvp = (j, args, v, fd)
        return self._hvp

    def check_hvp(self):
        setup = self.hvp_setup()
        if not setup:
            return
        j, args, v, fd = setup
        H = self.guard("hvp", tad.hvp, self.f, j)
        hv = self.guard("hvp", H, *args, v)
        self.struct("hvp", args[j], hv, j)
        if fd is not None and not allclose(hv, fd, 1e-4, 1e-5 * magnitude(fd)):
            self.wrong("hvp", "hvp %r != finite differences of grad %r" % (hv, fd))

    def check_vjp_jvp(self):
        setup = self.hvp_setup()
        if not setup:
            return
        j, args, v, fd = setup
        G2 = self.guard("vjp_jvp", tad.vjp, self.guard("vjp_jvp", tad.jvp, self.f, j), j)
        cv, ct = 0.7, -1.3
        got = self.guard("vjp_jvp", G2, *args, v, (cv, ct))
        self.struct("vjp_jvp", args[j], got, j)
        if fd is not None:
            expect = axpy(cv, self.grad_j(j)(*args), axpy(ct, fd, tmap(lambda p: 0 * p, fd)))
            if not allclose(got, expect, 1e-4, 1e-5 * magnitude(expect)):
                self.wrong("vjp_jvp", "vjp(jvp(f)) %r != cv*grad + ct*Hv %r" % (got, expect))
        self._g2 = (G2, j, args, v, (cv, ct))

    def check_third(self):
        if getattr(self, "_g2", None) is None:
            return
        G2, j, args, v, seed = self._g2
        T = self.guard("third", tad.jvp, G2, j)
        u = random_like(args[j], self.rng)
        value, tangent = self.guard("third", T, *args, v, seed, u)
        self.struct("third", args[j], tangent, j)
        fd = self.fd_directional(lambda *a: G2(*a[:-2], a[-2], a[-1]),
                                 list(args) + [v, seed], j, u)
        if fd is not None and not allclose(tangent, fd, 1e-4, 1e-5 * magnitude(fd)):
            self.wrong("third", "jvp(vjp(jvp(f))) %r != finite differences %r" % (tangent, fd))

    def check_rebind(self):
        body = self.src.split("\ndef f(")[-1]
        used = [k for k in REBIND if re.search(r"\b%s\b" % k, body)]
        if not used or not self.int_safe:
            return
        old = {k: getattr(self.mod, k) for k in used}
        try:
            for k in used:
                setattr(self.mod, k, eval(REBIND[k], self.mod.__dict__))
            args = self.points[0]
            self.primal(args)
            fds = self.fd_point(args, self.wrt)
            got = as_tuple(self.guard("rebind", self.g, *args), self.n)
            fresh = as_tuple(self.guard("rebind", tad.grad(self.f, self.wrt), *args), self.n)
            if fds is None:
                return
            for j in range(self.n):
                if not self.agrees_with_fd(got[j], fds[j], args, j):
                    self.wrong("rebind", "after rebinding %s the gradient of arg %d is %r, "
                               "finite differences say %r" % (",".join(used), j, got[j], fds[j]))
                if not self.agrees_with_fd(fresh[j], fds[j], args, j):
                    self.wrong("rebind", "after rebinding %s a new tad.grad gives %r for "
                               "arg %d, finite differences say %r"
                               % (",".join(used), fresh[j], j, fds[j]))
        finally:
            for k, v in old.items():
                setattr(self.mod, k, v)


# How often each check runs in a sampled run (transformations cost ~0.3-1 s
# each, third order several): grad always, the others on a share of the
# programs, chosen from the seed so that a seed always runs the same checks.
SAMPLE = {"unopt": 0.4, "float32": 0.5, "jvp": 0.4, "hvp": 0.3, "vjp_jvp": 0.2,
          "third": 0.1, "rebind": 0.5}


def schedule(seed, level="sample"):
    """The checks a program runs: level full (all), sample (grad, staged and a
    share of the others) or quick (grad, staged for even seeds, and for one
    program in three one other check)."""
    if level == "full":
        return list(CHECKS)
    rnd = np.random.default_rng([seed, 7])
    if level == "quick":
        picked = ["grad"] + (["staged"] if seed % 2 == 0 else [])
        if seed % 3 == 0:
            extra = CHECKS[2 + (seed // 3) % (len(CHECKS) - 2)]
            picked += (["hvp", "vjp_jvp"] if extra == "third" else []) + [extra]
        return [c for c in CHECKS if c in picked]
    picked = ["grad", "staged"] + [c for c in CHECKS[2:] if rnd.random() < SAMPLE[c]]
    if "third" in picked and "vjp_jvp" not in picked:
        picked.append("vjp_jvp")
    return [c for c in CHECKS if c in picked]


# Open causes the issues track, by what a minimized failing program still
# has (its features, or the failing check); `tracked_reason` names them so a
# known failure can be marked xfail with the issue that tracks it.
TRACKED = {
    "decorated_f": "issue 12: a functools.wraps decorator is ignored",
    "helper_dec": "issue 12: a functools.wraps decorator is ignored",
    "negpow": "issue 19 #1: (-c) ** k emitted as -c ** k",
    "helper_pow": "issue 19 #1: (-c) ** k emitted as -c ** k",
    "rebinditer": "issue 19 #3: a loop over an iterable its body rebinds",
    "ifexp_rebind": "issue 20: a conditional expression that rebinds its operand",
    "alias": "issue 20: in-place writes through an alias, a view or a helper",
    "share": "issue 12: one container passed to two helpers",
    "container_arg": "issue 12: one container passed to two helpers",
    "tuple": "issue 12: tuple concatenation and repetition",
    "int": "issue 12: integer inputs",
    "empty": "issue 19 #4: empty bodies",
    "gradcode": "issue 19 #4: a body left empty by insert_grad_code",
    "early_return": "issue 20: returns inside loops and nested ifs",
    "reshape_param": "issue 20: a helper rebinds its parameter to another shape",
    "f64const": "issue 19 #5: float64 constants with float32 arguments",
    "global": "issue 12: live globals",
}
TRACKED_CHECKS = {
    ("dtype", "float32"): "issue 19 #5: float32 in, float64 out",
    ("wrong", "rebind"): "issue 12: live globals",
    ("hang", None): "issue 19 #2: a transformation that never ends",
}


def tracked_reason(kind, check, features):
    """The issues that track a failure of `kind` in `check` by a program
    whose minimized form has `features`, or None."""
    reasons = []
    for (k, c), why in TRACKED_CHECKS.items():
        if k == kind and c in (None, check):
            reasons.append(why)
    for f in sorted(features):
        if f in TRACKED and TRACKED[f] not in reasons:
            reasons.append(TRACKED[f])
    return "; or ".join(reasons) or None


def _alarm(signum, frame):
    raise Hang()


def run_program(prog, checks=CHECKS, keep=None, timeout=30, prune=False):
    """Run the checks on `prog` (its blocks `keep`; with `prune`, only the
    header definitions f reaches); a :class:`Result`."""
    oracle = Oracle(prog, checks, keep, prune)
    # the budget is CPU time (ITIMER_PROF), not wall time: the machine is
    # shared, and a slow neighbour must not turn a program into a "hang"
    old = signal.signal(signal.SIGPROF, _alarm) if timeout else None
    if timeout:
        signal.setitimer(signal.ITIMER_PROF, timeout)
    try:
        oracle.run()
        res = Result("refused" if oracle.refusals else "pass")
    except Refusal:
        res = Result("refused")
    except Finding as e:
        res = Result(e.kind, e.check, e.error, e.detail)
    except Invalid as e:
        res = Result("invalid", detail=str(e))
    except Hang:
        res = Result("hang", oracle.stage, detail="over %d s of CPU" % timeout)
    except RecursionError as e:
        res = Result("crash", None, "RecursionError", str(e))
    finally:
        if timeout:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, old)
    res.refusals = oracle.refusals
    res.features = sorted(prog.features if keep is None else prog.features_of(keep))
    res.source = oracle.src
    if res.kind == "refused" and oracle.refusals:
        res.check, res.error, res.detail = oracle.refusals[0]
    return res


QUICK_STATEMENTS = (2, 4)


def run(seed, checks=None, timeout=30, level="sample"):
    """Generate and judge the program of `seed`; the quick level writes
    smaller programs (QUICK_STATEMENTS) to keep the default test run short."""
    checks = schedule(seed, level) if checks is None else checks
    size = QUICK_STATEMENTS if level == "quick" else (3, 7)
    return run_program(generate(seed, size), checks, timeout=timeout)


def minimize(prog, result, checks=CHECKS, timeout=30, budget=40):
    """Drop blocks of `prog` while the failure keeps its kind and check;
    returns (kept block indices, the last failing Result)."""
    keep = list(range(len(prog.blocks)))
    best = result
    tried = 0
    changed = True
    while changed and tried < budget:
        changed = False
        for i in reversed(range(len(keep))):
            if tried >= budget:
                break
            cand = keep[:i] + keep[i + 1:]
            tried += 1
            r = run_program(prog, checks, cand, timeout)
            if r.kind == result.kind and r.check == result.check:
                keep, best, changed = cand, r, True
    r = run_program(prog, checks, keep, timeout, prune=True)
    if r.kind == result.kind and r.check == result.check:
        best = r
    return keep, best
