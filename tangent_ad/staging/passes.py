"""The passes that make a derivative's copy for argument kinds, in order.

``specialize`` (the rewrites the kinds allow) runs with the general
passes of ``optimize/`` to their fixed point; then ``sums``, ``inline``,
``full_sums``, ``release`` and ``accumulate`` finish the copy, and
``branch_lists`` and ``shared_factors`` a copy that runs as Python.
``dispatch`` calls `optimize` on each function of the unit it stages.
"""
from tangent_ad.optimize import dce, fixed_point, propagate, simplify
from tangent_ad.staging import (accumulate, branch_lists, full_sums, in_place, inline,
                                list_pops, release, shared_factors, specialize, sums)


def optimize(tree, params, unit=None, given=(), tally=None, as_python=True):
    """The FunctionDef `tree` specialized for parameter kinds `params`:
    `specialize` and the general passes to a fixed point (the general
    loop, ``fixed_point.run``), then `sums`, `inline`, `full_sums`,
    `release` and `accumulate` (in place); `unit` and `given` as for
    `kinds.Kinds`.
    `tally` (a ``fixed_point.Tally``) counts the fixed point's rewrites.
    A copy that runs `as_python` (not compiled: ``compiled/``, which keeps
    one save stack per site and calls NumPy only) gets `list_pops` first
    and `branch_lists`, `shared_factors` and `in_place` last."""
    if as_python:  # first: the kinds then see a list's pieces read by index
        tree = list_pops.run(tree)
    passes = (_Specialize(params, unit, given), simplify, propagate, dce)
    tree = fixed_point.run(tree, tally or fixed_point.Tally(), passes)
    namespace = unit.namespace if unit is not None else None
    tree = sums.run(tree, params, unit, given, namespace)
    tree = full_sums.run(inline.run(tree, namespace), params, unit, given)
    tree = release.run(tree, params, unit, given)
    tree = accumulate.run(tree, params, unit, given)
    if as_python:
        tree = shared_factors.run(branch_lists.run(tree, namespace), params, unit, given)
        tree = in_place.run(tree, namespace)
    return tree


class _Specialize:
    """``specialize.run`` for parameter kinds `params`, as a pass."""

    def __init__(self, params, unit, given):
        self.params, self.unit, self.given = params, unit, given

    def run(self, tree, ctx):
        return specialize.run(tree, self.params, self.unit, self.given, ctx)
