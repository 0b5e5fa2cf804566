"""Emit stage: the derivative tree as Python source text.

astor prints the tree; comment markers left by the differentiators become
real ``#`` comments. The output is deterministic: the same tree always
gives the same bytes.
"""
import ast
import re

import astor
import gast

from tangent_ad.naming import COMMENT_MARKER

_MARKER_LINE = re.compile(r"^(\s*)" + COMMENT_MARKER + r"\((.*)\)\s*$")


def run(tree, ctx=None):
    """Return the source text of the FunctionDef `tree`."""
    module = gast.Module(body=[tree], type_ignores=[])
    text = astor.to_source(gast.gast_to_ast(module))
    lines = []
    for line in text.splitlines():
        match = _MARKER_LINE.match(line)
        if match:
            indent, literal = match.groups()
            line = f"{indent}# {ast.literal_eval(literal)}"
        lines.append(line)
    return "\n".join(lines) + "\n"
