"""Which names of a core-form body may hold a tuple, list or dict.

Two questions of the reverse pass depend on it, and a wrong answer to
either is a silent wrong gradient, never an error, because ``+`` and ``*``
are defined on sequences too:

* how to add up two contributions to an adjoint: ``bp + e`` on a list
  concatenates, so the adjoint of a name that may hold a container adds up
  entry by entry with ``accumulate`` (`may_hold_containers`);
* whether ``a + b`` and ``a * n`` are arithmetic or concatenation and
  repetition (`sequence_operations`).

Both are syntactic and conservative: a name is in a set when the code
gives evidence that it may be a container, and the evidence flows through
copies (``q = p``) and through the operands of ``+`` and ``*`` to a fixed
point. ``accumulate`` and the sequence rules are correct on numbers and
arrays too, so a name wrongly included costs only speed and readability.
"""
import builtins

import gast

from tangent_ad.nodes import STACK, call_name, name_nodes, statements, walk
from tangent_ad.registry import REGISTRY
from tangent_ad.runtime.objects import field

# builtins whose argument is an iterable: its adjoint is a list or tuple
_ITERABLE_BUILTINS = {builtins.sum, builtins.min, builtins.max, builtins.sorted,
                      builtins.list, builtins.tuple, builtins.dict, builtins.zip,
                      builtins.enumerate, builtins.reversed}
_LITERALS = (gast.Tuple, gast.List, gast.Dict)


def may_hold_containers(body, ctx, pullbacks, sequences):
    """Names whose value may be a tuple, list or dict: indexed, unpacked,
    built from a literal or put into one, appended to, passed to or
    returned by the user's own function (`pullbacks`, as returned by
    ``calls.rewrite_calls``), passed to a generated derivative (a gradient,
    jvp or vjp, whose rule ``second_order.py`` writes), passed to or
    returned by a function declared ``structured``, given to ``sum``,
    ``min``, ``max`` and the like, or copied to or from such a name. Their
    adjoints add up with ``accumulate``, not with ``+``. `sequences` is
    ``sequence_operations(body)``."""
    names = set(sequences[1])
    for _, wanted, _ in pullbacks.values():
        names.update(atom.id for _, atom in wanted)
    for node in walk(gast.Module(body=body, type_ignores=[])):
        func = ctx.resolved.get(node) if isinstance(node, gast.Call) else None
        if hasattr(func, "__tangent_ad__"):  # a generated derivative
            names.update(_names(gast.Tuple(elts=node.args, ctx=gast.Load())))
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.Call) \
                and REGISTRY.is_structured(ctx.resolved.get(node.value)):
            names.update(_names(node) - {STACK})
        elif isinstance(node, gast.Call) and _hashable(func) and func in _ITERABLE_BUILTINS:
            names.update(_names(gast.Tuple(elts=node.args, ctx=gast.Load())))
        elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            names.add(node.value.id)
        elif isinstance(node, gast.Call) and func is field:  # obj.W of an object
            names.update(_names(gast.Tuple(elts=node.args[:1], ctx=gast.Load())))
        elif isinstance(node, _LITERALS):
            names.update(e.id for e in _elements(node) if isinstance(e, gast.Name))
        if isinstance(node, gast.Assign) and isinstance(node.value, _LITERALS + (gast.Call,)):
            if not isinstance(node.value, gast.Call) or isinstance(node.targets[0], gast.Tuple) \
                    or call_name(node.value) == "appended":
                names.update(_names(node.targets[0]))
    return _close_over_copies(body, names)


def sequence_operations(body):
    """(statements, names): the assignments ``t = a + b`` and ``t = a * b``
    that may concatenate or repeat a tuple or list, because a literal
    sequence or an ``appended`` list flows into an operand; and the names
    that may hold such a sequence. (A structured function's result is no
    evidence: ``np.array([x, y])`` is an array.)"""
    seqs, links = set(), []
    for node in _assignments(body):
        value, target = node.value, node.targets[0].id
        if isinstance(value, (gast.Tuple, gast.List)) or \
                isinstance(value, gast.Call) and call_name(value) == "appended":
            seqs.add(target)
        elif isinstance(value, gast.Name):
            links.append((node, {target, value.id}, True))
        elif isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult)):
            operands = {o.id for o in (value.left, value.right) if isinstance(o, gast.Name)}
            # a sum of sequences has sequence operands; a product, one of them
            links.append((node, {target} | operands, isinstance(value.op, gast.Add)))
    changed = True
    while changed:
        changed = False
        for node, group, both_ways in links:
            target = node.targets[0].id
            grow = group if both_ways and group & seqs else \
                {target} if group - {target} & seqs else set()
            if not grow <= seqs:
                seqs |= grow
                changed = True
    ops = [node for node, group, _ in links
           if isinstance(node.value, gast.BinOp) and group & seqs]
    return ops, seqs


def _assignments(body):
    for node in statements(gast.Module(body=body, type_ignores=[])):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name):
            yield node


def _close_over_copies(body, names):
    """`names` with every name copied to or from one of them (``q = p``)."""
    copies = [(n.targets[0].id, n.value.id) for n in _assignments(body)
              if isinstance(n.value, gast.Name)]
    names = set(names)
    changed = True
    while changed:
        changed = False
        for a, b in copies:
            if (a in names) != (b in names):
                names.update((a, b))
                changed = True
    return names


def _elements(literal):
    return literal.values if isinstance(literal, gast.Dict) else literal.elts


def _names(node):
    return {n.id for n in name_nodes(node)}


def _hashable(func):
    try:
        hash(func)
    except TypeError:
        return False
    return func is not None
