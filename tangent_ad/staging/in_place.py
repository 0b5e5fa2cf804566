"""Lists a derivative owns, grown and added into in place, in a derivative
specialized by ``specialize.py``.

Generated code updates lists functionally: ``items = appended(items, v)``
copies `items` to add `v`, and ``bt = accumulate_at(bt, g, t, i)`` copies
the adjoint list `bt` to add `g` at `i`, so that a value saved before the
update is not changed by it. In a loop of n steps each copies n^2 / 2
entries. A list that no other name or save can hold may be updated in
place instead: ``items.append(v)`` and ``bt = accumulate_into(bt, g, t,
i)`` (which writes into a list and is ``accumulate_at`` otherwise).

A name owns its list here when, in the function's own body:

* it is bound only by a fresh list at the top level (``items = []``, or
  ``bt = zeros_like(...)``, which makes a new list for a list), before
  the update, and by the updates themselves;
* the updates are inside one top-level loop; the name is read nowhere in
  that loop but as the first argument of its updates, never pushed on the
  save stack, and read elsewhere only in top-level statements after that
  loop, when no update comes any more;
* it is not a parameter and no nested function mentions it.
"""
import gast

from tangent_ad import runtime
from tangent_ad.nodes import blocks, call, is_push, walk
from tangent_ad.staging.callees import for_function

_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)


def run(tree, namespace=None):
    """Return the FunctionDef `tree` with the lists it owns updated in
    place (module docstring); calls looked up in `namespace`."""
    callees = for_function(tree, namespace)
    params = {a.id for a in tree.args.args}
    nested = {n.id for s in tree.body for node in walk(s) if isinstance(node, _NESTED)
              for n in walk(node) if isinstance(n, gast.Name)}
    # accumulate_into is written by name: only where that name means it
    adds = _HELPER not in callees.bound and (namespace is None or namespace.get(
        _HELPER, runtime.accumulate_into) is runtime.accumulate_into)
    for loop in [s for s in tree.body if isinstance(s, (gast.For, gast.While))]:
        for target, kind in _updated(loop, callees):
            if target not in params and target not in nested and (adds or kind == "append") \
                    and _owned(tree, loop, target, kind, callees):
                _rewrite(loop, target, kind, callees)
                if kind == "add" and namespace is not None:
                    namespace[_HELPER] = runtime.accumulate_into
    return tree


_HELPER = "accumulate_into"


def _updated(loop, callees):
    """{(name, kind)} of the updates in `loop`: kind "append" for ``x =
    appended(x, v)``, "add" for ``x = accumulate_at(x, g, t, i)``."""
    found = set()
    for node in walk(loop):
        kind = _update(node, callees)
        if kind is not None:
            found.add((node.targets[0].id, kind))
    return found


def _update(stmt, callees):
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)
            and not stmt.value.keywords and stmt.value.args and
            isinstance(stmt.value.args[0], gast.Name) and
            stmt.value.args[0].id == stmt.targets[0].id):
        return None
    func, count = callees.of_call(stmt.value), len(stmt.value.args)
    if func is runtime.appended and count == 2:
        return "append"
    if func is runtime.accumulate_at and count == 4:
        return "add"
    return None


def _owned(tree, loop, target, kind, callees):
    at = tree.body.index(loop)
    for i, stmt in enumerate(tree.body):
        if stmt is loop:
            if not _only_updates(loop, target, kind, callees):
                return False
            continue
        for node in walk(stmt):
            if is_push(node) and _mentions(node, target):
                return False
            if isinstance(node, gast.Name) and node.id == target:
                if isinstance(node.ctx, gast.Store):
                    if i > at or not _fresh(stmt, target, kind, callees):
                        return False
                elif i < at:
                    return False  # read before the loop: a later update may change it
    return True


def _only_updates(loop, target, kind, callees):
    """Whether `loop` mentions `target` only in its updates of `kind`, as
    their target and first argument."""
    updates = [n for n in walk(loop) if _update(n, callees) == kind and
               n.targets[0].id == target]
    mentions = sum(1 for n in walk(loop) if isinstance(n, gast.Name) and n.id == target)
    return bool(updates) and mentions == 2 * len(updates) and \
        not any(is_push(n) and _mentions(n, target) for n in walk(loop))


def _fresh(stmt, target, kind, callees):
    """``target = []`` (appends) or ``target = zeros_like(...)`` (adds)."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == target):
        return False
    value = stmt.value
    if kind == "append":
        return isinstance(value, gast.List) and not value.elts
    return isinstance(value, gast.Call) and callees.of_call(value) is runtime.zeros_like \
        and len(value.args) == 1 and not _mentions(value, target)


def _mentions(node, target):
    return any(isinstance(n, gast.Name) and n.id == target for n in walk(node))


def _rewrite(loop, target, kind, callees):
    for block in blocks(loop):
        for i, stmt in enumerate(block):
            if _update(stmt, callees) != kind or stmt.targets[0].id != target:
                continue
            if kind == "append":
                block[i] = gast.Expr(value=call(f"{target}.append", stmt.value.args[1]))
            else:
                stmt.value = call(_HELPER, *stmt.value.args)
