"""Parse, for a lambda: find its expression in the source and make it a def.

``inspect`` gives a lambda's first line only, and that line may hold more
than one lambda (``jac=tad.grad(lambda w: loss(w, X, y))`` inside a longer
call, or ``f = lambda x: x * 2; g = lambda x: x + 1``). The whole source
(file or notebook cell) is parsed and the lambda is picked by its line,
its parameters and the columns of its compiled code (``co_positions``);
when two lambdas still cannot be told apart, it is refused. The lambda
``lambda w: e`` becomes ``def lambda_(w): return e`` (``def f(w)`` for ``f = lambda w: e``) with
the user's own line numbers, so errors point at the lambda.
"""
import inspect

import gast

from tangent_ad import texts
from tangent_ad.errors import SourceUnavailableError, UnsupportedSyntaxError
from tangent_ad.frontend import to_gast

NAME = "lambda_"  # the def an unnamed lambda becomes: its gradient is ``dlambda__dw``


def is_lambda(func):
    return inspect.isfunction(func) and func.__name__ == "<lambda>"


def parse_lambda(func):
    """`func`'s lambda as a gast FunctionDef, and (file name, first line,
    indentation, lines) for its ``SourceInfo``."""
    code = func.__code__
    filename = inspect.getsourcefile(func) or code.co_filename
    lines = texts.lines(filename, func.__globals__)
    if not lines:
        raise SourceUnavailableError(
            f"cannot read the source of the lambda defined at {code.co_filename}:"
            f"{code.co_firstlineno}",
            hint="a lambda typed at the plain `python` prompt keeps no source: "
                 "define it in a .py file, or in IPython or Jupyter, which keep "
                 "the source of what you type")
    try:
        module = to_gast.parse("".join(lines))
    except SyntaxError:
        raise SourceUnavailableError(
            f"the source of the lambda at {filename}:{code.co_firstlineno} does "
            "not parse (the file changed after it was imported)",
            hint="reload the module (importlib.reload), then ask again") from None
    found = _candidates(module, code)
    if len(found) != 1:
        raise UnsupportedSyntaxError(
            "cannot tell which lambda on this line is meant" if found else
            "the lambda is not in its source file any more (the file changed "
            "after it was imported)",
            hint="give each lambda its own line, or define the function with def",
            filename=filename, lineno=code.co_firstlineno,
            source_line=lines[code.co_firstlineno - 1].rstrip("\n"))
    return _as_def(found[0], _assigned_name(module, found[0]), filename, lines)


def _assigned_name(module, lam):
    """``f`` for ``f = lambda ...``, so that its derivative is ``df_dw``;
    ``lambda_`` for any other lambda."""
    for node in gast.walk(module):
        if isinstance(node, gast.Assign) and node.value is lam and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name):
            return node.targets[0].id
    return NAME


def _candidates(module, code):
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    spans = [p for p in code.co_positions() if p[0] is not None and p[2] is not None
             and (p[0], p[2]) != (p[1], p[3])]
    found = []
    for node in gast.walk(module):
        if not isinstance(node, gast.Lambda) or node.lineno != code.co_firstlineno:
            continue
        args = node.args
        names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
        if names != params or bool(args.vararg) != bool(code.co_flags & inspect.CO_VARARGS):
            continue
        body = node.body
        start, end = (body.lineno, body.col_offset), (body.end_lineno, body.end_col_offset)
        if all(start <= (p[0], p[2]) and (p[1], p[3]) <= end for p in spans):
            found.append(node)
    inner = [n for n in found if not any(o is not n and _contains(o, n) for o in found)]
    return inner if len(inner) == 1 else found


def _contains(outer, node):
    return any(n is node for n in gast.walk(outer.body))


def _as_def(node, fname, filename, lines):
    """``def lambda_(params): return body``, with line numbers relative to
    the lambda's first line (as parse_function's trees have)."""
    first, last = node.lineno, node.end_lineno
    for n in gast.walk(node):
        if getattr(n, "lineno", None) is not None:
            n.lineno -= first - 1
            if getattr(n, "end_lineno", None) is not None:
                n.end_lineno -= first - 1
    ret = gast.Return(value=node.body)
    gast.copy_location(ret, node.body)
    fdef = gast.FunctionDef(name=fname, args=node.args, body=[ret], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    gast.copy_location(fdef, node)
    text = tuple(line.rstrip("\n") for line in lines[first - 1:last])
    return fdef, (filename, first, 0, text)
