"""Emit stage: the derivative tree as Python source text.

astor prints the tree; comment markers left by the differentiators become
real ``#`` comments. Each marker is printed with a short number in place of
its text (so astor never wraps it) and the text is put back afterwards.
The output is deterministic: the same tree always gives the same bytes.
"""
import re

import astor
import gast

from tangent_ad.naming import COMMENT_MARKER
from tangent_ad.nodes import writes

_MARKER_LINE = re.compile(r"^(\s*)" + COMMENT_MARKER + r"\((\d+)\)\s*$")


def run(tree, ctx=None):
    """Return the source text of the FunctionDef `tree` (whose comment
    markers are swapped for numbers while it is printed, then put back)."""
    declare_nonlocals(tree)
    markers = [node for node in gast.walk(tree) if _is_comment(node)]
    texts = [node.args[0] for node in markers]
    for index, node in enumerate(markers):
        node.args[0] = gast.Constant(value=index, kind=None)
    module = gast.Module(body=[tree], type_ignores=[])
    try:
        text = astor.to_source(gast.gast_to_ast(module))
    finally:
        for node, original in zip(markers, texts):
            node.args[0] = original
    texts = [t.value for t in texts]
    lines = []
    for line in text.splitlines():
        match = _MARKER_LINE.match(line)
        if match:
            indent, index = match.groups()
            line = f"{indent}# {texts[int(index)]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def declare_nonlocals(fdef):
    """Give each function nested in `fdef` (a pullback's ``back``) a
    ``nonlocal`` line for the enclosing variables it assigns (restoring
    saved values), so they are the enclosing function's variables."""
    nested = [s for s in fdef.body if isinstance(s, gast.FunctionDef)]
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


def _is_comment(node):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
        and node.func.id == COMMENT_MARKER and node.args \
        and isinstance(node.args[0], gast.Constant)
