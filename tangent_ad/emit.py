"""Emit stage: the derivative tree as Python source text.

astor prints the tree; comment markers left by the differentiators become
real ``#`` comments. Each marker is printed with a short number in place of
its text (so astor never wraps it) and the text is put back afterwards.
The output is deterministic: the same tree always gives the same bytes.

astor prints stdlib ``ast`` trees, so the gast tree is translated first,
by `_Translator` rather than ``gast.gast_to_ast``: one plain recursive
copy that also swaps the markers for numbers, about four times faster
than gast's NodeTransformer (which copies locations nobody reads here).

A statement whose body is empty (a loop of ``pass``, a loop whose only
statements were ``insert_grad_code`` blocks moved to the adjoint) is
printed with ``pass``: Python has no empty block.

Precedence: astor parenthesizes by precedence, except that it prints a
negative number constant (``-1.5``, ``-inf``, ``-2j``) as an atom, so that
``(-1.5) ** k`` came out as ``-1.5 ** k``, which Python reads as
``-(1.5 ** k)``. `_Printer` prints such a constant with the precedence of
unary minus, which is what its text is.
"""
import ast
import math
import re

import astor
import astor.code_gen
import gast

from tangent_ad.naming import COMMENT_MARKER
from tangent_ad.nodes import writes

_MARKER_LINE = re.compile(r"^(\s*)" + COMMENT_MARKER + r"\((\d+)\)\s*$")


def run(tree, ctx=None):
    """Return the source text of the FunctionDef `tree` (whose comment
    markers are printed as numbers, then replaced by their texts)."""
    return printed(tree, ctx)[0]


def printed(tree, ctx=None):
    """(the source text of the FunctionDef `tree`, the ``ast.FunctionDef``
    it was printed from): that copy, comment markers and the ``pass`` of
    empty blocks included, is what the loader reads the text's names and
    lines from (``printed_places``), rather than parsing the text."""
    declare_nonlocals(tree)
    translator = _Translator()
    function = translator.copy(tree)
    module = ast.Module(body=[function], type_ignores=[])
    text = astor.to_source(module, source_generator_class=_Printer)
    texts = translator.comments
    lines = []
    for line in text.splitlines():
        match = COMMENT_MARKER in line and _MARKER_LINE.match(line)
        if match:
            indent, index = match.groups()
            line = f"{indent}# {texts[int(index)]}"
        lines.append(line)
    return "\n".join(lines) + "\n", function


def declare_nonlocals(fdef):
    """Give each function nested in `fdef` (a pullback's ``back``) a
    ``nonlocal`` line for the enclosing variables it assigns (restoring
    saved values), so they are the enclosing function's variables."""
    nested = [s for s in fdef.body if isinstance(s, gast.FunctionDef)]
    if not nested:
        return
    outer = {a.id for a in fdef.args.args}
    for stmt in fdef.body:
        if not isinstance(stmt, gast.FunctionDef):
            outer |= writes(stmt)
    for inner in nested:
        inner.body = [s for s in inner.body if not isinstance(s, gast.Nonlocal)]
        params = {a.id for a in inner.args.args}
        shared = sorted((set().union(*map(writes, inner.body)) - params) & outer)
        if shared:
            inner.body.insert(0, gast.Nonlocal(names=shared))


class _Printer(astor.code_gen.SourceGenerator):
    """astor's printer, with a negative number constant printed as the
    unary minus expression its text is (parenthesized where that binds
    too loosely: the base of ``**``, an attribute's object)."""

    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, (int, float, complex)) and not isinstance(value, bool) \
                and _prints_negative(value):
            with self.delimit(node, ast.USub()):
                self._handle_numeric_constant(value)
        else:
            super().visit_Constant(node)


def _prints_negative(value):
    """Whether astor's text of the number `value` starts with a minus sign
    (a complex number with a real part is printed in parentheses)."""
    if isinstance(value, complex):
        return value.real == 0 and math.copysign(1.0, value.imag) < 0
    return math.copysign(1.0, value) < 0 if isinstance(value, float) else value < 0


def _is_comment(node):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
        and node.func.id == COMMENT_MARKER and node.args \
        and isinstance(node.args[0], gast.Constant)


_PARAMETER_FIELDS = {"posonlyargs", "args", "kwonlyargs", "vararg", "kwarg"}
# the printer only reads a context's class: one shared instance of each will do
_CONTEXTS = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}
_AST_CLASSES = {}  # gast node class -> the ast class of that name


class _Translator:
    """Copies a gast tree into the stdlib ``ast`` classes astor prints:
    parameters become ``ast.arg``, a handler's name a string, and each
    comment marker's text is kept in `comments` with its number printed
    in its place."""

    def __init__(self):
        self.comments = []

    def copy(self, node):
        cls = node.__class__
        if cls is list:
            return [self.copy(item) for item in node]
        if cls is gast.Name:
            return ast.Name(id=node.id, ctx=_CONTEXTS.get(node.ctx.__class__)
                            or self.copy(node.ctx))
        if cls is gast.Constant:
            return ast.Constant(value=node.value, kind=getattr(node, "kind", None))
        if not isinstance(node, gast.AST):
            return node
        if cls is gast.arguments:
            return ast.arguments(**{
                field: self._parameters(getattr(node, field))
                if field in _PARAMETER_FIELDS else self.copy(getattr(node, field))
                for field in ast.arguments._fields})
        if cls is gast.ExceptHandler:
            return ast.ExceptHandler(type=self.copy(node.type), body=self.copy(node.body),
                                     name=node.name.id if node.name else None)
        if cls is gast.Call and _is_comment(node):
            self.comments.append(node.args[0].value)
            marker = ast.Constant(value=len(self.comments) - 1, kind=None)
            return ast.Call(func=self.copy(node.func), args=[marker], keywords=[])
        target = _AST_CLASSES.get(cls)
        if target is None:
            target = _AST_CLASSES[cls] = getattr(ast, cls.__name__)
        values = node.__dict__
        copied = target(**{field: self.copy(values[field]) for field in target._fields
                           if field in values})
        if getattr(copied, "body", None) == []:
            copied.body = [ast.Pass()]  # a body emptied by a pass (or `pass` itself)
        return copied

    def _parameters(self, value):
        if type(value) is list:
            return [self._parameters(item) for item in value]
        if value is None:
            return None
        return ast.arg(arg=value.id, annotation=self.copy(value.annotation),
                       type_comment=value.type_comment)
