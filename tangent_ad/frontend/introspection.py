"""Validate, by object: constructs whose meaning a source transform cannot see.

``eval("x * 2")`` or ``locals()`` run code or read frames that are not in
the tree; ``id(a) == id(b)`` and ``a is b`` ask whether two values are the
same object, which the optimizer changes (``y = x * 1.0`` becomes
``y = x``), so the derivative could take the other branch
(``np.shares_memory`` too). They are
refused up front, at the first one in the source.

Names are checked by the object they denote, not by spelling: ``from
builtins import eval as e`` is refused as ``eval`` is. The lookup here is
the same as the resolver's (closure cells, module globals, builtins); it
only reads, and a name it cannot find is left for the resolver to report.
"""
import builtins
import importlib
import types

import gast
import numpy as np

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.nodes import walk

_MISSING = object()

# builtin -> (what it does that the transform cannot see, what to do instead)
_DYNAMIC = {
    builtins.eval: ("eval(...) runs code that is not in the function's source",
                    "write the expression itself in the function"),
    builtins.exec: ("exec(...) runs code that is not in the function's source",
                    "write the statements themselves in the function"),
    builtins.compile: ("compile(...) builds code that is not in the function's source",
                       "write the code itself in the function"),
    builtins.locals: ("locals() reads the function's frame, which the derivative "
                      "does not have", "use the variables by name"),
    builtins.globals: ("globals() reads module variables by a computed name",
                       "use the global variable by name"),
    builtins.vars: ("vars() reads variables by a computed name",
                    "use the variable or attribute by name"),
    builtins.__import__: ("__import__(...) imports a module while the function runs",
                          "import the module at module level"),
    importlib.import_module: ("import_module(...) imports a module while the "
                              "function runs", "import the module at module level"),
    builtins.id: ("id(...) compares the identity of values, which the derivative "
                  "does not keep (the optimizer may turn a copy into the same "
                  "object)", "compare values instead (np.array_equal(a, b)), or "
                  "pass a flag"),
    np.shares_memory: ("np.shares_memory(...) asks whether two arrays are one "
                       "buffer, which the derivative does not keep",
                       "compare values instead, or pass a flag"),
    np.may_share_memory: ("np.may_share_memory(...) asks whether two arrays are "
                          "one buffer, which the derivative does not keep",
                          "compare values instead, or pass a flag"),
    builtins.setattr: ("setattr(...) changes an object, which the derivative "
                       "does not see", "pass the value as an argument or return it"),
    builtins.delattr: ("delattr(...) changes an object, which the derivative "
                       "does not see", "remove the call from the differentiated function"),
}
_BY_NAME = (builtins.getattr, builtins.hasattr)  # refused with a computed name only

_SAFE_IDENTITY = (type, types.ModuleType, types.FunctionType,
                  types.BuiltinFunctionType)


def check(tree, ctx):
    """Raise at the first (in source order) dynamic construct of `tree`."""
    local = bound_names(tree)
    scope = function_scope(ctx.func)
    found = []
    for node in walk(tree):
        problem = _problem(node, local, scope)
        if problem is not None:
            found.append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0),
                          id(node), node, problem))
    if found:
        _, _, _, node, (message, hint) = min(found, key=lambda f: f[:3])
        raise UnsupportedSyntaxError(message, hint=hint, **ctx.where(node))


def bound_names(tree):
    """Every name the function (or a def or lambda in it) binds."""
    names = set()
    for node in walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Param)):
            names.add(node.id)
        elif isinstance(node, gast.FunctionDef):
            names.add(node.name)
    return names


def function_scope(func):
    """The names visible to `func`: its closure cells over its globals."""
    parent = getattr(func, "parent", None)  # a lifted nested function
    if parent is not None and getattr(func, "tree", None) is not None:
        return function_scope(parent)
    scope = dict(getattr(func, "__globals__", {}))
    code = getattr(func, "__code__", None)
    cells = getattr(func, "__closure__", None) or ()
    for name, cell in zip(code.co_freevars if code else (), cells):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    return scope


def lookup(node, local, scope):
    """The object a global Name or Attribute chain denotes, or _MISSING."""
    if isinstance(node, gast.Name):
        if node.id in local:
            return _MISSING
        value = scope.get(node.id, _MISSING)
        return getattr(builtins, node.id, _MISSING) if value is _MISSING else value
    if isinstance(node, gast.Attribute):
        base = lookup(node.value, local, scope)
        if isinstance(base, (types.ModuleType, type)):  # no properties run
            return getattr(base, node.attr, _MISSING)
    return _MISSING


def _problem(node, local, scope):
    if isinstance(node, (gast.Name, gast.Attribute)) and isinstance(node.ctx, gast.Load):
        obj = lookup(node, local, scope)
        if _is_dynamic(obj):
            return _DYNAMIC[obj]
    if isinstance(node, gast.Call):
        obj = lookup(node.func, local, scope)
        if any(obj is f for f in _BY_NAME):
            attr = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(attr, gast.Constant) and isinstance(attr.value, str)):
                return (f"{obj.__name__}(...) with a computed attribute name reads "
                        "an attribute the transform cannot know",
                        "write the attribute by name: obj.attr")
    if isinstance(node, gast.Compare):
        operands = [node.left] + node.comparators
        for i, op in enumerate(node.ops):
            if isinstance(op, (gast.Is, gast.IsNot)) and not (
                    _plain_identity(operands[i], local, scope)
                    or _plain_identity(operands[i + 1], local, scope)):
                word = "is" if isinstance(op, gast.Is) else "is not"
                return (f"'{word}' between two values compares their identity, "
                        "which the derivative does not keep (the optimizer may "
                        "turn a copy into the same object)",
                        "compare with None, True, False or a constant, or compare "
                        "values (==, np.array_equal)")
    return None


def _is_dynamic(obj):
    try:
        return obj in _DYNAMIC
    except TypeError:  # unhashable
        return False


def _plain_identity(node, local, scope):
    """A side of `is` whose identity the derivative keeps: a constant, a
    class, module or function, or a plain sentinel object."""
    if isinstance(node, gast.Constant):
        return True
    obj = lookup(node, local, scope)
    return obj is not _MISSING and (obj is None or obj is Ellipsis or isinstance(obj, bool)
                                    or isinstance(obj, _SAFE_IDENTITY)
                                    or type(obj) is object)
