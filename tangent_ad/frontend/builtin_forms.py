"""Builtin forms stage: builtins that choose or rearrange items, written as indexing.

``sorted``, ``reversed``, ``min`` and ``max`` over a sequence (or with
``key=``) return items of their argument. Their derivative is that of
reading those items, so each is rewritten before validation into the
indexing it amounts to, with the positions computed by a helper that
carries no derivative (``tangent_ad/runtime/ordering.py``):

* ``sorted(xs, key=k, reverse=r)`` -> ``[xs[i] for i in sort_order(xs, k, r)]``
* ``reversed(xs)`` -> ``[xs[i] for i in reversed_indices(xs)]``
* ``max(xs, key=k)`` -> ``xs[extreme_index(xs, True, k)]`` (``min`` alike;
  ``max(a, b, key=k)`` reads the tuple ``(a, b)``)

A sequence that is not a local name is evaluated once, as the first loop
of the comprehension: ``[t[i] for t in [<xs>] for i in sort_order(t)]``.
Two forms of plain Python become what they mean:

* ``dict(a=x, b=y)`` -> ``{"a": x, "b": y}``; ``dict(pairs)`` ->
  ``{k: v for k, v in pairs}`` for pairs written as a list, a
  comprehension or a ``zip(...)``; ``dict({"a": x}, b=y)`` and
  ``dict([("a", x)], b=y)`` -> ``{"a": x, "b": y}``;
* ``d.get(k, default)`` on a local ``d`` -> ``d[k] if k in d else default``;
* an f-string, ``f"{a:.2f}"`` -> ``formatted("{:.2f}", (a,))``, a string
  with no derivative (``runtime/structures.py``);
* a named tuple or plain dataclass made in the code, ``Params(W=w, b=c)``
  -> ``built(Params, (w, c))`` (``runtime/objects.py``).

The helpers are bound in ``ctx.facts["helpers"]``, under names no name of
the function uses; the resolver looks them up there.
"""
import inspect

import gast

from tangent_ad.frontend.static_scope import StaticScope
from tangent_ad.nodes import const as _const, name as _load, walk, fix_locations
from tangent_ad.runtime import objects, ordering, structures
from tangent_ad.visitors import Transformer

_NAMES = ("sorted", "reversed", "min", "max", "dict", "get")


def run(tree, ctx):
    """Return the FunctionDef `tree` with the builtin forms rewritten."""
    known = getattr(ctx.func, "__globals__", {})
    if not any(isinstance(n, gast.JoinedStr) or isinstance(n, gast.Call) and
               _worth_a_look(n, known) for n in walk(tree)):
        return tree  # (a quick look: the scope costs more than most functions' rewrite)
    rewrite = _Rewrite(StaticScope(tree, ctx), ctx.facts.setdefault("helpers", {}))
    rewrite.visit(tree)
    return fix_locations(tree)


def _worth_a_look(call, known):
    """A call of one of the builtins rewritten here (also under another
    global name: ``ag_dict = dict``), or of a capitalized name or attribute
    (a class: a named tuple or dataclass, maybe)."""
    name = _called_name(call)
    if name is None:
        return False
    value = known.get(name) if isinstance(call.func, gast.Name) else None
    return name in _NAMES or name[:1].isupper() or \
        any(value is b for b in (sorted, reversed, min, max, dict)) or \
        objects.is_record_class(value)


def _called_name(node):
    func = node.func
    return func.id if isinstance(func, gast.Name) else \
        func.attr if isinstance(func, gast.Attribute) else None


class _Rewrite(Transformer):
    def __init__(self, scope, helpers):
        self.scope = scope
        self.helpers = helpers

    def helper(self, func):
        for key, value in self.helpers.items():
            if value is func:
                return _load(key)
        key = self.scope.fresh(func.__name__)
        self.helpers[key] = func
        return _load(key)

    def visit_Call(self, node):
        self.generic_visit(node)
        scope = self.scope
        keywords = {k.arg: k.value for k in node.keywords}
        if None in keywords or self._captures(keywords.get("key")):
            return node  # **kwargs; a key reading the function's variables
        if scope.is_builtin(node.func, sorted) and len(node.args) == 1 and \
                set(keywords) <= {"key", "reverse"}:
            extra = [keywords.get("key", _const(None)), keywords.get("reverse", _const(False))]
            return self._reindexed(node, node.args[0], ordering.sort_order, extra, many=True)
        if scope.is_builtin(node.func, reversed) and len(node.args) == 1 and not keywords:
            return self._reindexed(node, node.args[0], ordering.reversed_indices, [], many=True)
        for func, largest in ((max, True), (min, False)):
            if scope.is_builtin(node.func, func) and set(keywords) <= {"key"} and node.args \
                    and (len(node.args) == 1 or keywords) and \
                    not any(isinstance(a, gast.Starred) for a in node.args):
                items = node.args[0] if len(node.args) == 1 else \
                    gast.Tuple(elts=list(node.args), ctx=gast.Load())
                extra = [_const(largest), keywords.get("key", _const(None))]
                return self._reindexed(node, items, ordering.extreme_index, extra, many=False)
        if scope.is_builtin(node.func, dict):
            return self._dict(node, keywords) or node
        if objects.is_record_class(scope.value(node.func)):
            return self._record(node, scope.value(node.func)) or node
        if isinstance(node.func, gast.Attribute) and node.func.attr == "get" and \
                isinstance(node.func.value, gast.Name) and scope.is_local(node.func.value.id) \
                and not keywords and 1 <= len(node.args) <= 2 and \
                isinstance(node.args[0], (gast.Constant, gast.Name)):
            container, key = node.func.value, node.args[0]
            default = node.args[1] if len(node.args) == 2 else _const(None)
            return _located(gast.IfExp(
                test=gast.Compare(left=_copy(key), ops=[gast.In()], comparators=[_copy(container)]),
                body=gast.Subscript(value=_copy(container), slice=_copy(key), ctx=gast.Load()),
                orelse=default), node)
        return node

    def _record(self, node, cls):
        """``Params(W=w, b=c)`` of a named tuple or plain dataclass ->
        ``built(Params, (w, c))``: the values in field order (a default
        left out must be a constant)."""
        if any(isinstance(a, gast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            return None
        try:
            bound = inspect.signature(cls).bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except (TypeError, ValueError):
            return None  # Python's own error, when the call runs
        values = []
        for name, param in inspect.signature(cls).parameters.items():
            if name in bound.arguments:
                values.append(bound.arguments[name])
            elif isinstance(param.default, (bool, int, float, complex, str, type(None))):
                values.append(_const(param.default))
            else:
                return None
        call = gast.Call(func=self.helper(objects.built),
                         args=[node.func, gast.Tuple(elts=values, ctx=gast.Load())], keywords=[])
        return _located(call, node)

    def visit_JoinedStr(self, node):
        """``f"{a:.2f} x"`` -> ``formatted("{:.2f} x", (a,))``: a string,
        with no derivative (a format spec with fields of its own stays)."""
        template, values = [], []
        for part in node.values:
            if isinstance(part, gast.Constant):
                template.append(str(part.value).replace("{", "{{").replace("}", "}}"))
                continue
            spec = part.format_spec
            if spec is not None and not all(isinstance(v, gast.Constant) for v in spec.values):
                return node
            conversion = "" if part.conversion in (-1, None) else "!" + chr(part.conversion)
            spec_text = "" if spec is None else ":" + "".join(str(v.value) for v in spec.values)
            template.append("{" + conversion + spec_text + "}")
            values.append(self.visit(part.value))
        call = gast.Call(func=self.helper(structures.formatted),
                         args=[_const("".join(template)), gast.Tuple(elts=values, ctx=gast.Load())],
                         keywords=[])
        return _located(call, node)

    def _captures(self, node):
        """Whether the lambda `node` reads a variable of the function: a
        helper calling it would not pass the value (refused later)."""
        if not isinstance(node, gast.Lambda):
            return False
        own = {a.id for a in node.args.args}
        return any(isinstance(n, gast.Name) and n.id not in own and
                   self.scope.is_local(n.id) for n in walk(node.body))

    def _reindexed(self, node, items, positions, extra, many):
        """``items[i] for i in positions(items, *extra)`` (a list when
        `many`, else the one item ``items[positions(items, *extra)]``)."""
        # evaluated once, by a first loop over a one-item list; a dict is
        # gone through by its keys, as these builtins read it (``iterated``)
        if isinstance(items, gast.Call) and isinstance(items.func, gast.Attribute) and \
                items.func.attr in ("keys", "values", "items") and not items.args and \
                not items.keywords and isinstance(items.func.value, gast.Name):
            # d.keys(), d.values(), d.items() as a value: the list of the
            # keys, d[k] or (k, d[k]) for the keys k of d, in order
            container, kind = items.func.value.id, items.func.attr
            key = self.scope.fresh("key")
            value = gast.Subscript(value=_load(container), slice=_load(key), ctx=gast.Load())
            elt = {"keys": _load(key), "values": value,
                   "items": gast.Tuple(elts=[_load(key), value], ctx=gast.Load())}[kind]
            items = gast.ListComp(elt=elt, generators=[gast.comprehension(
                target=_store(key), iter=_load(container), ifs=[], is_async=0)])
        variable = self.scope.fresh("seq")
        sequence = _load(variable)
        items = gast.Call(func=self.helper(structures.iterated), args=[items], keywords=[])
        outer = [gast.comprehension(target=_store(variable), iter=gast.List(
            elts=[items], ctx=gast.Load()), ifs=[], is_async=0)]
        chosen = gast.Call(func=self.helper(positions), args=[_copy(sequence)] + extra,
                           keywords=[])
        if many and not all(isinstance(e, (gast.Name, gast.Constant, gast.Attribute))
                            for e in extra):
            # a loop header is kept as written: a lambda key is computed in a
            # first loop, over a one-item list, where it is defined as usual
            order = self.scope.fresh("order")
            outer.append(gast.comprehension(target=_store(order), iter=gast.List(
                elts=[chosen], ctx=gast.Load()), ifs=[], is_async=0))
            chosen = _load(order)
        if many:
            index = self.scope.fresh("i")
            new = gast.ListComp(
                elt=gast.Subscript(value=_copy(sequence), slice=_load(index), ctx=gast.Load()),
                generators=outer + [gast.comprehension(target=_store(index), iter=chosen,
                                                       ifs=[], is_async=0)])
        else:
            item = gast.Subscript(value=_copy(sequence), slice=chosen, ctx=gast.Load())
            new = item if not outer else gast.Subscript(
                value=gast.ListComp(elt=item, generators=outer), slice=_const(0),
                ctx=gast.Load())
        return _located(new, node)

    def _dict(self, node, keywords):
        if not node.args and keywords:
            return _located(gast.Dict(keys=[_const(k) for k in keywords],
                                      values=list(keywords.values())), node)
        pairs = node.args[0] if len(node.args) == 1 else None
        written = _written_items(pairs)
        if written is not None:  # dict({"a": x}, b=y), dict([("a", x)], b=y)
            keys, values = written
            return _located(gast.Dict(keys=keys + [_const(k) for k in keywords],
                                      values=values + list(keywords.values())), node)
        if not keywords and (isinstance(pairs, (gast.List, gast.Tuple, gast.ListComp)) or (
                isinstance(pairs, gast.Call) and self.scope.is_builtin(pairs.func, zip))):
            # (``dict(d)`` of a dict would unpack its keys: not rewritten)
            key, value = self.scope.fresh("key"), self.scope.fresh("value")
            return _located(gast.DictComp(
                key=_load(key), value=_load(value), generators=[gast.comprehension(
                    target=gast.Tuple(elts=[_store(key), _store(value)], ctx=gast.Store()),
                    iter=node.args[0], ifs=[], is_async=0)]), node)
        return None


def _written_items(node):
    """(keys, values) of a dict display, or of a list or tuple of pairs
    written in the code; None for anything else."""
    if isinstance(node, gast.Dict) and None not in node.keys:  # (None: a ** entry)
        return list(node.keys), list(node.values)
    if isinstance(node, (gast.List, gast.Tuple)) and all(
            isinstance(e, (gast.List, gast.Tuple)) and len(e.elts) == 2 for e in node.elts):
        return [e.elts[0] for e in node.elts], [e.elts[1] for e in node.elts]
    return None


def _copy(node):
    return gast.copy_location(type(node)(**{f: getattr(node, f) for f in node._fields}), node)


def _store(identifier):
    return _load(identifier, store=True)


def _located(new, where):
    for sub in walk(new):
        if isinstance(sub, gast.expr) and getattr(sub, "lineno", None) is None:
            gast.copy_location(sub, where)
            sub.end_lineno, sub.end_col_offset = where.end_lineno, where.end_col_offset
    return new

