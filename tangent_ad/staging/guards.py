"""The guards staged code runs behind, built as ``ast`` trees.

A staged copy runs behind a guard on the kinds of its arguments (and of the
data globals it reads live) and on its dependencies being current
(``live.Dependencies``). Each check is built here as a tree; its text is
printed from that tree (``ast.unparse``). The dispatcher compiles the text
when nothing in it must be read live, and otherwise compiles the tree (with
the copy's own, ``printed_places.compilable``): the text is never parsed
back. A guard reads a live global through the module's dict directly
(``__tad_live__['DT']``), as the rewritten reads of the copy do.
"""
import ast

import numpy as np

from tangent_ad.live import LIVE_KEY, rules_version_cell

GUARD_INDENT = " " * 12  # where the second and later checks of a guard start


class Guards:
    """Writes guard checks whose objects live in the namespace `ns`:
    identities (``_tad_o<id>``) and constants (``_tad_c<n>``)."""

    def __init__(self, ns):
        self.ns = ns
        self.constants = {}  # name -> value

    def kind_checks(self, params, key):
        """Checks that the arguments `params`, and the globals the
        ``(name, kind)`` pairs at the end of `key` name, have the kinds `key`
        lists (None: anything)."""
        reads = [(_name(p), kind) for p, kind in zip(params, key)]
        reads += [(_live(name), kind) for name, kind in key[len(params):]]
        checks = []
        for read, kind in reads:
            if kind is None:
                continue  # the copy assumes nothing about this argument
            if kind.box == "array":
                shape = self.constant(kind.shape)
                dtype = self.constant(np.dtype(kind.dtype.str))
                checks.append(ast.BoolOp(op=ast.And(), values=[  # one line of text
                    _is(_call(_name("type"), read), _name("_tad_ndarray")),
                    _compare(_attribute(read, "shape"), ast.Eq(), _name(shape)),
                    _is(_attribute(read, "dtype"), _name(dtype))]))
            else:
                checks.append(_is(_call(_name("type"), read),
                                  _name(self.constant(type(kind.sample())))))
        return checks

    def dependency_checks(self, deps):
        """Checks that hold while the derivative is current (those of the
        ``live.Dependencies`` `deps`, written out)."""
        if deps is None:
            return []
        if deps.cells:
            return [_call(_name(self.identity(deps.current)))]
        version = ast.Subscript(value=_name(self.identity(rules_version_cell())),
                                slice=ast.Constant(value=0), ctx=ast.Load())
        checks = [_compare(version, ast.Eq(), ast.Constant(value=deps.version))]
        for mapping, name, value in deps.names:
            found = _call(_attribute(_name(self.identity(mapping)), "get"),
                          ast.Constant(value=name))
            checks.append(_is(found, _name(self.identity(value))))
        for function, code in deps.codes:
            checks.append(_is(_attribute(_name(self.identity(function)), "__code__"),
                              _name(self.identity(code))))
        return checks

    def identity(self, value):
        """A name in the namespace for the object `value` (checked by identity)."""
        name = f"_tad_o{id(value)}"
        self.ns[name] = value
        return name

    def constant(self, value):
        """A name in the namespace for the constant `value`."""
        for name, known in self.constants.items():
            if type(known) is type(value) and known == value:
                return name
        name = f"_tad_c{len(self.constants)}"
        self.constants[name] = self.ns[name] = value
        return name


def statement(checks, params, otherwise="_tad_stage"):
    """``if not (checks...): return otherwise(params...)``: the ``ast.If``
    and its lines of text, indented for a function's body."""
    call = _call(_name(otherwise), *[_name(p) for p in params])
    terms = [term for check in checks for term in _terms(check)]  # as the text reads
    test = terms[0] if len(terms) == 1 else ast.BoolOp(op=ast.And(), values=terms)
    node = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test),
                  body=[ast.Return(value=call)], orelse=[])
    joined = f"\n{GUARD_INDENT}and ".join(_text(check) for check in checks)
    lines = f"    if not ({joined}):\n        return {ast.unparse(call)}".split("\n")
    return node, lines


def _terms(check):
    """The comparisons a check joins with ``and`` (one line of a guard)."""
    return check.values if isinstance(check, ast.BoolOp) else [check]


def _text(check):
    """A check's text (``ast.unparse`` would put the last of several
    comparisons joined by ``and`` in parentheses)."""
    return " and ".join(ast.unparse(term) for term in _terms(check))


def live_text(name):
    """The text of a guard's read of the global `name` from the module's dict."""
    return ast.unparse(_live(name))


def _live(name):
    return ast.Subscript(value=_name(LIVE_KEY), slice=ast.Constant(value=name), ctx=ast.Load())


def _name(name):
    return ast.Name(id=name, ctx=ast.Load())


def _attribute(value, attr):
    return ast.Attribute(value=value, attr=attr, ctx=ast.Load())


def _call(func, *args):
    return ast.Call(func=func, args=list(args), keywords=[])


def _compare(left, op, right):
    return ast.Compare(left=left, ops=[op], comparators=[right])


def _is(left, right):
    return _compare(left, ast.Is(), right)
