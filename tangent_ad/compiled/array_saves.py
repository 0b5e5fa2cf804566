"""Saves of numbers as arrays in the Numba form (``numba_form``).

A list boxes each item; an array of numbers stores them flat, about six
times faster for a scalar loop. After a first compile, the save lists whose
items Numba typed as numbers, and whose saves all run in one ``range`` loop
of the derivative's body, become arrays sized by that loop's count, with a
count ``top_x`` of the items in each.
"""
import gast

from tangent_ad.nodes import STACK, assign, call, const, name, walk


def run(root, sites):
    """Each list of `sites` whose saves all run in one loop of the
    function's body, over a ``range``, as an array of that many items per
    save statement, with a count, ``top_x``: a list boxes each item, an
    array of numbers stores them flat (about six times faster for a scalar
    loop). Other lists stay lists. A placeholder ``t = None`` of a value
    saved there becomes a zero: it is pushed, never read."""
    loops = _saving_loops(root, sites)
    if not loops:
        return
    taken = {n.id for n in walk(root) if isinstance(n, gast.Name)}
    tops = {}
    for site in loops:
        top = "top_" + site[len(STACK) + 1:] if site.startswith(STACK + "_") else f"top_{site}"
        while top in taken:
            top += "_"
        tops[site] = top
    saved = {}  # value name -> its site, for the placeholders

    def rewrite(body):
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    setattr(stmt, field, rewrite(inner))
            site = _site_of(stmt)
            if site not in loops:
                out.append(stmt)
            elif isinstance(stmt, gast.Expr):  # the push
                value = stmt.value.args[0]
                if isinstance(value, gast.Name):
                    saved[value.id] = site
                out += [assign(gast.Subscript(value=name(site), slice=name(tops[site]),
                                               ctx=gast.Store()), value),
                        _bump(tops[site], gast.Add())]
            elif isinstance(stmt, gast.Assign):
                out += [_bump(tops[site], gast.Sub()),
                        assign(stmt.targets[0].id, _item(site, tops[site]))]
            else:  # if stack.pop():
                stmt.test = _item(site, tops[site])
                out += [_bump(tops[site], gast.Sub()), stmt]
        return out

    root.body = rewrite(root.body)
    body = []
    for stmt in root.body:
        target = stmt.targets[0].id if isinstance(stmt, gast.Assign) and \
            isinstance(stmt.targets[0], gast.Name) else None
        for site, (loop, count) in loops.items():
            if stmt is loop:
                size = _trip_count(loop.iter)
                if count > 1:
                    size = gast.BinOp(left=size, op=gast.Mult(), right=const(count))
                dtype = gast.Attribute(value=name("np"), attr=sites[site], ctx=gast.Load())
                body.append(assign(site, call("np.empty", size, dtype)))
        if target in loops and isinstance(stmt.value, gast.List):
            body.append(assign(tops[target], const(0)))
        elif target in saved and isinstance(stmt.value, gast.Constant) and \
                stmt.value.value is None:
            kind = sites[saved[target]]
            body.append(assign(target, const(False if kind == "bool_" else
                                              0 if kind.startswith("int") else 0.0)))
        else:
            body.append(stmt)
    root.body = body


def _saving_loops(root, sites):
    """{list: (loop, saves per iteration)} for the lists of `sites` whose
    saves all sit in one ``for ... in range(...)`` of the function's body,
    outside any loop nested in it (so their count is known before it)."""
    found, spoiled = {}, set()
    for stmt in root.body:
        counts = {}
        nested = isinstance(stmt, gast.For) and _trip_count(stmt.iter) is not None
        for node in walk(stmt):
            site = _site_of(node) if isinstance(node, gast.Expr) else None
            if site in sites:
                counts[site] = counts.get(site, 0) + 1
        if not counts:
            continue
        inner = [n for n in walk(stmt) if isinstance(n, (gast.For, gast.While)) and n is not stmt]
        deep = {_site_of(n) for loop in inner for n in walk(loop) if isinstance(n, gast.Expr)}
        for site, count in counts.items():
            if not nested or site in deep or site in found:
                spoiled.add(site)
            else:
                found[site] = (stmt, count)
    return {site: entry for site, entry in found.items() if site not in spoiled}


def _trip_count(iterable):
    """The number of iterations of ``range(...)``, as an expression, or None."""
    if not (isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) and
            iterable.func.id == "range" and 1 <= len(iterable.args) <= 3 and
            not iterable.keywords):
        return None
    if len(iterable.args) == 1:
        return call("max", iterable.args[0], const(0))
    return gast.Call(func=name("len"), args=[iterable], keywords=[])


def _site_of(stmt):
    """The list a save statement of the Numba form uses, or None."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
            isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append":
        return getattr(stmt.value.func.value, "id", None)
    value = stmt.value if isinstance(stmt, gast.Assign) else \
        stmt.test if isinstance(stmt, gast.If) else None
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
            value.func.attr == "pop" and not value.args:
        return getattr(value.func.value, "id", None)
    return None


def _bump(top, op):
    return gast.AugAssign(target=name(top, store=True), op=op, value=const(1))


def _item(site, top):
    return gast.Subscript(value=name(site), slice=name(top), ctx=gast.Load())
