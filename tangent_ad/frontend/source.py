"""Parse stage: from a live function to a gast tree that remembers where it came from.

The tree's line numbers are those of the dedented snippet; `SourceInfo`
maps them back to the real file and line so that every error can point at
the user's own text.
"""
import copy
import functools
import inspect
import textwrap
import types
from dataclasses import dataclass

import gast

from tangent_ad import texts
from tangent_ad.nodes import BLOCKS, copy_tree, is_comment
from tangent_ad.errors import SourceUnavailableError, UnsupportedSyntaxError
from tangent_ad.frontend import lambdas, source_lines, to_gast, wrappers


@dataclass(frozen=True)
class SourceInfo:
    """Where a parsed function lives: file, first line, indentation, text."""

    filename: str
    first_line: int
    indent: int
    lines: tuple

    def line_text(self, node):
        """The source line of `node` (relative line numbers), or ''."""
        lineno = getattr(node, "lineno", None)
        if lineno is None or not 0 < lineno <= len(self.lines):
            return ""
        return self.lines[lineno - 1]

    def segment(self, node):
        """The source text of `node` on one line, whitespace collapsed; for
        a branch or loop, its header without the colon."""
        start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if start is None:
            return ""
        if isinstance(node, (gast.If, gast.For, gast.While)):
            body_start = node.body[0].lineno if node.body else start + 1
            header = " ".join(l.strip() for l in self.lines[start - 1:max(start, body_start - 1)])
            header = " ".join(header.split())
            return header[:-1] if header.endswith(":") else header
        if end is None or end == start:
            line = self.lines[start - 1]
            end_col = getattr(node, "end_col_offset", None)
            text = line[node.col_offset:end_col]
        else:
            text = " ".join(l.strip() for l in self.lines[start - 1:end])
        return " ".join(text.split())

    def where(self, node):
        """Location keywords for a TangentADError about `node`."""
        lineno = getattr(node, "lineno", None)
        return dict(
            filename=self.filename,
            lineno=None if lineno is None else lineno + self.first_line - 1,
            col=None if lineno is None else node.col_offset + self.indent,
            source_line=(" " * self.indent + self.line_text(node)) if lineno else None,
        )


def called(func):
    """The function whose code a call of `func` runs, for its signature and
    its pullback: the function inside a ``tad.checkpoint`` or inside one of
    tangent_ad's own derivatives (their ``__wrapped__``), else `func`
    itself, so that a decorated function keeps its decorator's wrapper."""
    inner = getattr(func, "__wrapped__", None)
    if inner is not None and (not inspect.isfunction(func)
                              or getattr(func, "__tangent_ad__", None) is not None):
        return inner
    return func


def signature(func):
    """The parameters of what a call of `func` runs (see `called`); for a
    wrapper that forwards ``*args, **kwargs``, those of the function it
    wraps (see ``wrappers``)."""
    target = called(func)
    own = inspect.signature(target, follow_wrapped=False)
    kinds = {p.kind for p in own.parameters.values()}
    if hasattr(target, "__wrapped__") and kinds and \
            kinds <= {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
        return inspect.signature(target.__wrapped__)
    return own


def _check_current(node, code, name, info):
    """Refuse source that is not the code that runs: a file edited after
    it was imported shows other text at the function's line numbers."""
    args = node.args
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    expected = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    if node.name != code.co_name or params != expected:
        raise SourceUnavailableError(
            f"the source of {name} in {info.filename} is not the code that runs "
            "(the file changed after it was imported)",
            hint="reload the module (importlib.reload) or restart, then "
                 "ask for the derivative again")


def _source_lines(own):
    """(file name, (lines, first line), the ``source_lines.Found`` or None)
    of the function or code object `own`: text tangent_ad wrote and kept
    (``texts``), else the file's, read by ``source_lines`` (with its parse)
    or, when that cannot tell, by ``inspect``."""
    kept = texts.function_lines(own)
    if kept is not None:
        return getattr(own, "__code__", own).co_filename, kept, None
    found = source_lines.read(own)
    if found is not None:
        return found.filename, (found.lines, found.first_line), found
    return (inspect.getsourcefile(own) or inspect.getfile(own), inspect.getsourcelines(own),
            None)


def parse_function(func):
    """Parse `func`'s source into a gast FunctionDef and its SourceInfo.

    Decorator lines are dropped (the decorator that asked for the
    derivative is usually one of them). A function a decorator wrapped with
    ``functools.wraps`` is read from the wrapper's own code, what a call
    runs, not from ``__wrapped__`` (see ``wrappers``).
    """
    name = getattr(func, "__qualname__", repr(func))
    lifted = getattr(func, "tree", None)
    if lifted is not None:  # a function defined inside another (closures.LocalFunction)
        return copy.deepcopy(lifted), func.info
    if isinstance(func, functools.partial):
        inner = getattr(func.func, "__name__", "f")
        raise SourceUnavailableError(
            f"functools.partial({inner}, ...) is not a Python function, "
            "so it has no source to transform",
            hint=f"differentiate {inner} itself and pass the bound arguments "
                 f"when calling the derivative, or write a def that calls "
                 f"{inner} with them")
    if lambdas.is_lambda(func):
        tree, (filename, first_line, indent, text) = lambdas.parse_lambda(func)
        return tree, SourceInfo(filename, first_line, indent, text)
    if inspect.ismethod(func):
        raise SourceUnavailableError(
            f"{name} is a bound method; tangent_ad transforms plain functions",
            hint=f"write a function that takes the object as a parameter, or "
                 f"a def that calls the method: def f(x): return obj."
                 f"{func.__name__}(x)")
    if not inspect.isfunction(func):
        raise SourceUnavailableError(
            f"{name} is not a Python function (it is {type(func).__name__}), "
            "so it has no source to transform")
    # `inspect` follows `__wrapped__`: a functools.wraps decorator's wrapper
    # would read as the function it wraps and the decorator's own code would
    # be lost. What is called is differentiated: the wrapper's own code (the
    # wrapped function is one of its closure cells). tangent_ad's own
    # derivatives point `__wrapped__` at their general copy on purpose.
    own = func.__code__ if hasattr(func, "__wrapped__") and \
        getattr(func, "__tangent_ad__", None) is None else func
    try:
        filename, (lines, first_line), found = _source_lines(own)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            f"cannot read the source of {name}: {exc}",
            hint="a function typed at the plain `python` prompt keeps no source: "
                 "define it in a .py file, or in IPython or Jupyter, which keep "
                 "the source of what you type") from None
    dedented = found.dedented if found is not None else textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    info = SourceInfo(filename, first_line, indent,
                      tuple(dedented.splitlines()))
    stored = getattr(func, "__tangent_ad_tree__", None)
    if stored is not None:  # generated code: the tree it was printed from
        return _read_stored(stored), info
    try:
        module = to_gast.convert(found.tree) if found is not None else to_gast.parse(dedented)
    except SyntaxError as exc:
        raise UnsupportedSyntaxError(
            f"cannot parse the source of {name}: {exc.msg}",
            filename=filename,
            lineno=(exc.lineno or 1) + first_line - 1) from None
    node = module.body[0] if module.body else None
    if not isinstance(node, gast.FunctionDef):
        raise UnsupportedSyntaxError(
            f"{name} is not defined by a 'def' statement",
            hint="lambdas and async functions cannot be transformed; "
                 "define the function with 'def'",
            **info.where(node or module))
    _check_current(node, own if isinstance(own, types.CodeType) else func.__code__,
                   name, info)
    node.decorator_list = []
    if own is not func:
        node = wrappers.specialize(node, func, info)
    return node, info


def _read_stored(stored):
    """A copy of the stored tree of a generated function, as the front end
    reads a function: without the comment markers (which printed text
    turns into comments) and every node placed on its statement's line
    (``loader`` placed the statements on the lines they were printed as)."""
    tree = copy_tree(stored)
    _as_read(tree, None)
    return tree


def _as_read(stmt, where):
    """`stmt` (in place) without comment markers in its blocks, and its
    expressions on its lines (`where`'s when it has none)."""
    for field in BLOCKS:
        block = getattr(stmt, field, None)
        if block.__class__ is list:
            block[:] = [s for s in block if not is_comment(s)]
    place = stmt if getattr(stmt, "lineno", None) is not None else where
    for field in stmt._fields:
        value = getattr(stmt, field, None)
        for child in value if value.__class__ is list else (value,):
            if not isinstance(child, gast.AST):
                continue
            if field in BLOCKS and isinstance(child, gast.stmt):
                _as_read(child, place)
            else:
                _place_within(child, place)


def _place_within(node, place):
    """`node` and the nodes under it placed on `place`'s line(s)."""
    if place is None:
        return
    for inner in gast.walk(node):
        if "lineno" in inner._attributes:  # (a template's or the user's line before)
            for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                setattr(inner, attr, getattr(place, attr))
