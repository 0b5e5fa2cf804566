"""The check that a gradient's function returned a real scalar.

A gradient is defined for a real scalar output only: seeding a larger
output with 1.0 would differentiate its sum, a complex one its real part,
and a bool has no derivative. The reverse stage puts the statements of
`statements` between the primal sweep and the seed; they read values the
derivative computes anyway where they can: the values a full reduction
sums are complex exactly when its result is, and so are the values they
are computed from by arithmetic with real numbers (``ensure_real(t)``
for ``np.sum(t * 2.0)``). Staging drops the check where the kinds of the
arguments prove it (``staging/specialize.py``).
"""
import collections

import gast
import numpy as np

from tangent_ad.nodes import call, name_nodes

_REAL_REDUCTIONS = (np.sum, np.mean, np.prod)  # real for real values (bools too)
_REAL_OUTPUTS = (np.var, np.std)  # real for any values


def statements(atom, body, ctx):
    """The statements that check a gradient's output `atom` is a real
    scalar: none for a number, ``float(...)`` or a variance (or a number
    times one); ``ensure_real(v)`` for a full reduction of `v` (its size is
    1, and it is real when `v` is, so the reduction itself need not be
    computed for the check); else ``ensure_scalar(atom)``."""
    if _real_number(atom):
        return []
    source = _complex_source(atom, body)  # of atom's size: arithmetic with numbers
    defs = [s.value for s in body if isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id == getattr(
                source, "id", None)]
    if len(defs) == 1 and _stores(body)[source.id] == 1:
        value = defs[0]
        func = ctx.resolved.get(value)
        full = isinstance(value, gast.Call) and len(value.args) == 1 and \
            not {k.arg for k in value.keywords} & {"axis", "keepdims"}
        if func is float or full and any(func is f for f in _REAL_OUTPUTS):
            return []
        if full and any(func is f for f in _REAL_REDUCTIONS):
            operand = _complex_source(value.args[0], body)
            if _real_number(operand) or _real_valued(operand, body, ctx):
                return []
            return [gast.Expr(value=call("ensure_real", operand))]
    return [gast.Expr(value=call("ensure_scalar", atom))]


_REAL_VALUED = (np.real, np.imag, np.abs, np.angle, abs)  # real of any values


def _real_valued(atom, body, ctx):
    """Whether `atom` is bound once, to a function of real values only."""
    defs = [s.value for s in body if isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id == getattr(
                atom, "id", None)]
    func = ctx.resolved.get(defs[0]) if len(defs) == 1 and \
        _stores(body)[atom.id] == 1 else None
    return any(func is f for f in _REAL_VALUED)


def _stores(body):
    return collections.Counter(n.id for n in name_nodes(body) if isinstance(n.ctx, gast.Store))


def _complex_source(atom, body):
    """The earliest name that `atom` is computed from by arithmetic with
    real numbers (``t * 2.0``, ``t ** 2``, ``-t``), each bound at most once:
    complex exactly when `atom` is, and usually still needed by the
    adjoint, so that checking it costs no extra computation."""
    stores = _stores(body)
    defs = {s.targets[0].id: s.value for s in body if isinstance(s, gast.Assign)
            and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)}
    while isinstance(atom, gast.Name) and stores[atom.id] == 1 and atom.id in defs:
        value, source = defs[atom.id], None
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
            source = value.operand
        elif isinstance(value, gast.BinOp) and isinstance(value.op, _ARITHMETIC):
            if _real_number(value.right):
                source = value.left
            elif _real_number(value.left) and not isinstance(value.op, gast.Pow):
                source = value.right
        if not (isinstance(source, gast.Name) and stores[source.id] <= 1):
            return atom
        atom = source
    return atom


_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)


def _real_number(node):
    return isinstance(node, gast.Constant) and type(node.value) in (int, float)
