"""The emit stage: printed source means what the tree means.

The round-trip property: for random expression trees (numbers of every
sign, unary operators, binary operators of every precedence, chained and
nested comparisons, ``and``/``or``, conditional expressions, lambdas,
calls, subscripts, slices, tuples), the function `emit.run` prints
returns what the tree itself returns when compiled directly.
"""
import ast
import math
import random

import gast
import numpy as np
import pytest

import tangent_ad as tad
from corpus import check_all_modes
from tangent_ad import emit

ENV = {"x": 1.5, "y": -2.0, "n": 3, "t": (0.5, -1.25, 2.0)}

INT_CONSTANTS = [0, 1, 2, 3, -1, -2, -3]
FLOAT_CONSTANTS = [0.0, -0.0, 0.5, 1.5, -1.5, -2.0, 2.0, 1e-3, -1e3, math.inf, -math.inf]
COMPLEX_CONSTANTS = [1j, -1j, -2.5j, complex(-1.0, 2.0), complex(1.5, -0.5), complex(-0.0, -1.0)]
BINARY = [gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow]
INT_BINARY = [gast.BitOr, gast.BitXor, gast.BitAnd, gast.LShift, gast.RShift]
COMPARE = [gast.Lt, gast.LtE, gast.Gt, gast.GtE, gast.Eq, gast.NotEq]


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _const(value):
    return gast.Constant(value=value, kind=None)


class ExpressionGenerator:
    """Random gast expression trees. Integer-valued subtrees are kept apart
    (`kind` "int") so that ``**`` and shifts never build huge integers."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def expr(self, depth, kind="any"):
        r = self.r
        if depth <= 0 or r.random() < 0.15:
            return self.leaf(kind)
        if kind == "int":
            choice = r.choice(["unary", "binop", "intop", "ifexp", "subscript_int"])
        else:
            choice = r.choice(["unary", "binop", "binop", "pow", "compare", "boolop",
                               "ifexp", "lambda", "call", "subscript", "tuple",
                               "attribute", "not", "starred_call", "slice"])
        return getattr(self, choice)(depth - 1, kind)

    def leaf(self, kind):
        r = self.r
        if kind == "int":
            return r.choice([_const(r.choice(INT_CONSTANTS)), _load("n")])
        pick = r.random()
        if pick < 0.3:
            return _load(r.choice(["x", "y", "n"]))
        if pick < 0.5:
            return _const(r.choice(INT_CONSTANTS))
        if pick < 0.95:
            return _const(r.choice(FLOAT_CONSTANTS))
        return _const(r.choice(COMPLEX_CONSTANTS))

    def unary(self, depth, kind):
        ops = [gast.USub, gast.UAdd] + ([gast.Invert] if kind == "int" else [])
        return gast.UnaryOp(op=self.r.choice(ops)(), operand=self.expr(depth, kind))

    def binop(self, depth, kind):
        ops = [gast.Add, gast.Sub, gast.Mult] if kind == "int" else BINARY[:-1]
        return gast.BinOp(left=self.expr(depth, kind), op=self.r.choice(ops)(),
                          right=self.expr(depth, kind))

    def pow(self, depth, kind):
        # A float or complex base; an exponent that is small or non-integer.
        base = self.r.choice([self.expr(depth), _const(self.r.choice(FLOAT_CONSTANTS)),
                              gast.UnaryOp(op=gast.USub(), operand=self.expr(depth))])
        return gast.BinOp(left=base, op=gast.Pow(), right=self.r.choice(
            [self.expr(depth), self.expr(depth, "int"), _load("n")]))

    def intop(self, depth, kind):
        op = self.r.choice(INT_BINARY)()
        right = _const(self.r.randint(0, 3)) if isinstance(op, (gast.LShift, gast.RShift)) \
            else self.expr(depth, "int")
        return gast.BinOp(left=self.expr(depth, "int"), op=op, right=right)

    def compare(self, depth, kind):
        size = self.r.randint(1, 3)
        return gast.Compare(left=self.expr(depth),
                            ops=[self.r.choice(COMPARE)() for _ in range(size)],
                            comparators=[self.expr(depth) for _ in range(size)])

    def boolop(self, depth, kind):
        op = self.r.choice([gast.And, gast.Or])()
        return gast.BoolOp(op=op, values=[self.expr(depth) for _ in range(self.r.randint(2, 3))])

    def not_(self, depth, kind):
        return gast.UnaryOp(op=gast.Not(), operand=self.expr(depth))

    def ifexp(self, depth, kind):
        return gast.IfExp(test=self.expr(depth), body=self.expr(depth, kind),
                          orelse=self.expr(depth, kind))

    def lambda_(self, depth, kind):
        # (lambda x: body)(argument): the lambda's body shadows x.
        args = gast.arguments(args=[gast.Name(id="x", ctx=gast.Param(), annotation=None,
                                              type_comment=None)],
                              posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                              kwarg=None, defaults=[])
        fn = gast.Lambda(args=args, body=self.expr(depth))
        return gast.Call(func=fn, args=[self.expr(depth)], keywords=[])

    def call(self, depth, kind):
        name = self.r.choice(["abs", "max", "min", "complex"])
        count = 1 if name == "abs" else 2
        return gast.Call(func=_load(name), args=[self.expr(depth) for _ in range(count)],
                         keywords=[])

    def starred_call(self, depth, kind):
        elts = [self.expr(depth) for _ in range(2)]
        starred = gast.Starred(value=gast.Tuple(elts=elts, ctx=gast.Load()), ctx=gast.Load())
        return gast.Call(func=_load(self.r.choice(["max", "min"])), args=[starred],
                         keywords=[])

    def index(self, depth):
        # An index in range (most of the time): (expression) % 3.
        if self.r.random() < 0.2:
            return self.expr(depth, "int")
        return gast.BinOp(left=self.expr(depth, "int"), op=gast.Mod(), right=_const(3))

    def subscript(self, depth, kind):
        items = gast.Tuple(elts=[self.expr(depth) for _ in range(3)], ctx=gast.Load())
        target = self.r.choice([_load("t"), items])
        return gast.Subscript(value=target, slice=self.index(depth), ctx=gast.Load())

    def subscript_int(self, depth, kind):
        items = gast.Tuple(elts=[self.expr(depth, "int") for _ in range(3)], ctx=gast.Load())
        return gast.Subscript(value=items, slice=self.index(depth), ctx=gast.Load())

    def slice(self, depth, kind):
        bounds = [self.r.choice([None, self.expr(depth, "int")]) for _ in range(3)]
        return gast.Subscript(value=_load("t"), slice=gast.Slice(*bounds), ctx=gast.Load())

    def tuple(self, depth, kind):
        elts = [self.expr(depth) for _ in range(self.r.randint(1, 3))]
        return gast.Tuple(elts=elts, ctx=gast.Load())

    def attribute(self, depth, kind):
        attr = self.r.choice(["real", "imag"])
        return gast.Attribute(value=self.expr(depth), attr=attr, ctx=gast.Load())

    locals()["not"] = not_
    locals()["lambda"] = lambda_


def _function(expr):
    params = [gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None)
              for p in ENV]
    args = gast.arguments(args=params, posonlyargs=[], vararg=None, kwonlyargs=[],
                          kw_defaults=[], kwarg=None, defaults=[])
    return gast.FunctionDef(name="f", args=args, body=[gast.Return(value=expr)],
                            decorator_list=[], returns=None, type_comment=None,
                            type_params=[])


def _outcome(call):
    try:
        return ("value", call())
    except Exception as error:  # the printed source must raise the same way
        return ("error", type(error))


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, (float, complex)):
        return repr(a) == repr(b)  # nan == nan, and -0.0 differs from 0.0
    return a == b


def _direct(fdef):
    module = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
    namespace = {}
    exec(compile(ast.fix_missing_locations(module), "<tree>", "exec"), namespace)
    return namespace["f"]


def _printed(fdef):
    namespace = {}
    exec(compile(emit.run(fdef), "<emitted>", "exec"), namespace)
    return namespace["f"]


class _FoldSigns(ast.NodeTransformer):
    """Folds ``-<number>`` and ``<real> +/- <imaginary>`` into one constant,
    the forms in which a printed negative or complex number parses back."""

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (ast.USub, ast.UAdd)) and _is_number(node.operand):
            value = node.operand.value
            return ast.Constant(value=-value if isinstance(node.op, ast.USub) else +value)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (ast.Add, ast.Sub)) and _is_number(node.left) \
                and _is_number(node.right) and isinstance(node.right.value, complex) \
                and not isinstance(node.left.value, complex):
            sign = 1 if isinstance(node.op, ast.Add) else -1
            return ast.Constant(value=node.left.value + sign * node.right.value)
        return node


def _is_number(node):
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, complex)


def _same_tree(a, b):
    """Structural equality; numbers compare by value (astor drops the sign
    of a zero real part: ``complex(-0.0, 1.0)`` prints as ``1j``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same_tree, a, b))
    if isinstance(a, ast.Constant):
        return type(a.value) is type(b.value) and (a.value == b.value or a.value != a.value)
    if isinstance(a, ast.AST):
        return all(_same_tree(getattr(a, f, None), getattr(b, f, None)) for f in a._fields
                   if f not in ("ctx", "kind", "type_comment"))
    return a == b


@pytest.mark.parametrize("seed", range(400))
def test_printed_expression_evaluates_like_the_tree(seed):
    expr = ExpressionGenerator(seed).expr(depth=4)
    text = emit.run(_function(expr))
    direct, printed = _direct(_function(expr)), _printed(_function(expr))
    want, got = _outcome(lambda: direct(**ENV)), _outcome(lambda: printed(**ENV))
    assert want[0] == got[0] and _same(want[1], got[1]), text
    parsed = _FoldSigns().visit(ast.parse(text).body[0].body[0].value)
    tree = _FoldSigns().visit(gast.gast_to_ast(_function(expr)).body[0].value)
    assert _same_tree(parsed, tree), text


@pytest.mark.parametrize("base", [-1.5, -0.0, -math.inf, -2, -1j, complex(-0.0, -2.0)])
def test_negative_number_as_base_of_a_power_keeps_its_sign(base):
    fdef = _function(gast.BinOp(left=_const(base), op=gast.Pow(), right=_const(2)))
    assert _same(_printed(fdef)(**ENV), base ** 2)
    assert "(-" in emit.run(fdef)


def test_negative_number_under_an_attribute_is_parenthesized():
    fdef = _function(gast.Attribute(value=_const(-1.5), attr="real", ctx=gast.Load()))
    assert _printed(fdef)(**ENV) == -1.5


# ---- the repros of "Found by random programs" (sign lost in emitted code) --------------

def power_of_negative_constant(a, n=2):
    return np.sum(a) * (-2.0) ** n


def power_of_negative_constant_in_loop(p):
    for i in range(3):
        p = (-1.2) ** i * p
    return p


def test_power_of_a_negative_constant_keeps_its_sign():
    a = np.array([0.3, -0.7, 1.1])
    assert np.allclose(tad.grad(power_of_negative_constant)(a), 4.0)  # d/da sum(a) * 4
    check_all_modes(power_of_negative_constant, (a, 2))


def test_power_of_a_negative_constant_with_a_loop_index_keeps_its_sign():
    # p * 1 * (-1.2) * 1.44: the derivative is -1.728.
    assert tad.grad(power_of_negative_constant_in_loop)(0.7) == pytest.approx(-1.728)
    check_all_modes(power_of_negative_constant_in_loop, (0.7,))


@pytest.mark.parametrize("statement", ["for i in range(2):\n    pass",
                                       "while False:\n    pass",
                                       "if x > 0:\n    pass\nelse:\n    pass",
                                       "with open('f') as g:\n    pass"])
def test_an_empty_body_is_printed_as_pass(statement):
    fdef = gast.parse(f"def f(x):\n" + "".join(
        "    " + line + "\n" for line in statement.splitlines()) + "    return x\n").body[0]
    for node in gast.walk(fdef):
        if isinstance(node, (gast.For, gast.While, gast.If, gast.With)):
            node.body = []
    text = emit.run(fdef)
    assert text.count("pass") == 1 + statement.startswith("if")
    compile(text, "<emitted>", "exec")


# ---- precedence through the whole pipeline -------------------------------------------

def conditional_expression_under_a_power(x):
    return np.sum((x if np.sum(x) > 0 else -x) ** 2 * (-1.5) ** 3)


def unary_minus_under_powers(x):
    y = -x ** 2 + (-x) ** 2 * 0.5 - (-(x * 2.0)) ** 3
    return np.sum(y)


def lambda_results_under_powers(x):
    sq = lambda t: t * t  # noqa: E731
    return np.sum(sq(x) ** 2 - (-sq(x)) ** 3)


def chained_comparison_and_negative_base(x, n):
    s = 0.0
    for i in range(n):
        if 0 < i < 3:
            s = s + np.sum(x) * (-0.5) ** i
    return s


def negative_exponents(x):
    return np.sum(2.0 ** -x * (-2.0) ** -2)


@pytest.mark.parametrize("func, args", [
    (conditional_expression_under_a_power, (np.array([0.3, -0.7]),)),
    (conditional_expression_under_a_power, (np.array([-0.3, 0.1]),)),
    (unary_minus_under_powers, (np.array([0.3, -0.7]),)),
    (lambda_results_under_powers, (np.array([0.3, -0.7]),)),
    (chained_comparison_and_negative_base, (np.array([0.3, -0.7]), 4)),
    (negative_exponents, (np.array([0.3, -0.7]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_precedence_through_the_pipeline_in_every_mode(func, args):
    check_all_modes(func, args)
