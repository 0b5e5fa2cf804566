"""Random Python/NumPy programs for the differential fuzzer.

`generate(seed)` returns a :class:`Program`: a module (globals, helpers,
decorators) and a function ``f`` of 1-3 arguments built from random
statements. The shapes it writes are the ones that found bugs before (issues
12, 19, 20): helpers that share one list/tuple/dict, tuple concatenation and
repetition, module globals (read, and rebound between calls by the oracle),
``functools.wraps`` decorators, negative constants and powers with loop
indices, loops that rebind what they iterate, ``pass`` bodies, float64
constants meeting float32 arguments, conditional expressions that rebind
their operand, returns inside loops and nested ifs, chained assignments,
in-place writes through aliases and views, integer and complex arguments.

The function body is a list of blocks (one generated statement each) so that
`Program.source(keep)` can drop blocks when a failure is minimized; the
``return`` line is rebuilt from the variables the kept blocks define.

The oracle that runs a program lives in ``fuzz_oracle.py``.
"""
import itertools
import random
import re

HEADER = '''import functools

import numpy as np

import tangent_ad as tad

G_SCALE = 0.7
G_NEG = -1.5
G_VEC = np.array([0.5, -1.0, 2.0])
G_FLAG = True


def scaled(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return 1.5 * fn(*args)
    return wrapper


def shifted(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        out = fn(*args)
        return out * 0.5 + 0.25
    return wrapper


def act(u):
    return np.tanh(u)


def act_alt(u):
    return np.sin(u) * 1.5


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


def helper_pow(a, n=2):
    return a * (-2.0) ** n


@scaled
def helper_dec(u):
    return np.sin(u) + u


def first_of(p):
    return np.sin(p[0]) * 2.0


def second_of(p):
    return p[1] * p[1] + np.sum(p[0]) * 0.1


def key_a(d):
    return np.tanh(d["a"])


def key_b(d):
    return d["b"] * 0.5 + np.sum(d["a"] * d["a"])


def deep_of(q):
    return np.sum(first_of(q[0])) + np.sum(q[1]) * np.sum(second_of(q[0]))


def helper_ret(u):
    for i in range(3):
        if np.sum(u) > 0.5:
            if i >= 1:
                return u * 2.0
            u = u * 0.5
        u = u + 0.25
    return np.sin(u)


def helper_tworet(u):
    for i in range(3):
        u = u * 0.9 + 0.1
        if np.sum(u) > 1.0:
            return u
        if np.sum(u) < -1.0:
            return u * 3.0
    return u


def helper_early(v):
    if np.sum(v) > 0.0:
        v = 1.5 + np.tanh(v)
        return v * 2.0
    return v * 1.0


def helper_rec(u, n=2):
    if n == 0:
        return 0.5  # a base case with a zero adjoint: its pullback returns no back
    return np.sin(u) * helper_rec(u, n - 1) + u


def helper_gate(u):
    if np.sum(u) > 0.0:
        return np.tanh(u) * u
    return np.ones_like(u)  # the zero way is the last one


def helper_reshape(t):
    t = np.sum(t)
    return t * t


def scale_first_(y):
    y[0] = y[0] * 2.0


def helper_c(u, v):
    return u * np.conj(v) + 0.5 * u
'''

# Globals the oracle rebinds between calls (name -> new value source).
REBIND = {
    "G_SCALE": "1.3",
    "G_NEG": "-0.4",
    "G_VEC": "np.array([1.5, 0.25, -0.5])",
    "G_FLAG": "False",
    "act": "act_alt",
}

ARG_SHAPES = [(), (3,), (3, 3), (2, 3)]
UNARY = ["np.sin({0})", "np.exp(np.sin({0}))", "np.exp(0.3 * {0})", "np.tanh({0})",
         "np.log(np.abs({0}) + 1.0)", "np.sqrt({0} * {0} + 1.0)", "({0}) ** 2",
         "(-{0}) ** 2", "-{0} ** 2", "({0} * (-1.5) ** 2)", "act({0})",
         "helper_dec({0})", "helper_pow({0})", "helper_ret({0})", "helper_tworet({0})",
         "helper_early({0})", "np.float_power(np.abs({0}) + 0.5, 2.0)", "({0} - np.sum(1))",
         "helper_rec({0})", "helper_gate({0})"]
UNARY_C = ["np.sin({0})", "np.exp(0.3 * {0})", "({0}) ** 2", "np.conj({0})",
           "({0} * (0.5 - 1j))", "(-{0}) ** 2", "helper_dec({0})", "helper_pow({0})"]


def unary_feature(form):
    """The feature name of a UNARY form: its function, or the kind of power."""
    if "**" in form:
        return "negpow" if "-" in form else "square"
    return form.split("(")[0]


def _bshape(a, b):
    if a is None or b is None:
        return None
    try:
        n = max(len(a), len(b))
        a2, b2 = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
        out = []
        for p, q in zip(a2, b2):
            if p != q and 1 not in (p, q):
                return None
            out.append(max(p, q))
        return tuple(out)
    except TypeError:
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


class Arg:
    """One argument of f: kind is float, array, int, intarray, complex,
    carray (complex array), list, tuple or dict; leaves are the shapes of a
    container's two entries."""

    def __init__(self, name, kind, shape=(), leaves=None):
        self.name, self.kind, self.shape, self.leaves = name, kind, shape, leaves

    def __repr__(self):
        return "Arg(%r, %r, %r, %r)" % (self.name, self.kind, self.shape, self.leaves)


class Program:
    def __init__(self, seed, args, blocks, returns, decorated, complex_mode, features):
        self.seed = seed
        self.args = args
        self.blocks = blocks          # list of (lines, {name: shape}, features)
        self.base_vars = returns      # {name: shape} visible before any block
        self.decorated = decorated
        self.complex_mode = complex_mode
        self.features = features

    def features_of(self, keep):
        """The features of the kept blocks (what a minimized failure still has)."""
        out = {"decorated_f"} if self.decorated else set()
        for i in keep:
            out |= set(self.blocks[i][2] if len(self.blocks[i]) > 2 else ())
        return out

    def term(self, name):
        if self.complex_mode:
            return "np.sum(np.abs(%s) ** 2) * 0.1 + np.sum(np.real(%s))" % (name, name)
        return "np.sum(np.sin(%s))" % name

    def source(self, keep=None, prune=False):
        """The module's source with the blocks `keep` (default all); with
        `prune`, only the header definitions that f reaches."""
        keep = range(len(self.blocks)) if keep is None else keep
        body, names = [], dict(self.base_vars)
        for i in keep:
            lines, defines = self.blocks[i][:2]
            body.extend(lines)
            names.update(defines)
        body.append("    return " + " + ".join(self.term(n) for n in names))
        head = "def f(%s):" % ", ".join(a.name for a in self.args)
        deco = "@shifted\n" if self.decorated else ""
        func = deco + head + "\n" + "\n".join(body) + "\n"
        return (pruned_header(func) if prune else HEADER) + "\n\n" + func


def _header_chunks():
    """The header's definitions: (name defined, text)."""
    out = []
    for c in re.split(r"\n\s*\n", HEADER.strip("\n")):
        c = c.strip("\n")
        if c.startswith(("import", "from")):
            out.append((None, c))
            continue
        names = re.findall(r"^(?:def )?(\w+)", c, re.M)
        out.append(("|".join(n for n in names if n not in ("return",)), c))
    return out


def pruned_header(func):
    """HEADER without the definitions `func` does not reach (transitively)."""
    chunks = _header_chunks()
    text, kept = func, set()
    changed = True
    while changed:
        changed = False
        for i, (name, c) in enumerate(chunks):
            if i in kept:
                continue
            if name is None or re.search(r"\b(%s)\b" % name, text):
                kept.add(i)
                text += "\n" + c
                changed = True
            elif name == "act_alt" and re.search(r"\bact\b", text):
                kept.add(i)
                text += "\n" + c
                changed = True
    return "\n\n".join(c for i, (n, c) in enumerate(chunks) if i in kept) + "\n"


class Generator:
    def __init__(self, seed, statements=(3, 7)):
        self.seed = seed
        self.statements = statements
        self.r = random.Random(seed)
        self.vars = {}      # visible name -> shape
        self.lines = []
        self.count = itertools.count()
        self.features = set()
        self.cplx = self.r.random() < 0.1
        # the extra shapes (syntax_extra) draw from their own stream, so that
        # adding them left every other statement of a seed as it was
        self.rs = random.Random(seed + 1_000_003)

    def fresh(self, prefix="v"):
        return "%s%d" % (prefix, next(self.count))

    def var(self, pred=lambda s: True):
        names = [n for n, s in self.vars.items() if pred(s)]
        return self.r.choice(names) if names else None

    def cond(self, v):
        if self.cplx:
            return "np.sum(np.real(%s))" % v
        return "np.sum(%s)" % v

    # ---- expressions: (code, shape) ----
    def leaf(self):
        r = self.r
        p = r.random()
        if p < 0.07:
            return repr(round(r.uniform(0.5, 1.5), 2)), ()
        if p < 0.11:
            self.features.add("negconst")
            return repr(-round(r.uniform(0.5, 1.5), 2)), ()
        if p < 0.15:
            self.features.add("global")
            return r.choice(["G_SCALE", "G_NEG"]), ()
        if p < 0.18:
            self.features.add("global")
            return "G_VEC", (3,)
        if p < 0.20 and self.cplx:
            return "(0.5 + 1j)", ()
        n = self.var()
        return n, self.vars[n]

    def expr(self, depth=2):
        r = self.r
        if depth == 0 or r.random() < 0.25:
            return self.leaf()
        choice = r.randrange(12)
        a, sa = self.expr(depth - 1)
        if choice <= 2:
            u = r.choice(UNARY_C if self.cplx else UNARY)
            self.features.add(unary_feature(u))
            code = u.format(a)
            return (code if code.startswith("np.") else "(%s)" % code), sa
        if choice <= 4:
            b, sb = self.expr(depth - 1)
            s = _bshape(sa, sb)
            if s is None:
                b, s = "np.sum(%s)" % b, sa
            op = r.choice(["+", "-", "*", "/"])
            if op == "/":
                if self.cplx:
                    return "(%s / (np.abs(%s) ** 2 + 1.0))" % (a, b), s
                return "(%s / (%s * %s + 1.0))" % (a, b, b), s
            return "(%s %s %s)" % (a, op, b), s
        if choice == 5 and sa:
            if r.random() < 0.5:
                return "np.sum(%s)" % a, ()
            axis = r.randrange(len(sa))
            fn = r.choice(["np.sum", "np.mean"])
            return "%s(%s, axis=%d)" % (fn, a, axis), sa[:axis] + sa[axis + 1:]
        if choice == 6:
            b, sb = self.expr(depth - 1)
            s = _matmul_shape(sa, sb) if len(sa) <= 2 and len(sb) <= 2 else None
            if s is not None:
                return "(%s @ %s)" % (a, b), s
            return a, sa
        if choice == 7 and sa:
            if len(sa) == 2 and r.random() < 0.5:
                return "%s[:, %d]" % (a, r.randrange(sa[1])), (sa[0],)
            if r.random() < 0.5:
                return "%s[1:]" % a, (sa[0] - 1,) + sa[1:]
            return "%s[%d]" % (a, r.randrange(sa[0])), sa[1:]
        if choice == 8 and not self.cplx:
            b, sb = self.expr(depth - 1)
            c, sc = self.expr(0)
            s = _bshape(_bshape(sa, sb), sc)
            if s is None:
                return a, sa
            k = r.random()
            if k < 0.4:
                return "np.where(%s > 0, %s, %s)" % (a, b, c), s
            if k < 0.7 and sb == sc:
                self.features.add("ifexp")
                return "(%s if np.sum(%s) > 0.2 else %s)" % (b, a, c), sb
            return "np.maximum(%s, %s)" % (b, c), _bshape(sb, sc)
        if choice == 9 and not self.cplx and self.r.random() < 0.2:
            self.features.add("reshape_param")
            return "helper_reshape(%s)" % a, ()
        if choice == 9:
            self.features.add("f64const")
            if _bshape(sa, (3,)) is not None and r.random() < 0.6:
                return "(%s + np.array([0.5, -0.25, 1.0]))" % a, _bshape(sa, (3,))
            return "(%s * np.float64(1.25))" % a, sa
        b, sb = self.expr(0)
        s = _bshape(sa, sb)
        if s is None:
            return a, sa
        if self.cplx:
            return "helper_c(%s, %s)" % (a, b), s
        return "helper_mix(%s, %s)" % (a, b), s

    def fit(self, target, depth=2):
        """An expression whose shape broadcasts to `target`."""
        code, s = self.expr(depth)
        if _bshape(s, target) != target:
            code = "np.sum(%s)" % code
        return code

    # ---- statements ----
    def emit(self, line, indent=1):
        self.lines.append("    " * indent + line)

    def define(self, name, shape):
        self.vars[name] = shape
        self.defined[name] = shape

    # statement kinds and their weights: constructs that are often refused
    # (a refusal masks the rest of the program) are drawn less often
    KINDS = {"assign": 3, "reassign": 1, "for": 1, "if": 1, "while": 1, "helper": 1,
             "append": 1, "literal": 1, "unpack": 1, "copywrite": 1, "share": 1.5,
             "tuplearith": 1, "rebinditer": 1, "empty": 1, "gradcode": 0.5,
             "ifexp_rebind": 1, "early_return": 0.4, "chained": 0.3, "alias": 1,
             "global_flag": 1, "negpow": 1}
    COMPLEX_KINDS = {"assign": 3, "reassign": 1, "for": 1, "helper": 1, "literal": 1,
                     "unpack": 1, "copywrite": 1, "tuplearith": 1, "empty": 1,
                     "chained": 0.3, "negpow": 1, "share": 1}

    def statement(self):
        table = self.COMPLEX_KINDS if self.cplx else self.KINDS
        kind = self.r.choices(list(table), weights=list(table.values()))[0]
        getattr(self, "st_" + kind)()

    def st_assign(self):
        code, s = self.expr()
        name = self.fresh()
        self.emit("%s = %s" % (name, code))
        self.define(name, s)

    def st_reassign(self):
        name = self.var()
        s = self.vars[name]
        self.emit("%s = %s * 2.0 + %s" % (name, name, self.fit(s, 1)))
        self.define(name, s)

    def st_for(self):
        r = self.r
        src = self.var()
        acc, s = self.fresh("acc"), self.vars[src]
        self.emit("%s = %s" % (acc, src))
        self.emit("for i in range(%d):" % r.randint(2, 3))
        if r.random() < 0.5 and not self.cplx:
            self.emit("if i % 2 == 0:", 2)
            self.emit("%s = %s * 0.5 + np.tanh(%s)" % (acc, acc, self.fit(s)), 3)
            self.emit("else:", 2)
            self.emit("%s = %s * %s" % (acc, acc, self.fit(s, 1)), 3)
        else:
            self.emit("%s = %s * 0.5 + np.sin(%s) * i" % (acc, acc, self.fit(s)), 2)
        self.define(acc, s)

    def st_negpow(self):
        r = self.r
        self.features.add("negpow")
        src = self.var()
        acc, s = self.fresh("acc"), self.vars[src]
        base = r.choice(["(-1.5)", "(-1.2)", "(-0.5)", "G_NEG"])
        self.emit("%s = %s * 1.0" % (acc, src))
        self.emit("for i in range(%d):" % r.randint(1, 3))
        self.emit("%s = %s ** i * %s + %s" % (acc, base, acc, self.fit(s, 1)), 2)
        self.define(acc, s)

    def st_if(self):
        name, v = self.fresh(), self.var()
        a, sa = self.expr()
        b = self.fit(sa)
        self.emit("if %s > 0:" % self.cond(v))
        self.emit("%s = %s" % (name, a), 2)
        self.emit("else:")
        self.emit("%s = %s * 0.5 + %s" % (name, a, b), 2)
        self.define(name, sa)

    def st_while(self):
        src = self.var()
        acc, s = self.fresh("acc"), self.vars[src]
        self.emit("%s = %s * 0.5 + %s" % (acc, src, self.fit(s, 1)))
        self.emit("k = 0")
        self.emit("while k < %d:" % self.r.randint(1, 3))
        self.emit("%s = np.tanh(%s) + %s * 0.5" % (acc, acc, self.fit(s, 1)), 2)
        self.emit("k += 1", 2)
        self.define(acc, s)

    def st_helper(self):
        name = self.fresh()
        a, s = self.expr(1)
        if self.r.random() < 0.5:
            self.emit("%s = helper_loop(%s, %d)" % (name, a, self.r.randint(1, 3)))
            self.define(name, s)
        else:
            other = self.fresh()
            self.emit("%s, %s = helper_pair(%s)" % (name, other, a))
            self.define(name, s)
            self.define(other, s)

    def st_append(self):
        lst, name = self.fresh("lst"), self.fresh()
        a, s = self.expr(1)
        self.emit("%s = []" % lst)
        self.emit("for i in range(3):")
        self.emit("%s.append(%s * (i + 1.0))" % (lst, a), 2)
        if self.r.random() < 0.5:
            self.emit("%s = np.stack(%s)" % (name, lst))
            self.define(name, (3,) + s)
        else:
            self.emit("%s = sum(%s)" % (name, lst))
            self.define(name, s)

    def st_literal(self):
        name = self.fresh()
        a, s = self.expr(1)
        b = self.fit(s, 1)
        if self.r.random() < 0.5:
            self.emit("%s = np.stack([%s, %s + 0.0 * %s])" % (name, a, b, a))
            self.define(name, (2,) + s)
        else:
            self.emit("%s = sum([%s, %s + 0.0 * %s])" % (name, a, b, a))
            self.define(name, s)

    def st_unpack(self):
        p, q = self.fresh(), self.fresh()
        a, sa = self.expr(1)
        b, sb = self.expr(1)
        self.emit("%s, %s = %s, %s" % (p, q, a, b))
        self.define(p, sa)
        self.define(q, sb)

    def st_copywrite(self):
        src = self.var(lambda t: len(t) >= 1)
        if src is None:
            return self.st_assign()
        s = self.vars[src]
        name = self.fresh("c")
        self.emit("%s = np.copy(%s)%s" % (name, src, " + 0j" if self.cplx else ""))
        if self.r.random() < 0.5:
            self.emit("%s[%d] = %s" % (name, self.r.randrange(s[0]), self.fit(s[1:])))
        else:
            self.emit("for i in range(%d):" % s[0])
            self.emit("%s[i] = %s[i] * %s" % (name, name, self.fit(s[1:], 1)), 2)
        self.define(name, s)

    def st_share(self):
        """One container passed to two (or nested) helpers."""
        r = self.r
        self.features.add("share")
        a, sa = self.expr(1)
        b, sb = self.expr(1)
        c, v = self.fresh("box"), self.fresh()
        k = r.randrange(4)
        if k == 0:
            self.emit("%s = [%s, %s]" % (c, a, b))
        elif k == 1:
            self.emit("%s = (%s, %s)" % (c, a, b))
        if k <= 1:
            self.emit("%s = np.sum(first_of(%s)) + np.sum(second_of(%s))" % (v, c, c))
        elif k == 2:
            self.emit('%s = {"a": %s, "b": %s}' % (c, a, b))
            self.emit("%s = np.sum(key_a(%s)) + np.sum(key_b(%s))" % (v, c, c))
        else:
            inner = self.fresh("box")
            self.emit("%s = [%s, %s]" % (inner, a, b))
            self.emit("%s = [%s, %s]" % (c, inner, a))
            self.emit("%s = deep_of(%s) + np.sum(first_of(%s))" % (v, c, inner))
        self.define(v, ())

    def st_tuplearith(self):
        r = self.r
        self.features.add("tuple")
        a, sa = self.expr(1)
        b = self.fit(sa, 1)
        t, v = self.fresh("tup"), self.fresh()
        self.emit("%s = (%s,) + (%s,)" % (t, a, b))
        k = r.randrange(3)
        if k == 0:
            self.emit("%s = %s[0] * %s[1]" % (v, t, t))
        elif k == 1:
            self.emit("%s = %s * 2" % (t, t))
            self.emit("%s = %s[0] - %s[3] * 0.5 + %s[1] * %s[2]" % (v, t, t, t, t))
        else:
            self.emit("%s = %s + (%s * 3.0,)" % (t, t, a))
            self.emit("%s = %s[2] * %s[0] + %s[1]" % (v, t, t, t))
        self.define(v, sa)

    def st_rebinditer(self):
        r = self.r
        self.features.add("rebinditer")
        acc = self.fresh("acc")
        src = self.var(lambda t: len(t) >= 1)
        if src is not None and r.random() < 0.6:
            s = self.vars[src]
            it = self.fresh("it")
            self.emit("%s = %s * 1.0" % (it, src))
            self.emit("%s = 0.0" % acc)
            self.emit("for row in %s:" % it)
            self.emit("%s = %s * 0.5" % (it, it), 2)
            self.emit("%s = %s + np.sum(row * row)" % (acc, acc), 2)
            self.define(it, s)
        else:
            a, sa = self.expr(1)
            b = self.fit(sa, 1)
            items = self.fresh("items")
            self.emit("%s = [%s, %s]" % (items, a, b))
            self.emit("%s = 0.0" % acc)
            self.emit("for item in %s:" % items)
            self.emit("%s = %s + [item * 0.5]" % (items, items), 2)
            self.emit("%s = %s + np.sum(item)" % (acc, acc), 2)
            self.emit("%s = %s + np.sum(%s[-1])" % (acc, acc, items))
        self.define(acc, ())

    def st_empty(self):
        r = self.r
        self.features.add("empty")
        k = r.randrange(3)
        if k == 0:
            self.emit("for i in range(2):")
            self.emit("pass", 2)
        elif k == 1:
            v, name = self.var(), self.fresh()
            a, sa = self.expr(1)
            self.emit("%s = %s" % (name, a))
            self.emit("if %s > 0.5:" % self.cond(v))
            self.emit("pass", 2)
            self.emit("else:")
            self.emit("%s = %s * 0.5" % (name, name), 2)
            self.define(name, sa)
        else:
            v = self.var()
            self.emit("if %s > 100.0:" % self.cond(v))
            self.emit("pass", 2)

    def st_gradcode(self):
        self.features.add("gradcode")
        v = self.var()
        s = self.vars[v]
        acc = self.fresh("acc")
        self.emit("%s = %s * 1.0" % (acc, v))
        self.emit("for i in range(2):")
        self.emit("with tad.insert_grad_code(%s) as d%s:" % (acc, acc), 2)
        self.emit("d%s = d%s * 1.0" % (acc, acc), 3)
        if self.r.random() < 0.5:
            self.emit("%s = np.sin(%s) + %s" % (acc, acc, self.fit(s, 1)), 2)
        self.define(acc, s)

    def st_ifexp_rebind(self):
        self.features.add("ifexp_rebind")
        name = self.var()
        s = self.vars[name]
        k = self.r.randrange(2)
        if k == 0:
            self.emit("%s = %s * %s if np.sum(%s) > 0 else %s" % (name, name, name, name, name))
        else:
            other = self.fit(s, 1)
            self.emit("%s = np.tanh(%s) if np.sum(%s) < 0.3 else %s * 0.5 + %s"
                      % (name, name, name, name, other))
        self.define(name, s)

    def st_early_return(self):
        """A return inside a loop and nested ifs, on the variables so far."""
        r = self.r
        self.features.add("early_return")
        v = self.var()
        ret = " + ".join("np.sum(np.sin(%s))" % n for n in self.vars)
        if r.random() < 0.5:
            acc, s = self.fresh("acc"), self.vars[v]
            self.emit("%s = %s * 1.0" % (acc, v))
            self.emit("for i in range(3):")
            self.emit("%s = %s * 0.8 + 0.1" % (acc, acc), 2)
            self.emit("if np.sum(%s) > %.1f:" % (acc, r.uniform(-0.5, 1.5)), 2)
            self.emit("if i >= 1:", 3)
            self.emit("return %s + np.sum(%s)" % (ret, acc), 4)
            if r.random() < 0.5:
                self.emit("if np.sum(%s) < %.1f:" % (acc, r.uniform(-2.0, -0.5)), 2)
                self.emit("return %s" % ret, 3)
            self.define(acc, s)
        else:
            w = self.var()
            self.emit("if np.sum(%s) > 0.8:" % v)
            self.emit("if np.sum(%s) < 0.0:" % w, 2)
            self.emit("return %s" % ret, 3)

    def st_chained(self):
        self.features.add("chained")
        a, sa = self.expr()
        p, q = self.fresh(), self.fresh()
        self.emit("%s = %s = %s" % (p, q, a))
        self.emit("%s = %s * 2.0" % (p, p))
        self.define(p, sa)
        self.define(q, sa)

    def st_alias(self):
        r = self.r
        self.features.add("alias")
        src = self.var(lambda t: len(t) >= 1 and t[0] >= 2)
        if src is None:
            return self.st_assign()
        s = self.vars[src]
        c = self.fresh("c")
        self.emit("%s = %s * 1.0" % (c, src))
        k = r.randrange(4)
        if k == 0:
            z = self.fresh("z")
            self.emit("%s = %s" % (z, c))
            self.emit("%s[0] = %s" % (z, self.fit(s[1:], 1)))
            self.define(z, s)
        elif k == 1:
            w = self.fresh("w")
            self.emit("%s = %s[1:]" % (w, c))
            self.emit("%s[0] = %s" % (w, self.fit(s[1:], 1)))
            self.define(w, (s[0] - 1,) + s[1:])
        elif k == 2:
            self.emit("%s[0] *= 2.0" % c)
            self.emit("%s[1] += %s" % (c, self.fit(s[1:], 1)))
        else:
            self.emit("scale_first_(%s)" % c)
        self.define(c, s)

    def st_global_flag(self):
        self.features.add("global")
        name = self.fresh()
        a, sa = self.expr(1)
        self.emit("%s = %s" % (name, a))
        self.emit("if G_FLAG:")
        self.emit("%s = %s * G_SCALE + %s" % (name, name, self.fit(sa, 1)), 2)
        self.define(name, sa)

    def syntax_extra(self):
        """Shapes that broke normalize and emit: for ... else with a break,
        enumerate with start, a unary plus."""
        r = self.rs
        src = self.var()
        acc, s = self.fresh("acc"), self.vars[src]
        k = r.randrange(3)
        if k == 0:
            self.features.add("for_else")
            self.emit("%s = %s * 1.0" % (acc, src))
            self.emit("for i in range(3):")
            self.emit("if i >= %d:" % r.randint(1, 3), 2)
            self.emit("break", 3)
            self.emit("%s = %s * 0.5 + np.sin(%s)" % (acc, acc, src), 2)
            self.emit("else:")
            self.emit("%s = %s * 1.5" % (acc, acc), 2)
        elif k == 1:
            self.features.add("enumerate_start")
            self.emit("%s = %s * 1.0" % (acc, src))
            self.emit("for j, v in enumerate([%s, %s * 2.0], start=%d):"
                      % (src, src, r.randint(-1, 2)))
            self.emit("%s = %s + j * v" % (acc, acc), 2)
        else:
            self.features.add("unary_plus")
            t = self.fresh("t")
            self.emit("%s = +0.5" % t)
            self.emit("%s = %s * %s" % (acc, t, src))
        self.define(acc, s)

    # ---- the program ----
    def make_args(self):
        r = self.r
        args = []
        for j in range(r.randint(1, 3)):
            name = "x%d" % j
            p = r.random()
            if self.cplx:
                if j == 0 or p < 0.5:
                    shape = r.choice(ARG_SHAPES)
                    args.append(Arg(name, "carray" if shape else "complex", shape))
                else:
                    shape = r.choice(ARG_SHAPES)
                    args.append(Arg(name, "array" if shape else "float", shape))
                self.vars[name] = shape
                continue
            if p < 0.12:
                shape = r.choice([(), (3,), (2, 3)])
                args.append(Arg(name, "intarray" if shape else "int", shape))
                self.features.add("int")
                self.vars[name] = shape
            elif p < 0.27:
                kind = r.choice(["list", "tuple", "dict"])
                leaf = r.choice([(), (3,), (2, 3)])
                args.append(Arg(name, kind, None, (leaf, leaf)))
                self.features.add("container_arg")
            else:
                shape = r.choice(ARG_SHAPES)
                args.append(Arg(name, "array" if shape else "float", shape))
                self.vars[name] = shape
        return args

    def unpack_container(self, arg):
        """The first block for a container argument: read its two entries,
        and pass the whole container to two helpers."""
        keys = ['"a"', '"b"'] if arg.kind == "dict" else ["0", "1"]
        for key, shape in zip(keys, arg.leaves):
            name = self.fresh("e")
            self.emit("%s = %s[%s]" % (name, arg.name, key))
            self.define(name, shape)
        v = self.fresh()
        if arg.kind == "dict":
            self.emit("%s = np.sum(key_a(%s)) + np.sum(key_b(%s))" % (v, arg.name, arg.name))
        else:
            self.emit("%s = np.sum(first_of(%s)) + np.sum(second_of(%s))"
                      % (v, arg.name, arg.name))
        self.define(v, ())

    def program(self):
        r = self.r
        args = self.make_args()
        base = dict(self.vars)
        blocks = []
        for arg in args:
            if arg.leaves is not None:
                self.lines, self.defined = [], {}
                self.unpack_container(arg)
                blocks.append((self.lines, self.defined, {"container_arg"}))
        if not self.vars:   # never: make_args gives at least one leaf
            raise AssertionError("no variables")
        for _ in range(r.randint(*self.statements)):
            self.lines, self.defined = [], {}
            before = set(self.features)
            self.statement()
            blocks.append((self.lines, self.defined, self.features - before))
        if not self.cplx and self.rs.random() < 0.25:
            self.lines, self.defined = [], {}
            before = set(self.features)
            self.syntax_extra()
            blocks.append((self.lines, self.defined, self.features - before))
        decorated = r.random() < 0.1
        if decorated:
            self.features.add("decorated_f")
        return Program(self.seed, args, blocks, base, decorated, self.cplx, self.features)


def generate(seed, statements=(3, 7)):
    """The random program of `seed` (deterministic), with between
    statements[0] and statements[1] random statements."""
    return Generator(seed, statements).program()


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:] or ["0"]:
        p = generate(int(s))
        print(p.args, sorted(p.features))
        print(p.source()[len(HEADER):])
