"""Loop checkpointing: ``for i in tad.checkpointed(range(n)):``.

A plain loop's derivative saves something every iteration. A checkpointed
loop runs in segments of about sqrt(n) iterations instead: the forward
sweep only records the loop-carried variables at the start of each
segment (a *snapshot*), and the adjoint sweep, segment by segment from the
last, restores the snapshot, runs the segment forward again with its saves,
and then runs the segment's adjoint. Memory drops from O(n) to O(sqrt(n))
saved states, for one extra forward pass.

The loop must be a ``range`` loop at the top level of the function (not
nested in another loop) without ``break``.
"""
from dataclasses import dataclass

import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.hooks import checkpointed
from tangent_ad.nodes import assign, call, name, walk, writes


@dataclass
class Segments:
    """The names a checkpointed loop uses, and its forward re-run."""

    steps: str        # the range being iterated
    length: str       # iterations per segment
    start: str        # first index of a segment
    snapshots: str    # the list of snapshots
    carried: list     # the variables a snapshot holds
    rerun: list       # the loop body with its saves, run again per segment


def is_checkpointed(stmt, ctx):
    return isinstance(stmt, gast.For) and isinstance(stmt.iter, gast.Call) \
        and ctx.resolved.get(stmt.iter) is checkpointed


def forward(stmt, sweep, depth, defined):
    """The segmented forward loop, and its Segments (to build the adjoint)."""
    ctx = sweep.ctx
    where = ctx.where(ctx.origin.get(stmt))
    if depth > 0:
        raise UnsupportedSyntaxError(
            "a checkpointed loop inside another loop is not supported",
            hint="checkpoint the outer loop instead", **where)
    if any(isinstance(n, gast.Break) for n in walk(stmt)) or \
            len(stmt.iter.args) != 1 or ctx.resolved.get(stmt.iter.args[0]) is not range:
        raise UnsupportedSyntaxError(
            "tad.checkpointed needs a range(...) loop without break",
            hint="write: for i in tad.checkpointed(range(n)):", **where)
    fresh = ctx.namer.fresh
    seg = Segments(steps=fresh("steps"), length=fresh("segment"), start=fresh("start"),
                   snapshots=fresh("snapshots"), carried=[], rerun=[])
    assigned = set().union(*(writes(s) for s in stmt.body))
    seg.carried = sorted(assigned & defined)
    seg.rerun = sweep.block(stmt.body, depth + 1)
    sweep.plan.checkpointed[stmt] = seg
    snapshot = gast.Expr(value=call(f"{seg.snapshots}.append", _pack(seg.carried)))
    segment = gast.For(target=stmt.target, iter=_window(seg), body=stmt.body,
                       orelse=[], type_comment=None)
    return [
        assign(seg.steps, stmt.iter.args[0]),
        assign(seg.length, call("segment_length", call("len", name(seg.steps)))),
        assign(seg.snapshots, gast.List(elts=[], ctx=gast.Load())),
        gast.For(target=name(seg.start, store=True), iter=_starts(seg),
                 body=[snapshot, segment], orelse=[], type_comment=None),
    ]


def adjoint(stmt, seg, body):
    """The adjoint loop over segments, last first; `body` is the adjoint of
    one iteration."""
    restore = gast.Assign(targets=[_pack(seg.carried, store=True)],
                          value=call(f"{seg.snapshots}.pop"), type_comment=None)
    rerun = gast.For(target=stmt.target, iter=_window(seg), body=seg.rerun or [gast.Pass()],
                     orelse=[], type_comment=None)
    backward = gast.For(target=stmt.target, iter=call("reversed", _window(seg)),
                        body=body or [gast.Pass()], orelse=[], type_comment=None)
    return gast.For(target=name(seg.start, store=True), iter=call("reversed", _starts(seg)),
                    body=[restore, rerun, backward], orelse=[], type_comment=None)


def _starts(seg):
    return call("range", gast.Constant(value=0, kind=None),
                call("len", name(seg.steps)), name(seg.length))


def _window(seg):
    """``steps[start:start + segment]``."""
    upper = gast.BinOp(left=name(seg.start), op=gast.Add(), right=name(seg.length))
    return gast.Subscript(value=name(seg.steps), slice=gast.Slice(
        lower=name(seg.start), upper=upper, step=None), ctx=gast.Load())


def _pack(names, store=False):
    return gast.Tuple(elts=[name(n, store=store) for n in names],
                      ctx=gast.Store() if store else gast.Load())
