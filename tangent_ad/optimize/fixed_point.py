"""Run the optimization passes over the derivative tree until nothing changes.

Passes, in order: algebraic simplification, copy and constant
propagation, dead-code elimination. Each is ``run(tree, ctx) -> tree``;
the loop stops when a round leaves the emitted source unchanged.
"""
from tangent_ad import emit
from tangent_ad.optimize import dce, propagate, simplify

PASSES = (simplify, propagate, dce)
MAX_ROUNDS = 10


def run(tree, ctx):
    before = emit.run(tree)
    for _ in range(MAX_ROUNDS):
        for opt in PASSES:
            tree = opt.run(tree, ctx)
        after = emit.run(tree)
        if after == before:
            break
        before = after
    return tree
