"""Run the optimization passes over the derivative tree until nothing changes.

Passes, in order and round after round: algebraic simplification, copy
and constant propagation, dead-code elimination. Each is
``run(tree, ctx) -> tree`` and counts its changes in ``ctx.rewrites``;
the loop stops once every pass has run, one after the other, without
changing anything (a pass that declares ``IDEMPOTENT``, whose output
it would leave as it is, counts as done by the run that changed the tree:
simplification and dead-code elimination, whose last runs used to only
confirm). Counting is much
cheaper than comparing a text of the whole tree after each round (`fingerprint`), and a pass is not run
again on a tree it has already left as it was. Call-time staging runs
the same loop with its own pass in front (``staging.dispatch``), on a
`Tally`: a context that counts and knows nothing else.

Passes that all report the nodes they change (``REPORTS_TOUCHED``) share
the names of each simple statement from one run to the next
(``analysis.statement_names``), in ``ctx.facts`` while the loop runs.
"""
import ast

from tangent_ad.analysis import statement_names
from tangent_ad.optimize import dce, propagate, simplify

PASSES = (simplify, propagate, dce)
MAX_ROUNDS = 10


def run(tree, ctx, passes=None):
    """`tree` after `passes` (modules or objects with ``run(tree, ctx)``;
    `PASSES` by default) in turn until a run of all of them changes
    nothing (at most `MAX_ROUNDS` rounds)."""
    passes = PASSES if passes is None else passes
    if not all(getattr(p, "REPORTS_TOUCHED", False) for p in passes):
        return _rounds(tree, ctx, passes)
    ctx.facts[statement_names.FACT] = statement_names.Names()
    try:
        return _rounds(tree, ctx, passes)
    finally:
        del ctx.facts[statement_names.FACT]


def _rounds(tree, ctx, passes):
    quiet = 0  # passes in a row that have nothing left to change
    for step in range(MAX_ROUNDS * len(passes)):
        before, current = ctx.rewrites, passes[step % len(passes)]
        tree = current.run(tree, ctx)
        if ctx.rewrites == before:
            quiet += 1
        else:  # a pass whose output is its own fixed point need not run again to say so
            quiet = 1 if getattr(current, "IDEMPOTENT", False) else 0
        if quiet == len(passes):
            break
    return tree


class Tally:
    """A context for passes run outside a transformation: it counts their
    rewrites; it has no namer and no facts (``simplify`` and the shape
    analysis then assume nothing about names)."""

    namer = None

    def __init__(self):
        self.rewrites = 0
        self.facts = {}

    def count_rewrites(self, number):
        self.rewrites += number


def fingerprint(tree):
    """A text that changes whenever the tree does: every node and field,
    comment markers included. Cheaper than emitting source (no copy, no
    printing) by a factor of about seven."""
    return ast.dump(tree)
