"""The in-place writes into parameters that one unit of generated
functions lets through (``mutation.py``): a called function may write
into its parameter when every call binds the result back. Each function
of the unit is checked on its own; what they learn of each other's calls
is kept here, in ``ctx.unit``, and judged once all are generated
(`check_unit`).
"""
import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend.introspection import _MISSING, lookup
from tangent_ad.nodes import walk


def unit_of(ctx):
    """The facts of `ctx`'s unit (a fresh dict for a context without one)."""
    unit = getattr(ctx, "unit", None)
    return {} if unit is None else unit


def checked_calls(ctx):
    """{(function, parameter)}: in-place writes into a parameter that the
    calls checked so far in the unit bind back (``_Scope._mutating_call``);
    empty once a function that writes into a parameter is used other than
    by such a call (passed as a value, called in a lambda), which no
    caller can check."""
    unit = getattr(ctx, "unit", None)
    if unit is None or unit.get("unchecked_use"):
        return set()
    return unit.setdefault("rebound_writes", set())


def let_through(ctx, func, name, where):
    """Note that `func`'s write into its parameter `name` was let through."""
    unit = getattr(ctx, "unit", None)
    if unit is not None:
        unit.setdefault("let_through", []).append((func, name, where))


def note_other_uses(tree, scopes, scope, ctx, writes_in_place):
    """Mark the unit when `tree` uses a function that writes into its
    parameters in place (`writes_in_place(obj)`) other than as the callee
    of a checked call, and note the names of the methods it calls."""
    unit = getattr(ctx, "unit", None)
    if unit is None:
        return
    checked = {id(call.func) for s in scopes for call, _, _ in s.calls}
    local = scopes[0].local if scopes else set()
    for node in walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                id(node) not in checked and writes_in_place(lookup(node, local, scope)):
            unit["unchecked_use"] = True
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                lookup(node.func, local, scope) is _MISSING:
            # a method of a local object (self.step(x)): which function runs
            # is not known here (see `check_unit`)
            unit.setdefault("method_names", set()).add(node.func.attr)


def check_unit(unit):
    """After every function of a unit is checked: refuse a write into a
    parameter that was let through because its calls bind the result back
    when a method of the same name is called somewhere in the unit (the
    same function as a method, ``self.step(x)``, is a call no caller checks)."""
    methods = unit.get("method_names", set())
    for func, name, where in unit.get("let_through", ()):
        if func.__name__ in methods:
            raise UnsupportedSyntaxError(
                f"{func.__name__} changes its parameter '{name}' in place, and is also "
                "called as a method, a call whose effect on the caller's value the "
                "derivative cannot check", hint=f"compute a new value ({name} = {name} * ...) "
                f"and return it", **where)
