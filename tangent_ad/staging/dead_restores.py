"""Saves that staging made dead: after specialization a restored value may
no longer be read (the helper that read it is gone), and then its save is
work for nothing. Run on a specialized copy (``specialize.run``)."""
import gast

from tangent_ad.analysis import cfg, dataflow
from tangent_ad.nodes import is_pop, is_push, walk


def run(fdef):
    """Remove ``v = stack.pop()`` where no restore of `v` is read, and every
    ``stack.append(v)``. A function with nested functions (a pullback,
    whose ``back`` pops what it pushes) is left alone."""
    if any(isinstance(n, gast.FunctionDef) for n in walk(fdef) if n is not fdef):
        return
    graph = cfg.build(fdef)
    live_after = dataflow.liveness(graph)
    restores = {}  # name -> [live?]
    for node in graph.nodes:
        stmt = node.stmt
        if isinstance(stmt, gast.Assign) and is_pop(stmt.value) and \
                isinstance(stmt.targets[0], gast.Name):
            target = stmt.targets[0].id
            restores.setdefault(target, []).append(target in live_after[node])
    dead = {v for v, live in restores.items() if not any(live)}
    if dead:
        _remove(fdef, dead)


def _remove(node, dead):
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            kept = [s for s in block if not _saves(s, dead)]
            for stmt in kept:
                _remove(stmt, dead)
            setattr(node, field, kept or ([gast.Pass()] if field == "body" else []))


def _saves(stmt, dead):
    if is_push(stmt):
        value = stmt.value.args[0] if stmt.value.args else None
        return isinstance(value, gast.Name) and value.id in dead
    return isinstance(stmt, gast.Assign) and is_pop(stmt.value) and \
        isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in dead
